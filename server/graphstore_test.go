package server_test

import (
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/server"
)

// lines returns the sorted non-empty lines of s.
func lines(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

func TestGraphStore_PutGetPostDelete(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	const g = "/ns/acme/data?graph=http%3A%2F%2Fex%2Fg"
	get := func(accept string) (int, string) {
		resp, body := ts.do("GET", g, "", nil, "Accept", accept)
		return resp.StatusCode, body
	}
	if code, body := get(""); code != http.StatusNotFound || !strings.Contains(body, "no such namespace") {
		t.Fatalf("GET before the namespace exists: %d %s", code, body)
	}
	resp, body := ts.do("PUT", g, "text/turtle", strings.NewReader("@prefix ex: <http://ex/> .\nex:a ex:p \"1\" ; ex:q [ ex:r 2 ] .\n"))
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT new graph: %d %s", resp.StatusCode, body)
	}
	code, body := get("application/n-triples")
	if code != 200 || !strings.Contains(body, `<http://ex/a> <http://ex/p> "1" .`) || strings.Count(body, "\n") != 3 {
		t.Fatalf("GET after PUT: %d %s", code, body)
	}
	// PUT replaces; the response says the graph existed.
	resp, body = ts.do("PUT", g, "application/n-triples", strings.NewReader("<http://ex/b> <http://ex/p> \"2\" .\n"))
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("PUT existing graph: %d %s", resp.StatusCode, body)
	}
	if code, body = get("application/n-triples"); lines(body) != `<http://ex/b> <http://ex/p> "2" .` {
		t.Fatalf("GET after replace: %d %q", code, body)
	}
	// POST adds; N-Quads keep nothing of their own graph: all goes to the target.
	resp, body = ts.do("POST", g, "application/n-quads", strings.NewReader("<http://ex/c> <http://ex/p> \"3\" <http://ex/other> .\n"))
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("POST: %d %s", resp.StatusCode, body)
	}
	want := "<http://ex/b> <http://ex/p> \"2\" <http://ex/g> .\n<http://ex/c> <http://ex/p> \"3\" <http://ex/g> ."
	if code, body = get("application/n-quads"); lines(body) != want {
		t.Fatalf("GET after POST: %d %q", code, body)
	}
	if code, body = get("text/turtle"); code != 200 || !strings.Contains(body, "<http://ex/c>") {
		t.Fatalf("GET as Turtle: %d %s", code, body)
	}
	// The default graph is another graph.
	resp, body = ts.do("GET", "/ns/acme/data?default", "", nil, "Accept", "application/n-triples")
	if resp.StatusCode != 200 || body != "" {
		t.Fatalf("GET ?default: %d %q", resp.StatusCode, body)
	}
	resp, _ = ts.do("POST", "/ns/acme/data?default", "application/n-triples", strings.NewReader("<http://ex/d> <http://ex/p> \"4\" .\n"))
	if resp.StatusCode != http.StatusCreated { // content the default graph did not hold
		t.Fatalf("POST ?default: %d", resp.StatusCode)
	}
	if resp, body = ts.do("GET", "/ns/acme/data?default", "", nil, "Accept", "application/n-triples"); lines(body) != `<http://ex/d> <http://ex/p> "4" .` {
		t.Fatalf("GET ?default after POST: %d %q", resp.StatusCode, body)
	}
	if resp, body = ts.do("DELETE", g, "", nil); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", resp.StatusCode, body)
	}
	if code, body = get(""); code != http.StatusNotFound {
		t.Fatalf("GET after DELETE: %d %s", code, body)
	}
	if resp, body = ts.do("DELETE", g, "", nil); resp.StatusCode != http.StatusNotFound || resp.Header.Get("Cortex-Error-Kind") != "not_found" {
		t.Fatalf("DELETE again: %d %s", resp.StatusCode, body)
	}
	if resp, body = ts.do("GET", "/ns/acme/data?default", "", nil, "Accept", "application/n-triples"); lines(body) != `<http://ex/d> <http://ex/p> "4" .` {
		t.Fatalf("the default graph after DELETE of the named one: %d %q", resp.StatusCode, body)
	}
}

