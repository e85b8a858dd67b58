package workflow_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/teammanager"
	"github.com/cortexgraph/cortex/workflow"
)

// TestClaimDriver: the rules of a run's driver, one by one.
func TestClaimDriver(t *testing.T) {
	f := newFixture(t)
	r := f.start(t, crewDef(), workflow.RunOptions{ID: "held"})
	a := workflow.Driver{ID: "a", Actor: "A", Host: "h", PID: 7}
	b := workflow.Driver{ID: "b", Actor: "B"}
	claim := func(d workflow.Driver, ttl time.Duration, replace string) (workflow.Run, error) {
		t.Helper()
		return f.e.ClaimDriver(ctx, r.ID, d, ttl, replace)
	}
	busy := func(step string, err error, holder string) {
		t.Helper()
		var be *workflow.DriverBusyError
		if !errors.As(err, &be) || !errors.Is(err, workflow.ErrDriverBusy) || be.Holder.ID != holder {
			t.Fatalf("%s: %v, want the run busy with driver %s", step, err, holder)
		}
	}
	holder := func(step, want string) {
		t.Helper()
		got, err := f.e.Get(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if id := ""; got.Driver != nil && got.Driver.ID != want || got.Driver == nil && want != id {
			t.Fatalf("%s: driver %+v, want %q", step, got.Driver, want)
		}
	}

	got, err := claim(a, 10*time.Second, "")
	if err != nil || got.Driver == nil || *got.Driver != (workflow.Driver{ID: "a", Actor: "A", Host: "h", PID: 7, Until: f.clock.Now().Add(10 * time.Second)}) {
		t.Fatalf("free run: %+v, %v", got.Driver, err)
	}
	_, err = claim(b, time.Hour, "")
	busy("another driver while the lease lasts", err, "a")
	holder("after the refusal", "a")

	f.clock.Advance(5 * time.Second)
	if got, err = claim(a, 10*time.Second, ""); err != nil || !got.Driver.Until.Equal(f.clock.Now().Add(10*time.Second)) {
		t.Fatalf("renewal: %+v, %v", got.Driver, err)
	}
	f.clock.Advance(9 * time.Second) // 1 s before the renewed lease ends
	_, err = claim(b, time.Hour, "")
	busy("before the renewed lease ends", err, "a")
	f.clock.Advance(time.Second)
	if _, err := claim(b, time.Hour, ""); err != nil {
		t.Fatalf("once the lease has ended: %v", err)
	}
	holder("taken after the lease", "b")

	// a lost the run to b: from now on a new driver, a2 (a is refused:
	// TestClaimDriver_EndedHoldNotReclaimed).
	a2 := workflow.Driver{ID: "a2", Actor: "A"}
	_, err = claim(a2, time.Hour, "c")
	busy("replacing a driver that does not hold the run", err, "b")
	if _, err := claim(a2, time.Hour, "b"); err != nil {
		t.Fatalf("takeover of b: %v", err)
	}
	if err := f.e.ReleaseDriver(ctx, r.ID, "b"); err != nil {
		t.Fatal(err)
	}
	holder("let go of by a driver that does not hold it", "a2")
	if err := f.e.ReleaseDriver(ctx, r.ID, "a2"); err != nil {
		t.Fatal(err)
	}
	holder("let go of", "")
	if _, err := claim(workflow.Driver{ID: "d", Actor: "D"}, time.Hour, ""); err != nil {
		t.Fatalf("after the holder let go: %v", err)
	}

	for name, tc := range map[string]struct {
		d   workflow.Driver
		ttl time.Duration
	}{
		"no id":       {workflow.Driver{Actor: "A"}, time.Hour},
		"no actor":    {workflow.Driver{ID: "x"}, time.Hour},
		"no lease":    {workflow.Driver{ID: "x", Actor: "A"}, 0},
		"lease below": {workflow.Driver{ID: "x", Actor: "A"}, -time.Second},
	} {
		if _, err := claim(tc.d, tc.ttl, ""); !errors.Is(err, workflow.ErrInvalidRun) {
			t.Errorf("%s: %v, want ErrInvalidRun", name, err)
		}
	}
	holder("after the invalid claims", "d")

	dag := f.start(t, graphDef(), workflow.RunOptions{ID: "dag"})
	if _, err := f.e.ClaimDriver(ctx, dag.ID, a, time.Hour, ""); !errors.Is(err, workflow.ErrInvalidRun) {
		t.Errorf("a graph run: %v, want ErrInvalidRun", err)
	}
	if _, err := f.e.ClaimDriver(ctx, "nope", a, time.Hour, ""); !errors.Is(err, workflow.ErrUnknownRun) {
		t.Errorf("an unknown run: %v, want ErrUnknownRun", err)
	}
	if _, err := f.e.Cancel(ctx, r.ID, "op"); err != nil {
		t.Fatal(err)
	}
	if _, err := claim(a, time.Hour, ""); !errors.Is(err, workflow.ErrRunFinished) {
		t.Errorf("a finished run: %v, want ErrRunFinished", err)
	}
	if err := f.e.ReleaseDriver(ctx, r.ID, "d"); err != nil {
		t.Fatalf("letting go of a finished run: %v", err)
	}
	holder("finished and let go of", "")
}

// blockingRunner is a crew whose lead creates one task for backend and
// approves it; the task waits for release (or its context) and says when
// it started.
type blockingRunner struct {
	started chan struct{}
	release chan struct{}
	calls   int
}

func newBlockingRunner() *blockingRunner {
	return &blockingRunner{started: make(chan struct{}, 10), release: make(chan struct{})}
}

func (r *blockingRunner) Lead(_ context.Context, turn workflow.LeadTurn) ([]workflow.LeadOp, error) {
	r.calls++
	if len(turn.Tasks) == 0 {
		return []workflow.LeadOp{{Op: workflow.OpCreate, Subject: "build", Assignee: "backend"}}, nil
	}
	return reviewAll(turn), nil
}

func (r *blockingRunner) Task(ctx context.Context, _ workflow.TaskWork) (workflow.TaskResult, error) {
	r.started <- struct{}{}
	select {
	case <-r.release:
		return workflow.TaskResult{Result: "built"}, nil
	case <-ctx.Done():
		return workflow.TaskResult{}, ctx.Err()
	}
}

// TestDriveLed_OneDriverAtATime: while a driver runs a crew's task, a
// second driver of the run is refused and runs nothing, the task is not
// run twice; the first finishes the run and lets go of it.
func TestDriveLed_OneDriverAtATime(t *testing.T) {
	f := newFixture(t)
	r := f.start(t, crewDef(), workflow.RunOptions{ID: "one"})
	first := newBlockingRunner()
	type result struct {
		run workflow.Run
		err error
	}
	done := make(chan result, 1)
	go func() {
		run, err := workflow.DriveLed(ctx, f.e, f.tm, r.ID, "first", first, 1)
		done <- result{run, err}
	}()
	<-first.started

	second := newBlockingRunner()
	_, err := workflow.DriveLed(ctx, f.e, f.tm, r.ID, "second", second, 1)
	var be *workflow.DriverBusyError
	if !errors.As(err, &be) || be.Holder.Actor != "first" || be.Holder.PID != os.Getpid() {
		t.Fatalf("second driver: %v, want the run busy with the first", err)
	}
	if second.calls != 0 || len(second.started) != 0 {
		t.Fatalf("the refused driver ran %d turns and %d tasks", second.calls, len(second.started))
	}
	close(first.release)
	res := <-done
	if res.err != nil || res.run.Status != workflow.RunCompleted {
		t.Fatalf("first driver: %s, %v", res.run.Status, res.err)
	}
	tk, err := f.tm.GetTask(ctx, r.Team, "T1")
	if err != nil || tk.Dispatches != 1 || tk.Status != teammanager.TaskCompleted {
		t.Fatalf("T1: %+v, %v", tk, err)
	}
	if got, err := f.e.Get(ctx, r.ID); err != nil || got.Driver != nil {
		t.Fatalf("after the drive: driver %+v, %v", got.Driver, err)
	}
}

// deadPID returns the pid of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "XXX")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestDriveLed_TakeOver: a driver takes a run at once from a holder whose
// process on this host is gone; not from a live one, nor from one of
// another host, unless told to take over.
func TestDriveLed_TakeOver(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Skipf("no host name: %v", err)
	}
	for _, tc := range []struct {
		name     string
		holder   workflow.Driver
		takeover bool
		taken    bool
	}{
		{"dead process, this host", workflow.Driver{Host: host, PID: deadPID(t)}, false, true},
		{"live process, this host", workflow.Driver{Host: host, PID: os.Getpid()}, false, false},
		{"live process, takeover", workflow.Driver{Host: host, PID: os.Getpid()}, true, true},
		{"another host", workflow.Driver{Host: host + "-other", PID: deadPID(t)}, false, false},
		{"another host, takeover", workflow.Driver{Host: host + "-other", PID: os.Getpid()}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			r := f.start(t, crewDef(), workflow.RunOptions{ID: "taken"})
			h := tc.holder
			h.ID, h.Actor = "old", "old-driver"
			if _, err := f.e.ClaimDriver(ctx, r.ID, h, time.Hour, ""); err != nil {
				t.Fatal(err)
			}
			runner := newBlockingRunner()
			close(runner.release)
			got, err := workflow.DriveLedWith(ctx, f.e, f.tm, r.ID, "new", runner, workflow.LedOptions{Takeover: tc.takeover})
			if !tc.taken {
				if !errors.Is(err, workflow.ErrDriverBusy) || runner.calls != 0 {
					t.Fatalf("%v after %d turns, want the run busy", err, runner.calls)
				}
				return
			}
			if err != nil || got.Status != workflow.RunCompleted {
				t.Fatalf("%s, %v, want the run taken and completed", got.Status, err)
			}
		})
	}
}

