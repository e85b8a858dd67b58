package cortex_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
)

// skipShort skips a slow test that is not about concurrency under -short
// (the -race run); the README's test command runs it.
func skipShort(t *testing.T) {
	if testing.Short() {
		t.Skip("not a concurrency test; runs in the full test command (go test ./...)")
	}
}

// journalBase is the namespace content before the large delta: terms shared
// between quads (so node counts change) in the default and a named graph.
func journalBase() []quad.Quad {
	var out []quad.Quad
	for i := range 6000 {
		var g quad.Value
		if i%3 == 0 {
			g = iri("g1")
		}
		out = append(out, q("s"+strconv.Itoa(i%200), "p"+strconv.Itoa(i%7), quad.String("o"+strconv.Itoa(i)), g))
	}
	return out
}

// journalDelta removes 5,000 base quads (freeing terms: objects are unique)
// and adds 9,000 quads, with new and shared terms. It is 4 transactions.
func journalDelta() cortex.Delta {
	base := journalBase()
	var d cortex.Delta
	d.Remove = base[:5000]
	for i := range 9000 {
		d.Add = append(d.Add, q("s"+strconv.Itoa(i%300), "p"+strconv.Itoa(i%11), quad.String("n"+strconv.Itoa(i%4000)), iri("g"+strconv.Itoa(i%3))))
	}
	return d
}

// afterDelta is the content once journalDelta is applied to journalBase.
func afterDelta() []quad.Quad {
	d := journalDelta()
	set := map[quad.Quad]bool{}
	for _, q := range journalBase()[5000:] {
		set[q] = true
	}
	for _, q := range d.Add {
		set[q] = true
	}
	out := make([]quad.Quad, 0, len(set))
	for q := range set {
		out = append(out, q)
	}
	return out
}

func loadBase(t *testing.T, ns *cortex.Namespace) {
	t.Helper()
	if _, err := ns.Import(context.Background(), &cortextest.SliceSource{Quads: journalBase()}, cortex.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
}

func checkContent(t *testing.T, ns *cortex.Namespace, want []quad.Quad) {
	t.Helper()
	got := cortextest.AllQuads(t, ns)
	have, wantSet := map[string]bool{}, map[string]bool{}
	for _, q := range got {
		have[q.String()] = true
	}
	var missing, extra []string
	for _, q := range want {
		wantSet[q.String()] = true
		if !have[q.String()] {
			missing = append(missing, q.String())
		}
	}
	for k := range have {
		if !wantSet[k] {
			extra = append(extra, k)
		}
	}
	if len(missing)+len(extra) > 0 {
		t.Fatalf("%d quads, want %d: %d missing (e.g. %v), %d extra (e.g. %v)",
			len(got), len(want), len(missing), missing[:min(3, len(missing))], len(extra), extra[:min(3, len(extra))])
	}
	cortex.CheckFormat(t, ns)
	if n, err := ns.Size(context.Background()); err != nil || n != int64(len(want)) {
		t.Fatalf("size %d, %v; want %d", n, err, len(want))
	}
}

func TestApply_LargeDeltaIsAtomic(t *testing.T) {
	t.Parallel()
	skipShort(t)
	for _, mem := range []bool{false, true} {
		t.Run(fmt.Sprint("inMemory=", mem), func(t *testing.T) {
			var commits atomic.Int32
			opts := cortex.WithJournalHook(cortex.DefaultOptions(), func(string) { commits.Add(1) })
			if mem {
				opts = opts.WithInMemory(true)
			}
			s := cortextest.NewStore(t, opts)
			ns, err := s.Namespace(context.Background(), "default")
			if err != nil {
				t.Fatal(err)
			}
			loadBase(t, ns)
			commits.Store(0)
			if err := ns.Apply(context.Background(), journalDelta()); err != nil {
				t.Fatal(err)
			}
			if commits.Load() < 2 {
				t.Fatalf("the delta took %d transactions; the test needs several", commits.Load())
			}
			checkContent(t, ns, afterDelta())
			if !mem {
				if _, err := os.Stat(filepath.Join(s.Dir(), cortex.JournalFile)); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("journal left behind: %v", err)
				}
			}
			// Undo it with another large delta, through Update.
			d := journalDelta()
			err = ns.Update(context.Background(), func(tx *cortex.Tx) error {
				tx.Remove(d.Add...)
				tx.Add(d.Remove...)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			checkContent(t, ns, journalBase())
		})
	}
}

// TestApply_LargeDeltaRollsBackOnError cancels a large delta after some of
// its transactions have committed: nothing of it remains.
func TestApply_LargeDeltaRollsBackOnError(t *testing.T) {
	t.Parallel()
	skipShort(t)
	for _, after := range []int32{1, 3} {
		t.Run(fmt.Sprint("after=", after), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var commits atomic.Int32
			var armed atomic.Bool // set once the base is loaded
			s := cortextest.NewStore(t, cortex.WithJournalHook(cortex.DefaultOptions(), func(string) {
				if armed.Load() && commits.Add(1) == after {
					cancel()
				}
			}))
			ns, err := s.Namespace(context.Background(), "default")
			if err != nil {
				t.Fatal(err)
			}
			loadBase(t, ns)
			armed.Store(true)
			if err := ns.Apply(ctx, journalDelta()); !errors.Is(err, context.Canceled) {
				t.Fatalf("got %v, want context.Canceled", err)
			}
			if commits.Load() != after {
				t.Fatalf("%d commits before the error, want %d", commits.Load(), after)
			}
			checkContent(t, ns, journalBase())
			if _, err := os.Stat(filepath.Join(s.Dir(), cortex.JournalFile)); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("journal left behind: %v", err)
			}
			// The store is usable and the delta can be applied.
			if err := ns.Apply(context.Background(), journalDelta()); err != nil {
				t.Fatal(err)
			}
			checkContent(t, ns, afterDelta())
		})
	}
}

