package sparql_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
)

const bx = "http://ex/"

func bq(s, p string, o quad.Value) quad.Quad {
	return quad.Quad{Subject: quad.IRI(bx + s), Predicate: quad.IRI(bx + p), Object: o}
}

// evil is a literal made to close the query if it were spliced into the text.
const evil = `x" } ; DROP ALL ; SELECT * WHERE { ?s ?p ?o } #`

func bindData() *eval.MemDataset {
	dec := func(s string) quad.Value { return quad.TypedString{Value: quad.String(s), Type: algebra.XSDDecimal} }
	ds := eval.NewMemDataset(
		bq("f1", "by", quad.IRI(bx+"alice")),
		bq("f1", "conf", dec("0.9")),
		bq("f1", "checkedBy", quad.IRI(bx+"alice")),
		bq("f1", "at", quad.String("t1")),
		bq("f2", "by", quad.IRI(bx+"alice")),
		bq("f2", "conf", dec("0.2")),
		bq("f2", "checkedBy", quad.IRI(bx+"bob")),
		bq("f2", "at", quad.String("t2")),
		bq("f3", "by", quad.IRI(bx+"bob")),
		bq("f3", "conf", dec("0.7")),
		bq("f3", "note", quad.String(evil)),
		bq("f4", "by", quad.IRI(bx+"cy")),
		bq("f4", "note", quad.String("x")),
		bq("cy", "banned", quad.TypedString{Value: "true", Type: algebra.XSDBoolean}),
	)
	g := bq("f1", "in", quad.String("g"))
	g.Label = quad.IRI(bx + "g1")
	ds.Add(g)
	return ds
}

// rows runs text with opts and returns the rows as sorted "?v=term ..." strings, a Boolean result as
// "true"/"false" and a graph result as sorted N-Triples lines.
func rows(t *testing.T, ds eval.Dataset, text string, opts sparql.Options) ([]string, error) {
	t.Helper()
	ctx := context.Background()
	opts.Prefixes = map[string]string{"": bx}
	res, err := sparql.Query(ctx, ds, text, opts)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	var out []string
	switch res.Kind {
	case sparql.Boolean:
		if res.Boolean {
			return []string{"true"}, nil
		}
		return []string{"false"}, nil
	case sparql.Graph:
		qs, err := res.CollectQuads(ctx)
		for _, q := range qs {
			out = append(out, algebra.FormatTerm(q.Subject)+" "+algebra.FormatTerm(q.Predicate)+" "+algebra.FormatTerm(q.Object))
		}
		slices.Sort(out)
		return out, err
	}
	for res.Next(ctx) {
		var parts []string
		for i, v := range res.Row() {
			if v != nil {
				parts = append(parts, "?"+res.Vars[i]+"="+strings.TrimPrefix(algebra.FormatTerm(v), "<"+bx))
			}
		}
		out = append(out, strings.Join(parts, " "))
	}
	slices.Sort(out)
	return out, res.Err()
}

