package server_test

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/server"
)

// seed puts two graphs into namespace acme over the graph store.
func seed(t *testing.T, ts *testServer) {
	t.Helper()
	for g, body := range map[string]string{
		"http://ex/g1": "<http://ex/a> <http://ex/p> \"1\" .\n<http://ex/b> <http://ex/p> \"2\" .\n",
		"http://ex/g2": "<http://ex/c> <http://ex/p> \"3\" .\n",
	} {
		resp, msg := ts.do("PUT", "/ns/acme/data?graph="+url.QueryEscape(g), "application/n-triples", strings.NewReader(body))
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("PUT %s: %d %s", g, resp.StatusCode, msg)
		}
	}
}

// bindings returns the values of variable v in a SPARQL JSON result.
func bindings(t *testing.T, body, v string) []string {
	t.Helper()
	var r struct {
		Results struct {
			Bindings []map[string]struct{ Value string } `json:"bindings"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	var out []string
	for _, b := range r.Results.Bindings {
		out = append(out, b[v].Value)
	}
	return out
}

func TestSPARQL_QueryForms(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	seed(t, ts)
	const q = `SELECT ?s WHERE { ?s <http://ex/p> ?o } ORDER BY ?s`
	want := "http://ex/a,http://ex/b,http://ex/c"

	resp, body := ts.do("GET", "/ns/acme/sparql?query="+url.QueryEscape(q), "", nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/sparql-results+json" || strings.Join(bindings(t, body, "s"), ",") != want {
		t.Fatalf("GET: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	resp, body = ts.do("POST", "/ns/acme/sparql", "application/x-www-form-urlencoded", strings.NewReader(url.Values{"query": {q}}.Encode()))
	if resp.StatusCode != 200 || strings.Join(bindings(t, body, "s"), ",") != want {
		t.Fatalf("POST form: %d %s", resp.StatusCode, body)
	}
	resp, body = ts.do("POST", "/ns/acme/sparql", "application/sparql-query", strings.NewReader(q))
	if resp.StatusCode != 200 || strings.Join(bindings(t, body, "s"), ",") != want {
		t.Fatalf("POST query: %d %s", resp.StatusCode, body)
	}
	// The protocol's dataset overrides the query's.
	v := url.Values{"query": {`SELECT ?s FROM <http://ex/g2> WHERE { ?s ?p ?o } ORDER BY ?s`}, "default-graph-uri": {"http://ex/g1"}}
	resp, body = ts.do("GET", "/ns/acme/sparql?"+v.Encode(), "", nil)
	if resp.StatusCode != 200 || strings.Join(bindings(t, body, "s"), ",") != "http://ex/a,http://ex/b" {
		t.Fatalf("default-graph-uri: %d %s", resp.StatusCode, body)
	}
	v = url.Values{"query": {`SELECT ?s WHERE { GRAPH ?g { ?s ?p ?o } }`}, "named-graph-uri": {"http://ex/g2"}}
	resp, body = ts.do("GET", "/ns/acme/sparql?"+v.Encode(), "", nil)
	if resp.StatusCode != 200 || strings.Join(bindings(t, body, "s"), ",") != "http://ex/c" {
		t.Fatalf("named-graph-uri: %d %s", resp.StatusCode, body)
	}
	resp, body = ts.do("GET", "/ns/acme/sparql?query="+url.QueryEscape(`ASK { ?s ?p "3" }`), "", nil, "Accept", "text/csv")
	if resp.StatusCode != 200 || strings.TrimSpace(body) != "true" {
		t.Fatalf("ASK as CSV: %d %q", resp.StatusCode, body)
	}
}

func TestSPARQL_ContentNegotiation(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	seed(t, ts)
	sel := "/ns/acme/sparql?query=" + url.QueryEscape(`SELECT ?s WHERE { ?s ?p "3" }`)
	con := "/ns/acme/sparql?query=" + url.QueryEscape(`CONSTRUCT { ?s <http://ex/q> ?o } WHERE { ?s ?p "3" . ?s ?p ?o }`)
	for _, tc := range []struct {
		path, accept, want, body string
	}{
		{sel, "", "application/sparql-results+json", `"http://ex/c"`},
		{sel, "application/sparql-results+xml", "application/sparql-results+xml", "<uri>http://ex/c</uri>"},
		{sel, "text/csv;q=0.9, text/tab-separated-values", "text/tab-separated-values", "<http://ex/c>"},
		{sel, "application/sparql-results+json;q=0.1, application/sparql-results+xml;q=0.5, */*;q=0.2", "application/sparql-results+xml", "<uri>"},
		{sel, "text/*", "text/csv", "http://ex/c"},
		{sel, "application/json, text/csv;q=0.5", "text/csv", "http://ex/c"},
		{con, "", "application/n-triples", `<http://ex/c> <http://ex/q> "3" .`},
		{con, "text/turtle", "text/turtle", `<http://ex/q> "3"`},
		{con, "application/n-quads;q=1, text/turtle;q=0.5", "application/n-quads", `<http://ex/c> <http://ex/q> "3" .`},
		{con, "application/rdf+xml", "application/rdf+xml", "<rdf:Description rdf:about=\"http://ex/c\">\n  <ns1:q>3</ns1:q>\n</rdf:Description>"},
		// what rdflib's SPARQLStore sends for every query form
		{con, "application/sparql-results+xml, application/rdf+xml", "application/rdf+xml", `xmlns:ns1="http://ex/"`},
	} {
		resp, body := ts.do("GET", tc.path, "", nil, "Accept", tc.accept)
		if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); resp.StatusCode != 200 || mt != tc.want || !strings.Contains(body, tc.body) {
			t.Errorf("Accept %q: %d %s, want %s with %q: %s", tc.accept, resp.StatusCode, resp.Header.Get("Content-Type"), tc.want, tc.body, body)
		}
	}
	// A CONSTRUCT result that RDF/XML cannot carry (a predicate with no XML
	// name at its end) is 406, with the formats to ask for instead.
	bad := "/ns/acme/sparql?query=" + url.QueryEscape(`CONSTRUCT { ?s <http://ex/q/> ?o } WHERE { ?s ?p "3" . ?s ?p ?o }`)
	resp, body := ts.do("GET", bad, "", nil, "Accept", "application/rdf+xml")
	if resp.StatusCode != http.StatusNotAcceptable || !strings.Contains(body, "cannot be written as application/rdf+xml (ask for application/n-triples, text/turtle, application/n-quads)") {
		t.Errorf("unsplittable predicate as RDF/XML: %d %s", resp.StatusCode, body)
	}
	if resp, body := ts.do("GET", bad, "", nil, "Accept", "application/rdf+xml;q=0.5, */*;q=0.1"); resp.StatusCode != http.StatusNotAcceptable {
		t.Errorf("unsplittable predicate, RDF/XML preferred: %d %s", resp.StatusCode, body)
	}
	if resp, body := ts.do("GET", bad, "", nil); resp.StatusCode != 200 || !strings.Contains(body, "<http://ex/q/>") {
		t.Errorf("unsplittable predicate as N-Triples: %d %s", resp.StatusCode, body)
	}
	resp, body = ts.do("GET", sel, "", nil, "Accept", "image/png, application/sparql-results+json;q=0")
	if resp.StatusCode != http.StatusNotAcceptable || !strings.Contains(body, "application/sparql-results+json") {
		t.Errorf("unacceptable Accept: %d %s", resp.StatusCode, body)
	}
}

func TestSPARQL_Errors(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	seed(t, ts)
	for _, tc := range []struct {
		name, method, path, ctype, body string
		status                          int
		kind, msg                       string
	}{
		{"syntax", "GET", "/ns/acme/sparql?query=" + url.QueryEscape("SELECT ?s\nWHERE { ?s ?p }"), "", "", 400, "syntax", "line 2, column 15"},
		{"no query", "GET", "/ns/acme/sparql", "", "", 400, "usage", "no query"},
		// A relative IRI with no absolute base to resolve it against is the
		// query's error, not an internal one met while writing the result.
		{"relative iri", "GET", "/ns/acme/sparql?query=" + url.QueryEscape("CONSTRUCT {<x> <y> <z>} WHERE {}"), "", "", 400, "syntax", "line 1, column 12: IRI <x> is a relative IRI and there is no base IRI"},
		{"relative iri posted", "POST", "/ns/acme/sparql", "application/sparql-query", "CONSTRUCT {<http://ex/s> <y> <z>} WHERE {}", 400, "syntax", "line 1, column 26: IRI <y> is a relative IRI"},
		{"relative BASE", "GET", "/ns/acme/sparql?query=" + url.QueryEscape("BASE <rel/> CONSTRUCT {<x> <y> <z>} WHERE {}"), "", "", 400, "syntax", "line 1, column 6: BASE <rel/> is a relative IRI"},
		{"relative base parameter", "GET", "/ns/acme/sparql?base=rel&query=" + url.QueryEscape("CONSTRUCT {<x> <y> <z>} WHERE {}"), "", "", 400, "syntax", "the base IRI <rel> to resolve it against is not absolute"},
		{"relative iri in select", "GET", "/ns/acme/sparql?query=" + url.QueryEscape("SELECT * WHERE { BIND(<x> AS ?x) }"), "", "", 400, "syntax", "line 1, column 23: IRI <x>"},
		{"update", "POST", "/ns/acme/sparql", "application/sparql-update", "DROP ALL", 415, "usage", "Update is not supported"},
		{"other body", "POST", "/ns/acme/sparql", "text/plain", "SELECT * {}", 415, "usage", "text/plain"},
		{"no namespace", "GET", "/ns/ghost/sparql?query=ASK{}", "", "", 404, "not_found", "no such namespace"},
		{"bad graph", "GET", "/ns/acme/sparql?query=ASK{}&default-graph-uri=rel", "", "", 400, "invalid", "absolute"},
		{"bad timeout", "GET", "/ns/acme/sparql?query=ASK{}&timeout=soon", "", "", 400, "invalid", "timeout"},
		{"zero timeout", "GET", "/ns/acme/sparql?query=ASK{}&timeout=0s", "", "", 400, "invalid", "want a duration of at least 1ns"},
		// Positive, but less than a nanosecond: not "want a positive duration".
		{"tiny timeout", "GET", "/ns/acme/sparql?query=ASK{}&timeout=1e-300", "", "", 400, "invalid", "want a duration of at least 1ns"},
		{"timed out", "GET", "/ns/acme/sparql?timeout=1ns&query=" + url.QueryEscape("SELECT * { ?s ?p ?o }"), "", "", 503, "timeout", "timed out after 1ns"},
		{"namespace case", "GET", "/ns/Acme/sparql?query=ASK{}", "", "", 400, "invalid", "namespace"},
		{"namespace escaped slash", "GET", "/ns/a%2Fb/sparql?query=ASK{}", "", "", 400, "invalid", "a%2Fb"},
		{"namespace dots", "GET", "/ns/%2E%2E/sparql?query=ASK{}", "", "", 400, "invalid", "namespace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := ts.do(tc.method, tc.path, tc.ctype, strings.NewReader(tc.body))
			if resp.StatusCode != tc.status || resp.Header.Get("Cortex-Error-Kind") != tc.kind || !strings.Contains(body, tc.msg) {
				t.Errorf("%d %s %q, want %d %s with %q", resp.StatusCode, resp.Header.Get("Cortex-Error-Kind"), body, tc.status, tc.kind, tc.msg)
			}
		})
	}
	// A relative IRI is resolved against an absolute base parameter.
	resp, body := ts.do("GET", "/ns/acme/sparql?base="+url.QueryEscape("http://ex/d/")+"&query="+url.QueryEscape("CONSTRUCT {<x> <y> <z>} WHERE {}"), "", nil)
	if resp.StatusCode != 200 || body != "<http://ex/d/x> <http://ex/d/y> <http://ex/d/z> .\n" {
		t.Errorf("absolute base parameter: %d %q", resp.StatusCode, body)
	}
	// A query that starts with a UTF-8 byte-order mark runs.
	for _, ctype := range []string{"application/sparql-query", "application/x-www-form-urlencoded"} {
		q := "\uFEFFSELECT ?s WHERE { ?s <http://ex/p> \"3\" }"
		if ctype != "application/sparql-query" {
			q = url.Values{"query": {q}}.Encode()
		}
		resp, body = ts.do("POST", "/ns/acme/sparql", ctype, strings.NewReader(q))
		if resp.StatusCode != 200 || strings.Join(bindings(t, body, "s"), ",") != "http://ex/c" {
			t.Errorf("POST %s with a byte-order mark: %d %s", ctype, resp.StatusCode, body)
		}
	}
	// The syntax error shows the line with a caret under the column.
	_, body = ts.do("GET", "/ns/acme/sparql?query="+url.QueryEscape("SELECT ?s\nWHERE { ?s ?p }"), "", nil)
	if !strings.Contains(body, "  WHERE { ?s ?p }\n                ^\n") {
		t.Errorf("no caret line in %q", body)
	}
	// A syntax error in a query that is one huge line echoes a short window
	// of it around the column, at the exact line and column.
	huge := "SELECT * WHERE {" + strings.Repeat(" ?s <http://ex/p> ?o .", 50000) + " ) }"
	resp, body = ts.do("POST", "/ns/acme/sparql", "application/sparql-query", strings.NewReader(huge))
	want := fmt.Sprintf("line 1, column %d: expected variable or RDF term, found ')'", len(huge)-2)
	if resp.StatusCode != 400 || !strings.Contains(body, want) || len(body) > 1000 ||
		!strings.Contains(body, "  ..."+huge[len(huge)-80:]+"\n  "+strings.Repeat(" ", 80)+"^\n") {
		t.Errorf("huge line: %d, %d bytes, want 400 with %q and a short caret line: %.500s", resp.StatusCode, len(body), want, body)
	}
	// An empty segment or a path with .. never reaches a namespace: it is
	// a name that does not follow the rule (400).
	for _, p := range []string{"/ns//sparql?query=ASK{}", "/ns/../sparql?query=ASK{}"} {
		if resp, body := ts.do("GET", p, "", nil); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("GET %s: %d %s, want 400", p, resp.StatusCode, body)
		}
	}
}

// TestSPARQL_TextTypesSayUTF8: every text/ body (CSV, TSV, Turtle) says
// charset=utf-8, which it is: without it text/csv means US-ASCII (RFC
// 4180), and clients such as Python's requests read any text/ type as
// ISO-8859-1, turning "café" into "cafÃ©". The other types are UTF-8 by
// definition and keep no parameter.
func TestSPARQL_TextTypesSayUTF8(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	const g = "/ns/acme/data?graph=http%3A%2F%2Fex%2Fg"
	if resp, body := ts.do("PUT", g, "application/n-triples", strings.NewReader("<http://ex/a> <http://ex/p> \"café\" .\n")); resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT: %d %s", resp.StatusCode, body)
	}
	sel := "/ns/acme/sparql?query=" + url.QueryEscape(`SELECT ?o WHERE { ?s ?p ?o }`)
	con := "/ns/acme/sparql?query=" + url.QueryEscape(`CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }`)
	for _, tc := range []struct{ path, accept, want string }{
		{sel, "text/csv", "text/csv; charset=utf-8"},
		{sel, "text/tab-separated-values", "text/tab-separated-values; charset=utf-8"},
		{con, "text/turtle", "text/turtle; charset=utf-8"},
		{g, "text/turtle", "text/turtle; charset=utf-8"},
		{"/ns/acme/export", "text/turtle", "text/turtle; charset=utf-8"},
		{sel, "application/sparql-results+json", "application/sparql-results+json"},
		{con, "application/n-triples", "application/n-triples"},
		{g, "application/n-quads", "application/n-quads"},
	} {
		for _, method := range []string{"GET", "HEAD"} {
			resp, body := ts.do(method, tc.path, "", nil, "Accept", tc.accept)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != tc.want || method == "GET" && !strings.Contains(body, "café") {
				t.Errorf("%s %s as %s: %d %q %q, want %q", method, tc.path, tc.accept, resp.StatusCode, resp.Header.Get("Content-Type"), body, tc.want)
			}
		}
	}
}

// TestSPARQL_BodyCharset: a query is UTF-8 (application/sparql-query has
// no other encoding): a body that says charset=utf-8 runs, one in another
// charset is 415 rather than its bytes read as UTF-8 (the Latin-1 bytes of
// "cafÃ©" are the UTF-8 of "café": it used to run, and answer for "café").
func TestSPARQL_BodyCharset(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	if resp, body := ts.do("PUT", "/ns/acme/data?graph=http%3A%2F%2Fex%2Fg", "application/n-triples", strings.NewReader("<http://ex/a> <http://ex/p> \"café\" .\n")); resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT: %d %s", resp.StatusCode, body)
	}
	const q = `SELECT ?s WHERE { ?s ?p "café" }`
	form := url.Values{"query": {q}}.Encode()
	for _, tc := range []struct{ ctype, body string }{
		{"application/sparql-query; charset=utf-8", q},
		{"application/sparql-query;charset=UTF-8", q},
		{"application/x-www-form-urlencoded; charset=UTF-8", form},
	} {
		resp, body := ts.do("POST", "/ns/acme/sparql", tc.ctype, strings.NewReader(tc.body))
		if resp.StatusCode != 200 || strings.Join(bindings(t, body, "s"), ",") != "http://ex/a" {
			t.Errorf("POST as %q: %d %s", tc.ctype, resp.StatusCode, body)
		}
	}
	for _, tc := range []struct{ ctype, body, msg string }{
		{"application/sparql-query; charset=iso-8859-1", q, `charset "iso-8859-1": send the body in UTF-8`},
		{"application/x-www-form-urlencoded; charset=windows-1252", form, `charset "windows-1252"`},
		{"application/sparql-query; charset", q, `Content-Type "application/sparql-query; charset" is malformed`},
	} {
		resp, body := ts.do("POST", "/ns/acme/sparql", tc.ctype, strings.NewReader(tc.body))
		if resp.StatusCode != http.StatusUnsupportedMediaType || resp.Header.Get("Cortex-Error-Kind") != "usage" || !strings.Contains(body, tc.msg) {
			t.Errorf("POST as %q: %d %s %q, want 415 usage with %q", tc.ctype, resp.StatusCode, resp.Header.Get("Cortex-Error-Kind"), body, tc.msg)
		}
	}
}

