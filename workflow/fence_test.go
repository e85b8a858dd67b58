package workflow_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/teammanager"
	"github.com/cortexgraph/cortex/workflow"
)

// TestDriveLed_ActsOnlyWhileItHolds: a driver whose lease ends (on the
// store's clock) while its lead works, or while a member's task runs, or
// whose run another driver takes meanwhile, does not act on the run: what
// the lead answers or the member returns is not applied (the board gets
// no task, the task no result and no findings, the turn is not completed
// but given back) and the drive stops with ErrDriverBusy. The lease is an hour of real
// time, so no renewal runs during the test: only the fence stops the
// driver, before the renewal that would tell it.
func TestDriveLed_ActsOnlyWhileItHolds(t *testing.T) {
	const lease = time.Hour
	for _, tc := range []struct {
		name  string
		taken bool // another driver takes the run once the lease ended
		task  bool // the lease ends while a member's task runs (else the lead's turn)
	}{
		{"lead, lease ended", false, false},
		{"lead, lease ended and taken", true, false},
		{"task, lease ended", false, true},
		{"task, lease ended and taken", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			r := f.start(t, crewDef(), workflow.RunOptions{ID: "fenced", StepTimeout: -1})
			lapse := func() {
				f.clock.Advance(2 * lease)
				if tc.taken {
					if _, err := f.e.ClaimDriver(ctx, r.ID, workflow.NewDriver("other"), lease, ""); err != nil {
						t.Errorf("the other driver's claim once the lease ended: %v", err)
					}
				}
			}
			runner := &ledRunner{
				lead: func(turn workflow.LeadTurn) ([]workflow.LeadOp, error) {
					if turn.Turn == 1 && !tc.task {
						lapse()
					}
					return []workflow.LeadOp{{Op: workflow.OpCreate, Subject: "build", Assignee: "backend"}}, nil
				},
				task: func(workflow.TaskWork) (workflow.TaskResult, error) {
					lapse()
					return workflow.TaskResult{Result: "built", Findings: []teammanager.Finding{finding("backend", "built", iri("api"))}}, nil
				},
			}
			_, err := workflow.DriveLedWith(ctx, f.e, f.tm, r.ID, "driver", runner, workflow.LedOptions{Lease: lease})
			if !errors.Is(err, workflow.ErrDriverBusy) {
				t.Fatalf("drive: %v, want ErrDriverBusy", err)
			}
			tasks, err := f.tm.ListTasks(ctx, r.Team, teammanager.TaskFilter{})
			if err != nil {
				t.Fatal(err)
			}
			got := f.get(t, r.ID)
			turn1, _ := got.Step("turn-1/architect")
			if !tc.task {
				if len(tasks) != 0 {
					t.Errorf("the lead's answer after the lease ended was applied: %+v", tasks)
				}
				if turn1.Status != workflow.StepReady {
					t.Errorf("turn 1: %s, want ready (given back)", turn1.Status)
				}
				return
			}
			if len(tasks) != 1 || tasks[0].Status == teammanager.TaskInReview || tasks[0].Result != "" {
				t.Errorf("the member's result after the lease ended was recorded: %+v", tasks)
			}
			if fs, err := f.tm.Findings(ctx, r.Team, teammanager.FindingFilter{}); err != nil || len(fs) != 0 {
				t.Errorf("the member's findings after the lease ended: %+v, %v", fs, err)
			}
		})
	}
}

// TestEngine_DriverFence: a write made for a driver (WithDriver) of a
// crew run, through the Engine or the board (Engine.DriverCheck), goes
// through while the driver holds the run and is refused, with nothing
// written, once its lease has ended or another driver holds it; a
// renewal (ClaimDriver) and ReleaseStep are not fenced.
func TestEngine_DriverFence(t *testing.T) {
	f := newFixture(t)
	r := f.start(t, crewDef(), workflow.RunOptions{ID: "fence", StepTimeout: -1})
	me := workflow.NewDriver("me")
	if _, err := f.e.ClaimDriver(ctx, r.ID, me, time.Minute, ""); err != nil {
		t.Fatal(err)
	}
	dctx := teammanager.WithWriteCheck(workflow.WithDriver(ctx, r.ID, me.ID), f.e.DriverCheck(r.ID, me.ID))
	create := func(ctx context.Context) error {
		_, err := f.tm.CreateTask(ctx, r.Team, "architect", teammanager.NewTask{Subject: "x"})
		return err
	}
	if err := create(dctx); err != nil {
		t.Fatalf("a board write while the driver holds the run: %v", err)
	}
	attempt, err := f.e.StartStep(dctx, r.ID, "turn-1/architect", "me")
	if err != nil {
		t.Fatalf("a run write while the driver holds the run: %v", err)
	}
	f.clock.Advance(time.Minute)
	if err := create(dctx); !errors.Is(err, workflow.ErrDriverBusy) {
		t.Errorf("a board write once the lease ended: %v, want ErrDriverBusy", err)
	}
	if err := f.e.CompleteStep(dctx, r.ID, "turn-1/architect", attempt, map[string]any{"done": false}); !errors.Is(err, workflow.ErrDriverBusy) {
		t.Errorf("a run write once the lease ended: %v, want ErrDriverBusy", err)
	}
	if _, err := f.e.AddFindings(dctx, r.ID, "turn-1/architect", attempt, []teammanager.Finding{finding("s", "p", iri("o"))}); !errors.Is(err, workflow.ErrDriverBusy) {
		t.Errorf("findings once the lease ended: %v, want ErrDriverBusy", err)
	}
	if tasks, _ := f.tm.ListTasks(ctx, r.Team, teammanager.TaskFilter{}); len(tasks) != 1 {
		t.Errorf("tasks: %d, want the one created while the driver held the run", len(tasks))
	}
	if s, _ := f.get(t, r.ID).Step("turn-1/architect"); s.Status != workflow.StepRunning || len(s.Findings) != 0 {
		t.Errorf("turn 1 after the refused writes: %+v", s)
	}
	// A renewal while nobody else claimed the run: the driver acts again.
	if _, err := f.e.ClaimDriver(dctx, r.ID, me, time.Minute, ""); err != nil {
		t.Fatalf("renewal: %v", err)
	}
	if err := create(dctx); err != nil {
		t.Errorf("a board write after the renewal: %v", err)
	}
	// Taken over: refused, but the driver may still give its turn back.
	if _, err := f.e.ClaimDriver(ctx, r.ID, workflow.NewDriver("other"), time.Minute, me.ID); err != nil {
		t.Fatal(err)
	}
	if err := create(dctx); !errors.Is(err, workflow.ErrDriverBusy) {
		t.Errorf("a board write once taken over: %v, want ErrDriverBusy", err)
	}
	if err := f.e.ReleaseStep(dctx, r.ID, "turn-1/architect", attempt, "stopped"); err != nil {
		t.Errorf("release once taken over: %v", err)
	}
}

