package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// runQueryCLI runs cortexctl against the store in dir.
func runQueryCLI(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return runCLI(t, dir, "", args...)
}

const queryTTL = `@prefix ex: <http://example.org/> .
ex:a ex:name "Alice" ; ex:age 30 .
ex:b ex:name "Bob" ; ex:age 25 .
`

func setupQueryStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	mustCLI(t, dir, "import", writeFile(t, "d.ttl", queryTTL))
	// The same triple again in a named graph: the union default graph must count it once.
	mustCLI(t, dir, "import", "--graph", "http://example.org/g", writeFile(t, "g.ttl", `<http://example.org/a> <http://example.org/name> "Alice" .`))
	// Another namespace must stay invisible.
	mustCLI(t, dir, "--namespace", "other", "import", writeFile(t, "o.ttl", `<http://example.org/c> <http://example.org/name> "Carol" .`))
	return dir
}

func TestCLI_Query_Formats(t *testing.T) {
	dir := setupQueryStore(t)
	q := `PREFIX ex: <http://example.org/> SELECT ?n WHERE { ?s ex:name ?n } ORDER BY ?n`
	tests := []struct {
		name   string
		args   []string
		want   []string
		absent []string
	}{
		{"json", []string{"--format", "json"}, []string{`"value":"Alice"`, `"value":"Bob"`}, []string{"Carol"}},
		{"json alias", []string{"--json"}, []string{`"vars"`}, nil},
		{"csv", []string{"--format", "csv"}, []string{"n\r\nAlice\r\nBob\r\n"}, nil},
		{"tsv", []string{"--format", "tsv"}, []string{"?n\n\"Alice\"\n\"Bob\"\n"}, nil},
		{"xml", []string{"--format", "xml"}, []string{"<literal>Alice</literal>"}, nil},
		{"table", []string{"--format", "table"}, []string{"Alice", "Bob"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runQueryCLI(t, dir, append(append([]string{"query"}, tc.args...), q)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("output lacks %q:\n%s", w, r.stdout)
				}
			}
			for _, w := range tc.absent {
				if strings.Contains(r.stdout, w) {
					t.Errorf("output has %q:\n%s", w, r.stdout)
				}
			}
		})
	}
}

func TestCLI_Query_DefaultGraphModes(t *testing.T) {
	dir := setupQueryStore(t)
	count := func(args ...string) string {
		r := runQueryCLI(t, dir, append([]string{"query", "--format", "csv"}, args...)...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		return strings.TrimSpace(strings.Split(r.stdout, "\n")[1])
	}
	q := `SELECT (COUNT(*) AS ?c) WHERE { ?s ?p ?o }`
	if got := count(q); got != "4" {
		t.Errorf("union: %s triples, want 4 (the triple in two graphs counts once)", got)
	}
	if got := count("--default-graph", "default", q); got != "4" {
		t.Errorf("default: %s triples, want 4", got)
	}
	if got := count("--default-graph", "http://example.org/g", q); got != "1" {
		t.Errorf("graph IRI: %s triples, want 1", got)
	}
	if got := count(`SELECT (COUNT(*) AS ?c) WHERE { GRAPH ?g { ?s ?p ?o } }`); got != "1" {
		t.Errorf("GRAPH ?g: %s, want 1", got)
	}
	// An option value that cannot be used is an invalid value (exit 7), as
	// --base rel and --graph rel are; it was a usage error (exit 2).
	for _, g := range []string{"nonsense", "rel/g"} {
		if r := runQueryCLI(t, dir, "query", "--default-graph", g, q); r.code != exitInvalid || !strings.Contains(r.stderr, "--default-graph \""+g+"\": want union, default or an absolute IRI") {
			t.Errorf("--default-graph %s: exit %d (want %d), stderr %q", g, r.code, exitInvalid, r.stderr)
		}
	}
}

func TestCLI_Query_Ask(t *testing.T) {
	dir := setupQueryStore(t)
	tests := []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"true", []string{"ASK { ?s <http://example.org/name> \"Alice\" }"}, exitOK, "true\n"},
		{"false", []string{"ASK { ?s <http://example.org/name> \"Carol\" }"}, exitOK, "false\n"},
		{"true exit status", []string{"--exit-status", "ASK { ?s ?p ?o }"}, exitOK, "true\n"},
		{"false exit status", []string{"--exit-status", "ASK { ?s <http://example.org/name> \"Zed\" }"}, exitFalse, "false\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runQueryCLI(t, dir, append([]string{"query"}, tc.args...)...)
			if r.code != tc.code || r.stdout != tc.out {
				t.Errorf("exit %d output %q, want %d %q (stderr %s)", r.code, r.stdout, tc.code, tc.out, r.stderr)
			}
		})
	}
}