// TestSPARQL_UnreadableAcceptNamed: a range of Accept that cannot be read
// (a q over 1, no subtype) matches nothing; the 406 names it, which used
// to say only that application/sparql-results+json, which it lists as
// available, is not.
func TestSPARQL_UnreadableAcceptNamed(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	seed(t, ts)
	const ask = "/ns/acme/sparql?query=ASK%7B%7D"
	for _, tc := range []struct{ accept, msg string }{
		{"application/sparql-results+json;q=2", `unreadable, so ignored: "application/sparql-results+json;q=2" (q is a number from 0 to 1)`},
		{"json, text/turtle", `unreadable, so ignored: "json")`},
	} {
		resp, body := ts.do("GET", ask, "", nil, "Accept", tc.accept)
		if resp.StatusCode != http.StatusNotAcceptable || !strings.Contains(body, tc.msg) {
			t.Errorf("Accept %q: %d %q, want 406 with %q", tc.accept, resp.StatusCode, body, tc.msg)
		}
	}
	// A readable range beside an unreadable one still decides.
	if resp, body := ts.do("GET", ask, "", nil, "Accept", "text/csv;q=x, application/sparql-results+xml"); resp.StatusCode != 200 || !strings.Contains(body, "<boolean>true</boolean>") {
		t.Errorf("an unreadable range beside a readable one: %d %s", resp.StatusCode, body)
	}
}

