package cortex_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
)

func exq(s string) quad.IRI { return quad.IRI("http://example.org/" + s) }

func TestNamespace_Query_Isolation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := cortextest.NewStore(t)
	a, err := s.Namespace(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Namespace(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(a.Apply(ctx, cortex.Delta{Add: []quad.Quad{
		{Subject: exq("x"), Predicate: exq("p"), Object: quad.String("in a")},
		{Subject: exq("x"), Predicate: exq("p"), Object: quad.String("in a"), Label: exq("g")},
	}}))
	must(b.Apply(ctx, cortex.Delta{Add: []quad.Quad{
		{Subject: exq("y"), Predicate: exq("p"), Object: quad.String("in b"), Label: exq("g")},
	}}))
	count := func(ns *cortex.Namespace, q string, opts sparql.Options) int {
		t.Helper()
		res, err := ns.Query(ctx, q, opts)
		if err != nil {
			t.Fatal(err)
		}
		r, err := res.Collect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return len(r.Rows)
	}
	tests := []struct {
		name string
		ns   *cortex.Namespace
		q    string
		opts sparql.Options
		want int
	}{
		{"union counts the duplicated triple once", a, `SELECT * { ?s ?p ?o }`, sparql.Options{}, 1},
		{"own default graph", a, `SELECT * { ?s ?p ?o }`, sparql.Options{DefaultGraph: eval.OwnDefaultGraph}, 1},
		{"graph var sees own named graphs only", a, `SELECT * { GRAPH ?g { ?s ?p ?o } }`, sparql.Options{}, 1},
		{"other namespace invisible", a, `SELECT * { ?s ?p "in b" }`, sparql.Options{}, 0},
		{"other namespace invisible in GRAPH", a, `SELECT * { GRAPH <http://example.org/g> { ?s ?p "in b" } }`, sparql.Options{}, 0},
		{"b sees its own", b, `SELECT * { ?s ?p "in b" }`, sparql.Options{}, 1},
		{"b default graph is empty", b, `SELECT * { ?s ?p ?o }`, sparql.Options{DefaultGraph: eval.OwnDefaultGraph}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := count(tc.ns, tc.q, tc.opts); got != tc.want {
				t.Errorf("%d rows, want %d", got, tc.want)
			}
		})
	}
}

func TestNamespace_Query_Errors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := cortextest.NewNamespace(t, "q")
	if _, err := ns.Query(ctx, "SELECT ?x WHERE { ?x }", sparql.Options{}); err == nil {
		t.Fatal("syntax error not reported")
	}
	_, err := ns.Query(ctx, "SELECT ?x WHERE { ?x ?p ?o FILTER(<urn:f>(?x)) }", sparql.Options{})
	if !errors.Is(err, algebra.ErrNotSupported) {
		t.Fatalf("got %v, want not supported", err)
	}
	if err := ns.Apply(ctx, cortex.Delta{Add: []quad.Quad{{Subject: exq("s"), Predicate: exq("p"), Object: exq("o")}}}); err != nil {
		t.Fatal(err)
	}
	res, err := ns.Query(ctx, "SELECT * { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }", sparql.Options{Timeout: time.Nanosecond})
	if err != nil {
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatal(err)
		}
		return
	}
	_, err = res.Collect(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want deadline exceeded", err)
	}
}
