package sparql_test

import (
	"context"
	"fmt"
	"os"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
	"github.com/cortexgraph/cortex/cortex/sparql/results"
)

func ExampleQuery() {
	ds := eval.NewMemDataset(
		quad.Quad{Subject: quad.IRI("http://ex/a"), Predicate: quad.IRI("http://ex/severity"), Object: quad.String("high")},
		quad.Quad{Subject: quad.IRI("http://ex/b"), Predicate: quad.IRI("http://ex/severity"), Object: quad.String("low")},
		quad.Quad{Subject: quad.IRI("http://ex/c"), Predicate: quad.IRI("http://ex/severity"), Object: quad.String("high")},
	)
	ctx := context.Background()
	res, err := sparql.Query(ctx, ds, `PREFIX ex: <http://ex/>
SELECT ?sev (COUNT(*) AS ?n) WHERE { ?f ex:severity ?sev } GROUP BY ?sev ORDER BY DESC(?n)`, sparql.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Close()
	w, _ := results.NewTSVWriter(os.Stdout, res.Vars)
	for res.Next(ctx) {
		w.Write(res.Row())
	}
	w.Close()
	// Output:
	// ?sev	?n
	// "high"	"2"^^<http://www.w3.org/2001/XMLSchema#integer>
	// "low"	"1"^^<http://www.w3.org/2001/XMLSchema#integer>
}
