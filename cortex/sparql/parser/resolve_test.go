package parser_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/parser"
)

// TestParse_ResolvesIRIs checks how the parser resolves IRI references (the
// relative references against BASE or the base option, absolute ones kept as
// written (TestParse_RelativeIRIWithoutBase: the references that cannot be
// resolved).
func TestParse_ResolvesIRIs(t *testing.T) {
	tests := []struct {
		name, base, prologue, ref, want string
	}{
		{"Relative", "", "BASE <http://a/b/c/d;p?q>", "<../g?y#s>", "http://a/b/g?y#s"},
		{"Empty", "", "BASE <http://a/b/c/d;p?q>", "<>", "http://a/b/c/d;p?q"},
		{"URNBase", "", "BASE <urn:x:y>", "<#frag>", "urn:x:y#frag"},
		{"BaseOption", "http://a/b/", "", "<c>", "http://a/b/c"},
		{"RelativeBASEAgainstOption", "http://a/b/", "BASE <c/>", "<d>", "http://a/b/c/d"},
		{"Prefix", "", "BASE <http://a/b/> PREFIX p: <c/>", "p:d", "http://a/b/c/d"},
		{"AbsoluteNotNormalised", "", "BASE <http://a/b/>", "<http://x/a/./b>", "http://x/a/./b"},
		{"AbsoluteBASENotNormalised", "", "BASE <http://a/./b/>", "<>", "http://a/./b/"},
		{"AbsoluteWithoutBase", "", "", "<urn:x>", "urn:x"},
		{"PrefixedAbsolute", "", "PREFIX p: <http://a/>", "p:b", "http://a/b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := tt.prologue + " CONSTRUCT { " + tt.ref + " <http://p/> 1 } WHERE { }"
			a, err := parser.Parse(q, parser.DefaultOptions().WithBase(tt.base))
			if err != nil {
				t.Fatalf("Parse(%q): %v", q, err)
			}
			if len(a.Template) != 1 || a.Template[0].Subject.Value != quad.IRI(tt.want) {
				t.Fatalf("Parse(%q): template %v, want subject <%s>", q, a.Template, tt.want)
			}
		})
	}
}

// TestParse_RelativeIRIWithoutBase checks that an IRI reference that is
// relative when there is no absolute base IRI to resolve it against (none, or
// a relative one) is a syntax error wrapping ErrRelativeIRI at the reference,
// not a relative IRI left in the query for the result writers to trip on.
func TestParse_RelativeIRIWithoutBase(t *testing.T) {
	tests := []struct {
		name, base, query string
		line, col         int
		msg               string
	}{
		{"TemplateNoBase", "", "CONSTRUCT {<x> <urn:p> <urn:o>} WHERE {}", 1, 12, "IRI <x> is a relative IRI and there is no base IRI"},
		{"TemplatePredicate", "", "CONSTRUCT {<urn:s> <y> <urn:o>} WHERE {}", 1, 20, "IRI <y>"},
		{"Pattern", "", "SELECT * WHERE {\n  ?s <p> ?o }", 2, 6, "IRI <p> is a relative IRI"},
		{"Bind", "", "SELECT * WHERE { BIND(<x> AS ?x) }", 1, 23, "IRI <x>"},
		{"Datatype", "", "SELECT * WHERE { ?s ?p \"1\"^^<t> }", 1, 29, "IRI <t>"},
		{"From", "", "SELECT * FROM <g> WHERE {}", 1, 15, "IRI <g>"},
		{"Empty", "", "SELECT * WHERE { <> ?p ?o }", 1, 18, "IRI <> is a relative IRI"},
		{"RelativeBASE", "", "BASE <rel/> CONSTRUCT {<x> <urn:p> 1} WHERE {}", 1, 6, "BASE <rel/> is a relative IRI and there is no base IRI"},
		{"RelativePREFIX", "", "PREFIX p: <rel/> SELECT * WHERE {}", 1, 11, "PREFIX p: <rel/> is a relative IRI"},
		{"RelativeBaseOption", "rel", "CONSTRUCT {<x> <urn:p> 1} WHERE {}", 1, 12, "IRI <x> is a relative IRI and the base IRI <rel> to resolve it against is not absolute"},
		{"RelativeBASEAgainstRelativeOption", "rel/", "BASE <a/> SELECT * WHERE {}", 1, 6, "BASE <a/> is a relative IRI and the base IRI <rel/>"},
		{"RelativePredeclaredPrefix", "", "SELECT * WHERE { ?s rp:x ?o }", 1, 21, "prefixed name rp:x expands to the relative IRI <rel/x>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := parser.DefaultOptions().WithBase(tt.base).WithPrefix("rp", "rel/")
			q, err := parser.Parse(tt.query, opts)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, want an error", tt.query, q)
			}
			var se *parser.SyntaxError
			if !errors.As(err, &se) || !errors.Is(err, parser.ErrRelativeIRI) || !errors.Is(err, parser.ErrSyntax) {
				t.Fatalf("Parse(%q): %v (%T), want a *SyntaxError wrapping ErrRelativeIRI and ErrSyntax", tt.query, err, err)
			}
			if se.Line != tt.line || se.Col != tt.col || !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("Parse(%q): %d:%d %q, want %d:%d and a message containing %q", tt.query, se.Line, se.Col, se.Msg, tt.line, tt.col, tt.msg)
			}
		})
	}
}

// TestParse_BaseOptionMustBeIRIChars: Options.Base holding a character
// that no IRI holds (white space, a control character, <>"{}|^`\, bytes
// that are not UTF-8) is a syntax error of the query, as a BASE
// declaration with it is: every relative reference would have become an
// IRI that no RDF syntax can write (the server and the CLI check their
// base parameters; a library caller's went through).
func TestParse_BaseOptionMustBeIRIChars(t *testing.T) {
	for _, base := range []string{"http://ex.org/a b/", "http://ex.org/a\n", "http://ex.org/<a>", "http://ex.org/a\xff", "http://ex.org/{a}", "http://ex.org/a\\b"} {
		_, err := parser.Parse("SELECT * WHERE { <x> ?p ?o }", parser.Options{Base: base})
		var se *parser.SyntaxError
		if !errors.As(err, &se) || !errors.Is(err, parser.ErrSyntax) || !strings.Contains(se.Msg, "base") {
			t.Errorf("base %q: err = %v, want a *SyntaxError naming the base", base, err)
		}
	}
	// DEL and characters beyond ASCII are allowed in IRIs; a relative base
	// is still refused only when a relative reference needs it.
	for _, base := range []string{"http://ex.org/é\x7f/", "rel/"} {
		if _, err := parser.Parse("SELECT * WHERE { <http://ex.org/x> ?p ?o }", parser.Options{Base: base}); err != nil {
			t.Errorf("base %q: %v", base, err)
		}
	}
}
