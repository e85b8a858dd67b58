package cortex_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
)

// TestNamespace_NilArguments checks that a nil function, reader, writer or
// source is an error matching ErrInvalidArgument, not a panic (Import's
// was in a goroutine of its own: it crashed the process), and writes
// nothing.
func TestNamespace_NilArguments(t *testing.T) {
	ctx := context.Background()
	n := cortextest.NewNamespace(t, "acme")
	q := quad.Quad{Subject: quad.IRI("http://example.org/s"), Predicate: quad.IRI("http://example.org/p"), Object: quad.String("o")}
	if err := n.Apply(ctx, cortex.Delta{Add: []quad.Quad{q}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"Update", func() error { return n.Update(ctx, nil) }},
		{"TryUpdate", func() error {
			ran, err := n.TryUpdate(ctx, nil)
			if ran {
				t.Errorf("TryUpdate(nil) reports it ran")
			}
			return err
		}},
		{"EachQuad", func() error { return n.EachQuad(ctx, cortex.Pattern{}, nil) }},
		{"Export", func() error { _, err := n.Export(ctx, nil, "ntriples", cortex.ExportOptions{}); return err }},
		{"ImportRDF", func() error { _, err := n.ImportRDF(ctx, nil, cortex.RDFImportOptions{Format: "ntriples"}); return err }},
		{"Import", func() error { _, err := n.Import(ctx, nil, cortex.ImportOptions{}); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, cortex.ErrInvalidArgument) {
				t.Fatalf("nil argument: %v, want an error matching ErrInvalidArgument", err)
			}
			if size, err := n.Size(ctx); err != nil || size != 1 {
				t.Fatalf("size after a refused call: %d, %v; want 1", size, err)
			}
		})
	}
}
