package engine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	hkv "github.com/hidal-go/hidalgo/kv"

	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
)

// TestClose_CutsOffLargeDelta: a journaled delta still being written when
// Close stops waiting for it (Tuning.CloseWait) is cut off: it fails with
// an error matching ErrClosed (not Badger's "Writes are blocked"), Close
// neither panics nor closes Badger under its stream writer (Badger's Close
// panicked on a closed channel then) but reports the cut (ErrCutOff), and
// the next Open rolls it back, so
// the store holds none of it and passes Check.
func TestClose_CutsOffLargeDelta(t *testing.T) {
	t.Parallel()
	for _, streamed := range []bool{false, true} {
		name := map[bool]string{false: "transactions", true: "streamed"}[streamed]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dir := t.TempDir()
			paused := make(chan struct{})
			resume := make(chan struct{})
			var once sync.Once
			pause := func() {
				once.Do(func() {
					close(paused)
					<-resume
				})
			}
			o := DefaultOptions().WithSyncWrites(false).WithTuning(Tuning{MaxDeltaQuads: 50, JournalTxnEntries: 100, CloseWait: 100 * time.Millisecond})
			if streamed {
				o = WithStreamTuning(o, 1<<20, 100)
				o = WithStreamHook(o, func(stage string) {
					if stage == "prepared" {
						pause()
					}
				})
			} else {
				o = WithJournalHook(o, func(stage string) {
					if stage == "committed" {
						pause()
					}
				})
			}
			s, n := openFilled(t, dir, o, 10, "base")
			applied := make(chan error, 1)
			go func() { applied <- n.Apply(ctx, Delta{Add: uniqueQuads(3000, "big")}) }()
			<-paused
			closed := make(chan error, 1)
			go func() { closed <- s.Close() }()
			// Let the delta go on once Close has stopped waiting for it.
			for !s.cutOff.Load() {
				time.Sleep(10 * time.Millisecond)
			}
			close(resume)
			if err := <-applied; err == nil {
				t.Error("the delta cut off by Close succeeded")
			} else if !errors.Is(err, ErrClosed) {
				t.Errorf("the delta cut off by Close: %v, want ErrClosed", err)
			}
			if err := <-closed; !errors.Is(err, ErrCutOff) {
				t.Errorf("Close: %v, want ErrCutOff", err)
			}
			if size := sizeReopened(t, dir); size != 10 {
				t.Fatalf("size %d after reopening; want 10 (the delta rolled back)", size)
			}
		})
	}
}

