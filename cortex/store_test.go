package cortex_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
)

const ex = "http://example.org/"

func iri(s string) quad.IRI { return quad.IRI(ex + s) }

func q(s, p string, o quad.Value, g quad.Value) quad.Quad {
	return quad.Quad{Subject: iri(s), Predicate: iri(p), Object: o, Label: g}
}

func sortedStrings(qs []quad.Quad) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.NQuad() // String leaves the graph out
	}
	sort.Strings(out)
	return out
}

func equalSets(t *testing.T, got, want []quad.Quad) {
	t.Helper()
	g, w := sortedStrings(got), sortedStrings(want)
	if fmt.Sprint(g) != fmt.Sprint(w) {
		t.Fatalf("quads differ\n got: %v\nwant: %v", g, w)
	}
}

// allTerms exercises every term kind Cortex stores.
var allTerms = []quad.Quad{
	q("s", "iri", iri("o"), nil),
	q("s", "bnode", quad.BNode("b1"), nil),
	q("s", "plain", quad.String("hello \"world\"\n"), nil),
	q("s", "lang", quad.LangString{Value: "bonjour", Lang: "fr-BE"}, nil),
	q("s", "int", quad.TypedString{Value: "01", Type: "http://www.w3.org/2001/XMLSchema#integer"}, nil),
	q("s", "dec", quad.TypedString{Value: "1.50", Type: "http://www.w3.org/2001/XMLSchema#decimal"}, nil),
	q("s", "dt", quad.TypedString{Value: "2026-11-22T00:00:00Z", Type: "http://www.w3.org/2001/XMLSchema#dateTime"}, nil),
	q("s", "bool", quad.TypedString{Value: "true", Type: "http://www.w3.org/2001/XMLSchema#boolean"}, nil),
	q("s", "custom", quad.TypedString{Value: "x y", Type: "http://example.org/dt"}, nil),
	q("s", "odd", quad.IRI("http://example.org/caf\u00e9%20x?q=1#frag"), quad.IRI("http://example.org/g1")),
	{Subject: quad.BNode("b1"), Predicate: iri("p"), Object: quad.String(""), Label: quad.BNode("g")},
}

