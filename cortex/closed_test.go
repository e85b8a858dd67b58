package cortex_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
)

// oneQuad is a QuadSource of one quad.
type oneQuad struct{ q *quad.Quad }

func (s *oneQuad) Next() (quad.Quad, error) {
	if s.q == nil {
		return quad.Quad{}, io.EOF
	}
	q := *s.q
	s.q = nil
	return q, nil
}

// TestClosed_EveryMethod: after Store.Close, every exported method of the
// Store, of a Namespace obtained before, and of its Dataset returns an error
// matching ErrClosed (or, for those without an error, a harmless value),
// never panics, and writes nothing (the store reopens with its data as it
// was). Persistent and in-memory stores alike.
func TestClosed_EveryMethod(t *testing.T) {
	t.Parallel()
	for _, inMemory := range []bool{false, true} {
		name := "persistent"
		if inMemory {
			name = "in-memory"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testClosedEveryMethod(t, inMemory)
		})
	}
}

func testClosedEveryMethod(t *testing.T, inMemory bool) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := cortex.Open(ctx, dir, cortex.DefaultOptions().WithSyncWrites(false).WithInMemory(inMemory).
		WithTuning(cortex.Tuning{CloseWait: 200 * time.Millisecond, ResultsCloseWait: 100 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	ns, err := s.Namespace(ctx, "team")
	if err != nil {
		t.Fatal(err)
	}
	base := q("s", "p", quad.String("o"), nil)
	if err := ns.Update(ctx, func(tx *cortex.Tx) error {
		tx.Add(base)
		tx.Pin(iri("s"))
		tx.PutSide("rows", "k", []quad.Value{quad.String("v")})
		tx.StampSide("rows")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	created, _, err := s.NamespaceCreated(ctx, "fresh")
	if err != nil {
		t.Fatal(err)
	}
	ds := ns.Dataset()
	ids, err := ds.IDs(ctx, []quad.Value{iri("s")})
	if err != nil || ids[0] == 0 {
		t.Fatalf("IDs: %v, %v", ids, err)
	}
	// A query result and an iterator opened before Close, read after it.
	// (Close waits CloseWait for the iterator and ResultsCloseWait for the
	// result: both short.)
	res, err := ns.Query(ctx, "SELECT * { ?s ?p ?o }", sparql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	it := ds.Match(ctx, eval.Pattern{Scope: cortex.AllGraphs})

	// The result left open makes Close report it (after ResultsCloseWait);
	// the iterator left open holds it for CloseWait (both short here).
	if err := s.Close(); !errors.Is(err, cortex.ErrResultsOpen) {
		t.Fatalf("Close with a result left open: %v, want ErrResultsOpen", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v, want nil (closing twice is not an error)", err)
	}

	add := q("s2", "p", quad.String("o2"), nil)
	nt := "<http://example.org/s3> <http://example.org/p> \"o3\" .\n"
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"Store.Namespace", func() error { _, err := s.Namespace(ctx, "team"); return err }},
		{"Store.Namespace new", func() error { _, err := s.Namespace(ctx, "other"); return err }},
		{"Store.NamespaceCreated", func() error { _, _, err := s.NamespaceCreated(ctx, "other"); return err }},
		{"Store.OpenNamespace", func() error { _, err := s.OpenNamespace(ctx, "team"); return err }},
		{"Store.Namespaces", func() error { _, err := s.Namespaces(ctx); return err }},
		{"Store.DeleteNamespace", func() error { return s.DeleteNamespace(ctx, "team") }},
		{"Store.DeleteNamespaceIfUnused", func() error {
			deleted, err := s.DeleteNamespaceIfUnused(ctx, created)
			if deleted {
				t.Errorf("DeleteNamespaceIfUnused reported a deletion")
			}
			return err
		}},
		{"Store.Check", func() error { return s.Check(ctx) }},
		{"Namespace.Err", func() error { return ns.Err() }},
		{"Namespace.Size", func() error { _, err := ns.Size(ctx); return err }},
		{"Namespace.Check", func() error { return ns.Check(ctx) }},
		{"Namespace.Apply", func() error { return ns.Apply(ctx, cortex.Delta{Add: []quad.Quad{add}}) }},
		{"Namespace.Apply remove", func() error { return ns.Apply(ctx, cortex.Delta{Remove: []quad.Quad{base}}) }},
		{"Namespace.Update", func() error {
			return ns.Update(ctx, func(tx *cortex.Tx) error { tx.Add(add); return nil })
		}},
		{"Namespace.TryUpdate", func() error {
			// ok reports that the lock was free; fn must not run.
			_, err := ns.TryUpdate(ctx, func(tx *cortex.Tx) error {
				t.Errorf("TryUpdate ran fn on a closed store")
				return nil
			})
			return err
		}},
		{"Namespace.Quads", func() error { _, err := ns.Quads(ctx, cortex.Pattern{}); return err }},
		{"Namespace.EachQuad", func() error {
			return ns.EachQuad(ctx, cortex.Pattern{}, func(quad.Quad) error { return nil })
		}},
		{"Namespace.Graphs", func() error { _, err := ns.Graphs(ctx); return err }},
		{"Namespace.Query", func() error {
			r, err := ns.Query(ctx, "SELECT * { ?s ?p ?o }", sparql.Options{})
			if r != nil {
				r.Close()
			}
			return err
		}},
		{"Namespace.Explain", func() error { _, err := ns.Explain(ctx, "SELECT * { ?s ?p ?o }", sparql.Options{}); return err }},
		{"Namespace.PinnedTerms", func() error { _, err := ns.PinnedTerms(ctx); return err }},
		{"Namespace.Import", func() error {
			_, err := ns.Import(ctx, &oneQuad{&add}, cortex.ImportOptions{})
			return err
		}},
		{"Namespace.ImportRDF", func() error {
			_, err := ns.ImportRDF(ctx, strings.NewReader(nt), cortex.RDFImportOptions{Format: rdfio.NTriples})
			return err
		}},
		{"Namespace.Export", func() error {
			var buf bytes.Buffer
			_, err := ns.Export(ctx, &buf, rdfio.NQuads, cortex.ExportOptions{})
			if buf.Len() != 0 {
				t.Errorf("Export wrote %q", buf.String())
			}
			return err
		}},
		{"Namespace.DropGraph", func() error { _, err := ns.DropGraph(ctx, nil); return err }},
		{"Namespace.UnfinishedImports", func() error { _, err := ns.UnfinishedImports(ctx); return err }},
		{"Namespace.SideRows", func() error { _, _, err := ns.SideRows(ctx, "rows"); return err }},
		{"Namespace.SideRowsAfter", func() error { _, err := ns.SideRowsAfter(ctx, "rows", "", 0); return err }},
		{"Namespace.SideRow", func() error { _, _, err := ns.SideRow(ctx, "rows", "k"); return err }},
		{"Namespace.SideCurrent", func() error { _, err := ns.SideCurrent(ctx, "rows"); return err }},
		{"Dataset.IDs", func() error { _, err := ds.IDs(ctx, []quad.Value{iri("s")}); return err }},
		{"Dataset.Terms", func() error { _, err := ds.Terms(ctx, ids); return err }},
		{"Dataset.TermsBatch", func() error { _, err := ds.TermsBatch(ctx, ids); return err }},
		{"Dataset.PinnedTermsBatch", func() error { _, err := ds.PinnedTermsBatch(ctx, ids); return err }},
		{"Dataset.NamedGraphs", func() error { _, err := ds.NamedGraphs(ctx); return err }},
		{"Dataset.Estimate", func() error { _, err := ds.Estimate(ctx, eval.Pattern{Scope: cortex.AllGraphs}); return err }},
		{"Dataset.Match", func() error {
			it := ds.Match(ctx, eval.Pattern{Scope: cortex.AllGraphs})
			defer it.Close()
			if it.Next(ctx) {
				t.Errorf("Match after Close yields a quad")
			}
			return it.Err()
		}},
		{"Dataset.Match opened before Close", func() error {
			defer it.Close()
			if it.Next(ctx) {
				t.Errorf("an iterator opened before Close yields a quad after it")
			}
			return it.Err()
		}},
		{"Result opened before Close", func() error {
			defer res.Close()
			if res.Next(ctx) {
				t.Errorf("a result opened before Close yields a row after it")
			}
			return res.Err()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("panic: %v", p)
					}
				}()
				err = tc.call()
			}()
			if !errors.Is(err, cortex.ErrClosed) {
				t.Errorf("%s after Close: %v, want an error matching ErrClosed", tc.name, err)
			}
		})
	}

	// Those that return no error: no panic, and what they say is still true.
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("panic: %v", p)
			}
		}()
		if got := s.Dir(); inMemory != (got == "") {
			t.Errorf("Dir after Close: %q", got)
		}
		if s.ReadOnly() {
			t.Errorf("ReadOnly after Close: true")
		}
		_ = s.DiskSize()
		if ns.Name() != "team" {
			t.Errorf("Name after Close: %q", ns.Name())
		}
		if ns.Base() == "" {
			t.Errorf("Base after Close is empty")
		}
		select {
		case <-ns.Done():
		default:
			t.Errorf("Done is not closed after Close")
		}
		_ = ns.WriteStats()
		_ = ns.Dataset()
	}()

	if inMemory {
		return
	}
	// Nothing was written: the store reopens with its quad, side row and namespaces.
	s2 := cortextest.OpenStore(t, dir)
	names, err := s2.Namespaces(ctx)
	if err != nil || strings.Join(names, ",") != "fresh,team" {
		t.Errorf("namespaces after reopening: %v, %v; want fresh,team", names, err)
	}
	ns2, err := s2.OpenNamespace(ctx, "team")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ns2.Quads(ctx, cortex.Pattern{})
	if err != nil || len(got) != 1 || got[0] != base {
		t.Errorf("quads after reopening: %v, %v; want only %v", got, err, base)
	}
	rows, current, err := ns2.SideRows(ctx, "rows")
	if err != nil || len(rows) != 1 || !current {
		t.Errorf("side rows after reopening: %v %v, %v; want one current row", rows, current, err)
	}
}