// TestDriveLed_LosesItsHold: a driver whose run another driver took over
// stops (its task's context ends) with ErrDriverBusy, leaving the task in
// progress for the new holder.
func TestDriveLed_LosesItsHold(t *testing.T) {
	f := newFixture(t)
	r := f.start(t, crewDef(), workflow.RunOptions{ID: "lost"})
	runner := newBlockingRunner()
	done := make(chan error, 1)
	go func() {
		_, err := workflow.DriveLedWith(ctx, f.e, f.tm, r.ID, "first", runner, workflow.LedOptions{Lease: 150 * time.Millisecond})
		done <- err
	}()
	<-runner.started
	got, err := f.e.Get(ctx, r.ID)
	if err != nil || got.Driver == nil {
		t.Fatalf("held: %+v, %v", got.Driver, err)
	}
	if _, err := f.e.ClaimDriver(ctx, r.ID, workflow.Driver{ID: "op", Actor: "operator"}, time.Hour, got.Driver.ID); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, workflow.ErrDriverBusy) {
		t.Fatalf("driver that lost its hold: %v, want ErrDriverBusy", err)
	}
	tk, err := f.tm.GetTask(ctx, r.Team, "T1")
	if err != nil || tk.Status != teammanager.TaskInProgress {
		t.Fatalf("T1: %+v, %v", tk, err)
	}
	if got, err := f.e.Get(ctx, r.ID); err != nil || got.Driver == nil || got.Driver.ID != "op" {
		t.Fatalf("after the takeover: %+v, %v", got.Driver, err)
	}
}

