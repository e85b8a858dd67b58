package parser_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
	"github.com/cortexgraph/cortex/cortex/sparql/parser"
)

func TestParse_SyntaxErrorPositions(t *testing.T) {
	tests := []struct {
		name      string
		query     string
		line, col int
		msg       string // substring of the message
		sentinel  error
	}{
		{"missing object", "SELECT ?x WHERE { ?x ?y }", 1, 25, "expected variable or RDF term, found '}'", parser.ErrSyntax},
		{"character column after non-ASCII", "SELECT ?x WHERE {\n  ?x <http://é/p> \"ü\" ?z }", 2, 23, "expected '.' or '}', found variable ?z", parser.ErrSyntax},
		{"unknown prefix", "SELECT * { ?s ex:p ?o }", 1, 15, "undefined prefix 'ex:'", parser.ErrSyntax},
		{"no query form", "PREFIX : <http://x/>\nFOO", 2, 1, "expected SELECT, CONSTRUCT, DESCRIBE or ASK, found 'FOO'", parser.ErrSyntax},
		{"end of input", "SELECT * {", 1, 11, "found end of query", parser.ErrSyntax},
		{"unterminated string", "SELECT * { ?s ?p \"abc }", 1, 18, "unterminated string", parser.ErrSyntax},
		{"bad character", "SELECT * { ?s ?p ?o } ~", 1, 23, "unexpected character", parser.ErrSyntax},
		{"insert", "PREFIX : <http://x/>\nINSERT DATA { :a :b :c }", 2, 1, "not supported: SPARQL Update", parser.ErrNotSupported},
		{"delete where", "delete where { ?s ?p ?o }", 1, 1, "not supported: SPARQL Update", parser.ErrNotSupported},
		{"service", "SELECT * { SERVICE <http://x/> { ?s ?p ?o } }", 1, 12, "not supported: SERVICE", parser.ErrNotSupported},
		{"custom aggregate", "SELECT (<http://x/agg>(DISTINCT ?o) AS ?a) { ?s ?p ?o }", 1, 24, "not supported: DISTINCT", parser.ErrNotSupported},
		{"bnode label in two BGPs", "SELECT * { _:a ?p ?o . OPTIONAL { _:a ?q ?r } }", 1, 35, "blank node label _:a", parser.ErrSyntax},
		{"bind in scope", "SELECT * { ?s ?p ?o BIND(1 AS ?o) }", 1, 31, "variable ?o is already in scope", parser.ErrSyntax},
		{"select as in scope", "SELECT (1 AS ?o) { ?s ?p ?o }", 1, 14, "variable ?o is already in scope", parser.ErrSyntax},
		{"ungrouped variable", "SELECT ?o { ?s ?p ?o } GROUP BY ?s", 1, 8, "variable ?o is neither grouped nor aggregated", parser.ErrSyntax},
		{"aggregate in filter", "SELECT * { ?s ?p ?o FILTER(COUNT(?o) > 1) }", 1, 28, "aggregate COUNT is not allowed here", parser.ErrSyntax},
		{"wrong arity", "SELECT * { ?s ?p ?o FILTER(STR(?o, ?s)) }", 1, 28, "wrong number of arguments to STR", parser.ErrSyntax},
		{"unknown function", "SELECT * { ?s ?p ?o FILTER(FOO(?o)) }", 1, 28, "unknown function FOO", parser.ErrSyntax},
		{"values arity", "SELECT * { VALUES (?a ?b) { (1) } }", 1, 29, "VALUES row has 1 values, expected 2", parser.ErrSyntax},
		{"trailing garbage", "ASK { } }", 1, 9, "expected end of query, found '}'", parser.ErrSyntax},
		{"select star with group", "SELECT * { ?s ?p ?o } GROUP BY ?s", 1, 8, "SELECT * is not allowed", parser.ErrSyntax},
		{"bad escape", "SELECT * { ?s ?p \"a\\qb\" }", 1, 20, "unknown escape sequence", parser.ErrSyntax},
		{"limit not integer", "SELECT * { } LIMIT x", 1, 20, "expected integer after LIMIT, found 'x'", parser.ErrSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parser.Parse(tt.query, parser.DefaultOptions())
			if err == nil {
				t.Fatalf("Parse(%q) succeeded, want error", tt.query)
			}
			var se *parser.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T) is not a *SyntaxError", err, err)
			}
			if se.Line != tt.line || se.Col != tt.col {
				t.Errorf("position = %d:%d, want %d:%d (%v)", se.Line, se.Col, tt.line, tt.col, err)
			}
			if !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("message %q does not contain %q", se.Msg, tt.msg)
			}
			if !errors.Is(err, tt.sentinel) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.sentinel)
			}
			if want := se.Msg; !strings.HasSuffix(err.Error(), want) || !strings.HasPrefix(err.Error(), "") {
				t.Errorf("Error() = %q", err.Error())
			}
		})
	}
}

