package sparql_test

import (
	"context"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
)

// FuzzQuery checks that no query text makes the engine panic or hang: any text either fails to parse,
// fails with an error, or evaluates (bounded by a short timeout) over a small dataset.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{
		`SELECT * { ?s ?p ?o }`,
		`SELECT ?s (COUNT(*) AS ?c) { ?s ?p ?o OPTIONAL { ?o ?q ?r } } GROUP BY ?s HAVING (?c > 1) ORDER BY ?c`,
		`ASK { ?s <http://ex/p>+ ?o FILTER NOT EXISTS { ?o ?p ?s } }`,
		`CONSTRUCT { ?o ?p ?s } WHERE { GRAPH ?g { ?s ?p ?o } MINUS { ?s a ?t } }`,
		`SELECT * { VALUES (?x ?y) { (1 2) (UNDEF "a"@en) } BIND(?x + ?y AS ?z) { SELECT ?x { ?x ?p ?o } LIMIT 2 } }`,
		`DESCRIBE <http://ex/a>`,
		`SELECT (GROUP_CONCAT(DISTINCT ?o; SEPARATOR="|") AS ?g) { ?s !(<http://ex/p>|^<http://ex/q>) ?o }`,
	} {
		f.Add(s)
	}
	ds := eval.NewMemDataset(
		quad.Quad{Subject: quad.IRI("http://ex/a"), Predicate: quad.IRI("http://ex/p"), Object: quad.IRI("http://ex/b")},
		quad.Quad{Subject: quad.IRI("http://ex/b"), Predicate: quad.IRI("http://ex/p"), Object: quad.String("x")},
		quad.Quad{Subject: quad.IRI("http://ex/b"), Predicate: quad.IRI("http://ex/q"), Object: quad.TypedString{Value: "2", Type: "http://www.w3.org/2001/XMLSchema#integer"}, Label: quad.IRI("http://ex/g")},
	)
	f.Fuzz(func(t *testing.T, text string) {
		ctx := context.Background()
		res, err := sparql.Query(ctx, ds, text, sparql.Options{Timeout: 200 * time.Millisecond})
		if err != nil {
			return
		}
		defer res.Close()
		for i := 0; i < 1000 && res.Next(ctx); i++ {
		}
		_ = res.Err()
	})
}
