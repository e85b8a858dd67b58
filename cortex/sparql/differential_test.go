package sparql_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/cortex/rdfio/rdftest"
	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
	"github.com/cortexgraph/cortex/cortex/sparql/results"
)

// The differential test runs generated queries (diffgen_test.go) over
// generated datasets with our engine and with Oxigraph (difftest/oxidiff.mjs,
// one node process for the whole run) and fails on every query one side
// answers and the other rejects, or whose results differ, unless an entry of
// sparqlDiffSkips explains it. The default graph is the dataset's own default
// graph on both sides (eval.OwnDefaultGraph; Oxigraph's default).
//
// Results are compared as multisets of rows, blank nodes up to renaming and
// terms exactly (results.Equivalent), in order only where the ORDER BY keys
// order the whole result totally by the relations SPARQL defines (§15.1:
// unbound < blank node < IRI < literal; IRIs by their string; literals where
// '<' is defined on them). Columns whose value SPARQL leaves to the
// implementation are normalized on both sides first and the agreement is
// counted under that name (see colKind): computed numbers by value,
// GROUP_CONCAT as a multiset of pieces, SAMPLE not at all.

const (
	sparqlDifftestDir     = "difftest"
	requireSparqlDifftest = "CORTEX_REQUIRE_SPARQL_DIFFTEST"
	sparqlDiffSeed        = 20261126
	// sparqlDiffDatasets datasets of sparqlDiffQueries queries each.
	sparqlDiffDatasets = 250
	sparqlDiffQueries  = 12
)

var (
	sparqlDiffSeedFlag  = flag.Uint64("sparqldiff.seed", sparqlDiffSeed, "seed of TestDifferential_Oxigraph's corpus")
	sparqlDiffCases     = flag.Int("sparqldiff.datasets", sparqlDiffDatasets, "number of datasets of TestDifferential_Oxigraph (each with 12 queries)")
	sparqlDiffShow      = flag.Int("sparqldiff.show", 20, "number of disagreements TestDifferential_Oxigraph prints")
	sparqlDiffStore     = flag.Bool("sparqldiff.store", false, "TestDifferential_Oxigraph over a Cortex store (one namespace per dataset) instead of eval.MemDataset")
	sparqlDiffConstruct = flag.Bool("sparqldiff.construct", false, "TestDifferential_Oxigraph with each SELECT query wrapped in a CONSTRUCT (see asConstruct)")
	sparqlDiffUnion     = flag.Bool("sparqldiff.union", false, "TestDifferential_Oxigraph with the union default graph (see TestDifferential_OxigraphCasesUnion)")
)

// sparqlCase is one query over one dataset and what both engines made of it.
type sparqlCase struct {
	id      int
	ds      int
	data    string
	query   diffQuery
	ours    *results.Result
	oursErr error
	theirs  *results.Result
	theirEr string
}

// sparqlDiffSkip excuses a disagreement where Oxigraph departs from the
// SPARQL 1.1 recommendation or the recommendation leaves the answer open,
// with the reason. match must be narrow: it looks at the query and at both
// results.
type sparqlDiffSkip struct {
	name, reason string
	match        func(c *sparqlCase) bool
}

// pathEnds finds a triple pattern whose path may be of length zero or has
// an alternative (a negated set of forward and inverse members among them),
// with its ends.
var pathEnds = regexp.MustCompile(`(\S+) (\S*[*?|]\S*) (\S+) \.`)

// graphVar finds GRAPH ?g {.
var graphVar = regexp.MustCompile(`GRAPH \?([a-z]) \{`)

// graphVarInGroup reports whether text has GRAPH ?g { ... } whose group
// reads ?g.
func graphVarInGroup(text string) bool {
	for _, m := range graphVar.FindAllStringSubmatchIndex(text, -1) {
		v := regexp.MustCompile(`\?` + text[m[2]:m[3]] + `\b`)
		depth := 0
		for i := m[1] - 1; i < len(text); i++ {
			switch text[i] {
			case '{':
				depth++
			case '}':
				depth--
			}
			if depth == 0 {
				if v.MatchString(text[m[1]:i]) {
					return true
				}
				break
			}
		}
	}
	return false
}

