package teammanager_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/teammanager"
)

var twoSteps = teammanager.NewPlan{Title: "ship the index", Steps: []teammanager.PlanStep{
	{Title: "crawl the docs", Description: "every page under /docs"}, {Title: "build the index"}}}

// planOp is one plan operation of a table test.
type planOp struct {
	op       string // draft, submit, approve, reject, pause, disband
	by       string
	plan     teammanager.NewPlan
	feedback string
	rev      int // the revision approve and reject name; 0: the latest, as GetPlan reads it (1 if none)
}

func (o planOp) run(f *fixture, team string) error {
	var err error
	switch o.op {
	case "draft":
		_, err = f.m.DraftPlan(ctx, team, o.by, o.plan)
	case "submit":
		_, err = f.m.SubmitPlan(ctx, team, o.by)
	case "approve", "reject":
		rev := o.rev
		if rev == 0 {
			rev = 1
			if p, err := f.m.GetPlan(ctx, team, 0); err == nil {
				rev = p.Revision
			}
		}
		_, err = f.m.ReviewPlan(ctx, team, o.by, rev, o.op == "approve", o.feedback)
	case "pause":
		_, err = f.m.PauseTeam(ctx, team)
	case "disband":
		_, err = f.m.DisbandTeam(ctx, team)
	default:
		err = fmt.Errorf("unknown op %q", o.op)
	}
	return err
}

var (
	opDraft  = planOp{op: "draft", by: "lead", plan: twoSteps}
	opSubmit = planOp{op: "submit", by: "lead"}
	// opPropose drafts and submits in one write (NewPlan.Submit).
	opPropose = planOp{op: "draft", by: "lead", plan: teammanager.NewPlan{Title: twoSteps.Title, Steps: twoSteps.Steps, Submit: true}}
	opApprove = planOp{op: "approve", by: teammanager.Operator}
	opReject  = planOp{op: "reject", by: teammanager.Operator, feedback: "too vague"}
)

