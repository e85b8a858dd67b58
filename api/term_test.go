package api_test

import (
	"errors"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex/rdfio"
)

func TestParseTerm(t *testing.T) {
	prefixes := map[string]string{"ex": "http://ex.org/"}
	for _, tc := range []struct {
		in   string
		want quad.Value
		err  error
	}{
		{"<http://a/b>", quad.IRI("http://a/b"), nil},
		{`"high"@en`, quad.LangString{Value: "high", Lang: "en"}, nil},
		{"ex:main.go", quad.IRI("http://ex.org/main.go"), nil},
		{"http://x/y", quad.IRI("http://x/y"), nil},
		{"urn:x:y", quad.IRI("urn:x:y"), nil},
		{"plain words", quad.String("plain words"), nil},
		{"nope:x", nil, api.ErrInvalid},
		{"", nil, api.ErrSyntax},
		{`"unterminated`, nil, nil}, // a syntax error of rdfio
	} {
		got, err := api.ParseTerm(tc.in, prefixes)
		switch {
		case tc.want != nil && (err != nil || got != tc.want):
			t.Errorf("ParseTerm(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		case tc.want == nil && err == nil:
			t.Errorf("ParseTerm(%q) = %v, want an error", tc.in, got)
		case tc.err != nil && !errors.Is(err, tc.err):
			t.Errorf("ParseTerm(%q): %v, want %v", tc.in, err, tc.err)
		}
	}
}

// TestParseTerm_ReadsWhatFormatTermWrites: the CLI prints terms and the
// server sends them with rdfio.FormatTerm, which hex-encodes a blank node
// label that is not plain ("x" + hex); what it wrote must read back as the
// same term, or a blank node added through a server, or copied from
// cortexctl's output into an argument, would be another node.
func TestParseTerm_ReadsWhatFormatTermWrites(t *testing.T) {
	for _, v := range []quad.Value{
		quad.BNode("b1"), quad.BNode("x1"), quad.BNode("xyz"), quad.BNode("b 1"), quad.BNode("-a"),
		quad.BNode("é"), quad.BNode("x"), quad.BNode("x7831"), quad.BNode("a.b"), quad.BNode("_"),
		quad.IRI("http://ex/a"), quad.String("x1"), quad.LangString{Value: "chat", Lang: "fr"},
	} {
		text := rdfio.FormatTerm(v)
		got, err := api.ParseTerm(text, nil)
		if err != nil || got != v {
			t.Errorf("ParseTerm(%s) = %#v, %v; want %#v", text, got, err, v)
		}
	}
	// A label FormatTerm does not write is read as written.
	for text, want := range map[string]quad.Value{
		"_:x41": quad.BNode("x41"), // FormatTerm writes "A" as _:A
		"_:xyz": quad.BNode("xyz"), // not hex
		"_:x4":  quad.BNode("x4"),  // odd length
		"_:x4A": quad.BNode("x4A"), // upper-case hex: FormatTerm writes lower case
		"_:xff": quad.BNode("xff"), // not UTF-8 once decoded: FormatTerm never wrote it
		"_:abc": quad.BNode("abc"),
	} {
		if got, err := api.ParseTerm(text, nil); err != nil || got != want {
			t.Errorf("ParseTerm(%s) = %#v, %v; want %#v", text, got, err, want)
		}
	}
}
