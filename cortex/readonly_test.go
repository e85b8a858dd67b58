package cortex_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
)

// dirState describes every file under dir: name, size, modification time.
func dirState(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %v\n", p, fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestReadOnly_EveryMethod: on a store opened read-only, every write
// returns an error matching ErrReadOnly (or ErrNoNamespace for a namespace
// that does not exist, which a read-only store does not create), every
// read works (an Update that stages nothing included), and no file of the
// store's directory changes.
func TestReadOnly_EveryMethod(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	w := cortextest.OpenStore(t, dir)
	wns, err := w.Namespace(ctx, "team")
	if err != nil {
		t.Fatal(err)
	}
	base := q("s", "p", quad.String("o"), iri("g"))
	if err := wns.Update(ctx, func(tx *cortex.Tx) error {
		tx.Add(base)
		tx.Pin(iri("s"))
		tx.PutSide("rows", "k", []quad.Value{quad.String("v")})
		tx.StampSide("rows")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	before := dirState(t, dir)

	s := cortextest.OpenStore(t, dir, cortex.DefaultOptions().WithReadOnly(true))
	if !s.ReadOnly() {
		t.Fatal("ReadOnly() is false")
	}
	ns, err := s.Namespace(ctx, "team")
	if err != nil {
		t.Fatal(err)
	}
	add := q("s2", "p", quad.String("o2"), nil)
	nt := "<http://example.org/s3> <http://example.org/p> \"o3\" .\n"
	for _, tc := range []struct {
		name string
		want error
		call func(t *testing.T) error
	}{
		{"Store.Namespace new", cortex.ErrNoNamespace, func(*testing.T) error { _, err := s.Namespace(ctx, "other"); return err }},
		{"Store.NamespaceCreated new", cortex.ErrNoNamespace, func(*testing.T) error {
			_, _, err := s.NamespaceCreated(ctx, "other")
			return err
		}},
		{"Store.DeleteNamespace", cortex.ErrReadOnly, func(*testing.T) error { return s.DeleteNamespace(ctx, "team") }},
		{"Apply", cortex.ErrReadOnly, func(*testing.T) error { return ns.Apply(ctx, cortex.Delta{Add: []quad.Quad{add}}) }},
		{"Apply remove", cortex.ErrReadOnly, func(*testing.T) error { return ns.Apply(ctx, cortex.Delta{Remove: []quad.Quad{base}}) }},
		// Update runs fn, which may read (the team manager lists teams so);
		// the delta it stages is refused.
		{"Update", cortex.ErrReadOnly, func(t *testing.T) error {
			return ns.Update(ctx, func(tx *cortex.Tx) error { tx.Add(add); return nil })
		}},
		{"Update side row", cortex.ErrReadOnly, func(t *testing.T) error {
			return ns.Update(ctx, func(tx *cortex.Tx) error { tx.PutSide("rows", "k2", nil); return nil })
		}},
		{"TryUpdate", cortex.ErrReadOnly, func(t *testing.T) error {
			_, err := ns.TryUpdate(ctx, func(tx *cortex.Tx) error { tx.Add(add); return nil })
			return err
		}},
		{"Import", cortex.ErrReadOnly, func(*testing.T) error {
			_, err := ns.Import(ctx, &oneQuad{&add}, cortex.ImportOptions{})
			return err
		}},
		{"ImportRDF", cortex.ErrReadOnly, func(*testing.T) error {
			_, err := ns.ImportRDF(ctx, strings.NewReader(nt), cortex.RDFImportOptions{Format: rdfio.NTriples})
			return err
		}},
		{"DropGraph", cortex.ErrReadOnly, func(*testing.T) error { _, err := ns.DropGraph(ctx, iri("g")); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(t); !errors.Is(err, tc.want) {
				t.Errorf("%v, want an error matching %v", err, tc.want)
			}
		})
	}
	if created, _, err := s.NamespaceCreated(ctx, "team"); err != nil {
		t.Fatal(err)
	} else if deleted, err := s.DeleteNamespaceIfUnused(ctx, created); deleted || err != nil {
		t.Errorf("DeleteNamespaceIfUnused on a read-only store: %v, %v; want false, nil", deleted, err)
	}

	ds := ns.Dataset()
	ids, err := ds.IDs(ctx, []quad.Value{iri("s")})
	if err != nil || ids[0] == 0 {
		t.Fatalf("IDs: %v, %v", ids, err)
	}
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"Update staging nothing", func() error {
			return ns.Update(ctx, func(tx *cortex.Tx) error {
				_, err := tx.Namespace().Size(ctx)
				return err
			})
		}},
		{"Store.Namespaces", func() error { _, err := s.Namespaces(ctx); return err }},
		{"Store.OpenNamespace", func() error { _, err := s.OpenNamespace(ctx, "team"); return err }},
		{"Store.Check", func() error { return s.Check(ctx) }},
		{"Check", func() error { return ns.Check(ctx) }},
		{"Size", func() error { _, err := ns.Size(ctx); return err }},
		{"Quads", func() error { _, err := ns.Quads(ctx, cortex.Pattern{}); return err }},
		{"EachQuad", func() error { return ns.EachQuad(ctx, cortex.Pattern{}, func(quad.Quad) error { return nil }) }},
		{"Graphs", func() error { _, err := ns.Graphs(ctx); return err }},
		{"Query", func() error {
			r, err := ns.Query(ctx, "SELECT * { GRAPH ?g { ?s ?p ?o } }", sparql.Options{})
			if err != nil {
				return err
			}
			defer r.Close()
			n := 0
			for r.Next(ctx) {
				n++
			}
			if n != 1 {
				return fmt.Errorf("%d rows, want 1", n)
			}
			return r.Err()
		}},
		{"Explain", func() error { _, err := ns.Explain(ctx, "SELECT * { ?s ?p ?o }", sparql.Options{}); return err }},
		{"Export", func() error {
			var buf bytes.Buffer
			_, err := ns.Export(ctx, &buf, rdfio.NQuads, cortex.ExportOptions{})
			if err == nil && buf.String() != base.NQuad()+"\n" {
				return fmt.Errorf("exported %q", buf.String())
			}
			return err
		}},
		{"PinnedTerms", func() error { _, err := ns.PinnedTerms(ctx); return err }},
		{"UnfinishedImports", func() error { _, err := ns.UnfinishedImports(ctx); return err }},
		{"SideRows", func() error { _, _, err := ns.SideRows(ctx, "rows"); return err }},
		{"SideRowsAfter", func() error { _, err := ns.SideRowsAfter(ctx, "rows", "", 0); return err }},
		{"SideRow", func() error { _, _, err := ns.SideRow(ctx, "rows", "k"); return err }},
		{"SideCurrent", func() error { _, err := ns.SideCurrent(ctx, "rows"); return err }},
		{"Dataset.Terms", func() error { _, err := ds.Terms(ctx, ids); return err }},
		{"Dataset.TermsBatch", func() error { _, err := ds.TermsBatch(ctx, ids); return err }},
		{"Dataset.PinnedTermsBatch", func() error { _, err := ds.PinnedTermsBatch(ctx, ids); return err }},
		{"Dataset.NamedGraphs", func() error { _, err := ds.NamedGraphs(ctx); return err }},
		{"Dataset.Estimate", func() error { _, err := ds.Estimate(ctx, eval.Pattern{Scope: cortex.AllGraphs}); return err }},
		{"Dataset.Match", func() error {
			it := ds.Match(ctx, eval.Pattern{Scope: cortex.AllGraphs})
			defer it.Close()
			for it.Next(ctx) {
			}
			return it.Err()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); err != nil {
				t.Errorf("on a read-only store: %v", err)
			}
		})
	}
	checkContent(t, ns, []quad.Quad{base})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if after := dirState(t, dir); after != before {
		t.Errorf("the read-only store's directory changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
