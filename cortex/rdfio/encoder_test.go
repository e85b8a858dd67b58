package rdfio_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/cortex/rdfio/rdftest"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// oddQuads covers every term kind, with IRIs and literals that need escaping
// or defeat prefixed names.
func oddQuads() []quad.Quad {
	s := iri("s")
	p := iri("p")
	objects := []quad.Value{
		iri("o"),
		quad.IRI("http://ex.org/é/ü?q=1&r=(x)#frag"),
		quad.IRI("http://ex.org/'quote'~%20;a,b"),
		quad.IRI("urn:x:y"),
		quad.BNode("b1"),
		quad.BNode("with space"),
		quad.BNode("x123"),
		quad.BNode("é"),
		quad.String(""),
		quad.String(`say "hi"`),
		quad.String("line\nbreak\r\nend"),
		quad.String("tab\tback\\slash"),
		quad.String(`"""triple'''`),
		quad.String("ctl\x01\x7f"),
		quad.String("é😀"),
		quad.String("# not a comment"),
		quad.LangString{Value: "colour", Lang: "en-GB"},
		quad.TypedString{Value: "01", Type: xsd + "integer"},
		quad.TypedString{Value: "-.5", Type: xsd + "decimal"},
		quad.TypedString{Value: "true", Type: xsd + "boolean"},
		quad.TypedString{Value: "2024-01-02T03:04:05Z", Type: xsd + "dateTime"},
		quad.TypedString{Value: "x\"y", Type: "http://ex.org/dt#odd(1)"},
	}
	var qs []quad.Quad
	for _, o := range objects {
		qs = append(qs, quad.Quad{Subject: s, Predicate: p, Object: o})
	}
	qs = append(qs,
		quad.Quad{Subject: quad.BNode("b1"), Predicate: p, Object: quad.BNode("with space")},
		quad.Quad{Subject: quad.BNode("b1"), Predicate: iri("q"), Object: quad.String("g"), Label: iri("g")},
		quad.Quad{Subject: iri("x"), Predicate: p, Object: quad.String("g2"), Label: quad.BNode("gb")},
	)
	return qs
}

func dropGraphs(qs []quad.Quad) []quad.Quad {
	out := make([]quad.Quad, len(qs))
	for i, q := range qs {
		q.Label = nil
		out[i] = q
	}
	return out
}

func encode(t *testing.T, format string, opts rdfio.EncodeOptions, qs []quad.Quad) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := rdfio.WriteAll(&buf, format, opts, qs); err != nil {
		t.Fatalf("encode %s: %v", format, err)
	}
	return buf.Bytes()
}

var prefixes = map[string]string{"ex": "http://ex.org/", "xsd": xsd}

func TestEncode_RoundTrip(t *testing.T) {
	for _, f := range []string{rdfio.NTriples, rdfio.NQuads, rdfio.Turtle} {
		t.Run(f, func(t *testing.T) {
			in := oddQuads()
			want := in
			if f != rdfio.NQuads {
				want = dropGraphs(in)
			}
			for _, opts := range []rdfio.EncodeOptions{{}, {Prefixes: prefixes}} {
				out := encode(t, f, opts, in)
				got := mustRead(t, f, string(out), rdfio.DecodeOptions{})
				if !rdftest.Isomorphic(got, want) {
					t.Fatalf("round trip not isomorphic\noutput:\n%s", out)
				}
			}
		})
	}
}

func TestEncode_Golden(t *testing.T) {
	cases := []struct {
		name, format string
		opts         rdfio.EncodeOptions
	}{
		{"odd.nt", rdfio.NTriples, rdfio.EncodeOptions{}},
		{"odd.nq", rdfio.NQuads, rdfio.EncodeOptions{}},
		{"odd.ttl", rdfio.Turtle, rdfio.EncodeOptions{Prefixes: prefixes}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := encode(t, c.format, c.opts, oddQuads())
			path := filepath.Join("testdata", c.name+".golden")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from %s (run with -update if intended)\ngot:\n%s", path, got)
			}
		})
	}
}