func TestCLI_Query_SyntaxErrorCaret(t *testing.T) {
	dir := setupQueryStore(t)
	r := runQueryCLI(t, dir, "query", "SELECT ?s\nWHERE { ?s ?p }")
	if r.code != exitSyntax {
		t.Fatalf("exit %d, want %d; stderr %s", r.code, exitSyntax, r.stderr)
	}
	if !strings.Contains(r.stderr, "  WHERE { ?s ?p }\n") || !strings.Contains(r.stderr, "^\n") || !strings.Contains(r.stderr, "line 2") {
		t.Errorf("stderr lacks the offending line with a caret:\n%s", r.stderr)
	}
}

// TestCLI_Query_SyntaxErrorEscaped: the excerpt of a syntax error shows
// control characters, bidirectional formatting characters and bytes that
// are not UTF-8 escaped, as tables do, with the caret under the escaped
// character; they were written raw (an ESC drove the terminal, a U+202E
// reordered the line).
func TestCLI_Query_SyntaxErrorEscaped(t *testing.T) {
	dir := setupQueryStore(t)
	for _, tc := range []struct{ q, excerpt string }{
		{"SELECT * { \x1b[31mRED\x1b[0m \x07 ?s ?p", "  SELECT * { \\x1b[31mRED\\x1b[0m \\x07 ?s ?p\n             ^\n"},
		{"SELECT * { ?s ?p ?o } \xff\xfe", "  SELECT * { ?s ?p ?o } \\xff\\xfe\n                        ^\n"},
		{"SELECT * { \u202e ?s ?p", "  SELECT * { \\u202e ?s ?p\n             ^\n"},
	} {
		r := runQueryCLI(t, dir, "query", tc.q)
		if r.code != exitSyntax || !strings.Contains(r.stderr, tc.excerpt) {
			t.Errorf("%q: exit %d (want %d), stderr %q (want the excerpt %q)", tc.q, r.code, exitSyntax, r.stderr, tc.excerpt)
		}
	}
}

// TestCLI_Query_RelativeIRIWithoutBase: a relative IRI with no absolute base
// to resolve it against is a syntax error (exit 5) at its line and column,
// as the server answers it, not an internal error (exit 1) met while writing
// the result. (A relative --base is an invalid value, exit 7:
// TestCLI_Query_BaseMustBeAbsolute.)
func TestCLI_Query_RelativeIRIWithoutBase(t *testing.T) {
	dir := setupQueryStore(t)
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"template", []string{"query", "CONSTRUCT {<x> <y> <z>} WHERE {}"}, "line 1, column 12: IRI <x> is a relative IRI and there is no base IRI"},
		{"relative BASE", []string{"query", "BASE <rel/> CONSTRUCT {<x> <y> <z>} WHERE {}"}, "line 1, column 6: BASE <rel/> is a relative IRI"},
		{"select", []string{"query", "SELECT * WHERE {\n ?s <p> ?o }"}, "line 2, column 5: IRI <p>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runQueryCLI(t, dir, tc.args...)
			if r.code != exitSyntax || !strings.Contains(r.stderr, tc.msg) || r.stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", r.code, r.stdout, r.stderr, exitSyntax, tc.msg)
			}
		})
	}
	r := runQueryCLI(t, dir, "query", "--base", "http://example.org/d/", "CONSTRUCT {<x> <y> <z>} WHERE {}")
	if r.code != 0 || r.stdout != "<http://example.org/d/x> <http://example.org/d/y> <http://example.org/d/z> .\n" {
		t.Errorf("absolute --base: exit %d %q %s", r.code, r.stdout, r.stderr)
	}
}