var sparqlDiffSkips = []sparqlDiffSkip{
	{
		name: "oxigraph-path-filter-by-term",
		reason: "Oxigraph keeps or drops the solutions of a zero-length-capable path (?x p* ?x, ?b p* ?d) or " +
			"of a path with an alternative (?a !(p|^q) ex:s) under a FILTER comparing one of its end variables " +
			"with a number (=, !=, IN, NOT IN; the variable on either side) by term, not by value (with 1.5 " +
			"in the data, FILTER(?o != " +
			"\"1.5\"^^xsd:double) keeps it after ?o ex:p0* ?o, drops it after ?s ?p ?o; FILTER(?b IN (1.5e0)) " +
			"drops it after ?b ex:p* ?d, FILTER(?a = 1.5) after ?a !(p|^q) ex:s; in a SELECT expression too, where " +
			"1.5 != ?o2 after ?o2 ex:p* ?o2 is true for \"1\"^^ex:dt, not a type error); SPARQL 1.1 §17.4.1.9 " +
			"compares numbers by value, and §17.4.1.7 (RDFterm-equal) makes two different literals of which " +
			"one has an unknown datatype an error, as we do",
		match: func(c *sparqlCase) bool {
			for _, m := range pathEnds.FindAllStringSubmatch(c.query.text, -1) {
				for _, v := range []string{m[1], m[3]} {
					if len(v) == 2 && v[0] == '?' &&
						regexp.MustCompile(`\?`+v[1:]+`\)? (?:=|!=|IN \(|NOT IN \()|(?:=|!=) \(?\?`+v[1:]+`\b|IN \([^()]*\?`+v[1:]+`\b`).MatchString(c.query.text) {
						return true
					}
				}
			}
			return false
		},
	},
	{
		name: "oxigraph-graph-var-in-group",
		reason: "inside GRAPH ?g { ... }, Oxigraph reads ?g as the graph being evaluated; SPARQL 1.1 §18.6 " +
			"(Evaluation of Graph) evaluates the group in each graph first and joins ?g after, so in the " +
			"group ?g is unbound (a FILTER on it is an error, a MINUS on it shares nothing), as in our engine",
		match: func(c *sparqlCase) bool { return graphVarInGroup(c.query.text) },
	},
	{
		name:   "oxigraph-crash",
		reason: "Oxigraph 0.5.11 (WebAssembly) aborts with \"unreachable\" (a Rust panic) on the query",
		match: func(c *sparqlCase) bool {
			return c.oursErr == nil && c.theirs == nil && c.theirEr == "unreachable"
		},
	},
	{
		name: "oxigraph-empty-group-dropped",
		reason: "Oxigraph returns no row for an aggregate query without GROUP BY whose pattern its optimizer " +
			"finds always empty (a FILTER that is always false); SPARQL 1.1 §18.5 groups an empty solution " +
			"sequence into one group, as Oxigraph itself does for a pattern that just matches nothing " +
			"(W3C test agg-empty-group-count-1)",
		match: func(c *sparqlCase) bool {
			return c.query.implicitGroup && c.ours != nil && c.theirs != nil &&
				len(c.ours.Rows) == 1 && len(c.theirs.Rows) == 0 && strings.Contains(c.query.text, "FILTER")
		},
	},
	{
		name: "oxigraph-nps-multiset",
		reason: "Oxigraph matches a negated property set (!p, !(p|^q)) once per edge, so a pair of nodes " +
			"linked by two predicates outside the set comes twice; SPARQL 1.1 §18.4 (Evaluation of " +
			"NegatedPropertySet) defines it as the set { μ | ∃ triple(x, p, y), p ∉ S }, once per pair, " +
			"as in our engine",
		match: func(c *sparqlCase) bool {
			return negatedSet.MatchString(c.query.text) && c.ours != nil && c.theirs != nil &&
				c.ours.Boolean == nil && len(c.ours.Rows) < len(c.theirs.Rows) &&
				results.Equivalent(distinctRows(c.ours), distinctRows(c.theirs), false)
		},
	},
}

// negatedSet finds a negated property set in a generated query's path.
var negatedSet = regexp.MustCompile(`!(\(\^?|\^)?ex:p\d`)