// TestSPARQL_XMLForbiddenCharacter: a SELECT result holding a literal with
// a character XML 1.0 forbids (U+0001) cannot be written as SPARQL XML
// results: that is 406 with the formats to ask for instead, as for a
// CONSTRUCT result that RDF/XML cannot carry, and as cortexctl query
// --format xml exits 2 (usage). It used to be 500, kind internal, as if
// the server were broken; rdflib's SPARQLStore asks for XML by default.
func TestSPARQL_XMLForbiddenCharacter(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	if resp, body := ts.do("PUT", "/ns/acme/data?graph=http%3A%2F%2Fex%2Fg", "application/n-triples", strings.NewReader("<http://ex/a> <http://ex/p> \"ctl\\u0001x\" .\n")); resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT: %d %s", resp.StatusCode, body)
	}
	sel := "/ns/acme/sparql?query=" + url.QueryEscape(`SELECT ?o WHERE { ?s ?p ?o }`)
	for _, tc := range []struct {
		accept    string
		status    int
		kind, msg string
	}{
		{"application/sparql-results+xml", http.StatusNotAcceptable, "usage",
			"cannot be written as application/sparql-results+xml (ask for application/sparql-results+json, text/csv, text/tab-separated-values): row 0, ?o: invalid term: character U+0001 is not allowed in xml 1.0"},
		{"application/sparql-results+xml, application/sparql-results+json;q=0.5", http.StatusNotAcceptable, "usage", "ask for application/sparql-results+json"},
		{"application/sparql-results+json", http.StatusOK, "", `"ctl\u0001x"`},
		{"text/tab-separated-values", http.StatusOK, "", `"ctl\u0001x"`},
	} {
		resp, body := ts.do("GET", sel, "", nil, "Accept", tc.accept)
		if resp.StatusCode != tc.status || resp.Header.Get("Cortex-Error-Kind") != tc.kind || !strings.Contains(body, tc.msg) {
			t.Errorf("Accept %q: %d %s %q, want %d %s with %q", tc.accept, resp.StatusCode, resp.Header.Get("Cortex-Error-Kind"), body, tc.status, tc.kind, tc.msg)
		}
	}
}