// TestClaimDriver_EndedHoldNotReclaimed: a driver whose hold of a run ended
// (another driver took it over, took it after its lease, or it let go) is
// refused with ErrDriverBusy when it claims the run again, even once the
// run is free: its renewal (DriveLed renews with the same driver) must
// tell it that it lost the run, not hand the run back to it silently.
func TestClaimDriver_EndedHoldNotReclaimed(t *testing.T) {
	for name, lose := range map[string]func(t *testing.T, f *fixture, run string){
		"replaced then let go": func(t *testing.T, f *fixture, run string) {
			if _, err := f.e.ClaimDriver(ctx, run, workflow.Driver{ID: "b", Actor: "B"}, time.Hour, "a"); err != nil {
				t.Fatalf("takeover by b: %v", err)
			}
			if err := f.e.ReleaseDriver(ctx, run, "b"); err != nil {
				t.Fatal(err)
			}
		},
		"lease ended, taken, let go": func(t *testing.T, f *fixture, run string) {
			f.clock.Advance(11 * time.Second)
			if _, err := f.e.ClaimDriver(ctx, run, workflow.Driver{ID: "b", Actor: "B"}, time.Hour, ""); err != nil {
				t.Fatalf("b after a's lease: %v", err)
			}
			if err := f.e.ReleaseDriver(ctx, run, "b"); err != nil {
				t.Fatal(err)
			}
		},
		"let go": func(t *testing.T, f *fixture, run string) {
			if err := f.e.ReleaseDriver(ctx, run, "a"); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			r := f.start(t, crewDef(), workflow.RunOptions{ID: "held"})
			a := workflow.Driver{ID: "a", Actor: "A"}
			if _, err := f.e.ClaimDriver(ctx, r.ID, a, 10*time.Second, ""); err != nil {
				t.Fatal(err)
			}
			lose(t, f, r.ID)
			if got, err := f.e.ClaimDriver(ctx, r.ID, a, 10*time.Second, ""); !errors.Is(err, workflow.ErrDriverBusy) {
				t.Fatalf("stale driver a claims again: driver %+v, %v; want ErrDriverBusy", got.Driver, err)
			}
			if got := f.get(t, r.ID); got.Driver != nil {
				t.Fatalf("after the stale claim: driver %+v, want none", got.Driver)
			}
			if _, err := f.e.ClaimDriver(ctx, r.ID, workflow.Driver{ID: "c", Actor: "C"}, time.Hour, ""); err != nil {
				t.Fatalf("a new driver: %v", err)
			}
		})
	}
}