func TestGraphStore_BadBodiesWriteNothing(t *testing.T) {
	ts := serve(t, server.DefaultOptions().WithMaxBodyBytes(1024))
	const g = "/ns/acme/data?graph=http%3A%2F%2Fex%2Fg"
	const orig = `<http://ex/a> <http://ex/p> "1" .`
	if resp, body := ts.do("PUT", g, "application/n-triples", strings.NewReader(orig+"\n")); resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT: %d %s", resp.StatusCode, body)
	}
	for _, tc := range []struct {
		name, method, ctype, body string
		status                    int
		kind, msg                 string
	}{
		{"syntax", "PUT", "application/n-triples", "<http://ex/b> <http://ex/p> \"2\" .\n<http://ex/c> <http://ex/p> oops .\n", 400, "syntax", "body:2:"},
		{"syntax (POST)", "POST", "text/turtle", "<http://ex/b> <http://ex/p> \"2\" .\n<http://ex/c> <http://ex/p> .\n", 400, "syntax", "body:2:"},
		{"too large", "PUT", "application/n-triples", strings.Repeat("<http://ex/b> <http://ex/p> \"2\" .\n", 100), 413, "invalid", "too large"},
		// The limit cuts the body inside a literal, an IRI, a prefixed name
		// or a comment: what the parser makes of the cut text is not the
		// error, the body's size is (it used to be 400 syntax
		// "unterminated string literal" for Turtle).
		{"too large, cut in a literal (turtle)", "PUT", "text/turtle", "<http://ex/b> <http://ex/p> \"" + strings.Repeat("x", 2000) + "\" .\n", 413, "invalid", "too large"},
		{"too large, cut in a long literal (turtle)", "POST", "text/turtle", "<http://ex/b> <http://ex/p> \"\"\"" + strings.Repeat("x", 2000) + "\"\"\" .\n", 413, "invalid", "too large"},
		{"too large, cut in an IRI (turtle)", "PUT", "text/turtle", "<http://ex/b> <http://ex/p> <http://ex/" + strings.Repeat("x", 2000) + "> .\n", 413, "invalid", "too large"},
		{"too large, cut in a prefixed name (turtle)", "PUT", "text/turtle", "@prefix ex: <http://ex/> .\nex:b ex:p ex:" + strings.Repeat("x", 2000) + " .\n", 413, "invalid", "too large"},
		{"too large, cut in a literal (n-triples)", "PUT", "application/n-triples", "<http://ex/b> <http://ex/p> \"" + strings.Repeat("x", 2000) + "\" .\n", 413, "invalid", "too large"},
		{"too large, cut in a literal (n-quads)", "PUT", "application/n-quads", "<http://ex/b> <http://ex/p> \"" + strings.Repeat("x", 2000) + "\" .\n", 413, "invalid", "too large"},
		{"no content type", "PUT", "", orig, 415, "usage", "Content-Type"},
		{"unknown content type", "PUT", "application/ld+json", "{}", 415, "usage", "ld+json"},
		// RDF/XML is written (GET), not read.
		{"rdf+xml body", "PUT", "application/rdf+xml", "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"/>", 415, "usage", "rdf+xml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := ts.do(tc.method, g, tc.ctype, strings.NewReader(tc.body))
			if resp.StatusCode != tc.status || resp.Header.Get("Cortex-Error-Kind") != tc.kind || !strings.Contains(body, tc.msg) {
				t.Errorf("%d %s %q, want %d %s with %q", resp.StatusCode, resp.Header.Get("Cortex-Error-Kind"), body, tc.status, tc.kind, tc.msg)
			}
			if _, got := ts.do("GET", g, "", nil, "Accept", "application/n-triples"); lines(got) != orig {
				t.Errorf("graph after the failed %s: %q", tc.method, got)
			}
		})
	}
	for _, p := range []string{"/ns/acme/data", "/ns/acme/data?graph=http%3A%2F%2Fex%2Fg&default", "/ns/acme/data?graph=relative"} {
		if resp, body := ts.do("GET", p, "", nil); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("GET %s: %d %s, want 400", p, resp.StatusCode, body)
		}
	}
}