// TestApply_LargeDeltaIsIsolated runs readers while large deltas flip the
// namespace between two states: every reader sees one state or the other.
func TestApply_LargeDeltaIsIsolated(t *testing.T) {
	t.Parallel()
	s := cortextest.NewStore(t)
	ns, err := s.Namespace(context.Background(), "default")
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.Namespace(context.Background(), "other")
	if err != nil {
		t.Fatal(err)
	}
	loadBase(t, ns)
	before, after := int64(len(journalBase())), int64(len(afterDelta()))
	ctx := context.Background()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var reads atomic.Int64
	errc := make(chan error, 4)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				it := ns.Dataset().Match(ctx, eval.Pattern{Scope: cortex.AllGraphs})
				var n int64
				for it.Next(ctx) {
					n++
				}
				err := errors.Join(it.Err(), it.Close())
				if err == nil && n != before && n != after {
					err = fmt.Errorf("a reader saw %d quads, want %d or %d", n, before, after)
				}
				if err != nil {
					errc <- err
					return
				}
				reads.Add(1)
			}
		}()
	}
	// A writer of another namespace keeps going too.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := other.Apply(ctx, cortex.Delta{Add: []quad.Quad{q("x", "p", quad.Int(i), nil)}}); err != nil {
				errc <- err
				return
			}
		}
	}()
	d := journalDelta()
	back := cortex.Delta{Remove: d.Add, Add: d.Remove}
	var applyErr error
	rounds := 4
	if testing.Short() {
		rounds = 2 // -race
	}
	for i := range rounds {
		dd := d
		if i%2 == 1 {
			dd = back
		}
		if applyErr = ns.Apply(ctx, dd); applyErr != nil {
			break
		}
	}
	close(stop)
	wg.Wait()
	if applyErr != nil {
		t.Fatal(applyErr)
	}
	select {
	case err := <-errc:
		t.Fatal(err)
	default:
	}
	if reads.Load() == 0 {
		t.Fatal("no read completed")
	}
	checkContent(t, ns, journalBase())
}

