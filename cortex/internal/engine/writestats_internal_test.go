package engine

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql"
)

// TestWriteStats_Deltas: each committed delta counts once, with its quads
// and the keys it wrote (a first quad of three new terms in the default
// graph: four index keys and a log entry, three keys per term, and the
// horizon and size); a delta over MaxDeltaQuads counts as journaled; a
// delta that changes nothing, or fails, does not count (nor takes the
// write lock).
func TestWriteStats_Deltas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testStore(t, t.TempDir(), DefaultOptions().WithSyncWrites(false).WithTuning(Tuning{MaxDeltaQuads: 64}))
	n, err := s.Namespace(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	iri := func(s string) quad.IRI { return quad.IRI("http://x/" + s) }
	if err := n.Apply(ctx, Delta{Add: []quad.Quad{{Subject: iri("s"), Predicate: iri("p"), Object: iri("o")}}}); err != nil {
		t.Fatal(err)
	}
	got := n.WriteStats()
	if want := (WriteStats{Deltas: 1, Quads: 1, Entries: 5 + 3*3 + 2}); got.Deltas != want.Deltas || got.Journaled != 0 || got.Quads != want.Quads || got.Entries != want.Entries {
		t.Fatalf("after one quad: %+v, want %+v", got, want)
	}
	if err := n.Apply(ctx, Delta{}); err != nil {
		t.Fatal(err)
	}
	if err := n.Apply(ctx, Delta{Add: []quad.Quad{{Subject: quad.String("a literal subject"), Predicate: iri("p"), Object: iri("o")}}}); err == nil {
		t.Fatal("a literal subject was written")
	}
	if again := n.WriteStats(); again.Deltas != 1 || again.Quads != 1 || again.Entries != got.Entries {
		t.Fatalf("an empty delta and a refused one counted: %+v, before %+v", again, got)
	}
	var big Delta
	for i := range 100 {
		big.Add = append(big.Add, quad.Quad{Subject: iri(fmt.Sprint("s", i)), Predicate: iri("p"), Object: quad.Int(i)})
	}
	if err := n.Apply(ctx, big); err != nil {
		t.Fatal(err)
	}
	after := n.WriteStats()
	if after.Deltas != 2 || after.Journaled != 1 || after.Quads != 101 || after.Entries-got.Entries < 5*100 {
		t.Fatalf("after a journaled delta of 100 quads: %+v (before %+v)", after, got)
	}
	if after.LockAcquired != 2 || after.LockHeld <= 0 {
		t.Fatalf("the write lock's counts: %+v", after)
	}
}

// TestWriteStats_LockWait: a writer that waits for the write lock counts
// as a wait, for the time it waited; one that finds it free does not.
func TestWriteStats_LockWait(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testStore(t, t.TempDir(), DefaultOptions().WithSyncWrites(false))
	n, err := s.Namespace(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	before := n.WriteStats()
	holding, release := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		err := n.Update(ctx, func(*Tx) error {
			close(holding)
			<-release
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	})
	<-holding
	wg.Go(func() {
		if err := n.Update(ctx, func(*Tx) error { return nil }); err != nil {
			t.Error(err)
		}
	})
	for n.waiting.Load() == 0 { // the second writer waits for the lock
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	st := n.WriteStats()
	if st.LockAcquired-before.LockAcquired != 2 || st.LockWaited-before.LockWaited != 1 || st.LockWait <= before.LockWait {
		t.Fatalf("two writers, one waiting: %+v (before %+v)", st, before)
	}
	if st.Deltas != before.Deltas {
		t.Fatalf("updates that wrote nothing counted as deltas: %+v", st)
	}
}

// TestWriteStats_ReadsDoNotCount: a query peeks at the write lock (for
// the planner statistics' generation) without being a writer: it counts
// as no acquisition and adds no time held.
func TestWriteStats_ReadsDoNotCount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testStore(t, t.TempDir(), DefaultOptions().WithSyncWrites(false))
	n, err := s.Namespace(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Apply(ctx, Delta{Add: []quad.Quad{{Subject: quad.IRI("http://x/s"), Predicate: quad.IRI("http://x/p"), Object: quad.IRI("http://x/o")}}}); err != nil {
		t.Fatal(err)
	}
	before := n.WriteStats()
	for range 3 {
		res, err := n.Query(ctx, "SELECT * WHERE { ?s ?p ?o }", sparql.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rows := 0
		for res.Next(ctx) {
			rows++
		}
		if err := res.Err(); err != nil || rows != 1 {
			t.Fatalf("query: %d rows, %v", rows, err)
		}
		if err := res.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if after := n.WriteStats(); after != before {
		t.Fatalf("three queries changed the write counters: %+v, before %+v", after, before)
	}
}