// TestGraphStore_PostToStoreCreatesGraph: a POST to the graph store
// itself (no ?graph, no ?default) creates a new graph of the body, as the
// protocol wants (5.5: 201, Location); it used to be 400. Each POST gets
// a graph of its own; a bad body writes nothing; GET, PUT and DELETE
// still need a graph named.
func TestGraphStore_PostToStoreCreatesGraph(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	const nt = "<http://ex/a> <http://ex/p> \"1\" .\n"
	var locations []string
	for range 2 {
		resp, body := ts.do("POST", "/ns/acme/data", "application/n-triples", strings.NewReader(nt))
		loc, graph := resp.Header.Get("Location"), resp.Header.Get(server.GraphHeader)
		if resp.StatusCode != http.StatusCreated || !strings.HasPrefix(graph, "urn:uuid:") || loc != "/ns/acme/data?graph="+url.QueryEscape(graph) {
			t.Fatalf("POST to the store: %d Location %q %s %q: %s", resp.StatusCode, loc, server.GraphHeader, graph, body)
		}
		resp, body = ts.do("GET", loc, "", nil, "Accept", "application/n-quads")
		if resp.StatusCode != http.StatusOK || lines(body) != `<http://ex/a> <http://ex/p> "1" <`+graph+`> .` {
			t.Fatalf("GET %s: %d %q", loc, resp.StatusCode, body)
		}
		locations = append(locations, loc)
	}
	if locations[0] == locations[1] {
		t.Fatalf("two POSTs, one graph: %s", locations[0])
	}
	// A body with a syntax error creates nothing.
	resp, body := ts.do("POST", "/ns/acme/data", "application/n-triples", strings.NewReader(nt+"<http://ex/b> oops .\n"))
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Location") != "" {
		t.Fatalf("bad body: %d Location %q: %s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	var graphs []api.Graph
	ts.ok("acme", "graphs.list", nil, &graphs)
	if len(graphs) != 2 {
		t.Fatalf("graphs after two POSTs and a bad one: %+v", graphs)
	}
	for _, m := range []string{"GET", "PUT", "DELETE"} {
		if resp, body := ts.do(m, "/ns/acme/data", "application/n-triples", strings.NewReader(nt)); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s without a graph: %d %s, want 400", m, resp.StatusCode, body)
		}
	}
}

// TestGraphStore_TriplesOverLimitWriteNothing: a body is bounded in
// triples as well as bytes (WithMaxResults): a short Turtle collection
// that expands to more triples than the limit is refused with 413 before
// anything is written, by PUT and by POST; one at the limit is written.
func TestGraphStore_TriplesOverLimitWriteNothing(t *testing.T) {
	ts := serve(t, server.DefaultOptions().WithMaxResults(20))
	const g = "/ns/acme/data?graph=http%3A%2F%2Fex%2Fg"
	const orig = `<http://ex/a> <http://ex/p> "1" .`
	if resp, body := ts.do("PUT", g, "application/n-triples", strings.NewReader(orig+"\n")); resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT: %d %s", resp.StatusCode, body)
	}
	// ( 1 2 ... 10 ): 2 triples an item, plus the one that links it.
	list := func(n int) string {
		var b strings.Builder
		b.WriteString("<http://ex/s> <http://ex/list> (")
		for i := range n {
			fmt.Fprintf(&b, " %d", i)
		}
		b.WriteString(" ) .\n")
		return b.String()
	}
	for _, method := range []string{"PUT", "POST"} {
		resp, body := ts.do(method, g, "text/turtle", strings.NewReader(list(10))) // 21 triples
		if resp.StatusCode != http.StatusRequestEntityTooLarge || resp.Header.Get("Cortex-Error-Kind") != "invalid" ||
			!strings.Contains(body, "more than 20 triples") || !strings.Contains(body, "nothing was written") {
			t.Errorf("%s of 21 triples: %d %s %q, want 413 invalid", method, resp.StatusCode, resp.Header.Get("Cortex-Error-Kind"), body)
		}
		if _, got := ts.do("GET", g, "", nil, "Accept", "application/n-triples"); lines(got) != orig {
			t.Errorf("graph after the refused %s: %q", method, got)
		}
	}
	if resp, body := ts.do("PUT", g, "text/turtle", strings.NewReader(list(9)+"<http://ex/s> <http://ex/p> \"x\" .\n")); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("PUT of 20 triples: %d %s", resp.StatusCode, body)
	}
	if _, got := ts.do("GET", g, "", nil, "Accept", "application/n-triples"); strings.Count(got, "\n") != 20 {
		t.Errorf("graph after a PUT of 20 triples: %q", got)
	}
}

// TestGraphStore_GetRDFXML: a graph can be read as RDF/XML (Accept
// application/rdf+xml); one RDF/XML cannot carry (a predicate with no XML
// name at its end) is 406 with the formats to ask for instead.
func TestGraphStore_GetRDFXML(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	const g = "/ns/acme/data?graph=http%3A%2F%2Fex%2Fg"
	if resp, body := ts.do("PUT", g, "application/n-triples", strings.NewReader("<http://ex/a> <http://ex/p> \"1 & 2\"@en .\n")); resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT: %d %s", resp.StatusCode, body)
	}
	resp, body := ts.do("GET", g, "", nil, "Accept", "application/rdf+xml")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/rdf+xml" ||
		!strings.Contains(body, `<rdf:Description rdf:about="http://ex/a">`) || !strings.Contains(body, `<ns1:p xml:lang="en">1 &amp; 2</ns1:p>`) {
		t.Errorf("GET as RDF/XML: %d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if resp, body := ts.do("POST", g, "application/n-triples", strings.NewReader("<http://ex/a> <http://ex/p/> \"x\" .\n")); resp.StatusCode != http.StatusNoContent && resp.StatusCode != http.StatusOK {
		t.Fatalf("POST: %d %s", resp.StatusCode, body)
	}
	resp, body = ts.do("GET", g, "", nil, "Accept", "application/rdf+xml")
	if resp.StatusCode != http.StatusNotAcceptable || !strings.Contains(body, "cannot be written as application/rdf+xml (ask for text/turtle, application/n-triples, application/n-quads)") ||
		!strings.Contains(body, "<http://ex/p/>") {
		t.Errorf("GET as RDF/XML of a graph it cannot carry: %d %s", resp.StatusCode, body)
	}
}