// wrappedPull is a Pull that is not an *Engine: it works through one, as
// a host's own wrapper (logging, metrics) would.
type wrappedPull struct{ workflow.Pull }

// TestDriveLed_FencedThroughAnyPull: the board's writes of a driver are
// fenced whatever implements its Pull, not only when it is an *Engine: a
// driver through a wrapper of an Engine whose lease ends while its lead
// works, or while a member's task runs, applies nothing of either.
func TestDriveLed_FencedThroughAnyPull(t *testing.T) {
	const lease = time.Hour
	for _, duringTask := range []bool{false, true} {
		t.Run(map[bool]string{false: "lead", true: "task"}[duringTask], func(t *testing.T) {
			f := newFixture(t)
			r := f.start(t, crewDef(), workflow.RunOptions{ID: "wrapped", StepTimeout: -1})
			runner := &ledRunner{
				lead: func(turn workflow.LeadTurn) ([]workflow.LeadOp, error) {
					if turn.Turn == 1 && !duringTask {
						f.clock.Advance(2 * lease)
					}
					return []workflow.LeadOp{{Op: workflow.OpCreate, Subject: "build", Assignee: "backend"}}, nil
				},
				task: func(workflow.TaskWork) (workflow.TaskResult, error) {
					f.clock.Advance(2 * lease)
					return workflow.TaskResult{Result: "built", Findings: []teammanager.Finding{finding("backend", "built", iri("api"))}}, nil
				},
			}
			_, err := workflow.DriveLedWith(ctx, wrappedPull{f.e}, f.tm, r.ID, "driver", runner, workflow.LedOptions{Lease: lease})
			if !errors.Is(err, workflow.ErrDriverBusy) {
				t.Fatalf("drive: %v, want ErrDriverBusy", err)
			}
			tasks, err := f.tm.ListTasks(ctx, r.Team, teammanager.TaskFilter{})
			if err != nil {
				t.Fatal(err)
			}
			if !duringTask {
				if len(tasks) != 0 {
					t.Fatalf("the lead's answer after the lease ended was applied: %+v", tasks)
				}
				return
			}
			if len(tasks) != 1 || tasks[0].Status == teammanager.TaskInReview || tasks[0].Result != "" {
				t.Errorf("the member's result after the lease ended was recorded: %+v", tasks)
			}
			if fs, err := f.tm.Findings(ctx, r.Team, teammanager.FindingFilter{}); err != nil || len(fs) != 0 {
				t.Errorf("the member's findings after the lease ended: %+v, %v", fs, err)
			}
		})
	}
}

// unfencedPull is a Pull whose DriverCheck gives no check.
type unfencedPull struct{ workflow.Pull }

func (unfencedPull) DriverCheck(string, string) teammanager.WriteCheck { return nil }

// TestDriveLed_NoFenceRefused: a Pull that gives no check for the board's
// writes (DriverCheck returns nil) is refused before the driver claims
// anything (ErrInvalidRun): its board writes would not be fenced.
func TestDriveLed_NoFenceRefused(t *testing.T) {
	f := newFixture(t)
	r := f.start(t, crewDef(), workflow.RunOptions{ID: "unfenced", StepTimeout: -1})
	runner := &ledRunner{
		lead: func(workflow.LeadTurn) ([]workflow.LeadOp, error) {
			return []workflow.LeadOp{{Op: workflow.OpCreate, Subject: "build", Assignee: "backend"}}, nil
		},
		task: func(workflow.TaskWork) (workflow.TaskResult, error) { return workflow.TaskResult{Result: "built"}, nil },
	}
	dctx, cancel := context.WithTimeout(ctx, time.Minute) // a guard: the drive is refused at once
	defer cancel()
	if _, err := workflow.DriveLedWith(dctx, unfencedPull{f.e}, f.tm, r.ID, "driver", runner, workflow.LedOptions{}); !errors.Is(err, workflow.ErrInvalidRun) {
		t.Fatalf("drive: %v, want ErrInvalidRun", err)
	}
	if tasks, err := f.tm.ListTasks(ctx, r.Team, teammanager.TaskFilter{}); err != nil || len(tasks) != 0 {
		t.Fatalf("tasks %+v, %v; want none", tasks, err)
	}
	if got := f.get(t, r.ID); got.Driver != nil {
		t.Fatalf("driver %+v, want none", got.Driver)
	}
}
