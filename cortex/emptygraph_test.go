package cortex_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/rdfio"
)

// TestMissingGraph_IsEmpty: as ErrNotFound's doc says, a graph that holds
// no quad is not an error but empty: Quads, EachQuad, Export and DropGraph
// of it succeed with nothing (the doc said ErrNotFound meant "a requested
// graph ... does not exist", which no method returns).
func TestMissingGraph_IsEmpty(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := cortextest.NewNamespace(t, "team")
	kept := q("s", "p", quad.String("o"), iri("g"))
	if err := ns.Apply(ctx, cortex.Delta{Add: []quad.Quad{kept}}); err != nil {
		t.Fatal(err)
	}
	missing := iri("missing")
	p := cortex.Pattern{Scope: cortex.OneGraph, Graph: missing}
	if qs, err := ns.Quads(ctx, p); err != nil || len(qs) != 0 {
		t.Errorf("Quads: %v, %v; want none, nil", qs, err)
	}
	if err := ns.EachQuad(ctx, p, func(q quad.Quad) error { t.Errorf("EachQuad: %v", q); return nil }); err != nil {
		t.Errorf("EachQuad: %v", err)
	}
	var buf bytes.Buffer
	if n, err := ns.Export(ctx, &buf, rdfio.NQuads, cortex.ExportOptions{Scope: cortex.OneGraph, Graph: missing}); err != nil || n != 0 || buf.Len() != 0 {
		t.Errorf("Export: %d quads, %q, %v; want 0, nothing, nil", n, buf.String(), err)
	}
	if n, err := ns.DropGraph(ctx, missing); err != nil || n != 0 {
		t.Errorf("DropGraph: %d, %v; want 0, nil", n, err)
	}
	checkContent(t, ns, []quad.Quad{kept})
}
