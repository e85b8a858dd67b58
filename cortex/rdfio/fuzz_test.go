package rdfio_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/cortex/rdfio/rdftest"
)

var fuzzSeeds = []string{
	"<http://ex.org/s> <http://ex.org/p> <http://ex.org/o> .\n",
	"_:a <http://ex.org/p> \"x\\n\\u00e9\"@en-GB .\n",
	"<http://ex.org/s> <http://ex.org/p> \"01\"^^<http://www.w3.org/2001/XMLSchema#integer> <http://ex.org/g> .\n",
	"\uFEFF# comment\r\n<http://ex.org/s> <http://ex.org/p> _:b.\r",
	"@prefix : <http://ex.org/> .\n:s :p [ :q ( 1 2.5 -3e2 true ) ] , _:b1 ; a :C .\n",
	"@base <http://ex.org/a/> .\nPREFIX x: <b/>\n<s> x:p \"\"\"long\n\"quoted\" # text\"\"\" .\n",
	"@prefix base: <http://ex.org/> . base:s base:p 'x'@en, '''y''' .",
	// DEL is allowed in IRIs raw and escaped; escaped space is not.
	"<http://e/a\x7fb> <http://e/p> \"1\"^^<http://e/a\\u007Fb> <http://e/g\\U0000007f> .\n",
	"<http://e/a\x7fb> <http://e/p> <http://e/c\\u007fd> .\n",
	"<http://e/a\\u0020b> <http://e/p> <http://e/o> .\n",
	// issue #16: an unclosed collection must not swallow the statements after it
	"@prefix ex: <http://ex/> .\nex:a ex:b ( ex:c .\nex:e ex:f ex:g .\n",
	"@prefix ex: <http://ex/> .\nex:a ex:b [ ex:c ( ex:d [] ) ; ] , () .\n( 1 ) ex:f \"\"\"x\"y\"\"\" .\n",
	"<http://e/s> <http://e/p> \"x\" ^^ <http://e/d> .\n",
	// a byte that is not valid UTF-8 is no name character (internal/lex)
	"@prefix ex: <http://ex/> .\nex:a\xffb ex:b _:c\xff .\n",
	"_:a\xffb <http://e/p> <http://e/o> .\n",
	// rdf:langString without a language tag is no RDF 1.1 literal: refused
	// by the readers (and the writers)
	"<http://e/s> <http://e/p> \"1\"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString> .\n",
	"@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .\n<http://e/s> <http://e/p> '1'^^rdf:langString , '2'@en .\n",
}

// roundTrip checks that what decodes also encodes, and decodes back to an
// isomorphic dataset.
func roundTrip(t *testing.T, format string, qs []quad.Quad) {
	var buf bytes.Buffer
	enc, err := rdfio.NewEncoder(&buf, format, rdfio.EncodeOptions{Prefixes: map[string]string{"ex": "http://ex.org/"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		if err := enc.Encode(q); err != nil {
			t.Fatalf("decoded quad %v does not encode: %v", q, err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	back, err := rdfio.ReadAll(&buf, format, rdfio.DecodeOptions{})
	if err != nil {
		t.Fatalf("re-decode: %v\n%s", err, buf.String())
	}
	if !rdftest.Isomorphic(qs, back) {
		t.Fatalf("round trip not isomorphic:\n%s", buf.String())
	}
}

func fuzzDecode(f *testing.F, format string) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		opts := rdfio.DecodeOptions{Base: "http://base.example/doc"}
		qs, err := rdfio.ReadAll(bytes.NewReader([]byte(src)), format, opts)
		// Read a byte at a time, the input gives the same quads and error:
		// how reads cut it (a CR LF pair, a token) does not matter.
		qs1, err1 := rdfio.ReadAll(iotest.OneByteReader(strings.NewReader(src)), format, opts)
		if fmt.Sprint(err) != fmt.Sprint(err1) || !slices.Equal(qs, qs1) {
			t.Fatalf("read whole: %v, %v\nread a byte at a time: %v, %v", qs, err, qs1, err1)
		}
		if err != nil {
			var se *rdfio.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error is not a *SyntaxError: %T %v", err, err)
			}
			return
		}
		roundTrip(t, format, qs)
	})
}

func FuzzDecodeNTriples(f *testing.F) { fuzzDecode(f, rdfio.NQuads) }
func FuzzDecodeTurtle(f *testing.F)   { fuzzDecode(f, rdfio.Turtle) }

func FuzzParseTerm(f *testing.F) {
	for _, s := range []string{"<http://ex.org/a>", "_:b", `"x"@en`, `"1"^^<http://ex.org/t>`, `"1"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString>`, "<http://e/a\x7fb>", `<http://e/a\u007Fb>`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := rdfio.ParseTerm(s)
		if err != nil {
			return
		}
		back, err := rdfio.ParseTerm(rdfio.FormatTerm(v))
		if err != nil {
			t.Fatalf("FormatTerm(%#v) = %s does not parse: %v", v, rdfio.FormatTerm(v), err)
		}
		if _, ok := v.(quad.BNode); !ok && back != v {
			t.Fatalf("term %#v came back as %#v", v, back)
		}
	})
}

// FuzzFormattedBlankLabel: ParseFormattedTerm reads back every blank node
// FormatTerm writes (a label of valid UTF-8), hex-encoded or not.
func FuzzFormattedBlankLabel(f *testing.F) {
	for _, s := range []string{"b1", "x1", "x", "xyz", "b 1", "-a", "é", "x7831", "a.b", "_", "\xff", "x41"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, label string) {
		if label == "" || !utf8.ValidString(label) {
			return
		}
		text := rdfio.FormatTerm(quad.BNode(label))
		back, err := rdfio.ParseFormattedTerm(text)
		if err != nil || back != quad.BNode(label) {
			t.Fatalf("ParseFormattedTerm(%s) = %#v, %v; want the blank node %q", text, back, err, label)
		}
	})
}

// FuzzFormatTermControls: FormatTerm writes no control character raw,
// whatever the term holds (a language tag that is none included), so that
// the messages that quote a term (QuadError) stay one safe line.
func FuzzFormatTermControls(f *testing.F) {
	for _, s := range []string{"en", "en\ncortexctl: forged", "\x1b[31m", "a b", "\xff", "é", ""} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, value, lang string) {
		for _, v := range []quad.Value{quad.LangString{Value: quad.String(value), Lang: lang}, quad.String(value),
			quad.IRI(value), quad.BNode(value), quad.TypedString{Value: quad.String(value), Type: quad.IRI(lang)}} {
			s := rdfio.FormatTerm(v)
			if i := strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 {
				t.Fatalf("FormatTerm(%#v) = %q holds control character %q", v, s, s[i])
			}
		}
	})
}