// distinctRows returns r without repeated rows (terms compared as written).
func distinctRows(r *results.Result) *results.Result {
	out := &results.Result{Vars: r.Vars}
	seen := map[string]bool{}
	for _, row := range r.Rows {
		var k strings.Builder
		for _, v := range row {
			if v != nil {
				k.WriteString(v.String())
			}
			k.WriteByte(0)
		}
		if !seen[k.String()] {
			seen[k.String()] = true
			out.Rows = append(out.Rows, row)
		}
	}
	return out
}

// TestDifferential_Oxigraph compares our SPARQL engine with Oxigraph over a
// seeded corpus of generated queries and datasets.
//
// Larger runs (-sparqldiff.datasets=1500) still find a few disagreements
// that no skip rule matches yet; those triaged were Oxigraph's:
//   - seed 1, #6467: inside GRAPH ?g { ... MINUS { ?g path ?c } }, Oxigraph
//     reads ?g as the graph being evaluated; SPARQL 1.1 §18.6 evaluates the
//     group first and joins ?g after, so ?g is a free variable there, as in
//     our engine (the rule oxigraph-graph-var-in-group now reaches it, and
//     seed 7's #7323, a FILTER on ?g, and seed 13's #13136, ?g bound by an
//     OPTIONAL in the group).
//   - seed 4, #5009: Oxigraph has no < on xsd:boolean ("false"^^xsd:boolean
//     < true is unbound); the operator table of §17.3 maps it to
//     op:boolean-less-than, as our engine does.
//   - the default seed's #5463 and seed 2's #11634: a numeric IN after a
//     zero-length path inside an alternative, the path-filter-by-term
//     behaviour its rule does not reach.
//   - with -sparqldiff.union, the default seed's #121: COUNT(*) grouped over
//     an OPTIONAL negated property set, which Oxigraph matches once per edge
//     (the rule oxigraph-nps-multiset reaches only results with more rows).
//
// -sparqldiff.store runs our side over a Cortex store instead of
// eval.MemDataset, -sparqldiff.union with the union default graph (Oxigraph
// then gets each dataset with its named graphs merged into the default one),
// -sparqldiff.construct runs the SELECT queries as CONSTRUCT queries (see
// asConstruct), comparing graphs.
func TestDifferential_Oxigraph(t *testing.T) {
	dir := oxigraphTool(t)
	cases := sparqlDiffCorpus(*sparqlDiffSeedFlag, *sparqlDiffCases)
	if *sparqlDiffConstruct {
		for i := range cases {
			cases[i].query = asConstruct(cases[i].query)
		}
	}
	if *sparqlDiffUnion {
		theirs := slices.Clone(cases)
		for i := range theirs {
			theirs[i].data = mergedDefault(t, theirs[i].data)
		}
		runOxigraph(t, dir, theirs)
		for i := range cases {
			cases[i].theirs, cases[i].theirEr = theirs[i].theirs, theirs[i].theirEr
		}
	} else {
		runOxigraph(t, dir, cases)
	}
	if *sparqlDiffConstruct {
		for i := range cases {
			if cases[i].theirs != nil {
				cases[i].theirs = constructedSolutions(cases[i].theirs)
			}
		}
	}

	agree, skipped, failures := compareSparqlCases(t, cases)
	reportSparqlDiff(t, "", len(cases), *sparqlDiffCases, agree, skipped, failures)
}

// compareSparqlCases runs every case of cases over its dataset (in memory,
// or in a store with -sparqldiff.store) and compares it with Oxigraph's
// answer: the counts of agreements and skips by reason, and the
// descriptions of the disagreements.
func compareSparqlCases(t *testing.T, cases []sparqlCase) (agree, skipped map[string]int, failures []string) {
	t.Helper()
	ctx := context.Background()
	agree, skipped = map[string]int{}, map[string]int{}
	var (
		mem   eval.Dataset
		store *cortex.Store
	)
	if *sparqlDiffStore {
		store = cortextest.NewStore(t)
	}
	for i := range cases {
		c := &cases[i]
		if i == 0 || c.ds != cases[i-1].ds {
			qs, err := rdfio.ReadAll(strings.NewReader(c.data), rdfio.NQuads, rdfio.DecodeOptions{})
			if err != nil {
				t.Fatalf("dataset %d: %v\n%s", c.ds, err, c.data)
			}
			mem = eval.NewMemDataset(qs...)
			if *sparqlDiffStore {
				mem = storeDataset(t, store, fmt.Sprintf("ds%d", c.ds), qs)
			}
		}
		c.ours, c.oursErr = runOurs(ctx, mem, c.query.text)
		verdict, what := compareSparqlCase(ctx, mem, c)
		switch verdict {
		case "agree":
			agree[what]++
			continue
		case "skip":
			skipped[what]++
			continue
		}
		if name := matchSparqlSkip(c); name != "" {
			skipped[name]++
			continue
		}
		failures = append(failures, describeSparqlCase(c, what))
	}
	return agree, skipped, failures
}

