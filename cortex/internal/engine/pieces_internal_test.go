package engine

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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

// pieceCount returns the transactions (chunked writer) or accumulated
// pieces (segment mode) an import wrote.
func pieceCount(n *Namespace, segments bool, res ImportResult) int64 {
	if segments {
		return n.s.counters.accumulated.Load()
	}
	return int64(res.Chunks)
}

// ordinaryQuads returns n quads, each of a new subject and a new literal
// over one predicate (about 11 Badger entries and 500 bytes each).
func ordinaryQuads(tag string, n int) []quad.Quad {
	var qs []quad.Quad
	for i := range n {
		qs = append(qs, quad.Quad{
			Subject:   quad.IRI(fmt.Sprintf("http://e/%s/s%d", tag, i)),
			Predicate: quad.IRI("http://e/p"),
			Object:    quad.String(fmt.Sprintf("%s o%d", tag, i)),
		})
	}
	return qs
}

// TestImport_OutlierChunkDoesNotCutLaterChunks: one chunk holding three
// quads with literals of 900 kB (below Badger's 1 MiB value threshold, so
// they count whole in a transaction of at most ~2.5 MB with the default
// 16 MiB memtables) is halved down to pieces of two quads; the later chunks
// of ordinary quads, which fit whole in one transaction, are not cut to
// that size (noteFit estimates the fit from each piece written).
func TestImport_OutlierChunkDoesNotCutLaterChunks(t *testing.T) {
	t.Parallel()
	const chunk, chunks = 1024, 4
	big := strings.Repeat("x", 900_000)
	var qs []quad.Quad
	for i := range 3 {
		qs = append(qs, quad.Quad{Subject: quad.IRI("http://e/big"), Predicate: quad.IRI("http://e/text"), Object: quad.String(fmt.Sprintf("%d %s", i, big))})
	}
	qs = append(qs, ordinaryQuads("a", chunk*chunks-3)...)
	for _, segments := range []bool{true, false} {
		t.Run(fmt.Sprintf("segments=%v", segments), func(t *testing.T) {
			t.Parallel()
			n := bulkTestNS(t, chunk, func(o *Options) { o.hooks.noSegments = !segments })
			res, err := n.Import(context.Background(), &sliceSource{qs: qs}, ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Committed != int64(len(qs)) {
				t.Fatalf("committed %d of %d", res.Committed, len(qs))
			}
			checkSegmentContents(t, n, distinct(qs))
			// The outlier chunk: ~2*log2(1024) pieces; each later chunk
			// (1,024 quads, ~11,000 entries) fits whole.
			got := pieceCount(n, segments, res)
			if got > 2*10+chunks {
				t.Errorf("%d pieces for %d chunks (st.fitQuads cut every chunk after the outlier), want at most %d", got, chunks, 2*10+chunks)
			}
		})
	}
}

// TestStream_FlushEmptiesLevelZero: with level 0 compacted only at 10
// tables, tables wait on level 0 between writes; flushMemtables (Badger's
// DropPrefix) still compacts them all away before a stream, so that Badger
// does not flatten the tree (it pays their compaction holding the store's
// gate instead; store.go).
func TestStream_FlushEmptiesLevelZero(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := bulkTestNS(t, 64, withBadger(func(o badger.Options) badger.Options {
		o.MemTableSize = 1 << 20
		o.ValueThreshold = 1 << 10
		return o
	}))
	if o := n.s.db.Opts(); o.NumLevelZeroTables != 10 {
		t.Fatalf("level 0 compacted at %d tables", o.NumLevelZeroTables)
	}
	l0 := func() int {
		for _, l := range n.s.db.Levels() {
			if l.Level == 0 {
				return l.NumTables
			}
		}
		return 0
	}
	for i := 0; l0() < 3; i++ {
		if i == 2000 {
			t.Fatalf("level 0 holds %d tables after %d deltas", l0(), i)
		}
		var add []quad.Quad
		for k := range 50 {
			add = append(add, quad.Quad{Subject: quad.IRI(fmt.Sprintf("http://e/d%d", i)), Predicate: quad.IRI("http://e/p"),
				Object: quad.String(fmt.Sprintf("value %d of delta %d, padded to make the memtable fill sooner", k, i))})
		}
		if err := n.Apply(ctx, Delta{Add: add}); err != nil {
			t.Fatal(err)
		}
	}
	before := l0()
	if err := n.s.gate.exclusive(ctx); err != nil {
		t.Fatal(err)
	}
	err := n.s.flushMemtables()
	n.s.gate.release()
	if err != nil {
		t.Fatal(err)
	}
	if after := l0(); after != 0 {
		t.Fatalf("level 0: %d tables before the flush, %d after", before, after)
	}
	t.Logf("level 0: %d tables before the flush, 0 after", before)
}

// TestDropGraph_BatchesFitOneTransaction: DropGraph removes quads of
// distinct literals (each removal deletes the quad's four index keys, marks
// its log entry and frees its literal: ~8 entries) in batches that are one
// transaction each with the default 16 MiB memtables and with 64 MiB ones,
// so none is journaled: beside an open reader (a journaled batch would wait
// for it, then fail with ErrBusy) every quad is removed.
func TestDropGraph_BatchesFitOneTransaction(t *testing.T) {
	t.Parallel()
	g := quad.IRI("http://e/g")
	var qs []quad.Quad
	for i := range MaxDeltaQuads {
		qs = append(qs, quad.Quad{Subject: quad.IRI(fmt.Sprintf("http://e/s%d", i%64)), Predicate: quad.IRI("http://e/p"), Object: quad.String(fmt.Sprintf("value %d", i)), Label: g})
	}
	for _, memtable := range []int64{0, 64 << 20} {
		t.Run(fmt.Sprintf("memtable=%d", memtable>>20), func(t *testing.T) {
			t.Parallel()
			var journaled atomic.Int32
			o := DefaultOptions().WithSyncWrites(false).WithTuning(Tuning{JournalGateWait: 200 * time.Millisecond})
			o.hooks.badger = func(b badger.Options) badger.Options {
				if memtable != 0 {
					b.MemTableSize = memtable
				}
				return b
			}
			o.hooks.journal = func(stage string) {
				if stage == "written" {
					journaled.Add(1)
				}
			}
			n := testNamespace(t, o)
			if _, err := n.Import(context.Background(), &sliceSource{qs: qs}, ImportOptions{}); err != nil {
				t.Fatal(err)
			}
			other, err := n.s.Namespace(context.Background(), "other")
			if err != nil {
				t.Fatal(err)
			}
			snap, err := other.openSnapshot(context.Background()) // a reader of another namespace
			if err != nil {
				t.Fatal(err)
			}
			defer snap.close()
			removed, err := n.DropGraph(context.Background(), g)
			if err != nil || removed != int64(len(qs)) || journaled.Load() != 0 {
				t.Fatalf("drop graph beside an open reader: %d removed, %v (journaled %d)", removed, err, journaled.Load())
			}
		})
	}
}

// TestStore_ReserveCoversLevelZeroCompaction: spaceReserve keeps room for
// the memtable log, a flush of every memtable and a compaction of level 0,
// which holds up to NumLevelZeroTables tables (each up to a memtable)
// before a compaction rewrites them all (and flushMemtables compacts all of
// them before a stream). A review measured a chunked import of 400,000
// quads at the default budget leaving 11 level-0 tables, 59 MB.
func TestStore_ReserveCoversLevelZeroCompaction(t *testing.T) {
	t.Parallel()
	s := testStore(t, t.TempDir(), DefaultOptions().WithSyncWrites(false))
	o := s.db.Opts()
	mt := o.MemTableSize
	need := mt + int64(o.NumMemtables)*mt + int64(o.NumLevelZeroTables)*mt
	if s.reserve < need {
		t.Errorf("reserve %d MiB; the memtable log, a flush of %d memtables and a compaction of %d level-0 tables of up to %d MiB need %d MiB",
			s.reserve>>20, o.NumMemtables, o.NumLevelZeroTables, mt>>20, need>>20)
	}
}
