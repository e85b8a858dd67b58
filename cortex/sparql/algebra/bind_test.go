package algebra_test

import (
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
	"github.com/cortexgraph/cortex/cortex/sparql/parser"
)

// TestBind_Algebra shows where Bind puts the value: constants in patterns and expressions, an extend
// under the projection (below ORDER BY), on both sides of a MINUS that shares the variable, and on top
// of a CONSTRUCT pattern. A value is a term of the tree, printed escaped, never query text.
func TestBind_Algebra(t *testing.T) {
	alice := quad.IRI("urn:a")
	for _, tc := range []struct {
		name, query string
		bind        map[string]quad.Value
		want        string
	}{
		{
			name:  "select",
			query: `SELECT ?a ?f WHERE { ?f <urn:by> ?a FILTER(BOUND(?a) && ?a != <urn:b>) } ORDER BY ?f LIMIT 2`,
			bind:  map[string]quad.Value{"a": alice},
			want: `(select
  (vars ?a ?f)
  (slice _ 2
    (project (?a ?f)
      (order ((asc ?f))
        (extend (?a <urn:a>)
          (filter (&& true (!= <urn:a> <urn:b>))
            (bgp
              (triple ?f <urn:by> <urn:a>))))))))`,
		},
		{
			name:  "minus",
			query: `SELECT ?f WHERE { ?f <urn:by> ?a MINUS { ?a <urn:banned> true } }`,
			bind:  map[string]quad.Value{"a": alice},
			want: `(select
  (vars ?f)
  (project (?f)
    (minus
      (extend (?a <urn:a>)
        (bgp
          (triple ?f <urn:by> <urn:a>)))
      (extend (?a <urn:a>)
        (bgp
          (triple <urn:a> <urn:banned> true))))))`,
		},
		{
			name:  "construct",
			query: `CONSTRUCT { ?f <urn:note> ?n } WHERE { ?f <urn:note> ?n }`,
			bind:  map[string]quad.Value{"n": quad.String(`x" } ; DROP ALL #`)},
			want: `(construct
  (template
    (triple ?f <urn:note> ?n))
  (extend (?n "x\" } ; DROP ALL #")
    (bgp
      (triple ?f <urn:note> "x\" } ; DROP ALL #"))))`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := parser.Parse(tc.query, parser.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			before := q.String()
			got, err := algebra.Bind(q, tc.bind)
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tc.want)
			}
			if q.String() != before {
				t.Fatal("Bind modified its input")
			}
		})
	}
}
