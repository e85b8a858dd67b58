package teammanager_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestManager_FinishTask: a member's findings, new tasks and result are
// one atomic write. Recorded, the task is in review with the findings
// linked to it and the new tasks created by the member; when any part is
// refused — a finding, the second new task, the completion (the task
// paused, or not the agent's), the write check, an ended context — the
// call writes nothing: the store (quads, board rows, events) is exactly
// as before, and passes Check.
func TestManager_FinishTask(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{RequireReview: true, AllowRequests: true})
	mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "work", Assignee: "a"}) // T1
	if _, err := f.m.ClaimTask(ctx, team, "a", "T1"); err != nil {
		t.Fatal(err)
	}
	good := func() teammanager.TaskOutcome {
		return teammanager.TaskOutcome{Result: "done",
			Findings: []teammanager.Finding{{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("o")}},
			Tasks:    []teammanager.NewTask{{Subject: "follow up", BlockedBy: []string{"T1"}}, {Subject: "and then"}}}
	}
	errFence := errors.New("the driver lost its run")
	ended, cancel := context.WithCancel(ctx)
	cancel()
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		agent  string
		before func(t *testing.T)
		after  func(t *testing.T)
		edit   func(o *teammanager.TaskOutcome)
		want   error
	}{
		{name: "invalid finding", edit: func(o *teammanager.TaskOutcome) { o.Findings[0].Confidence = 2 }, want: teammanager.ErrInvalidFinding},
		{name: "second new task blocked by no task", edit: func(o *teammanager.TaskOutcome) { o.Tasks[1].BlockedBy = []string{"T99"} }, want: teammanager.ErrInvalidTask},
		{name: "second new task to an unknown member", edit: func(o *teammanager.TaskOutcome) { o.Tasks[1].Assignee = "nobody" }, want: teammanager.ErrInvalidTask},
		{name: "not the assignee", agent: "b", want: teammanager.ErrNotAllowed},
		{name: "task paused", want: teammanager.ErrTaskState,
			before: func(t *testing.T) {
				if _, err := f.m.PauseTask(ctx, team, "lead", "T1"); err != nil {
					t.Fatal(err)
				}
			},
			after: func(t *testing.T) {
				if _, err := f.m.ResumeTask(ctx, team, "lead", "T1"); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "write check refuses", ctx: teammanager.WithWriteCheck(ctx, func(context.Context, *cortex.Tx) error { return errFence }), want: errFence},
		{name: "context ended", ctx: ended, want: context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.before != nil {
				tc.before(t)
			}
			if tc.after != nil {
				defer tc.after(t)
			}
			c, agent, o := ctx, "a", good()
			if tc.ctx != nil {
				c = tc.ctx
			}
			if tc.agent != "" {
				agent = tc.agent
			}
			if tc.edit != nil {
				tc.edit(&o)
			}
			before := storeDump(t, f)
			_, err := f.m.FinishTask(c, team, agent, "T1", o)
			if !errors.Is(err, tc.want) {
				t.Fatalf("FinishTask: %v, want %v", err, tc.want)
			}
			if after := storeDump(t, f); after != before {
				t.Fatalf("a refused FinishTask wrote:\nbefore:\n%s\nafter:\n%s", before, after)
			}
			if err := f.n.Check(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
	fin, err := f.m.FinishTask(ctx, team, "a", "T1", good())
	if err != nil {
		t.Fatal(err)
	}
	if fin.Task.Status != teammanager.TaskInReview || fin.Task.Result != "done" || len(fin.Findings) != 1 || len(fin.Created) != 2 ||
		fin.Created[0].ID != "T2" || fin.Created[0].CreatedBy != "a" || fin.Created[1].ID != "T3" {
		t.Fatalf("FinishTask = %+v", fin)
	}
	fs, err := f.m.Findings(ctx, team, teammanager.FindingFilter{Agent: "a"})
	if err != nil || len(fs) != 1 || fs[0].ID != fin.Findings[0] {
		t.Fatalf("findings %+v, %v; want %s", fs, err, fin.Findings)
	}
	link := f.graph(t, f.ns.MemberGraph(team, "a"))
	linked := false
	for _, q := range link {
		linked = linked || q.Subject == f.ns.Finding(team, fin.Findings[0]) && q.Object == f.ns.Task(team, "T1")
	}
	if !linked {
		t.Fatalf("finding %s not linked to task T1: %v", fin.Findings[0], link)
	}
	// The lead's approval makes T2 (blocked by T1) ready.
	if _, err := f.m.ReviewTask(ctx, team, "lead", "T1", true, "ok"); err != nil {
		t.Fatal(err)
	}
	if got, err := f.m.ClaimNext(ctx, team, "b"); err != nil || got.ID != "T2" && got.ID != "T3" {
		t.Fatalf("ClaimNext = %s, %v", got.ID, err)
	}
	if err := f.n.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestManager_FinishTask_CreatedAsWritten: the new tasks FinishTask
// returns are as it wrote them, also when a later new task is blocked by
// an earlier one (the earlier one's dependents name it), as GetTask reads
// them. (The earlier task was returned as it was before the later one
// was created: no dependents.)
func TestManager_FinishTask_CreatedAsWritten(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{RequireReview: true, AllowRequests: true})
	mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "work", Assignee: "a"}) // T1
	if _, err := f.m.ClaimTask(ctx, team, "a", "T1"); err != nil {
		t.Fatal(err)
	}
	fin, err := f.m.FinishTask(ctx, team, "a", "T1", teammanager.TaskOutcome{Result: "done",
		Tasks: []teammanager.NewTask{{Subject: "x", BlockedBy: []string{"T1"}}, {Subject: "y", BlockedBy: []string{"T2"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(fin.Created) != 2 {
		t.Fatalf("created %+v", fin.Created)
	}
	for _, c := range append([]teammanager.Task{fin.Task}, fin.Created...) {
		got, err := f.m.GetTask(ctx, team, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(c.Dependents, got.Dependents) || !slices.Equal(c.BlockedBy, got.BlockedBy) || c.Status != got.Status {
			t.Errorf("FinishTask returned %s with dependents %v, blocked by %v, %s; stored: %v, %v, %s", c.ID, c.Dependents, c.BlockedBy, c.Status, got.Dependents, got.BlockedBy, got.Status)
		}
	}
}
