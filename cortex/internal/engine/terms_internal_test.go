package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/cayleygraph/quad"
)

// TestQuadNormalizer: normalizing a sequence of quads with one
// quadNormalizer (which skips an IRI it just checked in the same position)
// gives, quad by quad, what NormalizeQuad gives: the same quad or an error
// (invalid IRIs right after valid ones, an IRI valid as an object and then
// used as a predicate, literals, blank nodes, nil graphs).
func TestQuadNormalizer(t *testing.T) {
	t.Parallel()
	terms := []quad.Value{
		quad.IRI("http://e/a"), quad.IRI("http://e/b"), quad.IRI("http://e/a b"), quad.IRI("http://e/<x>"),
		quad.IRI(""), quad.BNode("x"), quad.String("s"), quad.LangString{Value: "s"},
		quad.TypedString{Value: "1", Type: xsd + "integer"}, quad.Int(7), nil,
	}
	r := rand.New(rand.NewPCG(3, 4))
	pick := func() quad.Value {
		if r.IntN(3) == 0 {
			return terms[r.IntN(2)] // valid IRIs, repeated often
		}
		return terms[r.IntN(len(terms))]
	}
	var z quadNormalizer
	errs := 0
	for i := range 20000 {
		q := quad.Quad{Subject: pick(), Predicate: pick(), Object: pick(), Label: pick()}
		got, gerr := z.normalize(q)
		want, werr := NormalizeQuad(q)
		if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
			t.Fatalf("quad %d %v: error %v, want %v", i, q, gerr, werr)
		}
		if werr == nil && got != want {
			t.Fatalf("quad %d %v: %v, want %v", i, q, got, want)
		}
		if werr != nil {
			errs++
		}
	}
	if errs == 0 || errs == 20000 {
		t.Fatalf("%d of 20000 quads invalid; the test needs both kinds", errs)
	}
}