// TestPlan_Rules table-tests who may do what to a plan in which state; a
// refused operation writes nothing (no revision changes, no event).
func TestPlan_Rules(t *testing.T) {
	running := planOp{op: "running"}
	tests := []struct {
		name     string
		settings teammanager.BoardSettings
		setup    []planOp
		op       planOp
		want     error
	}{
		{"lead drafts", teammanager.BoardSettings{}, nil, opDraft, nil},
		{"member may not draft", teammanager.BoardSettings{}, nil, planOp{op: "draft", by: "a", plan: twoSteps}, teammanager.ErrNotAllowed},
		{"stranger may not draft", teammanager.BoardSettings{}, nil, planOp{op: "draft", by: "zed", plan: twoSteps}, teammanager.ErrNotAllowed},
		{"empty title", teammanager.BoardSettings{}, nil, planOp{op: "draft", by: "lead", plan: teammanager.NewPlan{Title: " ", Steps: twoSteps.Steps}}, teammanager.ErrInvalidPlan},
		{"no steps", teammanager.BoardSettings{}, nil, planOp{op: "draft", by: "lead", plan: teammanager.NewPlan{Title: "x"}}, teammanager.ErrInvalidPlan},
		{"step without title", teammanager.BoardSettings{}, nil, planOp{op: "draft", by: "lead", plan: teammanager.NewPlan{Title: "x", Steps: []teammanager.PlanStep{{Description: "d"}}}}, teammanager.ErrInvalidPlan},
		{"submit without plan", teammanager.BoardSettings{}, nil, opSubmit, teammanager.ErrNoPlan},
		{"lead submits", teammanager.BoardSettings{}, []planOp{opDraft}, opSubmit, nil},
		{"member may not submit", teammanager.BoardSettings{}, []planOp{opDraft}, planOp{op: "submit", by: "a"}, teammanager.ErrNotAllowed},
		{"submit twice", teammanager.BoardSettings{}, []planOp{opDraft, opSubmit}, opSubmit, teammanager.ErrPlanState},
		{"review a draft", teammanager.BoardSettings{}, []planOp{opDraft}, opApprove, teammanager.ErrPlanState},
		{"operator approves", teammanager.BoardSettings{}, []planOp{opDraft, opSubmit}, opApprove, nil},
		{"operator rejects", teammanager.BoardSettings{}, []planOp{opDraft, opSubmit}, opReject, nil},
		{"reject without feedback", teammanager.BoardSettings{}, []planOp{opDraft, opSubmit}, planOp{op: "reject", by: teammanager.Operator}, teammanager.ErrInvalidPlan},
		{"lead may not approve", teammanager.BoardSettings{}, []planOp{opDraft, opSubmit}, planOp{op: "approve", by: "lead"}, teammanager.ErrNotAllowed},
		{"member may not approve for the operator", teammanager.BoardSettings{}, []planOp{opDraft, opSubmit}, planOp{op: "approve", by: "a"}, teammanager.ErrNotAllowed},
		{"named approver approves", teammanager.BoardSettings{PlanApprover: "b"}, []planOp{opDraft, opSubmit}, planOp{op: "approve", by: "b"}, nil},
		{"operator may not approve for a named approver", teammanager.BoardSettings{PlanApprover: "b"}, []planOp{opDraft, opSubmit}, opApprove, teammanager.ErrNotAllowed},
		{"approve twice", teammanager.BoardSettings{}, []planOp{opDraft, opSubmit, opApprove}, opApprove, teammanager.ErrPlanState},
		// A review names the revision it read: one the lead has since
		// replaced is not approved in its stead (nor rejected).
		{"approve a revision replaced by one pending review", teammanager.BoardSettings{}, []planOp{opDraft, opSubmit, opReject, opDraft, opSubmit},
			planOp{op: "approve", by: teammanager.Operator, rev: 1}, teammanager.ErrPlanState},
		{"reject a revision replaced by one pending review", teammanager.BoardSettings{}, []planOp{opDraft, opSubmit, opReject, opDraft, opSubmit},
			planOp{op: "reject", by: teammanager.Operator, rev: 1, feedback: "no"}, teammanager.ErrPlanState},
		{"approve a revision replaced by an approved one", teammanager.BoardSettings{}, []planOp{opDraft, opSubmit, opApprove, opDraft, opSubmit, opApprove},
			planOp{op: "approve", by: teammanager.Operator, rev: 1}, teammanager.ErrPlanState},
		// A redraft is a new revision: a review of the draft read before
		// it does not approve the rewritten content.
		{"approve a draft replaced by a redraft pending review", teammanager.BoardSettings{}, []planOp{opDraft, {op: "draft", by: "lead", plan: teammanager.NewPlan{Title: "ship it", Steps: twoSteps.Steps}}, opSubmit},
			planOp{op: "approve", by: teammanager.Operator, rev: 1}, teammanager.ErrPlanState},
		{"approve a revision the team does not have", teammanager.BoardSettings{}, []planOp{opDraft, opSubmit},
			planOp{op: "approve", by: teammanager.Operator, rev: 2}, teammanager.ErrNoPlan},
		{"approve naming no revision", teammanager.BoardSettings{}, []planOp{opDraft, opSubmit},
			planOp{op: "approve", by: teammanager.Operator, rev: -1}, teammanager.ErrInvalidPlan},
		{"approve the latest revision by its number", teammanager.BoardSettings{}, []planOp{opDraft, opSubmit, opReject, opDraft, opSubmit},
			planOp{op: "approve", by: teammanager.Operator, rev: 2}, nil},
		{"draft while pending review", teammanager.BoardSettings{}, []planOp{opDraft, opSubmit}, opDraft, teammanager.ErrPlanState},
		{"lead drafts and submits", teammanager.BoardSettings{}, nil, opPropose, nil},
		{"draft and submit, then approve", teammanager.BoardSettings{}, []planOp{opPropose}, opApprove, nil},
		{"member may not draft and submit", teammanager.BoardSettings{}, nil, planOp{op: "draft", by: "a", plan: opPropose.plan}, teammanager.ErrNotAllowed},
		{"draft and submit while pending review", teammanager.BoardSettings{}, []planOp{opPropose}, opPropose, teammanager.ErrPlanState},
		{"draft and submit over a draft", teammanager.BoardSettings{}, []planOp{opDraft}, opPropose, nil},
		{"redraft after rejection", teammanager.BoardSettings{}, []planOp{opDraft, opSubmit, opReject}, opDraft, nil},
		{"redraft after approval", teammanager.BoardSettings{}, []planOp{opDraft, opSubmit, opApprove}, opDraft, nil},
		{"paused team plans", teammanager.BoardSettings{}, []planOp{running, {op: "pause"}}, opDraft, nil},
		{"disbanded team does not", teammanager.BoardSettings{}, []planOp{opDraft, {op: "disband"}}, opSubmit, teammanager.ErrTeamDisbanded},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, team := boardFixture(t, tc.settings)
			for _, o := range tc.setup {
				if o.op == "running" {
					f.status(t, team, "a", teammanager.Running, "")
					continue
				}
				if err := o.run(f, team); err != nil {
					t.Fatalf("setup %s by %s: %v", o.op, o.by, err)
				}
			}
			before, _ := f.m.PlanRevisions(ctx, team)
			lastEv, _ := f.m.LastEventID(ctx)
			err := tc.op.run(f, team)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("%s by %s = %v, want %v", tc.op.op, tc.op.by, err, tc.want)
			}
			if err == nil {
				return
			}
			after, _ := f.m.PlanRevisions(ctx, team)
			if id, _ := f.m.LastEventID(ctx); id != lastEv || fmt.Sprint(after) != fmt.Sprint(before) {
				t.Fatalf("refused %s wrote: events %d → %d, revisions %v → %v", tc.op.op, lastEv, id, before, after)
			}
		})
	}
}

