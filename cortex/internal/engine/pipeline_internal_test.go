package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/cayleygraph/quad"
	hkv "github.com/hidal-go/hidalgo/kv"

	"github.com/cortexgraph/cortex/cortex/internal/layout"
)

// heldCommits is a handOver hook that holds every pipelined commit until
// release is called: so a test decides when a commit is in flight.
type heldCommits struct {
	mu   sync.Mutex
	held []func()
	fail map[int]error // the n-th hand-over (from 0) fails with this error
	n    int
}

func (h *heldCommits) handOver(commit, discard func(), done func(error)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.fail[h.n]; err != nil {
		h.held = append(h.held, func() { discard(); done(err) })
	} else {
		h.held = append(h.held, commit)
	}
	h.n++
}

// release hands the held commits over to Badger (or fails them).
func (h *heldCommits) release() {
	h.mu.Lock()
	held := h.held
	h.held = nil
	h.mu.Unlock()
	for _, c := range held {
		c()
	}
}

// liveQuads returns the quads of n, sorted.
func liveQuads(t *testing.T, n *Namespace) []string {
	t.Helper()
	var out []string
	err := n.EachQuad(context.Background(), Pattern{}, func(q quad.Quad) error {
		out = append(out, q.String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func sortedKeys(m map[quad.Quad]bool) []string {
	var out []string
	for q := range m {
		out = append(out, q.String())
	}
	slices.Sort(out)
	return out
}

// TestUpdateAsync_OverlapsAndStaysExact: pipelined deltas that share terms,
// free them, add quads that exist and remove quads the delta in flight
// added, each computed while the one before it is still in flight (its
// commit held until the next one's fn runs), leave the namespace exactly
// as the same deltas applied one by one would (its content, and Check's
// invariants: index keys, sizes, reference counts, side-table stamps),
// also when other writes of the namespace, journaled deltas, imports and
// another namespace's writes come in between (the last while the commit is
// in flight, between the next delta's snapshot and its commit). Without the overlay of the
// commit in flight (deltaTx.prev), the deltas would read reference counts,
// ids and the horizon from before it.
func TestUpdateAsync_OverlapsAndStaysExact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := &heldCommits{}
	o := DefaultOptions().WithSyncWrites(false).WithTuning(Tuning{MaxDeltaQuads: 64})
	o.hooks.handOver = h.handOver
	s := testStore(t, t.TempDir(), o)
	n, err := s.Namespace(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.Namespace(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	q := func() quad.Quad {
		return quad.Quad{
			Subject:   quad.IRI(fmt.Sprint("http://x/s", rng.IntN(6))),
			Predicate: quad.IRI(fmt.Sprint("http://x/p", rng.IntN(3))),
			Object:    quad.String(fmt.Sprint("o", rng.IntN(8))),
			Label:     quad.IRI(fmt.Sprint("http://x/g", rng.IntN(2))),
		}
	}
	live := map[quad.Quad]bool{}
	var waits []func() error
	settleAll := func() {
		h.release()
		for _, w := range waits {
			if err := w(); err != nil {
				t.Fatal(err)
			}
		}
		waits = nil
	}
	for step := range 200 {
		var d Delta
		if step%10 == 9 { // drop every quad of one object: its node is freed
			o := quad.String(fmt.Sprint("o", rng.IntN(8)))
			for x := range live {
				if x.Object == o {
					d.Remove = append(d.Remove, x)
					delete(live, x)
				}
			}
		}
		inDelta := map[quad.Quad]bool{}
		for _, x := range d.Remove {
			inDelta[x] = true
		}
		for range 1 + rng.IntN(6) {
			x := q()
			if inDelta[x] {
				continue // (a quad in both lists ends up present)
			}
			inDelta[x] = true
			switch {
			case live[x] && rng.IntN(3) > 0:
				d.Remove = append(d.Remove, x)
				delete(live, x)
			case live[x]:
				d.Add = append(d.Add, x) // exists: nothing to write
			default:
				d.Add = append(d.Add, x)
				live[x] = true
			}
		}
		runs := 0
		wait, err := n.UpdateAsync(ctx, func(tx *Tx) error {
			runs++
			// The commit before this delta is in flight until now.
			h.release()
			tx.Add(d.Add...)
			tx.Remove(d.Remove...)
			tx.PutSide("t", fmt.Sprint("row", step%7), []quad.Value{quad.String(fmt.Sprint(step))})
			if step%5 == 0 {
				tx.DeleteSide("t", fmt.Sprint("row", (step+3)%7))
			}
			tx.KeepSide("t")
			return nil
		})
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		waits = append(waits, wait)
		switch step % 25 {
		case 6: // a write of the namespace: it waits for the one in flight
			settleAll()
			x := q()
			if err := n.Apply(ctx, Delta{Add: []quad.Quad{x}}); err != nil {
				t.Fatal(err)
			}
			live[x] = true
		case 12: // a journaled delta
			settleAll()
			var big Delta
			for i := range 70 {
				x := q()
				x.Label = quad.IRI(fmt.Sprint("http://x/big", step, "-", i))
				big.Add = append(big.Add, x)
				live[x] = true
			}
			if err := n.Apply(ctx, big); err != nil {
				t.Fatal(err)
			}
		case 18: // an import
			settleAll()
			var qs []quad.Quad
			for range 5 {
				if x := q(); !live[x] {
					qs = append(qs, x)
					live[x] = true
				}
			}
			if _, err := n.Import(ctx, &sliceSource{qs: qs}, ImportOptions{}); err != nil {
				t.Fatal(err)
			}
		case 21: // another namespace commits while this one's is in flight
			if err := other.Apply(ctx, Delta{Add: []quad.Quad{q()}}); err != nil {
				t.Fatal(err)
			}
		}
		if step%20 == 19 {
			settleAll()
			if got, want := liveQuads(t, n), sortedKeys(live); !slices.Equal(got, want) {
				t.Fatalf("step %d: the namespace holds %d quads, want %d", step, len(got), len(want))
			}
			if err := n.Check(ctx); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
		}
	}
	settleAll()
	if got, want := liveQuads(t, n), sortedKeys(live); !slices.Equal(got, want) {
		t.Fatalf("the namespace holds %d quads, want %d", len(got), len(want))
	}
	// Most deltas were computed over the one in flight, and none again
	// (another namespace's commit in between does not matter).
	if p := s.counters.pipelined.Load(); p < 150 {
		t.Fatalf("%d of 200 deltas were computed over a commit in flight", p)
	}
	if r := s.counters.pipelineRedo.Load(); r != 0 {
		t.Fatalf("%d deltas were computed again", r)
	}
}

var errInjected = errors.New("injected commit failure")

// TestUpdateAsync_FailedCommitRedoesNext: when the commit in flight fails,
// nothing of it is written, its wait reports the error, and the delta
// computed over it is computed again (its fn runs again, with another
// generation) on the namespace without it: the reference counts and ids it
// wrote are those of the store, not of the failed delta. Then the caches
// built on the failed delta are gone for other writers too.
func TestUpdateAsync_FailedCommitRedoesNext(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := &heldCommits{fail: map[int]error{1: errInjected}}
	o := DefaultOptions().WithSyncWrites(false)
	o.hooks.handOver = h.handOver
	s := testStore(t, t.TempDir(), o)
	n, err := s.Namespace(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	iri := func(s string) quad.IRI { return quad.IRI("http://x/" + s) }
	base := quad.Quad{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("kept")}
	wait0, err := n.UpdateAsync(ctx, func(tx *Tx) error { tx.Add(base); return nil })
	if err != nil {
		t.Fatal(err)
	}
	h.release()
	if err := wait0(); err != nil {
		t.Fatal(err)
	}
	// The delta that fails: new terms (ids from the horizon) and more
	// references to existing ones.
	lost := []quad.Quad{
		{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("lost")},
		{Subject: iri("new"), Predicate: iri("p"), Object: quad.String("kept")},
	}
	wait1, err := n.UpdateAsync(ctx, func(tx *Tx) error { tx.Add(lost...); return nil })
	if err != nil {
		t.Fatal(err)
	}
	var gens []uint64
	after := []quad.Quad{
		{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("after")},
		{Subject: iri("new"), Predicate: iri("q"), Object: quad.String("after")},
	}
	wait2, err := n.UpdateAsync(ctx, func(tx *Tx) error {
		gens = append(gens, tx.Generation())
		h.release() // the failing commit fails while this delta is computed
		tx.Add(after...)
		tx.Remove(base)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := wait1(); !errors.Is(err, errInjected) {
		t.Fatalf("wait of the failed commit: %v, want the injected error", err)
	}
	h.release()
	if err := wait2(); err != nil {
		t.Fatal(err)
	}
	if len(gens) != 2 || gens[0] == gens[1] {
		t.Fatalf("fn ran at generations %v: want two runs, at different generations", gens)
	}
	var want []string
	for _, x := range after {
		want = append(want, x.String())
	}
	slices.Sort(want)
	if got := liveQuads(t, n); !slices.Equal(got, want) {
		t.Fatalf("the namespace holds %v, want %v", got, want)
	}
	if err := n.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if r := s.counters.pipelineRedo.Load(); r != 1 {
		t.Fatalf("%d deltas computed again, want 1", r)
	}
	// A synchronous write after a failed flight starts from the store.
	h.fail[3] = errInjected
	wait3, err := n.UpdateAsync(ctx, func(tx *Tx) error { tx.Add(lost...); return nil })
	if err != nil {
		t.Fatal(err)
	}
	h.release()
	if err := n.Apply(ctx, Delta{Add: []quad.Quad{{Subject: iri("new"), Predicate: iri("p"), Object: quad.String("sync")}}}); err != nil {
		t.Fatal(err)
	}
	if err := wait3(); !errors.Is(err, errInjected) {
		t.Fatalf("wait: %v, want the injected error", err)
	}
	if err := n.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestUpdateAsync_Concurrent: UpdateAsync from several goroutines, beside
// Update, Apply and readers, under -race; every delta whose wait returned
// nil is in the store, and the store's invariants hold.
func TestUpdateAsync_Concurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testStore(t, t.TempDir(), DefaultOptions().WithSyncWrites(false))
	n, err := s.Namespace(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	want := make([][]quad.Quad, 4)
	for g := range 4 {
		wg.Go(func() {
			for i := range 60 {
				x := quad.Quad{Subject: quad.IRI(fmt.Sprint("http://x/g", g)), Predicate: quad.IRI("http://x/p"), Object: quad.Int(i)}
				var err error
				switch {
				case g == 3:
					err = n.Apply(ctx, Delta{Add: []quad.Quad{x}})
				default:
					var wait func() error
					wait, err = n.UpdateAsync(ctx, func(tx *Tx) error {
						tx.Add(x)
						tx.PutSide("t", fmt.Sprint(g), []quad.Value{quad.Int(i)})
						return nil
					})
					if err == nil {
						err = wait()
					}
				}
				if err != nil {
					t.Error(err)
					return
				}
				want[g] = append(want[g], x)
			}
		})
	}
	wg.Go(func() {
		for range 50 {
			if _, err := n.Size(ctx); err != nil {
				t.Error(err)
				return
			}
		}
	})
	wg.Wait()
	size, err := n.Size(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if size != 240 {
		t.Fatalf("size %d, want 240", size)
	}
	if err := n.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestUnrecordedIndex: the keys of the indexes after the first, and only
// those, are the ones a pipelined delta's overlay leaves out; the ids in a
// key (any bytes, escaped) do not confuse it.
func TestUnrecordedIndex(t *testing.T) {
	t.Parallel()
	ids := [4]uint64{0x2f2f2f2f, 92, 1 << 40, 7}
	for i := range layout.Indexes {
		k := layout.AppendIndexKey(nil, i, ids)
		if got := unrecordedIndex(k); got != (i > 0) {
			t.Errorf("index %d key %q: unrecorded %v", i, k, got)
		}
	}
	var h [20]byte
	for i := range h {
		h[i] = byte(i * 47)
	}
	for _, k := range []hkv.Key{layout.Node('v', h), layout.Node('n', h), layout.Log(0x2f5c), layout.Pin(3), layout.Horizon, layout.Size, sideRowKey("t", "k"), sideStampKey("t")} {
		if key := layout.Escape(nil, k); unrecordedIndex(key) {
			t.Errorf("key %q: unrecorded", key)
		}
	}
}

// TestUpdateAsync_FnPanics: a fn that panics while a commit is in flight
// leaves nothing open: the lock is free, the commit in flight completes,
// and no transaction is left in the store's gate.
func TestUpdateAsync_FnPanics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := &heldCommits{}
	o := DefaultOptions().WithSyncWrites(false)
	o.hooks.handOver = h.handOver
	s := testStore(t, t.TempDir(), o)
	n, err := s.Namespace(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	x := quad.Quad{Subject: quad.IRI("http://x/s"), Predicate: quad.IRI("http://x/p"), Object: quad.String("o")}
	wait, err := n.UpdateAsync(ctx, func(tx *Tx) error { tx.Add(x); return nil })
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("fn's panic did not reach the caller")
			}
		}()
		_, _ = n.UpdateAsync(ctx, func(tx *Tx) error { panic("boom") })
	}()
	h.release()
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if err := n.Apply(ctx, Delta{Remove: []quad.Quad{x}}); err != nil {
		t.Fatal(err)
	}
	s.gate.mu.Lock()
	open := s.gate.n
	s.gate.mu.Unlock()
	if open != 0 {
		t.Fatalf("%d transactions left open in the gate", open)
	}
}