// TestGraphStore_RelativeIRIs: relative IRIs in a body resolve against the
// IRI of the target graph (a new graph's, for a POST that creates one:
// <> names it), or the body's @base; the default graph has no IRI, so
// there a relative IRI is a syntax error at its line and column that
// writes nothing. They used to resolve against an IRI made up per
// request (urn:cortex:request:...), so that <rel> became <urn:rel>.
func TestGraphStore_RelativeIRIs(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	const body = "@prefix : <#> .\n<rel> :p <../up> , <> .\n"
	get := func(path string) string {
		t.Helper()
		resp, got := ts.do("GET", path, "", nil, "Accept", "application/n-triples")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, got)
		}
		return lines(got)
	}

	const g = "/ns/acme/data?graph=http%3A%2F%2Fex%2Fdir%2Fg"
	if resp, got := ts.do("PUT", g, "text/turtle", strings.NewReader(body)); resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT: %d %s", resp.StatusCode, got)
	}
	want := "<http://ex/dir/rel> <http://ex/dir/g#p> <http://ex/dir/g> .\n<http://ex/dir/rel> <http://ex/dir/g#p> <http://ex/up> ."
	if got := get(g); got != want {
		t.Errorf("named graph:\n%s\nwant\n%s", got, want)
	}

	resp, got := ts.do("POST", "/ns/acme/data", "text/turtle", strings.NewReader("<> <http://ex/p> <#part> .\n"))
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST to the store: %d %s", resp.StatusCode, got)
	}
	ng := resp.Header.Get(server.GraphHeader)
	want = "<" + ng + "> <http://ex/p> <" + ng + "#part> ."
	if got := get(resp.Header.Get("Location")); got != want {
		t.Errorf("new graph:\n%s\nwant\n%s", got, want)
	}

	const d = "/ns/acme/data?default"
	if resp, got := ts.do("POST", d, "application/n-triples", strings.NewReader("<http://ex/a> <http://ex/p> \"1\" .\n")); resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST ?default: %d %s", resp.StatusCode, got)
	}
	for _, method := range []string{"PUT", "POST"} {
		resp, got := ts.do(method, d, "text/turtle", strings.NewReader("<http://ex/b> <http://ex/p> \"2\" .\n"+body))
		if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Cortex-Error-Kind") != "syntax" ||
			!strings.Contains(got, "body:2:11: relative IRI <#> and no base IRI") || !strings.Contains(got, "nothing was written") {
			t.Errorf("%s ?default of a relative IRI: %d %s %q, want 400 syntax at body:2:11", method, resp.StatusCode, resp.Header.Get("Cortex-Error-Kind"), got)
		}
		if got := get(d); got != `<http://ex/a> <http://ex/p> "1" .` {
			t.Errorf("default graph after the refused %s: %q", method, got)
		}
	}
	if resp, got := ts.do("POST", d, "text/turtle", strings.NewReader("@base <http://ex/b/> .\n"+body)); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("POST ?default with @base: %d %s", resp.StatusCode, got)
	}
	want = `<http://ex/a> <http://ex/p> "1" .` + "\n<http://ex/b/rel> <http://ex/b/#p> <http://ex/b/> .\n<http://ex/b/rel> <http://ex/b/#p> <http://ex/up> ."
	if got := get(d); got != want {
		t.Errorf("default graph after a body with @base:\n%s\nwant\n%s", got, want)
	}
}

