package cortex_test

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
)

// termQuads returns quads over every term kind, in the default graph and
// named graphs (IRI and blank node), with terms shared between quads.
func termQuads(n int) []quad.Quad {
	objs := []quad.Value{
		iri("o"), quad.BNode("b1"), quad.String("plain \"q\" / \\ \n"), quad.String(""),
		quad.LangString{Value: "bonjour", Lang: "fr-BE"},
		quad.TypedString{Value: "01", Type: "http://www.w3.org/2001/XMLSchema#integer"},
		quad.TypedString{Value: "x y", Type: "http://example.org/dt"},
	}
	graphs := []quad.Value{nil, iri("g1"), quad.BNode("g2")}
	var out []quad.Quad
	for j := 0; j < n; j++ {
		i := j % 97 // repeats after 97 quads
		var o quad.Value = objs[i%len(objs)]
		if i%5 == 0 {
			o = quad.String("v" + strconv.Itoa(i))
		}
		out = append(out, quad.Quad{
			Subject:   iri("s" + strconv.Itoa(i%13)),
			Predicate: iri("p" + strconv.Itoa(i%4)),
			Object:    o,
			Label:     graphs[i%len(graphs)],
		})
	}
	return out
}

func distinct(qs ...[]quad.Quad) []quad.Quad {
	seen := map[quad.Quad]bool{}
	var out []quad.Quad
	for _, l := range qs {
		for _, q := range l {
			if !seen[q] {
				seen[q] = true
				out = append(out, q)
			}
		}
	}
	return out
}