// reportSparqlDiff logs the counts of a differential run (label names the
// corpus), the reasons of its skips, and fails t on its disagreements.
func reportSparqlDiff(t *testing.T, label string, queries, datasets int, agree, skipped map[string]int, failures []string) {
	t.Helper()
	t.Logf("differential vs Oxigraph%s: %d queries over %d datasets, %d agreements (%s), %d skipped (%s), %d disagreements",
		label, queries, datasets, sumCounts(agree), formatSparqlCounts(agree), sumCounts(skipped), formatSparqlCounts(skipped), len(failures))
	for _, s := range sparqlDiffSkips {
		if skipped[s.name] > 0 {
			t.Logf("  skip %s: %s", s.name, s.reason)
		}
	}
	logged := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(skipped)) {
		for _, part := range strings.Split(name, "+") {
			if reason, ok := sparqlDiffBuiltinSkips[part]; ok && !logged[part] {
				logged[part] = true
				t.Logf("  skip %s: %s", part, reason)
			}
		}
	}
	for i, f := range failures {
		if i == *sparqlDiffShow {
			t.Errorf("... and %d more disagreements (see them all with -sparqldiff.show=%d)", len(failures)-i, len(failures))
			break
		}
		t.Error(f)
	}
}

// sparqlDiffBuiltinSkips are the skips compareSparqlCase decides itself: a
// slice of a partial order, and the emulations. A skip by emulation is named
// by the rewrites its query contains, joined with '+': together they turn
// our answer into Oxigraph's.
var sparqlDiffBuiltinSkips = func() map[string]string {
	m := map[string]string{
		"slice-of-partial-order": "LIMIT/OFFSET of a result its ORDER BY keys do not order totally " +
			"(ties, or terms SPARQL does not order): which rows are kept is the implementation's choice",
	}
	for name, reason := range emulations {
		m[name] = reason + " (skipped where running the query so rewritten on our engine gives Oxigraph's answer)"
	}
	return m
}()

// runOurs runs text on our engine. The graph of a CONSTRUCT or DESCRIBE
// comes back as rows of ?s ?p ?o, one per distinct triple (see graphResult).
func runOurs(ctx context.Context, ds eval.Dataset, text string) (*results.Result, error) {
	dg := eval.OwnDefaultGraph
	if *sparqlDiffUnion {
		dg = eval.UnionGraph
	}
	r, err := runOursWith(ctx, text, dg, func(text string, opts sparql.Options) (*sparql.Result, error) {
		return sparql.Query(ctx, ds, text, opts)
	})
	if err == nil && *sparqlDiffConstruct {
		r = constructedSolutions(r)
	}
	return r, err
}

// runOursWith is runOurs with the query run by query, with default graph dg
// (see sparql.Options.DefaultGraph).
func runOursWith(ctx context.Context, text, dg string, query func(string, sparql.Options) (*sparql.Result, error)) (*results.Result, error) {
	res, err := query(text, sparql.Options{DefaultGraph: dg})
	if err != nil {
		return nil, err
	}
	if res.Kind == sparql.Graph {
		qs, err := res.CollectQuads(ctx)
		if err != nil {
			return nil, err
		}
		return graphResult(qs), nil
	}
	return res.Collect(ctx)
}

// graphResult returns the triples of a CONSTRUCT or DESCRIBE result as rows
// of ?s ?p ?o, each triple once: the result is an RDF graph, a set (SPARQL
// 1.1 §16.2), and results.Equivalent then compares two graphs up to the
// renaming of their blank nodes.
func graphResult(qs []quad.Quad) *results.Result {
	r := &results.Result{Vars: []string{"s", "p", "o"}}
	for _, q := range qs {
		r.Rows = append(r.Rows, results.Row{q.Subject, q.Predicate, q.Object})
	}
	return distinctRows(r)
}

