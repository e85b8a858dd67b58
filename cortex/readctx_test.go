package cortex_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
)

// TestReads_ContextDone: every read called with a context that has ended
// returns the context's error, as writes do; some read from the store all
// the same (Size, the side tables, Query, Dataset lookups...).
func TestReads_ContextDone(t *testing.T) {
	t.Parallel()
	s, ns := readsNamespace(t)
	if err := ns.Update(context.Background(), func(tx *cortex.Tx) error {
		tx.PutSide("rows", "k", []quad.Value{quad.String("v")})
		tx.Pin(iri("s"))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ids, err := ns.Dataset().IDs(context.Background(), []quad.Value{iri("s")})
	if err != nil || ids[0] == 0 {
		t.Fatalf("ids %v, %v", ids, err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	for _, c := range []struct {
		name string
		ctx  context.Context
		want error
	}{
		{"cancelled", cancelled, context.Canceled},
		{"deadline", expired, context.DeadlineExceeded},
	} {
		ctx := c.ctx
		ds := ns.Dataset()
		for _, tc := range []struct {
			name string
			call func() error
		}{
			{"Store.Namespaces", func() error { _, err := s.Namespaces(ctx); return err }},
			{"Store.Check", func() error { return s.Check(ctx) }},
			{"Size", func() error { _, err := ns.Size(ctx); return err }},
			{"Check", func() error { return ns.Check(ctx) }},
			{"Quads", func() error { _, err := ns.Quads(ctx, cortex.Pattern{}); return err }},
			{"Quads of an unknown term", func() error {
				_, err := ns.Quads(ctx, cortex.Pattern{Subject: iri("nobody")})
				return err
			}},
			{"EachQuad", func() error {
				return ns.EachQuad(ctx, cortex.Pattern{Scope: cortex.DefaultGraph}, func(quad.Quad) error { return nil })
			}},
			{"Graphs", func() error { _, err := ns.Graphs(ctx); return err }},
			{"Export", func() error { _, err := ns.Export(ctx, &bytes.Buffer{}, "nquads", cortex.ExportOptions{}); return err }},
			{"Query", func() error {
				r, err := ns.Query(ctx, "SELECT * WHERE { ?s ?p ?o }", sparql.Options{})
				if r != nil {
					r.Close()
				}
				return err
			}},
			{"Explain", func() error { _, err := ns.Explain(ctx, "SELECT * WHERE { ?s ?p ?o }", sparql.Options{}); return err }},
			{"SideRows", func() error { _, _, err := ns.SideRows(ctx, "rows"); return err }},
			{"SideRowsAfter", func() error { _, err := ns.SideRowsAfter(ctx, "rows", "", 10); return err }},
			{"SideRow", func() error { _, _, err := ns.SideRow(ctx, "rows", "k"); return err }},
			{"SideCurrent", func() error { _, err := ns.SideCurrent(ctx, "rows"); return err }},
			{"PinnedTerms", func() error { _, err := ns.PinnedTerms(ctx); return err }},
			{"UnfinishedImports", func() error { _, err := ns.UnfinishedImports(ctx); return err }},
			{"Dataset.IDs", func() error { _, err := ds.IDs(ctx, []quad.Value{iri("s")}); return err }},
			{"Dataset.Terms", func() error { _, err := ds.Terms(ctx, ids); return err }},
			{"Dataset.TermsBatch", func() error { _, err := ds.TermsBatch(ctx, ids); return err }},
			{"Dataset.PinnedTermsBatch", func() error { _, err := ds.PinnedTermsBatch(ctx, ids); return err }},
			{"Dataset.Match", func() error {
				it := ds.Match(ctx, eval.Pattern{})
				defer it.Close()
				if it.Next(ctx) {
					t.Errorf("Match read %+v", it.Quad())
				}
				return it.Err()
			}},
			{"Dataset.Match one graph", func() error {
				it := ds.Match(ctx, eval.Pattern{Scope: eval.DefaultGraph})
				defer it.Close()
				if it.Next(ctx) {
					t.Errorf("Match read %+v", it.Quad())
				}
				return it.Err()
			}},
			{"Dataset.NamedGraphs", func() error { _, err := ds.NamedGraphs(ctx); return err }},
			{"Dataset.Estimate", func() error { _, err := ds.Estimate(ctx, eval.Pattern{}); return err }},
			// The writes the reads are consistent with.
			{"Apply", func() error {
				return ns.Apply(ctx, cortex.Delta{Add: []quad.Quad{q("t", "p", quad.String("o"), nil)}})
			}},
		} {
			t.Run(c.name+"/"+tc.name, func(t *testing.T) {
				if err := tc.call(); !errors.Is(err, c.want) {
					t.Fatalf("%v, want an error matching %v", err, c.want)
				}
			})
		}
	}
}
