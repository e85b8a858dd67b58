package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/server"
)

// cutRequest sends head and body on a new connection, then closes the
// connection's sending side, so that the body ends before the length
// its head announced; it returns the answer.
func (ts *testServer) cutRequest(t *testing.T, head, body string) (*http.Response, string) {
	t.Helper()
	c := ts.dial()
	if _, err := io.WriteString(c, head+body); err != nil {
		t.Fatal(err)
	}
	if err := c.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(hangGuard))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no response: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestBody_CutShort: a request body that ends before the length its
// Content-Length (or its chunked encoding) announced, the client gone or
// its connection broken, is the request's fault: 400, kind usage, saying
// the body was cut, and nothing written. It used to be 500, kind
// internal, "unexpected EOF", as if the server were broken (counted so in
// /metrics, and a client that retries on 400 but not on 500 ...).
func TestBody_CutShort(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	const g = "/ns/acme/data?graph=http%3A%2F%2Fex%2Fcut"
	const nt = "<http://ex/a> <http://ex/p> \"1\" .\n<http://ex/b> <http://ex/p> \"2\" .\n"
	head := func(method, path, ct string) string {
		return fmt.Sprintf("%s %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: %s\r\nContent-Length: 1000\r\n\r\n", method, path, ct)
	}
	for _, tc := range []struct{ name, head, body string }{
		{"graph store PUT, whole lines", head("PUT", g, "application/n-triples"), nt},
		{"graph store POST, in a token", head("POST", g, "text/turtle"), "<http://ex/a> <http://ex/p> \"tw"},
		{"graph store PUT, chunked", "PUT " + g + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/turtle\r\nTransfer-Encoding: chunked\r\n\r\n",
			fmt.Sprintf("%x\r\n%s\r\n", len(nt), nt)},
		{"graph store POST, multipart", head("POST", g, "multipart/form-data; boundary=XX"),
			"--XX\r\nContent-Type: application/n-triples\r\n\r\n" + nt},
		{"sparql query", head("POST", "/ns/acme/sparql", "application/sparql-query"), "ASK {}"},
		{"sparql form", head("POST", "/ns/acme/sparql", "application/x-www-form-urlencoded"), "query=ASK+%7B%7D"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := ts.cutRequest(t, tc.head, tc.body)
			if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Cortex-Error-Kind") != "usage" || !strings.Contains(body, "body ended before") {
				t.Errorf("%d %s %q, want 400 usage saying the body ended before its end", resp.StatusCode, resp.Header.Get("Cortex-Error-Kind"), body)
			}
		})
	}
	if resp, body := ts.do("GET", g, "", nil); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the graph of the cut uploads: %d %s", resp.StatusCode, body)
	}
}

// TestRPC_BodyCutShort: a JSON-RPC request whose body ends before its
// Content-Length is the request's fault, as on the other routes: 400, a
// parse error (-32700, the JSON received is not whole) of kind usage
// (exit 2), saying the body was cut. It was 500, -32603 internal, "read
// request: unexpected EOF".
func TestRPC_BodyCutShort(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	head := "POST /ns/acme/rpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
	resp, body := ts.cutRequest(t, head, `{"jsonrpc": "2.0", "id": 1, "method": "teams.create", "params": {"id": "t"`)
	var out struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    struct {
				ExitCode int    `json:"exitCode"`
				Kind     string `json:"kind"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("%d %q: %v", resp.StatusCode, body, err)
	}
	if e := out.Error; resp.StatusCode != http.StatusBadRequest || e.Code != -32700 || e.Data.Kind != "usage" || e.Data.ExitCode != 2 || !strings.Contains(e.Message, "body ended before") {
		t.Errorf("%d %+v, want 400, -32700, usage, exit 2, saying the body ended before its end", resp.StatusCode, e)
	}
}

// TestBody_SeveralContentTypes: a body sent with several Content-Type
// headers that differ (a field that has one value: RFC 9110, 5.3) is
// refused, 415, nothing written, as several Authorization headers are: it
// used to be read as the first said, where a proxy in front may have
// taken the last.
func TestBody_SeveralContentTypes(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	const g = "/ns/acme/data?graph=http%3A%2F%2Fex%2Fg"
	for _, tc := range []struct {
		method, path string
		ctypes       []string
		body         string
	}{
		{"PUT", g, []string{"text/turtle", "application/rdf+xml"}, "<http://ex/a> <http://ex/p> \"1\" .\n"},
		{"POST", g, []string{"application/n-triples", "text/turtle"}, "<http://ex/a> <http://ex/p> \"1\" .\n"},
		{"POST", "/ns/acme/sparql", []string{"application/sparql-query", "text/plain"}, "ASK {}"},
	} {
		req, err := http.NewRequest(tc.method, ts.url+tc.path, strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header["Content-Type"] = tc.ctypes
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnsupportedMediaType || !strings.Contains(string(b), "several Content-Type headers") {
			t.Errorf("%s %s with Content-Type %q: %d %q, want 415 naming the headers", tc.method, tc.path, tc.ctypes, resp.StatusCode, b)
		}
	}
	if resp, body := ts.do("GET", g, "", nil); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the graph of the refused uploads: %d %s", resp.StatusCode, body)
	}
	// The same value twice says nothing twice: it is read.
	req, err := http.NewRequest("PUT", ts.url+g, strings.NewReader("<http://ex/a> <http://ex/p> \"1\" .\n"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header["Content-Type"] = []string{"application/n-triples", "application/n-triples"}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Errorf("PUT with the same Content-Type twice: %d, want 201", resp.StatusCode)
	}
}
