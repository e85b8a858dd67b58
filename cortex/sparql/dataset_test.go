package sparql_test

import (
	"context"
	"slices"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
)

// TestQuery_OptionsDataset: Options.Dataset replaces the query's FROM and
// FROM NAMED, as the protocol's default-graph-uri and named-graph-uri do.
func TestQuery_OptionsDataset(t *testing.T) {
	g := func(name string) quad.IRI { return quad.IRI(bx + name) }
	in := func(graph, s string) quad.Quad {
		q := bq(s, "p", quad.String(s))
		q.Label = g(graph)
		return q
	}
	ds := eval.NewMemDataset(in("g1", "a"), in("g2", "b"), in("g3", "c"))
	run := func(text string, d *algebra.Dataset) []string {
		t.Helper()
		res, err := sparql.Query(context.Background(), ds, text, sparql.Options{Dataset: d})
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		defer res.Close()
		var out []string
		for res.Next(context.Background()) {
			out = append(out, res.Row()[0].String())
		}
		if err := res.Err(); err != nil {
			t.Fatal(err)
		}
		slices.Sort(out)
		return out
	}
	from := `SELECT ?s FROM <` + bx + `g3> WHERE { ?s ?p ?o }`
	if got := run(from, nil); !slices.Equal(got, []string{"<" + bx + "c>"}) {
		t.Fatalf("FROM g3 without Options.Dataset: %v", got)
	}
	d := &algebra.Dataset{Default: []quad.IRI{g("g1"), g("g2")}}
	if got := run(from, d); !slices.Equal(got, []string{"<" + bx + "a>", "<" + bx + "b>"}) {
		t.Errorf("Options.Dataset default g1+g2 over FROM g3: %v", got)
	}
	named := `SELECT ?s WHERE { GRAPH ?g { ?s ?p ?o } }`
	d = &algebra.Dataset{Named: []quad.IRI{g("g2")}}
	if got := run(named, d); !slices.Equal(got, []string{"<" + bx + "b>"}) {
		t.Errorf("Options.Dataset named g2: %v", got)
	}
	if got := run(named, &algebra.Dataset{}); len(got) != 3 {
		t.Errorf("an empty Options.Dataset changed the dataset: %v", got)
	}
	// "A Dataset with no graph in either list changes nothing": the query's FROM still holds.
	for _, d := range []*algebra.Dataset{{}, {Default: []quad.IRI{}, Named: []quad.IRI{}}} {
		if got := run(from, d); !slices.Equal(got, []string{"<" + bx + "c>"}) {
			t.Errorf("FROM g3 with an empty Options.Dataset %+v: %v", *d, got)
		}
	}
}