// TestClose_DeleteNamespaceAfterClose: a DeleteNamespace that waits for the
// store's gate (here for a query result left open) while Close gives up on
// that result goes on once the result is closed, after Close: it must fail
// with ErrClosed, not drop the namespace's keys in the closed database
// (Badger's DropPrefix on a closed database).
func TestClose_DeleteNamespaceAfterClose(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir(), DefaultOptions().WithSyncWrites(false).WithTuning(Tuning{CloseWait: 5 * time.Second, ResultsCloseWait: 100 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	res := filledWithResult(t, s)
	deleted := make(chan error, 1)
	go func() { deleted <- s.DeleteNamespace(ctx, "b") }()
	for len(s.gate.one) == 0 { // the deletion waits for the gate
		time.Sleep(5 * time.Millisecond)
	}
	if err := s.Close(); !errors.Is(err, ErrResultsOpen) {
		t.Errorf("Close: %v, want ErrResultsOpen", err)
	}
	res.Close()
	if err := <-deleted; !errors.Is(err, ErrClosed) {
		t.Errorf("DeleteNamespace going on after Close: %v, want ErrClosed", err)
	}
}

// TestClose_DeleteNamespaceWaitingForWrite: a DeleteNamespace that waits
// for a write in progress on the namespace while Close runs (Close does not
// see the namespace then: its name is claimed) fails with ErrClosed once
// the write ends, and the namespace's handle ends too (Done closed, Err
// matching ErrClosed), as Close ends the others: a goroutine waiting on
// Done is not left waiting for ever.
func TestClose_DeleteNamespaceWaitingForWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir(), DefaultOptions().WithSyncWrites(false))
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.Namespace(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	inUpdate, release := make(chan struct{}), make(chan struct{})
	updated := make(chan error, 1)
	go func() {
		updated <- n.Update(ctx, func(*Tx) error {
			close(inUpdate)
			<-release
			return nil
		})
	}()
	<-inUpdate
	deleted := make(chan error, 1)
	go func() { deleted <- s.DeleteNamespace(ctx, "ns") }()
	for n.waiting.Load() == 0 { // the deletion waits for the write
		time.Sleep(5 * time.Millisecond)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	close(release)
	if err := <-updated; err != nil {
		t.Errorf("Update: %v", err)
	}
	if err := <-deleted; !errors.Is(err, ErrClosed) {
		t.Errorf("DeleteNamespace: %v, want ErrClosed", err)
	}
	select {
	case <-n.Done():
		if err := n.Err(); !errors.Is(err, ErrClosed) {
			t.Errorf("the namespace's Err: %v, want ErrClosed", err)
		}
	default:
		t.Error("the namespace's Done is still open after Close and the failed deletion")
	}
}

// TestClose_CutsOffEachQuad: an EachQuad whose fn outlasts Close's wait
// (Tuning.CloseWait) is cut off: reading on in the closed database, it
// fails with an error matching ErrClosed, not Badger's "DB Closed"; Close
// reports the cut (ErrCutOff).
func TestClose_CutsOffEachQuad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, n := openFilled(t, t.TempDir(), DefaultOptions().WithSyncWrites(false).WithTuning(Tuning{CloseWait: 100 * time.Millisecond}), 5000, "x")
	inFn, release := make(chan struct{}), make(chan struct{})
	read := 0
	done := make(chan error, 1)
	go func() {
		done <- n.EachQuad(ctx, Pattern{}, func(quad.Quad) error {
			if read++; read == 1 {
				close(inFn)
				<-release
			}
			return nil
		})
	}()
	<-inFn
	if err := s.Close(); !errors.Is(err, ErrCutOff) {
		t.Errorf("Close: %v, want ErrCutOff", err)
	}
	close(release)
	err := <-done
	if read == 5000 {
		t.Fatal("every quad was read after Close: the test does not test anything")
	}
	if !errors.Is(err, ErrClosed) {
		t.Errorf("EachQuad cut off by Close: %v, want ErrClosed", err)
	}
}

// TestClose_CutsOffDelta: a one-transaction delta whose commit comes after
// Close stopped waiting for it (Tuning.CloseWait) fails with an error
// matching ErrClosed, not Badger's "Writes are blocked", and writes
// nothing; Close reports the cut (ErrCutOff).
func TestClose_CutsOffDelta(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s, n := openFilled(t, dir, DefaultOptions().WithSyncWrites(false).WithTuning(Tuning{CloseWait: 100 * time.Millisecond}), 10, "base")
	inDelta, release := make(chan struct{}), make(chan struct{})
	s.opts.hooks.delta = func() { close(inDelta); <-release }
	applied := make(chan error, 1)
	go func() { applied <- n.Apply(ctx, Delta{Add: uniqueQuads(10, "cut")}) }()
	<-inDelta
	if err := s.Close(); !errors.Is(err, ErrCutOff) {
		t.Errorf("Close: %v, want ErrCutOff", err)
	}
	close(release)
	if err := <-applied; !errors.Is(err, ErrClosed) {
		t.Errorf("the delta cut off by Close: %v, want ErrClosed", err)
	}
	if size := sizeReopened(t, dir); size != 10 {
		t.Fatalf("size %d after reopening; want 10", size)
	}
}

// TestClose_TransactionAfterCheckOpen: a namespace operation that passed
// checkOpen before Close and opens its transaction after it (the race this
// test takes the second half of) fails with an error matching ErrClosed;
// it failed with badgerkv's "database is closed", which matches nothing
// the store documents.
func TestClose_TransactionAfterCheckOpen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir(), DefaultOptions().WithSyncWrites(false))
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.Namespace(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	err = hkv.View(n.kv, func(hkv.Tx) error { return nil })
	if !errors.Is(err, ErrClosed) {
		t.Fatalf("a transaction after Close: %v, want ErrClosed", err)
	}
}

