package workflow_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
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

// wideDef is a graph of n independent steps feeding a final join step,
// every step with its own agent among agents.
func wideDef(n, agents int) workflow.Def {
	d := workflow.Def{Name: "wide", Type: workflow.Graph}
	var deps []string
	for i := range n {
		name := fmt.Sprintf("s%02d", i)
		d.Steps = append(d.Steps, workflow.Step{Name: name, Agent: fmt.Sprintf("a%d", i%agents),
			Outputs: []workflow.Port{{Name: "n", Type: workflow.Number}}})
		deps = append(deps, name)
	}
	d.Steps = append(d.Steps, workflow.Step{Name: "join", Agent: "a0", DependsOn: deps})
	return d
}

func TestEngine_StartStep_OnceUnderConcurrency(t *testing.T) {
	f := newFixture(t)
	f.start(t, wideDef(4, 2), workflow.RunOptions{ID: "c"})
	var wins atomic.Int32
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.e.StartStep(ctx, "c", "s00", fmt.Sprint("g", g))
			switch {
			case err == nil:
				wins.Add(1)
			case !errors.Is(err, workflow.ErrInvalidTransition):
				t.Errorf("goroutine %d: %v", g, err)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d goroutines started the step, want 1", wins.Load())
	}
}

func TestEngine_Run_TwoDriversNeverStartAStepTwice(t *testing.T) {
	f := newFixture(t)
	f.start(t, wideDef(12, 3), workflow.RunOptions{ID: "two", Strategy: "additive"})
	var mu sync.Mutex
	runs := map[string]int{}
	runner := workflow.RunnerFunc(func(ctx context.Context, s workflow.ReadyStep) (map[string]any, []teammanager.Finding, error) {
		mu.Lock()
		runs[s.Step.Name]++
		mu.Unlock()
		if s.Step.Name == "join" {
			if len(s.Upstream) != 12 {
				return nil, nil, fmt.Errorf("join sees %d upstream facts, want 12", len(s.Upstream))
			}
			return nil, nil, nil
		}
		return map[string]any{"n": 1}, []teammanager.Finding{finding(s.Step.Name, "ran", quad.String("yes"))}, nil
	})
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for d := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[d] = f.e.RunAs(ctx, "two", fmt.Sprint("driver-", d), runner, 3)
		}()
	}
	wg.Wait()
	for d, err := range errs {
		if err != nil {
			t.Errorf("driver %d: %v", d, err)
		}
	}
	for name, n := range runs {
		if n != 1 {
			t.Errorf("step %s ran %d times", name, n)
		}
	}
	if len(runs) != 13 {
		t.Errorf("%d steps ran, want 13", len(runs))
	}
	r := f.get(t, "two")
	if r.Status != workflow.RunCompleted {
		t.Fatalf("run %s (%s)", r.Status, r.Error)
	}
	actors := map[string]bool{}
	for _, s := range r.Steps {
		actors[s.Actor] = true
	}
	t.Logf("actors: %v", actors)
}

func TestEngine_Run_FailureAndOutputs(t *testing.T) {
	f := newFixture(t)
	f.start(t, graphDef(), workflow.RunOptions{ID: "d"})
	r, err := f.e.Run(ctx, "d", workflow.RunnerFunc(func(ctx context.Context, s workflow.ReadyStep) (map[string]any, []teammanager.Finding, error) {
		switch s.Step.Name {
		case "analyze":
			return map[string]any{"summary": 42}, nil, nil // wrong type: the step fails
		case "security":
			return nil, nil, errors.New("scanner crashed")
		}
		return nil, nil, nil
	}), 2)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]workflow.StepStatus{"analyze": "failed", "security": "failed", "review": "skipped", "report": "skipped"}
	if r.Status != workflow.RunFailed || !equalMaps(statuses(r), want) {
		t.Fatalf("run %s %v", r.Status, statuses(r))
	}
	a, _ := r.Step("analyze")
	s, _ := r.Step("security")
	if !strings.Contains(a.Reason, "invalid output summary: want string, got number") || s.Reason != "scanner crashed" {
		t.Fatalf("reasons %q %q", a.Reason, s.Reason)
	}
}