// TestApply_LargeDeltaBesideOpenReader: a large delta written transaction by
// transaction does not wait for transactions already open (here a read held
// open by the same goroutine, in this namespace and in another): it is
// written at once, the open reads go on seeing their snapshot, none of the
// delta, and a read started afterwards sees all of it.
func TestApply_LargeDeltaBesideOpenReader(t *testing.T) {
	t.Parallel()
	var journaled atomic.Int32
	opts := cortex.WithJournalHook(cortex.DefaultOptions().WithTuning(cortex.Tuning{JournalGateWait: 200 * time.Millisecond}), func(stage string) {
		if stage == "written" {
			journaled.Add(1)
		}
	})
	s := cortextest.NewStore(t, opts)
	ns, err := s.Namespace(context.Background(), "default")
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.Namespace(context.Background(), "other")
	if err != nil {
		t.Fatal(err)
	}
	loadBase(t, ns)
	if err := other.Apply(context.Background(), cortex.Delta{Add: []quad.Quad{q("x", "p", quad.Int(1), nil)}}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	same := ns.Dataset().Match(ctx, eval.Pattern{Scope: cortex.AllGraphs})
	if !same.Next(ctx) {
		t.Fatal(same.Err())
	}
	elsewhere := other.Dataset().Match(ctx, eval.Pattern{Scope: cortex.AllGraphs})
	if !elsewhere.Next(ctx) {
		t.Fatal(elsewhere.Err())
	}
	if err := ns.Apply(ctx, journalDelta()); err != nil {
		t.Fatalf("a large delta beside open reads: %v", err)
	}
	if journaled.Load() != 1 {
		t.Fatalf("%d deltas journaled, want 1", journaled.Load())
	}
	n := int64(1)
	for same.Next(ctx) {
		n++
	}
	if err := errors.Join(same.Err(), same.Close(), elsewhere.Close()); err != nil {
		t.Fatal(err)
	}
	if want := int64(len(journalBase())); n != want {
		t.Fatalf("the read opened before the delta saw %d quads, want %d (none of the delta)", n, want)
	}
	checkContent(t, ns, afterDelta())
}

// TestApply_LargeDeltaBusy: a delta large enough to be streamed needs the
// store to itself (Badger's stream writer replaces its timestamp oracle);
// in a goroutine that holds a read open it cannot have it, and fails with
// ErrBusy, writing nothing, instead of waiting forever.
func TestApply_LargeDeltaBusy(t *testing.T) {
	t.Parallel()
	opts := cortex.WithStreamTuning(cortex.DefaultOptions().WithTuning(cortex.Tuning{JournalGateWait: 200 * time.Millisecond}), 1<<20, 100)
	s := cortextest.NewStore(t, opts)
	ns, err := s.Namespace(context.Background(), "default")
	if err != nil {
		t.Fatal(err)
	}
	loadBase(t, ns)
	ctx := context.Background()
	it := ns.Dataset().Match(ctx, eval.Pattern{Scope: cortex.AllGraphs})
	if !it.Next(ctx) {
		t.Fatal(it.Err())
	}
	err = ns.Apply(ctx, journalDelta())
	if !errors.Is(err, cortex.ErrBusy) {
		t.Fatalf("got %v, want ErrBusy", err)
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	checkContent(t, ns, journalBase())
}

// childDelta applies journalDelta to the store in dir (holding journalBase)
// and kills itself at CORTEX_TEST_CRASH_AT: "committed:N" (after the N-th
// transaction), "written" (after the last one, before the journal is
// removed), or "stream:STAGE" (the delta is streamed; see WithStreamHook).
func childDelta(dir string) {
	at := os.Getenv("CORTEX_TEST_CRASH_AT")
	crash := func() {
		killSelf()
		select {}
	}
	opts := cortex.DefaultOptions().WithSyncWrites(os.Getenv("CORTEX_TEST_SYNC") != "0")
	if stage, ok := strings.CutPrefix(at, "stream:"); ok {
		opts = cortex.WithStreamHook(cortex.WithStreamTuning(opts, 1<<20, 100), func(s string) {
			if s == stage {
				time.Sleep(300 * time.Millisecond) // let written tables reach the manifest
				crash()
			}
		})
	}
	commits := 0
	opts = cortex.WithJournalHook(opts, func(stage string) {
		if stage == "committed" {
			commits++
		}
		if stage == at || at == "committed:"+strconv.Itoa(commits) && stage == "committed" {
			crash()
		}
	})
	ctx := context.Background()
	s, err := cortex.Open(ctx, dir, opts)
	if err != nil {
		fmt.Println("error", err)
		return
	}
	ns, err := s.Namespace(ctx, "default")
	if err != nil {
		fmt.Println("error", err)
		return
	}
	fmt.Println("error", ns.Apply(ctx, journalDelta()))
}

// TestApply_LargeDeltaRollsBackAfterCrash kills a process in the middle of a
// large delta, committed transaction by transaction or streamed, at several
// points: the next Open rolls it back exactly.
func TestApply_LargeDeltaRollsBackAfterCrash(t *testing.T) {
	t.Parallel()
	skipShort(t)
	for _, c := range []struct{ at, sync string }{
		{"committed:1", "1"}, {"committed:3", "0"}, {"written", "1"},
		{"stream:prepared", "1"}, {"stream:group-done", "1"}, {"stream:flushed", "1"},
	} {
		t.Run(c.at+",sync="+c.sync, func(t *testing.T) {
			dir := t.TempDir()
			s, ns := openNS(t, dir, cortex.DefaultOptions())
			loadBase(t, ns)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			cmd, lines := startChild(t, "delta", dir, "CORTEX_TEST_CRASH_AT="+c.at, "CORTEX_TEST_SYNC="+c.sync)
			for lines.Scan() {
				t.Errorf("child: %s", lines.Text())
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("child did not crash: %v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, cortex.JournalFile)); err != nil {
				t.Fatalf("no journal left by the crash: %v", err)
			}
			// Roll back through a write batch and through the stream writer
			// (recover.go), each on its own copy of the crashed store.
			for _, streamMin := range []int{1 << 30, 1} {
				dir := copyDir(t, dir)
				s, ns = openNS(t, dir, cortex.DefaultOptions().WithTuning(cortex.Tuning{RollbackStreamMin: streamMin}))
				if _, err := os.Stat(filepath.Join(dir, cortex.JournalFile)); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("journal still there after recovery: %v", err)
				}
				checkContent(t, ns, journalBase())
				if err := ns.Apply(context.Background(), journalDelta()); err != nil {
					t.Fatal(err)
				}
				checkContent(t, ns, afterDelta())
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestApply_LargeDeltaStreamed: a delta large enough to stream is written
// through the stream writer, deletions included, and is exact.
func TestApply_LargeDeltaStreamed(t *testing.T) {
	t.Parallel()
	skipShort(t)
	var flushed atomic.Int32
	s := cortextest.NewStore(t, cortex.WithStreamHook(cortex.WithStreamTuning(cortex.DefaultOptions(), 1<<20, 100), func(s string) {
		if s == "flushed" {
			flushed.Add(1)
		}
	}))
	ns, err := s.Namespace(context.Background(), "default")
	if err != nil {
		t.Fatal(err)
	}
	loadBase(t, ns)
	flushed.Store(0) // count the delta's streams only
	if err := ns.Apply(context.Background(), journalDelta()); err != nil {
		t.Fatal(err)
	}
	if flushed.Load() == 0 {
		t.Fatal("the delta was not streamed")
	}
	checkContent(t, ns, afterDelta())
	d := journalDelta()
	if err := ns.Apply(context.Background(), cortex.Delta{Remove: d.Add, Add: d.Remove}); err != nil {
		t.Fatal(err)
	}
	checkContent(t, ns, journalBase())
	if _, err := os.Stat(filepath.Join(s.Dir(), cortex.JournalFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("journal left behind: %v", err)
	}
}

// TestStore_CloseWaitsForTransactions: Close waits for a read in progress,
// refuses new work with ErrClosed meanwhile, and then closes.
func TestStore_CloseWaitsForTransactions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := cortextest.OpenStore(t, t.TempDir(), cortex.DefaultOptions())
	ns, err := s.Namespace(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	if err := ns.Apply(ctx, cortex.Delta{Add: journalBase()[:100]}); err != nil {
		t.Fatal(err)
	}
	it := ns.Dataset().Match(ctx, eval.Pattern{Scope: cortex.AllGraphs})
	if !it.Next(ctx) {
		t.Fatal(it.Err())
	}
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		t.Fatalf("Close returned %v while a read was open", err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := ns.Apply(ctx, cortex.Delta{Add: journalBase()[100:101]}); !errors.Is(err, cortex.ErrClosed) {
		t.Fatalf("Apply while closing: %v, want ErrClosed", err)
	}
	n := 1
	for it.Next(ctx) {
		n++
	}
	if err := errors.Join(it.Err(), it.Close()); err != nil || n != 100 {
		t.Fatalf("the open read saw %d quads, %v", n, err)
	}
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return once the read ended")
	}
	if _, err := ns.Size(ctx); !errors.Is(err, cortex.ErrClosed) {
		t.Fatalf("Size after Close: %v", err)
	}
	if _, err := s.Namespace(ctx, "other"); !errors.Is(err, cortex.ErrClosed) {
		t.Fatalf("Namespace after Close: %v", err)
	}
}

// TestStore_CloseUnderLoad closes a store while goroutines read and write,
// large deltas included: each operation succeeds or fails with ErrClosed,
// and the reopened store is consistent.
func TestStore_CloseUnderLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s, ns := openNS(t, dir, cortex.DefaultOptions())
	loadBase(t, ns)
	var wg sync.WaitGroup
	errc := make(chan error, 8)
	check := func(err error) bool {
		if err != nil && !errors.Is(err, cortex.ErrClosed) {
			errc <- err
		}
		return err == nil
	}
	d := journalDelta()
	wg.Add(3)
	go func() { // large deltas, flipping
		defer wg.Done()
		for i := 0; ; i++ {
			dd := d
			if i%2 == 1 {
				dd = cortex.Delta{Remove: d.Add, Add: d.Remove}
			}
			if !check(ns.Apply(ctx, dd)) {
				return
			}
		}
	}()
	go func() { // small writes
		defer wg.Done()
		for i := 0; ; i++ {
			if !check(ns.Apply(ctx, cortex.Delta{Add: []quad.Quad{q("w", "p", quad.Int(i), nil)}})) {
				return
			}
		}
	}()
	go func() { // reads
		defer wg.Done()
		for {
			it := ns.Dataset().Match(ctx, eval.Pattern{Scope: cortex.AllGraphs})
			for it.Next(ctx) {
			}
			err := errors.Join(it.Err(), it.Close())
			if !check(err) {
				return
			}
		}
	}()
	time.Sleep(1500 * time.Millisecond)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	s, ns = openNS(t, dir, cortex.DefaultOptions())
	defer s.Close()
	cortex.CheckFormat(t, ns)
}

// TestApply_LargeDeltaParallelReads: a journaled delta whose keys are read
// ahead in many ranges at once (each on its own goroutine and iterator) is
// exact, and so is its inverse. It sets GOMAXPROCS: not parallel.
func TestApply_LargeDeltaParallelReads(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(7))
	s := cortextest.NewStore(t, cortex.DefaultOptions().WithTuning(cortex.Tuning{ParallelReadMin: 64}))
	ns, err := s.Namespace(context.Background(), "default")
	if err != nil {
		t.Fatal(err)
	}
	loadBase(t, ns)
	before := s.ParallelReads()
	if err := ns.Apply(context.Background(), journalDelta()); err != nil {
		t.Fatal(err)
	}
	if n := s.ParallelReads() - before; n < 7 {
		t.Fatalf("%d ranges read on their own goroutine; the test needs several", n)
	}
	checkContent(t, ns, afterDelta())
	d := journalDelta()
	if err := ns.Apply(context.Background(), cortex.Delta{Remove: d.Add, Add: d.Remove}); err != nil {
		t.Fatal(err)
	}
	checkContent(t, ns, journalBase())
}

// TestApply_FewQuadsOfLargeValues applies deltas of few quads whose
// literals together exceed what one Badger transaction holds (about 15% of
// a 16 MiB memtable): they are journaled instead of failing with Badger's
// ErrTxnTooBig, through Apply and through Update, and undone the same way.
func TestApply_FewQuadsOfLargeValues(t *testing.T) {
	t.Parallel()
	var commits atomic.Int32
	s := cortextest.NewStore(t, cortex.WithJournalHook(cortex.DefaultOptions().WithSyncWrites(false), func(string) { commits.Add(1) }))
	ns, err := s.Namespace(context.Background(), "default")
	if err != nil {
		t.Fatal(err)
	}
	// 40 values of 400 KB: 16 MB, under Badger's value threshold each
	// (so they stay in the LSM tree and count in the transaction's bytes).
	big := strings.Repeat("x", 400_000)
	var d cortex.Delta
	for i := range 40 {
		d.Add = append(d.Add, q("s"+strconv.Itoa(i), "p", quad.String(big+strconv.Itoa(i)), nil))
	}
	if err := ns.Apply(context.Background(), d); err != nil {
		t.Fatalf("apply: %v", err)
	}
	if commits.Load() < 2 {
		t.Fatalf("the delta took %d journaled transactions; want it journaled in several", commits.Load())
	}
	checkContent(t, ns, d.Add)
	commits.Store(0)
	err = ns.Update(context.Background(), func(tx *cortex.Tx) error {
		tx.Remove(d.Add...)
		return nil
	})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	checkContent(t, ns, nil)
	// A small delta of small values is still one plain transaction.
	commits.Store(0)
	if err := ns.Apply(context.Background(), cortex.Delta{Add: []quad.Quad{q("a", "p", quad.String("b"), nil)}}); err != nil {
		t.Fatal(err)
	}
	if commits.Load() != 0 {
		t.Fatalf("a one-quad delta was journaled (%d transactions)", commits.Load())
	}
}