func TestEncode_Errors(t *testing.T) {
	s, p := iri("s"), iri("p")
	cases := []struct {
		name string
		q    quad.Quad
		want error
	}{
		{"literal subject", quad.Quad{Subject: quad.String("x"), Predicate: p, Object: s}, rdfio.ErrInvalidQuad},
		{"blank predicate", quad.Quad{Subject: s, Predicate: quad.BNode("b"), Object: s}, rdfio.ErrInvalidQuad},
		{"literal graph", quad.Quad{Subject: s, Predicate: p, Object: s, Label: quad.String("g")}, rdfio.ErrInvalidQuad},
		{"nil object", quad.Quad{Subject: s, Predicate: p}, rdfio.ErrInvalidTerm},
		{"relative IRI", quad.Quad{Subject: quad.IRI("rel"), Predicate: p, Object: s}, rdfio.ErrInvalidTerm},
		{"space in IRI", quad.Quad{Subject: s, Predicate: p, Object: quad.IRI("http://ex.org/a b")}, rdfio.ErrInvalidTerm},
		{"invalid UTF-8", quad.Quad{Subject: s, Predicate: p, Object: quad.String("\xff")}, rdfio.ErrInvalidTerm},
		{"bad language tag", quad.Quad{Subject: s, Predicate: p, Object: quad.LangString{Value: "x", Lang: "en gb"}}, rdfio.ErrInvalidTerm},
		{"unsupported value type", quad.Quad{Subject: s, Predicate: p, Object: otherValue{}}, rdfio.ErrInvalidTerm},
		{"rdf:langString without a tag", quad.Quad{Subject: s, Predicate: p, Object: quad.TypedString{Value: "1", Type: rdf + "langString"}}, rdfio.ErrInvalidTerm},
	}
	for _, f := range []string{rdfio.NTriples, rdfio.NQuads, rdfio.Turtle} {
		for _, c := range cases {
			t.Run(f+"/"+c.name, func(t *testing.T) {
				var buf bytes.Buffer
				e, err := rdfio.NewEncoder(&buf, f, rdfio.EncodeOptions{})
				if err != nil {
					t.Fatal(err)
				}
				err = e.Encode(c.q)
				var qe *rdfio.QuadError
				if !errors.Is(err, c.want) || !errors.As(err, &qe) {
					t.Fatalf("err = %v, want QuadError wrapping %v", err, c.want)
				}
				// the encoder stays usable and wrote nothing for the bad quad
				if err := e.Encode(quad.Quad{Subject: s, Predicate: p, Object: s}); err != nil {
					t.Fatal(err)
				}
				if err := e.Close(); err != nil {
					t.Fatal(err)
				}
				if got := mustRead(t, f, buf.String(), rdfio.DecodeOptions{}); len(got) != 1 {
					t.Errorf("got %d quads back, want 1:\n%s", len(got), buf.String())
				}
				if err := e.Encode(quad.Quad{Subject: s, Predicate: p, Object: s}); !errors.Is(err, rdfio.ErrEncoderClosed) {
					t.Errorf("Encode after Close: %v", err)
				}
			})
		}
	}
}

func TestEncode_NativeValuesBecomeTypedLiterals(t *testing.T) {
	q := quad.Quad{Subject: iri("s"), Predicate: iri("p"), Object: quad.Int(42)}
	out := encode(t, rdfio.NTriples, rdfio.EncodeOptions{}, []quad.Quad{q})
	got := mustRead(t, rdfio.NTriples, string(out), rdfio.DecodeOptions{})
	want := quad.TypedString{Value: "42", Type: xsd + "integer"}
	if got[0].Object != want {
		t.Errorf("object = %#v, want %#v", got[0].Object, want)
	}
}

func TestEncode_TurtleGroupsSubjects(t *testing.T) {
	qs := []quad.Quad{
		{Subject: iri("s"), Predicate: iri("p"), Object: iri("a")},
		{Subject: iri("s"), Predicate: iri("p"), Object: iri("b")},
		{Subject: iri("s"), Predicate: iri("q"), Object: iri("c")},
		{Subject: iri("t"), Predicate: iri("q"), Object: iri("c")},
	}
	got := string(encode(t, rdfio.Turtle, rdfio.EncodeOptions{Prefixes: map[string]string{"": "http://ex.org/"}}, qs))
	want := "@prefix : <http://ex.org/> .\n\n:s :p :a ,\n\t\t:b ;\n\t:q :c .\n:t :q :c .\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestEncode_BadPrefixOption(t *testing.T) {
	for _, p := range []map[string]string{{"1x": "http://ex.org/"}, {"ex": "rel/"}} {
		if _, err := rdfio.NewEncoder(&bytes.Buffer{}, rdfio.Turtle, rdfio.EncodeOptions{Prefixes: p}); !errors.Is(err, rdfio.ErrInvalidOption) {
			t.Errorf("prefixes %v: err = %v, want ErrInvalidOption", p, err)
		}
	}
}

// otherValue is a quad.Value that is no RDF term.
type otherValue struct{}

func (otherValue) String() string      { return "other" }
func (otherValue) Native() interface{} { return nil }
