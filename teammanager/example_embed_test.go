package teammanager_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

// check stops the example on an error (a host would handle it).
func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

// Embedding Cortex in an agent host: open a store, run a team of two agents
// that record findings, complete it (which merges it), read the merged
// facts and ask a question with a bound parameter. The README's "Use it
// from Go" shows this function's body.
func Example_embedding() {
	dir, err := os.MkdirTemp("", "cortex-embed-")
	check(err)
	defer os.RemoveAll(dir)
	// --- README: Use it from Go ---
	ctx := context.Background()
	store, err := cortex.Open(ctx, dir, cortex.DefaultOptions())
	check(err)
	defer store.Close()
	ns, err := namespace.New("acme")
	check(err)
	m, err := teammanager.New(ctx, store, ns, teammanager.DefaultConfig())
	check(err)

	_, err = m.CreateTeam(ctx, teammanager.TeamConfig{ID: "review", Name: "Review pool.go", Strategy: "majority-wins",
		Members: []teammanager.MemberConfig{{AgentID: "alice", Role: "lead"}, {AgentID: "bob", Role: "reviewer"}}})
	check(err)
	pool, severity := quad.IRI("https://example.org/pool.go"), quad.IRI("https://example.org/severity")
	for agent, confidence := range map[string]float64{"alice": 0.9, "bob": 0.7} {
		_, err = m.UpdateMemberStatus(ctx, "review", agent, teammanager.Running, "")
		check(err)
		_, err = m.AddFindings(ctx, "review", agent, []teammanager.Finding{
			{Subject: pool, Predicate: severity, Object: quad.String("high"), Confidence: confidence}})
		check(err)
	}
	for _, agent := range []string{"alice", "bob"} { // the last one completes the team: it is merged
		_, err = m.UpdateMemberStatus(ctx, "review", agent, teammanager.Completed, "done")
		check(err)
	}

	facts, err := m.Facts(ctx, "review", teammanager.FactFilter{})
	check(err)
	for _, f := range facts {
		fmt.Println(f.Object, f.Supporters, f.Confidence)
	}
	res, err := m.Query(ctx, `SELECT ?o WHERE { ?f cx:finding:assertedBy ?by ; rdf:object ?o }`,
		sparql.Options{}.Bind("by", ns.Member("review", "bob")))
	check(err)
	defer res.Close()
	for res.Next(ctx) {
		fmt.Println("bob said", res.Row()[0])
	}
	check(res.Err())
	// --- end ---

	// Output:
	// "high" [alice bob] 0.9
	// bob said "high"
}