func equalMaps[K comparable, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestEngine_Run_CancelledContextLeavesRunResumable stops a driver in the
// middle of a chain and resumes the run with another.
func TestEngine_Run_CancelledContextLeavesRunResumable(t *testing.T) {
	f := newFixture(t)
	d := workflow.Def{Name: "c", Type: workflow.Chain, Steps: []workflow.Step{{Name: "a", Agent: "x"}, {Name: "b", Agent: "y"}, {Name: "c", Agent: "x"}}}
	f.start(t, d, workflow.RunOptions{ID: "res"})
	cctx, cancel := context.WithCancel(ctx)
	started := make(chan struct{})
	first := workflow.RunnerFunc(func(ctx context.Context, s workflow.ReadyStep) (map[string]any, []teammanager.Finding, error) {
		if s.Step.Name == "b" {
			close(started)
			<-ctx.Done() // a long step, interrupted
			return nil, nil, ctx.Err()
		}
		return nil, nil, nil
	})
	go func() { <-started; cancel() }()
	r, err := f.e.RunAs(cctx, "res", "first", first, 1)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped driver: %v", err)
	}
	if got := statuses(r); got["a"] != workflow.StepCompleted || got["b"] != workflow.StepReady || got["c"] != workflow.StepPending {
		t.Fatalf("after the stop: %v, want a completed, b ready again, c pending", got)
	}
	var ran []string
	r, err = f.e.RunAs(ctx, "res", "second", workflow.RunnerFunc(func(ctx context.Context, s workflow.ReadyStep) (map[string]any, []teammanager.Finding, error) {
		ran = append(ran, s.Step.Name)
		return nil, nil, nil
	}), 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != workflow.RunCompleted || !slices.Equal(ran, []string{"b", "c"}) {
		t.Fatalf("resumed: %s, ran %v", r.Status, ran)
	}
	hist, err := f.e.History(ctx, "res")
	if err != nil {
		t.Fatal(err)
	}
	released := false
	for _, tr := range hist {
		if tr.Step == "b" && tr.From == "running" && tr.To == "ready" && tr.Actor == "first" {
			released = true
		}
	}
	if !released {
		t.Errorf("history lacks the release of b by the stopped driver: %+v", hist)
	}
}

// TestEngine_Run_CancelStopsRunners cancels the run while a driver runs
// one of its steps: the runner's context ends and the driver returns.
func TestEngine_Run_CancelStopsRunners(t *testing.T) {
	f := newFixture(t)
	f.start(t, graphDef(), workflow.RunOptions{ID: "cx"})
	inStep := make(chan struct{}, 2)
	done := make(chan error, 1)
	go func() {
		_, err := f.e.RunAs(ctx, "cx", "drv", workflow.RunnerFunc(func(ctx context.Context, s workflow.ReadyStep) (map[string]any, []teammanager.Finding, error) {
			inStep <- struct{}{}
			<-ctx.Done()
			return nil, nil, ctx.Err()
		}), 2)
		done <- err
	}()
	<-inStep
	if _, err := f.e.Cancel(ctx, "cx", "alice"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("driver of a cancelled run: %v", err)
	}
	if r := f.get(t, "cx"); r.Status != workflow.RunCancelled {
		t.Fatalf("run %s", r.Status)
	}
}

// TestEngine_Run_TimedOutStepStopsItsRunner lets a step overrun its
// timeout while it holds the driver's only slot: the driver records the
// timeout, ends that runner's context and goes on with the next step
// (it used to spin until the runner returned by itself).
func TestEngine_Run_TimedOutStepStopsItsRunner(t *testing.T) {
	f := newFixture(t)
	d := workflow.Def{Name: "overrun", Type: workflow.Graph, Steps: []workflow.Step{
		{Name: "slow", Agent: "a"},
		{Name: "next", Agent: "b"},
	}}
	f.start(t, d, workflow.RunOptions{ID: "ov", StepTimeout: time.Minute})
	inSlow := make(chan struct{})
	var stopped atomic.Bool
	type result struct {
		r   workflow.Run
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := f.e.RunAs(ctx, "ov", "drv", workflow.RunnerFunc(func(ctx context.Context, s workflow.ReadyStep) (map[string]any, []teammanager.Finding, error) {
			if s.Step.Name == "slow" {
				close(inSlow)
				<-ctx.Done()
				stopped.Store(true)
				return nil, nil, ctx.Err()
			}
			return nil, nil, nil
		}), 1)
		done <- result{r, err}
	}()
	<-inSlow
	f.clock.Advance(2 * time.Minute)
	res := <-done
	if res.err != nil {
		t.Fatalf("driver: %v", res.err)
	}
	if !stopped.Load() {
		t.Fatal("the timed-out step's runner was not stopped")
	}
	var slow workflow.StepState
	for _, s := range res.r.Steps {
		if s.Name == "slow" {
			slow = s
		}
	}
	if got := statuses(res.r); got["slow"] != workflow.StepFailed || got["next"] != workflow.StepCompleted {
		t.Fatalf("steps %v, want slow failed and next completed", got)
	}
	if !strings.Contains(slow.Reason, "timed out") {
		t.Fatalf("slow failed with %q, want its timeout", slow.Reason)
	}
}

// startThenCancel is a Pull whose StartStep starts the step and then ends
// the driver's context, returning its error, as a StartStep does when the
// driver is interrupted after the start was written (the engine's settle
// afterwards, or a server's answer lost with the cancelled request).
type startThenCancel struct {
	*workflow.Engine
	cancel context.CancelFunc
}

func (p startThenCancel) StartStep(ctx context.Context, id, step, actor string) (int, error) {
	if _, err := p.Engine.StartStep(ctx, id, step, actor); err != nil {
		return 0, err
	}
	p.cancel()
	return 0, ctx.Err()
}

// TestDrive_InterruptedStartIsGivenBack interrupts a driver while it
// starts a step: the start was written but the driver saw only its
// context's error. The step must be given back (ready), not left running
// under a driver that is gone until its timeout fails it.
func TestDrive_InterruptedStartIsGivenBack(t *testing.T) {
	f := newFixture(t)
	d := workflow.Def{Name: "c", Type: workflow.Chain, Steps: []workflow.Step{{Name: "a", Agent: "x"}, {Name: "b", Agent: "y"}}}
	f.start(t, d, workflow.RunOptions{ID: "orphan"})
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ran := false
	r, err := workflow.Drive(cctx, startThenCancel{f.e, cancel}, "orphan", "first", workflow.RunnerFunc(
		func(context.Context, workflow.ReadyStep) (map[string]any, []teammanager.Finding, error) {
			ran = true
			return nil, nil, nil
		}), 1)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted driver: %v", err)
	}
	if ran {
		t.Fatal("the runner ran a step whose start the driver did not see")
	}
	if got := statuses(r); got["a"] != workflow.StepReady {
		t.Fatalf("after the interrupted start: %v, want a ready again (given back)", got)
	}
	r, err = f.e.RunAs(ctx, "orphan", "second", workflow.RunnerFunc(
		func(context.Context, workflow.ReadyStep) (map[string]any, []teammanager.Finding, error) {
			return nil, nil, nil
		}), 1)
	if err != nil || r.Status != workflow.RunCompleted {
		t.Fatalf("resumed: %v, %v", r.Status, err)
	}
}

