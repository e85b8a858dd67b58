package teammanager_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

// An agent records a batch of findings, then asks which of one member's
// findings are confident enough. The member and the threshold are query
// parameters, not text spliced into the query; cx: is predeclared.
func ExampleManager_Query() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "cortex-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	s, err := cortex.Open(ctx, dir, cortex.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	x, err := namespace.New("acme")
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := teammanager.New(ctx, s, x, teammanager.DefaultConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := m.CreateTeam(ctx, teammanager.TeamConfig{ID: "review", Name: "Review", Members: []teammanager.MemberConfig{{AgentID: "alice"}}}); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := m.UpdateMemberStatus(ctx, "review", "alice", teammanager.Running, ""); err != nil {
		fmt.Println(err)
		return
	}
	at := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	pool, risk := quad.IRI("https://example.org/pool.go"), quad.IRI("https://example.org/risk")
	ids, err := m.AddFindings(ctx, "review", "alice", []teammanager.Finding{
		{Subject: pool, Predicate: risk, Object: quad.String("leaks on cancel"), Confidence: 0.9, AssertedAt: at},
		{Subject: pool, Predicate: risk, Object: quad.String("slow under load"), Confidence: 0.4, AssertedAt: at},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(ids), "findings")

	opts := sparql.Options{}.
		Bind("by", m.Namespace().Member("review", "alice")).
		Bind("min", quad.TypedString{Value: "0.5", Type: namespace.XSDDecimal})
	res, err := m.Query(ctx, `SELECT ?o ?c WHERE {
		?f cx:finding:assertedBy ?by ; rdf:object ?o ; cx:finding:confidence ?c .
		FILTER(?c >= ?min) }`, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Close()
	for res.Next(ctx) {
		row := res.Row()
		fmt.Println(rdfio.FormatTerm(row[0]), rdfio.FormatTerm(row[1]))
	}
	if err := res.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 2 findings
	// "leaks on cancel" "0.9"^^<http://www.w3.org/2001/XMLSchema#decimal>
}
