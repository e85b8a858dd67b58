package workflow_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/teammanager"
	"github.com/cortexgraph/cortex/workflow"
)

// turnHookBoard is a Board that calls before before each ApplyBoardOps
// of the Manager (the write of a lead's turn), and after once it has
// returned without error.
type turnHookBoard struct {
	*teammanager.Manager
	before, after func()
}

func (b *turnHookBoard) ApplyBoardOps(ctx context.Context, team, lead string, ops []teammanager.BoardOp) ([]teammanager.BoardOpResult, error) {
	if b.before != nil {
		b.before()
	}
	res, err := b.Manager.ApplyBoardOps(ctx, team, lead, ops)
	if err == nil && b.after != nil {
		b.after()
	}
	return res, err
}

// TestDriveLed_PlanOpAllOrNothing: the lead's plan operation (draft and
// submit) is in the turn's one write: a driver that loses its run before
// it is refused and leaves no revision; one that loses it once the turn's
// write is made leaves the revision submitted (pending review). No interleaving leaves
// an unsubmitted draft, which nothing would submit (the next turn's lead
// sees a draft it did not make as its plan).
func TestDriveLed_PlanOpAllOrNothing(t *testing.T) {
	const lease = time.Hour
	for _, tc := range []struct {
		name       string
		afterDraft bool // the run is taken over once the turn's write is made (else while the lead works)
		want       []teammanager.PlanState
	}{
		{"taken over before the plan", false, nil},
		{"taken over after the turn's write", true, []teammanager.PlanState{teammanager.PlanPendingReview}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			d := crewDef()
			d.PlanApproval = true
			r := f.start(t, d, workflow.RunOptions{ID: "planned", StepTimeout: -1})
			takeOver := func() {
				run := f.get(t, r.ID)
				if run.Driver == nil {
					t.Errorf("no driver holds the run")
					return
				}
				if _, err := f.e.ClaimDriver(ctx, r.ID, workflow.NewDriver("other"), lease, run.Driver.ID); err != nil {
					t.Errorf("takeover: %v", err)
				}
			}
			runner := &ledRunner{lead: func(workflow.LeadTurn) ([]workflow.LeadOp, error) {
				if !tc.afterDraft {
					takeOver()
				}
				return []workflow.LeadOp{{Op: workflow.OpPlan, Title: "ship it", Steps: []teammanager.PlanStep{{Title: "build"}}}}, nil
			}}
			b := &turnHookBoard{Manager: f.tm, after: func() {
				if tc.afterDraft {
					takeOver()
				}
			}}
			_, err := workflow.DriveLedWith(ctx, f.e, b, r.ID, "driver", runner, workflow.LedOptions{Lease: lease})
			if !errors.Is(err, workflow.ErrDriverBusy) {
				t.Fatalf("drive: %v, want ErrDriverBusy", err)
			}
			revs, err := f.tm.PlanRevisions(ctx, r.Team)
			if err != nil {
				t.Fatal(err)
			}
			var got []teammanager.PlanState
			for _, p := range revs {
				got = append(got, p.State)
			}
			if len(got) != len(tc.want) || len(got) > 0 && got[0] != tc.want[0] {
				t.Fatalf("plan revisions %v, want %v", got, tc.want)
			}
			if s, _ := f.get(t, r.ID).Step("turn-1/architect"); s.Status != workflow.StepReady {
				t.Errorf("turn 1: %s, want ready (given back)", s.Status)
			}
		})
	}
}

