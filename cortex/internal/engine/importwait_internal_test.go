package engine

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/cayleygraph/quad"
)

// TestImport_Chunked_NoTxnWhileSourceStalls: the chunked import path (an
// in-memory store, or a namespace whose indexes rule segments out) holds
// no Badger transaction while it waits for its source. The source stalls
// after its first chunk, once that chunk has committed, and while it
// stalls another writer of the store writes a streamed journaled delta,
// which needs every transaction of the store to end: it must go through
// at once, not wait for the stalled import (it used to wait for the read
// transaction the import had started for its next chunk, until its gate
// wait ran out: ErrBusy).
func TestImport_Chunked_NoTxnWhileSourceStalls(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const chunk = 8
	var streamed atomic.Int64
	n := bulkTestNS(t, chunk, func(o *Options) {
		o.hooks.noSegments = true
		o.hooks.stream = func(stage string) {
			if stage == "prepared" {
				streamed.Add(1)
			}
		}
		*o = WithStreamTuning(*o, 1<<20, 1) // every journaled delta streamed
		o.tuning.MaxDeltaQuads = 4          // and journaled from 5 quads on
	})
	other, err := n.s.Namespace(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	var delta []quad.Quad
	for i := range 20 {
		delta = append(delta, quad.Quad{Subject: quad.IRI(fmt.Sprintf("ex:o%d", i)), Predicate: quad.IRI("ex:p"), Object: quad.Int(i)})
	}
	committed := make(chan struct{}, 16)
	var applyErr error
	applied := false
	src := &sliceSource{qs: bulkMixed(3*chunk, 0)}
	src.at = func(i int) {
		if i != chunk || applied {
			return
		}
		// The source stalls here, after its first chunk: wait until that
		// chunk has committed, then write while stalled.
		<-committed
		applied = true
		applyErr = other.Apply(ctx, Delta{Add: delta})
	}
	res, err := n.Import(ctx, src, ImportOptions{Progress: func(int64) { committed <- struct{}{} }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Committed != 3*chunk {
		t.Fatalf("committed %d quads, want %d", res.Committed, 3*chunk)
	}
	if applyErr != nil {
		t.Fatalf("a journaled delta written while an import's source stalled: %v (ErrBusy: %v)", applyErr, errors.Is(applyErr, ErrBusy))
	}
	if streamed.Load() == 0 {
		t.Fatal("the delta was not streamed: the test tests nothing")
	}
	got, err := other.Size(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got != int64(len(delta)) {
		t.Fatalf("other namespace has %d quads, want %d", got, len(delta))
	}
	bulkCheckFormat(t, n)
	bulkCheckFormat(t, other)
}