// TestNegotiate_AcceptOnSeveralLines: an Accept header sent on several
// lines is one list, their values joined by commas (RFC 9110, 5.3), for
// every route that negotiates. Only the first line used to count: a
// client (or a proxy) that sent "Accept: application/rdf+xml;q=0.1" and
// "Accept: text/turtle" got RDF/XML, the format it liked least.
func TestNegotiate_AcceptOnSeveralLines(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	seed(t, ts)
	con := "/ns/acme/sparql?query=" + url.QueryEscape(`CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }`)
	sel := "/ns/acme/sparql?query=" + url.QueryEscape(`SELECT ?s WHERE { ?s ?p ?o }`)
	for _, tc := range []struct {
		path   string
		accept []string
		want   string
	}{
		{con, []string{"application/rdf+xml;q=0.1", "text/turtle"}, "text/turtle"},
		{sel, []string{"application/sparql-results+xml;q=0.2", "text/csv;q=0.5, application/json"}, "text/csv"},
		{"/ns/acme/data?graph=http%3A%2F%2Fex%2Fg1", []string{"text/turtle;q=0.1", "application/n-triples"}, "application/n-triples"},
		{"/ns/acme/export", []string{"application/n-quads;q=0.1", "text/turtle;q=0.9"}, "text/turtle"},
		// A line that is empty adds nothing.
		{"/ns/acme/export", []string{"", "text/turtle"}, "text/turtle"},
	} {
		req, err := http.NewRequest("GET", ts.url+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header["Accept"] = tc.accept
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); resp.StatusCode != 200 || mt != tc.want {
			t.Errorf("GET %s, Accept %q: %d %s, want %s", tc.path, tc.accept, resp.StatusCode, resp.Header.Get("Content-Type"), tc.want)
		}
	}
}

