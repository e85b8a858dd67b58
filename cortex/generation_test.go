package cortex_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/rdfio"
)

// Tx.Generation advances by one with every write of the namespace (an
// Update that stages quads or side-table rows, Apply, DropGraph's deltas,
// each chunk of an import), and not with an Update that stages nothing or whose
// fn fails, nor with a write of another namespace.
func TestTx_Generation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := cortextest.NewStore(t)
	n, err := s.Namespace(ctx, "gen")
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.Namespace(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	gen := func() uint64 {
		t.Helper()
		var g uint64
		if err := n.Update(ctx, func(tx *cortex.Tx) error { g = tx.Generation(); return nil }); err != nil {
			t.Fatal(err)
		}
		return g
	}
	q := func(o string) quad.Quad {
		return quad.Quad{Subject: quad.IRI("http://ex.org/s"), Predicate: quad.IRI("http://ex.org/p"), Object: quad.String(o), Label: quad.IRI("http://ex.org/g")}
	}
	g0 := gen()
	steps := []struct {
		name    string
		write   func() error
		want    uint64 // generations it advances
		atLeast bool   // or more (an import advances it once per chunk)
	}{
		{"update staging nothing", func() error { return n.Update(ctx, func(*cortex.Tx) error { return nil }) }, 0, false},
		{"update adding", func() error {
			return n.Update(ctx, func(tx *cortex.Tx) error { tx.Add(q("a")); return nil })
		}, 1, false},
		{"update with a side row", func() error {
			return n.Update(ctx, func(tx *cortex.Tx) error { tx.PutSide("t", "k", []quad.Value{quad.String("v")}); return nil })
		}, 1, false},
		{"failed update", func() error {
			err := n.Update(ctx, func(tx *cortex.Tx) error { tx.Add(q("b")); return errors.New("no") })
			if err == nil {
				return errors.New("update did not fail")
			}
			return nil
		}, 0, false},
		{"apply", func() error { return n.Apply(ctx, cortex.Delta{Add: []quad.Quad{q("c")}}) }, 1, false},
		{"other namespace", func() error { return other.Apply(ctx, cortex.Delta{Add: []quad.Quad{q("d")}}) }, 0, false},
		{"import", func() error {
			_, err := n.ImportRDF(ctx, strings.NewReader("<http://ex.org/s> <http://ex.org/p> \"e\" .\n"), cortex.RDFImportOptions{Format: rdfio.NTriples, File: "x.nt"})
			return err
		}, 1, true},
		{"drop graph", func() error { _, err := n.DropGraph(ctx, quad.IRI("http://ex.org/g")); return err }, 1, false},
	}
	for _, st := range steps {
		if err := st.write(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		g := gen()
		if g != g0+st.want && !(st.atLeast && g > g0+st.want) {
			t.Fatalf("%s: generation %d -> %d, want +%d", st.name, g0, g, st.want)
		}
		g0 = g
	}
}