// openFilled opens the store in dir with o and its namespace "ns", into
// which it writes k quads tagged tag.
func openFilled(t *testing.T, dir string, o Options, k int, tag string) (*Store, *Namespace) {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, dir, o)
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.Namespace(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Apply(ctx, Delta{Add: uniqueQuads(k, tag)}); err != nil {
		t.Fatal(err)
	}
	return s, n
}

// sizeReopened opens the store in dir again (closed at the test's end) and
// returns the size of its namespace "ns".
func sizeReopened(t *testing.T, dir string) int64 {
	t.Helper()
	ctx := context.Background()
	n, err := testStore(t, dir, DefaultOptions()).Namespace(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	size, err := n.Size(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return size
}

// TestClose_CutsOffCheck: a Store.Check still reading when Close stops
// waiting for it (Tuning.CloseWait) fails with an error matching
// ErrClosed, as every other operation cut off by Close does, not with
// Badger's "DB Closed" (nor succeeds having read half the store); Close
// reports the cut (ErrCutOff).
func TestClose_CutsOffCheck(t *testing.T) {
	t.Parallel()
	for _, whole := range []bool{true, false} {
		name := map[bool]string{true: "Store", false: "Namespace"}[whole]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, n := openFilled(t, t.TempDir(), DefaultOptions().WithSyncWrites(false).WithTuning(Tuning{CloseWait: 100 * time.Millisecond}), 5000, "x")
			ctx := &pausingCtx{Context: context.Background(), s: s, paused: make(chan struct{}), resume: make(chan struct{})}
			done := make(chan error, 1)
			go func() {
				if whole {
					done <- s.Check(ctx)
				} else {
					done <- n.Check(ctx)
				}
			}()
			<-ctx.paused
			if err := s.Close(); !errors.Is(err, ErrCutOff) {
				t.Errorf("Close: %v, want ErrCutOff", err)
			}
			close(ctx.resume)
			if err := <-done; !errors.Is(err, ErrClosed) {
				t.Errorf("Check cut off by Close: %v, want ErrClosed", err)
			}
		})
	}
}

// pausingCtx is a context whose Err, the first time it is called inside a
// transaction of s (the gate counts one open), waits until resume is
// closed: it stops a long read (Check asks its context every few thousand
// keys) in the middle.
type pausingCtx struct {
	context.Context
	s              *Store
	once           sync.Once
	paused, resume chan struct{}
}

func (c *pausingCtx) Err() error {
	c.s.gate.mu.Lock()
	open := c.s.gate.n
	c.s.gate.mu.Unlock()
	if open > 0 {
		c.once.Do(func() {
			close(c.paused)
			<-c.resume
		})
	}
	return c.Context.Err()
}

