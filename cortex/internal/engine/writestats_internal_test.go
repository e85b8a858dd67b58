package engine

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/dgraph-io/badger/v4"

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
	n := testNamespace(t, DefaultOptions().WithSyncWrites(false).WithTuning(Tuning{MaxDeltaQuads: 64}))
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
// as a wait, for the time it waited, and in LockWaiting while it waits; one
// that finds it free does not.
func TestWriteStats_LockWait(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := testNamespace(t, DefaultOptions().WithSyncWrites(false))
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
	if w := n.WriteStats().LockWaiting; w != 1 {
		t.Fatalf("one writer waiting, LockWaiting %d", w)
	}
	close(release)
	wg.Wait()
	st := n.WriteStats()
	if st.LockWaiting != 0 {
		t.Fatalf("no writer waiting, LockWaiting %d", st.LockWaiting)
	}
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
	n := testNamespace(t, DefaultOptions().WithSyncWrites(false))
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

// TestWriteStats_EntriesAreTheKeysWritten: WriteStats.Entries grows by the
// number of key versions (puts and deletion markers) each delta leaves in
// the namespace, on each path: one transaction, journaled in transactions,
// journaled through the stream writer; for additions, removals, pins,
// freed terms, side-table rows and stamps.
func TestWriteStats_EntriesAreTheKeysWritten(t *testing.T) {
	t.Parallel()
	for name, tune := range map[string]Tuning{
		"one transaction": {},
		"journaled":       {MaxDeltaQuads: 4},
		"streamed":        {MaxDeltaQuads: 4, StreamMinEntries: 1},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			n := testNamespace(t, DefaultOptions().WithSyncWrites(false).WithTuning(tune))
			iri := func(s string, i int) quad.IRI { return quad.IRI(fmt.Sprintf("http://x/%s%d", s, i)) }
			qs := make([]quad.Quad, 20)
			for i := range qs {
				qs[i] = quad.Quad{Subject: iri("s", i), Predicate: iri("p", i%3), Object: quad.Int(i)}
				if i%2 == 1 {
					qs[i].Label = iri("g", i%4)
				}
			}
			// versions counts the key versions of the namespace newer than v.
			versions := func(v uint64) int64 {
				var c int64
				err := n.s.db.View(func(txn *badger.Txn) error {
					opts := badger.DefaultIteratorOptions
					opts.AllVersions, opts.PrefetchValues, opts.Prefix = true, false, n.view.Prefix()
					it := txn.NewIterator(opts)
					defer it.Close()
					for it.Rewind(); it.Valid(); it.Next() {
						if it.Item().Version() > v {
							c++
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
			for i, fn := range []func(*Tx){
				func(tx *Tx) { tx.Add(qs[:12]...); tx.Pin(quad.Int(0), quad.Int(1)) },
				func(tx *Tx) {
					tx.Remove(qs[:4]...) // frees the pinned terms
					tx.Add(qs[12:]...)
					tx.PutSide("t", "a", []quad.Value{quad.String("x")})
					tx.PutSide("t", "b", []quad.Value{quad.String("y")})
					tx.StampSide("t")
				},
				func(tx *Tx) {
					tx.DeleteSide("t", "a")
					tx.DeleteSide("t", "nope")
					tx.KeepSide("t")
					tx.Remove(qs[4], qs[0]) // qs[0] is gone already
				},
				func(tx *Tx) { tx.Add(qs[5], qs[6]) }, // there already
			} {
				v, before := n.s.db.MaxVersion(), n.WriteStats()
				if err := n.Update(ctx, func(tx *Tx) error { fn(tx); return nil }); err != nil {
					t.Fatal(err)
				}
				after := n.WriteStats()
				if got, want := after.Entries-before.Entries, versions(v); got != want || after.Deltas != before.Deltas+1 {
					t.Errorf("delta %d: %d entries counted, %d written (%+v)", i, got, want, after)
				}
			}
			if st := n.WriteStats(); (st.Journaled > 0) != (tune.MaxDeltaQuads > 0) {
				t.Errorf("%d deltas journaled of %d", st.Journaled, st.Deltas)
			}
		})
	}
}
