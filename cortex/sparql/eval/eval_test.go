package eval_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
	"github.com/cortexgraph/cortex/cortex/sparql/parser"
)

const ex = "http://ex/"

func iri(s string) quad.IRI { return quad.IRI(ex + s) }

func q3(s, p string, o quad.Value) quad.Quad {
	return quad.Quad{Subject: iri(s), Predicate: iri(p), Object: o}
}

func q4(s, p string, o quad.Value, g string) quad.Quad {
	q := q3(s, p, o)
	q.Label = iri(g)
	return q
}

func testData() *eval.MemDataset {
	return eval.NewMemDataset(
		q3("a", "name", quad.String("Alice")),
		q3("b", "name", quad.String("Bob")),
		q3("a", "knows", iri("b")),
		q3("b", "knows", iri("c")),
		q3("c", "knows", iri("d")),
		q3("a", "age", quad.TypedString{Value: "30", Type: algebra.XSDInteger}),
		q3("b", "age", quad.TypedString{Value: "25", Type: algebra.XSDInteger}),
		q4("a", "name", quad.String("Alice"), "g1"), // also in the default graph
		q4("x", "name", quad.String("Xavier"), "g1"),
		q4("y", "name", quad.String("Yvonne"), "g2"),
	)
}

// run evaluates a query and returns its rows as sorted strings "?v=term ..." (or "true"/"false").
func run(t *testing.T, ds eval.Dataset, text string, opts eval.Options) ([]string, error) {
	t.Helper()
	q, err := parser.Parse(text, parser.Options{Prefixes: map[string]string{"": ex}})
	if err != nil {
		t.Fatalf("parse %q: %v", text, err)
	}
	ctx := context.Background()
	res, err := eval.Eval(ctx, ds, q, opts)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	var out []string
	switch {
	case res.Rows != nil:
		vars := res.Rows.Vars()
		for res.Rows.Next(ctx) {
			var parts []string
			for i, v := range res.Rows.Row() {
				if v != nil {
					parts = append(parts, "?"+vars[i]+"="+algebra.FormatTerm(v))
				}
			}
			out = append(out, strings.Join(parts, " "))
		}
		err = res.Rows.Err()
	case res.Quads != nil:
		for res.Quads.Next(ctx) {
			qd := res.Quads.Quad()
			out = append(out, fmt.Sprintf("%s %s %s", algebra.FormatTerm(qd.Subject), algebra.FormatTerm(qd.Predicate), algebra.FormatTerm(qd.Object)))
		}
		err = res.Quads.Err()
	default:
		out = []string{fmt.Sprint(res.Boolean)}
	}
	if !strings.Contains(text, "ORDER BY") {
		sort.Strings(out)
	}
	return out, err
}