// TestParse_ByteOrderMark: one leading U+FEFF (a UTF-8 byte-order mark) is
// skipped, not a syntax error, and columns on line 1 do not count it; a
// second one, or one elsewhere, is still an error.
func TestParse_ByteOrderMark(t *testing.T) {
	const q = "SELECT ?s WHERE { ?s <http://x/p> ?o }"
	want, err := parser.Parse(q, parser.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	got, err := parser.Parse("\uFEFF"+q, parser.DefaultOptions())
	if err != nil {
		t.Fatalf("Parse with a byte-order mark: %v", err)
	}
	if got.String() != want.String() {
		t.Errorf("with a byte-order mark:\n%s\nwant\n%s", got, want)
	}
	for _, tc := range []struct {
		name, query string
		line, col   int
	}{
		{"ColumnAfterMark", "\uFEFFSELECT ?x WHERE { ?x ?y }", 1, 25},
		{"TwoMarks", "\uFEFF\uFEFFSELECT * {}", 1, 1},
		{"MarkInside", "SELECT * \uFEFF{}", 1, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parser.Parse(tc.query, parser.DefaultOptions())
			var se *parser.SyntaxError
			if !errors.As(err, &se) || se.Line != tc.line || se.Col != tc.col {
				t.Errorf("Parse(%q): %v, want a syntax error at %d:%d", tc.query, err, tc.line, tc.col)
			}
		})
	}
}

// TestParse_AnyLineEnd: a comment ends at a CR as at an LF (SPARQL 1.1,
// 19.4: end of line is 0x0D or 0x0A), so the text after it on the next line
// is read; and syntax errors count lines ended by LF, CR LF or CR alone.
// A comment ran on past a CR to the next LF: the FILTER below was dropped
// and the query gave every row.
func TestParse_AnyLineEnd(t *testing.T) {
	want, err := parser.Parse("SELECT * WHERE { ?s ?p ?o # c\n FILTER(false) \n}\n", parser.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if got, err := parser.Parse("SELECT * WHERE { ?s ?p ?o # c\r FILTER(false) \n}\n", parser.DefaultOptions()); err != nil || got.String() != want.String() {
		t.Errorf("a comment ended by CR: %v, %v; want\n%s", got, err, want)
	}
	for _, eol := range []string{"\r\n", "\r"} {
		q := strings.ReplaceAll("SELECT * WHERE { ?s ?p ?o # c\n FILTER(false) \n}\n", "\n", eol)
		got, err := parser.Parse(q, parser.DefaultOptions())
		if err != nil || got.String() != want.String() {
			t.Errorf("Parse(%q) = %v, %v; want\n%s", q, got, err, want)
		}
		q = strings.ReplaceAll("SELECT *\n# c\nWHERE {\n ?x ?y }", "\n", eol)
		_, err = parser.Parse(q, parser.DefaultOptions())
		var se *parser.SyntaxError
		if !errors.As(err, &se) || se.Line != 4 || se.Col != 8 {
			t.Errorf("Parse(%q): %v, want a syntax error at 4:8", q, err)
		}
	}
}

func TestSyntaxError_Error(t *testing.T) {
	err := &parser.SyntaxError{Line: 3, Col: 7, Msg: "expected x, found y", Err: parser.ErrSyntax}
	if got, want := err.Error(), "3:7: expected x, found y"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, parser.ErrSyntax) {
		t.Error("SyntaxError does not unwrap to ErrSyntax")
	}
	if !errors.Is(parser.ErrNotSupported, algebra.ErrNotSupported) {
		t.Error("parser.ErrNotSupported is not algebra.ErrNotSupported")
	}
}

// firstTriple returns the first triple of the first BGP found in q's pattern.
func firstTriple(t *testing.T, q *algebra.Query) algebra.TriplePattern {
	t.Helper()
	var find func(n algebra.Node) *algebra.BGP
	find = func(n algebra.Node) *algebra.BGP {
		switch n := n.(type) {
		case *algebra.BGP:
			if len(n.Triples) > 0 {
				return n
			}
		case *algebra.Project:
			return find(n.Input)
		case *algebra.Join:
			if b := find(n.Left); b != nil {
				return b
			}
			return find(n.Right)
		case *algebra.Filter:
			return find(n.Input)
		}
		return nil
	}
	b := find(q.Pattern)
	if b == nil {
		t.Fatalf("no BGP in %v", q)
	}
	return b.Triples[0]
}

