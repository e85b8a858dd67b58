package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/cayleygraph/quad"
)

func snapTestNamespace(t *testing.T) *Namespace {
	t.Helper()
	ctx := context.Background()
	s := testStore(t, t.TempDir(), DefaultOptions().WithSyncWrites(false))
	n, err := s.Namespace(ctx, "snap")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func sx(s string) quad.IRI { return quad.IRI("http://ex.org/" + s) }

func mustIDs(t *testing.T, n *Namespace, vals ...quad.Value) []termID {
	t.Helper()
	ids, err := n.termIDsOf(context.Background(), vals)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func collectSnap(t *testing.T, it *snapIter) []idQuad {
	t.Helper()
	defer it.Close()
	var out []idQuad
	for it.Next(context.Background()) {
		out = append(out, it.Quad())
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSnapshot_MergeCopiesOfATriple(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := snapTestNamespace(t)
	var add []quad.Quad
	for _, g := range []quad.Value{nil, sx("g1"), sx("g2"), sx("g3")} {
		add = append(add,
			quad.Quad{Subject: sx("a"), Predicate: sx("p"), Object: sx("b"), Label: g},
			quad.Quad{Subject: sx("a"), Predicate: sx("p"), Object: sx("c"), Label: g})
	}
	add = append(add, quad.Quad{Subject: sx("a"), Predicate: sx("q"), Object: sx("b"), Label: sx("g2")})
	if err := n.Apply(ctx, Delta{Add: add}); err != nil {
		t.Fatal(err)
	}
	ids := mustIDs(t, n, sx("a"), sx("p"), sx("b"))
	s, err := n.openSnapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	cases := []struct {
		name  string
		p     idPattern
		merge bool
		want  int
	}{
		{"all quads", idPattern{}, false, 9},
		{"all triples", idPattern{}, true, 3},
		{"subject, merged", idPattern{S: ids[0]}, true, 3},
		{"predicate, merged", idPattern{P: ids[1]}, true, 2},
		{"object, merged", idPattern{O: ids[2]}, true, 2},
		{"subject and object, merged", idPattern{S: ids[0], O: ids[2]}, true, 2},
		{"fully bound, merged", idPattern{S: ids[0], P: ids[1], O: ids[2]}, true, 1},
		{"named graphs are not merged", idPattern{P: ids[1], Scope: NamedGraphs}, true, 6},
		{"default graph", idPattern{P: ids[1], Scope: DefaultGraph}, true, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := collectSnap(t, s.match(c.p, c.merge))
			if len(got) != c.want {
				t.Errorf("got %d quads %v, want %d", len(got), got, c.want)
			}
			if n, err := s.count(ctx, c.p, c.merge, 1<<20); err != nil || n != int64(c.want) {
				t.Errorf("count = %d, %v; want %d", n, err, c.want)
			}
		})
	}
	if n, err := s.count(ctx, idPattern{}, false, 4); err != nil || n != 4 {
		t.Errorf("bounded count = %d, %v; want 4", n, err)
	}
	gs, err := s.graphs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 4 || gs[0] != 0 {
		t.Errorf("graphs = %v, want the default graph and 3 named graphs", gs)
	}
}

func TestSnapshot_SkipGroup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := snapTestNamespace(t)
	sizes := []int{3, 2*skipAhead + 5, 1, skipAhead, skipAhead + 1}
	var add []quad.Quad
	for o, size := range sizes {
		for i := 0; i < size; i++ {
			add = append(add, quad.Quad{Subject: sx(fmt.Sprintf("s%d-%d", o, i)), Predicate: sx("p"), Object: quad.String(fmt.Sprint(o))})
		}
	}
	if err := n.Apply(ctx, Delta{Add: add}); err != nil {
		t.Fatal(err)
	}
	p := mustIDs(t, n, sx("p"))[0]
	s, err := n.openSnapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()

	// Skipping after the first quad of every group reads one quad per group.
	it := s.match(idPattern{P: p}, true)
	var objs []termID
	for it.Next(ctx) {
		objs = append(objs, it.Quad().O)
		it.SkipGroup(quad.Object)
	}
	it.Close()
	if len(objs) != len(sizes) {
		t.Fatalf("got %d groups, want %d", len(objs), len(sizes))
	}
	seen := map[termID]bool{}
	for _, o := range objs {
		if seen[o] {
			t.Fatalf("object %d reported twice: %v", o, objs)
		}
		seen[o] = true
	}

	// Skipping every other group keeps the other groups whole.
	it = s.match(idPattern{P: p}, true)
	total, groups := 0, 0
	var last termID
	for it.Next(ctx) {
		q := it.Quad()
		if q.O != last {
			groups++
			last = q.O
		}
		if groups%2 == 0 {
			it.SkipGroup(quad.Object)
			continue
		}
		total++
	}
	it.Close()
	if groups != len(sizes) {
		t.Errorf("saw %d groups, want %d", groups, len(sizes))
	}
	if total == 0 || total == len(add) {
		t.Errorf("kept %d of %d quads", total, len(add))
	}

	// A position the scan does not group by is not skipped.
	it = s.match(idPattern{P: p}, true)
	c := 0
	for it.Next(ctx) {
		c++
		it.SkipGroup(quad.Subject)
	}
	it.Close()
	if c != len(add) {
		t.Errorf("skipping by subject in a predicate-object scan read %d quads, want all %d", c, len(add))
	}
}

func TestSnapshot_ConsistentAndReleased(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := snapTestNamespace(t)
	if err := n.Apply(ctx, Delta{Add: []quad.Quad{{Subject: sx("a"), Predicate: sx("p"), Object: quad.String("1")}}}); err != nil {
		t.Fatal(err)
	}
	s, err := n.openSnapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Apply(ctx, Delta{Add: []quad.Quad{{Subject: sx("b"), Predicate: sx("p"), Object: quad.String("2")}}}); err != nil {
		t.Fatal(err)
	}
	if got := collectSnap(t, s.match(idPattern{}, true)); len(got) != 1 {
		t.Errorf("snapshot sees %d quads, want the 1 committed before it opened", len(got))
	}
	ids, err := s.ids(ctx, []quad.Value{sx("a"), sx("b"), quad.String("1")})
	if err != nil {
		t.Fatal(err)
	}
	if ids[0] == 0 || ids[1] != 0 || ids[2] == 0 {
		t.Errorf("ids in snapshot = %v, want a and \"1\" only", ids)
	}
	terms := make([]quad.Value, 2)
	if err := s.terms(ctx, []termID{ids[0], ids[2]}, terms); err != nil {
		t.Fatal(err)
	}
	if terms[0] != sx("a") || terms[1] != quad.String("1") {
		t.Errorf("terms = %v", terms)
	}
	// Nested scans each hold an iterator; closing the snapshot with one open reports it, and the
	// transaction is released when the scan closes.
	outer := s.match(idPattern{}, true)
	if !outer.Next(ctx) {
		t.Fatal("no quad")
	}
	inner := collectSnap(t, s.match(idPattern{S: outer.Quad().S}, true))
	if len(inner) != 1 {
		t.Errorf("inner scan: %d quads", len(inner))
	}
	if err := s.close(); err == nil {
		t.Error("close with an open scan: no error")
	}
	outer.Close()
	if it := s.match(idPattern{}, true); it.Next(ctx) || it.Err() == nil {
		t.Error("scan of a closed snapshot: no error")
	}
}