// TestCLI_Query_ByteOrderMark: a query file that starts with a UTF-8
// byte-order mark (as Windows editors save it) runs, and an error in it is
// placed as if the mark were not there.
func TestCLI_Query_ByteOrderMark(t *testing.T) {
	dir := setupQueryStore(t)
	qf := writeFile(t, "bom.rq", "\uFEFFSELECT ?n WHERE { <http://example.org/a> <http://example.org/name> ?n }")
	r := runQueryCLI(t, dir, "query", "--format", "csv", "--file", qf)
	if r.code != 0 || r.stdout != "n\r\nAlice\r\n" {
		t.Errorf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	bad := writeFile(t, "badbom.rq", "\uFEFFSELECT ?n WHERE { ?n }")
	r = runQueryCLI(t, dir, "query", "--file", bad)
	if r.code != exitSyntax || !strings.Contains(r.stderr, "line 1, column 22:") {
		t.Errorf("exit %d, stderr %s; want %d at line 1, column 22", r.code, r.stderr, exitSyntax)
	}
}

// TestCLI_Query_SyntaxErrorInHugeLine: a syntax error in a query that is one
// line of a megabyte echoes a short window of that line around the column,
// not the whole line, and keeps the line and column exact.
func TestCLI_Query_SyntaxErrorInHugeLine(t *testing.T) {
	dir := setupQueryStore(t)
	var b strings.Builder
	b.WriteString("SELECT * WHERE {")
	for b.Len() < 1<<20 {
		b.WriteString(" ?s <http://example.org/p> ?o .")
	}
	col := len(b.String()) + 2
	b.WriteString(" ) }")
	qf := writeFile(t, "huge.rq", b.String())
	r := runQueryCLI(t, dir, "query", "--file", qf)
	want := fmt.Sprintf("line 1, column %d: expected variable or RDF term, found ')'", col)
	if r.code != exitSyntax || !strings.Contains(r.stderr, want) {
		t.Fatalf("exit %d, want %d and %q in stderr: %.500s", r.code, exitSyntax, want, r.stderr)
	}
	if len(r.stderr) > 1000 {
		t.Errorf("stderr of %d bytes for a syntax error: %.500s", len(r.stderr), r.stderr)
	}
	if q := b.String(); !strings.Contains(r.stderr, "  ..."+q[len(q)-80:]+"\n  "+strings.Repeat(" ", 80)+"^\n") {
		t.Errorf("stderr lacks the end of the line around the column:\n%s", r.stderr)
	}
}

// TestCLI_Query_RDFXML: CONSTRUCT and DESCRIBE results as RDF/XML
// (--format rdfxml, or rdf); a result RDF/XML cannot carry is a usage error
// that prints nothing of it.
func TestCLI_Query_RDFXML(t *testing.T) {
	dir := setupQueryStore(t)
	for _, format := range []string{"rdfxml", "rdf"} {
		r := runQueryCLI(t, dir, "query", "--format", format, "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o FILTER(?s = <http://example.org/b>) }")
		if r.code != 0 || !strings.HasPrefix(r.stdout, `<?xml version="1.0" encoding="utf-8"?>`) ||
			!strings.Contains(r.stdout, "<rdf:Description rdf:about=\"http://example.org/b\">\n  <ns1:name>Bob</ns1:name>\n") ||
			!strings.Contains(r.stdout, `<ns1:age rdf:datatype="http://www.w3.org/2001/XMLSchema#integer">25</ns1:age>`) {
			t.Errorf("--format %s: exit %d\n%s%s", format, r.code, r.stdout, r.stderr)
		}
	}
	r := runQueryCLI(t, dir, "query", "--format", "rdfxml", "CONSTRUCT { ?s <http://example.org/p/> ?o } WHERE { ?s ?p ?o }")
	if r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, "cannot be written as rdfxml (use --format ntriples or turtle)") {
		t.Errorf("unsplittable predicate: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	r = runQueryCLI(t, dir, "query", "--format", "jsonld", "DESCRIBE <http://example.org/b>")
	if r.code != exitUsage || !strings.Contains(r.stderr, "ntriples, turtle or rdfxml") {
		t.Errorf("unknown graph format: exit %d, stderr %s", r.code, r.stderr)
	}
}

func TestCLI_Query_ConstructFileAndExplain(t *testing.T) {
	dir := setupQueryStore(t)
	qf := writeFile(t, "q.rq", `PREFIX ex: <http://example.org/>
CONSTRUCT { ?s ex:label ?n ; ex:self <me> } WHERE { ?s ex:name ?n }`)
	r := runQueryCLI(t, dir, "query", "--file", qf)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, `<http://example.org/a> <http://example.org/label> "Alice" .`) {
		t.Errorf("N-Triples output lacks a triple:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "<file://") {
		t.Errorf("relative IRI not resolved against the file URL:\n%s", r.stdout)
	}
	r = runQueryCLI(t, dir, "query", "--explain", "--file", qf)
	if r.code != 0 || !strings.Contains(r.stdout, "bgp") {
		t.Errorf("explain: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runQueryCLI(t, dir, "query", "--format", "turtle", "DESCRIBE <http://example.org/a>")
	if r.code != 0 || !strings.Contains(r.stdout, "Alice") {
		t.Errorf("describe: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestCLI_Query_Usage(t *testing.T) {
	dir := setupQueryStore(t)
	for name, args := range map[string][]string{
		"no query":    {"query"},
		"both":        {"query", "--file", "x.rq", "ASK {}"},
		"bad format":  {"query", "--format", "yaml", "SELECT * {}"},
		"json+format": {"query", "--json", "--format", "csv", "SELECT * {}"},
		// --explain prints the plan as text: a result format or
		// --exit-status was ignored (--format bogus too).
		"explain+format":      {"query", "--explain", "--format", "bogus", "SELECT * {}"},
		"explain+json":        {"query", "--explain", "--json", "SELECT * {}"},
		"explain+exit-status": {"query", "--explain", "--exit-status", "ASK {}"},
	} {
		t.Run(name, func(t *testing.T) {
			if r := runQueryCLI(t, dir, args...); r.code != exitUsage {
				t.Errorf("exit %d, want %d (%s)", r.code, exitUsage, r.stderr)
			}
		})
	}
}

func TestCLI_Query_Timeout(t *testing.T) {
	dir := setupQueryStore(t)
	// A deadline that has passed before evaluation starts.
	r := runQueryCLI(t, dir, "query", "--timeout", "1ns", "--format", "json", "SELECT * { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }")
	if r.code != exitTimeout || r.stdout != "" || !strings.Contains(r.stderr, "timed out after 1ns") {
		t.Errorf("exit %d, want %d (%s)", r.code, exitTimeout, r.stderr)
	}
	// The README: stderr says "output is incomplete" or that nothing was
	// printed (it said neither when nothing was), in the same words in
	// both modes (through a server, "nothing was printed" came last).
	if want := "cortexctl: query: timed out after 1ns: nothing was printed: context deadline exceeded\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
}

// TestCLI_Query_StoppedOutputIsNeverComplete: a query stopped by its
// timeout while its results stream never prints a well-formed document: a
// JSON or XML result lacks its end, a table says it is incomplete, and
// stderr says so; exit 8. The query is slow by construction: a cross
// product of 12 patterns over the 4 triples of the union graph is 16.7
// million rows of 36 terms, gigabytes of output.
func TestCLI_Query_StoppedOutputIsNeverComplete(t *testing.T) {
	dir := setupQueryStore(t)
	q := `SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n ?o . ?p ?q ?r . ?s ?t ?u . ?v ?w ?x .
		?y ?z ?a1 . ?b1 ?c1 ?d1 . ?e1 ?f1 ?g1 . ?h1 ?i1 ?j1 }`
	construct := strings.Replace(q, "SELECT *", "CONSTRUCT { ?a ?b ?x }", 1)
	for _, format := range []string{"json", "xml", "table", "csv", "tsv", "ntriples"} {
		t.Run(format, func(t *testing.T) {
			text := q
			if format == "ntriples" {
				text = construct
			}
			r := runQueryCLI(t, dir, "query", "--timeout", "200ms", "--format", format, text)
			if r.code != exitTimeout || !strings.Contains(r.stderr, "query: timed out after 200ms") {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			printed := r.stdout != ""
			if printed != strings.Contains(r.stderr, "output is incomplete") || printed == strings.Contains(r.stderr, "nothing was printed") {
				t.Fatalf("%d bytes printed, stderr %q", len(r.stdout), r.stderr)
			}
			switch format {
			case "json":
				if json.Valid([]byte(r.stdout)) || strings.Contains(r.stdout, "]}}") {
					t.Fatalf("a complete JSON document:\n%.300s", r.stdout)
				}
			case "xml":
				if strings.Contains(r.stdout, "</sparql>") {
					t.Fatal("a complete XML document")
				}
			default: // table, csv, tsv, ntriples
				if printed && !strings.HasSuffix(r.stdout, "\n… the query timed out after 200ms: output is incomplete\n") {
					t.Fatalf("%s output ends with %q", format, r.stdout[max(0, len(r.stdout)-200):])
				}
			}
		})
	}
}

// TestCLI_Query_XMLCannotCarryTheResult: a literal holding a character XML
// 1.0 forbids (U+0000, most control characters; N-Triples and the store
// take them) cannot be written as --format xml: a usage error saying so
// and naming the formats that can, as rdfxml's (it was exit 1, "internal
// error", with only the term's problem). Usage errors of the writers are
// said once ("query: usage: query: --format ..." said query twice).
func TestCLI_Query_XMLCannotCarryTheResult(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "import", writeFile(t, "c.nt", "<http://example.org/s> <http://example.org/p> \"a\\u0000b\" .\n"))
	q := "SELECT ?o WHERE { ?s ?p ?o }"
	r := runQueryCLI(t, dir, "query", "--format", "xml", q)
	if r.code != exitUsage || !strings.Contains(r.stderr, "cortexctl: usage: query: the result cannot be written as xml (use --format json, csv or tsv): row 0, ?o: ") {
		t.Fatalf("--format xml: exit %d (want %d), stderr %q", r.code, exitUsage, r.stderr)
	}
	if r := runQueryCLI(t, dir, "query", "--format", "json", q); r.code != 0 || !strings.Contains(r.stdout, `"a\u0000b"`) {
		t.Fatalf("--format json: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runQueryCLI(t, dir, "query", "--format", "table", "CONSTRUCT WHERE { ?s ?p ?o }")
	if r.code != exitUsage || !strings.HasPrefix(r.stderr, "cortexctl: usage: query: --format table: CONSTRUCT") {
		t.Fatalf("CONSTRUCT --format table: exit %d (want %d), stderr %q", r.code, exitUsage, r.stderr)
	}
}

// TestCLI_Query_BaseMustBeAbsolute: --base is checked as import's is (exit
// 7, invalid value), whatever the query; a relative one was taken
// silently by a query without relative IRIs, and made one with them a
// syntax error of the query (exit 5).
func TestCLI_Query_BaseMustBeAbsolute(t *testing.T) {
	dir := setupQueryStore(t)
	for _, q := range []string{"ASK {}", "ASK { <x> ?p ?o }"} {
		r := runQueryCLI(t, dir, "query", "--base", "rel/", q)
		if r.code != exitInvalid || !strings.Contains(r.stderr, `--base: IRI "rel/" is not absolute`) {
			t.Errorf("%s --base rel/: exit %d (want %d), stderr %q", q, r.code, exitInvalid, r.stderr)
		}
	}
	if r := runQueryCLI(t, dir, "query", "--base", "http://example.org/", "ASK { <a> ?p ?o }"); r.code != 0 || r.stdout != "true\n" {
		t.Errorf("--base http://example.org/: exit %d, %q %s", r.code, r.stdout, r.stderr)
	}
}

// TestCLI_ConfigPrefixBadPercentEncoding: a config whose prefix IRI has a
// bad percent-encoding is an invalid config value (exit 7), named with the
// file, before any query runs.
func TestCLI_ConfigPrefixBadPercentEncoding(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--name", "x", "--member", "ann")
	cfg := writeFile(t, "cortex.json5", `{prefixes: {ex: "http://ex.org/%zz"}}`)
	r := runCLI(t, dir, "", "--config", cfg, "query", "ASK {}")
	if r.code != exitInvalid || !strings.Contains(r.stderr, cfg) || !strings.Contains(r.stderr, "prefixes.ex") {
		t.Fatalf("exit %d, want %d; stderr %q", r.code, exitInvalid, r.stderr)
	}
}

// TestCLI_QueryDefaultGraphNotAnIRI: a --default-graph with a character
// no IRI can hold (a space, '<', '{', a control character) is an invalid
// value (exit 7), as through a server, whose SPARQL endpoint refuses it:
// not a query run on a graph of that name.
func TestCLI_QueryDefaultGraphNotAnIRI(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "import", writeFile(t, "a.nt", "<http://ex/s> <http://ex/p> \"o\" .\n"))
	for _, g := range []string{"http://x/a b", "http://x/<>", "http://x/{}", "http://x/\x01", "x:y z"} {
		r := runCLI(t, dir, "", "query", "ASK {}", "--default-graph", g)
		if r.code != exitInvalid || r.stdout != "" || !strings.Contains(r.stderr, "which IRIs cannot hold") {
			t.Errorf("--default-graph %q: exit %d, %q, %q; want %d", g, r.code, r.stdout, r.stderr, exitInvalid)
		}
	}
}
