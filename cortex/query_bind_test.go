package cortex_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/sparql"
)

// TestNamespace_Query_Bindings checks parameters at the store level: Go values are normalised as the
// store writes them, a hostile literal is only a value, and values the store cannot hold fail with
// ErrInvalidBinding before anything runs.
func TestNamespace_Query_Bindings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := cortextest.NewNamespace(t, "a")
	at := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	hostile := `x" } ; DROP ALL ; INSERT DATA { <urn:a> <urn:b> <urn:c> } #`
	if err := n.Apply(ctx, cortex.Delta{Add: []quad.Quad{
		{Subject: exq("f1"), Predicate: exq("n"), Object: quad.Int(7)},
		{Subject: exq("f2"), Predicate: exq("at"), Object: quad.Time(at)},
		{Subject: exq("f3"), Predicate: exq("note"), Object: quad.String(hostile)},
		{Subject: exq("f4"), Predicate: exq("note"), Object: quad.String("x")},
	}}); err != nil {
		t.Fatal(err)
	}
	before := cortextest.AllQuads(t, n)
	subjects := func(q string, opts sparql.Options) ([]string, error) {
		t.Helper()
		res, err := n.Query(ctx, q, opts)
		if err != nil {
			return nil, err
		}
		r, err := res.Collect(ctx)
		var out []string
		for _, row := range r.Rows {
			out = append(out, string(row[0].(quad.IRI)))
		}
		slices.Sort(out)
		return out, err
	}
	for _, tc := range []struct {
		name string
		q    string
		opts sparql.Options
		want []string
	}{
		{"int", `SELECT ?s WHERE { ?s ?p ?v }`, sparql.Options{}.Bind("v", quad.Int(7)), []string{string(exq("f1"))}},
		{"time", `SELECT ?s WHERE { ?s ?p ?v }`, sparql.Options{}.Bind("v", quad.Time(at)), []string{string(exq("f2"))}},
		{"hostile literal", `SELECT ?s WHERE { ?s ?p ?v }`, sparql.Options{}.Bind("v", quad.String(hostile)), []string{string(exq("f3"))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := subjects(tc.q, tc.opts)
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name string
		v    quad.Value
		msg  string
	}{
		{"iri with '>'", quad.IRI(`http://example.org/f1> } UNION { ?s ?p ?o`), "'>'"},
		{"relative iri", quad.IRI("f1"), "not absolute"},
		{"blank node", quad.BNode("b1"), "blank node"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := subjects(`SELECT ?s WHERE { ?s ?p ?o }`, sparql.Options{}.Bind("s", tc.v))
			if !errors.Is(err, sparql.ErrInvalidBinding) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want ErrInvalidBinding mentioning %q", err, tc.msg)
			}
			if _, err := n.Explain(ctx, `SELECT ?s WHERE { ?s ?p ?o }`, sparql.Options{}.Bind("s", tc.v)); !errors.Is(err, sparql.ErrInvalidBinding) {
				t.Fatalf("Explain: err = %v, want ErrInvalidBinding", err)
			}
		})
	}
	if after := cortextest.AllQuads(t, n); len(after) != len(before) {
		t.Fatalf("queries changed the store: %d quads, had %d", len(after), len(before))
	}
}
