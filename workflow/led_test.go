package workflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/teammanager"
	"github.com/cortexgraph/cortex/workflow"
)

// ledRunner is a LedRunner from two funcs; it records the lead's turns.
type ledRunner struct {
	mu    sync.Mutex
	turns []workflow.LeadTurn
	lead  func(turn workflow.LeadTurn) ([]workflow.LeadOp, error)
	task  func(w workflow.TaskWork) (workflow.TaskResult, error)
}

func (r *ledRunner) Lead(_ context.Context, turn workflow.LeadTurn) ([]workflow.LeadOp, error) {
	r.mu.Lock()
	r.turns = append(r.turns, turn)
	r.mu.Unlock()
	return r.lead(turn)
}

func (r *ledRunner) Task(_ context.Context, w workflow.TaskWork) (workflow.TaskResult, error) {
	return r.task(w)
}

func crewDef() workflow.Def {
	return workflow.Def{Name: "dev", Type: workflow.Crew, Lead: "architect", Agents: []string{"architect", "backend", "qa"},
		Specialists: []string{"backend", "qa"}, MaxTurns: 6}
}

// reviewAll approves every task in review; done once every task is
// completed.
func reviewAll(turn workflow.LeadTurn) []workflow.LeadOp {
	var ops []workflow.LeadOp
	open := false
	for _, t := range turn.Tasks {
		switch t.Status {
		case teammanager.TaskInReview:
			ops = append(ops, workflow.LeadOp{Op: workflow.OpApprove, Task: t.ID, Feedback: "ok"})
		case teammanager.TaskCompleted:
		default:
			open = true
		}
	}
	if len(ops) == 0 && !open {
		ops = append(ops, workflow.LeadOp{Op: workflow.OpDone, Summary: "all done"})
	}
	return ops
}

