package eval_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/eval"
	"github.com/cortexgraph/cortex/cortex/sparql/parser"
)

var update = flag.Bool("update", false, "rewrite the golden plan files")

// teamData is a small deterministic team-findings graph: 4 teams, 5 members each, 10 findings per
// member, with issues shared between members.
func teamData() *eval.MemDataset {
	cx := func(s string) quad.IRI { return quad.IRI("urn:cortex:vocab:" + s) }
	id := func(kind string, n int) quad.IRI { return quad.IRI(fmt.Sprintf("urn:x:%s:%d", kind, n)) }
	rdfType := quad.IRI("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
	var qs []quad.Quad
	add := func(s, p, o quad.Value) { qs = append(qs, quad.Quad{Subject: s, Predicate: p, Object: o}) }
	f := 0
	for t := 0; t < 4; t++ {
		team := id("team", t)
		add(team, rdfType, cx("Team"))
		add(team, cx("name"), quad.String(fmt.Sprintf("team %d", t)))
		for m := 0; m < 5; m++ {
			mem := id("member", t*5+m)
			add(mem, cx("memberOf"), team)
			add(mem, cx("name"), quad.String(fmt.Sprintf("member %d", t*5+m)))
			for k := 0; k < 10; k++ {
				fi := id("finding", f)
				add(fi, rdfType, cx("Finding"))
				add(fi, cx("assertedBy"), mem)
				add(fi, cx("issue"), id("issue", (f*7)%60))
				add(fi, cx("severity"), quad.String([]string{"low", "medium", "high", "critical"}[f%4]))
				add(fi, cx("confidence"), quad.TypedString{Value: quad.String(fmt.Sprintf("0.%d", 50+f%50)), Type: "http://www.w3.org/2001/XMLSchema#decimal"})
				f++
			}
		}
	}
	return eval.NewMemDataset(qs...)
}

// TestExplain_Golden checks the shape of the plans of typical queries (join order, lookup or hash,
// filter placement, top-k), never timings. Run with -update to rewrite testdata/plans/*.golden.
func TestExplain_Golden(t *testing.T) {
	ds := teamData()
	queries := map[string]string{
		"star": `PREFIX cx: <urn:cortex:vocab:>
SELECT ?team ?name WHERE { ?team a cx:Team ; cx:name ?name }`,
		"selfjoin": `PREFIX cx: <urn:cortex:vocab:>
SELECT DISTINCT ?team ?issue WHERE {
  ?f1 cx:issue ?issue ; cx:assertedBy ?m1 .
  ?f2 cx:issue ?issue ; cx:assertedBy ?m2 .
  ?m1 cx:memberOf ?team . ?m2 cx:memberOf ?team .
  FILTER (?m1 != ?m2)
} ORDER BY ?team ?issue`,
		"groupcount": `PREFIX cx: <urn:cortex:vocab:>
SELECT ?severity (COUNT(?f) AS ?n) WHERE { ?f a cx:Finding ; cx:severity ?severity }
GROUP BY ?severity ORDER BY DESC(?n) LIMIT 2`,
		"filterpush": `PREFIX cx: <urn:cortex:vocab:>
SELECT ?f ?c WHERE { ?f cx:confidence ?c ; cx:severity "high" ; cx:assertedBy <urn:x:member:3> FILTER(?c >= 0.9) }`,
		"optional": `PREFIX cx: <urn:cortex:vocab:>
SELECT ?m ?f WHERE { ?m cx:memberOf <urn:x:team:1> OPTIONAL { ?f cx:assertedBy ?m ; cx:severity "critical" } }`,
		"subselect": `PREFIX cx: <urn:cortex:vocab:>
SELECT ?m ?n WHERE { ?m cx:memberOf ?t { SELECT ?t (COUNT(*) AS ?n) WHERE { ?x cx:memberOf ?t } GROUP BY ?t } }`,
	}
	for name, text := range queries {
		t.Run(name, func(t *testing.T) {
			q, err := parser.Parse(text, parser.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			got, err := eval.Explain(context.Background(), ds, q, eval.Options{})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "plans", name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if got != string(want) {
				t.Errorf("plan differs from %s:\n--- got\n%s--- want\n%s", path, got, want)
			}
		})
	}
}