// TestDriveLed_TinyLease: a lease shorter than 3 ns (renewed every third
// of it) drives the run as any other, instead of panicking on a ticker of
// no interval.
func TestDriveLed_TinyLease(t *testing.T) {
	for _, lease := range []time.Duration{time.Nanosecond, 2 * time.Nanosecond} {
		t.Run(lease.String(), func(t *testing.T) {
			f := newFixture(t)
			r := f.start(t, crewDef(), workflow.RunOptions{ID: "tiny"})
			runner := &ledRunner{
				lead: func(workflow.LeadTurn) ([]workflow.LeadOp, error) {
					return []workflow.LeadOp{{Op: workflow.OpDone, Summary: "nothing to do"}}, nil
				},
			}
			got, err := workflow.DriveLedWith(ctx, f.e, f.tm, r.ID, "driver", runner, workflow.LedOptions{Lease: lease})
			if err != nil || got.Status != workflow.RunCompleted {
				t.Fatalf("DriveLedWith, lease %s: %s, %v", lease, got.Status, err)
			}
		})
	}
}

// TestDriveLed_CancelledWhileATaskRuns: a run cancelled while its driver
// runs a task ends that drive as a cancelled run ends Drive: the task runs
// to its end and DriveLed returns the cancelled run with no error (it
// returned the board's refusal of the task's result, "team is finished").
func TestDriveLed_CancelledWhileATaskRuns(t *testing.T) {
	f := newFixture(t)
	r := f.start(t, crewDef(), workflow.RunOptions{ID: "cx"})
	runner := newBlockingRunner()
	type result struct {
		run workflow.Run
		err error
	}
	done := make(chan result, 1)
	go func() {
		got, err := workflow.DriveLed(ctx, f.e, f.tm, r.ID, "driver", runner, 1)
		done <- result{got, err}
	}()
	<-runner.started
	if _, err := f.e.Cancel(ctx, r.ID, "op"); err != nil {
		t.Fatal(err)
	}
	close(runner.release)
	got := <-done
	if got.err != nil || got.run.Status != workflow.RunCancelled {
		t.Fatalf("DriveLed of a run cancelled under it: %s, %v; want cancelled, no error", got.run.Status, got.err)
	}
}