func TestBoard_PlanApprover_Validation(t *testing.T) {
	f, team := boardFixture(t)
	if _, err := f.m.ConfigureBoard(ctx, team, teammanager.BoardSettings{PlanApprover: "zed"}); !errors.Is(err, teammanager.ErrUnknownAgent) {
		t.Fatalf("approver not a member = %v", err)
	}
	if _, err := f.m.ConfigureBoard(ctx, team, teammanager.BoardSettings{PlanApprover: "lead"}); !errors.Is(err, teammanager.ErrInvalidConfig) {
		t.Fatalf("approver is the lead = %v", err)
	}
	s, err := f.m.ConfigureBoard(ctx, team, teammanager.BoardSettings{PlanApproval: true, PlanApprover: "c"})
	if err != nil || !s.PlanApproval || s.PlanApprover != "c" {
		t.Fatalf("ConfigureBoard = %+v, %v", s, err)
	}
	if got, _ := f.m.Board(ctx, team); got != s {
		t.Fatalf("Board = %+v, want %+v", got, s)
	}
}

// TestPlan_Revisions: every revision is kept; a redrafted draft is a new
// revision, the replaced draft kept as it was; the plan in force is the latest approved revision, and a newer
// draft does not withdraw it.
func TestPlan_Revisions(t *testing.T) {
	f, team := boardFixture(t)
	if _, err := f.m.PlanInForce(ctx, team); !errors.Is(err, teammanager.ErrPlanNotApproved) {
		t.Fatalf("PlanInForce with no plan = %v", err)
	}
	if _, err := f.m.GetPlan(ctx, team, 0); !errors.Is(err, teammanager.ErrNoPlan) {
		t.Fatalf("GetPlan with no plan = %v", err)
	}
	for _, o := range []planOp{opDraft, {op: "draft", by: "lead", plan: teammanager.NewPlan{Title: "ship it", Steps: twoSteps.Steps}},
		opSubmit, opReject, opDraft, opSubmit, {op: "approve", by: teammanager.Operator, feedback: "go"}, opDraft} {
		if err := o.run(f, team); err != nil {
			t.Fatalf("%s: %v", o.op, err)
		}
	}
	revs, err := f.m.PlanRevisions(ctx, team)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range revs {
		got = append(got, fmt.Sprintf("%d:%s:%s:%s", p.Revision, p.Title, p.State, p.Feedback))
	}
	want := []string{"1:ship the index:draft:", "2:ship it:rejected:too vague", "3:ship the index:approved:go", "4:ship the index:draft:"}
	if !slices.Equal(got, want) {
		t.Fatalf("revisions %q, want %q", got, want)
	}
	p, err := f.m.PlanInForce(ctx, team)
	if err != nil || p.Revision != 3 || p.ReviewedBy != teammanager.Operator || len(p.Steps) != 2 || p.Steps[0].Description != "every page under /docs" {
		t.Fatalf("PlanInForce = %+v, %v", p, err)
	}
	if p.IRI != f.ns.Plan(team, 3) {
		t.Fatalf("IRI %s", p.IRI)
	}
	if p, err := f.m.GetPlan(ctx, team, 0); err != nil || p.Revision != 4 {
		t.Fatalf("GetPlan latest = %+v, %v", p, err)
	}
	if _, err := f.m.GetPlan(ctx, team, 5); !errors.Is(err, teammanager.ErrNoPlan) {
		t.Fatalf("GetPlan 5 = %v", err)
	}
}

