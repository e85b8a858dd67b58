package engine

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/cortex/sparql"
)

// TestClose_LeakedResultBesideDrainWaiter: Close gives up on a query result
// that is still referenced and never closed after ResultsCloseWait, also
// when another operation is waiting for the gate exclusively (here
// DeleteNamespace's dropKeys, waiting for that very result to end). Such a
// waiter is not a holder that is writing: it holds g.one but waits for the
// open transactions, and keeps waiting as long as the result is open.
// CloseWait is an hour: a Close that waited for it (taking the waiter for
// a holder) would hang the test until go test's timeout, which names it.
func TestClose_LeakedResultBesideDrainWaiter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testStore(t, t.TempDir(), DefaultOptions().WithSyncWrites(false).WithTuning(Tuning{CloseWait: time.Hour, ResultsCloseWait: 100 * time.Millisecond}))
	res := filledWithResult(t, s)
	defer res.Close()
	dctx, cancel := context.WithCancel(ctx)
	defer cancel()
	deleted := make(chan error, 1)
	go func() { deleted <- s.DeleteNamespace(dctx, "b") }()
	// Wait until the deletion waits for the gate exclusively.
	for deadline := time.Now().Add(5 * time.Second); len(s.gate.one) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("DeleteNamespace never waited for the gate")
		}
		time.Sleep(5 * time.Millisecond)
	}
	err := s.Close()
	cancel()
	<-deleted
	if !errors.Is(err, ErrResultsOpen) {
		t.Errorf("Close: %v, want ErrResultsOpen", err)
	}
}

// TestClose_WaitsForJournaledDeltaBesideLeakedResult: Close still never
// gives up while a journaled delta (holdNew) is writing, even with a query
// result left open that it would give up on otherwise: it returns only once
// the delta has been written, and the delta is whole after reopening.
func TestClose_WaitsForJournaledDeltaBesideLeakedResult(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	var writing atomic.Bool
	paused := make(chan struct{})
	var once sync.Once
	o := WithJournalHook(DefaultOptions().WithSyncWrites(false).WithTuning(Tuning{MaxDeltaQuads: 50, JournalTxnEntries: 100, CloseWait: 10 * time.Second, ResultsCloseWait: 50 * time.Millisecond}), func(stage string) {
		if stage == "committed" {
			once.Do(func() {
				close(paused)
				time.Sleep(500 * time.Millisecond) // Close starts meanwhile
			})
		}
		if stage == "written" {
			writing.Store(false)
		}
	})
	s := testStore(t, dir, o)
	n, err := s.Namespace(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Apply(ctx, Delta{Add: uniqueQuads(10, "base")}); err != nil {
		t.Fatal(err)
	}
	res, err := n.Query(ctx, "SELECT * WHERE { ?s ?p ?o }", sparql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	applied := make(chan error, 1)
	writing.Store(true)
	go func() { applied <- n.Apply(ctx, Delta{Add: uniqueQuads(300, "big")}) }()
	<-paused
	err = s.Close()
	if writing.Load() {
		t.Fatal("Close returned while the journaled delta was being written")
	}
	if !errors.Is(err, ErrResultsOpen) {
		t.Errorf("Close: %v, want ErrResultsOpen", err)
	}
	if err := <-applied; err != nil {
		t.Fatalf("the journaled delta: %v", err)
	}
	res.Close()
	s2 := testStore(t, dir, DefaultOptions())
	n2, err := s2.Namespace(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	if size, err := n2.Size(ctx); err != nil || size != 310 {
		t.Fatalf("size %d, %v after reopening; want 310", size, err)
	}
}

// filledWithResult makes namespaces a and b of s, 10 quads each, and returns a
// query result over a, which the caller closes or leaves open (leaked).
func filledWithResult(t *testing.T, s *Store) *sparql.Result {
	t.Helper()
	ctx := context.Background()
	a, err := s.Namespace(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Namespace(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []*Namespace{a, b} {
		if err := n.Apply(ctx, Delta{Add: uniqueQuads(10, n.name)}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := a.Query(ctx, "SELECT * WHERE { ?s ?p ?o }", sparql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestClose_LeakedResultReadAfterClose: a query result that Close gave up
// on (ErrResultsOpen) and that is read on afterwards, in the closed
// database, fails with an error matching ErrClosed, not Badger's
// "DB Closed".
func TestClose_LeakedResultReadAfterClose(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, n := openFilled(t, t.TempDir(), DefaultOptions().WithSyncWrites(false).WithTuning(Tuning{ResultsCloseWait: 50 * time.Millisecond}), 5000, "x")
	res, err := n.Query(ctx, "SELECT * WHERE { ?s ?p ?o }", sparql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if !res.Next(ctx) {
		t.Fatalf("no first row: %v", res.Err())
	}
	if err := s.Close(); !errors.Is(err, ErrResultsOpen) {
		t.Fatalf("Close: %v, want ErrResultsOpen", err)
	}
	rows := 1
	for res.Next(ctx) {
		rows++
	}
	if rows == 5000 {
		t.Fatal("the whole result was read after Close: the test does not test anything")
	}
	if err := res.Err(); !errors.Is(err, ErrClosed) {
		t.Errorf("reading the result after Close: %v, want ErrClosed", err)
	}
}