// TestEngine_NotUTF8: a reason that is not UTF-8 (a runner's error quoting
// a command's raw output) fails or releases the step with the reason's
// bytes that are not UTF-8 replaced (U+FFFD), as its JSON keeps them,
// instead of failing the write (the run then stopped its driver and kept
// the step running until its timeout); an actor that is not UTF-8 is
// refused with ErrInvalidRun, and nothing is written.
func TestEngine_NotUTF8(t *testing.T) {
	f := newFixture(t)
	f.start(t, graphDef(), workflow.RunOptions{ID: "u"})
	runner := workflow.RunnerFunc(func(_ context.Context, rs workflow.ReadyStep) (map[string]any, []teammanager.Finding, error) {
		if rs.Step.Name == "security" {
			return nil, nil, errors.New("exit status 1: \xff\xfe")
		}
		return nil, nil, nil
	})
	r, err := f.e.Run(ctx, "u", runner, 2)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	s, _ := r.Step("security")
	if r.Status != workflow.RunFailed || s.Status != workflow.StepFailed || s.Reason != "exit status 1: \uFFFD" {
		t.Fatalf("run %s, security %s %q", r.Status, s.Status, s.Reason)
	}

	f.start(t, graphDef(), workflow.RunOptions{ID: "v"})
	before := f.get(t, "v")
	if _, err := f.e.StartStep(ctx, "v", "analyze", "host\xff"); !errors.Is(err, workflow.ErrInvalidRun) {
		t.Errorf("StartStep: %v, want ErrInvalidRun", err)
	}
	if _, err := f.e.Cancel(ctx, "v", "\xff"); !errors.Is(err, workflow.ErrInvalidRun) {
		t.Errorf("Cancel: %v, want ErrInvalidRun", err)
	}
	if _, err := f.e.Start(ctx, graphDef(), workflow.RunOptions{ID: "w", Actor: "\xff"}); !errors.Is(err, workflow.ErrInvalidRun) {
		t.Errorf("Start: %v, want ErrInvalidRun", err)
	}
	if after := f.get(t, "v"); !reflect.DeepEqual(after, before) {
		t.Errorf("refused calls changed the run: %+v", after)
	}
	attempt, err := f.e.StartStep(ctx, "v", "analyze", "host")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.e.ReleaseStep(ctx, "v", "analyze", attempt, "stop \xff"); err != nil {
		t.Fatalf("ReleaseStep: %v", err)
	}
}