// TestNegotiate_VaryOnErrors: every answer of a route that negotiates its
// format by Accept says Vary: Accept, a 406 and other errors too (a cache
// that kept a 406 for any Accept would refuse clients it should serve);
// only the 200s said so.
func TestNegotiate_VaryOnErrors(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	seed(t, ts)
	for _, tc := range []struct {
		path, accept string
		status       int
	}{
		{"/ns/acme/sparql?query=" + url.QueryEscape("ASK {}"), "image/png", http.StatusNotAcceptable},
		{"/ns/acme/sparql?query=" + url.QueryEscape("ASK {"), "", http.StatusBadRequest},
		{"/ns/acme/data?graph=http%3A%2F%2Fex%2Fg1", "image/png", http.StatusNotAcceptable},
		{"/ns/acme/data?graph=http%3A%2F%2Fex%2Fnone", "", http.StatusNotFound},
		{"/ns/acme/export", "image/png", http.StatusNotAcceptable},
		{"/ns/acme/sparql?query=" + url.QueryEscape("ASK {}"), "", http.StatusOK},
	} {
		resp, body := ts.do("GET", tc.path, "", nil, "Accept", tc.accept)
		if resp.StatusCode != tc.status || resp.Header.Get("Vary") != "Accept" {
			t.Errorf("GET %s, Accept %q: %d, Vary %q, want %d with Vary: Accept (%.100s)", tc.path, tc.accept, resp.StatusCode, resp.Header.Get("Vary"), tc.status, body)
		}
	}
}

