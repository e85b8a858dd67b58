package cortex_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
)

// TestNamespace_TermsBatch checks TermsBatch against Terms on a real store,
// each on a freshly opened store (cold term cache): every id of the
// namespace (enough for ids whose bytes need escaping in keys), 0, ids of
// removed terms, unknown ids, duplicates, in random order, with another
// namespace sharing the id space.
func TestNamespace_TermsBatch(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	opts := cortex.DefaultOptions().WithSyncWrites(false)
	open := func() (*cortex.Store, *cortex.Namespace) {
		t.Helper()
		s, err := cortex.Open(ctx, dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		n, err := s.Namespace(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		return s, n
	}
	s, n := open()
	var qs []quad.Quad
	for i := range 3000 {
		qs = append(qs, quad.Quad{
			Subject: iri("s" + strconv.Itoa(i)), Predicate: iri("p" + strconv.Itoa(i%7)),
			Object: quad.LangString{Value: quad.String("v" + strconv.Itoa(i)), Lang: "en"}, Label: iri("g" + strconv.Itoa(i%3)),
		})
	}
	if _, err := n.Import(ctx, &cortextest.SliceSource{Quads: qs}, cortex.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	removed, _ := n.IDs(ctx, []quad.Value{qs[5].Subject, qs[5].Object})
	if err := n.Apply(ctx, cortex.Delta{Remove: qs[5:6]}); err != nil {
		t.Fatal(err)
	}
	other, err := s.Namespace(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Apply(ctx, cortex.Delta{Add: []quad.Quad{{Subject: iri("x"), Predicate: iri("y"), Object: quad.String("only in b")}}}); err != nil {
		t.Fatal(err)
	}
	var ids []cortex.ID
	it := n.MatchIDs(ctx, cortex.IDPattern{})
	for it.Next(ctx) {
		q := it.Quad()
		ids = append(ids, q.S, q.P, q.O, q.G)
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	it.Close()
	ids = append(ids, 0, removed[0], removed[1], 1<<40, ids[0], ids[1])
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	s.Close()

	s, n = open()
	want, err := n.Terms(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	// A small batch (point reads) on a cold cache: a few ids, 0, a removed
	// term, an unknown id and a duplicate.
	s, n = open()
	small := []cortex.ID{ids[0], 0, removed[0], ids[1], 1 << 41, ids[0], ids[2]}
	smallWant, err := n.Terms(ctx, small)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, n = open()
	got, err := n.TermsBatch(ctx, small)
	if err != nil {
		t.Fatal(err)
	}
	for i := range small {
		if got[i] != smallWant[i] {
			t.Fatalf("small batch: id %d: got %v, want %v", small[i], got[i], smallWant[i])
		}
	}
	s.Close()

	s, n = open()
	defer s.Close()
	for _, pass := range []string{"cold", "cached"} {
		got, err := n.TermsBatch(ctx, ids)
		if err != nil {
			t.Fatalf("%s: %v", pass, err)
		}
		if len(got) != len(ids) {
			t.Fatalf("%s: %d terms for %d ids", pass, len(got), len(ids))
		}
		nils := 0
		for i := range ids {
			if got[i] != want[i] {
				t.Fatalf("%s: id %d: got %v, want %v", pass, ids[i], got[i], want[i])
			}
			if got[i] == nil {
				nils++
			}
		}
		if nils != 4 { // 0, the two removed terms, 1<<40
			t.Fatalf("%s: %d unresolved ids, want 4", pass, nils)
		}
	}
	if _, err := n.TermsBatch(ctx, nil); err != nil {
		t.Fatal(err)
	}
}