// TestPlan_Gate table-tests the plan_approval setting: no task is claimed
// or dispatched before the plan is approved, whatever the way; after it,
// each task handed out carries the plan in force.
func TestPlan_Gate(t *testing.T) {
	ways := map[string]func(f *fixture, team, id string) (teammanager.Task, error){
		"ClaimTask": func(f *fixture, team, id string) (teammanager.Task, error) { return f.m.ClaimTask(ctx, team, "a", id) },
		"ClaimNext": func(f *fixture, team, _ string) (teammanager.Task, error) { return f.m.ClaimNext(ctx, team, "a") },
		"DispatchUnblocked": func(f *fixture, team, _ string) (teammanager.Task, error) {
			rep, err := f.m.DispatchUnblocked(ctx, team)
			if err != nil || len(rep.Dispatched) != 1 {
				return teammanager.Task{}, fmt.Errorf("dispatched %v: %w", rep.Dispatched, err)
			}
			return rep.Dispatched[0], nil
		},
	}
	tests := []struct {
		name     string
		approval bool
		setup    []planOp
		want     error
		plan     int // revision the handed-out task carries
	}{
		{"gate, no plan", true, nil, teammanager.ErrPlanNotApproved, 0},
		{"gate, draft", true, []planOp{opDraft}, teammanager.ErrPlanNotApproved, 0},
		{"gate, pending review", true, []planOp{opDraft, opSubmit}, teammanager.ErrPlanNotApproved, 0},
		{"gate, rejected", true, []planOp{opDraft, opSubmit, opReject}, teammanager.ErrPlanNotApproved, 0},
		{"gate, approved", true, []planOp{opDraft, opSubmit, opApprove}, nil, 1},
		{"gate, approved then redrafted", true, []planOp{opDraft, opSubmit, opApprove, opDraft, opSubmit}, nil, 1},
		{"gate, second revision approved", true, []planOp{opDraft, opSubmit, opReject, opDraft, opSubmit, opApprove}, nil, 2},
		{"no gate, no plan", false, nil, nil, 0},
		{"no gate, pending review", false, []planOp{opDraft, opSubmit}, nil, 0},
		{"no gate, approved", false, []planOp{opDraft, opSubmit, opApprove}, nil, 1},
	}
	for _, tc := range tests {
		for way, hand := range ways {
			t.Run(tc.name+"/"+way, func(t *testing.T) {
				f, team := boardFixture(t, teammanager.BoardSettings{PlanApproval: tc.approval})
				task := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "crawl"})
				for _, o := range tc.setup {
					if err := o.run(f, team); err != nil {
						t.Fatalf("setup %s: %v", o.op, err)
					}
				}
				got, err := hand(f, team, task.ID)
				if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
					t.Fatalf("%s = %v, want %v", way, err, tc.want)
				}
				if err != nil {
					if cur, _ := f.m.GetTask(ctx, team, task.ID); cur.Status != teammanager.TaskPending || cur.Dispatches != 0 {
						t.Fatalf("refused hand-out changed the task: %+v", cur)
					}
					return
				}
				switch {
				case tc.plan == 0 && got.Plan != nil:
					t.Fatalf("task carries plan %+v, want none", got.Plan)
				case tc.plan > 0 && (got.Plan == nil || got.Plan.Revision != tc.plan || got.Plan.State != teammanager.PlanApproved):
					t.Fatalf("task carries plan %+v, want revision %d approved", got.Plan, tc.plan)
				}
			})
		}
	}
}