// TestGraphStore_EmptyBodyCreatesNoGraph: a graph exists while it holds a
// triple, so a PUT or POST of a body with none to a graph that does not
// exist creates nothing and is 204, not the 201 of a graph that GET then
// finds not there; a POST to the store itself gives no Location then. Nor
// does it create the namespace of its path.
func TestGraphStore_EmptyBodyCreatesNoGraph(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	if resp, body := ts.do("PUT", "/ns/acme/data?graph=http%3A%2F%2Fex%2Fg", "application/n-triples", strings.NewReader("<http://ex/a> <http://ex/p> \"1\" .\n")); resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT: %d %s", resp.StatusCode, body)
	}
	for _, tc := range []struct{ method, path, body string }{
		{"PUT", "/ns/acme/data?graph=http%3A%2F%2Fex%2Fempty", ""},
		{"POST", "/ns/acme/data?graph=http%3A%2F%2Fex%2Fempty", "@prefix ex: <http://ex/> .\n# nothing\n"},
		{"POST", "/ns/acme/data", ""},
	} {
		resp, body := ts.do(tc.method, tc.path, "text/turtle", strings.NewReader(tc.body))
		if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Location") != "" || resp.Header.Get(server.GraphHeader) != "" {
			t.Errorf("%s %s of no triples: %d Location %q %s %q: %s, want 204", tc.method, tc.path, resp.StatusCode,
				resp.Header.Get("Location"), server.GraphHeader, resp.Header.Get(server.GraphHeader), body)
		}
	}
	if resp, body := ts.do("GET", "/ns/acme/data?graph=http%3A%2F%2Fex%2Fempty", "", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET of the graph no body filled: %d %s, want 404", resp.StatusCode, body)
	}
	var graphs []api.Graph
	ts.ok("acme", "graphs.list", nil, &graphs)
	if len(graphs) != 1 || graphs[0].Graph == nil || *graphs[0].Graph != "http://ex/g" {
		t.Errorf("graphs after bodies of no triples: %+v, want http://ex/g alone", graphs)
	}
	// Nor does such a body create the namespace of its path: a namespace
	// that does not exist holds no graph, and a write of nothing leaves it so.
	for _, method := range []string{"PUT", "POST"} {
		resp, body := ts.do(method, "/ns/ghost/data?graph=http%3A%2F%2Fex%2Fg", "text/turtle", strings.NewReader("# nothing\n"))
		if resp.StatusCode != http.StatusNoContent {
			t.Errorf("%s of no triples into a namespace that does not exist: %d %s, want 204", method, resp.StatusCode, body)
		}
	}
	if resp, body := ts.do("GET", "/ns/ghost/sparql?query=ASK{}", "", nil); resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "no such namespace") {
		t.Errorf("after bodies of no triples into it, namespace ghost: %d %s, want 404 no such namespace", resp.StatusCode, body)
	}
}

// TestGraphStore_ContentTypeParameters: a Content-Type's parameters are
// read: charset=utf-8 (any case) or us-ascii is UTF-8; another charset
// is 415 rather than bytes read as UTF-8 that they are not, and a
// Content-Type that does not parse is 415 saying so (it used to say
// "send text/turtle" of a text/turtle with a bad parameter).
func TestGraphStore_ContentTypeParameters(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	const g = "/ns/acme/data?graph=http%3A%2F%2Fex%2Fg"
	const nt = "<http://ex/a> <http://ex/p> \"caf\u00e9\" .\n"
	for _, ct := range []string{"text/turtle; charset=utf-8", "Text/Turtle;charset=UTF-8", "application/n-triples; charset=us-ascii", "text/turtle; version=1.1"} {
		if resp, body := ts.do("PUT", g, ct, strings.NewReader(nt)); resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusNoContent {
			t.Errorf("PUT as %q: %d %s", ct, resp.StatusCode, body)
		}
	}
	for _, tc := range []struct{ ct, msg string }{
		{"text/turtle; charset=iso-8859-1", `charset "iso-8859-1": send the body in UTF-8`},
		{"application/n-triples;charset=windows-1252", `charset "windows-1252"`},
		{"text/turtle; foo", `Content-Type "text/turtle; foo" is malformed`},
		{"text/", `Content-Type "text/" is malformed`},
	} {
		for _, method := range []string{"PUT", "POST"} {
			resp, body := ts.do(method, g, tc.ct, strings.NewReader("<http://ex/b> <http://ex/p> \"2\" .\n"))
			if resp.StatusCode != http.StatusUnsupportedMediaType || !strings.Contains(body, tc.msg) {
				t.Errorf("%s as %q: %d %q, want 415 with %q", method, tc.ct, resp.StatusCode, body, tc.msg)
			}
		}
	}
	if _, got := ts.do("GET", g, "", nil, "Accept", "application/n-triples"); lines(got) != strings.TrimSpace(nt) {
		t.Errorf("graph after refused bodies: %q", got)
	}
}

