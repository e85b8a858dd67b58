package rdfio_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/cortex/rdfio/rdftest"
)

// delIRI is an IRI holding DEL (U+007F), which IRIREF allows raw and as UCHAR.
const delIRI = quad.IRI("http://ex.org/a\x7fb")

// TestDecode_IRIWithDEL checks that every decoder accepts DEL in an IRI,
// written raw or as any UCHAR spelling, in every position an IRI can take,
// and that the quads encode and decode back unchanged.
func TestDecode_IRIWithDEL(t *testing.T) {
	spellings := []struct{ name, body string }{
		{"raw", "a\x7fb"},
		{"uchar upper", `a\u007Fb`},
		{"uchar lower", `a\u007fb`},
		{"long uchar", `a\U0000007Fb`},
	}
	s, p, o := iri("s"), iri("p"), iri("o")
	positions := []struct {
		name    string
		formats []string
		src     func(del string) string // del is the bracketed IRI
		want    quad.Quad
	}{
		{"subject", []string{rdfio.NTriples, rdfio.NQuads, rdfio.Turtle},
			func(d string) string { return d + " <http://ex.org/p> <http://ex.org/o> .\n" },
			quad.Quad{Subject: delIRI, Predicate: p, Object: o}},
		{"predicate", []string{rdfio.NTriples, rdfio.NQuads, rdfio.Turtle},
			func(d string) string { return "<http://ex.org/s> " + d + " <http://ex.org/o> .\n" },
			quad.Quad{Subject: s, Predicate: delIRI, Object: o}},
		{"object", []string{rdfio.NTriples, rdfio.NQuads, rdfio.Turtle},
			func(d string) string { return "<http://ex.org/s> <http://ex.org/p> " + d + " .\n" },
			quad.Quad{Subject: s, Predicate: p, Object: delIRI}},
		{"datatype", []string{rdfio.NTriples, rdfio.NQuads, rdfio.Turtle},
			func(d string) string { return "<http://ex.org/s> <http://ex.org/p> \"1\"^^" + d + " .\n" },
			quad.Quad{Subject: s, Predicate: p, Object: quad.TypedString{Value: "1", Type: delIRI}}},
		{"graph", []string{rdfio.NQuads},
			func(d string) string { return "<http://ex.org/s> <http://ex.org/p> <http://ex.org/o> " + d + " .\n" },
			quad.Quad{Subject: s, Predicate: p, Object: o, Label: delIRI}},
		{"prefix namespace", []string{rdfio.Turtle},
			func(d string) string {
				return "@prefix d: " + strings.TrimSuffix(d, ">") + "/> .\nd:x <http://ex.org/p> <http://ex.org/o> .\n"
			},
			quad.Quad{Subject: delIRI + "/x", Predicate: p, Object: o}},
		{"base", []string{rdfio.Turtle},
			func(d string) string {
				return "@base " + strings.TrimSuffix(d, ">") + "/> .\n<x> <http://ex.org/p> <http://ex.org/o> .\n"
			},
			quad.Quad{Subject: delIRI + "/x", Predicate: p, Object: o}},
	}
	for _, pos := range positions {
		for _, f := range pos.formats {
			for _, sp := range spellings {
				t.Run(f+"/"+pos.name+"/"+sp.name, func(t *testing.T) {
					src := pos.src("<http://ex.org/" + sp.body + ">")
					got := mustRead(t, f, src, rdfio.DecodeOptions{})
					if len(got) != 1 || got[0] != pos.want {
						t.Fatalf("got %#v, want %#v", got, pos.want)
					}
					out := encode(t, f, rdfio.EncodeOptions{}, got)
					if bytes.IndexByte(out, 0x7f) >= 0 || !bytes.Contains(out, []byte(`a\u007Fb`)) {
						t.Errorf("DEL not written as \\u007F:\n%s", out)
					}
					back := mustRead(t, f, string(out), rdfio.DecodeOptions{})
					if !rdftest.Isomorphic(got, back) {
						t.Errorf("round trip not isomorphic:\n%s", out)
					}
				})
			}
		}
	}
}

// TestDecode_IRIRejectsEscapedExcluded checks the other side of the rule:
// a UCHAR must not produce a character IRIREF excludes, in any format.
func TestDecode_IRIRejectsEscapedExcluded(t *testing.T) {
	escapes := []string{`\u0000`, `\u001F`, `\u0020`, `\u003C`, `\u003E`, `\u0022`,
		`\u007B`, `\u007D`, `\u007C`, `\u005E`, `\u0060`, `\u005C`, `\U00000020`}
	for _, f := range []string{rdfio.NTriples, rdfio.NQuads, rdfio.Turtle} {
		for _, e := range escapes {
			t.Run(f+"/"+e, func(t *testing.T) {
				src := "<http://ex.org/s> <http://ex.org/p> <http://ex.org/a" + e + "b> .\n"
				err := readErr(t, f, src, rdfio.DecodeOptions{})
				var se *rdfio.SyntaxError
				if !errors.Is(err, rdfio.ErrSyntax) || !errors.As(err, &se) {
					t.Errorf("err = %v, want a *SyntaxError", err)
				}
			})
		}
	}
}

// TestEncode_IRIWithDEL checks the exact output for an IRI holding DEL, in
// every position and format, and that a Turtle prefix namespace may hold it.
func TestEncode_IRIWithDEL(t *testing.T) {
	q := quad.Quad{Subject: delIRI, Predicate: delIRI,
		Object: quad.TypedString{Value: "1", Type: delIRI}, Label: delIRI}
	const e = `<http://ex.org/a\u007Fb>`
	cases := []struct {
		format string
		opts   rdfio.EncodeOptions
		want   string
	}{
		{rdfio.NTriples, rdfio.EncodeOptions{}, e + " " + e + ` "1"^^` + e + " .\n"},
		{rdfio.NQuads, rdfio.EncodeOptions{}, e + " " + e + ` "1"^^` + e + " " + e + " .\n"},
		{rdfio.Turtle, rdfio.EncodeOptions{}, e + " " + e + ` "1"^^` + e + " .\n"},
	}
	for _, c := range cases {
		t.Run(c.format, func(t *testing.T) {
			if got := string(encode(t, c.format, c.opts, []quad.Quad{q})); got != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
	t.Run("turtle prefix namespace", func(t *testing.T) {
		in := []quad.Quad{{Subject: delIRI + "/x", Predicate: iri("p"), Object: delIRI + "/y"}}
		out := encode(t, rdfio.Turtle, rdfio.EncodeOptions{Prefixes: map[string]string{"d": string(delIRI) + "/"}}, in)
		if !bytes.Contains(out, []byte(`@prefix d: <http://ex.org/a\u007Fb/> .`)) || bytes.IndexByte(out, 0x7f) >= 0 {
			t.Errorf("prefix not written with \\u007F:\n%s", out)
		}
		if back := mustRead(t, rdfio.Turtle, string(out), rdfio.DecodeOptions{}); !rdftest.Isomorphic(in, back) {
			t.Errorf("round trip not isomorphic:\n%s", out)
		}
	})
}
