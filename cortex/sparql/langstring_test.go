package sparql_test

import (
	"slices"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
)

// TestQuery_Construct_DropsLangStringWithoutTag: a literal with datatype
// rdf:langString and no language tag is no RDF 1.1 term (RDF Concepts 3.3),
// so a CONSTRUCT template instance holding one is an "illegal RDF construct"
// and, as SPARQL 1.1 section 16.2 says, left out of the graph, whether it
// comes from the template or from the data (a store may hold one written
// before stores refused them). The other triples are kept.
func TestQuery_Construct_DropsLangStringWithoutTag(t *testing.T) {
	noTag := quad.TypedString{Value: "1", Type: algebra.RDFLangString}
	ds := eval.NewMemDataset(
		bq("a", "old", noTag),
		bq("a", "label", quad.LangString{Value: "x", Lang: "en"}),
	)
	for _, tc := range []struct{ name, query string }{
		{"template constant", `CONSTRUCT { :a :c "1"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString> . :a :label ?l } WHERE { :a :label ?l }`},
		{"from the data", `CONSTRUCT { :a :c ?o . :a :label ?l } WHERE { :a :label ?l OPTIONAL { :a :old ?o } }`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := rows(t, ds, tc.query, sparql.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := []string{`<http://ex/a> <http://ex/label> "x"@en`}
			if !slices.Equal(got, want) {
				t.Fatalf("got %q, want %q", got, want)
			}
		})
	}
}
