package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/eval"
)

// asyncNamespace returns namespace "ns" of a checked test store whose
// UpdateAsync commits wait until release is closed.
func asyncNamespace(t *testing.T) (n *Namespace, release func()) {
	t.Helper()
	hold := make(chan struct{})
	o := DefaultOptions().WithSyncWrites(false)
	o.hooks.asyncCommit = func() error { <-hold; return nil }
	return testNamespace(t, o), sync.OnceFunc(func() { close(hold) })
}

func pq(s, o string) quad.Quad {
	return quad.Quad{Subject: quad.IRI("http://e/" + s), Predicate: quad.IRI("http://e/p"), Object: quad.String(o), Label: quad.IRI("http://e/g")}
}

func stage(t *testing.T, n *Namespace, fn func(tx *Tx) error) func() error {
	t.Helper()
	wait, err := n.UpdateAsync(context.Background(), fn)
	if err != nil {
		t.Fatal(err)
	}
	return wait
}

func sizeOf(t *testing.T, n *Namespace) int64 {
	t.Helper()
	size, err := n.Size(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return size
}

// TestUpdateAsync_StagedOnTheFlight: a delta staged while the one before it
// has not committed is computed as if it had: adding a quad it added is
// nothing, removing one it added removes it, with the reference counts and
// the size exact (Check, when the test ends), and a side-table row it wrote
// is read back. Readers see neither before they commit.
func TestUpdateAsync_StagedOnTheFlight(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n, release := asyncNamespace(t)
	defer release()
	a := stage(t, n, func(tx *Tx) error {
		tx.Add(pq("s1", "new-term-1"), pq("s2", "new-term-2"))
		tx.PutSide("t", "k", []quad.Value{quad.String("a")})
		return nil
	})
	b := stage(t, n, func(tx *Tx) error {
		if !tx.InFlight() {
			t.Error("InFlight: false while the delta before has not committed")
		}
		tx.Add(pq("s1", "new-term-1"), pq("s3", "new-term-2"))
		tx.Remove(pq("s2", "new-term-2"))
		tx.DeleteSide("t", "k")
		tx.PutSide("t", "k2", []quad.Value{quad.String("b")})
		return nil
	})
	if got := sizeOf(t, n); got != 0 {
		t.Errorf("size %d before the commits, want 0 (readers see committed writes only)", got)
	}
	release()
	if err := a(); err != nil {
		t.Fatal(err)
	}
	if err := b(); err != nil {
		t.Fatal(err)
	}
	if got := sizeOf(t, n); got != 2 {
		t.Errorf("size %d, want 2", got)
	}
	for q, want := range map[quad.Quad]bool{pq("s1", "new-term-1"): true, pq("s2", "new-term-2"): false, pq("s3", "new-term-2"): true} {
		if got := hasQuad(t, n, q); got != want {
			t.Errorf("%v live: %v, want %v", q, got, want)
		}
	}
	if _, found, err := n.SideRow(ctx, "t", "k"); err != nil || found {
		t.Errorf("row k: found %v, %v; want deleted", found, err)
	}
	if vals, found, err := n.SideRow(ctx, "t", "k2"); err != nil || !found || len(vals) != 1 {
		t.Errorf("row k2: %v %v %v", vals, found, err)
	}
}

// TestUpdateAsync_AFailedCommitFailsTheOnesAfter: a delta staged on one whose
// commit fails fails too, writing nothing, and the writes after start from
// the store as committed (the node cache forgets the nodes the failed ones
// created; Check, when the test ends, verifies the counts).
func TestUpdateAsync_AFailedCommitFailsTheOnesAfter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	injected := errors.New("injected commit failure")
	hold := make(chan struct{})
	fail := true
	o := DefaultOptions().WithSyncWrites(false)
	o.hooks.asyncCommit = func() error {
		<-hold
		if fail {
			fail = false
			return injected
		}
		return nil
	}
	n := testNamespace(t, o)
	if err := n.Apply(ctx, Delta{Add: []quad.Quad{pq("base", "old")}}); err != nil {
		t.Fatal(err)
	}
	a := stage(t, n, func(tx *Tx) error { tx.Add(pq("s1", "fresh")); tx.Remove(pq("base", "old")); return nil })
	b := stage(t, n, func(tx *Tx) error { tx.Add(pq("s2", "fresh")); return nil })
	close(hold)
	if err := a(); !errors.Is(err, injected) {
		t.Fatalf("first: %v, want the injected failure", err)
	}
	if err := b(); !errors.Is(err, injected) {
		t.Fatalf("second: %v, want it to fail with the first", err)
	}
	if got := sizeOf(t, n); got != 1 || !hasQuad(t, n, pq("base", "old")) {
		t.Errorf("size %d after two failed writes, want the 1 quad before them", got)
	}
	// The terms the failed deltas created do not exist: writing them again
	// creates them (a cache that kept them would point at no node).
	c := stage(t, n, func(tx *Tx) error { tx.Add(pq("s1", "fresh"), pq("s4", "fresh")); return nil })
	if err := c(); err != nil {
		t.Fatal(err)
	}
	if err := n.Apply(ctx, Delta{Add: []quad.Quad{pq("s5", "fresh")}}); err != nil {
		t.Fatal(err)
	}
	if got := sizeOf(t, n); got != 4 {
		t.Errorf("size %d, want 4", got)
	}
	CheckFormat(t, n)
}