// TestSPARQL_BaseNotAnIRI: a base parameter that is no IRI (a space, a
// '<', a line break, bytes that are not UTF-8) is 400, kind invalid,
// naming it, as cortexctl query --base and the import's base are. It
// used to be taken as it was: the query's relative IRIs resolved against
// it into IRIs no RDF syntax can hold, a SELECT answered them
// ("http://ex/a b/x"), a CONSTRUCT failed to write them (500, kind
// internal).
func TestSPARQL_BaseNotAnIRI(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	seed(t, ts)
	for _, base := range []string{"http://ex/a b/", "http://ex/<x>/", "http://ex/a\nb/", "http://ex/\xe9/"} {
		for _, q := range []string{"CONSTRUCT {<x> <y> <z>} WHERE {}", "SELECT (<x> AS ?x) WHERE {}"} {
			resp, body := ts.do("GET", "/ns/acme/sparql?"+url.Values{"base": {base}, "query": {q}}.Encode(), "", nil)
			if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Cortex-Error-Kind") != "invalid" || !strings.Contains(body, "base: IRI") {
				t.Errorf("base %q, %s: %d %s %q, want 400 invalid naming the base", base, q, resp.StatusCode, resp.Header.Get("Cortex-Error-Kind"), body)
			}
		}
	}
}

