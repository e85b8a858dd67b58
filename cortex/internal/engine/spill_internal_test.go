package engine

import (
	"github.com/cortexgraph/cortex/cortex/internal/sorted"

	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/dgraph-io/badger/v4"
)

// spillTuning makes segments spill to run files once they hold spill bytes
// in memory and end after maxQuads quads.
func spillTuning(spill int64, maxQuads int) func(*Options) {
	return func(o *Options) { o.hooks.spillBytes, o.tuning.SegmentMaxQuads = spill, maxQuads }
}

func runFilesIn(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, sorted.RunPattern))
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// A segment larger than its memory budget spills sorted runs and is
// written from their merge: with duplicates inside and across runs, into an
// empty namespace and into one whose nodes' reference counts the runs
// overwrite several times (the newest run must win), and with segments cut
// by the quad bound.
func TestSegments_Spilled(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		pre      bool
		maxQuads int
	}{
		{"fresh", false, 1 << 30},
		{"non-empty", true, 1 << 30},
		{"several-segments", true, 150},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			n := bulkTestNS(t, 7, segmentTuning(1<<62, 0), spillTuning(24<<10, tc.maxQuads))
			want := map[quad.Quad]bool{}
			var qs []quad.Quad
			if tc.pre {
				old := bulkMixed(200, 1)
				if err := n.Apply(ctx, Delta{Add: old}); err != nil {
					t.Fatal(err)
				}
				if err := n.Apply(ctx, Delta{Remove: old[:50]}); err != nil {
					t.Fatal(err)
				}
				want = distinct(old[50:])
				qs = append(qs, old[40:80]...)
			}
			qs = append(qs, bulkMixed(400, 0)...)
			qs = append(qs, bulkMixed(400, 0)...)
			qs = append(qs, bulkMixed(300, 2)...)
			for q := range distinct(qs) {
				want[q] = true
			}
			spilled, streamed := n.s.counters.spilled.Load(), n.s.counters.streamed.Load()
			res, err := n.Import(ctx, &sliceSource{qs: qs}, ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Read != int64(len(qs)) || res.Committed != int64(len(qs)) {
				t.Fatalf("result %+v, want %d read and committed", res, len(qs))
			}
			runs, segs := n.s.counters.spilled.Load()-spilled, n.s.counters.streamed.Load()-streamed
			if runs < 3 {
				t.Fatalf("%d runs spilled, want several", runs)
			}
			if tc.maxQuads < len(qs) && segs < 2 {
				t.Fatalf("%d segments streamed, want several", segs)
			} else if tc.maxQuads >= len(qs) && segs != 1 {
				t.Fatalf("%d segments streamed, want 1", segs)
			}
			checkSegmentContents(t, n, want)
			if left := runFilesIn(t, n.s.dir); len(left) > 0 {
				t.Fatalf("run files left: %v", left)
			}
			// Again: nothing changes.
			if _, err := n.Import(ctx, &sliceSource{qs: qs}, ImportOptions{}); err != nil {
				t.Fatal(err)
			}
			checkSegmentContents(t, n, want)
		})
	}
}

// A spilled segment cannot be committed chunk by chunk: when the store's
// transactions do not end, the import fails with ErrBusy, and writes
// nothing of the segment.
func TestSegments_SpilledBusy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := bulkTestNS(t, 7, segmentTuning(1<<62, 0), spillTuning(24<<10, 1<<30), tuned(func(t *Tuning) { t.JournalGateWait = 100 * time.Millisecond }))
	_, end, err := n.view.NewTxn(context.Background(), false) // an open read transaction
	if err != nil {
		t.Fatal(err)
	}
	_, err = n.Import(ctx, &sliceSource{qs: bulkMixed(600, 0)}, ImportOptions{})
	end()
	var ie *ImportError
	if !errors.Is(err, ErrBusy) || !errors.As(err, &ie) || ie.Committed != 0 {
		t.Fatalf("got %v, want ErrBusy with nothing committed", err)
	}
	checkSegmentContents(t, n, map[quad.Quad]bool{})
	if left := runFilesIn(t, n.s.dir); len(left) > 0 {
		t.Fatalf("run files left: %v", left)
	}
}