// TestGraphStore_GetOfGraphDeletedWhileWaiting: a GET finds the graph
// and then waits for its turn among the read-heavy requests; a DELETE of
// the graph meanwhile makes it 404, not a 200 of an empty graph (the GET
// used to check that the graph exists before its turn, and then export
// what was left: nothing).
func TestGraphStore_GetOfGraphDeletedWhileWaiting(t *testing.T) {
	srv := server.New(cortextest.NewStore(t), server.DefaultOptions().WithMaxQueries(1).WithQueueWait(time.Hour))
	ts := serveServer(t, srv)
	const g = "/ns/acme/data?graph=http%3A%2F%2Fex%2Fg"
	if resp, body := ts.do("PUT", g, "application/n-triples", strings.NewReader("<http://ex/a> <http://ex/p> \"1\" .\n")); resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT: %d %s", resp.StatusCode, body)
	}
	release, err := server.HoldTurn(srv)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	req, _ := http.NewRequest("GET", ts.url+g, nil)
	req.Header.Set("Accept", "application/n-triples")
	got := goDo(req)
	select {
	case a := <-got:
		t.Fatalf("answered while the only turn was held: %d %s", a.code, a.body)
	case <-time.After(100 * time.Millisecond): // the GET waits for its turn
	}
	if resp, body := ts.do("DELETE", g, "", nil); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", resp.StatusCode, body)
	}
	release()
	if a := <-got; a.code != http.StatusNotFound {
		t.Fatalf("GET of the graph deleted while it waited: %d %q, want 404", a.code, a.body)
	}
}

// TestGraphStore_DefaultGraphContentCreated: a PUT or POST that puts
// triples into an empty default graph creates RDF graph content, and says
// so with 201 (Graph Store Protocol 5.3: "If new RDF graph content is
// created, the origin server MUST inform the user agent via the 201
// Created response"; the W3C test "PUT - default graph" wants 201 of a
// PUT ?default into an empty store); one that modifies content that was
// there is 204. The default graph was always 204, as if it held content.
func TestGraphStore_DefaultGraphContentCreated(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	const d = "/ns/acme/data?default"
	const nt = "application/n-triples"
	for _, tc := range []struct {
		method, body string
		status       int
	}{
		{"PUT", "<http://ex/a> <http://ex/p> \"1\" .\n", http.StatusCreated}, // a namespace that does not exist yet
		{"PUT", "<http://ex/a> <http://ex/p> \"2\" .\n", http.StatusNoContent},
		{"POST", "<http://ex/b> <http://ex/p> \"3\" .\n", http.StatusNoContent},
		{"DELETE", "", http.StatusNoContent},
		{"POST", "<http://ex/c> <http://ex/p> \"4\" .\n", http.StatusCreated}, // a namespace that exists, its default graph empty
		{"DELETE", "", http.StatusNoContent},
		{"PUT", "<http://ex/d> <http://ex/p> \"5\" .\n", http.StatusCreated},
		{"PUT", "", http.StatusNoContent}, // empties it
		{"POST", "", http.StatusNoContent},
	} {
		ctype := nt
		if tc.method == "DELETE" {
			ctype = ""
		}
		if resp, body := ts.do(tc.method, d, ctype, strings.NewReader(tc.body)); resp.StatusCode != tc.status {
			t.Errorf("%s ?default of %q: %d %s, want %d", tc.method, tc.body, resp.StatusCode, body, tc.status)
		}
	}
}

// multipartBody returns a multipart/form-data body of parts (each a file
// name, a Content-Type, or "" for none, and the content) and its
// Content-Type.
func multipartBody(t *testing.T, parts ...[3]string) (string, string) {
	t.Helper()
	var b strings.Builder
	mw := multipart.NewWriter(&b)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, p[0], p[0]))
		if p[1] != "" {
			h.Set("Content-Type", p[1])
		}
		w, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, p[2])
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String(), mw.FormDataContentType()
}