// graphForm reports whether text parses as a CONSTRUCT or DESCRIBE query,
// whose result Oxigraph is asked for in N-Triples.
func graphForm(text string) bool {
	q, err := sparql.Parse(text, sparql.Options{})
	return err == nil && (q.Form == algebra.Construct || q.Form == algebra.Describe)
}

// compareSparqlCase returns "agree", "skip" or "differ" and the name of the
// agreement, of the skip or of the disagreement.
func compareSparqlCase(ctx context.Context, ds eval.Dataset, c *sparqlCase) (verdict, what string) {
	switch {
	case c.oursErr != nil && c.theirs == nil:
		return "agree", "both reject"
	case c.oursErr != nil:
		return "differ", "we fail, Oxigraph answers"
	case c.theirs == nil:
		return "differ", "we answer, Oxigraph fails"
	case c.ours.Boolean != nil || c.theirs.Boolean != nil:
		if results.Equivalent(c.ours, c.theirs, false) {
			return "agree", "same boolean"
		}
		if c.query.emulated != "" {
			if emu, err := runOurs(ctx, ds, c.query.emulated); err == nil && results.Equivalent(emu, c.theirs, false) {
				return "skip", strings.Join(c.query.emulations, "+")
			}
		}
		return "differ", "booleans differ"
	}
	ordered := false
	if len(c.query.orderBy) > 0 {
		full := c.ours
		if c.query.sliced {
			var err error
			if full, err = runOurs(ctx, ds, c.query.unsliced); err != nil {
				return "differ", fmt.Sprintf("we fail on the query without LIMIT/OFFSET: %v", err)
			}
		}
		ordered = totallyOrdered(full, c.query.orderBy)
		if !ordered && c.query.sliced {
			return "skip", "slice-of-partial-order"
		}
		if *sparqlDiffConstruct {
			ordered = false // a graph has no order
		}
	}
	if results.Equivalent(c.ours, c.theirs, ordered) {
		if ordered {
			return "agree", "same ordered rows"
		}
		return "agree", "same rows"
	}
	kinds := normalizedKinds(c.ours.Vars, c.query.kinds)
	same := func(ours *results.Result) bool {
		return results.Equivalent(ours, c.theirs, ordered) ||
			len(kinds) > 0 && results.Equivalent(normalizeResult(ours, c.query.kinds), normalizeResult(c.theirs, c.query.kinds), ordered)
	}
	if same(c.ours) {
		return "agree", "same rows after normalizing " + strings.Join(kinds, "+")
	}
	if c.query.emulated != "" {
		emu, err := runOurs(ctx, ds, c.query.emulated)
		if err != nil {
			return "differ", fmt.Sprintf("results differ (and we fail on the query as Oxigraph evaluates it: %v)", err)
		}
		if c.query.sliced {
			// the slice of the query as Oxigraph evaluates it is as open as
			// that of the query
			tail := strings.TrimPrefix(c.query.text, c.query.unsliced)
			if full, err := runOurs(ctx, ds, strings.TrimSuffix(c.query.emulated, tail)); err == nil && !totallyOrdered(full, c.query.orderBy) {
				return "skip", "slice-of-partial-order"
			}
		}
		if len(c.query.orderBy) > 0 && (!c.query.sliced || !totallyOrdered(emu, c.query.orderBy)) {
			// the order of the emulation's result is not ours to check, nor
			// the order of its ties (which our result, ordered totally, may
			// not have had)
			ordered = false
		}
		if same(emu) {
			return "skip", strings.Join(c.query.emulations, "+")
		}
	}
	return "differ", "results differ"
}

// kindNames name the normalizations of colKind.
var kindNames = map[colKind]string{colNumeric: "computed-number", colConcat: "group-concat-order", colSample: "sample-choice",
	colNumericTie: "min-max-tie"}

func normalizedKinds(vars []string, kinds map[string]colKind) []string {
	var out []string
	for _, v := range vars {
		if k := kinds[v]; k != colExact && !slices.Contains(out, kindNames[k]) {
			out = append(out, kindNames[k])
		}
	}
	sort.Strings(out)
	return out
}

