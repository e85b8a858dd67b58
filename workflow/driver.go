package workflow

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/cortexgraph/cortex/internal/ctxcause"
	"github.com/cortexgraph/cortex/teammanager"
)

// Runner runs steps for a driver: the host's side of Run.
type Runner interface {
	// Run runs step and returns its outputs and findings, or an error,
	// which fails the step with the error's text as the reason. ctx ends
	// when the driver's context ends or the run is cancelled (the step is
	// then released, not failed), and when the step times out or is
	// failed by someone else (what Run returns then is not recorded).
	Run(ctx context.Context, step ReadyStep) (outputs map[string]any, findings []teammanager.Finding, err error)
}

// RunnerFunc adapts a function to Runner.
type RunnerFunc func(ctx context.Context, step ReadyStep) (map[string]any, []teammanager.Finding, error)

// Run calls f.
func (f RunnerFunc) Run(ctx context.Context, step ReadyStep) (map[string]any, []teammanager.Finding, error) {
	return f(ctx, step)
}

// Run drives run id to its end with runner, at most concurrency steps at a
// time, as actor "driver:HOST:PID:N" (see RunAs).
func (e *Engine) Run(ctx context.Context, id string, runner Runner, concurrency int) (Run, error) {
	host, _ := os.Hostname()
	return e.RunAs(ctx, id, fmt.Sprintf("driver:%s:%d:%s", host, os.Getpid(), newRunID()[1:9]), runner, concurrency)
}

type stepResult struct {
	step     string
	attempt  int
	outputs  map[string]any
	findings []teammanager.Finding
	err      error
}

// Pull is the pull API of a run that a driver works through: *Engine in
// process, or a client of a server's workflows.* methods. Its methods
// return the errors Engine's do (errors.Is matches them across a client).
type Pull interface {
	Get(ctx context.Context, id string) (Run, error)
	Ready(ctx context.Context, id string) ([]ReadyStep, error)
	// StartStep returns the attempt it started, which the step's other
	// calls name (see Engine.StartStep).
	StartStep(ctx context.Context, id, step, actor string) (attempt int, err error)
	AddFindings(ctx context.Context, id, step string, attempt int, fs []teammanager.Finding) ([]string, error)
	CompleteStep(ctx context.Context, id, step string, attempt int, outputs map[string]any) error
	FailStep(ctx context.Context, id, step string, attempt int, reason string) error
	ReleaseStep(ctx context.Context, id, step string, attempt int, reason string) error
	// ClaimDriver and ReleaseDriver hold a crew or swarm run for one
	// driver (DriveLed; see Engine.ClaimDriver).
	ClaimDriver(ctx context.Context, id string, d Driver, ttl time.Duration, replace string) (Run, error)
	ReleaseDriver(ctx context.Context, id, driverID string) error
	// DriverCheck returns the fence of driver driverID of crew or swarm
	// run id for the writes of a task board in this process
	// (teammanager.WithWriteCheck): DriveLed fences every board write
	// with it, whatever p and its Board are. An *Engine's reads the run
	// in the board's write (Engine.DriverCheck); one of a Pull whose runs
	// a board here cannot read (a client of a server) refuses every
	// write, so that a board here is never written unfenced (a client of
	// the server as the Board is fenced by the server instead). DriveLed
	// refuses a Pull whose check is nil (ErrInvalidRun).
	DriverCheck(id, driverID string) teammanager.WriteCheck
	// PollInterval is how often a driver with nothing to do looks for
	// changes (Config.WithPollInterval for an Engine).
	PollInterval() time.Duration
}

var _ Pull = (*Engine)(nil)

// PollInterval returns the Config's poll interval.
func (e *Engine) PollInterval() time.Duration { return e.cfg.poll }

// RunAs drives run id with runner (Drive over e); a driver working through
// e also wakes at once on e's own writes.
func (e *Engine) RunAs(ctx context.Context, id, actor string, runner Runner, concurrency int) (Run, error) {
	return Drive(ctx, e, id, actor, runner, concurrency)
}