func TestQuery_Bindings(t *testing.T) {
	alice := quad.IRI(bx + "alice")
	for _, tc := range []struct {
		name  string
		query string
		bind  map[string]quad.Value
		want  []string
	}{
		{
			name:  "select shows the bound variable",
			query: `SELECT ?f ?agent WHERE { ?f :by ?agent }`,
			bind:  map[string]quad.Value{"agent": alice},
			want:  []string{"?f=f1> ?agent=alice>", "?f=f2> ?agent=alice>"},
		},
		{
			name:  "select star",
			query: `SELECT * WHERE { ?f :by ?agent }`,
			bind:  map[string]quad.Value{"agent": quad.IRI(bx + "bob")},
			want:  []string{"?f=f3> ?agent=bob>"},
		},
		{
			name:  "describe",
			query: `DESCRIBE ?agent WHERE { ?f :by ?agent }`,
			bind:  map[string]quad.Value{"agent": quad.IRI(bx + "cy")},
			want:  []string{`<http://ex/cy> <http://ex/banned> true`},
		},
		{
			name:  "question mark and dollar names",
			query: `SELECT ?f WHERE { ?f :by $agent ; :conf ?c FILTER(?c > ?min) }`,
			bind:  map[string]quad.Value{"$agent": alice, "?min": quad.TypedString{Value: "0.5", Type: algebra.XSDDecimal}},
			want:  []string{"?f=f1>"},
		},
		{
			name:  "filter only",
			query: `SELECT ?f WHERE { ?f :conf ?c FILTER(?c >= ?min) }`,
			bind:  map[string]quad.Value{"min": quad.TypedString{Value: "0.7", Type: algebra.XSDDecimal}},
			want:  []string{"?f=f1>", "?f=f3>"},
		},
		{
			// Substitution, not a join with the bound row: f2 (checked by bob) keeps its row with the
			// optional part unmatched, and f3 has no check at all.
			name:  "optional",
			query: `SELECT ?f ?agent ?at WHERE { ?f :conf ?c OPTIONAL { ?f :checkedBy ?agent ; :at ?at } }`,
			bind:  map[string]quad.Value{"agent": alice},
			want:  []string{"?f=f1> ?agent=alice> ?at=\"t1\"", "?f=f2> ?agent=alice>", "?f=f3> ?agent=alice>"},
		},
		{
			name:  "optional condition",
			query: `SELECT ?f ?at WHERE { ?f :conf ?c OPTIONAL { ?f :at ?at FILTER(?at = ?want) } }`,
			bind:  map[string]quad.Value{"want": quad.String("t2")},
			want:  []string{"?f=f1>", "?f=f2> ?at=\"t2\"", "?f=f3>"},
		},
		{
			name:  "bound is true",
			query: `SELECT ?f WHERE { ?f :by ?who FILTER(BOUND(?agent) && ?who = ?agent) }`,
			bind:  map[string]quad.Value{"agent": quad.IRI(bx + "bob")},
			want:  []string{"?f=f3>"},
		},
		{
			// ?agent is only shared with the MINUS side: it must still be compared there.
			name:  "minus",
			query: `SELECT ?f WHERE { ?f :by ?agent MINUS { ?agent :banned true } }`,
			bind:  map[string]quad.Value{"agent": quad.IRI(bx + "cy")},
			want:  nil,
		},
		{
			name:  "minus keeps the others",
			query: `SELECT ?f WHERE { ?f :by ?agent MINUS { ?agent :banned true } }`,
			bind:  map[string]quad.Value{"agent": alice},
			want:  []string{"?f=f1>", "?f=f2>"},
		},
		{
			// The sub-select does not project ?agent: its ?agent is another variable.
			name:  "sub-select scope",
			query: `SELECT ?agent ?n WHERE { { SELECT (COUNT(*) AS ?n) WHERE { ?f :by ?agent } } }`,
			bind:  map[string]quad.Value{"agent": alice},
			want:  []string{`?agent=alice> ?n=4`},
		},
		{
			name:  "sub-select projecting the variable",
			query: `SELECT ?n WHERE { { SELECT ?agent (COUNT(*) AS ?n) WHERE { ?f :by ?agent } GROUP BY ?agent } }`,
			bind:  map[string]quad.Value{"agent": alice},
			want:  []string{`?n=2`},
		},
		{
			// Only the variables a sub-select projects are shared with it: its ?x is its own.
			name:  "sub-select projecting one of two",
			query: `SELECT ?n WHERE { ?x :banned true { SELECT ?agent (COUNT(*) AS ?n) WHERE { ?x :by ?agent } GROUP BY ?agent } }`,
			bind:  map[string]quad.Value{"agent": alice, "x": quad.IRI(bx + "cy")},
			want:  []string{`?n=2`},
		},
		{
			name:  "group by and aggregate",
			query: `SELECT ?agent (COUNT(?f) AS ?n) WHERE { ?f :by ?agent } GROUP BY ?agent ORDER BY ?agent LIMIT 5`,
			bind:  map[string]quad.Value{"agent": alice},
			want:  []string{`?agent=alice> ?n=2`},
		},
		{
			name:  "graph name",
			query: `SELECT ?s WHERE { GRAPH ?g { ?s ?p ?o } }`,
			bind:  map[string]quad.Value{"g": quad.IRI(bx + "g1")},
			want:  []string{"?s=f1>"},
		},
		{
			name:  "exists",
			query: `SELECT ?f WHERE { ?f :by ?a FILTER EXISTS { ?f :checkedBy ?agent } }`,
			bind:  map[string]quad.Value{"agent": quad.IRI(bx + "bob")},
			want:  []string{"?f=f2>"},
		},
		{
			name:  "ask",
			query: `ASK { ?f :by ?agent ; :note ?n }`,
			bind:  map[string]quad.Value{"agent": alice},
			want:  []string{"false"},
		},
		{
			name:  "construct",
			query: `CONSTRUCT { ?f :author ?agent } WHERE { ?f :by ?agent }`,
			bind:  map[string]quad.Value{"agent": alice},
			want:  []string{"<http://ex/f1> <http://ex/author> <http://ex/alice>", "<http://ex/f2> <http://ex/author> <http://ex/alice>"},
		},
		{
			// A value is only ever a value: it matches the stored literal holding the same characters.
			name:  "injection attempt in a literal",
			query: `SELECT ?f WHERE { ?f :note ?note }`,
			bind:  map[string]quad.Value{"note": quad.String(evil)},
			want:  []string{"?f=f3>"},
		},
		{
			name:  "injection attempt in an IRI",
			query: `SELECT ?f WHERE { ?f :by ?agent }`,
			bind:  map[string]quad.Value{"agent": quad.IRI(bx + `alice> } UNION { ?f ?p ?o } #`)},
			want:  nil,
		},
		{
			name:  "xsd:string and empty language tag are simple literals",
			query: `SELECT ?f WHERE { ?f :at ?a ; :checkedBy ?c FILTER(?c != ?x) }`,
			bind: map[string]quad.Value{
				"a": quad.TypedString{Value: "t1", Type: algebra.XSDString},
				"x": quad.LangString{Value: "nobody", Lang: ""},
			},
			want: []string{"?f=f1>"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := rows(t, bindData(), tc.query, sparql.Options{Bindings: tc.bind})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestQuery_Bindings_Errors(t *testing.T) {
	alice := quad.IRI(bx + "alice")
	for _, tc := range []struct {
		name, query string
		bind        map[string]quad.Value
		want        error
		msg         string
	}{
		{"unknown variable", `SELECT ?f WHERE { ?f :by ?agent }`, map[string]quad.Value{"agnt": alice}, sparql.ErrUnknownVariable, "?agnt"},
		{"variable of a sub-select only", `SELECT ?n WHERE { { SELECT (COUNT(*) AS ?n) WHERE { ?f :by ?agent } } }`,
			map[string]quad.Value{"agent": alice}, sparql.ErrUnknownVariable, "?agent"},
		{"bind", `SELECT ?x WHERE { ?f :by ?a BIND(?a AS ?x) }`, map[string]quad.Value{"x": alice}, sparql.ErrBindingConflict, "?x"},
		{"select as", `SELECT (?a AS ?x) WHERE { ?f :by ?a }`, map[string]quad.Value{"x": alice}, sparql.ErrBindingConflict, "?x"},
		{"values", `SELECT ?f WHERE { ?f :by ?a VALUES ?a { :alice } }`, map[string]quad.Value{"a": alice}, sparql.ErrBindingConflict, "VALUES"},
		{"blank node", `SELECT ?f WHERE { ?f :by ?a }`, map[string]quad.Value{"a": quad.BNode("b0")}, sparql.ErrInvalidBinding, "blank node"},
		{"nil", `SELECT ?f WHERE { ?f :by ?a }`, map[string]quad.Value{"a": nil}, sparql.ErrInvalidBinding, "no value"},
		{"raw value", `SELECT ?f WHERE { ?f :by ?a }`, map[string]quad.Value{"a": quad.Int(3)}, sparql.ErrInvalidBinding, "quad.Int"},
		{"bad name", `SELECT ?f WHERE { ?f :by ?a }`, map[string]quad.Value{"": alice}, sparql.ErrInvalidBinding, "variable name"},
		// as a relative IRI in the query text is (parser.ErrRelativeIRI): it
		// would reach the result writers, which cannot write it
		{"relative IRI", `CONSTRUCT { ?a :by ?a } WHERE { }`, map[string]quad.Value{"a": quad.IRI("alice")}, sparql.ErrInvalidBinding, "relative IRI <alice>"},
		{"relative datatype", `SELECT ?f WHERE { ?f :by ?a }`, map[string]quad.Value{"a": quad.TypedString{Value: "1", Type: "int"}}, sparql.ErrInvalidBinding, "relative datatype IRI <int>"},
		{"rdf:langString without a tag", `SELECT ?f WHERE { ?f :by ?a }`, map[string]quad.Value{"a": quad.TypedString{Value: "1", Type: algebra.RDFLangString}}, sparql.ErrInvalidBinding, "rdf:langString literal without a language tag"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := rows(t, bindData(), tc.query, sparql.Options{Bindings: tc.bind})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want %v mentioning %q", err, tc.want, tc.msg)
			}
		})
	}
}

// TestEval_Bindings_ParseOnce checks that one parsed query runs with different bindings and is not
// changed by them.
func TestEval_Bindings_ParseOnce(t *testing.T) {
	ctx := context.Background()
	q, err := sparql.Parse(`SELECT ?f WHERE { ?f <http://ex/by> ?agent }`, sparql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	before := q.String()
	ds := bindData()
	for agent, want := range map[string]int{"alice": 2, "bob": 1, "nobody": 0} {
		res, err := sparql.Eval(ctx, ds, q, sparql.Options{}.Bind("agent", quad.IRI(bx+agent)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := res.Collect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Rows) != want {
			t.Fatalf("%s: %d rows, want %d", agent, len(got.Rows), want)
		}
	}
	if q.String() != before {
		t.Fatalf("Eval changed the parsed query:\n%s\nwas\n%s", q, before)
	}
}

// TestOptions_Bind checks that Bind copies the map.
func TestOptions_Bind(t *testing.T) {
	base := sparql.Options{}.Bind("a", quad.String("1"))
	o2 := base.Bind("b", quad.String("2"))
	if len(base.Bindings) != 1 || len(o2.Bindings) != 2 {
		t.Fatalf("base %v, derived %v", base.Bindings, o2.Bindings)
	}
}
