package engine

import (
	"context"
	"testing"

	"github.com/cayleygraph/quad"
)

// TestEachQuad_DeltaInTheMiddle: EachQuad (Quads, Export) reads the
// matching ids through one transaction and resolves them to terms in
// batches of 256 quads. A delta committed in the middle that frees terms
// (every quad's subject and object used once, then all removed) must not
// leave the later batches with ids whose terms are gone: the scan resolves
// them in its own snapshot, and yields every quad it found, whole. Before,
// each batch was resolved through a new transaction, and the quads after
// the first batch came out with nil terms. (Found by a review.)
func TestEachQuad_DeltaInTheMiddle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := testNamespace(t, DefaultOptions().WithSyncWrites(false))
	qs := uniqueQuads(600, "s")
	for i := range qs {
		qs[i].Object = qs[i].Subject // every term used once: removing the quads frees them
	}
	if err := n.Apply(ctx, Delta{Add: qs}); err != nil {
		t.Fatal(err)
	}
	var seen, nils int
	var applyErr error
	err := n.EachQuad(ctx, Pattern{Scope: AllGraphs}, func(q quad.Quad) error {
		if seen == 0 {
			applyErr = n.Apply(ctx, Delta{Remove: qs})
		}
		seen++
		if q.Subject == nil || q.Predicate == nil || q.Object == nil {
			nils++
		}
		return nil
	})
	if err != nil || applyErr != nil {
		t.Fatalf("EachQuad: %v; the delta in the middle: %v", err, applyErr)
	}
	if seen != len(qs) || nils > 0 {
		t.Fatalf("EachQuad yielded %d quads of %d, %d with nil terms", seen, len(qs), nils)
	}
	if size, err := n.Size(ctx); err != nil || size != 0 {
		t.Fatalf("size %d, %v after the delta; want 0", size, err)
	}
}