// TestDriveLed_DeadDriversTurnTakenUp: a driver killed while its lead
// worked (its process gone, its hold never let go, its turn left running)
// is taken over at once by the next driver, which gives that turn back and
// runs it: the run completes. The turn used to stay running until its
// step timeout failed it, and with it the run (here, with no step timeout,
// the next driver waited forever).
func TestDriveLed_DeadDriversTurnTakenUp(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Skipf("no host name: %v", err)
	}
	for _, tc := range []struct {
		name   string
		holder workflow.Driver
		lapse  bool // the holder's lease ends (another host: never known dead)
	}{
		{"dead process, this host", workflow.Driver{Host: host, PID: deadPID(t)}, false},
		{"another host, lease ended", workflow.Driver{Host: host + "-other", PID: 1}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			r := f.start(t, crewDef(), workflow.RunOptions{ID: "orphan", StepTimeout: -1})
			h := tc.holder
			h.ID, h.Actor = "old", "old-driver"
			if _, err := f.e.ClaimDriver(ctx, r.ID, h, time.Minute, ""); err != nil {
				t.Fatal(err)
			}
			if _, err := f.e.StartStep(workflow.WithDriver(ctx, r.ID, h.ID), r.ID, "turn-1/architect", h.Actor); err != nil {
				t.Fatal(err)
			}
			if tc.lapse {
				f.clock.Advance(time.Hour)
			}
			runner := newBlockingRunner()
			close(runner.release)
			// Only a guard against waiting forever: the drive takes no
			// time.
			dctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			got, err := workflow.DriveLedWith(dctx, f.e, f.tm, r.ID, "new", runner, workflow.LedOptions{})
			if err != nil || got.Status != workflow.RunCompleted {
				t.Fatalf("%s, %v; want the run taken up and completed", got.Status, err)
			}
			if s, _ := got.Step("turn-1/architect"); s.Status != workflow.StepCompleted || s.Actor != "new" {
				t.Fatalf("turn 1: %s by %s, want completed by the new driver", s.Status, s.Actor)
			}
		})
	}
}

// TestClaimDriver_NotUTF8: a driver whose id, actor or host is not valid
// UTF-8 is refused (ErrInvalidRun) and nothing is written, as StartStep
// refuses such an actor: it was stored with U+FFFD in the run's row while
// the Engine that claimed kept it as given, so two Engines read two
// drivers, and the drive then failed at its first turn (StartStep).
func TestClaimDriver_NotUTF8(t *testing.T) {
	for name, d := range map[string]workflow.Driver{
		"id":    {ID: "d\xff", Actor: "A"},
		"actor": {ID: "d", Actor: "A\xff"},
		"host":  {ID: "d", Actor: "A", Host: "h\xff"},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			r := f.start(t, crewDef(), workflow.RunOptions{ID: "utf8"})
			if _, err := f.e.ClaimDriver(ctx, r.ID, d, time.Hour, ""); !errors.Is(err, workflow.ErrInvalidRun) {
				t.Fatalf("claim: %v, want ErrInvalidRun", err)
			}
			if got := f.get(t, r.ID); got.Driver != nil {
				t.Fatalf("driver %+v, want none", got.Driver)
			}
		})
	}
}