func TestStore_PersistsAcrossReopen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s := cortextest.OpenStore(t, dir, cortex.DefaultOptions())
	ns, err := s.Namespace(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if err := ns.Apply(ctx, cortex.Delta{Add: allTerms}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	s = cortextest.OpenStore(t, dir, cortex.DefaultOptions())
	names, err := s.Namespaces(ctx)
	if err != nil || fmt.Sprint(names) != "[acme]" {
		t.Fatalf("namespaces = %v, %v", names, err)
	}
	ns, err = s.Namespace(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	equalSets(t, cortextest.AllQuads(t, ns), allTerms)
	if n, err := ns.Size(ctx); err != nil || n != int64(len(allTerms)) {
		t.Fatalf("size = %d, %v; want %d", n, err, len(allTerms))
	}
}

func TestStore_InMemory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := cortextest.OpenStore(t, "", cortex.DefaultOptions().WithInMemory(true))
	ns, err := s.Namespace(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	if err := ns.Apply(ctx, cortex.Delta{Add: allTerms}); err != nil {
		t.Fatal(err)
	}
	equalSets(t, cortextest.AllQuads(t, ns), allTerms)
}

// TestStore_InMemoryLargeTerms: an in-memory store keeps every value in
// Badger's memtable, which refuses one above 1 MB. A literal of up to about
// that size is written; a larger one, through Apply, Update (quads or a
// side-table row) or Import, fails with ErrInvalidQuad saying the bound,
// not Badger's error with a hex dump of the value, and writes nothing.
func TestStore_InMemoryLargeTerms(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := cortextest.OpenStore(t, "", cortex.DefaultOptions().WithInMemory(true))
	ns, err := s.Namespace(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	fits := q("s", "p", quad.String(strings.Repeat("f", 1<<20-100)), nil)
	if err := ns.Apply(ctx, cortex.Delta{Add: []quad.Quad{fits}}); err != nil {
		t.Fatalf("a literal of 1 MB - 100 bytes: %v", err)
	}
	good := q("s", "p", quad.String("ok"), nil)
	for _, big := range []quad.Value{
		quad.String(strings.Repeat("b", 1<<20+1)),
		quad.LangString{Value: quad.String(strings.Repeat("b", 3<<20)), Lang: "en"},
	} {
		bad := q("s", "p", big, nil)
		check := func(call string, err error) {
			t.Helper()
			if !errors.Is(err, cortex.ErrInvalidQuad) || !strings.Contains(err.Error(), "in-memory store") || len(err.Error()) > 300 {
				t.Fatalf("%s: %.400v; want a short ErrInvalidQuad giving the bound", call, err)
			}
		}
		check("apply", ns.Apply(ctx, cortex.Delta{Add: []quad.Quad{good, bad}}))
		check("update", ns.Update(ctx, func(tx *cortex.Tx) error { tx.Add(good, bad); return nil }))
		_, err := ns.Import(ctx, &cortextest.SliceSource{Quads: []quad.Quad{good, bad}}, cortex.ImportOptions{})
		check("import", err)
		err = ns.Update(ctx, func(tx *cortex.Tx) error {
			tx.Add(good)
			tx.PutSide("rows", "k", []quad.Value{big})
			return nil
		})
		if err == nil || !strings.Contains(err.Error(), "in-memory store") || len(err.Error()) > 300 {
			t.Fatalf("update with a side-table row: %.400v", err)
		}
	}
	equalSets(t, cortextest.AllQuads(t, ns), []quad.Quad{fits})
}

func TestStore_NormalisesTerms(t *testing.T) {
	t.Parallel()
	ns := cortextest.NewNamespace(t, "default")
	ctx := context.Background()
	in := q("s", "p", quad.TypedString{Value: "x", Type: "http://www.w3.org/2001/XMLSchema#string"}, nil)
	if err := ns.Apply(ctx, cortex.Delta{Add: []quad.Quad{in, q("s", "p", quad.String("x"), nil)}}); err != nil {
		t.Fatal(err)
	}
	equalSets(t, cortextest.AllQuads(t, ns), []quad.Quad{q("s", "p", quad.String("x"), nil)})
}

func TestStore_RejectsInvalidQuads(t *testing.T) {
	t.Parallel()
	ns := cortextest.NewNamespace(t, "default")
	ctx := context.Background()
	good := q("s", "p", quad.String("ok"), nil)
	bad := []quad.Quad{
		{Subject: quad.String("lit"), Predicate: iri("p"), Object: iri("o")},
		{Subject: iri("s"), Predicate: quad.BNode("p"), Object: iri("o")},
		{Subject: iri("s"), Predicate: iri("p"), Object: nil},
		{Subject: iri("s"), Predicate: iri("p"), Object: iri("o"), Label: quad.String("g")},
		{Subject: quad.IRI(""), Predicate: iri("p"), Object: iri("o")},
		{Subject: iri("a b"), Predicate: iri("p"), Object: iri("o")},
		{Subject: quad.IRI("relative/path"), Predicate: iri("p"), Object: iri("o")},
		{Subject: iri("s"), Predicate: iri("p"), Object: iri("x>y")},
		{Subject: iri("s"), Predicate: iri("p\""), Object: iri("o")},
		{Subject: iri("s"), Predicate: iri("p"), Object: notATerm{}},
		{Subject: iri(strings.Repeat("s", 1<<20) + " "), Predicate: iri("p"), Object: iri("o")},
		{Subject: quad.IRI(strings.Repeat("s", 1<<20)), Predicate: iri("p"), Object: iri("o")},
	}
	for i, b := range bad {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			err := ns.Apply(ctx, cortex.Delta{Add: []quad.Quad{good, b}})
			if !errors.Is(err, cortex.ErrInvalidQuad) {
				t.Fatalf("got %.600v, want ErrInvalidQuad", err)
			}
			// An error quotes a long IRI's start only.
			if len(err.Error()) > 500 {
				t.Fatalf("error of %d bytes: %.600s", len(err.Error()), err)
			}
			if got := cortextest.AllQuads(t, ns); len(got) != 0 {
				t.Fatalf("failed Apply left %v behind", got)
			}
		})
	}
}

// TestStore_RejectsLiteralsExportCannotWrite: a literal whose text is not
// valid UTF-8 (a lone surrogate is not), whose language tag is malformed,
// whose datatype is not a valid absolute IRI, or whose datatype is
// rdf:langString without a language tag was stored, and then every
// export of its namespace failed on it. Apply, Import and side-table rows
// refuse it with ErrInvalidQuad (a short quote of the literal, however
// long) and write nothing; removing such a quad (a store may hold one from
// before) is not refused.
func TestStore_RejectsLiteralsExportCannotWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	long := strings.Repeat("y", 1<<20)
	bad := map[string]quad.Value{
		"invalid UTF-8":          quad.String("a\xffb"),
		"lone surrogate":         quad.String("\xed\xa0\x80"),
		"long invalid UTF-8":     quad.String(long + "\xff"),
		"invalid UTF-8 language": quad.LangString{Value: "a\xff", Lang: "en"},
		"language with a space":  quad.LangString{Value: "x", Lang: "en US"},
		"language breaking out":  quad.LangString{Value: "x", Lang: "en .\n<http://e/a> <http://e/b> <http://e/c>"},
		"relative datatype":      quad.TypedString{Value: "x", Type: "t"},
		"datatype breaking out":  quad.TypedString{Value: "x", Type: "http://e/t> .\n<http://e/a> <http://e/b> <http://e/c"},
		"invalid UTF-8 typed":    quad.TypedString{Value: "\xff", Type: "http://e/t"},
		// RDF 1.1 Concepts 3.3: datatype rdf:langString if and only if a
		// language tag; quad.TypedString has none.
		"rdf:langString without a tag": quad.TypedString{Value: "1", Type: "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"},
	}
	s := cortextest.NewStore(t)
	ns, err := s.Namespace(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	good := q("s", "p", quad.String("ok"), nil)
	for name, v := range bad {
		t.Run(name, func(t *testing.T) {
			b := q("s", "p", v, nil)
			err := ns.Apply(ctx, cortex.Delta{Add: []quad.Quad{good, b}})
			if !errors.Is(err, cortex.ErrInvalidQuad) || len(err.Error()) > 500 {
				t.Fatalf("apply: got %.600v, want a short error wrapping ErrInvalidQuad", err)
			}
			_, err = ns.Import(ctx, &cortextest.SliceSource{Quads: []quad.Quad{good, b}}, cortex.ImportOptions{})
			if !errors.Is(err, cortex.ErrInvalidQuad) {
				t.Fatalf("import: got %.600v, want ErrInvalidQuad", err)
			}
			err = ns.Update(ctx, func(tx *cortex.Tx) error {
				tx.Add(good)
				tx.PutSide("rows", "k", []quad.Value{v})
				return nil
			})
			if err == nil {
				t.Fatal("update with the literal in a side-table row: no error")
			}
			if got := cortextest.AllQuads(t, ns); len(got) != 0 {
				t.Fatalf("a refused write left %v behind", got)
			}
			if err := ns.Apply(ctx, cortex.Delta{Remove: []quad.Quad{b}}); err != nil {
				t.Fatalf("remove: %v", err)
			}
		})
	}
	if err := ns.Apply(ctx, cortex.Delta{Add: []quad.Quad{good, q("s", "p", quad.LangString{Value: "x", Lang: "en-GB-x-1"}, nil)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ns.Export(ctx, io.Discard, "nquads", cortex.ExportOptions{}); err != nil {
		t.Fatalf("export: %v", err)
	}
}

func TestNamespace_Isolation(t *testing.T) {
	t.Parallel()
	s := cortextest.NewStore(t)
	ctx := context.Background()
	a, err := s.Namespace(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	ab, err := s.Namespace(ctx, "a-b")
	if err != nil {
		t.Fatal(err)
	}
	g := quad.IRI("http://example.org/g1")
	qa := []quad.Quad{q("s", "p", quad.String("in a"), g), q("s", "p", quad.String("a default"), nil)}
	qab := []quad.Quad{q("s", "p", quad.String("in a-b"), g)}
	if err := a.Apply(ctx, cortex.Delta{Add: qa}); err != nil {
		t.Fatal(err)
	}
	if err := ab.Apply(ctx, cortex.Delta{Add: qab}); err != nil {
		t.Fatal(err)
	}
	equalSets(t, cortextest.AllQuads(t, a), qa)
	equalSets(t, cortextest.AllQuads(t, ab), qab)
	got, err := ab.Quads(ctx, cortex.Pattern{Graph: g, Scope: cortex.OneGraph})
	if err != nil {
		t.Fatal(err)
	}
	equalSets(t, got, qab)
	if n, _ := ab.DropGraph(ctx, g); n != 1 {
		t.Fatalf("dropped %d quads from a-b, want 1", n)
	}
	equalSets(t, cortextest.AllQuads(t, a), qa) // untouched
	if _, err := s.Namespace(ctx, "Bad Name"); err == nil {
		t.Fatal("invalid namespace name accepted")
	}
}

func TestNamespace_GraphScopes(t *testing.T) {
	t.Parallel()
	ns := cortextest.NewNamespace(t, "default")
	ctx := context.Background()
	g1, g2 := quad.IRI("http://example.org/g1"), quad.BNode("g2")
	data := []quad.Quad{
		q("s", "p", quad.String("d"), nil),
		q("s", "p", quad.String("one"), g1),
		q("s", "p", quad.String("d"), g1), // same triple in two graphs
		q("t", "p", quad.String("two"), g2),
	}
	if err := ns.Apply(ctx, cortex.Delta{Add: data}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		p    cortex.Pattern
		want []quad.Quad
	}{
		{"all", cortex.Pattern{}, data},
		{"default", cortex.Pattern{Scope: cortex.DefaultGraph}, data[:1]},
		{"g1", cortex.Pattern{Graph: g1, Scope: cortex.OneGraph}, data[1:3]},
		{"named", cortex.Pattern{Scope: cortex.NamedGraphs}, data[1:]},
		{"subject in default", cortex.Pattern{Subject: iri("s"), Scope: cortex.DefaultGraph}, data[:1]},
		{"object", cortex.Pattern{Object: quad.String("d")}, []quad.Quad{data[0], data[2]}},
		{"predicate only", cortex.Pattern{Predicate: iri("p"), Scope: cortex.NamedGraphs}, data[1:]},
		{"unknown term", cortex.Pattern{Subject: iri("nope")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ns.Quads(ctx, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			equalSets(t, got, tc.want)
		})
	}
	graphs, err := ns.Graphs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := "[{<nil> 1} {<http://example.org/g1> 2} {_:g2 1}]"; fmt.Sprint(graphs) != want {
		t.Fatalf("graphs = %v, want %s", graphs, want)
	}
}

func TestNamespace_ApplyIsAtomic(t *testing.T) {
	t.Parallel()
	ns := cortextest.NewNamespace(t, "default")
	ctx := context.Background()
	big := make([]quad.Quad, cortex.MaxDeltaQuads+1)
	for i := range big {
		big[i] = q("s", "p", quad.String(strconv.Itoa(i)), nil)
	}
	// An invalid quad anywhere in a large delta: nothing is written.
	bad := append(slices.Clone(big), quad.Quad{Subject: quad.String("literal subject"), Predicate: iri("p"), Object: iri("o")})
	if err := ns.Apply(ctx, cortex.Delta{Add: bad}); !errors.Is(err, cortex.ErrInvalidQuad) {
		t.Fatalf("got %v, want ErrInvalidQuad", err)
	}
	if got := cortextest.AllQuads(t, ns); len(got) != 0 {
		t.Fatalf("refused delta wrote %d quads", len(got))
	}
	// One over the one-transaction bound is journaled (journal_test.go).
	if err := ns.Apply(ctx, cortex.Delta{Add: big}); err != nil {
		t.Fatal(err)
	}
	equalSets(t, cortextest.AllQuads(t, ns), big)
	if err := ns.Apply(ctx, cortex.Delta{Remove: big}); err != nil {
		t.Fatal(err)
	}
	// Remove + add in one delta.
	a, b := q("s", "p", quad.String("a"), nil), q("s", "p", quad.String("b"), nil)
	if err := ns.Apply(ctx, cortex.Delta{Add: []quad.Quad{a}}); err != nil {
		t.Fatal(err)
	}
	if err := ns.Apply(ctx, cortex.Delta{Remove: []quad.Quad{a, b}, Add: []quad.Quad{b}}); err != nil {
		t.Fatal(err)
	}
	equalSets(t, cortextest.AllQuads(t, ns), []quad.Quad{b})
}

// TestNamespace_UpdateIsAtomicReadModifyWrite increments one counter from many
// goroutines; a lost update would show as a smaller final value.
func TestNamespace_UpdateIsAtomicReadModifyWrite(t *testing.T) {
	t.Parallel()
	ns := cortextest.NewNamespace(t, "default")
	ctx := context.Background()
	const workers, each = 8, 50
	counter := func(n int) quad.Quad {
		return q("counter", "value", quad.TypedString{Value: quad.String(strconv.Itoa(n)), Type: "http://www.w3.org/2001/XMLSchema#integer"}, nil)
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				err := ns.Update(ctx, func(tx *cortex.Tx) error {
					cur, err := tx.Namespace().Quads(ctx, cortex.Pattern{Subject: iri("counter"), Predicate: iri("value")})
					if err != nil {
						return err
					}
					n := 0
					if len(cur) == 1 {
						n, _ = strconv.Atoi(string(cur[0].Object.(quad.TypedString).Value))
						tx.Remove(cur[0])
					} else if len(cur) > 1 {
						return fmt.Errorf("counter has %d values", len(cur))
					}
					tx.Add(counter(n + 1))
					return nil
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	equalSets(t, cortextest.AllQuads(t, ns), []quad.Quad{counter(workers * each)})
}

func TestNamespace_UpdateErrorWritesNothing(t *testing.T) {
	t.Parallel()
	ns := cortextest.NewNamespace(t, "default")
	ctx := context.Background()
	boom := errors.New("boom")
	err := ns.Update(ctx, func(tx *cortex.Tx) error {
		tx.Add(q("s", "p", quad.String("x"), nil))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
	if got := cortextest.AllQuads(t, ns); len(got) != 0 {
		t.Fatalf("failed update wrote %v", got)
	}
}

func TestStore_SecondOpenIsLocked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s := cortextest.OpenStore(t, dir, cortex.DefaultOptions())
	_, err := cortex.Open(ctx, dir, cortex.DefaultOptions())
	var le *cortex.LockedError
	if !errors.Is(err, cortex.ErrLocked) || !errors.As(err, &le) || le.Dir != dir {
		t.Fatalf("second open: got %v, want LockedError for %s", err, dir)
	}
	want := "store " + dir + " is in use by another process"
	if le.PID != 0 { // where the holder is known (lock_unix_test.go)
		want += fmt.Sprintf(" (pid %d)", le.PID)
	}
	if err.Error() != want {
		t.Fatalf("message %q, want %q", err.Error(), want)
	}
	s.Close()
	s, err = cortex.Open(ctx, dir, cortex.DefaultOptions())
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	s.Close()
}

// notATerm is a quad.Value that is not an RDF term Cortex can store.
type notATerm struct{}

func (notATerm) String() string      { return "?" }
func (notATerm) Native() interface{} { return nil }

// TestNamespace_MaxDeltaFitsOneTransaction: the largest delta Apply accepts
// (every quad with new terms and a sizeable literal) is written atomically,
// and so is its removal; Badger's transaction limit is never hit.
func TestNamespace_MaxDeltaFitsOneTransaction(t *testing.T) {
	t.Parallel()
	ns := cortextest.NewNamespace(t, "default")
	ctx := context.Background()
	qs := make([]quad.Quad, cortex.MaxDeltaQuads)
	pad := strings.Repeat("x", 256)
	for i := range qs {
		n := strconv.Itoa(i)
		qs[i] = quad.Quad{Subject: iri("s" + n), Predicate: iri("p" + n), Object: quad.String(pad + n), Label: iri("g" + n)}
	}
	if err := ns.Apply(ctx, cortex.Delta{Add: qs}); err != nil {
		t.Fatalf("max-size add: %v", err)
	}
	if n, _ := ns.Size(ctx); n != int64(len(qs)) {
		t.Fatalf("size %d", n)
	}
	if err := ns.Apply(ctx, cortex.Delta{Remove: qs}); err != nil {
		t.Fatalf("max-size remove: %v", err)
	}
	if n, _ := ns.Size(ctx); n != 0 {
		t.Fatalf("size %d after removal", n)
	}
}

// DiskSize is current: right after an import and after a reopen (Badger's
// own estimate reads 0 until its once-a-minute refresh), and it counts
// allocated space, not the length of Badger's sparse preallocated files.
func TestStore_DiskSize(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s, ns := openNS(t, dir, cortex.DefaultOptions())
	empty := s.DiskSize()
	if _, err := ns.Import(ctx, &genSource{n: 20_000}, cortex.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, _ = openNS(t, dir, cortex.DefaultOptions())
	defer s.Close()
	got := s.DiskSize()
	if got <= empty || got < 200_000 {
		t.Fatalf("disk size %d after importing 20k quads (empty store: %d)", got, empty)
	}
	// Badger preallocates a 2 GB sparse value log; allocated space is far less.
	if got > 200<<20 {
		t.Fatalf("disk size %d: counts preallocated file lengths", got)
	}
}
