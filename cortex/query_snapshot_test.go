package cortex_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/sparql"
)

func countRows(t *testing.T, ns *cortex.Namespace, q string) int {
	t.Helper()
	ctx := context.Background()
	res, err := ns.Query(ctx, q, sparql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := res.Collect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return len(r.Rows)
}

func TestNamespace_Query_ReadsOneSnapshot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := cortextest.NewNamespace(t, "snap")
	add := func(from, to int) {
		t.Helper()
		var qs []quad.Quad
		for i := from; i < to; i++ {
			qs = append(qs, quad.Quad{Subject: exq(fmt.Sprint("s", i)), Predicate: exq("p"), Object: quad.String(fmt.Sprint(i))})
		}
		if err := ns.Apply(ctx, cortex.Delta{Add: qs}); err != nil {
			t.Fatal(err)
		}
	}
	add(0, 100)
	const q = `SELECT ?s ?o WHERE { ?s <http://example.org/p> ?o }`
	res, err := ns.Query(ctx, q, sparql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	add(100, 150) // committed after the query started, before its rows are read
	r, err := res.Collect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 100 {
		t.Errorf("open query read %d rows, want the 100 committed when it started", len(r.Rows))
	}
	if n := countRows(t, ns, q); n != 150 {
		t.Errorf("new query read %d rows, want 150", n)
	}
	// Statistics and cached term ids are per namespace state: a removal is seen at once.
	if err := ns.Apply(ctx, cortex.Delta{Remove: []quad.Quad{{Subject: exq("s0"), Predicate: exq("p"), Object: quad.String("0")}}}); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, ns, q); n != 149 {
		t.Errorf("after a removal: %d rows, want 149", n)
	}
	if n := countRows(t, ns, `SELECT ?s WHERE { ?s ?p "0" }`); n != 0 {
		t.Errorf("removed term still matches: %d rows", n)
	}
}

func TestNamespace_Query_InsideUpdate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := cortextest.NewNamespace(t, "upd")
	if err := ns.Apply(ctx, cortex.Delta{Add: []quad.Quad{{Subject: exq("a"), Predicate: exq("p"), Object: exq("b")}}}); err != nil {
		t.Fatal(err)
	}
	// A query made while the namespace's writer lock is held (here by the same goroutine) must
	// neither wait for the writer nor reuse statistics of a state being changed.
	err := ns.Update(ctx, func(tx *cortex.Tx) error {
		if n := countRows(t, tx.Namespace(), `SELECT * { ?s ?p ?o }`); n != 1 {
			t.Errorf("query inside Update: %d rows, want 1", n)
		}
		tx.Add(quad.Quad{Subject: exq("c"), Predicate: exq("p"), Object: exq("d")})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, ns, `SELECT * { ?s ?p ?o }`); n != 2 {
		t.Errorf("after Update: %d rows, want 2", n)
	}
}