var numericTypes = map[quad.IRI]bool{
	dgXSD + "integer": true, dgXSD + "decimal": true, dgXSD + "double": true, dgXSD + "float": true,
}

// normalizeResult returns r with its non-exact columns normalized (see
// colKind).
func normalizeResult(r *results.Result, kinds map[string]colKind) *results.Result {
	out := &results.Result{Vars: r.Vars, Rows: make([]results.Row, len(r.Rows))}
	for i, row := range r.Rows {
		nr := slices.Clone(row)
		for j, v := range nr {
			switch kinds[r.Vars[j]] {
			case colNumeric, colNumericTie:
				if ts, ok := v.(quad.TypedString); ok && numericTypes[ts.Type] {
					if f, err := strconv.ParseFloat(string(ts.Value), 64); err == nil {
						f += 0 // -0 is 0
						typ := ts.Type
						if kinds[r.Vars[j]] == colNumericTie {
							typ = "number"
						}
						nr[j] = quad.TypedString{Value: quad.String(strconv.FormatFloat(f, 'g', 12, 64)), Type: typ}
					}
				}
			case colConcat:
				if s, ok := v.(quad.String); ok {
					parts := strings.Split(string(s), "|")
					sort.Strings(parts)
					nr[j] = quad.String(strings.Join(parts, "|"))
				}
			case colSample:
				if v != nil {
					nr[j] = quad.String("<sample>")
				}
			}
		}
		out.Rows[i] = nr
	}
	return out
}

// totallyOrdered reports whether the ORDER BY keys (projected variables)
// order r's rows totally: each two neighbours differ in a key by a relation
// SPARQL defines, or are the same row.
func totallyOrdered(r *results.Result, keys []string) bool {
	idx := make([]int, len(keys))
	for i, k := range keys {
		idx[i] = slices.Index(r.Vars, k)
		if idx[i] < 0 {
			return false
		}
	}
	for i := 1; i < len(r.Rows); i++ {
		a, b := r.Rows[i-1], r.Rows[i]
		decided := false
		for _, j := range idx {
			if sameTerm(a[j], b[j]) {
				continue
			}
			if !ordersStrictly(a[j], b[j]) {
				return false
			}
			decided = true
			break
		}
		if !decided && !slices.EqualFunc(a, b, sameTerm) {
			return false
		}
	}
	return true
}

func sameTerm(a, b quad.Value) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.String() == b.String()
}

// ordersStrictly reports whether SPARQL's ORDER BY relations put two
// different terms in a definite order (§15.1).
func ordersStrictly(a, b quad.Value) bool {
	ca, cb := termCategory(a), termCategory(b)
	if ca != cb {
		return true
	}
	switch ca {
	case 1: // blank nodes: no order
		return false
	case 2: // IRIs by their string
		return true
	case 0:
		return false
	}
	ka, va := literalKey(a)
	kb, vb := literalKey(b)
	if ka == "" || ka != kb {
		return false
	}
	return va != vb
}

func termCategory(v quad.Value) int {
	switch v.(type) {
	case nil:
		return 0
	case quad.BNode:
		return 1
	case quad.IRI:
		return 2
	}
	return 3
}

// literalKey returns the class of a literal among those '<' compares
// (number, string, boolean, date-time with a time zone) and its value in a
// comparable form, or "" for a literal '<' does not order.
func literalKey(v quad.Value) (string, string) {
	switch t := v.(type) {
	case quad.String:
		return "string", string(t)
	case quad.TypedString:
		lex := string(t.Value)
		switch {
		case t.Type == dgXSD+"string":
			return "string", lex
		case numericTypes[t.Type]:
			f, err := strconv.ParseFloat(lex, 64)
			if err != nil || math.IsNaN(f) {
				return "", "" // NaN is not < or > any number
			}
			return "number", strconv.FormatFloat(f+0, 'g', -1, 64) // -0 is 0
		case t.Type == dgXSD+"boolean":
			return "boolean", strconv.FormatBool(lex == "true" || lex == "1")
		case t.Type == dgXSD+"dateTime":
			tm, err := time.Parse(time.RFC3339Nano, lex)
			if err != nil {
				return "", ""
			}
			return "dateTime", tm.UTC().Format(time.RFC3339Nano)
		}
	}
	return "", ""
}