// TestPlan_EventsAndRDF: each plan change is an event, and the plan is RDF
// in the team's plan graph that SPARQL reads.
func TestPlan_EventsAndRDF(t *testing.T) {
	f, team := boardFixture(t)
	last, _ := f.m.LastEventID(ctx)
	for _, o := range []planOp{opDraft, opSubmit, opReject, opDraft, opSubmit, opApprove} {
		if err := o.run(f, team); err != nil {
			t.Fatal(err)
		}
	}
	end, _ := f.m.LastEventID(ctx)
	var got []string
	for _, ev := range collect(t, f.m, last, int(end-last)) {
		if ev.Plan == nil || ev.Team != team {
			t.Fatalf("event %+v without its plan", ev)
		}
		got = append(got, fmt.Sprintf("%s:%d:%s", ev.Type, ev.Plan.Revision, ev.Plan.State))
	}
	want := []string{"plan.drafted:1:draft", "plan.submitted:1:pending_review", "plan.rejected:1:rejected",
		"plan.drafted:2:draft", "plan.submitted:2:pending_review", "plan.approved:2:approved"}
	if !slices.Equal(got, want) {
		t.Fatalf("events %q, want %q", got, want)
	}
	rows, err := selectRows(t, f.m, `SELECT ?rev ?state ?i ?title WHERE { GRAPH ?g {
		?p a cx:Plan ; cx:plan:revision ?rev ; cx:plan:state ?state ; cx:plan:step ?s .
		?s cx:planstep:index ?i ; cx:planstep:title ?title } }`, sparql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	xi := func(n int) string { return fmt.Sprintf(`"%d"^^<http://www.w3.org/2001/XMLSchema#integer>`, n) }
	wantRows := []string{
		xi(1) + ` "rejected" ` + xi(1) + ` "crawl the docs"`, xi(1) + ` "rejected" ` + xi(2) + ` "build the index"`,
		xi(2) + ` "approved" ` + xi(1) + ` "crawl the docs"`, xi(2) + ` "approved" ` + xi(2) + ` "build the index"`,
	}
	slices.Sort(wantRows)
	if !slices.Equal(rows, wantRows) {
		t.Fatalf("SPARQL rows\n%q\nwant\n%q", rows, wantRows)
	}
	if g := f.graph(t, f.ns.PlanGraph(team)); len(g) == 0 {
		t.Fatal("plan graph is empty")
	}
}

// TestPlan_DeleteTeam: deleting a team deletes its plan (graph and rows).
func TestPlan_DeleteTeam(t *testing.T) {
	f, team := boardFixture(t)
	for _, o := range []planOp{opDraft, opSubmit, opApprove, {op: "disband"}} {
		if err := o.run(f, team); err != nil {
			t.Fatal(err)
		}
	}
	if p, err := f.m.GetPlan(ctx, team, 1); err != nil || p.State != teammanager.PlanApproved {
		t.Fatalf("a disbanded team's plan is read: %+v, %v", p, err)
	}
	f.deleteTeam(t, team)
	if g := f.graph(t, f.ns.PlanGraph(team)); len(g) != 0 {
		t.Fatalf("plan graph after delete: %v", g)
	}
	f.create(t, teammanager.TeamConfig{ID: team, Name: "again", Members: members("lead", "a"), Timeout: -1})
	if revs, err := f.m.PlanRevisions(ctx, team); err != nil || len(revs) != 0 {
		t.Fatalf("a new team of the same id has plan revisions %v, %v", revs, err)
	}
}

// TestPlan_ConcurrentSubmitApprove races submitters, approvers and
// claimers on a gated board: exactly one submit and one approval win, no
// claim succeeds before the approval commits, and every claim carries the
// approved plan. Run with -race.
func TestPlan_ConcurrentSubmitApprove(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{PlanApproval: true})
	for range 3 {
		mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "work"})
	}
	if err := opDraft.run(f, team); err != nil {
		t.Fatal(err)
	}
	start, _ := f.m.LastEventID(ctx)
	var (
		wg                  sync.WaitGroup
		mu                  sync.Mutex
		submits, approvals  int
		claims              []teammanager.Task
		unexpected          []error
		recordUnexpected    = func(err error) { mu.Lock(); unexpected = append(unexpected, err); mu.Unlock() }
		planApprovedOrState = func(err error) bool {
			return errors.Is(err, teammanager.ErrPlanState)
		}
	)
	for range 4 {
		wg.Go(func() {
			_, err := f.m.SubmitPlan(ctx, team, "lead")
			switch {
			case err == nil:
				mu.Lock()
				submits++
				mu.Unlock()
			case !planApprovedOrState(err):
				recordUnexpected(err)
			}
		})
	}
	for range 4 {
		wg.Go(func() {
			for {
				_, err := f.m.ReviewPlan(ctx, team, teammanager.Operator, 1, true, "")
				if err == nil {
					mu.Lock()
					approvals++
					mu.Unlock()
					return
				}
				if !planApprovedOrState(err) {
					recordUnexpected(err)
					return
				}
				if p, err := f.m.GetPlan(ctx, team, 1); err == nil && p.State == teammanager.PlanApproved {
					return
				}
			}
		})
	}
	for _, a := range []string{"a", "b", "c"} {
		wg.Go(func() {
			for {
				task, err := f.m.ClaimNext(ctx, team, a)
				if err == nil {
					mu.Lock()
					claims = append(claims, task)
					mu.Unlock()
					return
				}
				if !errors.Is(err, teammanager.ErrPlanNotApproved) {
					recordUnexpected(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if len(unexpected) > 0 || submits != 1 || approvals != 1 || len(claims) != 3 {
		t.Fatalf("unexpected %v; submits %d, approvals %d, claims %d", unexpected, submits, approvals, len(claims))
	}
	for _, c := range claims {
		if c.Plan == nil || c.Plan.Revision != 1 || c.Plan.State != teammanager.PlanApproved {
			t.Fatalf("claim %s carries plan %+v", c.ID, c.Plan)
		}
	}
	end, _ := f.m.LastEventID(ctx)
	approvedAt := uint64(0)
	for _, ev := range collect(t, f.m, start, int(end-start)) {
		switch {
		case ev.Type == teammanager.EventPlanApproved:
			approvedAt = ev.ID
		case ev.Task != nil && ev.Task.Action == teammanager.ActionClaimed && approvedAt == 0:
			t.Fatalf("task %s claimed (event %d) before the plan was approved", ev.Task.Task.ID, ev.ID)
		}
	}
	if approvedAt == 0 {
		t.Fatal("no plan.approved event")
	}
}

// TestPlan_ReviewRevisionZero: 0 is no shorthand for the latest revision
// in a review (it would approve what the reviewer may not have read): it
// is refused, and nothing is written.
func TestPlan_ReviewRevisionZero(t *testing.T) {
	f, team := boardFixture(t)
	for _, o := range []planOp{opDraft, opSubmit} {
		if err := o.run(f, team); err != nil {
			t.Fatal(err)
		}
	}
	last, _ := f.m.LastEventID(ctx)
	for _, approve := range []bool{true, false} {
		if _, err := f.m.ReviewPlan(ctx, team, teammanager.Operator, 0, approve, "why"); !errors.Is(err, teammanager.ErrInvalidPlan) {
			t.Fatalf("review (approve %v) of revision 0 = %v, want ErrInvalidPlan", approve, err)
		}
	}
	if id, _ := f.m.LastEventID(ctx); id != last {
		t.Fatalf("refused reviews wrote events %d → %d", last, id)
	}
	if p, err := f.m.GetPlan(ctx, team, 1); err != nil || p.State != teammanager.PlanPendingReview {
		t.Fatalf("revision 1 = %+v, %v", p, err)
	}
}

// TestPlan_AuthorDoesNotReviewAfterLeadChange: the lead never reviews its
// own plan, also once another member became the lead and the former one
// the board's approver: a revision's author does not approve or reject
// it (ErrNotAllowed), and nothing is written. (The check compared the
// reviewer with the current lead only: the former lead approved the
// revision it had drafted and submitted.)
func TestPlan_AuthorDoesNotReviewAfterLeadChange(t *testing.T) {
	for _, approve := range []bool{true, false} {
		t.Run(fmt.Sprint("approve=", approve), func(t *testing.T) {
			f, team := boardFixture(t)
			for _, o := range []planOp{opDraft, opSubmit} {
				if err := o.run(f, team); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := f.m.UpdateBoard(ctx, team, teammanager.BoardUpdate{Lead: ptrTo("a"), PlanApprover: ptrTo("lead")}); err != nil {
				t.Fatal(err)
			}
			last, _ := f.m.LastEventID(ctx)
			if _, err := f.m.ReviewPlan(ctx, team, "lead", 1, approve, "mine"); !errors.Is(err, teammanager.ErrNotAllowed) {
				t.Fatalf("review by the revision's author = %v, want ErrNotAllowed", err)
			}
			if id, _ := f.m.LastEventID(ctx); id != last {
				t.Fatalf("a refused review wrote events %d → %d", last, id)
			}
			if p, err := f.m.GetPlan(ctx, team, 1); err != nil || p.State != teammanager.PlanPendingReview {
				t.Fatalf("revision 1 = %+v, %v", p, err)
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

// rewinds are the ways a board of boardFixture goes back to an earlier
// state: the restore of snapshot snap, and the team's deletion and
// creation again.
var rewinds = []struct {
	name   string
	rewind func(t *testing.T, f *fixture, team, snap string)
}{
	{"snapshot restored", func(t *testing.T, f *fixture, team, snap string) {
		if _, err := f.m.RestoreSnapshot(ctx, team, snap, true); err != nil {
			t.Fatal(err)
		}
	}},
	{"team deleted and created again", func(t *testing.T, f *fixture, team, _ string) {
		if _, err := f.m.DisbandTeam(ctx, team); err != nil {
			t.Fatal(err)
		}
		f.deleteTeam(t, team)
		f.create(t, teammanager.TeamConfig{ID: team, Name: "again", Members: append([]teammanager.MemberConfig{{AgentID: "lead", Role: "lead"}}, members("a", "b", "c")...), Timeout: -1})
	}},
}

// TestPlan_RevisionNumbersNeverReused: a revision number names one
// content for good, also across a snapshot restore that rewinds the plan
// and across the team's deletion and creation again: a review of a
// number read before is refused (ErrPlanState) rather than approving the
// content drafted since under that number. (The restore rewound the
// board's count: the next draft took the number of the revision the
// reviewer had read, and the review approved it unseen.)
func TestPlan_RevisionNumbersNeverReused(t *testing.T) {
	draftSubmit := func(t *testing.T, f *fixture, team, title string) teammanager.Plan {
		t.Helper()
		if _, err := f.m.DraftPlan(ctx, team, "lead", teammanager.NewPlan{Title: title, Steps: twoSteps.Steps}); err != nil {
			t.Fatal(err)
		}
		p, err := f.m.SubmitPlan(ctx, team, "lead")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range rewinds {
		t.Run(tc.name, func(t *testing.T) {
			f, team := boardFixture(t)
			snap, err := f.m.SnapshotTeam(ctx, team, "before the plan")
			if err != nil {
				t.Fatal(err)
			}
			seen := draftSubmit(t, f, team, "B")
			tc.rewind(t, f, team, snap.ID)
			now := draftSubmit(t, f, team, "C")
			if now.Revision == seen.Revision {
				t.Fatalf("the plan drafted after the rewind took revision %d again", now.Revision)
			}
			if p, err := f.m.ReviewPlan(ctx, team, teammanager.Operator, seen.Revision, true, ""); err == nil {
				t.Fatalf("the review of revision %d (read as %q) approved %q", seen.Revision, seen.Title, p.Title)
			} else if !errors.Is(err, teammanager.ErrPlanState) {
				t.Fatalf("review of revision %d read before the rewind = %v, want ErrPlanState", seen.Revision, err)
			}
			if p, err := f.m.ReviewPlan(ctx, team, teammanager.Operator, now.Revision, true, ""); err != nil || p.Title != "C" {
				t.Fatalf("review of revision %d = %+v, %v", now.Revision, p, err)
			}
		})
	}
}

// TestTaskAndMessageNumbersNeverReused: as a plan's revision numbers, a
// task's and a message's number name one content for good, across a
// snapshot restore that rewinds the board and across the team's deletion
// and creation again. (The restore rewound the board's counters: the next
// task took T1 again, so a worker that held T1 from before completed a
// task it never read, and the next message took M1, which an agent had
// read as other text.)
func TestTaskAndMessageNumbersNeverReused(t *testing.T) {
	for _, tc := range rewinds {
		// A store written before the idseq table has no row of it: the
		// numbers used then are not taken again either.
		for _, legacy := range []bool{false, true} {
			name := tc.name
			if legacy {
				name += ", numbers taken before the idseq table"
			}
			t.Run(name, func(t *testing.T) {
				f, team := boardFixture(t)
				snap, err := f.m.SnapshotTeam(ctx, team, "before the work")
				if err != nil {
					t.Fatal(err)
				}
				seenTask := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "B", Assignee: "a"})
				seenMsg, err := f.m.SendMessage(ctx, team, "lead", teammanager.OutMessage{Type: teammanager.MsgAskQuestion, To: []string{"a"}, Body: "B"})
				if err != nil {
					t.Fatal(err)
				}
				if legacy {
					if err := f.n.Update(ctx, func(tx *cortex.Tx) error { tx.DeleteSide("idseq", team); return nil }); err != nil {
						t.Fatal(err)
					}
				}
				tc.rewind(t, f, team, snap.ID)
				if _, err := f.m.GetTask(ctx, team, seenTask.ID); !errors.Is(err, teammanager.ErrUnknownTask) {
					t.Fatalf("task %s after the rewind: %v, want ErrUnknownTask", seenTask.ID, err)
				}
				nowTask := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "C", Assignee: "a"})
				if nowTask.ID == seenTask.ID {
					t.Fatalf("the task created after the rewind took %s again", nowTask.ID)
				}
				if _, err := f.m.GetTask(ctx, team, seenTask.ID); !errors.Is(err, teammanager.ErrUnknownTask) {
					t.Fatalf("task %s (read as %q) after the rewind: %v, want ErrUnknownTask", seenTask.ID, seenTask.Subject, err)
				}
				nowMsg, err := f.m.SendMessage(ctx, team, "lead", teammanager.OutMessage{Type: teammanager.MsgAskQuestion, To: []string{"a"}, Body: "C"})
				if err != nil {
					t.Fatal(err)
				}
				if nowMsg.ID == seenMsg.ID {
					t.Fatalf("the message sent after the rewind took %s again", nowMsg.ID)
				}
				if _, err := f.m.Thread(ctx, team, seenMsg.ID); !errors.Is(err, teammanager.ErrUnknownMessage) {
					t.Fatalf("message %s (read as %q) after the rewind: %v, want ErrUnknownMessage", seenMsg.ID, seenMsg.Body, err)
				}
				// The board stays consistent, and numbering goes on from there.
				if err := teammanager.CheckBoard(f.m, ctx, team); err != nil {
					t.Fatal(err)
				}
				next := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "D"})
				if next.ID == nowTask.ID || next.ID == seenTask.ID {
					t.Fatalf("next task %s", next.ID)
				}
			})
		}
	}
}

// TestPlan_DraftSubmitted_OneWrite: a plan drafted with NewPlan.Submit is
// written pending review, with the events of a draft and a submit, in one
// write: a check of that write (WithWriteCheck) that refuses it leaves no
// revision and no event, where DraftPlan then SubmitPlan, the second call
// refused, leave a draft.
func TestPlan_DraftSubmitted_OneWrite(t *testing.T) {
	f, team := boardFixture(t)
	refuse := errors.New("refused")
	no := teammanager.WithWriteCheck(ctx, func(context.Context, *cortex.Tx) error { return refuse })
	last, _ := f.m.LastEventID(ctx)
	if _, err := f.m.DraftPlan(no, team, "lead", opPropose.plan); !errors.Is(err, refuse) {
		t.Fatalf("draft and submit, refused: %v", err)
	}
	if revs, err := f.m.PlanRevisions(ctx, team); err != nil || len(revs) != 0 {
		t.Fatalf("after a refused draft and submit: revisions %+v, %v", revs, err)
	}
	if id, _ := f.m.LastEventID(ctx); id != last {
		t.Fatalf("a refused draft and submit wrote events %d → %d", last, id)
	}
	p, err := f.m.DraftPlan(ctx, team, "lead", opPropose.plan)
	if err != nil {
		t.Fatal(err)
	}
	if p.Revision != 1 || p.State != teammanager.PlanPendingReview || p.SubmittedAt.IsZero() || p.Author != "lead" {
		t.Fatalf("draft and submit = %+v", p)
	}
	if got, err := f.m.GetPlan(ctx, team, 1); err != nil || fmt.Sprint(got) != fmt.Sprint(p) {
		t.Fatalf("stored %+v, %v; want %+v", got, err, p)
	}
	end, _ := f.m.LastEventID(ctx)
	var got []string
	for _, ev := range collect(t, f.m, last, int(end-last)) {
		got = append(got, fmt.Sprintf("%s:%d:%s", ev.Type, ev.Plan.Revision, ev.Plan.State))
	}
	if want := []string{"plan.drafted:1:draft", "plan.submitted:1:pending_review"}; !slices.Equal(got, want) {
		t.Fatalf("events %q, want %q", got, want)
	}
	rows, err := selectRows(t, f.m, `SELECT ?state WHERE { GRAPH ?g { ?p a cx:Plan ; cx:plan:state ?state } }`, sparql.Options{})
	if err != nil || !slices.Equal(rows, []string{`"pending_review"`}) {
		t.Fatalf("plan states in RDF %q, %v; want pending_review only", rows, err)
	}
}