// Drive drives run id through p with runner until the run has finished,
// and returns it: it starts each ready step (StartStep as actor), at most
// concurrency (at least 1) at a time, each in its own goroutine, and
// records what the runner returns (AddFindings, then CompleteStep;
// FailStep on an error or outputs that CompleteStep refuses) for the
// attempt it started: if the step was given back and started again
// meanwhile, the result is refused (ErrStaleAttempt) and dropped. Other
// drivers may drive the same run at the same time, in this process or
// another, through an Engine or a server: a step is started by one of
// them only (StartStep is atomic). While steps run elsewhere, Drive waits for the
// next step timeout or p's poll interval (or, when p is an *Engine, for
// its writes).
//
// When ctx ends, Drive stops starting steps, waits for its runners
// (whose context ends too), releases their steps (ReleaseStep) and returns
// the run with ctx's error: the run can be resumed by another driver. A
// step whose StartStep failed but was written all the same (ctx ended
// after the write, or a server's answer was lost) is released too, when
// the run shows it running as actor: give each driver an actor of its own. When
// the run is cancelled, the runners' context ends and Drive returns. A
// crew or swarm run is refused (ErrInvalidRun): DriveLed drives those.
func Drive(ctx context.Context, p Pull, id, actor string, runner Runner, concurrency int) (Run, error) {
	if concurrency < 1 {
		concurrency = 1
	}
	if r, err := p.Get(ctx, id); err != nil {
		return Run{}, err
	} else if r.Type.Led() {
		return r, fmt.Errorf("run %s: %w: a %s run is driven by DriveLed, not Drive", id, ErrInvalidRun, r.Type)
	}
	// inflight holds the cancel of each step this driver runs: a step
	// that times out or is failed meanwhile has its runner stopped.
	inflight := map[string]context.CancelFunc{}
	// look reads the run between two steps: through an Engine, only its
	// ready and running steps, which is all the loop below reads, so that
	// a step's cost does not grow with the run's size.
	changed, now, look := func() <-chan struct{} { return nil }, time.Now, p.Get
	// ready lists the ready steps; through an Engine, only as many as
	// this driver can start, none it runs already.
	ready := p.Ready
	if e, ok := p.(*Engine); ok {
		changed, now, look = e.changed, e.now, e.view
		ready = func(ctx context.Context, id string) ([]ReadyStep, error) {
			return e.ready(ctx, id, max(concurrency-len(inflight), 0), func(step string) bool {
				_, ok := inflight[step]
				return ok
			})
		}
	}
	stepCtx, stopSteps := context.WithCancel(ctx)
	defer stopSteps()
	done := make(chan stepResult)
	var last Run // the run as last read
	var failure error
	var unsure []string // steps whose StartStep failed: started or not
	detached := context.WithoutCancel(ctx)

	handle := func(res stepResult) {
		if cancel := inflight[res.step]; cancel != nil {
			cancel()
		}
		delete(inflight, res.step)
		if stepCtx.Err() != nil {
			// Stopped: give the step back for whoever resumes the run.
			if err := p.ReleaseStep(detached, id, res.step, res.attempt, "driver "+actor+" stopped"); err != nil && !errors.Is(err, ErrInvalidTransition) && !errors.Is(err, ErrRunFinished) {
				failure = errors.Join(failure, err)
			}
			return
		}
		var err error
		switch {
		case res.err != nil:
			err = p.FailStep(ctx, id, res.step, res.attempt, res.err.Error())
		default:
			if len(res.findings) > 0 {
				_, err = p.AddFindings(ctx, id, res.step, res.attempt, res.findings)
			}
			if err == nil {
				err = p.CompleteStep(ctx, id, res.step, res.attempt, res.outputs)
			}
			if errors.Is(err, ErrInvalidOutput) || errors.Is(err, teammanager.ErrInvalidFinding) {
				err = p.FailStep(ctx, id, res.step, res.attempt, err.Error())
			}
		}
		// The step timed out, was started again elsewhere (a stale
		// attempt) or the run was cancelled meanwhile: nothing to record.
		if err != nil && !errors.Is(err, ErrInvalidTransition) && !errors.Is(err, ErrRunFinished) {
			failure = errors.Join(failure, err)
		}
	}
	drain := func() {
		stopSteps()
		for len(inflight) > 0 {
			handle(<-done)
		}
	}

	for {
		if ctx.Err() != nil || failure != nil {
			break
		}
		wake := changed()
		// Ready also records the timeouts that are due: call it when a
		// step is past its timeout even if no step can start here, or a
		// step that overran would hold its slot until its runner returns.
		if len(inflight) < concurrency || overdue(last, now()) {
			steps, err := ready(ctx, id)
			if err != nil && !errors.Is(err, ErrRunFinished) {
				failure = err
				break
			}
			for _, rs := range steps {
				if len(inflight) >= concurrency {
					break
				}
				name := rs.Step.Name
				if _, ok := inflight[name]; ok {
					continue
				}
				attempt, err := p.StartStep(ctx, id, name, actor)
				if err != nil {
					if errors.Is(err, ErrInvalidTransition) || errors.Is(err, ErrRunFinished) {
						continue // another driver started it, or finished the run (read below)
					}
					// The start may have been written all the same (the
					// context ended after the write, or a server's answer
					// was lost): given back below if so.
					unsure = append(unsure, name)
					failure = err
					break
				}
				runCtx, cancel := context.WithCancel(stepCtx)
				inflight[name] = cancel
				go func(rs ReadyStep) {
					out, fs, err := runner.Run(runCtx, rs)
					done <- stepResult{step: rs.Step.Name, attempt: attempt, outputs: out, findings: fs, err: err}
				}(rs)
			}
			if failure != nil {
				break
			}
		}
		r, err := look(ctx, id)
		if err != nil {
			failure = err
			break
		}
		last = r
		running := make(map[string]bool, len(inflight))
		for _, s := range r.Steps {
			if s.Status == StepRunning {
				running[s.Name] = true
			}
		}
		for name, cancel := range inflight {
			// Timed out, failed or released by someone else: its runner's
			// work is no longer wanted (what it returns is refused).
			if !running[name] {
				cancel()
			}
		}
		if r.Status.Finished() {
			drain()
			if failure != nil {
				if full, err := p.Get(detached, id); err == nil {
					r = full
				}
				return r, failure
			}
			return p.Get(detached, id)
		}
		started := false
		if len(inflight) < concurrency {
			for _, s := range r.Steps {
				if _, ok := inflight[s.Name]; s.Status == StepReady && !ok {
					started = true // something to start (a fresh Ready)
				}
			}
		}
		if started && r.Status != RunMerging {
			continue
		}
		wait := p.PollInterval()
		if d := nextDeadline(r, now()); d > 0 && d < wait {
			wait = d
		}
		timer := time.NewTimer(wait)
		select {
		case res := <-done:
			handle(res)
		case <-wake:
		case <-timer.C:
		case <-ctx.Done():
		}
		timer.Stop()
	}
	drain()
	failure = errors.Join(failure, giveBack(detached, p, id, actor, unsure))
	r, gerr := p.Get(detached, id)
	if failure == nil {
		failure = ctxcause.With(ctx, ctx.Err())
	}
	return r, errors.Join(failure, gerr)
}

