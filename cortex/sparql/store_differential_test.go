package sparql_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
	"github.com/cortexgraph/cortex/cortex/sparql/results"
)

// TestStore_MatchesMemDataset runs queries over the same data in a Cortex store (snapshot scans,
// union de-duplication by adjacency, group skipping, term-id caches) and in eval.MemDataset (plain
// scans, de-duplication by a set) and requires equivalent results. The data is gen_teams.py output
// (testdata/teams-small.nq: 3 teams; triples held in several graphs, as in the benchmark data).
func TestStore_MatchesMemDataset(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join("testdata", "teams-small.nq")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	qs, err := rdfio.ReadAll(f, rdfio.NQuads, rdfio.DecodeOptions{File: path})
	if err != nil {
		t.Fatal(err)
	}
	mem := eval.NewMemDataset(qs...)
	ns, err := cortextest.NewStore(t).Namespace(ctx, "diff")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ns.Import(ctx, &cortextest.SliceSource{Quads: qs}, cortex.ImportOptions{}); err != nil {
		t.Fatal(err)
	}

	queries := map[string]string{}
	files, _ := filepath.Glob("/work/shared/bench/queries/*.rq")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		queries["bench-"+strings.TrimSuffix(filepath.Base(f), ".rq")] = string(b)
	}
	const px = "PREFIX cx: <urn:cortex:vocab:>\nPREFIX ex: <urn:ex:>\n"
	for name, q := range map[string]string{
		// A filter on the object of a hashed pattern (applied while building, with group skipping)
		// and on the object of a scanned one.
		"filtered-hash":  `SELECT ?f ?c ?s WHERE { ?f cx:severity ?s ; cx:confidence ?c FILTER(?c >= 0.9 && ?s != "low") }`,
		"filtered-scan":  `SELECT ?f ?s WHERE { ?f cx:severity ?s FILTER(?s IN ("high", "critical")) }`,
		"count-distinct": `SELECT ?m (COUNT(DISTINCT ?i) AS ?n) (COUNT(?i) AS ?all) WHERE { ?f cx:assertedBy ?m ; cx:issue ?i } GROUP BY ?m`,
		"distinct-order": `SELECT DISTINCT ?team ?sev WHERE { ?m cx:memberOf ?team . ?f cx:assertedBy ?m ; cx:severity ?sev } ORDER BY DESC(?team) ?sev`,
		"order-unbound":  `SELECT ?m ?lead WHERE { ?m cx:memberOf ?t OPTIONAL { ?t cx:lead ?lead } } ORDER BY ?lead ?m`,
		"same-var-eq":    `SELECT ?f1 ?f2 WHERE { ?f1 cx:issue ?i . ?f2 cx:issue ?i FILTER(?f1 = ?f2) }`,
		"graphs":         `SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g`,
		"union-all":      `SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }`,
		"union-subject":  `SELECT ?p ?o WHERE { <urn:ex:file/195> ?p ?o }`,
		"ask":            `ASK { ?f cx:severity "critical" ; cx:confidence ?c FILTER(?c > 0.5) }`,
	} {
		queries[name] = px + q
	}
	for name, text := range queries {
		for _, dg := range []string{eval.UnionGraph, eval.OwnDefaultGraph} {
			t.Run(name+"/"+dg, func(t *testing.T) {
				opts := sparql.Options{DefaultGraph: dg}
				want := collect(t, ctx, func() (*sparql.Result, error) { return sparql.Query(ctx, mem, text, opts) })
				got := collect(t, ctx, func() (*sparql.Result, error) { return ns.Query(ctx, text, opts) })
				if dg == eval.UnionGraph && want.Boolean == nil && len(want.Rows) == 0 {
					t.Errorf("no solutions: the test data does not exercise this query")
				}
				ordered := strings.Contains(text, "ORDER BY")
				if !results.Equivalent(got, want, ordered) {
					t.Errorf("store and memory results differ\nstore (%d rows): %v\nmemory (%d rows): %v",
						len(got.Rows), head(got), len(want.Rows), head(want))
				}
			})
		}
	}
}

func collect(t *testing.T, ctx context.Context, run func() (*sparql.Result, error)) *results.Result {
	t.Helper()
	res, err := run()
	if err != nil {
		t.Fatal(err)
	}
	out, err := res.Collect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func head(r *results.Result) []results.Row {
	if r.Boolean != nil {
		return []results.Row{}
	}
	return r.Rows[:min(len(r.Rows), 5)]
}
