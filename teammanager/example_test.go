package teammanager_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

// Two reviewers work on one question and disagree; the additive strategy
// keeps both answers, each with the agent that asserted it. The team completes
// when its last member does, and UpdateMemberStatus then merges it
// automatically and returns the merge report.
func Example() {
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
	// A fixed clock makes every recorded time, and so the output, reproducible.
	now := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	cfg := teammanager.DefaultConfig().WithClock(func() time.Time { return now })
	m, err := teammanager.New(ctx, s, x, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}

	team, err := m.CreateTeam(ctx, teammanager.TeamConfig{
		ID:       "pool-review",
		Name:     "Review the connection pool",
		Strategy: "additive",
		Members: []teammanager.MemberConfig{
			{AgentID: "alice", Role: "lead"},
			{AgentID: "bob", Role: "reviewer"},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(team.ID, team.Status)

	pool, risk := quad.IRI("http://example.org/pool"), quad.IRI("http://example.org/risk")
	answers := map[string]quad.Value{
		"alice": quad.String("deadlock on Close"),
		"bob":   quad.String("connection leak"),
	}
	for _, agent := range []string{"alice", "bob"} {
		if _, err := m.UpdateMemberStatus(ctx, team.ID, agent, teammanager.Running, ""); err != nil {
			fmt.Println(err)
			return
		}
		f := teammanager.Finding{Subject: pool, Predicate: risk, Object: answers[agent], Confidence: 0.9}
		if _, err := m.AddFinding(ctx, team.ID, agent, f); err != nil {
			fmt.Println(err)
			return
		}
	}

	var last teammanager.MemberUpdate
	for _, agent := range []string{"alice", "bob"} {
		last, err = m.UpdateMemberStatus(ctx, team.ID, agent, teammanager.Completed, "one risk found")
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(agent, last.Member.Status, "team:", last.TeamStatus)
	}

	rep := last.Merge // set by the update that completed the team (auto-merge is on)
	if rep == nil {
		fmt.Println("team not merged")
		return
	}
	fmt.Println("merged with", rep.Strategy+":", len(rep.Facts), "facts,", len(rep.OpenConflicts), "conflicts")
	for _, f := range rep.Facts {
		fmt.Println(f.Subject, f.Predicate, f.Object, f.Supporters)
	}

	got, err := m.GetTeam(ctx, team.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(got.ID, got.Status, got.CompletedAt.Format(time.RFC3339), got.LastMerge == rep.MergeID)
	// Output:
	// pool-review pending
	// alice completed team: running
	// bob completed team: completed
	// merged with additive: 2 facts, 0 conflicts
	// <http://example.org/pool> <http://example.org/risk> "connection leak" [bob]
	// <http://example.org/pool> <http://example.org/risk> "deadlock on Close" [alice]
	// pool-review completed 2025-03-01T09:00:00Z true
}
