package merge_test

import (
	"errors"
	"math/rand"
	"slices"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/cortexgraph/cortex/merge"
)

func TestCompareTerms_Order(t *testing.T) {
	// Hand-written total order: kinds first, then lexical.
	want := []quad.Value{
		nil,
		quad.IRI("http://a"),
		quad.IRI("http://b"),
		quad.BNode("a"),
		quad.BNode("b"),
		quad.String(""),
		quad.String("a"),
		quad.String("b"),
		quad.LangString{Value: "a", Lang: "EN"},
		quad.LangString{Value: "a", Lang: "en"},
		quad.LangString{Value: "a", Lang: "fr"},
		quad.LangString{Value: "b", Lang: "de"},
		quad.TypedString{Value: "01", Type: "http://www.w3.org/2001/XMLSchema#integer"},
		quad.TypedString{Value: "1", Type: "http://www.w3.org/2001/XMLSchema#decimal"},
		quad.TypedString{Value: "1", Type: "http://www.w3.org/2001/XMLSchema#integer"},
		quad.Int(1), // other kinds last
	}
	rng := rand.New(rand.NewSource(1))
	for range 50 {
		got := slices.Clone(want)
		rng.Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
		slices.SortFunc(got, merge.CompareTerms)
		if !slices.Equal(got, want) {
			t.Fatalf("sorted:\n%v\nwant:\n%v", got, want)
		}
	}
	for i, a := range want {
		for j, b := range want {
			c := merge.CompareTerms(a, b)
			if (i < j) != (c < 0) || (i == j) != (c == 0) {
				t.Errorf("CompareTerms(%v, %v) = %d", a, b, c)
			}
		}
	}
}

func TestCompareTerms_Equal(t *testing.T) {
	cases := []struct {
		name string
		a, b quad.Value
		want int
	}{
		{"xsd:string is the plain string", quad.String("x"), quad.TypedString{Value: "x", Type: xsd + "string"}, 0},
		{"xsd:string sorts with plain strings", quad.TypedString{Value: "y", Type: xsd + "string"}, quad.String("x"), 1},
		{"lexical form is preserved", quad.TypedString{Value: "01", Type: xsd + "integer"}, quad.TypedString{Value: "1", Type: xsd + "integer"}, -1},
		{"language case differs", quad.LangString{Value: "x", Lang: "en"}, quad.LangString{Value: "x", Lang: "EN"}, 1},
		{"language compared case-insensitively first", quad.LangString{Value: "x", Lang: "EN"}, quad.LangString{Value: "x", Lang: "de"}, 1},
		{"nil equals nil", nil, nil, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := merge.CompareTerms(tc.a, tc.b); sign(got) != tc.want {
				t.Fatalf("CompareTerms = %d, want sign %d", got, tc.want)
			}
			if got := merge.CompareTerms(tc.b, tc.a); sign(got) != -tc.want {
				t.Fatalf("reversed CompareTerms = %d, want sign %d", got, -tc.want)
			}
		})
	}
}

func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}

func TestTopic_Compare(t *testing.T) {
	a := merge.Topic{Subject: ex("a"), Predicate: ex("z")}
	b := merge.Topic{Subject: ex("b"), Predicate: ex("a")}
	c := merge.Topic{Subject: ex("b"), Predicate: ex("b")}
	if a.Compare(b) >= 0 || b.Compare(c) >= 0 || c.Compare(a) <= 0 || b.Compare(b) != 0 {
		t.Fatal("topics not ordered by subject, then predicate")
	}
}

// CheckTriple accepts exactly the triples a merge accepts: each triple it
// refuses fails a merge, and each it accepts merges.
func TestCheckTriple_AgreesWithMerge(t *testing.T) {
	s, p := quad.IRI("http://ex/s"), quad.IRI("http://ex/p")
	cases := []struct {
		name    string
		s, p, o quad.Value
		ok      bool
	}{
		{"plain", s, p, quad.String("x"), true},
		{"typed", s, p, quad.TypedString{Value: "01", Type: "http://www.w3.org/2001/XMLSchema#integer"}, true},
		{"lang", s, p, quad.LangString{Value: "a", Lang: "EN"}, true},
		{"blank subject and object", quad.BNode("b"), p, quad.BNode("c"), true},
		{"langString without tag", s, p, quad.TypedString{Value: "x", Type: "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"}, false},
		{"bad lang tag", s, p, quad.LangString{Value: "x", Lang: "en-"}, false},
		{"blank label not UTF-8", quad.BNode("\xff"), p, quad.String("x"), false},
		{"literal subject", quad.String("s"), p, quad.String("x"), false},
		{"blank predicate", s, quad.BNode("p"), quad.String("x"), false},
		{"nil object", s, p, nil, false},
		{"other Go type", s, p, quad.Int(1), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := merge.CheckTriple(c.s, c.p, c.o)
			if (err == nil) != c.ok {
				t.Fatalf("CheckTriple = %v, want ok %v", err, c.ok)
			}
			if err != nil && !errors.Is(err, merge.ErrInvalidTerm) {
				t.Fatalf("CheckTriple = %v, want ErrInvalidTerm", err)
			}
			_, merr := merge.Merge(merge.NameAdditive, merge.Input{
				Members:  []merge.Member{{Agent: "a", Status: merge.Completed}},
				Findings: []merge.Finding{{ID: "f1", Agent: "a", Subject: c.s, Predicate: c.p, Object: c.o}},
			})
			if (merr == nil) != c.ok {
				t.Fatalf("Merge = %v, but CheckTriple = %v", merr, err)
			}
		})
	}
}
