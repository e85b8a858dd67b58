package server_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/server"
)

// TestImport_RelativeIRIs: the import route resolves relative IRIs against
// ?base, else against the file:// URL of an absolute ?file; a body with no
// base at all (no ?file, or a name that is no absolute path) makes a
// relative IRI a syntax error naming where it is, and writes nothing. (A
// made-up urn:cortex:request: base turned <rel> into <urn:rel>.)
func TestImport_RelativeIRIs(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	const doc = "<http://ex.org/s> <http://ex.org/p> <http://ex.org/o> .\n<rel> <http://ex.org/p> <> .\n"
	for _, tc := range []struct{ name, query, want string }{
		{"no file", "format=turtle", "body:2:1: relative IRI <rel> and no base IRI"},
		{"a relative file name", "format=turtle&file=" + url.QueryEscape("data/in.ttl"), "data/in.ttl:2:1: relative IRI <rel> and no base IRI"},
		{"a name that is no file", "format=turtle&file=" + url.QueryEscape("<stdin>"), "<stdin>:2:1: relative IRI <rel> and no base IRI"},
	} {
		resp, body := ts.do("POST", "/ns/acme/import?"+tc.query, "text/turtle", strings.NewReader(doc))
		lines := strings.Split(strings.TrimSpace(body), "\n")
		var last api.ImportEvent
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || resp.StatusCode != http.StatusOK ||
			last.Event != "error" || last.Error == nil || !strings.Contains(last.Error.Message, tc.want) || last.Error.Kind != api.KindSyntax {
			t.Errorf("%s: %d %s, want an error event with %q (%v)", tc.name, resp.StatusCode, body, tc.want, err)
		}
	}
	// The refused imports wrote nothing, and left no namespace behind.
	if resp, body := ts.do("GET", "/ns/acme/data?default", "", nil, "Accept", "application/n-triples"); resp.StatusCode != http.StatusNotFound ||
		!strings.Contains(body, `no such namespace "acme"`) {
		t.Fatalf("after the refused imports: %d %q, want 404 no such namespace", resp.StatusCode, body)
	}
	for _, tc := range []struct{ name, query, want string }{
		{"?base", "format=turtle&base=" + url.QueryEscape("http://b.org/d/"), "<http://b.org/d/rel> <http://ex.org/p> <http://b.org/d/> ."},
		{"an absolute file", "format=turtle&file=" + url.QueryEscape("/home/me/in.ttl"), "<file:///home/me/rel> <http://ex.org/p> <file:///home/me/in.ttl> ."},
	} {
		if resp, body := ts.do("POST", "/ns/acme/import?"+tc.query, "text/turtle", strings.NewReader(doc)); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"event":"done"`) {
			t.Fatalf("%s: %d %s", tc.name, resp.StatusCode, body)
		}
		if _, body := ts.do("GET", "/ns/acme/data?default", "", nil, "Accept", "application/n-triples"); !strings.Contains(body, tc.want) {
			t.Errorf("%s: default graph %q, want %q in it", tc.name, body, tc.want)
		}
	}
}

// TestExport_MissingGraph: GET /ns/NS/export?graph=IRI of a graph that
// holds no quad is 404 (kind not_found, exit code 3), as the Graph Store
// Protocol's GET of it is; the default graph always exists (an empty
// export), and a graph that holds quads is exported.
func TestExport_MissingGraph(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	if resp, body := ts.do("PUT", "/ns/acme/data?graph=http%3A%2F%2Fex%2Fg", "application/n-triples", strings.NewReader("<http://ex/a> <http://ex/p> <http://ex/o> .\n")); resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT: %d %s", resp.StatusCode, body)
	}
	for _, path := range []string{"/ns/acme/export?graph=http%3A%2F%2Fex%2Fnope", "/ns/acme/data?graph=http%3A%2F%2Fex%2Fnope"} {
		resp, body := ts.do("GET", path, "", nil, "Accept", "application/n-triples")
		if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Cortex-Error-Kind") != "not_found" || resp.Header.Get("Cortex-Exit-Code") != "3" ||
			!strings.Contains(body, "graph <http://ex/nope> in namespace acme") {
			t.Errorf("GET %s: %d %s %s %q, want 404 not_found 3", path, resp.StatusCode, resp.Header.Get("Cortex-Error-Kind"), resp.Header.Get("Cortex-Exit-Code"), body)
		}
	}
	for path, want := range map[string]string{
		"/ns/acme/export?graph=default":             "",
		"/ns/acme/export?graph=http%3A%2F%2Fex%2Fg": "<http://ex/a> <http://ex/p> <http://ex/o> .\n",
	} {
		if resp, body := ts.do("GET", path, "", nil, "Accept", "application/n-triples"); resp.StatusCode != http.StatusOK || body != want {
			t.Errorf("GET %s: %d %q, want 200 %q", path, resp.StatusCode, body, want)
		}
	}
}

// TestImport_FailedImportCreatesNoNamespace: POST /ns/NS/import into a
// namespace that does not exist yet whose body fails to parse before
// anything is committed leaves no namespace behind (reading it is 404
// not_found); into an existing namespace it keeps it.
func TestImport_FailedImportCreatesNoNamespace(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	resp, body := ts.do("POST", "/ns/fresh/import?format=ntriples", "", strings.NewReader("<http://ex/a> <http://ex/p> \"oops .\n"))
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"error"`) {
		t.Fatalf("import: %d %s, want 200 with an error event", resp.StatusCode, body)
	}
	if resp, body := ts.do("GET", "/ns/fresh/export", "", nil, "Accept", "application/n-triples"); resp.StatusCode != http.StatusNotFound ||
		!strings.Contains(body, `no such namespace "fresh"`) {
		t.Fatalf("export after the failed import: %d %s, want 404 no such namespace", resp.StatusCode, body)
	}
	if resp, body := ts.do("PUT", "/ns/kept/data?graph=http%3A%2F%2Fex%2Fg", "application/n-triples", strings.NewReader("<http://ex/a> <http://ex/p> <http://ex/o> .\n")); resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT: %d %s", resp.StatusCode, body)
	}
	if resp, body := ts.do("POST", "/ns/kept/import?format=ntriples", "", strings.NewReader("oops\n")); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"error"`) {
		t.Fatalf("import into kept: %d %s", resp.StatusCode, body)
	}
	if resp, body := ts.do("GET", "/ns/kept/export", "", nil, "Accept", "application/n-triples"); resp.StatusCode != http.StatusOK ||
		body != "<http://ex/a> <http://ex/p> <http://ex/o> .\n" {
		t.Fatalf("export of kept: %d %q", resp.StatusCode, body)
	}
}