func matchSparqlSkip(c *sparqlCase) string {
	for _, s := range sparqlDiffSkips {
		if s.match(c) {
			return s.name
		}
	}
	return ""
}

func describeSparqlCase(c *sparqlCase, what string) string {
	var b strings.Builder
	data := c.data
	if len(data) > 4000 {
		data = data[:4000] + fmt.Sprintf("... (%d bytes in all)\n", len(c.data))
	}
	fmt.Fprintf(&b, "query #%d (dataset %d): %s\n--- dataset ---\n%s--- query ---\n%s\n--- ours: ", c.id, c.ds, what, data, c.query.text)
	if c.oursErr != nil {
		fmt.Fprintf(&b, "error %v", c.oursErr)
	} else {
		b.WriteString(showResult(c.ours))
	}
	b.WriteString("\n--- Oxigraph: ")
	if c.theirs == nil {
		fmt.Fprintf(&b, "error %s", c.theirEr)
	} else {
		b.WriteString(showResult(c.theirs))
	}
	return b.String()
}

func sumCounts(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func formatSparqlCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// sparqlDiffCorpus generates datasets datasets with sparqlDiffQueries
// queries each, deterministically from seed.
func sparqlDiffCorpus(seed uint64, datasets int) []sparqlCase {
	src := rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)
	r := rand.New(src)
	var cases []sparqlCase
	for ds := 0; ds < datasets; ds++ {
		data := genDataset(r)
		for i := 0; i < sparqlDiffQueries; i++ {
			cases = append(cases, sparqlCase{id: len(cases), ds: ds, data: data, query: genQuery(r, src)})
		}
	}
	return cases
}

// oxigraphTool returns the directory of the node tool, or skips the test
// when node or the pinned oxigraph package is missing (fails instead when
// CORTEX_REQUIRE_SPARQL_DIFFTEST=1).
func oxigraphTool(t *testing.T) string {
	return rdftest.NodeTool(t, sparqlDifftestDir, "oxigraph", requireSparqlDifftest, "(cd cortex/sparql/difftest && npm ci)")
}

type oxigraphAnswer struct {
	ID    int    `json:"id"`
	OK    bool   `json:"ok"`
	Error string `json:"error"`
	JSON  string `json:"json"`
	// NT is the N-Triples of a CONSTRUCT or DESCRIBE result.
	NT *string `json:"nt"`
}

// runOxigraph runs every case with one node process: cases go in as JSON
// lines on stdin, answers come back in order on stdout.
func runOxigraph(t *testing.T, dir string, cases []sparqlCase) {
	t.Helper()
	cmd := exec.Command("node", "oxidiff.mjs")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start node: %v", err)
	}
	werr := make(chan error, 1)
	go func() {
		w := bufio.NewWriter(stdin)
		enc := json.NewEncoder(w)
		for i := range cases {
			c := &cases[i]
			req := map[string]any{"id": c.id, "ds": c.ds, "query": c.query.text}
			if graphForm(c.query.text) {
				req["graph"] = true
			}
			if i == 0 || c.ds != cases[i-1].ds {
				req["data"] = c.data
			}
			if err := enc.Encode(req); err != nil {
				werr <- err
				return
			}
		}
		if err := w.Flush(); err != nil {
			werr <- err
			return
		}
		werr <- stdin.Close()
	}()
	r := bufio.NewReaderSize(stdout, 1<<20)
	for i := range cases {
		line, err := r.ReadBytes('\n')
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("reading Oxigraph answer %d: %v\nstderr: %s", i, err, stderr.String())
		}
		var a oxigraphAnswer
		if err := json.Unmarshal(line, &a); err != nil {
			t.Fatalf("Oxigraph answer %d: %v: %s", i, err, line)
		}
		c := &cases[i]
		if a.ID != c.id {
			t.Fatalf("Oxigraph answered %d for query %d", a.ID, c.id)
		}
		if !a.OK {
			if strings.HasPrefix(a.Error, "harness: ") {
				t.Fatalf("query %d: %s", c.id, a.Error)
			}
			c.theirEr = a.Error
			continue
		}
		if a.NT != nil {
			qs, err := rdfio.ReadAll(strings.NewReader(*a.NT), rdfio.NQuads, rdfio.DecodeOptions{})
			if err != nil {
				t.Fatalf("Oxigraph answer %d: %v: %s", i, err, *a.NT)
			}
			c.theirs = graphResult(qs)
			continue
		}
		if c.theirs, err = results.ReadJSON(strings.NewReader(a.JSON)); err != nil {
			t.Fatalf("Oxigraph answer %d: %v: %s", i, err, a.JSON)
		}
	}
	if err := <-werr; err != nil {
		t.Fatalf("writing to Oxigraph: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("node: %v\nstderr: %s", err, stderr.String())
	}
}

