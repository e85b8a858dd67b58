package rdfio_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio"
)

func TestFormatTerm_ParseTerm_RoundTrip(t *testing.T) {
	for _, q := range oddQuads() {
		v := q.Object
		if _, ok := v.(quad.BNode); ok {
			continue // labels are rewritten when not plain; see TestFormatTerm
		}
		s := rdfio.FormatTerm(v)
		got, err := rdfio.ParseTerm(s)
		if err != nil {
			t.Errorf("ParseTerm(%s): %v", s, err)
			continue
		}
		if got != v {
			t.Errorf("ParseTerm(FormatTerm(%#v)) = %#v (text %s)", v, got, s)
		}
	}
}

func TestFormatTerm(t *testing.T) {
	cases := []struct {
		v    quad.Value
		want string
	}{
		{quad.IRI("http://ex.org/a b>"), `<http://ex.org/a\u0020b\u003E>`},
		{quad.BNode("b1"), `_:b1`},
		{quad.BNode("a:b"), `_:x613a62`},
		{quad.BNode("x1"), `_:x7831`},
		{quad.String("a\"b\n"), `"a\"b\n"`},
		{quad.LangString{Value: "x", Lang: "EN"}, `"x"@EN`},
		// A language tag that is none is written with its characters
		// other than letters, digits and '-' as \u escapes (it went out
		// raw: a newline or an escape sequence in a QuadError's message).
		{quad.LangString{Value: "x", Lang: "en\n\x1b[2J é\xff"}, `"x"@en\u000A\u001B\u005B2J\u0020\u00E9\uFFFD`},
		{quad.TypedString{Value: "x", Type: xsd + "string"}, `"x"`},
		{quad.TypedString{Value: "01", Type: xsd + "integer"}, `"01"^^<` + xsd + `integer>`},
		{quad.Bool(true), `"true"^^<` + xsd + `boolean>`},
		{nil, ``},
	}
	for _, c := range cases {
		if got := rdfio.FormatTerm(c.v); got != c.want {
			t.Errorf("FormatTerm(%#v) = %s, want %s", c.v, got, c.want)
		}
	}
}

func TestParseTerm(t *testing.T) {
	good := []struct {
		in   string
		want quad.Value
	}{
		{"  <http://ex.org/a>  ", quad.IRI("http://ex.org/a")},
		{"_:x", quad.BNode("x")},
		{`"a"@en`, quad.LangString{Value: "a", Lang: "en"}},
		{`"1"^^<` + xsd + `integer>`, quad.TypedString{Value: "1", Type: xsd + "integer"}},
	}
	for _, c := range good {
		got, err := rdfio.ParseTerm(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseTerm(%q) = %#v, %v; want %#v", c.in, got, err, c.want)
		}
	}
	bad := []string{"", "<rel>", "<http://ex.org/a> x", `"unterminated`, "_:", `"x"@`, "ex:a", `"x"^^ex:t`, `"1"^^<` + rdf + `langString>`}
	for _, in := range bad {
		_, err := rdfio.ParseTerm(in)
		var se *rdfio.SyntaxError
		if !errors.As(err, &se) || se.Line != 1 || se.Col < 1 {
			t.Errorf("ParseTerm(%q) err = %v, want *SyntaxError at line 1", in, err)
		}
	}
}

// TestQuadError_EscapesLanguageTag: the error of a quad refused for its
// language tag shows the tag without control characters.
func TestQuadError_EscapesLanguageTag(t *testing.T) {
	q := quad.Quad{Subject: quad.IRI("http://ex/s"), Predicate: quad.IRI("http://ex/p"),
		Object: quad.LangString{Value: "x", Lang: "en\ncortexctl: forged \x1b[31m"}}
	for _, format := range []string{rdfio.NTriples, rdfio.Turtle, rdfio.RDFXML} {
		err := rdfio.WriteAll(io.Discard, format, rdfio.EncodeOptions{}, []quad.Quad{q})
		if !errors.Is(err, rdfio.ErrInvalidTerm) {
			t.Fatalf("%s: err = %v, want ErrInvalidTerm", format, err)
		}
		if msg := err.Error(); strings.ContainsAny(msg, "\n\x1b") {
			t.Errorf("%s: error %q holds a control character", format, msg)
		}
	}
}
