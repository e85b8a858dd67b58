package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/dgraph-io/badger/v4"
)

// TestImport_CutsChunksToFit imports chunks far larger than one Badger
// transaction holds (a 1 MiB memtable: ~1,600 entries) on both write paths:
// the first chunk is halved until its pieces fit, and every later chunk is
// cut to that size before it is prepared, so the refusals do not grow with
// the number of chunks (each chunk was refused and prepared again at least
// once before). Every quad is there once.
func TestImport_CutsChunksToFit(t *testing.T) {
	t.Parallel()
	const chunk, chunks = 2048, 8
	var qs []quad.Quad
	for i := range chunk * chunks {
		qs = append(qs, quad.Quad{
			Subject:   quad.IRI(fmt.Sprintf("http://e/s%d", i)),
			Predicate: quad.IRI(fmt.Sprintf("http://e/p%d", i%5)),
			Object:    quad.String(fmt.Sprintf("o%d", i)),
		})
	}
	for _, segments := range []bool{true, false} {
		t.Run(fmt.Sprintf("segments=%v", segments), func(t *testing.T) {
			t.Parallel()
			n := bulkTestNS(t, chunk, withBadger(func(o badger.Options) badger.Options {
				o.MemTableSize = 1 << 20
				o.ValueThreshold = 1 << 10 // below Badger's batch limit for this memtable
				return o
			}), func(o *Options) { o.hooks.noSegments = !segments })
			res, err := n.Import(context.Background(), &sliceSource{qs: qs}, ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Committed != int64(len(qs)) {
				t.Fatalf("committed %d of %d quads", res.Committed, len(qs))
			}
			// Halving 2,048 quads to a piece that fits refuses at most
			// log2(2048) = 11 pieces, all in the first chunk.
			if refused := n.s.counters.tooBig.Load(); refused == 0 || refused > 11 {
				t.Fatalf("%d pieces refused over %d chunks, want 1 to 11, all in the first", refused, chunks)
			}
			checkSegmentContents(t, n, distinct(qs))
		})
	}
}
