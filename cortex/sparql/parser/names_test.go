package parser_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
	"github.com/cortexgraph/cortex/cortex/sparql/parser"
)

// Names made of the characters at both ends of the ranges of PN_CHARS_BASE
// (but U+FFFD, see TestParse_ReplacementCharacterInNames) and of the ranges
// PN_CHARS adds.
const (
	pnBaseEnds = "AZaz\u00C0\u00D6\u00D8\u00F6\u00F8\u02FF\u0370\u037D\u037F\u1FFF\u200C\u200D" +
		"\u2070\u218F\u2C00\u2FEF\u3001\uD7FF\uF900\uFDCF\uFDF0\U00010000\U000EFFFF"
	varMarks = "09_\u00B7\u0300\u036F\u203F\u2040" // VARNAME: PN_CHARS but '-'
)

// parseTemplate parses a CONSTRUCT query and returns its one template triple.
func parseTemplate(t *testing.T, q string) algebra.TriplePattern {
	t.Helper()
	a, err := parser.Parse(q, parser.DefaultOptions())
	if err != nil {
		t.Fatalf("Parse(%q): %v", q, err)
	}
	if len(a.Template) != 1 {
		t.Fatalf("Parse(%q): template %v, want one triple", q, a.Template)
	}
	return a.Template[0]
}

// TestParse_NameBoundaries checks variables, blank node labels and prefixed
// names at the ends of the character ranges: the parser reads them as it did
// before the classes moved to internal/lex.
func TestParse_NameBoundaries(t *testing.T) {
	names := []struct{ v, blank, prefix, local, iri string }{
		{"a", "b", "p", "l", "l"},
		{"_", "_", "p", "_", "_"},
		{"0", "0", "p", "0", "0"},
		{pnBaseEnds, pnBaseEnds, pnBaseEnds, pnBaseEnds, pnBaseEnds},
		{"a" + varMarks, "a-" + varMarks + ".b", "a-" + varMarks + ".b", "a-" + varMarks + ".b:", "a-" + varMarks + ".b:"},
		{"x", "b", "", ":%41\\~", ":%41~"},
	}
	for _, n := range names {
		for _, sigil := range []string{"?", "$"} {
			q := "PREFIX " + n.prefix + ": <http://ex.org/>\nCONSTRUCT { " + sigil + n.v + " " + n.prefix + ":" + n.local +
				" _:" + n.blank + " } WHERE { " + sigil + n.v + " ?p ?o }"
			t.Run(q, func(t *testing.T) {
				tp := parseTemplate(t, q)
				if tp.Subject.Var != algebra.Var(n.v) {
					t.Errorf("subject %v, want ?%s", tp.Subject, n.v)
				}
				if tp.Predicate.Value != quad.IRI("http://ex.org/"+n.iri) {
					t.Errorf("predicate %v, want <http://ex.org/%s>", tp.Predicate, n.iri)
				}
				if b, ok := tp.Object.Value.(quad.BNode); !ok || !strings.HasSuffix(string(b), n.blank) {
					t.Errorf("object %v, want a blank node labelled from _:%s", tp.Object, n.blank)
				}
			})
		}
	}
	// Characters just outside the ranges end a name.
	bad := []struct{ q, msg string }{
		{"SELECT ?a\u00D7 { }", "unexpected character '×'"},
		{"SELECT ?a-b { }", "expected"},
		{"SELECT * { ?\u00B7 ?p ?o }", "expected"},
		{"SELECT * { _:\u0300 ?p ?o }", "expected a blank node label"},
		{"SELECT * { _:-a ?p ?o }", "expected a blank node label"},
		{"PREFIX \u00B7: <http://ex.org/> SELECT * { }", "unexpected character '·'"},
		{"PREFIX p: <http://ex.org/> SELECT * { p:a\uFFFE ?p ?o }", "unexpected character '\\ufffe'"},
	}
	for _, b := range bad {
		t.Run(b.q, func(t *testing.T) {
			_, err := parser.Parse(b.q, parser.DefaultOptions())
			if !errors.Is(err, parser.ErrSyntax) || !strings.Contains(err.Error(), b.msg) {
				t.Fatalf("Parse(%q) = %v, want a syntax error containing %q", b.q, err, b.msg)
			}
		})
	}
}

// TestParse_ReplacementCharacterInNames checks that U+FFFD, a PN_CHARS_BASE
// character, may appear in every kind of name. (The parser used to reject it
// as "invalid UTF-8", taking it for the utf8 package's RuneError.)
func TestParse_ReplacementCharacterInNames(t *testing.T) {
	const r = "\uFFFD"
	tp := parseTemplate(t, "PREFIX "+r+"p"+r+": <http://ex.org/>\nCONSTRUCT { ?"+r+"v"+r+" "+r+"p"+r+":"+r+"l"+r+
		" _:"+r+"b"+r+" } WHERE { $"+r+"v"+r+" ?p ?o }")
	if tp.Subject.Var != algebra.Var(r+"v"+r) {
		t.Errorf("subject %v, want ?%sv%s", tp.Subject, r, r)
	}
	if tp.Predicate.Value != quad.IRI("http://ex.org/"+r+"l"+r) {
		t.Errorf("predicate %v, want <http://ex.org/%sl%s>", tp.Predicate, r, r)
	}
	if b, ok := tp.Object.Value.(quad.BNode); !ok || !strings.HasSuffix(string(b), r+"b"+r) {
		t.Errorf("object %v, want a blank node labelled from _:%sb%s", tp.Object, r, r)
	}
	// Where no name may start, U+FFFD is an unexpected character, not bad UTF-8.
	_, err := parser.Parse("SELECT * { ?s ?p ?o } "+r, parser.DefaultOptions())
	if !errors.Is(err, parser.ErrSyntax) || strings.Contains(err.Error(), "UTF-8") {
		t.Errorf("Parse with a stray U+FFFD = %v, want a syntax error that is not about UTF-8", err)
	}
}

// TestParse_InvalidUTF8InNames checks that a byte that is not valid UTF-8
// ends a name and is reported where it is.
func TestParse_InvalidUTF8InNames(t *testing.T) {
	tests := []struct {
		name, q string
		col     int
	}{
		{"Var", "SELECT ?a\xffb { }", 10},
		{"VarStart", "SELECT ?\xff { }", 9},
		{"Blank", "SELECT * { _:a\xff ?p ?o }", 15},
		{"Prefix", "PREFIX a\xff: <http://ex.org/> SELECT * { }", 9},
		{"Local", "PREFIX p: <http://ex.org/> SELECT * { p:a\xef\xbf ?p ?o }", 42},
		{"String", "SELECT * { ?s ?p \"a\xff\" }", 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parser.Parse(tt.q, parser.DefaultOptions())
			var se *parser.SyntaxError
			if !errors.As(err, &se) || !strings.Contains(se.Msg, "invalid UTF-8") {
				t.Fatalf("Parse(%q) = %v, want a *SyntaxError about invalid UTF-8", tt.q, err)
			}
			if se.Line != 1 || se.Col != tt.col {
				t.Errorf("position %d:%d, want 1:%d (%v)", se.Line, se.Col, tt.col, err)
			}
		})
	}
}