// TestDriveLed_StoppedWhileTurnApplies: a driver whose ctx ends while it
// applies its lead's answer (once the lead has answered, before the
// turn's write) applies the answer whole and completes the turn, then
// stops with ctx's error: it does not give back a turn its lead answered,
// which the next driver's lead would answer again, creating the tasks
// twice. It goes on renewing its hold of the run until the
// answer is applied, however long that takes ("slow"): it stopped renewing
// when ctx ended, so an answer still being applied once the lease ran out
// had its next write refused (the driver no longer held the run).
func TestDriveLed_StoppedWhileTurnApplies(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lease time.Duration
		slow  bool // the rest of the answer takes longer than the lease to apply
	}{
		{"stopped", time.Hour, false},
		{"stopped, the rest slower than the lease", 300 * time.Millisecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			r := f.start(t, crewDef(), workflow.RunOptions{ID: "stopped", StepTimeout: -1})
			dctx, cancel := context.WithCancel(ctx)
			defer cancel()
			runner := &ledRunner{lead: func(workflow.LeadTurn) ([]workflow.LeadOp, error) {
				return []workflow.LeadOp{
					{Op: workflow.OpCreate, Subject: "build", Assignee: "backend"},
					{Op: workflow.OpCreate, Subject: "test", Assignee: "qa"},
				}, nil
			}}
			first := true
			b := &turnHookBoard{Manager: f.tm, before: func() {
				if first {
					first = false
					cancel()
					if tc.slow {
						// Past the lease on the engine's clock; meanwhile
						// a driver renews its hold (every third of the
						// lease, in real time).
						f.clock.Advance(3 * tc.lease)
						time.Sleep(3 * tc.lease)
					}
				}
			}}
			_, err := workflow.DriveLedWith(dctx, f.e, b, r.ID, "driver", runner, workflow.LedOptions{Lease: tc.lease})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("drive: %v, want context.Canceled", err)
			}
			tasks, err := f.tm.ListTasks(ctx, r.Team, teammanager.TaskFilter{})
			if err != nil {
				t.Fatal(err)
			}
			turn1, _ := f.get(t, r.ID).Step("turn-1/architect")
			if len(tasks) != 2 || turn1.Status != workflow.StepCompleted {
				t.Fatalf("after a stop while the turn applied: %d task(s), turn 1 %s; want both tasks and the turn completed", len(tasks), turn1.Status)
			}
		})
	}
}

// flakyBoard is a Board whose ApplyBoardOps fails as a board behind a
// server that could not be reached would.
type flakyBoard struct {
	*teammanager.Manager
}

var errUnreachable = errors.New("connection reset by peer")

func (b *flakyBoard) ApplyBoardOps(context.Context, string, string, []teammanager.BoardOp) ([]teammanager.BoardOpResult, error) {
	return nil, errUnreachable
}

// TestDriveLed_BoardErrorIsTheDrivers: an error applying the lead's
// operations that is not the board's refusal of one (the store's, or a
// server that could not be reached) is the driver's, not the lead's: the
// turn goes back (ready, for the next drive), nothing of it written, and
// the driver stops with the error. It failed the turn, and with it the
// whole run.
func TestDriveLed_BoardErrorIsTheDrivers(t *testing.T) {
	f := newFixture(t)
	r := f.start(t, crewDef(), workflow.RunOptions{ID: "flaky", StepTimeout: -1})
	runner := &ledRunner{lead: func(workflow.LeadTurn) ([]workflow.LeadOp, error) {
		return []workflow.LeadOp{
			{Op: workflow.OpCreate, Subject: "build", Assignee: "backend"},
			{Op: workflow.OpCreate, Subject: "test", Assignee: "qa"},
		}, nil
	}}
	got, err := workflow.DriveLedWith(ctx, f.e, &flakyBoard{Manager: f.tm}, r.ID, "driver", runner, workflow.LedOptions{})
	if !errors.Is(err, errUnreachable) {
		t.Fatalf("drive: %v, want the board's error", err)
	}
	turn1, _ := got.Step("turn-1/architect")
	if got.Status.Finished() || turn1.Status != workflow.StepReady {
		t.Fatalf("run %s %q, turn 1 %s; want the run going on, the turn given back", got.Status, got.Error, turn1.Status)
	}
	if tasks, err := f.tm.ListTasks(ctx, r.Team, teammanager.TaskFilter{}); err != nil || len(tasks) != 0 {
		t.Fatalf("tasks %+v, %v; want none of the turn written", tasks, err)
	}
}

// takeoverBoard is a Board that has run id taken over by another driver
// in the middle of the lead's turn: after its first CreateTask, or before
// its ApplyBoardOps (the turn's one write), whichever comes first.
type takeoverBoard struct {
	*teammanager.Manager
	f    *fixture
	t    *testing.T
	run  string
	done bool
}

func (b *takeoverBoard) takeOver() {
	if b.done {
		return
	}
	b.done = true
	r := b.f.get(b.t, b.run)
	if r.Driver == nil {
		b.t.Errorf("no driver holds the run")
		return
	}
	if _, err := b.f.e.ClaimDriver(ctx, b.run, workflow.NewDriver("other"), time.Hour, r.Driver.ID); err != nil {
		b.t.Errorf("takeover: %v", err)
	}
}

func (b *takeoverBoard) CreateTask(ctx context.Context, team, by string, nt teammanager.NewTask) (teammanager.Task, error) {
	t, err := b.Manager.CreateTask(ctx, team, by, nt)
	b.takeOver()
	return t, err
}

