package engine

import (
	"context"
	"slices"
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
// the first batch came out with nil terms. (Found by a review.) The same
// holds for a journaled delta, which does not wait for the scan's open
// transaction (gate.holdNew): the scan reads its snapshot, older than all of
// the delta.
func TestEachQuad_DeltaInTheMiddle(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		tune      Tuning
		journaled int64
	}{
		{name: "one transaction"},
		// Journaled (more than MaxDeltaQuads), written transaction by
		// transaction: it holds new transactions back but does not wait
		// for the scan's, which is open in this very goroutine.
		{name: "journaled", tune: Tuning{MaxDeltaQuads: 100}, journaled: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			n := testNamespace(t, DefaultOptions().WithSyncWrites(false).WithTuning(tc.tune))
			qs := uniqueQuads(600, "s")
			for i := range qs {
				qs[i].Object = qs[i].Subject // every term used once: removing the quads frees them
			}
			for c := range slices.Chunk(qs, 100) {
				if err := n.Apply(ctx, Delta{Add: c}); err != nil {
					t.Fatal(err)
				}
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
			if got := n.WriteStats().Journaled; got != tc.journaled {
				t.Fatalf("%d deltas journaled, want %d", got, tc.journaled)
			}
		})
	}
}