// Open removes run files a crash left behind.
func TestOpen_RemovesStaleRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := Open(context.Background(), dir, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, "cortex-import-123.run")
	if err := os.WriteFile(stale, []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	testStore(t, dir, DefaultOptions())
	if left := runFilesIn(t, dir); len(left) > 0 {
		t.Fatalf("run files left: %v", left)
	}
}

// A segment whose last chunk spilled (nothing left in memory) is written:
// at the end of the source, and when a stalled source ends it in the middle
// of an import (the next segment builds on it).
func TestSegments_SpilledLastChunk(t *testing.T) {
	t.Parallel()
	for _, stall := range []bool{false, true} {
		t.Run(fmt.Sprint("stall=", stall), func(t *testing.T) {
			ctx := context.Background()
			n := bulkTestNS(t, 7, segmentTuning(1<<62, 0), spillTuning(1, 1<<30))
			qs := bulkMixed(300, 0)
			src := &sliceSource{qs: qs}
			streamed := n.s.counters.streamed.Load()
			if stall {
				// The source stalls until the import has written what it
				// read (the first segment streamed), which it does once
				// the stall has lasted Tuning.SegmentStall (the bound
				// below only keeps a broken build from hanging).
				src.at = func(i int) {
					if i == 150 {
						for end := time.Now().Add(2 * time.Minute); n.s.counters.streamed.Load() == streamed && time.Now().Before(end); {
							time.Sleep(10 * time.Millisecond)
						}
					}
				}
			}
			res, err := n.Import(ctx, src, ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Committed != int64(len(qs)) {
				t.Fatalf("result %+v, want %d committed", res, len(qs))
			}
			if stall && n.s.counters.streamed.Load()-streamed < 2 {
				t.Fatal("the stall did not end a segment")
			}
			checkSegmentContents(t, n, distinct(qs))
		})
	}
}

// Segments end when they have Tuning.SegmentMaxRuns run files.
func TestSegments_SpilledMaxRuns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := bulkTestNS(t, 7, segmentTuning(1<<62, 0), spillTuning(1, 1<<30), tuned(func(t *Tuning) { t.SegmentMaxRuns = 4 }))
	qs := append(bulkMixed(400, 0), bulkMixed(400, 3)...)
	streamed := n.s.counters.streamed.Load()
	if _, err := n.Import(ctx, &sliceSource{qs: qs}, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	// 800 quads in chunks of 7, at most 5 chunks (4 runs and one in memory)
	// per segment.
	if got := n.s.counters.streamed.Load() - streamed; got < 800/7/5 {
		t.Fatalf("%d segments streamed, want at least %d", got, 800/7/5)
	}
	checkSegmentContents(t, n, distinct(qs))
}

// Two spilling imports into two namespaces of one store at once: each
// segment reads through short transactions, so neither keeps the other's
// stream from taking the store, and neither fails with ErrBusy.
func TestSegments_SpilledConcurrentImports(t *testing.T) {
	ctx := context.Background()
	a := bulkTestNS(t, 7, segmentTuning(1<<62, 0), spillTuning(24<<10, 1<<30), tuned(func(t *Tuning) { t.JournalGateWait = 300 * time.Millisecond }))
	b, err := a.s.Namespace(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	// a's source takes ~3 s, far longer than the gate wait.
	slowQs := bulkMixed(300, 3)
	slow := &sliceSource{qs: slowQs, at: func(int) { time.Sleep(10 * time.Millisecond) }}
	done := make(chan error, 1)
	go func() {
		_, err := a.Import(ctx, slow, ImportOptions{})
		done <- err
	}()
	time.Sleep(100 * time.Millisecond) // a's segment is open
	qs := bulkMixed(600, 0)
	spilled := a.s.counters.spilled.Load()
	if _, err := b.Import(ctx, &sliceSource{qs: qs}, ImportOptions{}); err != nil {
		t.Fatalf("import into b while a imports: %v", err)
	}
	if a.s.counters.spilled.Load() == spilled {
		t.Fatal("nothing spilled")
	}
	select {
	case err := <-done:
		t.Fatalf("a's import ended (%v) before b's: the test did not overlap them", err)
	default:
	}
	if err := <-done; err != nil {
		t.Fatalf("import into a: %v", err)
	}
	checkSegmentContents(t, b, distinct(qs))
	checkSegmentContents(t, a, distinct(slowQs))
}

// TestSegments_SpilledIntoLevelZeroTables imports into a namespace whose LSM
// tree is larger than the segment and has level-0 tables (small memtables
// make them cheaply), with the default flatten check: the segment is not
// ended early because of them (it spills and is streamed whole), the flush
// before the stream leaves level 0 empty (no flatten), and the old and new
// quads are all there, exactly once; a re-import changes nothing.
func TestSegments_SpilledIntoLevelZeroTables(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := bulkTestNS(t, 7, segmentTuning(1<<62, 0), spillTuning(24<<10, 1<<30), withBadger(func(o badger.Options) badger.Options {
		o.MemTableSize = 1 << 20
		o.ValueThreshold = 1 << 10 // below Badger's batch limit for this memtable
		o.NumLevelZeroTables = 8
		o.NumLevelZeroTablesStall = 16
		return o
	}), tuned(func(t *Tuning) { t.StreamFlattenRatio = 1 })) // the default flatten check
	first := bulkMixed(1500, 1)
	if _, err := n.Import(ctx, &sliceSource{qs: first}, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	want := distinct(first)
	l0 := func() int {
		for _, l := range n.s.db.Levels() {
			if l.Level == 0 {
				return l.NumTables
			}
		}
		return 0
	}
	// Small deltas until the memtable has been flushed to level 0 twice.
	for i := 0; l0() < 2; i++ {
		if i == 400 {
			t.Fatalf("no level-0 tables after %d deltas", i)
		}
		var add []quad.Quad
		for k := range 100 {
			add = append(add, quad.Quad{
				Subject: quad.IRI(fmt.Sprintf("http://e/d%d", i)), Predicate: quad.IRI("http://e/p"),
				Object: quad.String(fmt.Sprintf("value %d of delta %d, padded to make the memtable fill sooner", k, i)),
			})
		}
		if err := n.Apply(ctx, Delta{Add: add}); err != nil {
			t.Fatal(err)
		}
		for q := range distinct(add) {
			want[q] = true
		}
	}
	if k := l0(); k < 2 {
		t.Fatalf("%d level-0 tables before the import", k)
	}
	if n.s.cheapToStream(64 << 10) {
		t.Fatal("the tree is not larger than the segment")
	}
	qs := append(bulkMixed(800, 3), first[:300]...)
	for q := range distinct(qs) {
		want[q] = true
	}
	spilled, streamed := n.s.counters.spilled.Load(), n.s.counters.streamed.Load()
	prepared := -1
	n.s.opts.hooks.stream = func(stage string) { // nothing runs on the store now
		if stage == "prepared" {
			prepared = l0()
		}
	}
	if _, err := n.Import(ctx, &sliceSource{qs: qs}, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	n.s.opts.hooks.stream = nil
	if prepared != 0 {
		// The flush before the stream compacts level 0 away, so Badger
		// does not flatten the tree (stream.go).
		t.Fatalf("%d level-0 tables when the stream writer was prepared", prepared)
	}
	if runs, segs := n.s.counters.spilled.Load()-spilled, n.s.counters.streamed.Load()-streamed; runs < 2 || segs != 1 {
		t.Fatalf("%d runs in %d streamed segments, want several runs in one", runs, segs)
	}
	checkSegmentContents(t, n, want)
	if _, err := n.Import(ctx, &sliceSource{qs: qs}, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	checkSegmentContents(t, n, want)
}

// withSpillHook runs hook at the start of each spill (see testHooks.spill).
func withSpillHook(hook func(detached int64) error) func(*Options) {
	return func(o *Options) { o.hooks.spill = hook }
}

// withBadger adjusts the Badger options of the store.
func withBadger(fn func(badger.Options) badger.Options) func(*Options) {
	return func(o *Options) { o.hooks.badger = fn }
}

// A spill runs on its own goroutine: the import goes on adding chunks to the
// segment while a run is being written, and the result is exact.
func TestSegments_SpillOverlapsFill(t *testing.T) {
	t.Parallel()
	var overlapped atomic.Int64
	var n *Namespace // set before the import starts
	spillHook := withSpillHook(func(detached int64) error {
		// Hold the spill until the segment has taken another chunk since
		// the spill was detached (maybe already: this goroutine can start
		// late, after the fill has taken a chunk and waits for the spill).
		deadline := time.Now().Add(5 * time.Second)
		for n.s.counters.accumulated.Load() == detached && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if n.s.counters.accumulated.Load() > detached {
			overlapped.Add(1)
		}
		return nil
	})
	ctx := context.Background()
	n = bulkTestNS(t, 7, segmentTuning(1<<62, 0), spillTuning(24<<10, 1<<30), spillHook)
	qs := append(bulkMixed(400, 0), bulkMixed(400, 3)...)
	spilled := n.s.counters.spilled.Load()
	res, err := n.Import(ctx, &sliceSource{qs: qs}, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Committed != int64(len(qs)) {
		t.Fatalf("result %+v, want %d committed", res, len(qs))
	}
	runs := n.s.counters.spilled.Load() - spilled
	if runs < 3 {
		t.Fatalf("%d runs spilled, want several", runs)
	}
	// Every spill but the last (which may have been followed by no chunk)
	// saw the segment take a chunk while it ran.
	if o := overlapped.Load(); o < runs-1 {
		t.Fatalf("%d of %d spills overlapped the fill", o, runs)
	}
	checkSegmentContents(t, n, distinct(qs))
	if left := runFilesIn(t, n.s.dir); len(left) > 0 {
		t.Fatalf("run files left: %v", left)
	}
}

// A spill that fails fails the import: nothing of the segment is written,
// no run file is left, and the namespace takes the next import.
func TestSegments_SpillFails(t *testing.T) {
	t.Parallel()
	errSpill := errors.New("disk full (injected)")
	var calls atomic.Int64
	ctx := context.Background()
	n := bulkTestNS(t, 7, segmentTuning(1<<62, 0), spillTuning(24<<10, 1<<30), withSpillHook(func(int64) error {
		if calls.Add(1) == 2 {
			return errSpill
		}
		return nil
	}))
	qs := bulkMixed(600, 0)
	_, err := n.Import(ctx, &sliceSource{qs: qs}, ImportOptions{})
	var ie *ImportError
	if !errors.Is(err, errSpill) || !errors.As(err, &ie) || ie.Committed != 0 {
		t.Fatalf("got %v, want the spill's error with nothing committed", err)
	}
	if calls.Load() < 2 {
		t.Fatalf("%d spills, want the failing second one", calls.Load())
	}
	checkSegmentContents(t, n, map[quad.Quad]bool{})
	if left := runFilesIn(t, n.s.dir); len(left) > 0 {
		t.Fatalf("run files left: %v", left)
	}
	n.s.opts.hooks.spill = nil // nothing runs on the store now
	if _, err := n.Import(ctx, &sliceSource{qs: qs}, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	checkSegmentContents(t, n, distinct(qs))
}

// TestStore_BadgerSizes pins how Open sizes Badger from the memory budget
// (sizeBadger; the figures behind them are in docs/PERFORMANCE.md, "Session
// 22"): 16 MiB memtables, one per 512 MiB of budget, 2 to 5; a block cache
// of budget/128, at least 4 MiB; level 0 compacted at 10 tables; levels
// sized from one table.
func TestStore_BadgerSizes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		budget          int64
		memtables       int
		blockCacheBytes int64
	}{
		{DefaultMemoryBudget, 2, 8 << 20},
		{256 << 20, 2, 4 << 20},
		{1536 << 20, 3, 12 << 20},
		{8 << 30, 5, 64 << 20},
	} {
		s := testStore(t, t.TempDir(), DefaultOptions().WithSyncWrites(false).WithMemoryBudget(c.budget))
		o := s.db.Opts()
		if o.MemTableSize != 16<<20 || o.NumMemtables != c.memtables || o.BlockCacheSize != c.blockCacheBytes {
			t.Errorf("budget %d MiB: memtables %d of %d MiB, block cache %d MiB; want %d of 16 MiB, %d MiB",
				c.budget>>20, o.NumMemtables, o.MemTableSize>>20, o.BlockCacheSize>>20, c.memtables, c.blockCacheBytes>>20)
		}
		if o.NumLevelZeroTables != 10 || o.NumLevelZeroTablesStall != 20 || o.BaseLevelSize != o.BaseTableSize {
			t.Errorf("budget %d MiB: level 0 compacted at %d tables (stall %d), base level %d bytes (tables %d)",
				c.budget>>20, o.NumLevelZeroTables, o.NumLevelZeroTablesStall, o.BaseLevelSize, o.BaseTableSize)
		}
	}
}
