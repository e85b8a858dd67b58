package cortex_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
)

// readsNamespace returns a namespace holding one quad in the default graph
// and one in graph ex:g.
func readsNamespace(t *testing.T) (*cortex.Store, *cortex.Namespace) {
	t.Helper()
	ctx := context.Background()
	s := cortextest.NewStore(t)
	ns, err := s.Namespace(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	d := cortex.Delta{Add: []quad.Quad{q("s", "p", quad.String("o"), nil), q("s", "p", quad.String("o"), iri("g"))}}
	if err := ns.Apply(ctx, d); err != nil {
		t.Fatal(err)
	}
	return s, ns
}

// TestNamespace_Reads_InvalidGraph: a read given a graph that no quad can
// have (a malformed IRI, a literal) fails with an error matching
// ErrInvalidArgument, and ErrInvalidQuad as a write of a quad in that graph
// does; the errors matched no sentinel (the literal matched nothing).
func TestNamespace_Reads_InvalidGraph(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, ns := readsNamespace(t)
	graphs := []struct {
		name string
		g    quad.Value
	}{
		{"not an IRI", quad.IRI("not an iri <>")},
		{"space", quad.IRI("http://example.org/a b")},
		{"control char", quad.IRI("http://example.org/a\x01b")},
		{"relative", quad.IRI("g")},
		{"empty IRI", quad.IRI("")},
		{"literal", quad.String("http://example.org/g")},
		{"empty blank node", quad.BNode("")},
	}
	reads := []struct {
		name string
		call func(g quad.Value) error
	}{
		{"Quads", func(g quad.Value) error {
			_, err := ns.Quads(ctx, cortex.Pattern{Graph: g, Scope: cortex.OneGraph})
			return err
		}},
		{"EachQuad", func(g quad.Value) error {
			return ns.EachQuad(ctx, cortex.Pattern{Subject: iri("s"), Graph: g, Scope: cortex.OneGraph},
				func(quad.Quad) error { return nil })
		}},
		{"Export", func(g quad.Value) error {
			_, err := ns.Export(ctx, &bytes.Buffer{}, "nquads", cortex.ExportOptions{Graph: g, Scope: cortex.OneGraph})
			return err
		}},
		{"DropGraph", func(g quad.Value) error { _, err := ns.DropGraph(ctx, g); return err }},
	}
	for _, r := range reads {
		for _, g := range graphs {
			t.Run(r.name+"/"+g.name, func(t *testing.T) {
				err := r.call(g.g)
				if !errors.Is(err, cortex.ErrInvalidArgument) || !errors.Is(err, cortex.ErrInvalidQuad) {
					t.Fatalf("graph %#v: %v, want an error matching ErrInvalidArgument and ErrInvalidQuad", g.g, err)
				}
			})
		}
	}
	// The writes of those graphs, which the reads are consistent with.
	for _, g := range graphs {
		err := ns.Apply(ctx, cortex.Delta{Add: []quad.Quad{q("s", "p", quad.String("x"), g.g)}})
		if !errors.Is(err, cortex.ErrInvalidQuad) {
			t.Errorf("apply in graph %#v: %v, want ErrInvalidQuad", g.g, err)
		}
	}
	if n, err := ns.Size(ctx); err != nil || n != 2 {
		t.Fatalf("size %d, %v after refused calls; want 2", n, err)
	}
}

// TestNamespace_Reads_InvalidTerm: a pattern naming a malformed IRI as its
// subject, predicate or object fails as one naming it as its graph does; the
// error matched no sentinel. (A literal subject is a term, which no quad
// holds there: it matches nothing.)
func TestNamespace_Reads_InvalidTerm(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, ns := readsNamespace(t)
	bad := quad.IRI("http://example.org/a b")
	for name, p := range map[string]cortex.Pattern{
		"subject":   {Subject: bad},
		"predicate": {Predicate: bad},
		"object":    {Object: bad},
		"no scheme": {Subject: quad.IRI("s")},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ns.Quads(ctx, p)
			if !errors.Is(err, cortex.ErrInvalidArgument) || !errors.Is(err, cortex.ErrInvalidQuad) {
				t.Fatalf("pattern %+v: %v, want an error matching ErrInvalidArgument and ErrInvalidQuad", p, err)
			}
		})
	}
}

// TestNamespace_Reads_InvalidScope: a scope other than the four named ones
// fails with an error matching ErrInvalidArgument before anything is read;
// it was taken for AllGraphs.
func TestNamespace_Reads_InvalidScope(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, ns := readsNamespace(t)
	for _, scope := range []cortex.Scope{cortex.NamedGraphs + 1, 99, 255} {
		for _, tc := range []struct {
			name string
			call func() error
		}{
			{"Quads", func() error { _, err := ns.Quads(ctx, cortex.Pattern{Scope: scope}); return err }},
			{"EachQuad", func() error {
				return ns.EachQuad(ctx, cortex.Pattern{Scope: scope}, func(quad.Quad) error {
					t.Errorf("scope %d: a quad was read", scope)
					return nil
				})
			}},
			{"Export", func() error {
				var buf bytes.Buffer
				_, err := ns.Export(ctx, &buf, "nquads", cortex.ExportOptions{Scope: scope})
				if buf.Len() != 0 {
					t.Errorf("scope %d: exported %q", scope, buf.String())
				}
				return err
			}},
			{"Dataset.Match", func() error {
				it := ns.Dataset().Match(ctx, eval.Pattern{Scope: scope})
				defer it.Close()
				if it.Next(ctx) {
					t.Errorf("scope %d: Match read %+v", scope, it.Quad())
				}
				return it.Err()
			}},
			{"Dataset.Estimate", func() error { _, err := ns.Dataset().Estimate(ctx, eval.Pattern{Scope: scope}); return err }},
		} {
			t.Run(fmt.Sprintf("%s/scope %d", tc.name, scope), func(t *testing.T) {
				if err := tc.call(); !errors.Is(err, cortex.ErrInvalidArgument) {
					t.Fatalf("scope %d: %v, want an error matching ErrInvalidArgument", scope, err)
				}
			})
		}
	}
}