// TestSPARQL_TimeoutPastRange: a timeout asked for beyond the server's
// maximum is capped to it, as the doc of the timeout parameter says,
// also one past the range of a Go duration (about 292 years: 3000000h,
// 1e10s) or of a float64 (1e400 seconds), which used to be refused (400,
// "want a duration such as 30s") where 2000000h and 1e300 were capped. The cap shows as the timeout the query ran
// out of.
func TestSPARQL_TimeoutPastRange(t *testing.T) {
	ts := serve(t, server.DefaultOptions().WithMaxQueryTimeout(time.Nanosecond))
	seed(t, ts)
	sel := "/ns/acme/sparql?query=" + url.QueryEscape("SELECT * { ?s ?p ?o }")
	for _, timeout := range []string{"2000000h", "3000000h", "10000000000s", "1e300", "99999999999999999999ms", "1h3000000h", "1e400", "Inf"} {
		for _, header := range []bool{false, true} {
			path, h := sel+"&timeout="+url.QueryEscape(timeout), []string(nil)
			if header {
				path, h = sel, []string{server.TimeoutHeader, timeout}
			}
			resp, body := ts.do("GET", path, "", nil, h...)
			if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "timed out after 1ns") {
				t.Errorf("timeout %q (header %v): %d %q, want 503, timed out after 1ns (the maximum)", timeout, header, resp.StatusCode, body)
			}
		}
	}
	// What is no duration is still refused.
	for _, timeout := range []string{"3000000hh", "h", "-3000000h", "1e300h", "-1e400", "-Inf", "NaN"} {
		if resp, body := ts.do("GET", sel+"&timeout="+url.QueryEscape(timeout), "", nil); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("timeout %q: %d %q, want 400", timeout, resp.StatusCode, body)
		}
	}
}

// TestSPARQL_UpdateRefusedInEveryForm: an update sent to the query
// endpoint is refused (400, kind usage, saying Update is not supported)
// however it comes: ?update= in the URL of a GET, of a form POST, and of
// a POST of application/sparql-query, which used to run the query of its
// body and answer 200, the update it also carried ignored without a word.
func TestSPARQL_UpdateRefusedInEveryForm(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	seed(t, ts)
	upd := "update=" + url.QueryEscape("DROP ALL")
	for _, tc := range []struct{ method, path, ctype, body string }{
		{"GET", "/ns/acme/sparql?" + upd, "", ""},
		{"GET", "/ns/acme/sparql?query=ASK%7B%7D&" + upd, "", ""},
		{"POST", "/ns/acme/sparql", "application/x-www-form-urlencoded", upd},
		{"POST", "/ns/acme/sparql?" + upd, "application/x-www-form-urlencoded", "query=ASK%7B%7D"},
		{"POST", "/ns/acme/sparql?" + upd, "application/sparql-query", "ASK {}"},
	} {
		resp, body := ts.do(tc.method, tc.path, tc.ctype, strings.NewReader(tc.body))
		if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Cortex-Error-Kind") != "usage" || !strings.Contains(body, "SPARQL Update is not supported") {
			t.Errorf("%s %s (%s %q): %d %s %q, want 400 usage, Update not supported", tc.method, tc.path, tc.ctype, tc.body, resp.StatusCode, resp.Header.Get("Cortex-Error-Kind"), body)
		}
	}
	if resp, body := ts.do("GET", "/ns/acme/data?graph=http%3A%2F%2Fex%2Fg1", "", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("graph after the refused updates: %d %s", resp.StatusCode, body)
	}
}
