package server_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/server"
)

// TestRoutes_MethodNotAllowed: a method a route does not serve is 405 with
// the methods it does serve in Allow (RFC 9110, 15.5.6), in the format of
// every other error; a path that is not a route stays 404.
func TestRoutes_MethodNotAllowed(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	for _, tc := range []struct{ method, path, allow string }{
		{"GET", "/ns/acme/rpc", "POST"},
		{"HEAD", "/ns/acme/rpc", "POST"},
		{"PUT", "/ns/acme/sparql?query=ASK{}", "GET, POST, HEAD"},
		{"DELETE", "/ns/acme/sparql", "GET, POST, HEAD"},
		{"OPTIONS", "/ns/acme/sparql", "GET, POST, HEAD"},
		{"PATCH", "/ns/acme/data?default", "GET, PUT, POST, DELETE, HEAD"},
		{"GET", "/ns/acme/import", "POST"},
		{"POST", "/ns/acme/export", "GET, HEAD"},
		{"POST", "/ns/acme/events", "GET, HEAD"},
		{"POST", "/healthz", "GET, HEAD"},
		{"DELETE", "/metrics", "GET, HEAD"},
	} {
		resp, body := ts.do(tc.method, tc.path, "", nil)
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != tc.allow || resp.Header.Get("Cortex-Error-Kind") != "usage" {
			t.Errorf("%s %s: %d Allow %q kind %q %q, want 405 Allow %q kind usage", tc.method, tc.path, resp.StatusCode,
				resp.Header.Get("Allow"), resp.Header.Get("Cortex-Error-Kind"), body, tc.allow)
		}
		if tc.method != "HEAD" && !strings.Contains(body, "method not allowed") {
			t.Errorf("%s %s: message %q", tc.method, tc.path, body)
		}
	}
	for _, p := range []string{"/ns/acme/nope", "/ns/acme/rpc/x", "/other"} {
		if resp, body := ts.do("POST", p, "", nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("POST %s: %d %s, want 404", p, resp.StatusCode, body)
		}
	}
}

// TestRoutes_ContentEncodingRefused: a compressed body is 415 with
// Accept-Encoding: identity, and writes nothing; it used to be read as it
// is, a syntax error of its compressed bytes.
func TestRoutes_ContentEncodingRefused(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	gz := func(s string) *bytes.Reader {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		if _, err := io.WriteString(w, s); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return bytes.NewReader(b.Bytes())
	}
	const nt = `<http://ex/a> <http://ex/p> "1" .` + "\n"
	for _, tc := range []struct{ method, path, ctype, body string }{
		{"PUT", "/ns/acme/data?graph=http%3A%2F%2Fex%2Fg", "application/n-triples", nt},
		{"POST", "/ns/acme/data?default", "application/n-triples", nt},
		{"POST", "/ns/acme/import?format=nt", "application/n-triples", nt},
		{"POST", "/ns/acme/rpc", "application/json", `{"jsonrpc":"2.0","id":1,"method":"teams.create","params":{"id":"t1","name":"n","members":[{"agent":"a","role":"r"}]}}`},
		{"POST", "/ns/acme/sparql", "application/sparql-query", "ASK {}"},
	} {
		resp, body := ts.do(tc.method, tc.path, tc.ctype, gz(tc.body), "Content-Encoding", "gzip")
		if strings.HasSuffix(tc.path, "/rpc") { // a JSON-RPC error object, as every answer of the route
			var r rpcResponse
			if err := json.Unmarshal([]byte(body), &r); err != nil || r.Error == nil {
				t.Errorf("%s %s gzipped: %q, want a JSON-RPC error object", tc.method, tc.path, body)
				continue
			}
			body = r.Error.Message
		}
		if resp.StatusCode != http.StatusUnsupportedMediaType || resp.Header.Get("Accept-Encoding") != "identity" || !strings.Contains(body, `Content-Encoding "gzip"`) {
			t.Errorf("%s %s gzipped: %d Accept-Encoding %q %q, want 415", tc.method, tc.path, resp.StatusCode, resp.Header.Get("Accept-Encoding"), body)
		}
	}
	// Nothing was written: the namespace was never created.
	if resp, body := ts.do("GET", "/ns/acme/sparql?query=ASK{}", "", nil); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("namespace after refused writes: %d %s", resp.StatusCode, body)
	}
	// A request without a body has nothing coded.
	if resp, body := ts.do("GET", "/ns/acme/data?default", "", nil, "Content-Encoding", "gzip"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET without a body, Content-Encoding gzip: %d %s, want 404 (no namespace)", resp.StatusCode, body)
	}
	// identity is no coding.
	if resp, body := ts.do("PUT", "/ns/acme/data?default", "application/n-triples", strings.NewReader(nt), "Content-Encoding", "identity"); resp.StatusCode != http.StatusCreated {
		t.Errorf("Content-Encoding identity: %d %s", resp.StatusCode, body)
	}
}