func TestDriveLed_Crew(t *testing.T) {
	f := newFixture(t)
	r := f.start(t, crewDef(), workflow.RunOptions{ID: "crew1", Inputs: map[string]any{"goal": "ship"}})
	var mu sync.Mutex
	var order []string
	runner := &ledRunner{
		lead: func(turn workflow.LeadTurn) ([]workflow.LeadOp, error) {
			if turn.Turn == 1 {
				return []workflow.LeadOp{
					{Op: workflow.OpCreate, Ref: "api", Subject: "build the API", Assignee: "backend", Priority: 2},
					{Op: workflow.OpCreate, Subject: "test the API", Assignee: "qa", BlockedBy: []string{"api"}},
				}, nil
			}
			return reviewAll(turn), nil
		},
		task: func(w workflow.TaskWork) (workflow.TaskResult, error) {
			mu.Lock()
			order = append(order, w.Task.ID+":"+w.Member.ID)
			mu.Unlock()
			res := workflow.TaskResult{Result: "did " + w.Task.Subject,
				Findings: []teammanager.Finding{finding(w.Member.ID, "did", quad.String(w.Task.ID))}}
			if w.Task.ID == "T2" && (len(w.Upstream) != 1 || w.Upstream[0].Result != "did build the API") {
				return res, fmt.Errorf("upstream %+v", w.Upstream)
			}
			return res, nil
		},
	}
	got, err := workflow.DriveLed(ctx, f.e, f.tm, r.ID, "driver", runner, 4)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != workflow.RunCompleted {
		t.Fatalf("run %s: %s", got.Status, got.Error)
	}
	if !slices.Equal(order, []string{"T1:backend", "T2:qa"}) {
		t.Fatalf("tasks ran %v, want T1 by backend, then T2 by qa", order)
	}
	tasks, err := f.tm.ListTasks(ctx, r.Team, teammanager.TaskFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range tasks {
		if tk.Status != teammanager.TaskCompleted || tk.ReviewedBy != "architect" || tk.CreatedBy != "architect" {
			t.Errorf("task %s: %s, reviewed by %q, created by %q", tk.ID, tk.Status, tk.ReviewedBy, tk.CreatedBy)
		}
	}
	// The lead saw the members and the run's inputs; turn 1 an empty board.
	first := runner.turns[0]
	if first.Turn != 1 || first.MaxTurns != 6 || len(first.Tasks) != 0 || first.Inputs["goal"] != "ship" ||
		len(first.Members) != 3 || first.Members[0].Role != workflow.RoleLead || first.Members[1].Role != workflow.RoleSpecialist {
		t.Fatalf("first turn %+v", first)
	}
	// Findings merged into the team's shared graph, with the tasks.
	facts, err := f.tm.Facts(ctx, r.Team, teammanager.FactFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != 2 {
		t.Fatalf("facts %+v, want the 2 task findings", facts)
	}
	team, err := f.tm.GetTeam(ctx, r.Team)
	if err != nil {
		t.Fatal(err)
	}
	if team.Status != teammanager.Completed || !team.Merged {
		t.Fatalf("team %s merged %v", team.Status, team.Merged)
	}
	for _, m := range team.Members {
		if m.Status != teammanager.Completed {
			t.Errorf("member %s %s", m.AgentID, m.Status)
		}
	}
	st := statuses(got)
	// Turn 1 creates, 2 approves T1, 3 approves T2, 4 says done.
	if st["turn-4/architect"] != workflow.StepCompleted || st["turn-5/architect"] != workflow.StepSkipped {
		t.Fatalf("turns %v", st)
	}
}

func TestDriveLed_Swarm_EachTaskClaimedOnce(t *testing.T) {
	f := newFixture(t)
	d := workflow.Def{Name: "triage", Type: workflow.Swarm, Lead: "lead", Agents: []string{"lead", "t1", "t2", "t3"}}
	r := f.start(t, d, workflow.RunOptions{ID: "swarm1"})
	const n = 12
	var mu sync.Mutex
	ran := map[string][]string{}
	runner := &ledRunner{
		lead: func(turn workflow.LeadTurn) ([]workflow.LeadOp, error) {
			if turn.Turn > 1 {
				return []workflow.LeadOp{{Op: workflow.OpDone}}, nil
			}
			var ops []workflow.LeadOp
			for i := range n {
				ops = append(ops, workflow.LeadOp{Op: workflow.OpCreate, Subject: fmt.Sprintf("bug %d", i)})
			}
			return ops, nil
		},
		task: func(w workflow.TaskWork) (workflow.TaskResult, error) {
			mu.Lock()
			ran[w.Task.ID] = append(ran[w.Task.ID], w.Member.ID)
			mu.Unlock()
			return workflow.TaskResult{Result: "triaged"}, nil
		},
	}
	got, err := workflow.DriveLed(ctx, f.e, f.tm, r.ID, "driver", runner, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != workflow.RunCompleted {
		t.Fatalf("run %s: %s", got.Status, got.Error)
	}
	tasks, err := f.tm.ListTasks(ctx, r.Team, teammanager.TaskFilter{})
	if err != nil {
		t.Fatal(err)
	}
	claimers := map[string]bool{}
	for _, tk := range tasks {
		if tk.Status != teammanager.TaskCompleted || tk.Dispatches != 1 || len(ran[tk.ID]) != 1 || ran[tk.ID][0] != tk.Assignee {
			t.Errorf("task %s: %s, dispatched %d, ran by %v, assignee %s", tk.ID, tk.Status, tk.Dispatches, ran[tk.ID], tk.Assignee)
		}
		claimers[tk.Assignee] = true
	}
	if len(tasks) != n || len(claimers) != 3 || claimers["lead"] {
		t.Fatalf("%d tasks claimed by %v, want %d by t1, t2 and t3", len(tasks), claimers, n)
	}
}

func TestDriveLed_FailingSpecialist_LeadTold(t *testing.T) {
	f := newFixture(t)
	r := f.start(t, crewDef(), workflow.RunOptions{ID: "crew2"})
	runner := &ledRunner{
		lead: func(turn workflow.LeadTurn) ([]workflow.LeadOp, error) {
			if turn.Turn == 1 {
				return []workflow.LeadOp{{Op: workflow.OpCreate, Subject: "migrate", Assignee: "backend"}}, nil
			}
			return []workflow.LeadOp{{Op: workflow.OpDone, Summary: "gave up"}}, nil
		},
		task: func(w workflow.TaskWork) (workflow.TaskResult, error) {
			return workflow.TaskResult{}, errors.New("database unreachable")
		},
	}
	got, err := workflow.DriveLed(ctx, f.e, f.tm, r.ID, "driver", runner, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(runner.turns) != 2 {
		t.Fatalf("%d turns", len(runner.turns))
	}
	seen := runner.turns[1].Tasks
	if len(seen) != 1 || seen[0].Status != teammanager.TaskFailed || seen[0].Error != "database unreachable" {
		t.Fatalf("the lead's second turn saw %+v, want T1 failed", seen)
	}
	inbox, err := f.tm.History(ctx, r.Team, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(inbox, func(m teammanager.Message) bool {
		return m.Task == "T1" && slices.Equal(m.To, []string{"architect"}) && strings.Contains(m.Body, "database unreachable")
	}) {
		t.Fatalf("the lead's inbox %+v has no escalation for T1", inbox)
	}
	// The lead said done: the run completes, the member with no completed
	// task failed.
	if got.Status != workflow.RunCompleted {
		t.Fatalf("run %s: %s", got.Status, got.Error)
	}
	team, err := f.tm.GetTeam(ctx, r.Team)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := team.Member("backend"); m.Status != teammanager.Failed {
		t.Fatalf("backend %s, want failed", m.Status)
	}
}

func TestDriveLed_LeadErrors(t *testing.T) {
	withDefs := crewDef()
	withDefs.AgentDefs = map[string]json.RawMessage{
		"architect": json.RawMessage(`{"name":"architect","delegation":{"allow_delegation":true,"can_delegate_to":["backend"]}}`),
	}
	for _, tc := range []struct {
		name string
		def  workflow.Def
		ops  []workflow.LeadOp
		want []string
	}{
		{"assign to the lead", crewDef(), []workflow.LeadOp{
			{Op: workflow.OpCreate, Subject: "fine", Assignee: "backend"},
			{Op: workflow.OpCreate, Subject: "mine", Assignee: "architect"}},
			[]string{"operation 2: create: assignee \"architect\" is the lead"}},
		{"can_delegate_to", withDefs, []workflow.LeadOp{{Op: workflow.OpCreate, Subject: "test", Assignee: "qa"}},
			[]string{"architect may not delegate work to qa: its can_delegate_to lists only backend"}},
		{"every problem", crewDef(), []workflow.LeadOp{
			{Op: workflow.OpCreate, Assignee: "nobody"},
			{Op: workflow.OpReject, Task: "T9"},
			{Op: "shout"},
			{Op: workflow.OpCreate, Subject: "x", BlockedBy: []string{"later"}}},
			[]string{"operation 1: create: subject is required", "operation 1: create: assignee \"nobody\" is not an agent of the run",
				"operation 2: reject: feedback is required", "operation 3: unknown op \"shout\"", "operation 4: create: blocked_by \"later\""}},
		// Valid, but the board refuses the last operation: the turn's
		// write is all or nothing, the two tasks before it are not
		// written.
		{"refused by the board after two creates", crewDef(), []workflow.LeadOp{
			{Op: workflow.OpCreate, Subject: "build", Assignee: "backend", Ref: "b"},
			{Op: workflow.OpCreate, Subject: "test", Assignee: "qa", BlockedBy: []string{"b"}},
			{Op: workflow.OpApprove, Task: "T99"}},
			[]string{"lead operation 3 (approve)", "T99"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			r := f.start(t, tc.def, workflow.RunOptions{ID: "bad"})
			runner := &ledRunner{
				lead: func(workflow.LeadTurn) ([]workflow.LeadOp, error) { return tc.ops, nil },
				task: func(workflow.TaskWork) (workflow.TaskResult, error) { return workflow.TaskResult{}, nil },
			}
			got, err := workflow.DriveLed(ctx, f.e, f.tm, r.ID, "driver", runner, 1)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != workflow.RunFailed {
				t.Fatalf("run %s, want failed", got.Status)
			}
			for _, w := range tc.want {
				if !strings.Contains(got.Error, w) {
					t.Errorf("error %q lacks %q", got.Error, w)
				}
			}
			// Nothing of the turn was written.
			tasks, err := f.tm.ListTasks(ctx, r.Team, teammanager.TaskFilter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(tasks) != 0 {
				t.Fatalf("tasks %+v written by a refused turn", tasks)
			}
		})
	}
}

func TestDriveLed_SpecialistCannotDelegate(t *testing.T) {
	f := newFixture(t)
	r := f.start(t, crewDef(), workflow.RunOptions{ID: "crew3"})
	runner := &ledRunner{
		lead: func(turn workflow.LeadTurn) ([]workflow.LeadOp, error) {
			if turn.Turn == 1 {
				return []workflow.LeadOp{{Op: workflow.OpCreate, Subject: "build", Assignee: "backend"}}, nil
			}
			return []workflow.LeadOp{{Op: workflow.OpDone}}, nil
		},
		task: func(w workflow.TaskWork) (workflow.TaskResult, error) {
			return workflow.TaskResult{Result: "half", Tasks: []teammanager.NewTask{{Subject: "you test it", Assignee: "qa"}}}, nil
		},
	}
	if _, err := workflow.DriveLed(ctx, f.e, f.tm, r.ID, "driver", runner, 1); err != nil {
		t.Fatal(err)
	}
	tasks, err := f.tm.ListTasks(ctx, r.Team, teammanager.TaskFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 1 || tasks[0].Status != teammanager.TaskFailed ||
		!strings.Contains(tasks[0].Error, "backend is a specialist of a crew, and specialists cannot delegate") {
		t.Fatalf("tasks %+v, want T1 failed: specialists cannot delegate", tasks)
	}
}

func TestDriveLed_LeadNeverDone(t *testing.T) {
	f := newFixture(t)
	d := crewDef()
	d.MaxTurns = 2
	r := f.start(t, d, workflow.RunOptions{ID: "crew4"})
	runner := &ledRunner{
		lead: func(workflow.LeadTurn) ([]workflow.LeadOp, error) { return nil, nil },
		task: func(workflow.TaskWork) (workflow.TaskResult, error) { return workflow.TaskResult{}, nil },
	}
	got, err := workflow.DriveLed(ctx, f.e, f.tm, r.ID, "driver", runner, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != workflow.RunFailed || got.Error != "the lead did not say done in 2 turns" || len(runner.turns) != 2 {
		t.Fatalf("run %s %q after %d turns", got.Status, got.Error, len(runner.turns))
	}
}

func TestDef_Validate_Led(t *testing.T) {
	for _, tc := range []struct {
		name string
		def  workflow.Def
		want string
	}{
		{"crew without lead", workflow.Def{Name: "c", Type: workflow.Crew, Agents: []string{"a", "b"}}, "lead: a crew needs a lead"},
		{"lead only", workflow.Def{Name: "c", Type: workflow.Crew, Lead: "a", Agents: []string{"a"}}, "needs an agent besides its lead"},
		{"lead not an agent", workflow.Def{Name: "c", Type: workflow.Crew, Lead: "z", Agents: []string{"a", "b"}}, `lead: "z" is not one of the team's agents`},
		{"specialist is lead", workflow.Def{Name: "c", Type: workflow.Crew, Lead: "a", Agents: []string{"a", "b"}, Specialists: []string{"a"}}, `specialists/0: "a" is the lead`},
		{"swarm without agents", workflow.Def{Name: "s", Type: workflow.Swarm}, "agents: a swarm needs agents"},
		{"negative turns", workflow.Def{Name: "s", Type: workflow.Swarm, Agents: []string{"a"}, MaxTurns: -1}, "max_turns: -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.def.Validate()
			if !errors.Is(err, workflow.ErrInvalidDef) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestDriveLed_Crew_Reject: a task the lead rejects goes back to its
// member, who runs it again with the feedback.
func TestDriveLed_Crew_Reject(t *testing.T) {
	f := newFixture(t)
	r := f.start(t, crewDef(), workflow.RunOptions{ID: "crew5"})
	var feedback []string
	runner := &ledRunner{
		lead: func(turn workflow.LeadTurn) ([]workflow.LeadOp, error) {
			switch turn.Turn {
			case 1:
				return []workflow.LeadOp{{Op: workflow.OpCreate, Subject: "build", Assignee: "backend"}}, nil
			case 2:
				return []workflow.LeadOp{{Op: workflow.OpReject, Task: "T1", Feedback: "add tests"}}, nil
			}
			return reviewAll(turn), nil
		},
		task: func(w workflow.TaskWork) (workflow.TaskResult, error) {
			feedback = append(feedback, w.Task.Feedback)
			return workflow.TaskResult{Result: fmt.Sprintf("try %d", len(feedback))}, nil
		},
	}
	got, err := workflow.DriveLed(ctx, f.e, f.tm, r.ID, "driver", runner, 1)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := f.tm.GetTask(ctx, r.Team, "T1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != workflow.RunCompleted || tk.Status != teammanager.TaskCompleted || tk.Result != "try 2" ||
		!slices.Equal(feedback, []string{"", "add tests"}) || tk.Dispatches != 1 {
		t.Fatalf("run %s, T1 %s %q dispatched %d, feedback seen %q", got.Status, tk.Status, tk.Result, tk.Dispatches, feedback)
	}
}

func TestDrive_LedRunsByDriveLedOnly(t *testing.T) {
	f := newFixture(t)
	crew := f.start(t, crewDef(), workflow.RunOptions{ID: "c"})
	graph := f.start(t, scatterDef(), workflow.RunOptions{ID: "g"})
	noop := workflow.RunnerFunc(func(context.Context, workflow.ReadyStep) (map[string]any, []teammanager.Finding, error) {
		return nil, nil, nil
	})
	if _, err := workflow.Drive(ctx, f.e, crew.ID, "d", noop, 1); !errors.Is(err, workflow.ErrInvalidRun) || !strings.Contains(err.Error(), "driven by DriveLed") {
		t.Errorf("Drive on a crew: %v", err)
	}
	runner := &ledRunner{}
	if _, err := workflow.DriveLed(ctx, f.e, f.tm, graph.ID, "d", runner, 1); !errors.Is(err, workflow.ErrInvalidRun) || !strings.Contains(err.Error(), "driven by Drive") {
		t.Errorf("DriveLed on a scatter: %v", err)
	}
	if r := f.get(t, crew.ID); r.Status != workflow.RunPending {
		t.Errorf("the crew run is %s after a refused Drive", r.Status)
	}
}

// TestDriveLed_SwarmWithoutLead: the first agent fills the queue and
// takes tasks too; it has no lead's review to give.
func TestDriveLed_SwarmWithoutLead(t *testing.T) {
	f := newFixture(t)
	d := workflow.Def{Name: "pool", Type: workflow.Swarm, Agents: []string{"a", "b"}}
	r := f.start(t, d, workflow.RunOptions{ID: "pool"})
	runner := &ledRunner{
		lead: func(turn workflow.LeadTurn) ([]workflow.LeadOp, error) {
			if turn.Turn == 1 {
				return []workflow.LeadOp{{Op: workflow.OpCreate, Subject: "one"}, {Op: workflow.OpCreate, Subject: "two"}}, nil
			}
			return []workflow.LeadOp{{Op: workflow.OpDone}}, nil
		},
		task: func(w workflow.TaskWork) (workflow.TaskResult, error) {
			return workflow.TaskResult{Result: w.Member.ID}, nil
		},
	}
	got, err := workflow.DriveLed(ctx, f.e, f.tm, r.ID, "driver", runner, 2)
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := f.tm.ListTasks(ctx, r.Team, teammanager.TaskFilter{Status: teammanager.TaskCompleted})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != workflow.RunCompleted || len(tasks) != 2 || tasks[0].Assignee != "a" || tasks[1].Assignee != "b" || tasks[0].CreatedBy != "a" {
		t.Fatalf("run %s, completed tasks %+v", got.Status, tasks)
	}
	if m := runner.turns[0].Members; len(m) != 2 || m[0].Role != workflow.RoleMember {
		t.Fatalf("members %+v, want a and b, members both", m)
	}

	r = f.start(t, d, workflow.RunOptions{ID: "pool2"})
	runner.lead = func(workflow.LeadTurn) ([]workflow.LeadOp, error) {
		return []workflow.LeadOp{{Op: workflow.OpApprove, Task: "T1"}}, nil
	}
	got, err = workflow.DriveLed(ctx, f.e, f.tm, r.ID, "driver", runner, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != workflow.RunFailed || !strings.Contains(got.Error, "approve: this swarm has no lead to approve tasks") {
		t.Fatalf("approve in a swarm without lead: run %s %q", got.Status, got.Error)
	}
}

// planBoard is a Board whose GetPlan approves the plan, as the operator,
// after its approveAt-th call has read it.
type planBoard struct {
	*teammanager.Manager
	calls, approveAt int
	err              error
}

func (b *planBoard) GetPlan(ctx context.Context, team string, rev int) (teammanager.Plan, error) {
	pl, err := b.Manager.GetPlan(ctx, team, rev)
	if b.calls++; b.calls == b.approveAt {
		_, b.err = b.Manager.ReviewPlan(ctx, team, teammanager.Operator, pl.Revision, true, "")
	}
	return pl, err
}

// TestDriveLed_PlanApproval: with plan_approval, the members wait for the
// operator to approve the lead's plan, then work with it.
func TestDriveLed_PlanApproval(t *testing.T) {
	f := newFixture(t)
	d := crewDef()
	d.PlanApproval = true
	r := f.start(t, d, workflow.RunOptions{ID: "planned"})
	var mu sync.Mutex
	var plans []string
	runner := &ledRunner{
		lead: func(turn workflow.LeadTurn) ([]workflow.LeadOp, error) {
			switch {
			case turn.Turn == 1:
				return []workflow.LeadOp{
					{Op: workflow.OpPlan, Title: "ship it", Steps: []teammanager.PlanStep{{Title: "build"}}},
					{Op: workflow.OpCreate, Subject: "build", Assignee: "backend"},
				}, nil
			case turn.Plan == nil || turn.Plan.State != teammanager.PlanApproved:
				return nil, fmt.Errorf("turn %d sees plan %+v, want it approved", turn.Turn, turn.Plan)
			}
			return reviewAll(turn), nil
		},
		task: func(w workflow.TaskWork) (workflow.TaskResult, error) {
			mu.Lock()
			defer mu.Unlock()
			if w.Task.Plan != nil {
				plans = append(plans, w.Task.Plan.Title)
			}
			return workflow.TaskResult{Result: "built"}, nil
		},
	}
	// The operator approves the plan after the driver has read it three
	// times: while it waits for the approval, the lead takes no turn.
	b := &planBoard{Manager: f.tm, approveAt: 3}
	got, err := workflow.DriveLed(ctx, f.e, b, r.ID, "driver", runner, 1)
	if err != nil {
		t.Fatal(err)
	}
	if b.err != nil {
		t.Fatal(b.err)
	}
	if got.Status != workflow.RunCompleted || !slices.Equal(plans, []string{"ship it"}) {
		t.Fatalf("run %s %q; the task saw plans %q", got.Status, got.Error, plans)
	}
}

// TestDriveLed_Resume: a driver stopped while a member runs a task leaves
// the task in progress; the next driver has the member take it up again
// and finishes the run.
func TestDriveLed_Resume(t *testing.T) {
	f := newFixture(t)
	r := f.start(t, crewDef(), workflow.RunOptions{ID: "resume"})
	stop, cancel := context.WithCancel(ctx)
	defer cancel()
	runs := 0
	runner := &ledRunner{
		lead: func(turn workflow.LeadTurn) ([]workflow.LeadOp, error) {
			if turn.Turn == 1 {
				return []workflow.LeadOp{{Op: workflow.OpCreate, Subject: "build", Assignee: "backend"}}, nil
			}
			return reviewAll(turn), nil
		},
		task: func(w workflow.TaskWork) (workflow.TaskResult, error) {
			if runs++; runs == 1 {
				cancel() // the first driver stops while the task runs
				return workflow.TaskResult{}, context.Canceled
			}
			return workflow.TaskResult{Result: "built"}, nil
		},
	}
	got, err := workflow.DriveLed(stop, f.e, f.tm, r.ID, "first", runner, 1)
	if !errors.Is(err, context.Canceled) || got.Status != workflow.RunRunning {
		t.Fatalf("stopped driver: run %s, %v", got.Status, err)
	}
	if tk, err := f.tm.GetTask(ctx, r.Team, "T1"); err != nil || tk.Status != teammanager.TaskInProgress {
		t.Fatalf("T1 after the stop: %+v, %v", tk, err)
	}
	got, err = workflow.DriveLed(ctx, f.e, f.tm, r.ID, "second", runner, 1)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := f.tm.GetTask(ctx, r.Team, "T1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != workflow.RunCompleted || runs != 2 || tk.Status != teammanager.TaskCompleted || tk.Result != "built" || tk.Dispatches != 1 {
		t.Fatalf("resumed: run %s, %d runs, T1 %s %q dispatched %d", got.Status, runs, tk.Status, tk.Result, tk.Dispatches)
	}
}

// stuckLead is a LedRunner whose lead works until its context ends, then
// answers anyway with a task.
type stuckLead struct{ stopped atomic.Bool }

func (s *stuckLead) Lead(ctx context.Context, _ workflow.LeadTurn) ([]workflow.LeadOp, error) {
	<-ctx.Done()
	s.stopped.Store(true)
	return []workflow.LeadOp{{Op: workflow.OpCreate, Subject: "late", Assignee: workflow.MemberID("backend")}}, nil
}

func (s *stuckLead) Task(context.Context, workflow.TaskWork) (workflow.TaskResult, error) {
	return workflow.TaskResult{}, nil
}

// TestDriveLed_LeadTurnTimesOut: a lead turn that outlasts the step
// timeout has its context ended, fails as timed out, and what it answers
// late is not applied (the driver used to wait for it for ever, then
// create its tasks on the board of a failed turn).
func TestDriveLed_LeadTurnTimesOut(t *testing.T) {
	f := newFixture(t)
	d := crewDef()
	d.MaxTurns = 1
	r := f.start(t, d, workflow.RunOptions{ID: "slowlead", StepTimeout: 20 * time.Millisecond})
	runner := &stuckLead{}
	got, err := workflow.DriveLed(ctx, f.e, f.tm, r.ID, "driver", runner, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !runner.stopped.Load() {
		t.Fatal("the lead's context did not end")
	}
	if got.Status != workflow.RunFailed || got.Steps[0].Status != workflow.StepFailed || got.Steps[0].Reason != "timed out after 20ms" {
		t.Fatalf("run %s, turn %s (%q); want failed, failed (timed out after 20ms)", got.Status, got.Steps[0].Status, got.Steps[0].Reason)
	}
	tasks, err := f.tm.ListTasks(ctx, got.Team, teammanager.TaskFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 0 {
		t.Fatalf("the timed-out turn created %d tasks", len(tasks))
	}
}

// stuckMember is a LedRunner whose members work until their context
// ends; its lead creates one task, then says done once it has failed.
type stuckMember struct{ stopped atomic.Bool }

func (s *stuckMember) Lead(_ context.Context, turn workflow.LeadTurn) ([]workflow.LeadOp, error) {
	if len(turn.Tasks) == 0 {
		return []workflow.LeadOp{{Op: workflow.OpCreate, Subject: "hang", Assignee: workflow.MemberID("backend")}}, nil
	}
	return []workflow.LeadOp{{Op: workflow.OpDone, Summary: "gave up"}}, nil
}

func (s *stuckMember) Task(ctx context.Context, _ workflow.TaskWork) (workflow.TaskResult, error) {
	<-ctx.Done()
	s.stopped.Store(true)
	return workflow.TaskResult{Result: "late"}, nil
}

// TestDriveLed_TaskTimesOut: a member's task that outlasts the run's step
// timeout has its context ended and fails as timed out; the lead then
// goes on (the driver used to wait for the task for ever).
func TestDriveLed_TaskTimesOut(t *testing.T) {
	f := newFixture(t)
	r := f.start(t, crewDef(), workflow.RunOptions{ID: "slowtask", StepTimeout: 20 * time.Millisecond})
	runner := &stuckMember{}
	got, err := workflow.DriveLed(ctx, f.e, f.tm, r.ID, "driver", runner, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !runner.stopped.Load() {
		t.Fatal("the task's context did not end")
	}
	tasks, err := f.tm.ListTasks(ctx, got.Team, teammanager.TaskFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != workflow.RunCompleted || len(tasks) != 1 || tasks[0].Status != teammanager.TaskFailed ||
		tasks[0].Error != "timed out after 20ms" {
		t.Fatalf("run %s (%q), tasks %+v", got.Status, got.Error, tasks)
	}
}

// TestDriveLed_TeamDeletedWhileDriven: a crew's team disbanded (and
// deleted) while a member runs a task, or while the lead takes its turn:
// the driver itself ends the run as failed, "team T was disbanded" or
// "team T was deleted" (as the next drive would), instead of stopping on
// the missing or read-only team with the run left open (or failing the
// turn as if the lead had erred).
func TestDriveLed_TeamDeletedWhileDriven(t *testing.T) {
	for _, tc := range []struct {
		during string
		delete bool // or only disband
	}{{"task", true}, {"lead", true}, {"task", false}, {"lead", false}} {
		during, how := tc.during, "deleted"
		if !tc.delete {
			how = "disbanded"
		}
		t.Run(during+"-"+how, func(t *testing.T) {
			f := newFixture(t)
			r := f.start(t, crewDef(), workflow.RunOptions{ID: "gone"})
			remove := func() error {
				if _, err := f.tm.DisbandTeam(ctx, r.Team); err != nil || !tc.delete {
					return err
				}
				return f.tm.DeleteTeam(ctx, r.Team)
			}
			runner := &ledRunner{
				lead: func(turn workflow.LeadTurn) ([]workflow.LeadOp, error) {
					if during == "lead" {
						if err := remove(); err != nil {
							return nil, err
						}
					}
					return []workflow.LeadOp{{Op: workflow.OpCreate, Subject: "build", Assignee: "backend"}}, nil
				},
				task: func(w workflow.TaskWork) (workflow.TaskResult, error) {
					if err := remove(); err != nil {
						return workflow.TaskResult{}, err
					}
					return workflow.TaskResult{Result: "built"}, nil
				},
			}
			got, err := workflow.DriveLed(ctx, f.e, f.tm, r.ID, "driver", runner, 1)
			want := "team " + r.Team + " was " + how
			if err != nil || got.Status != workflow.RunFailed || got.Error != want {
				t.Fatalf("DriveLed: run %s (%q), %v; want failed (%q), nil", got.Status, got.Error, err, want)
			}
			got = f.get(t, r.ID)
			if s := got.Steps[0]; during == "lead" && (s.Status != workflow.StepFailed || s.Reason != want) {
				t.Fatalf("turn 1 %s (%q), want failed (%q)", s.Status, s.Reason, want)
			}
			if got.Status != workflow.RunFailed || got.Driver != nil {
				t.Fatalf("stored run %s, driver %+v; want failed, let go", got.Status, got.Driver)
			}
		})
	}
}

// TestDriveLed_RefusedResult_WritesNothingOfIt: a member's result is
// recorded all or nothing. When a part of it is refused (a crew
// specialist's new task, or a swarm member's second new task), the task
// fails and nothing of the result is written: not its findings, not the
// new tasks before the refused one.
func TestDriveLed_RefusedResult_WritesNothingOfIt(t *testing.T) {
	swarm := workflow.Def{Name: "triage", Type: workflow.Swarm, Lead: "lead", Agents: []string{"lead", "t1"}, MaxTurns: 6}
	for _, tc := range []struct {
		name   string
		def    workflow.Def
		create workflow.LeadOp
		tasks  []teammanager.NewTask
		reason string
	}{
		{"crew specialist delegates", crewDef(), workflow.LeadOp{Op: workflow.OpCreate, Subject: "build", Assignee: "backend"},
			[]teammanager.NewTask{{Subject: "you test it", Assignee: "qa"}}, "specialists cannot delegate"},
		{"swarm second new task invalid", swarm, workflow.LeadOp{Op: workflow.OpCreate, Subject: "scan"},
			[]teammanager.NewTask{{Subject: "follow up"}, {Subject: "after nothing", BlockedBy: []string{"T99"}}}, "new task 2 (after nothing)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			r := f.start(t, tc.def, workflow.RunOptions{ID: "refused"})
			runner := &ledRunner{
				lead: func(turn workflow.LeadTurn) ([]workflow.LeadOp, error) {
					if turn.Turn == 1 {
						return []workflow.LeadOp{tc.create}, nil
					}
					return []workflow.LeadOp{{Op: workflow.OpDone}}, nil
				},
				task: func(w workflow.TaskWork) (workflow.TaskResult, error) {
					if w.Task.ID != "T1" {
						return workflow.TaskResult{}, fmt.Errorf("task %s ran", w.Task.ID)
					}
					return workflow.TaskResult{Result: "half",
						Findings: []teammanager.Finding{finding(w.Member.ID, "did", quad.String(w.Task.ID))},
						Tasks:    tc.tasks}, nil
				},
			}
			if _, err := workflow.DriveLed(ctx, f.e, f.tm, r.ID, "driver", runner, 1); err != nil {
				t.Fatal(err)
			}
			tasks, err := f.tm.ListTasks(ctx, r.Team, teammanager.TaskFilter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(tasks) != 1 || tasks[0].Status != teammanager.TaskFailed || !strings.Contains(tasks[0].Error, tc.reason) {
				t.Fatalf("tasks %+v, want T1 failed (%s), and no other", tasks, tc.reason)
			}
			fs, err := f.tm.Findings(ctx, r.Team, teammanager.FindingFilter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(fs) != 0 {
				t.Fatalf("findings %+v of a refused result written", fs)
			}
		})
	}
}
