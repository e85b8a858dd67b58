package cortex_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
)

// pinsByTerm returns the pinned terms of n, failing on a term pinned twice.
func pinsByTerm(t *testing.T, n *cortex.Namespace) map[quad.Value]eval.ID {
	t.Helper()
	out := map[quad.Value]eval.ID{}
	for id, v := range cortex.Pins(t, n) {
		if other, dup := out[v]; dup {
			t.Fatalf("%s pinned as %d and %d", v, other, id)
		}
		out[v] = id
	}
	return out
}

func TestPins_FollowTheDelta(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s := cortextest.OpenStore(t, dir, cortex.DefaultOptions().WithSyncWrites(false))
	n, err := s.Namespace(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	g := quad.IRI("urn:g")
	team, name, status := quad.IRI("urn:team:1"), quad.String("first team"), quad.String("pending")
	pName, pStatus := quad.IRI("urn:name"), quad.IRI("urn:status")
	other := quad.String("not pinned")
	// status and g exist before they are pinned: they stay unpinned (and
	// are read from the log).
	if err := n.Apply(ctx, cortex.Delta{Add: []quad.Quad{{Subject: quad.IRI("urn:x"), Predicate: pStatus, Object: status, Label: g}}}); err != nil {
		t.Fatal(err)
	}
	err = n.Update(ctx, func(tx *cortex.Tx) error {
		tx.Add(
			quad.Quad{Subject: team, Predicate: pName, Object: name, Label: g},
			quad.Quad{Subject: team, Predicate: pStatus, Object: status, Label: g},
			quad.Quad{Subject: team, Predicate: quad.IRI("urn:note"), Object: other, Label: g},
		)
		// xsd:string form of name: pins are normalised like quads; a term
		// no quad of the delta uses is ignored.
		tx.Pin(team, g, quad.TypedString{Value: "first team", Type: "http://www.w3.org/2001/XMLSchema#string"}, status, quad.String("unused"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := pinsByTerm(t, n)
	want := []quad.Value{team, name}
	if len(got) != len(want) {
		t.Fatalf("pins %v, want %v", got, want)
	}
	ids, err := n.Dataset().IDs(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range want {
		if got[v] != ids[i] {
			t.Errorf("pin of %s: id %d, want %d", v, got[v], ids[i])
		}
	}
	cortex.CheckFormat(t, n)

	// Read back after reopening (no term cache): pinned, unpinned, unknown
	// and zero ids, with duplicates, in a batch large enough for the
	// iterator path and in a small one.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = cortex.Open(ctx, dir, cortex.DefaultOptions().WithSyncWrites(false)); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n, err = s.Namespace(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	terms := []quad.Value{team, g, name, status, other, pName}
	tids, err := n.Dataset().IDs(ctx, terms)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{1, 3, 100} {
		var ask []eval.ID
		var exp []quad.Value
		for i := 0; len(ask) < size; i++ {
			switch i % 8 {
			case 6:
				ask, exp = append(ask, 0), append(exp, nil)
			case 7:
				ask, exp = append(ask, 1<<40), append(exp, nil)
			default:
				ask, exp = append(ask, tids[i%8%len(tids)]), append(exp, terms[i%8%len(tids)])
			}
		}
		vals, err := n.Dataset().PinnedTermsBatch(ctx, ask)
		if err != nil {
			t.Fatal(err)
		}
		for i := range ask {
			if vals[i] != exp[i] {
				t.Errorf("batch of %d: id %d: %v, want %v", size, ask[i], vals[i], exp[i])
			}
		}
	}

	// A delta that frees a pinned term removes its pin, whether it pins
	// the term or not.
	err = n.Update(ctx, func(tx *cortex.Tx) error {
		tx.Remove(quad.Quad{Subject: team, Predicate: pName, Object: name, Label: g})
		tx.Add(quad.Quad{Subject: team, Predicate: pName, Object: quad.String("renamed"), Label: g})
		tx.Pin(name, quad.String("renamed"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got = pinsByTerm(t, n)
	if _, ok := got[name]; ok {
		t.Errorf("the freed name kept its pin")
	}
	if _, ok := got[quad.String("renamed")]; !ok {
		t.Errorf("the new name has no pin")
	}
	if err := n.Apply(ctx, cortex.Delta{Remove: []quad.Quad{{Subject: team, Predicate: pName, Object: quad.String("renamed"), Label: g}}}); err != nil {
		t.Fatal(err)
	}
	if _, ok := pinsByTerm(t, n)[quad.String("renamed")]; ok {
		t.Errorf("an unpinned delta that freed a pinned term left its pin")
	}
	cortex.CheckFormat(t, n)
	// The term comes back with a new id, whose pin is the new one.
	err = n.Update(ctx, func(tx *cortex.Tx) error {
		tx.Add(quad.Quad{Subject: team, Predicate: pName, Object: quad.String("renamed"), Label: g})
		tx.Pin(quad.String("renamed"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	id, err := n.Dataset().IDs(ctx, []quad.Value{quad.String("renamed")})
	if err != nil {
		t.Fatal(err)
	}
	pins := cortex.Pins(t, n)
	if pins[id[0]] != quad.String("renamed") {
		t.Errorf("pin of the new id %d: %v", id[0], pins[id[0]])
	}
	cortex.CheckFormat(t, n)
}

// A delta too large for one transaction is journaled: its pins are written
// and removed alike.
func TestPins_JournaledDelta(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := cortextest.NewNamespace(t, "p")
	g := quad.IRI("urn:g")
	var qs []quad.Quad
	var pin []quad.Value
	for i := range cortex.MaxDeltaQuads + 100 {
		o := quad.String(fmt.Sprint("value ", i))
		qs = append(qs, quad.Quad{Subject: quad.IRI(fmt.Sprint("urn:s", i)), Predicate: quad.IRI("urn:p"), Object: o, Label: g})
		if i%10 == 0 {
			pin = append(pin, o)
		}
	}
	if err := n.Apply(ctx, cortex.Delta{Add: qs, Pin: pin}); err != nil {
		t.Fatal(err)
	}
	got := pinsByTerm(t, n)
	if len(got) != len(pin) {
		t.Fatalf("%d pins, want %d", len(got), len(pin))
	}
	cortex.CheckFormat(t, n)
	if err := n.Apply(ctx, cortex.Delta{Remove: qs, Pin: pin}); err != nil {
		t.Fatal(err)
	}
	if got := cortex.Pins(t, n); len(got) != 0 {
		t.Fatalf("%d pins left after removing every quad", len(got))
	}
	cortex.CheckFormat(t, n)
	// Again, removed by a delta that does not pin them.
	if err := n.Apply(ctx, cortex.Delta{Add: qs, Pin: pin}); err != nil {
		t.Fatal(err)
	}
	if got := cortex.Pins(t, n); len(got) != len(pin) {
		t.Fatalf("%d pins, want %d", len(got), len(pin))
	}
	if err := n.Apply(ctx, cortex.Delta{Remove: qs}); err != nil {
		t.Fatal(err)
	}
	if got := cortex.Pins(t, n); len(got) != 0 {
		t.Fatalf("%d pins left after an unpinned delta removed every quad", len(got))
	}
	cortex.CheckFormat(t, n)
}

// Pinned deltas and PinnedTermsBatch readers run concurrently (go test
// -race): every reader sees each id's own term.
func TestPins_Concurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := cortextest.NewNamespace(t, "p")
	g := quad.IRI("urn:g")
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				o := quad.String(fmt.Sprintf("w%d-%d", w, i))
				err := n.Update(ctx, func(tx *cortex.Tx) error {
					tx.Add(quad.Quad{Subject: quad.IRI(fmt.Sprint("urn:w", w)), Predicate: quad.IRI("urn:p"), Object: o, Label: g})
					tx.Pin(o)
					return nil
				})
				if err != nil {
					errs <- err
					return
				}
				ids, err := n.Dataset().IDs(ctx, []quad.Value{o})
				if err != nil {
					errs <- err
					return
				}
				vals, err := n.Dataset().PinnedTermsBatch(ctx, []eval.ID{ids[0], ids[0]})
				if err != nil {
					errs <- err
					return
				}
				if vals[0] != o || vals[1] != o {
					errs <- fmt.Errorf("id %d: %v, want %v", ids[0], vals, o)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := cortex.Pins(t, n); len(got) != 200 {
		t.Errorf("%d pins, want 200", len(got))
	}
	cortex.CheckFormat(t, n)
}
