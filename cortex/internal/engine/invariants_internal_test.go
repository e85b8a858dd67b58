package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"testing"

	"github.com/cortexgraph/cortex/cortex/internal/layout"

	ckv "github.com/cayleygraph/cayley/graph/kv"
	"github.com/cayleygraph/quad"
)

// TestInvariants_RandomOps applies random additions, removals and imports and
// checks after each step that
//   - the namespace holds exactly the model's quads (through every index),
//   - the size counter is exact,
//   - terms no live quad uses have been garbage-collected (IDs returns 0),
//   - cayley's own quadstore reads the same quads back,
//   - Namespace.Check finds nothing wrong.
//
// It runs twice: with deltas written in one transaction, and with every
// delta journaled (captured, its keys read ahead in ranges at once; it sets
// GOMAXPROCS, so the test is not parallel).
func TestInvariants_RandomOps(t *testing.T) {
	t.Run("transaction", func(t *testing.T) { testInvariantsRandomOps(t, false) })
	t.Run("journaled", func(t *testing.T) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
		testInvariantsRandomOps(t, true)
	})
}

func testInvariantsRandomOps(t *testing.T, journaled bool) {
	ctx := context.Background()
	s := testStore(t, t.TempDir(), DefaultOptions().WithSyncWrites(false).WithChunkQuads(7))
	if journaled {
		// Below what Tuning accepts: every delta is journaled and read
		// ahead in ranges of one key or more (nothing runs on s yet).
		s.tune.MaxDeltaQuads, s.tune.ParallelReadMin = 0, 1
	}
	ns, err := s.Namespace(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	terms := []quad.Value{
		quad.IRI("http://e/a"), quad.IRI("http://e/b"), quad.BNode("x"), quad.String("s"),
		quad.LangString{Value: "s", Lang: "en"}, quad.TypedString{Value: "1", Type: xsd + "integer"},
	}
	graphs := []quad.Value{nil, quad.IRI("http://e/g1"), quad.BNode("g2")}
	randQuad := func() quad.Quad {
		subj := terms[rng.IntN(3)]
		return quad.Quad{
			Subject:   subj,
			Predicate: terms[rng.IntN(2)],
			Object:    terms[rng.IntN(len(terms))],
			Label:     graphs[rng.IntN(len(graphs))],
		}
	}
	model := map[quad.Quad]bool{}
	for step := 0; step < 120; step++ {
		switch op := rng.IntN(3); op {
		case 0, 1:
			var d Delta
			for i := rng.IntN(6); i >= 0; i-- {
				q := randQuad()
				if rng.IntN(2) == 0 {
					d.Add = append(d.Add, q)
				} else {
					d.Remove = append(d.Remove, q)
				}
			}
			if err := ns.Apply(ctx, d); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			added := map[quad.Quad]bool{}
			for _, q := range d.Add {
				added[q] = true
			}
			for _, q := range d.Remove {
				if !added[q] {
					delete(model, q)
				}
			}
			for q := range added {
				model[q] = true
			}
		case 2:
			var qs []quad.Quad
			for i := rng.IntN(20); i >= 0; i-- {
				qs = append(qs, randQuad())
			}
			if _, err := ns.Import(ctx, &sliceSource{qs: qs}, ImportOptions{}); err != nil {
				t.Fatalf("step %d: import: %v", step, err)
			}
			for _, q := range qs {
				model[q] = true
			}
		}
		checkInvariants(t, ctx, ns, model, append(terms, graphs[1:]...), fmt.Sprintf("step %d", step))
	}
	// Remove everything: the namespace must be empty, with no node left.
	var all []quad.Quad
	for q := range model {
		all = append(all, q)
	}
	if err := ns.Apply(ctx, Delta{Remove: all}); err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, ctx, ns, map[quad.Quad]bool{}, append(terms, graphs[1:]...), "after removing all")
}

func quadSet(qs []quad.Quad) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.String()
	}
	sort.Strings(out)
	return out
}

func checkInvariants(t *testing.T, ctx context.Context, ns *Namespace, model map[quad.Quad]bool, terms []quad.Value, where string) {
	t.Helper()
	var want []quad.Quad
	used := map[quad.Value]bool{}
	for q := range model {
		want = append(want, q)
		for _, v := range []quad.Value{q.Subject, q.Predicate, q.Object, q.Label} {
			if v != nil {
				used[v] = true
			}
		}
	}
	wantS := fmt.Sprint(quadSet(want))
	// Every index holds exactly the live quads.
	for i := range layout.Indexes {
		sc := ns.newKeyScanner(context.Background(), scanPlan{ind: i, dirs: [4]quad.Direction(layout.Indexes[i].Dirs)})
		var ids []idQuad
		for {
			q, ok := sc.next(ctx)
			if !ok {
				break
			}
			ids = append(ids, q)
		}
		if sc.err != nil {
			t.Fatalf("%s: scan index %d: %v", where, i, sc.err)
		}
		sc.close()
		var got []quad.Quad
		for _, q := range ids {
			vals, err := ns.termsOf(ctx, []termID{q.S, q.P, q.O, q.G})
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, quad.Quad{Subject: vals[0], Predicate: vals[1], Object: vals[2], Label: vals[3]})
		}
		if g := fmt.Sprint(quadSet(got)); g != wantS {
			t.Fatalf("%s: index %v holds\n%s\nwant\n%s", where, layout.Indexes[i].Dirs, g, wantS)
		}
	}
	if n, err := ns.Size(ctx); err != nil || n != int64(len(want)) {
		t.Fatalf("%s: size %d (%v), want %d", where, n, err, len(want))
	}
	// And the on-disk format (reference counts, orphan terms, pins...).
	if err := ns.Check(ctx); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	// Unused terms are garbage-collected; used ones resolve.
	ids, err := ns.termIDsOf(ctx, terms)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range terms {
		if used[v] != (ids[i] != 0) {
			t.Fatalf("%s: term %v used=%v but id %d", where, v, used[v], ids[i])
		}
	}
	// Cayley's quadstore reads the same data.
	qs, err := ckv.New(ns.kv, qsOptions)
	if err != nil {
		t.Fatal(err)
	}
	it := qs.QuadsAllIterator().Iterate()
	var got []quad.Quad
	for it.Next(ctx) {
		q, err := qs.Quad(it.Result())
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, q)
	}
	it.Close()
	if g := fmt.Sprint(quadSet(got)); g != wantS {
		t.Fatalf("%s: cayley reads\n%s\nwant\n%s", where, g, wantS)
	}
}