// TestUpdateAsync_OtherWritersSettle: Apply, Update and TryUpdate wait for
// the deltas in flight before they compute theirs, and so does Settle
// inside UpdateAsync: each removes the quad the one before it added, which
// it would not find if it read the store before that one committed.
func TestUpdateAsync_OtherWritersSettle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		write func(n *Namespace, q quad.Quad) error
	}{
		{"Apply", func(n *Namespace, q quad.Quad) error { return n.Apply(ctx, Delta{Remove: []quad.Quad{q}}) }},
		{"Update", func(n *Namespace, q quad.Quad) error {
			return n.Update(ctx, func(tx *Tx) error {
				if tx.InFlight() {
					return errors.New("InFlight inside Update")
				}
				tx.Remove(q)
				return nil
			})
		}},
		{"Settle", func(n *Namespace, q quad.Quad) error {
			wait, err := n.UpdateAsync(ctx, func(tx *Tx) error {
				tx.Settle()
				if tx.InFlight() {
					return errors.New("InFlight after Settle")
				}
				if size, err := tx.Namespace().Size(ctx); err != nil || size != 1 {
					return fmt.Errorf("size after Settle: %d, %v; want 1", size, err)
				}
				tx.Remove(q)
				return nil
			})
			if err != nil {
				return err
			}
			return wait()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n, release := asyncNamespace(t)
			defer release()
			q := pq("s", "o")
			a := stage(t, n, func(tx *Tx) error { tx.Add(q); return nil })
			done := make(chan error, 1)
			go func() { done <- tc.write(n, q) }()
			release()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if err := a(); err != nil {
				t.Fatal(err)
			}
			if hasQuad(t, n, q) || sizeOf(t, n) != 0 {
				t.Errorf("the quad the delta in flight added is still there: the write after did not wait for it")
			}
		})
	}
}

// TestUpdateAsync_Concurrent: writers staging deltas with UpdateAsync, beside
// Apply and readers, under -race; each writer adds its quads and removes
// the ones it added before, so the end state is known; Check runs when the
// test ends.
func TestUpdateAsync_Concurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := testNamespace(t, DefaultOptions().WithSyncWrites(false))
	const writers, rounds = 4, 40
	var wg sync.WaitGroup
	errs := make(chan error, writers*rounds+1)
	for w := range writers {
		wg.Go(func() {
			var waits []func() error
			for r := range rounds {
				cur := pq(fmt.Sprintf("w%d", w), fmt.Sprintf("r%d", r))
				shared := pq("shared", fmt.Sprintf("r%d", r%5))
				write := func(tx *Tx) error {
					tx.Add(cur, shared)
					if r > 0 {
						tx.Remove(pq(fmt.Sprintf("w%d", w), fmt.Sprintf("r%d", r-1)))
					}
					return nil
				}
				if w == 0 && r%3 == 0 {
					if err := n.Update(ctx, write); err != nil {
						errs <- err
					}
					continue
				}
				wait, err := n.UpdateAsync(ctx, write)
				if err != nil {
					errs <- err
					continue
				}
				waits = append(waits, wait)
			}
			for _, wait := range waits {
				if err := wait(); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Go(func() {
		for range 50 {
			if _, err := n.Size(ctx); err != nil {
				errs <- err
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// Each writer's last quad, and the five shared ones.
	if got := sizeOf(t, n); got != writers+5 {
		t.Errorf("size %d, want %d", got, writers+5)
	}
	CheckFormat(t, n)
}

// hasQuad reports whether q is live in n.
func hasQuad(t *testing.T, n *Namespace, q quad.Quad) bool {
	t.Helper()
	qs, err := n.Quads(context.Background(), Pattern{Subject: q.Subject, Predicate: q.Predicate, Object: q.Object, Graph: q.Label, Scope: eval.OneGraph})
	if err != nil {
		t.Fatal(err)
	}
	return len(qs) > 0
}
