package cortex_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
)

// TestNamespace_TermsBatch checks TermsBatch against Terms on a real store,
// each on a freshly opened store (cold term cache): every id of the
// namespace (enough for ids whose bytes need escaping in keys), 0, ids of
// removed terms, unknown ids, duplicates, in random order, with another
// namespace sharing the id space.
func TestNamespace_TermsBatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	open := func() (*cortex.Store, *cortex.Namespace) { return openColdNS(t, dir, "a") }
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
	removed, _ := n.Dataset().IDs(ctx, []quad.Value{qs[5].Subject, qs[5].Object})
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
	var ids []eval.ID
	it := n.Dataset().Match(ctx, eval.Pattern{})
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
	want, err := n.Dataset().Terms(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	// A small batch (point reads) on a cold cache: a few ids, 0, a removed
	// term, an unknown id and a duplicate.
	s, n = open()
	small := []eval.ID{ids[0], 0, removed[0], ids[1], 1 << 41, ids[0], ids[2]}
	smallWant, err := n.Dataset().Terms(ctx, small)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, n = open()
	got, err := n.Dataset().TermsBatch(ctx, small)
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
		got, err := n.Dataset().TermsBatch(ctx, ids)
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
	if _, err := n.Dataset().TermsBatch(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

// TestNamespace_TermsBatch_TermKinds reads back every kind of term Cortex
// stores (IRIs, blank nodes, plain, language-tagged and typed literals,
// empty and non-ASCII values) through the batched reader on a cold cache:
// enough distinct terms for concurrent key ranges and for ids whose second
// byte needs escaping in keys ('/' = 0x2f, '\' = 0x5c). TermsBatch must agree
// with Terms (point reads, generic decoding) and return the stored terms.
func TestNamespace_TermsBatch_TermKinds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	open := func() (*cortex.Store, *cortex.Namespace) { return openColdNS(t, dir, "k") }
	kinds := []func(i int) quad.Value{
		func(i int) quad.Value { return iri("o" + strconv.Itoa(i)) },
		func(i int) quad.Value { return quad.BNode("b" + strconv.Itoa(i)) },
		func(i int) quad.Value { return quad.String("plain " + strconv.Itoa(i)) },
		func(i int) quad.Value { return quad.String("") },
		func(i int) quad.Value { return quad.String("ünï\u00a0\"quoted\"\n" + strconv.Itoa(i)) },
		func(i int) quad.Value {
			return quad.LangString{Value: quad.String("hallo " + strconv.Itoa(i)), Lang: "de-CH"}
		},
		func(i int) quad.Value {
			return quad.TypedString{Value: quad.String("2025-03-01T09:00:0" + strconv.Itoa(i%10) + "Z"), Type: "http://www.w3.org/2001/XMLSchema#dateTime"}
		},
		func(i int) quad.Value {
			return quad.TypedString{Value: quad.String("0" + strconv.Itoa(i)), Type: "http://www.w3.org/2001/XMLSchema#integer"}
		},
		func(i int) quad.Value {
			return quad.TypedString{Value: quad.String("x" + strconv.Itoa(i)), Type: quad.IRI("http://example.org/dt#" + strconv.Itoa(i%5))}
		},
		func(i int) quad.Value { return quad.TypedString{Value: "", Type: "http://example.org/empty"} },
	}
	s, n := open()
	var qs []quad.Quad
	stored := map[quad.Value]bool{}
	for i := range 10000 {
		q := quad.Quad{Subject: iri("s" + strconv.Itoa(i)), Predicate: iri("p" + strconv.Itoa(i%3)), Object: kinds[i%len(kinds)](i)}
		if i%2 == 0 {
			q.Label = iri("g" + strconv.Itoa(i%4))
		}
		qs = append(qs, q)
		for _, v := range []quad.Value{q.Subject, q.Predicate, q.Object, q.Label} {
			if v != nil {
				stored[v] = true
			}
		}
	}
	if _, err := n.Import(ctx, &cortextest.SliceSource{Quads: qs}, cortex.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	var ids []eval.ID
	it := n.Dataset().Match(ctx, eval.Pattern{})
	for it.Next(ctx) {
		q := it.Quad()
		ids = append(ids, q.S, q.P, q.O, q.G)
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	it.Close()
	var maxID eval.ID
	for _, id := range ids {
		maxID = max(maxID, id)
	}
	if maxID < 0x5d00 {
		t.Fatalf("largest id %#x: too small to need escaping in its second byte", maxID)
	}
	rand.New(rand.NewPCG(3, 4)).Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	s.Close()

	s, n = open()
	want, err := n.Dataset().Terms(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, n = open()
	defer s.Close()
	got, err := n.Dataset().TermsBatch(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[quad.Value]bool{}
	for i, id := range ids {
		if got[i] != want[i] {
			t.Fatalf("id %d: TermsBatch %#v, Terms %#v", id, got[i], want[i])
		}
		if id != 0 && !stored[got[i]] {
			t.Fatalf("id %d: %#v was never stored", id, got[i])
		}
		seen[got[i]] = true
	}
	for v := range stored {
		if !seen[v] {
			t.Fatalf("%#v not returned", v)
		}
	}
}

// openColdNS opens the store in dir (a fresh process's view: empty term
// cache) and its namespace name.
func openColdNS(t *testing.T, dir, name string) (*cortex.Store, *cortex.Namespace) {
	t.Helper()
	s := cortextest.OpenStore(t, dir, cortex.DefaultOptions().WithSyncWrites(false))
	n, err := s.Namespace(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return s, n
}