// TestGraphStore_PostMultipart: a POST of multipart/form-data (the files
// of a web form's upload widget) adds every part's triples to the graph,
// as an RDF merge: Graph Store Protocol 5.5, "When used with POST this
// operation MUST be understood as a request that the origin server
// perform an RDF merge of the graphs - that the documents submitted with
// the multipart form are a serialization of - into the RDF graph content
// identified by the request or encoded IRI. In such a case, if the
// Content-Type is not provided, implementations MAY attempt to determine
// it from the file's extension" (the W3C test "POST - multipart/form-data"
// wants 200 or so). It was 415. A part with a syntax error, or of a type
// the server does not read, writes nothing of any part.
func TestGraphStore_PostMultipart(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	const g = "/ns/acme/data?graph=http%3A%2F%2Fex%2Fg"
	const orig = `<http://ex/a> <http://ex/p> "1" .`
	if resp, body := ts.do("PUT", g, "application/n-triples", strings.NewReader(orig+"\n")); resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT: %d %s", resp.StatusCode, body)
	}
	body, ctype := multipartBody(t,
		[3]string{"lastName.ttl", "text/turtle; charset=utf-8", "@prefix foaf: <http://xmlns.com/foaf/0.1/> .\n<http://ex/a> foaf:familyName \"Doe\" ; foaf:knows _:b .\n_:b foaf:name \"x\" .\n"},
		[3]string{"firstName.nt", "", "<http://ex/a> <http://xmlns.com/foaf/0.1/givenName> \"Jane\" .\n<http://ex/a> <http://xmlns.com/foaf/0.1/knows> _:b .\n"},
		[3]string{"more.nq", "application/octet-stream", "<http://ex/rel> <http://ex/p> \"2\" <http://ex/other> .\n"},
	)
	if resp, msg := ts.do("POST", g, ctype, strings.NewReader(body)); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("POST multipart: %d %s", resp.StatusCode, msg)
	}
	_, got := ts.do("GET", g, "", nil, "Accept", "application/n-triples")
	for _, want := range []string{orig, `<http://ex/a> <http://xmlns.com/foaf/0.1/familyName> "Doe" .`,
		`<http://ex/a> <http://xmlns.com/foaf/0.1/givenName> "Jane" .`, `<http://ex/rel> <http://ex/p> "2" .`} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("graph after the POST lacks %s:\n%s", want, got)
		}
	}
	// An RDF merge: _:b of one document is not _:b of another.
	if knows := strings.Count(got, "<http://xmlns.com/foaf/0.1/knows> _:"); knows != 2 {
		t.Errorf("graph after the POST: %d foaf:knows of a blank node, want 2 (the documents' _:b are two nodes):\n%s", knows, got)
	}
	_, after := ts.do("GET", g, "", nil, "Accept", "application/n-triples")

	for _, tc := range []struct {
		name      string
		parts     [][3]string
		status    int
		kind, msg string
	}{
		{"syntax error in part 2", [][3]string{{"a.ttl", "text/turtle", "<http://ex/z> <http://ex/p> \"9\" .\n"}, {"b.ttl", "text/turtle", "<http://ex/z>\n<http://ex/p> .\n"}},
			400, "syntax", "body part 2 (b.ttl):2:"},
		{"unknown type", [][3]string{{"a.ttl", "text/turtle", "<http://ex/z> <http://ex/p> \"9\" .\n"}, {"b.json", "application/ld+json", "{}"}},
			415, "usage", `part 2 (b.json): Content-Type "application/ld+json"`},
		{"no type, unknown extension", [][3]string{{"a.ttl", "text/turtle", "<http://ex/z> <http://ex/p> \"9\" .\n"}, {"b.txt", "", "x"}},
			415, "usage", "part 2 (b.txt)"},
		{"other charset", [][3]string{{"a.ttl", "text/turtle; charset=latin1", "<http://ex/z> <http://ex/p> \"9\" .\n"}},
			415, "usage", `charset "latin1"`},
		{"file name quoted", [][3]string{{`b"): forged.json`, "application/ld+json", "{}"}},
			415, "usage", `part 1 ("b\"): forged.json"): Content-Type`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, ctype := multipartBody(t, tc.parts...)
			resp, msg := ts.do("POST", g, ctype, strings.NewReader(body))
			if resp.StatusCode != tc.status || resp.Header.Get("Cortex-Error-Kind") != tc.kind || !strings.Contains(msg, tc.msg) {
				t.Errorf("%d %s %q, want %d %s with %q", resp.StatusCode, resp.Header.Get("Cortex-Error-Kind"), msg, tc.status, tc.kind, tc.msg)
			}
			if _, got := ts.do("GET", g, "", nil, "Accept", "application/n-triples"); got != after {
				t.Errorf("graph after the refused POST:\n%s\nwant\n%s", got, after)
			}
		})
	}
	// A body that is not multipart as it says: 400, nothing written.
	if resp, msg := ts.do("POST", g, "multipart/form-data; boundary=xyz", strings.NewReader("<http://ex/z> <http://ex/p> \"9\" .\n")); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("POST of a body without its boundary: %d %s, want 400", resp.StatusCode, msg)
	}
	if resp, msg := ts.do("POST", g, "multipart/form-data", strings.NewReader("")); resp.StatusCode != http.StatusBadRequest || !strings.Contains(msg, "boundary") {
		t.Errorf("POST multipart without a boundary: %d %s, want 400 naming the boundary", resp.StatusCode, msg)
	}
	// PUT reads one document.
	body, ctype = multipartBody(t, [3]string{"a.ttl", "text/turtle", "<http://ex/z> <http://ex/p> \"9\" .\n"})
	if resp, msg := ts.do("PUT", g, ctype, strings.NewReader(body)); resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("PUT multipart: %d %s, want 415", resp.StatusCode, msg)
	}
	if _, got := ts.do("GET", g, "", nil, "Accept", "application/n-triples"); got != after {
		t.Errorf("graph after the refused requests:\n%s\nwant\n%s", got, after)
	}
	// A POST to the graph store itself: a new graph of every part.
	body, ctype = multipartBody(t, [3]string{"a.ttl", "text/turtle", "<> <http://ex/p> \"9\" .\n"}, [3]string{"b.nt", "application/n-triples", "<http://ex/y> <http://ex/p> \"8\" .\n"})
	resp, msg := ts.do("POST", "/ns/acme/data", ctype, strings.NewReader(body))
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("Location") == "" {
		t.Fatalf("POST multipart to the store: %d %s", resp.StatusCode, msg)
	}
	newGraph := resp.Header.Get(server.GraphHeader)
	if _, got := ts.do("GET", resp.Header.Get("Location"), "", nil, "Accept", "application/n-triples"); lines(got) != lines("<"+newGraph+"> <http://ex/p> \"9\" .\n<http://ex/y> <http://ex/p> \"8\" .") {
		t.Errorf("the new graph: %q", got)
	}
}