func importAll(t *testing.T, ns *cortex.Namespace, qs []quad.Quad) cortex.ImportResult {
	t.Helper()
	res, err := ns.Import(context.Background(), &cortextest.SliceSource{Quads: qs}, cortex.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func checkContents(t *testing.T, ns *cortex.Namespace, want []quad.Quad) {
	t.Helper()
	equalSets(t, cortextest.AllQuads(t, ns), want)
	if n, err := ns.Size(context.Background()); err != nil || n != int64(len(want)) {
		t.Fatalf("size %d (%v), want %d", n, err, len(want))
	}
}

// termsOf returns every distinct term of qs.
func termsOf(qs []quad.Quad) []quad.Value {
	seen := map[quad.Value]bool{}
	var out []quad.Value
	for _, q := range qs {
		for _, v := range []quad.Value{q.Subject, q.Predicate, q.Object, q.Label} {
			if v != nil && !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out
}

func TestImport_Bulk_ReadsBackExactly(t *testing.T) {
	t.Parallel()
	for _, chunk := range []int{1, 4, 50, 8192} {
		t.Run("chunk"+strconv.Itoa(chunk), func(t *testing.T) {
			s := cortextest.NewStore(t, cortex.DefaultOptions().WithSyncWrites(false).WithChunkQuads(chunk))
			ns, err := s.Namespace(context.Background(), "default")
			if err != nil {
				t.Fatal(err)
			}
			in := termQuads(200) // duplicates inside chunks and across them
			res := importAll(t, ns, in)
			if res.Read != int64(len(in)) || res.Committed != int64(len(in)) {
				t.Fatalf("result %+v", res)
			}
			want := distinct(in)
			if len(want) == len(in) {
				t.Fatal("test data has no duplicates")
			}
			checkContents(t, ns, want)
			// Re-importing converges.
			importAll(t, ns, in)
			checkContents(t, ns, want)
		})
	}
}

func TestImport_Bulk_IntoNonEmptyNamespace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := cortextest.NewStore(t, cortex.DefaultOptions().WithSyncWrites(false).WithChunkQuads(7))
	ns, _ := s.Namespace(ctx, "default")
	before := termQuads(60)[20:]
	if err := ns.Apply(ctx, cortex.Delta{Add: distinct(before)}); err != nil {
		t.Fatal(err)
	}
	in := termQuads(120) // overlaps before: shared quads and shared terms
	importAll(t, ns, in)
	checkContents(t, ns, distinct(before, in))
}

// TestImport_Bulk_CayleyDeltasAfterImport removes and re-adds imported quads
// through Apply (cayley's own write path): counts must be exact, so removing
// every quad leaves no term behind.
func TestImport_Bulk_CayleyDeltasAfterImport(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := cortextest.NewStore(t, cortex.DefaultOptions().WithSyncWrites(false).WithChunkQuads(16))
	ns, _ := s.Namespace(ctx, "default")
	in := termQuads(150)
	importAll(t, ns, in)
	all := distinct(in)
	if err := ns.Apply(ctx, cortex.Delta{Remove: all[:40], Add: []quad.Quad{q("new", "p", quad.String("x"), nil)}}); err != nil {
		t.Fatal(err)
	}
	want := append(append([]quad.Quad(nil), all[40:]...), q("new", "p", quad.String("x"), nil))
	checkContents(t, ns, want)
	if err := ns.Apply(ctx, cortex.Delta{Add: all[:10]}); err != nil {
		t.Fatal(err)
	}
	checkContents(t, ns, append(want, all[:10]...))
	for i := 0; i < len(all); i += 1000 {
		if err := ns.Apply(ctx, cortex.Delta{Remove: all[i:min(i+1000, len(all))]}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ns.Apply(ctx, cortex.Delta{Remove: []quad.Quad{q("new", "p", quad.String("x"), nil)}}); err != nil {
		t.Fatal(err)
	}
	checkContents(t, ns, nil)
	ids, err := ns.Dataset().IDs(ctx, termsOf(in))
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		if id != 0 {
			t.Errorf("term %v still has id %d after every quad was removed", termsOf(in)[i], id)
		}
	}
	// The emptied namespace takes a new import.
	importAll(t, ns, in)
	checkContents(t, ns, all)
}

// hookSource calls at(i) before returning quad i.
type hookSource struct {
	qs []quad.Quad
	i  int
	at func(i int)
}

func (s *hookSource) Next() (quad.Quad, error) {
	if s.at != nil {
		s.at(s.i)
	}
	src := cortextest.SliceSource{Quads: s.qs[s.i:]}
	qd, err := src.Next()
	if err == nil {
		s.i++
	}
	return qd, err
}

// TestImport_Bulk_InterleavedApply runs Apply between chunks of an import:
// a removal that deletes terms the import already knows, and additions that
// change reference counts of terms it created.
func TestImport_Bulk_InterleavedApply(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := cortextest.NewStore(t, cortex.DefaultOptions().WithSyncWrites(false).WithChunkQuads(2))
	ns, _ := s.Namespace(ctx, "default")
	a := q("x", "p", iri("y"), nil)
	if err := ns.Apply(ctx, cortex.Delta{Add: []quad.Quad{a}}); err != nil {
		t.Fatal(err)
	}
	in := []quad.Quad{
		a, q("s1", "p", iri("z"), nil), // chunk 1: a exists, so x, y and p are looked up
		q("s2", "p", iri("z"), nil), q("s3", "p", iri("w"), nil), // chunk 2
		q("x", "p2", iri("w"), nil), q("y", "p3", iri("z"), nil), // chunk 3: x and y were deleted meanwhile
		q("s1", "p4", iri("s2"), nil), q("z", "p", quad.String("lit"), iri("g")), // chunk 4
	}
	extra := q("s1", "p", iri("y2"), iri("g")) // shares terms created by the import
	committed := make(chan int64, 16)
	hook := func(i int) {
		switch i {
		case 4: // chunks 1 and 2 were sent; wait until they are committed
			for n := range committed {
				if n >= 4 {
					break
				}
			}
			if err := ns.Apply(ctx, cortex.Delta{Remove: []quad.Quad{a}}); err != nil {
				t.Error(err)
			}
		case 6:
			if err := ns.Apply(ctx, cortex.Delta{Add: []quad.Quad{extra}}); err != nil {
				t.Error(err)
			}
		}
	}
	_, err := ns.Import(ctx, &hookSource{qs: in, at: hook}, cortex.ImportOptions{
		Progress: func(n int64) { committed <- n },
	})
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]quad.Quad(nil), in[1:]...), extra)
	checkContents(t, ns, want)
	// Counts are exact: removing all quads but one keeps that one's terms,
	// removing it too leaves no term.
	keep := in[6] // s1 p4 s2: s1 was created by the import and used by extra
	var rest []quad.Quad
	for _, q := range want {
		if q != keep {
			rest = append(rest, q)
		}
	}
	if err := ns.Apply(ctx, cortex.Delta{Remove: rest}); err != nil {
		t.Fatal(err)
	}
	checkContents(t, ns, []quad.Quad{keep})
	if err := ns.Apply(ctx, cortex.Delta{Remove: []quad.Quad{keep}}); err != nil {
		t.Fatal(err)
	}
	checkContents(t, ns, nil)
	ids, _ := ns.Dataset().IDs(ctx, termsOf(want))
	for i, id := range ids {
		if id != 0 {
			t.Errorf("term %v still has id %d", termsOf(want)[i], id)
		}
	}
}

func TestImport_Bulk_ConcurrentImports(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := cortextest.NewStore(t, cortex.DefaultOptions().WithSyncWrites(false).WithChunkQuads(5))
	ns, _ := s.Namespace(ctx, "default")
	a, b := termQuads(300)[:200], termQuads(300)[100:]
	var wg sync.WaitGroup
	for _, in := range [][]quad.Quad{a, b, a} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := ns.Import(ctx, &cortextest.SliceSource{Quads: in}, cortex.ImportOptions{}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	want := distinct(a, b)
	checkContents(t, ns, want)
	if err := ns.Apply(ctx, cortex.Delta{Remove: want}); err != nil {
		t.Fatal(err)
	}
	checkContents(t, ns, nil)
	ids, _ := ns.Dataset().IDs(ctx, termsOf(want))
	for i, id := range ids {
		if id != 0 {
			t.Errorf("term %v still has id %d", termsOf(want)[i], id)
		}
	}
}