// giveBack releases the steps among names that run id shows running as
// actor: starts this driver made without knowing it, which no runner of
// it runs. Left so, they would hold the run until their timeout failed
// them.
func giveBack(ctx context.Context, p Pull, id, actor string, names []string) error {
	if len(names) == 0 {
		return nil
	}
	r, err := p.Get(ctx, id)
	if err != nil {
		return err
	}
	var errs error
	for _, s := range r.Steps {
		if s.Status != StepRunning || s.Actor != actor || !slices.Contains(names, s.Name) {
			continue
		}
		if err := p.ReleaseStep(ctx, id, s.Name, s.Attempt, "driver "+actor+" stopped"); err != nil && !errors.Is(err, ErrInvalidTransition) && !errors.Is(err, ErrRunFinished) {
			errs = errors.Join(errs, err)
		}
	}
	return errs
}

// overdue reports whether a running step of r is past its timeout at now.
func overdue(r Run, now time.Time) bool {
	if r.StepTimeout <= 0 {
		return false
	}
	for _, s := range r.Steps {
		if s.Status == StepRunning && !now.Before(s.StartedAt.Add(r.StepTimeout)) {
			return true
		}
	}
	return false
}

// nextDeadline returns how long until the first running step of r times
// out after now (0: none).
func nextDeadline(r Run, now time.Time) time.Duration {
	if r.StepTimeout <= 0 {
		return 0
	}
	var first time.Duration
	for _, s := range r.Steps {
		if s.Status != StepRunning {
			continue
		}
		d := s.StartedAt.Add(r.StepTimeout).Sub(now)
		if d <= 0 {
			d = time.Millisecond
		}
		if first == 0 || d < first {
			first = d
		}
	}
	return first
}