func (b *takeoverBoard) ApplyBoardOps(ctx context.Context, team, lead string, ops []teammanager.BoardOp) ([]teammanager.BoardOpResult, error) {
	b.takeOver()
	return b.Manager.ApplyBoardOps(ctx, team, lead, ops)
}

// TestDriveLed_LostHoldWritesNothingOfTheTurn: the lead's operations are
// applied in one write, fenced by the driver's hold in that write: a
// driver whose run is taken over while it applies its lead's answer
// writes nothing of it (the lead's operations were several writes, each
// fenced: a takeover between two left the first task written, and the
// next driver's lead, seeing it, answered the turn again), gives the turn
// back and stops with ErrDriverBusy.
func TestDriveLed_LostHoldWritesNothingOfTheTurn(t *testing.T) {
	f := newFixture(t)
	r := f.start(t, crewDef(), workflow.RunOptions{ID: "taken", StepTimeout: -1})
	runner := &ledRunner{lead: func(workflow.LeadTurn) ([]workflow.LeadOp, error) {
		return []workflow.LeadOp{
			{Op: workflow.OpCreate, Subject: "build", Assignee: "backend", Ref: "b"},
			{Op: workflow.OpCreate, Subject: "test", Assignee: "qa", BlockedBy: []string{"b"}},
		}, nil
	}}
	b := &takeoverBoard{Manager: f.tm, f: f, t: t, run: r.ID}
	_, err := workflow.DriveLedWith(ctx, f.e, b, r.ID, "driver", runner, workflow.LedOptions{Lease: time.Hour})
	if !errors.Is(err, workflow.ErrDriverBusy) {
		t.Fatalf("drive: %v, want ErrDriverBusy", err)
	}
	if tasks, err := f.tm.ListTasks(ctx, r.Team, teammanager.TaskFilter{}); err != nil || len(tasks) != 0 {
		t.Fatalf("tasks %+v, %v; want none of the turn written", tasks, err)
	}
	if s, _ := f.get(t, r.ID).Step("turn-1/architect"); s.Status != workflow.StepReady {
		t.Errorf("turn 1: %s, want ready (given back)", s.Status)
	}
}

// TestDriveLed_RefsResolveInTheTurn: a ref names the task created under it
// for the operations after it in the same turn, resolved in the turn's
// write: as a blocked_by, and as the task of a control (the lead creates
// a draft and a final task blocked by it, then skips the draft: the final
// task goes ahead).
func TestDriveLed_RefsResolveInTheTurn(t *testing.T) {
	f := newFixture(t)
	r := f.start(t, crewDef(), workflow.RunOptions{ID: "refs", StepTimeout: -1})
	runner := &ledRunner{
		lead: func(turn workflow.LeadTurn) ([]workflow.LeadOp, error) {
			if turn.Turn == 1 {
				return []workflow.LeadOp{
					{Op: workflow.OpCreate, Subject: "draft", Assignee: "backend", Ref: "d"},
					{Op: workflow.OpCreate, Subject: "final", Assignee: "qa", BlockedBy: []string{"d"}},
					{Op: workflow.OpSkip, Task: "d", Reason: "not needed after all"},
				}, nil
			}
			var ops []workflow.LeadOp
			open := false
			for _, t := range turn.Tasks {
				if t.Status == teammanager.TaskInReview {
					ops = append(ops, workflow.LeadOp{Op: workflow.OpApprove, Task: t.ID})
				}
				open = open || !t.Status.Finished()
			}
			if len(ops) == 0 && !open {
				ops = append(ops, workflow.LeadOp{Op: workflow.OpDone})
			}
			return ops, nil
		},
		task: func(w workflow.TaskWork) (workflow.TaskResult, error) {
			return workflow.TaskResult{Result: w.Task.Subject + " done"}, nil
		},
	}
	got, err := workflow.DriveLed(ctx, f.e, f.tm, r.ID, "driver", runner, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != workflow.RunCompleted {
		t.Fatalf("run %s %q, want completed", got.Status, got.Error)
	}
	tasks, err := f.tm.ListTasks(ctx, r.Team, teammanager.TaskFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 2 || !tasks[0].Skipped || tasks[1].Status != teammanager.TaskCompleted ||
		len(tasks[1].BlockedBy) != 1 || tasks[1].BlockedBy[0] != tasks[0].ID {
		t.Fatalf("tasks %+v; want the draft skipped, the final task, blocked by it, completed", tasks)
	}
}