// TestGraphStore_PostMultipartTooLarge: a multipart body over the limit
// is 413, whatever the cut does to the part or its framing, and writes
// nothing.
func TestGraphStore_PostMultipartTooLarge(t *testing.T) {
	ts := serve(t, server.DefaultOptions().WithMaxBodyBytes(1024))
	const g = "/ns/acme/data?graph=http%3A%2F%2Fex%2Fg"
	for _, parts := range [][][3]string{
		{{"a.nt", "application/n-triples", "<http://ex/b> <http://ex/p> \"" + strings.Repeat("x", 2000) + "\" .\n"}},
		{{"a.nt", "application/n-triples", "<http://ex/b> <http://ex/p> \"1\" .\n"}, {"b.nt", "application/n-triples", strings.Repeat("<http://ex/b> <http://ex/p> \"2\" .\n", 100)}},
	} {
		body, ctype := multipartBody(t, parts...)
		if resp, msg := ts.do("POST", g, ctype, strings.NewReader(body)); resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("POST of %d bytes of multipart: %d %s, want 413", len(body), resp.StatusCode, msg)
		}
	}
	if resp, msg := ts.do("GET", g, "", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET after the refused POSTs: %d %s, want 404", resp.StatusCode, msg)
	}
}

// TestGraphStore_GetOverLimitNamesExport: a graph that holds more triples
// than the limit of results per response (which POSTs of smaller bodies
// fill) cannot be read by GET: the error says to read it from the export
// route, which is not bounded, rather than to "narrow the request (LIMIT,
// a filter)", which a Graph Store GET cannot; the export it names serves
// it.
func TestGraphStore_GetOverLimitNamesExport(t *testing.T) {
	ts := serve(t, server.DefaultOptions().WithMaxResults(2))
	for _, tc := range []struct{ data, export string }{
		{"/ns/acme/data?graph=http%3A%2F%2Fex%2Fg", "/ns/acme/export?graph=http%3A%2F%2Fex%2Fg"},
		{"/ns/acme/data?default", "/ns/acme/export?graph=default"},
	} {
		for i, body := range []string{"<http://ex/a> <http://ex/p> 1, 2 .", "<http://ex/a> <http://ex/p> 3 ."} {
			if resp, msg := ts.do("POST", tc.data, "text/turtle", strings.NewReader(body)); resp.StatusCode/100 != 2 {
				t.Fatalf("POST %d to %s: %d %s", i, tc.data, resp.StatusCode, msg)
			}
		}
		resp, body := ts.do("GET", tc.data, "", nil)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "more than 2 triples") || !strings.Contains(body, tc.export) || strings.Contains(body, "LIMIT") {
			t.Errorf("GET %s: %d %q, want 400 naming %s", tc.data, resp.StatusCode, body, tc.export)
		}
		if resp, body := ts.do("GET", tc.export, "", nil, "Accept", "application/n-triples"); resp.StatusCode != http.StatusOK || strings.Count(body, "\n") != 3 {
			t.Errorf("GET %s: %d %q, want the 3 triples", tc.export, resp.StatusCode, body)
		}
	}
}