// TestClose_ReportsReaderLeftOpen: a Dataset.Match iterator never closed
// held Close for the whole CloseWait and Close then returned nil, saying
// nothing. It returns an error matching ErrCutOff (not ErrResultsOpen: no
// query result was open) that says how many transactions were open; a
// query result left open beside it makes it match ErrResultsOpen too.
func TestClose_ReportsReaderLeftOpen(t *testing.T) {
	t.Parallel()
	for _, withResult := range []bool{false, true} {
		name := map[bool]string{false: "iterator", true: "iterator and result"}[withResult]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s, n := openFilled(t, t.TempDir(), DefaultOptions().WithSyncWrites(false).WithTuning(Tuning{CloseWait: 200 * time.Millisecond, ResultsCloseWait: 50 * time.Millisecond}), 10, "x")
			it := n.Dataset().Match(ctx, eval.Pattern{Scope: eval.AllGraphs})
			defer it.Close()
			want := "2 open; 1 query result not closed: "
			if !withResult {
				want = "1 open; 1 other (a Dataset.Match iterator or a Tx not closed"
				// A second, closed at once, counts for nothing.
				n.Dataset().Match(ctx, eval.Pattern{Scope: eval.AllGraphs}).Close()
			} else {
				res, err := n.Query(ctx, "SELECT * WHERE { ?s ?p ?o }", sparql.Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer res.Close()
			}
			err := s.Close()
			if !errors.Is(err, ErrCutOff) || errors.Is(err, ErrResultsOpen) != withResult || !strings.Contains(err.Error(), want) {
				t.Errorf("Close with a Match iterator left open: %v, want ErrCutOff (ErrResultsOpen: %v) saying %q", err, withResult, want)
			}
			if it.Next(ctx) {
				t.Error("the iterator cut off by Close read on")
			}
			if err := it.Err(); !errors.Is(err, ErrClosed) {
				t.Errorf("the iterator cut off by Close: %v, want ErrClosed", err)
			}
		})
	}
}

// TestClose_CutsOffDeltaRead: a journaled delta whose read of the keys it
// will write (its prefetch, one read transaction opening iterators as it
// goes) outlasts Close's wait (Tuning.CloseWait) fails with an error
// matching ErrClosed; it panicked the process with Badger's "DB Closed"
// (NewIterator on the closed database). It writes nothing.
func TestClose_CutsOffDeltaRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, n := openFilled(t, dir, DefaultOptions().WithSyncWrites(false).WithTuning(Tuning{MaxDeltaQuads: 50, CloseWait: 100 * time.Millisecond}), 10, "base")
	ctx := &pausingCtx{Context: context.Background(), s: s, paused: make(chan struct{}), resume: make(chan struct{})}
	applied := make(chan error, 1)
	go func() { applied <- n.Apply(ctx, Delta{Add: uniqueQuads(200, "cut")}) }()
	<-ctx.paused
	if err := s.Close(); !errors.Is(err, ErrCutOff) {
		t.Errorf("Close: %v, want ErrCutOff", err)
	}
	close(ctx.resume)
	if err := <-applied; !errors.Is(err, ErrClosed) {
		t.Errorf("the delta cut off by Close: %v, want ErrClosed", err)
	}
	if size := sizeReopened(t, dir); size != 10 {
		t.Fatalf("size %d after reopening; want 10", size)
	}
}

// TestClose_SecondCloseWaitsForFirst: a Close called while another is
// still waiting for the store's transactions returned nil at once, before
// the store was released: opening the store again right after it failed
// with ErrLocked. It returns once the first Close has released the store.
func TestClose_SecondCloseWaitsForFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s, n := openFilled(t, dir, DefaultOptions().WithSyncWrites(false).WithTuning(Tuning{CloseWait: 300 * time.Millisecond}), 10, "x")
	it := n.Dataset().Match(ctx, eval.Pattern{Scope: eval.AllGraphs}) // holds the first Close
	defer it.Close()
	first := make(chan error, 1)
	go func() { first <- s.Close() }()
	for s.checkOpen() == nil { // the first Close has begun
		time.Sleep(time.Millisecond)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v, want nil", err)
	}
	s2, err := Open(ctx, dir, DefaultOptions())
	if err != nil {
		t.Fatalf("Open after the second Close returned: %v", err)
	}
	if err := s2.Close(); err != nil {
		t.Error(err)
	}
	if err := <-first; !errors.Is(err, ErrCutOff) {
		t.Errorf("first Close: %v, want ErrCutOff", err)
	}
}