func TestParse_Terms(t *testing.T) {
	xsd := "http://www.w3.org/2001/XMLSchema#"
	tests := []struct {
		name   string
		object string
		want   quad.Value
	}{
		{"integer keeps lexical form", `"01"^^xsd:integer`, quad.TypedString{Value: "01", Type: quad.IRI(xsd + "integer")}},
		{"xsd string is plain", `"a"^^xsd:string`, quad.String("a")},
		{"plain", `'a\'b'`, quad.String("a'b")},
		{"long string", `"""a"b""c"""`, quad.String(`a"b""c`)},
		{"long single quoted", "'''x\ny'''", quad.String("x\ny")},
		{"unicode escape", `"\u00e9\U0001F600"`, quad.String("é😀")},
		{"lang keeps case", `"chat"@fr-BE`, quad.LangString{Value: "chat", Lang: "fr-BE"}},
		{"integer shorthand", `42`, quad.TypedString{Value: "42", Type: quad.IRI(xsd + "integer")}},
		{"negative integer", `-42`, quad.TypedString{Value: "-42", Type: quad.IRI(xsd + "integer")}},
		{"positive decimal", `+4.20`, quad.TypedString{Value: "+4.20", Type: quad.IRI(xsd + "decimal")}},
		{"decimal without int part", `.5`, quad.TypedString{Value: ".5", Type: quad.IRI(xsd + "decimal")}},
		{"double", `1.5E-3`, quad.TypedString{Value: "1.5E-3", Type: quad.IRI(xsd + "double")}},
		{"boolean upper case", `TRUE`, quad.TypedString{Value: "true", Type: quad.IRI(xsd + "boolean")}},
		{"relative IRI", `<x/../y?q#f>`, quad.IRI("http://example.org/a/y?q#f")},
		{"prefixed name with escapes", `ex:a\.b\-c%20d`, quad.IRI("http://ex/a.b-c%20d")},
		{"prefixed name with colon and dot", `ex:a:b.c`, quad.IRI("http://ex/a:b.c")},
		{"empty prefix", `:x`, quad.IRI("http://empty/x")},
		{"nil", `()`, quad.IRI("http://www.w3.org/1999/02/22-rdf-syntax-ns#nil")},
		{"iri escape", `<http://ex/\u0041>`, quad.IRI("http://ex/A")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "PREFIX ex: <http://ex/>\nPREFIX : <http://empty/>\nSELECT * { ?s ?p " + tt.object + " }"
			q, err := parser.Parse(src, parser.DefaultOptions().WithBase("http://example.org/a/b"))
			if err != nil {
				t.Fatal(err)
			}
			if got := firstTriple(t, q).Object.Value; got != tt.want {
				t.Errorf("object = %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestParse_Options(t *testing.T) {
	opts := parser.DefaultOptions().WithPrefix("cx", "urn:cortex:vocab:")
	q, err := parser.Parse("SELECT * { ?s a cx:Team ; rdfs:label ?l }", opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := firstTriple(t, q).Object.Value; got != quad.IRI("urn:cortex:vocab:Team") {
		t.Errorf("cx:Team = %v", got)
	}
	// A PREFIX in the query overrides the predeclared one.
	q, err = parser.Parse("PREFIX cx: <http://other/> SELECT * { ?s a cx:Team }", opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := firstTriple(t, q).Object.Value; got != quad.IRI("http://other/Team") {
		t.Errorf("overridden cx:Team = %v", got)
	}
	// The options map is not modified by PREFIX declarations.
	if opts.Prefixes["cx"] != "urn:cortex:vocab:" {
		t.Errorf("options mutated: %v", opts.Prefixes)
	}
	if _, err := parser.Parse("SELECT * { ?s a rdf:Property }", parser.Options{}); err == nil {
		t.Error("zero Options should not predeclare rdf:")
	}
	for _, p := range []string{"rdf", "rdfs", "xsd", "owl", "prov"} {
		if parser.DefaultPrefixes()[p] == "" {
			t.Errorf("DefaultPrefixes lacks %s", p)
		}
	}
}

func TestParse_Forms(t *testing.T) {
	tests := []struct {
		name  string
		query string
		form  algebra.Form
		vars  []algebra.Var
	}{
		{"select star skips blank nodes", "SELECT * { ?s ?p _:b . [] ?q ?o }", algebra.Select, []algebra.Var{"s", "p", "q", "o"}},
		{"select expressions", "SELECT ?s (1 AS ?one) { ?s ?p ?o }", algebra.Select, []algebra.Var{"s", "one"}},
		{"select star with values", "SELECT * { ?s ?p ?o } VALUES ?z { 1 }", algebra.Select, []algebra.Var{"s", "p", "o", "z"}},
		{"ask", "ASK { ?s ?p ?o }", algebra.Ask, nil},
		{"construct", "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", algebra.Construct, nil},
		{"describe star", "DESCRIBE * { ?s ?p ?o }", algebra.Describe, []algebra.Var{"s", "p", "o"}},
		{"describe iri without where", "DESCRIBE <http://x/>", algebra.Describe, nil},
		{"keywords are case-insensitive", "select distinct ?s where { ?s ?p ?o } order by desc(?s) limit 1", algebra.Select, []algebra.Var{"s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := parser.Parse(tt.query, parser.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if q.Form != tt.form {
				t.Errorf("form = %v, want %v", q.Form, tt.form)
			}
			if strings.Join(varNames(q.Vars), " ") != strings.Join(varNames(tt.vars), " ") {
				t.Errorf("vars = %v, want %v", q.Vars, tt.vars)
			}
		})
	}
}

func varNames(vs []algebra.Var) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

func TestParse_BlankNodesAreNotProjectable(t *testing.T) {
	q, err := parser.Parse("SELECT * { _:a <http://p> [ <http://q> ?x ] ; <http://r> (1) }", parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range algebra.InScope(q.Pattern.(*algebra.Project).Input) {
		if v == "x" {
			continue
		}
		if v.Projectable() {
			t.Errorf("blank node variable %v is projectable", v)
		}
	}
}

func TestParse_ConstructTemplateBlankNodes(t *testing.T) {
	q, err := parser.Parse("CONSTRUCT { _:b0 <http://p> [ <http://q> ?x ] } WHERE { ?x ?p ?o }", parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	labels := map[quad.Value]bool{}
	for _, tp := range q.Template {
		for _, term := range []algebra.Term{tp.Subject, tp.Object} {
			if b, ok := term.Value.(quad.BNode); ok {
				labels[b] = true
			}
		}
	}
	// The user's _:b0 and the generated blank node of [ ... ] must be distinct.
	if len(labels) != 2 {
		t.Errorf("template blank nodes = %v, want 2 distinct labels\n%v", labels, q)
	}
}

func TestParse_DeepNestingIsAnError(t *testing.T) {
	tests := map[string]string{
		"expression":  "ASK { FILTER(" + strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000) + ") }",
		"groups":      "ASK " + strings.Repeat("{", 5000) + strings.Repeat("}", 5000),
		"blank nodes": "ASK { ?s ?p " + strings.Repeat("[ ?p ", 5000) + "1" + strings.Repeat("]", 5000) + " }",
		"paths":       "ASK { ?s " + strings.Repeat("(", 5000) + "<p>" + strings.Repeat(")", 5000) + " ?o }",
	}
	for name, q := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := parser.Parse(q, parser.Options{})
			var se *parser.SyntaxError
			if !errors.As(err, &se) || !strings.Contains(se.Msg, "nested too deeply") {
				t.Errorf("err = %v, want a nesting error", err)
			}
		})
	}
}

// TestParse_SliceBeyondInt64 checks that LIMIT and OFFSET take any INTEGER
// (grammar rules [26], [27]): a value no result can reach means the same as
// the largest int64.
func TestParse_SliceBeyondInt64(t *testing.T) {
	tests := []struct {
		name          string
		query         string
		offset, limit int64
	}{
		{"limit", "SELECT * { } LIMIT 99999999999999999999", 0, math.MaxInt64},
		{"offset", "SELECT * { } OFFSET 18446744073709551616", math.MaxInt64, -1},
		{"both", "SELECT * { } OFFSET 99999999999999999999999 LIMIT 9223372036854775808", math.MaxInt64, math.MaxInt64},
		{"int64 max", "SELECT * { } LIMIT 9223372036854775807", 0, math.MaxInt64},
		{"leading zeros", "SELECT * { } LIMIT 000000000000000000000000005", 0, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := parser.Parse(tt.query, parser.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s, ok := q.Pattern.(*algebra.Slice)
			if !ok {
				t.Fatalf("pattern is %T, want a slice: %s", q.Pattern, q)
			}
			if s.Offset != tt.offset || s.Limit != tt.limit {
				t.Errorf("offset %d limit %d, want %d and %d", s.Offset, s.Limit, tt.offset, tt.limit)
			}
		})
	}
}