// TestRoutes_EmptyOrDotNamespace: a namespace segment that is empty, "."
// or ".." is a name that does not follow the rule: 400, kind invalid, as
// any other (server/doc.go). net/http's mux answered 307 with the path
// cleaned (/ns//rpc to /ns/rpc, /ns/../rpc to /rpc), whose request then
// found no route (404).
func TestRoutes_EmptyOrDotNamespace(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range []struct{ method, path string }{
		{"POST", "/ns//rpc"},
		{"GET", "/ns//sparql?query=ASK{}"},
		{"POST", "/ns/./rpc"},
		{"POST", "/ns/../rpc"},
		{"GET", "/ns/../ns/acme/export"},
		{"GET", "/ns//events"},
	} {
		req, err := http.NewRequest(tc.method, ts.url+tc.path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"teams.list"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Cortex-Error-Kind") != "invalid" || !strings.Contains(string(body), "namespace") {
			t.Errorf("%s %s: %d kind %q %q, want 400 kind invalid", tc.method, tc.path, resp.StatusCode, resp.Header.Get("Cortex-Error-Kind"), body)
		}
	}
}

// TestRoutes_MalformedQueryString: a query string with a parameter that
// does not decode (a bad percent escape, %ZZ, or a ';', which is no
// separator) is 400, naming it, on every route that reads parameters.
// url.URL.Query drops such a pair without a word: the SPARQL endpoint ran
// a query that named its dataset (default-graph-uri, named-graph-uri)
// against the whole store instead (the protocol, 2.1.4: "the SPARQL
// service must execute the query using the RDF Dataset given in the
// protocol request"), a Graph Store POST ?graph=IRI wrote into a new
// graph of its own and answered 201, and an export of one graph exported
// every graph.
func TestRoutes_MalformedQueryString(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	if resp, body := ts.do("PUT", "/ns/acme/data?graph=http%3A%2F%2Fex%2Fg", "application/n-triples", strings.NewReader("<http://ex/a> <http://ex/p> \"1\" .\n")); resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT: %d %s", resp.StatusCode, body)
	}
	ask := "/ns/acme/sparql?query=" + url.QueryEscape("ASK { ?s ?p ?o }")
	nt := "<http://ex/b> <http://ex/p> \"2\" .\n"
	for _, tc := range []struct{ method, path, ctype, body, msg string }{
		{"GET", ask + "&default-graph-uri=http://ex/%ZZ", "", "", `invalid URL escape "%ZZ"`},
		{"GET", ask + "&named-graph-uri=http://ex/%ZZ", "", "", `invalid URL escape "%ZZ"`},
		{"GET", ask + "&default-graph-uri=http://ex/a;b", "", "", "semicolon"},
		{"POST", "/ns/acme/sparql?default-graph-uri=http://ex/%ZZ", "application/sparql-query", "ASK { ?s ?p ?o }", `invalid URL escape "%ZZ"`},
		{"POST", "/ns/acme/sparql?default-graph-uri=http://ex/%ZZ", "application/x-www-form-urlencoded", "query=ASK%7B%7D", `invalid URL escape "%ZZ"`},
		{"POST", "/ns/acme/data?graph=http://ex/%ZZ", "application/n-triples", nt, `invalid URL escape "%ZZ"`},
		{"PUT", "/ns/acme/data?graph=http://ex/%ZZ", "application/n-triples", nt, `invalid URL escape "%ZZ"`},
		{"GET", "/ns/acme/data?graph=http://ex/%ZZ", "", "", `invalid URL escape "%ZZ"`},
		{"GET", "/ns/acme/export?graph=http://ex/%ZZ", "", "", `invalid URL escape "%ZZ"`},
		{"POST", "/ns/acme/import?format=nt&graph=http://ex/%ZZ", "", nt, `invalid URL escape "%ZZ"`},
	} {
		resp, body := ts.do(tc.method, tc.path, tc.ctype, strings.NewReader(tc.body))
		if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Cortex-Error-Kind") != "usage" || !strings.Contains(body, tc.msg) {
			t.Errorf("%s %s: %d %s %q, want 400 usage with %q", tc.method, tc.path, resp.StatusCode, resp.Header.Get("Cortex-Error-Kind"), body, tc.msg)
		}
	}
	var graphs []api.Graph
	ts.ok("acme", "graphs.list", nil, &graphs)
	if len(graphs) != 1 {
		t.Errorf("graphs after the refused writes: %+v, want http://ex/g alone", graphs)
	}
}
