package workflow_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/teammanager"
	"github.com/cortexgraph/cortex/workflow"
)

// draftHookBoard is a Board that calls after once each DraftPlan of the
// Manager has returned without error.
type draftHookBoard struct {
	*teammanager.Manager
	after func()
}

func (b *draftHookBoard) DraftPlan(ctx context.Context, team, by string, np teammanager.NewPlan) (teammanager.Plan, error) {
	p, err := b.Manager.DraftPlan(ctx, team, by, np)
	if err == nil {
		b.after()
	}
	return p, err
}

// TestDriveLed_PlanOpAllOrNothing: the lead's plan operation (draft and
// submit) is one write: a driver that loses its run before it is refused
// and leaves no revision; one that loses it once the plan's write is made
// leaves the revision submitted (pending review). No interleaving leaves
// an unsubmitted draft, which nothing would submit (the next turn's lead
// sees a draft it did not make as its plan).
func TestDriveLed_PlanOpAllOrNothing(t *testing.T) {
	const lease = time.Hour
	for _, tc := range []struct {
		name       string
		afterDraft bool // the run is taken over once the plan's draft is written (else while the lead works)
		want       []teammanager.PlanState
	}{
		{"taken over before the plan", false, nil},
		{"taken over after the plan's draft", true, []teammanager.PlanState{teammanager.PlanPendingReview}},
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
			b := &draftHookBoard{Manager: f.tm, after: func() {
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

// createHookBoard is a Board that calls after once each CreateTask of the
// Manager has returned.
type createHookBoard struct {
	*teammanager.Manager
	after func()
}

func (b *createHookBoard) CreateTask(ctx context.Context, team, by string, nt teammanager.NewTask) (teammanager.Task, error) {
	t, err := b.Manager.CreateTask(ctx, team, by, nt)
	b.after()
	return t, err
}

// TestDriveLed_StoppedWhileTurnApplies: a driver whose ctx ends while it
// applies its lead's answer (after the first of its operations) applies
// the answer whole and completes the turn, then stops with ctx's error:
// it does not give back a turn half applied (its first task created, the
// second not), which the next driver's lead would answer again, creating
// the first task twice. It goes on renewing its hold of the run until the
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
			b := &createHookBoard{Manager: f.tm, after: func() {
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

// flakyBoard is a Board whose second CreateTask fails as a board behind a
// server that could not be reached would.
type flakyBoard struct {
	*teammanager.Manager
	creates int
}

var errUnreachable = errors.New("connection reset by peer")

func (b *flakyBoard) CreateTask(ctx context.Context, team, by string, nt teammanager.NewTask) (teammanager.Task, error) {
	if b.creates++; b.creates == 2 {
		return teammanager.Task{}, errUnreachable
	}
	return b.Manager.CreateTask(ctx, team, by, nt)
}

// TestDriveLed_BoardErrorIsTheDrivers: an error applying the lead's
// operations that is not the board's refusal of one (the store's, or a
// server that could not be reached) is the driver's, not the lead's: the
// turn goes back (ready, for the next drive) and the driver stops with
// the error. It failed the turn, and with it the whole run.
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
}