// mergedDefault returns the N-Quads data with every triple of a named graph
// also in the default graph, whose default graph is then the RDF merge of
// data's graphs (our eval.UnionGraph).
func mergedDefault(t *testing.T, data string) string {
	t.Helper()
	qs, err := rdfio.ReadAll(strings.NewReader(data), rdfio.NQuads, rdfio.DecodeOptions{})
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	var b strings.Builder
	b.WriteString(data)
	for _, q := range qs {
		if q.Label != nil {
			q.Label = nil
			b.WriteString(q.NQuad() + "\n")
		}
	}
	return b.String()
}

// storeDataset returns the dataset of a new namespace name of store holding
// qs.
func storeDataset(t *testing.T, store *cortex.Store, name string, qs []quad.Quad) eval.Dataset {
	t.Helper()
	ns, err := store.Namespace(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ns.Import(context.Background(), &cortextest.SliceSource{Quads: qs}, cortex.ImportOptions{}); err != nil {
		t.Fatalf("namespace %s: %v", name, err)
	}
	return ns.Dataset()
}

// asConstruct returns q, a SELECT query whose columns compare exactly, as
// CONSTRUCT { _:r ex:v_x ?x ; ... } WHERE { q's SELECT as a sub-select }: a
// blank node per solution, a triple per bound projected variable, so that
// the graph of the CONSTRUCT holds the solutions of the SELECT. Other
// queries come back unchanged.
func asConstruct(q diffQuery) diffQuery {
	for _, k := range q.kinds {
		if k != colExact {
			return q
		}
	}
	wrap := func(text string) string {
		i := strings.Index(text, "SELECT ")
		if i < 0 {
			return text
		}
		parsed, err := sparql.Parse(text, sparql.Options{})
		if err != nil || parsed.Form != algebra.Select || len(parsed.Vars) == 0 {
			return text
		}
		var tmpl strings.Builder
		for _, v := range parsed.Vars {
			name := strings.TrimPrefix(v.String(), "?")
			fmt.Fprintf(&tmpl, " _:r <%sv_%s> ?%s .", dgEx, name, name)
		}
		return text[:i] + "CONSTRUCT {" + tmpl.String() + " }\nWHERE { " + text[i:] + "\n}"
	}
	out := q
	out.text = wrap(q.text)
	if out.text == q.text {
		return q
	}
	if q.emulated != "" {
		out.emulated = wrap(q.emulated)
	}
	if q.unsliced != "" {
		out.unsliced = wrap(q.unsliced)
	}
	return out
}

// constructedSolutions returns the solutions that the graph of an
// asConstruct query holds, one row per blank node subject with the values
// of its ex:v_x triples, so that results.Equivalent compares them without
// searching a bijection of hundreds of blank nodes; any other result comes
// back unchanged.
func constructedSolutions(r *results.Result) *results.Result {
	if r.Boolean != nil || !slices.Equal(r.Vars, []string{"s", "p", "o"}) {
		return r
	}
	rows := map[quad.BNode]map[string]quad.Value{}
	var order []quad.BNode
	names := map[string]bool{}
	for _, row := range r.Rows {
		b, ok := row[0].(quad.BNode)
		p, ok2 := row[1].(quad.IRI)
		name, ok3 := strings.CutPrefix(string(p), dgEx+"v_")
		if !ok || !ok2 || !ok3 {
			return r
		}
		if rows[b] == nil {
			rows[b] = map[string]quad.Value{}
			order = append(order, b)
		}
		rows[b][name] = row[2]
		names[name] = true
	}
	out := &results.Result{Vars: slices.Sorted(maps.Keys(names))}
	for _, b := range order {
		row := make(results.Row, len(out.Vars))
		for i, v := range out.Vars {
			row[i] = rows[b][v]
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}