func TestEval_Queries(t *testing.T) {
	ds := testData()
	tests := []struct {
		name  string
		query string
		opts  eval.Options
		want  []string
	}{
		{"bgp join", `SELECT ?n WHERE { ?x :knows ?y . ?y :name ?n }`, eval.Options{}, []string{`?n="Bob"`}},
		{"union graph counts a triple once", `SELECT (COUNT(*) AS ?c) WHERE { ?s :name ?n }`, eval.Options{}, []string{`?c=4`}},
		{"own default graph", `SELECT (COUNT(*) AS ?c) WHERE { ?s :name ?n }`, eval.Options{DefaultGraph: eval.OwnDefaultGraph}, []string{`?c=2`}},
		{"graph IRI as default", `SELECT ?n WHERE { ?s :name ?n }`, eval.Options{DefaultGraph: ex + "g2"}, []string{`?n="Yvonne"`}},
		{"unknown graph IRI is empty", `SELECT ?n WHERE { ?s :name ?n }`, eval.Options{DefaultGraph: ex + "nope"}, nil},
		{"graph var", `SELECT ?g ?n WHERE { GRAPH ?g { ?s :name ?n } }`, eval.Options{}, []string{`?g=<http://ex/g1> ?n="Alice"`, `?g=<http://ex/g1> ?n="Xavier"`, `?g=<http://ex/g2> ?n="Yvonne"`}},
		{"from", `SELECT ?n FROM :g2 WHERE { ?s :name ?n }`, eval.Options{}, []string{`?n="Yvonne"`}},
		{"from named", `SELECT ?g ?n FROM NAMED :g2 WHERE { GRAPH ?g { ?s :name ?n } }`, eval.Options{}, []string{`?g=<http://ex/g2> ?n="Yvonne"`}},
		{"from named only: empty default", `SELECT ?n FROM NAMED :g2 WHERE { ?s :name ?n }`, eval.Options{}, nil},
		{"from merges", `SELECT ?n FROM :g1 FROM :g2 WHERE { ?s :name ?n }`, eval.Options{}, []string{`?n="Alice"`, `?n="Xavier"`, `?n="Yvonne"`}},
		{"optional", `SELECT ?x ?a WHERE { ?x :knows ?y OPTIONAL { ?x :age ?a } }`, eval.Options{DefaultGraph: eval.OwnDefaultGraph}, []string{`?x=<http://ex/a> ?a=30`, `?x=<http://ex/b> ?a=25`, `?x=<http://ex/c>`}},
		{"filter", `SELECT ?x WHERE { ?x :age ?a FILTER(?a > 26) }`, eval.Options{}, []string{`?x=<http://ex/a>`}},
		{"minus", `SELECT ?x WHERE { ?x :knows ?y MINUS { ?x :age ?a } }`, eval.Options{}, []string{`?x=<http://ex/c>`}},
		{"not exists", `SELECT ?x WHERE { ?x :knows ?y FILTER NOT EXISTS { ?y :knows ?z } }`, eval.Options{}, []string{`?x=<http://ex/c>`}},
		// EXISTS substitutes the solution's bindings into its pattern (SPARQL 1.1 §18.6, Evaluation of
		// Exists): a FILTER or OPTIONAL inside it sees the outer values.
		{"not exists filter sees outer", `SELECT ?x WHERE { ?x :age ?a FILTER NOT EXISTS { ?y :age ?b FILTER(?b > ?a) } }`, eval.Options{}, []string{`?x=<http://ex/a>`}},
		{"exists filter sees outer", `SELECT ?x WHERE { ?x :age ?a FILTER EXISTS { ?y :age ?b FILTER(?b < ?a) } }`, eval.Options{}, []string{`?x=<http://ex/a>`}},
		{"exists bare filter", `SELECT ?x WHERE { ?x :age ?a FILTER EXISTS { FILTER(?a > 26) } }`, eval.Options{}, []string{`?x=<http://ex/a>`}},
		{"exists optional with outer var", `SELECT ?x WHERE { ?x :knows ?y FILTER EXISTS { OPTIONAL { ?x :age ?a } FILTER(!BOUND(?a)) } }`, eval.Options{DefaultGraph: eval.OwnDefaultGraph}, []string{`?x=<http://ex/c>`}},
		{"exists optional always matches", `SELECT (COUNT(*) AS ?c) WHERE { ?x :knows ?y FILTER EXISTS { OPTIONAL { ?x :age ?a } } }`, eval.Options{DefaultGraph: eval.OwnDefaultGraph}, []string{`?c=3`}},
		{"nested exists sees both", `SELECT ?x WHERE { ?x :age ?a FILTER NOT EXISTS { ?y :age ?b FILTER(?b != ?a) FILTER NOT EXISTS { ?y :name ?n FILTER(?b > ?a) } } }`, eval.Options{DefaultGraph: eval.OwnDefaultGraph}, []string{`?x=<http://ex/b>`}},
		{"nested exists reads outer var in its filter only", `SELECT ?x WHERE { ?x :age ?a FILTER EXISTS { ?y :knows ?z OPTIONAL { ?z :age ?c } FILTER EXISTS { ?y :age ?b FILTER(?b = ?a) } } }`, eval.Options{DefaultGraph: eval.OwnDefaultGraph}, []string{`?x=<http://ex/a>`, `?x=<http://ex/b>`}},
		// OFFSET + LIMIT past the largest int64 must not wrap around.
		{"offset with largest limit", `SELECT ?n WHERE { ?s :name ?n } ORDER BY ?n OFFSET 1 LIMIT 9223372036854775807`, eval.Options{}, []string{`?n="Bob"`, `?n="Xavier"`, `?n="Yvonne"`}},
		{"offset with largest limit unordered", `SELECT (COUNT(*) AS ?c) WHERE { { SELECT ?n WHERE { ?s :name ?n } OFFSET 1 LIMIT 9223372036854775807 } }`, eval.Options{}, []string{`?c=3`}},
		{"largest offset and limit", `SELECT ?n WHERE { ?s :name ?n } ORDER BY ?n OFFSET 9223372036854775807 LIMIT 9223372036854775807`, eval.Options{}, nil},
		{"exists filter after subquery sees outer", `SELECT ?x WHERE { ?x :age ?a FILTER EXISTS { { SELECT ?b WHERE { ?y :age ?b } } FILTER(?b > ?a) } }`, eval.Options{}, []string{`?x=<http://ex/b>`}},
		{"exists subquery keeps its own variables", `SELECT ?x WHERE { ?x :age ?a FILTER EXISTS { { SELECT (COUNT(*) AS ?c) WHERE { ?x :knows ?y } } FILTER(?c = 3 && ?a > 0) } }`, eval.Options{}, []string{`?x=<http://ex/a>`, `?x=<http://ex/b>`}},
		{"exists subquery joins on projected", `SELECT ?x WHERE { ?x :age ?a FILTER EXISTS { { SELECT ?x ?n WHERE { ?x :name ?n } } FILTER(?a < 30) } }`, eval.Options{}, []string{`?x=<http://ex/b>`}},
		{"path plus", `SELECT ?y WHERE { :a :knows+ ?y }`, eval.Options{}, []string{`?y=<http://ex/b>`, `?y=<http://ex/c>`, `?y=<http://ex/d>`}},
		{"path star inverse", `SELECT ?x WHERE { ?x ^:knows* :b }`, eval.Options{}, []string{`?x=<http://ex/b>`, `?x=<http://ex/c>`, `?x=<http://ex/d>`}},
		{"bind values", `SELECT ?x ?z WHERE { VALUES ?x { :a :b } BIND(CONCAT("n-", STR(?x)) AS ?z) }`, eval.Options{}, []string{`?x=<http://ex/a> ?z="n-http://ex/a"`, `?x=<http://ex/b> ?z="n-http://ex/b"`}},
		{"group having", `SELECT ?x (COUNT(?y) AS ?c) WHERE { ?x :knows ?y } GROUP BY ?x HAVING (COUNT(?y) >= 1) ORDER BY ?x`, eval.Options{}, []string{`?x=<http://ex/a> ?c=1`, `?x=<http://ex/b> ?c=1`, `?x=<http://ex/c> ?c=1`}},
		{"order limit offset", `SELECT ?n WHERE { ?s :name ?n } ORDER BY DESC(?n) LIMIT 2 OFFSET 1`, eval.Options{}, []string{`?n="Xavier"`, `?n="Bob"`}},
		{"subselect", `SELECT ?x WHERE { { SELECT ?x WHERE { ?x :age ?a } ORDER BY ?a LIMIT 1 } }`, eval.Options{}, []string{`?x=<http://ex/b>`}},
		{"ask true", `ASK { :a :knows :b }`, eval.Options{}, []string{"true"}},
		{"ask false", `ASK { :b :knows :a }`, eval.Options{}, []string{"false"}},
		{"construct", `CONSTRUCT { ?y :knownBy ?x } WHERE { ?x :knows ?y FILTER(?x = :a) }`, eval.Options{}, []string{`<http://ex/b> <http://ex/knownBy> <http://ex/a>`}},
		{"describe", `DESCRIBE :b`, eval.Options{}, []string{`<http://ex/b> <http://ex/age> 25`, `<http://ex/b> <http://ex/knows> <http://ex/c>`, `<http://ex/b> <http://ex/name> "Bob"`}},
		{"distinct", `SELECT DISTINCT ?n WHERE { GRAPH ?g { ?s :name ?n } }`, eval.Options{}, []string{`?n="Alice"`, `?n="Xavier"`, `?n="Yvonne"`}},
		{"unknown constant matches nothing", `SELECT ?s WHERE { ?s :name "Nobody" }`, eval.Options{}, nil},
		{"computed term joins with data", `SELECT ?s WHERE { BIND(STRLANG("x","en") AS ?l) BIND(:a AS ?s) ?s :knows ?o }`, eval.Options{}, []string{`?s=<http://ex/a>`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := run(t, ds, tc.query, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

func TestEval_NotSupported(t *testing.T) {
	_, err := run(t, testData(), `SELECT ?x WHERE { ?x :p ?y FILTER(<http://ex/custom>(?y)) }`, eval.Options{})
	if !errors.Is(err, eval.ErrNotSupported) || !strings.Contains(err.Error(), "not supported") {
		t.Fatalf("got %v, want a not supported error", err)
	}
}

// slowDataset never stops producing quads, to test cancellation.
type slowDataset struct{ *eval.MemDataset }

type endless struct{ n eval.ID }

func (e *endless) Next(ctx context.Context) bool { e.n++; return ctx.Err() == nil }
func (e *endless) Quad() eval.Quad               { return eval.Quad{S: e.n%3 + 1, P: 1, O: e.n%5 + 1} }
func (e *endless) Err() error                    { return nil }
func (e *endless) Close() error                  { return nil }

func (s slowDataset) Match(context.Context, eval.Pattern) eval.QuadIterator { return &endless{} }

func TestEval_Cancel(t *testing.T) {
	ds := slowDataset{testData()}
	q, _ := parser.Parse(`SELECT (COUNT(*) AS ?c) WHERE { ?s ?p ?o }`, parser.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	res, err := eval.Eval(ctx, ds, q, eval.Options{DefaultGraph: eval.OwnDefaultGraph})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if res.Rows.Next(ctx) {
		t.Fatal("a row from an endless count")
	}
	if !errors.Is(res.Rows.Err(), context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", res.Rows.Err())
	}
}

func TestEval_CloseEarly(t *testing.T) {
	ds := slowDataset{testData()}
	q, _ := parser.Parse(`SELECT * WHERE { ?s ?p ?o }`, parser.Options{})
	ctx := context.Background()
	res, err := eval.Eval(ctx, ds, q, eval.Options{DefaultGraph: eval.OwnDefaultGraph})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10 && res.Rows.Next(ctx); i++ {
	}
	if err := res.Close(); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkEval_MemJoin(b *testing.B) {
	var qs []quad.Quad
	for i := 0; i < 2000; i++ {
		s := fmt.Sprintf("f%d", i)
		qs = append(qs, q3(s, "sev", quad.String(fmt.Sprint(i%4))), q3(s, "type", iri("Finding")))
	}
	ds := eval.NewMemDataset(qs...)
	q, _ := parser.Parse(`PREFIX : <http://ex/> SELECT ?s (COUNT(*) AS ?c) WHERE { ?f a :Finding ; :type :Finding ; :sev ?s } GROUP BY ?s`, parser.Options{})
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		res, err := eval.Eval(ctx, ds, q, eval.Options{})
		if err != nil {
			b.Fatal(err)
		}
		for res.Rows.Next(ctx) {
		}
		res.Close()
	}
}

// A negated property set matches a pair of nodes once however many of its
// predicates connect them: SPARQL 1.1 §18.4 (Evaluation of
// NegatedPropertySet) gives { μ | ∃ triple(μ'(μ,x), p, μ'(μ,y)) in G, p ∉ S },
// a set. An alternative of negated sets (!(p|^q)) is still the multiset
// Union of its two sides.
func TestEval_NegatedPropertySetIsASet(t *testing.T) {
	ds := eval.NewMemDataset(
		q3("a", "p", iri("b")),
		q3("a", "q", iri("b")),
		q3("a", "r", iri("c")),
		q3("c", "p", iri("c")),
		q3("c", "q", iri("c")),
		q4("a", "p", iri("b"), "g1"),
		q4("a", "s", iri("b"), "g1"),
	)
	own := eval.Options{DefaultGraph: eval.OwnDefaultGraph}
	tests := []struct {
		name, query string
		opts        eval.Options
		want        []string
	}{
		{"both ends bound", `SELECT * WHERE { :a !:z :b }`, own, []string{""}},
		{"both ends bound, a predicate excluded", `SELECT * WHERE { :a !:p :b }`, own, []string{""}},
		{"subject bound", `SELECT ?y WHERE { :a !:z ?y }`, own, []string{`?y=<http://ex/b>`, `?y=<http://ex/c>`}},
		{"object bound", `SELECT ?x WHERE { ?x !:z :b }`, own, []string{`?x=<http://ex/a>`}},
		{"no end bound", `SELECT ?x ?y WHERE { ?x !:z ?y }`, own, []string{`?x=<http://ex/a> ?y=<http://ex/b>`, `?x=<http://ex/a> ?y=<http://ex/c>`, `?x=<http://ex/c> ?y=<http://ex/c>`}},
		{"same variable", `SELECT ?x WHERE { ?x !:z ?x }`, own, []string{`?x=<http://ex/c>`}},
		{"inverse", `SELECT ?x ?y WHERE { ?x !^:z ?y }`, own, []string{`?x=<http://ex/b> ?y=<http://ex/a>`, `?x=<http://ex/c> ?y=<http://ex/a>`, `?x=<http://ex/c> ?y=<http://ex/c>`}},
		{"in a sequence", `SELECT ?x WHERE { ?x :r/!:z ?y }`, own, []string{`?x=<http://ex/a>`}},
		{"alternative of direct and inverse is a union", `SELECT ?x ?y WHERE { :a !(:z|^:z) ?y }`, own, []string{`?y=<http://ex/b>`, `?y=<http://ex/c>`}},
		{"union default graph", `SELECT * WHERE { :a !:z :b }`, eval.Options{}, []string{""}},
		{"named graphs each", `SELECT ?g WHERE { GRAPH ?g { :a !:z :b } }`, own, []string{`?g=<http://ex/g1>`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := run(t, ds, tc.query, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

// TestEval_NondeterministicFilterPerSolution: a FILTER is evaluated for each solution of its group
// (SPARQL 1.1 §18.2.1, Filter(expr, Ω)); a condition with RAND() may not be moved down to the first
// triple pattern that binds its variables, where one decision would keep or drop every solution
// extending the same partial row. Over a 16 x 16 cross product, FILTER(RAND() < 0.5) must keep some
// but not all of the rows sharing ?x (or ?y); all-or-nothing for every ?x under independent
// decisions has probability 2^-240.
func TestEval_NondeterministicFilterPerSolution(t *testing.T) {
	var qs []quad.Quad
	for i := range 16 {
		qs = append(qs, q3(fmt.Sprintf("x%d", i), "a", quad.String(fmt.Sprint(i))), q3(fmt.Sprintf("y%d", i), "b", quad.String(fmt.Sprint(i))))
	}
	ds := eval.NewMemDataset(qs...)
	for _, filter := range []string{
		"RAND() < 0.5",
		"RAND() < 0.5 && BOUND(?u)",
		"RAND() < 0.5 && BOUND(?v)",
		"STRLEN(?u) > 0 && RAND() < 0.5",
	} {
		t.Run(filter, func(t *testing.T) {
			rows, err := run(t, ds, `SELECT ?x ?y WHERE { ?x :a ?u . ?y :b ?v FILTER(`+filter+`) }`, eval.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, key := range []int{0, 1} {
				count := map[string]int{}
				for _, r := range rows {
					count[strings.Fields(r)[key]]++
				}
				mixed := false
				for _, n := range count {
					if n > 0 && n < 16 {
						mixed = true
					}
				}
				if !mixed {
					t.Errorf("every ?%s keeps all or none of its 16 rows (%d rows in all): one RAND() decided for many solutions", []string{"x", "y"}[key], len(rows))
				}
			}
		})
	}
}

// TestEval_FreshValuesOfGroupJoined: a group joined with the rows before it is evaluated on its own
// (SPARQL 1.1 §18.6: Join(eval(P1), eval(P2))), so a fresh value it makes (BNODE(), BNODE(str),
// STRUUID(), RAND()) is made once per solution of that group and shared by every row it joins with;
// likewise a FILTER with RAND() in it keeps or drops each of the group's solutions once. Injecting
// the left rows into the group made a new value (and a new decision) for each of them.
func TestEval_FreshValuesOfGroupJoined(t *testing.T) {
	var qs []quad.Quad
	for i := range 16 {
		qs = append(qs, q3(fmt.Sprintf("x%d", i), "a", quad.String(fmt.Sprint(i))), q3(fmt.Sprintf("y%d", i), "b", quad.String(fmt.Sprint(i))))
	}
	ds := eval.NewMemDataset(qs...)
	for _, tc := range []struct {
		name, query    string
		rows, distinct int // rows, distinct values of ?b
	}{
		{"bnode", `SELECT ?x ?b WHERE { ?x :a ?u { BIND(BNODE() AS ?b) } }`, 16, 1},
		{"bnode-str", `SELECT ?x ?b WHERE { ?x :a ?u { BIND(BNODE("k") AS ?b) } }`, 16, 1},
		{"struuid", `SELECT ?x ?b WHERE { ?x :a ?u { BIND(STRUUID() AS ?b) } }`, 16, 1},
		{"rand", `SELECT ?x ?b WHERE { ?x :a ?u { BIND(RAND() AS ?b) } }`, 16, 1},
		{"optional", `SELECT ?x ?b WHERE { ?x :a ?u OPTIONAL { BIND(BNODE() AS ?b) } }`, 16, 1},
		{"values", `SELECT ?x ?b WHERE { ?x :a ?u { VALUES ?z { 1 } BIND(BNODE() AS ?b) } }`, 16, 1},
		{"union", `SELECT ?x ?b WHERE { ?x :a ?u { { BIND(BNODE() AS ?b) } UNION { BIND(BNODE() AS ?b) } } }`, 32, 2},
		{"per-inner-row", `SELECT ?x ?b WHERE { ?x :a ?u { ?y :b ?v BIND(BNODE() AS ?b) } }`, 256, 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := run(t, ds, tc.query, eval.Options{})
			if err != nil {
				t.Fatal(err)
			}
			bs := map[string]bool{}
			for _, r := range rows {
				for _, f := range strings.Fields(r) {
					if strings.HasPrefix(f, "?b=") {
						bs[f] = true
					}
				}
			}
			if len(rows) != tc.rows || len(bs) != tc.distinct {
				t.Errorf("%d rows, %d distinct ?b; want %d rows, %d distinct", len(rows), len(bs), tc.rows, tc.distinct)
			}
		})
	}
	t.Run("filter-rand", func(t *testing.T) {
		rows, err := run(t, ds, `SELECT ?x ?y WHERE { ?x :a ?u { ?y :b ?v FILTER(RAND() < 0.5) } }`, eval.Options{})
		if err != nil {
			t.Fatal(err)
		}
		count := map[string]int{}
		for _, r := range rows {
			count[strings.Fields(r)[1]]++
		}
		for y, n := range count {
			if n != 16 {
				t.Errorf("%s joins %d of the 16 ?x, want all (the group's filter keeps it or not once)", y, n)
			}
		}
	})
}

// TestEval_ConstructBlankNodesFresh: a blank node of a CONSTRUCT template is a new node for each
// solution (SPARQL 1.1 §16.2), distinct from every blank node of the data. Its label was "c<row>_<label>",
// which a blank node of the data can have: the data's node and the template's were then one node.
func TestEval_ConstructBlankNodesFresh(t *testing.T) {
	ds := eval.NewMemDataset(
		q3("s", "p", quad.BNode("c1_b")),
		q3("s", "p", quad.BNode("c2_b0")),
	)
	for _, query := range []string{
		`CONSTRUCT { ?o :fresh _:b } WHERE { ?s :p ?o }`,
		`CONSTRUCT { ?o :fresh [ :x 1 ] } WHERE { ?s :p ?o }`,
		`CONSTRUCT { ?o :fresh ?b . ?o :fresh2 _:b } WHERE { ?s :p ?o BIND(BNODE() AS ?b) }`,
	} {
		t.Run(query, func(t *testing.T) {
			rows, err := run(t, ds, query, eval.Options{})
			if err != nil {
				t.Fatal(err)
			}
			objs := map[string]bool{}
			for _, r := range rows {
				f := strings.Fields(r)
				if strings.Contains(f[1], "fresh") {
					if f[0] == f[2] || f[2] == "_:c1_b" || f[2] == "_:c2_b0" {
						t.Errorf("%s: the template's blank node is a blank node of the data", r)
					}
					if objs[f[2]] {
						t.Errorf("%s: the template's blank node is shared with another solution or template node", r)
					}
					objs[f[2]] = true
				}
			}
			if len(objs) < 2 {
				t.Errorf("%d fresh nodes in %q", len(objs), rows)
			}
		})
	}
}

// TestEval_ManyComputedTermsKeepOneID: DISTINCT, GROUP BY and COUNT(DISTINCT) compare terms by id, so
// a term computed again must get the id it got before however many other terms the query has
// computed; past 2^18 of them, a computed term got a new id each time and was counted again.
func TestEval_ManyComputedTermsKeepOneID(t *testing.T) {
	if testing.Short() {
		t.Skip("computes 2 x 270400 terms")
	}
	const n = 520 // n*n = 270400 distinct keys, more than 2^18
	var qs []quad.Quad
	for i := range n {
		qs = append(qs, q3(fmt.Sprintf("s%d", i), "p", quad.String(fmt.Sprint(i))))
	}
	ds := eval.NewMemDataset(qs...)
	rows, err := run(t, ds, `SELECT (COUNT(DISTINCT ?k) AS ?c) (COUNT(*) AS ?n) WHERE { ?a :p ?x . ?b :p ?y . VALUES ?r { 1 2 } BIND(CONCAT(?x, "-", ?y) AS ?k) }`, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("?c=%d ?n=%d", n*n, 2*n*n)
	if len(rows) != 1 || rows[0] != want {
		t.Errorf("got %q, want %s", rows, want)
	}
}

// TestEval_NaNOrdering: <, <=, > and >= between numbers map to op:numeric-less-than and
// op:numeric-greater-than (SPARQL 1.1 §17.3), which are false when an operand is NaN (F&O §4.3.2,
// §4.3.3), not a type error: !(NaN < 1) is true and BIND keeps the false.
func TestEval_NaNOrdering(t *testing.T) {
	rows, err := run(t, eval.NewMemDataset(), `PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
		SELECT ?lt ?le ?gt ?ge ?not ?f ?ill WHERE {
			BIND("NaN"^^xsd:double AS ?nan)
			BIND(?nan < 1 AS ?lt) BIND(1 <= ?nan AS ?le) BIND(?nan > "NaN"^^xsd:float AS ?gt) BIND(?nan >= 1.5 AS ?ge)
			BIND(!(?nan < 1) AS ?not) BIND("NaN"^^xsd:float < "x" AS ?f) BIND(?nan < "x"^^xsd:integer AS ?ill) }`, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `?lt=false ?le=false ?gt=false ?ge=false ?not=true` // a string or an ill-typed number: still a type error
	if len(rows) != 1 || rows[0] != want {
		t.Errorf("got %q, want %q", rows, want)
	}
}

// TestEval_DataBlankNodeThroughExpression: a blank node of the data that an expression returns
// (BIND(?b AS ?c), COALESCE, IF) is still that node: it joins, MINUSes, groups and counts as the
// node ?b is. It got a new query-local id, as BNODE()'s fresh nodes do, so it matched nothing.
func TestEval_DataBlankNodeThroughExpression(t *testing.T) {
	ds := eval.NewMemDataset(
		q3("s", "link", quad.BNode("b1")),
		quad.Quad{Subject: quad.BNode("b1"), Predicate: iri("link"), Object: iri("s")},
	)
	for _, tc := range []struct {
		name, query string
		want        []string
	}{
		{"bind then triple", `SELECT ?y WHERE { :s :link ?b BIND(?b AS ?c) ?c :link ?y }`, []string{`?y=<http://ex/s>`}},
		{"coalesce then triple", `SELECT ?y WHERE { :s :link ?b BIND(COALESCE(?b) AS ?c) ?c :link ?y }`, []string{`?y=<http://ex/s>`}},
		{"if then group", `SELECT ?y WHERE { :s :link ?b BIND(IF(true, ?b, 0) AS ?c) { ?c :link ?y } }`, []string{`?y=<http://ex/s>`}},
		{"subquery join", `SELECT ?z WHERE { { :s :link ?b BIND(?b AS ?c) } { SELECT ?c ?z WHERE { ?c :link ?z } } }`, []string{`?z=<http://ex/s>`}},
		{"minus", `SELECT (COUNT(*) AS ?n) WHERE { :s :link ?b BIND(?b AS ?c) MINUS { ?c :link :s } }`, []string{`?n=0`}},
		{"count distinct", `SELECT (COUNT(DISTINCT ?c) AS ?n) WHERE { { :s :link ?b BIND(?b AS ?c) } UNION { ?c :link :s } }`, []string{`?n=1`}},
		{"group by", `SELECT (COUNT(*) AS ?n) WHERE { { :s :link ?b BIND(?b AS ?c) } UNION { ?c :link :s } } GROUP BY ?c`, []string{`?n=2`}},
		{"fresh bnode still fresh", `SELECT (COUNT(*) AS ?n) WHERE { :s :link ?b BIND(BNODE() AS ?c) ?c :link ?y }`, []string{`?n=0`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := run(t, ds, tc.query, eval.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rows, tc.want) {
				t.Errorf("got %q, want %q", rows, tc.want)
			}
		})
	}
}

// TestEval_LargeBGPKeepsEveryPattern: the planner orders a BGP of more than
// maxDPPatterns patterns greedily; it marked the patterns it had placed in a
// 32-bit mask, so from the 33rd on none was ever marked: one could be placed
// again and again and others never, and the query lost their conditions. A
// chain ex:n0 ex:next ?x1 ... ?xn whose data stops short of n must have no
// solution, and one that the data holds exactly one.
func TestEval_LargeBGPKeepsEveryPattern(t *testing.T) {
	for _, tc := range []struct {
		name            string
		patterns, links int
		want            int
	}{
		{"30 of 30", 30, 30, 1},
		{"40 of 40", 40, 40, 1},
		{"40 of 39", 40, 39, 0},
		{"70 of 69", 70, 69, 0},
		{"70 of 70", 70, 70, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var qs []quad.Quad
			for i := 0; i < tc.links; i++ {
				qs = append(qs, q3(fmt.Sprintf("n%d", i), "next", iri(fmt.Sprintf("n%d", i+1))))
			}
			var b strings.Builder
			b.WriteString("SELECT * WHERE { :n0 :next ?x1 .")
			for i := 1; i < tc.patterns; i++ {
				fmt.Fprintf(&b, " ?x%d :next ?x%d .", i, i+1)
			}
			b.WriteString(" }")
			got, err := run(t, eval.NewMemDataset(qs...), b.String(), eval.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.want {
				t.Fatalf("%d solutions, want %d: %.300q", len(got), tc.want, got)
			}
		})
	}
}

// TestEval_LargeBGPPlanningStopsWithContext: ordering a BGP of n patterns
// takes time cubic in n (a query of a few thousand patterns, some tens of
// kilobytes, took minutes) and looked at no context, so a query's timeout
// did not stop it. Eval returns the context's error when it ends during the
// search.
func TestEval_LargeBGPPlanningStopsWithContext(t *testing.T) {
	var b strings.Builder
	b.WriteString("SELECT * WHERE {")
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&b, " ?x%d :next ?x%d .", i, i+1)
	}
	b.WriteString(" }")
	q, err := parser.Parse(b.String(), parser.Options{Prefixes: map[string]string{"": ex}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := eval.Eval(ctx, testData(), q, eval.Options{})
	if err == nil {
		res.Close()
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestEval_LongChainCompilationStopsWithContext: compiling a query looked at
// no context, so a chain of thousands of OPTIONALs or UNIONs (which took
// minutes) ran past the query's timeout. Eval returns the context's error
// when it ends during compilation.
func TestEval_LongChainCompilationStopsWithContext(t *testing.T) {
	for _, unit := range []string{" OPTIONAL { ?s ?p ?o }", " UNION {}", " { ?s ?p ?o }"} {
		t.Run(strings.TrimSpace(unit), func(t *testing.T) {
			q, err := parser.Parse("SELECT * { {}"+strings.Repeat(unit, 500)+" }", parser.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			res, err := eval.Eval(ctx, eval.NewMemDataset(), q, eval.Options{})
			if err == nil {
				res.Close()
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
		})
	}
}

// TestEval_DateIsOneKnownDatatype: the operators knew xsd:date ("2024-02-29"^^xsd:date != "a" was
// true, two dates compared by value) but the casts did not (xsd:string of a date was a type error,
// though XPath defines it), and an ill-typed date was unequal to a string where any other ill-typed
// literal is a type error. The date is one known datatype everywhere now.
func TestEval_DateIsOneKnownDatatype(t *testing.T) {
	const x = "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> "
	for _, tc := range []struct{ name, expr, want string }{
		{"string of date", `xsd:string("2024-02-29"^^xsd:date)`, `"2024-02-29"`},
		{"string of date canonical", `xsd:string("2024-02-29+00:00"^^xsd:date)`, `"2024-02-29Z"`},
		{"dateTime of date", `xsd:dateTime("2024-02-29Z"^^xsd:date)`, `"2024-02-29T00:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime>`},
		{"str of date", `str("2024-02-29+00:00"^^xsd:date)`, `"2024-02-29+00:00"`},
		{"integer of date", `xsd:integer("2024-02-29"^^xsd:date)`, ``},
		{"string of ill-typed date", `xsd:string("2023-02-29"^^xsd:date)`, ``},
		{"date != string", `"2024-02-29"^^xsd:date != "a"`, `true`},
		{"date = date by value", `"2024-02-29+12:00"^^xsd:date = "2024-02-28-12:00"^^xsd:date`, `true`},
		{"date < date", `"2024-02-28"^^xsd:date < "2024-02-29"^^xsd:date`, `true`},
		{"date < string", `"2024-02-28"^^xsd:date < "a"`, ``},
		{"ill-typed date != string", `"2023-02-29"^^xsd:date != "a"`, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := run(t, eval.NewMemDataset(), x+"SELECT ?v { BIND("+tc.expr+" AS ?v) }", eval.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := "?v=" + tc.want
			if tc.want == "" {
				want = "" // an error leaves ?v unbound
			}
			if len(got) != 1 || got[0] != want {
				t.Fatalf("got %q, want [%q]", got, want)
			}
		})
	}
}

// cancelAtMatch is a dataset that cancels its query's context at its
// cancelAt-th Match and counts the Matches after it.
type cancelAtMatch struct {
	*eval.MemDataset
	cancel   context.CancelFunc
	cancelAt int
	matches  int
}

func (d *cancelAtMatch) Match(ctx context.Context, p eval.Pattern) eval.QuadIterator {
	if d.matches++; d.matches == d.cancelAt {
		d.cancel()
	}
	return d.MemDataset.Match(ctx, p)
}

// TestEval_LongChainEvaluationStopsWithContext: each link of a chain of
// OPTIONALs, GRAPHs or paths scans with the solution of the links below it
// in hand, and a scan looked at the context only every 1,024 quads and when it
// ended: a chain of 20,000 ran to its bottom, seconds past its timeout. No
// link scans once the context has ended.
func TestEval_LongChainEvaluationStopsWithContext(t *testing.T) {
	for _, tc := range []struct{ name, unit string }{
		{"optional", " OPTIONAL { ?s ?p ?o# }"},
		{"graph", " GRAPH ?g# { ?s ?p ?o }"},
		{"path", " ?s (<http://ex/p>|<http://ex/q>) ?o# ."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString("SELECT * { ?s ?p ?o .")
			for i := range 300 {
				b.WriteString(strings.ReplaceAll(tc.unit, "#", fmt.Sprint(i)))
			}
			b.WriteString(" }")
			q, err := parser.Parse(b.String(), parser.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ds := &cancelAtMatch{MemDataset: eval.NewMemDataset(q4("a", "p", iri("a"), "g")), cancel: cancel, cancelAt: 100}
			res, err := eval.Eval(ctx, ds, q, eval.Options{})
			if err == nil {
				for res.Rows.Next(ctx) {
				}
				err = res.Rows.Err()
				res.Close()
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if after := ds.matches - ds.cancelAt; after > 0 {
				t.Fatalf("%d scans after the context ended, want 0", after)
			}
		})
	}
}

// TestEval_LongChainsAllocateLinearly: each link of a chain of OPTIONALs
// ran its BGP on a copy of the row of the links below, a row of all the
// query's variables; a path copied its entry row once per run and once per
// pair; GRAPH ?g copied its entry row once per run. So a chain of n links
// with new variables copied n rows of n slots (20,000 OPTIONALs: seconds).
// Each binds its variables in the row it is given and unbinds them before
// it returns: evaluating twice the chain allocates about twice the bytes.
func TestEval_LongChainsAllocateLinearly(t *testing.T) {
	tests := []struct {
		name      string
		ds        eval.Dataset
		head, tpl string // the query: head, then tpl (with %d) per link, then " }"
	}{
		{"optional", eval.NewMemDataset(q3("a", "p", iri("a"))), "SELECT * { ?s ?p ?o", " OPTIONAL { ?s ?p ?o%d }"},
		{"path", eval.NewMemDataset(q3("a", "p", iri("a"))), "SELECT * { ?s ?p ?o .", " ?s (<http://ex/p>|<http://ex/q>) ?o%d ."},
		{"graph", eval.NewMemDataset(q4("a", "p", iri("a"), "g")), "SELECT * { ?s ?p ?o .", " GRAPH ?g%d { ?s ?p ?o }"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bytes := func(n int) uint64 {
				var b strings.Builder
				b.WriteString(tc.head)
				for i := range n {
					fmt.Fprintf(&b, tc.tpl, i)
				}
				b.WriteString(" }")
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				got, err := run(t, tc.ds, b.String(), eval.Options{})
				runtime.ReadMemStats(&after)
				if err != nil || len(got) != 1 {
					t.Fatalf("%d solutions, err %v; want 1", len(got), err)
				}
				return after.TotalAlloc - before.TotalAlloc
			}
			const n = 2000
			small, large := bytes(n), bytes(2*n)
			ratio := float64(large) / float64(small)
			t.Logf("%d links: %d bytes; %d links: %d bytes (×%.2f)", n, small, 2*n, large, ratio)
			if ratio > 2.6 {
				t.Fatalf("evaluating %d links allocated %.2f times what %d did, want about 2", 2*n, ratio, n)
			}
		})
	}
}

// BGPs, paths and GRAPH ?g bind their variables in the row they are given and unbind them before they
// return, on every path out (an EXISTS stops at its first solution): what follows an EXISTS, an
// OPTIONAL or a LIMIT sees the row as it was, and an EXISTS substitutes the solution it tests, not the
// row its pattern is binding (isolated operators, such as a sub-select, start from it).
func TestEval_OperatorsRestoreTheRow(t *testing.T) {
	ds := testData()
	tests := []struct {
		name, query string
		want        []string
	}{
		{"filter after early exists over graph",
			`ASK { ?x :knows ?y FILTER EXISTS { GRAPH ?g { ?s :name ?n } } FILTER(!BOUND(?g) && !BOUND(?n)) }`,
			[]string{"true"}},
		{"bind after exists over graph",
			`SELECT ?x ?k WHERE { ?x :knows ?y FILTER EXISTS { GRAPH ?g { ?s :name ?n } } BIND(COALESCE(?g, ?n, "unbound") AS ?k) }`,
			[]string{`?x=<http://ex/a> ?k="unbound"`, `?x=<http://ex/b> ?k="unbound"`, `?x=<http://ex/c> ?k="unbound"`}},
		{"values after exists over graph",
			`SELECT ?x ?g WHERE { { ?x :knows ?y FILTER EXISTS { GRAPH ?g { ?s :name ?n } } } VALUES ?g { :g2 UNDEF } }`,
			[]string{`?x=<http://ex/a>`, `?x=<http://ex/a> ?g=<http://ex/g2>`, `?x=<http://ex/b>`, `?x=<http://ex/b> ?g=<http://ex/g2>`, `?x=<http://ex/c>`, `?x=<http://ex/c> ?g=<http://ex/g2>`}},
		{"path after exists over path",
			`SELECT ?x ?y ?z WHERE { { ?x :knows ?y FILTER EXISTS { ?y :knows+ ?z } } ?y :knows* ?z }`,
			[]string{`?x=<http://ex/a> ?y=<http://ex/b> ?z=<http://ex/b>`, `?x=<http://ex/a> ?y=<http://ex/b> ?z=<http://ex/c>`, `?x=<http://ex/a> ?y=<http://ex/b> ?z=<http://ex/d>`, `?x=<http://ex/b> ?y=<http://ex/c> ?z=<http://ex/c>`, `?x=<http://ex/b> ?y=<http://ex/c> ?z=<http://ex/d>`}},
		{"path with the same variable at both ends",
			`SELECT ?x WHERE { ?x :knows* ?x . ?x :age ?a }`,
			[]string{`?x=<http://ex/a>`, `?x=<http://ex/b>`}},
		{"bind after exists stopped by limit inside graph and optional",
			`SELECT ?x ?b WHERE { ?x :knows ?y FILTER EXISTS { SELECT * WHERE { GRAPH ?g { ?s :name ?n OPTIONAL { ?s :age ?a } } } LIMIT 1 } BIND(BOUND(?g) || BOUND(?s) || BOUND(?a) AS ?b) }`,
			[]string{`?x=<http://ex/a> ?b=false`, `?x=<http://ex/b> ?b=false`, `?x=<http://ex/c> ?b=false`}},
		// The sub-select is evaluated once per EXISTS with the solution tested: were it given the row
		// GRAPH ?g binds, it would keep the first graph's ?g for the second.
		{"exists graph then sub-select of the first graph",
			`ASK { FILTER EXISTS { GRAPH ?g { ?s :name ?n } { SELECT ?g WHERE { VALUES ?g { :g1 } } } } }`,
			[]string{"true"}},
		{"exists graph then sub-select of the second graph",
			`ASK { FILTER EXISTS { GRAPH ?g { ?s :name ?n } { SELECT ?g WHERE { VALUES ?g { :g2 } } } } }`,
			[]string{"true"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := run(t, ds, tc.query, eval.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}
