package engine

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/cayleygraph/quad"
)

// TestDropGraph_CountUnderConcurrentWriters: DropGraph returns the number
// of quads it removed, while other writers add and remove quads of the same
// graph and of others. Each writer's change is an Update that checks the
// quad first, so every writer knows exactly what it changed; what DropGraph
// removed is then what the graph held, plus what was added to it, less what
// writers removed from it and what it holds at the end. Check verifies the
// namespace's size and the rest.
func TestDropGraph_CountUnderConcurrentWriters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := testNamespace(t, DefaultOptions().WithSyncWrites(false))
	p := quad.IRI("http://e/p")
	const size = dropGraphBatch / 2
	for round := range 2 {
		g := quad.IRI(fmt.Sprintf("http://e/g%d", round))
		h := quad.IRI(fmt.Sprintf("http://e/h%d", round))
		var initial []quad.Quad
		for i := range size {
			initial = append(initial, quad.Quad{Subject: quad.IRI(fmt.Sprintf("http://e/s%d", i)), Predicate: p, Object: quad.String(fmt.Sprint("v", i)), Label: g})
		}
		if err := n.Apply(ctx, Delta{Add: initial}); err != nil {
			t.Fatal(err)
		}
		inG := Pattern{Graph: g, Scope: OneGraph}
		// change adds q (if absent) or removes it (if present), atomically,
		// and reports whether it did.
		change := func(q quad.Quad, add bool) (bool, error) {
			done := false
			err := n.Update(ctx, func(tx *Tx) error {
				qs, err := tx.Namespace().Quads(ctx, Pattern{Subject: q.Subject, Predicate: q.Predicate, Object: q.Object, Graph: q.Label, Scope: OneGraph})
				if err != nil {
					return err
				}
				switch {
				case add && len(qs) == 0:
					tx.Add(q)
					done = true
				case !add && len(qs) == 1:
					tx.Remove(q)
					done = true
				}
				return nil
			})
			return done && err == nil, err
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var added, removedByWriters int64
		// Writer 1: removes quads of g (from its last) and adds new ones
		// to it, a bounded number of times.
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if i >= 100 {
					<-stop // a bounded number of changes: DropGraph ends
					return
				}
				{
					ok, err := change(initial[size-1-i], false)
					if err != nil {
						t.Error(err)
						return
					}
					if ok {
						removedByWriters++
					}
				}
				if i%3 == 0 {
					q := quad.Quad{Subject: quad.IRI(fmt.Sprintf("http://e/new%d", i)), Predicate: p, Object: quad.String("new"), Label: g}
					ok, err := change(q, true)
					if err != nil {
						t.Error(err)
						return
					}
					if ok {
						added++
					}
				}
			}
		}()
		// Writer 2: other graphs (a named one and the default one).
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if i >= 100 {
					<-stop
					return
				}
				q := quad.Quad{Subject: quad.IRI(fmt.Sprintf("http://e/o%d", i%50)), Predicate: p, Object: quad.String("o"), Label: h}
				if i%2 == 1 {
					q.Label = nil
				}
				if _, err := change(q, i%4 < 2); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		dropped, err := n.DropGraph(ctx, g)
		close(stop)
		wg.Wait()
		if err != nil {
			t.Fatal(err)
		}
		left, err := n.Quads(ctx, inG)
		if err != nil {
			t.Fatal(err)
		}
		if want := size + added - removedByWriters - int64(len(left)); dropped != want {
			t.Errorf("round %d: DropGraph reported %d quads removed; the graph held %d, writers added %d and removed %d, %d are left: it removed %d",
				round, dropped, size, added, removedByWriters, len(left), want)
		}
		if err := n.Check(ctx); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
}
