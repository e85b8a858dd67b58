package workflow

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/cortexgraph/cortex/internal/ctxcause"
	"github.com/cortexgraph/cortex/teammanager"
)

// Runner runs steps for a driver: the host's side of Run.
type Runner interface {
	// Run runs step and returns its outputs and findings, or an error,
	// which fails the step with the error's text as the reason. ctx ends
	// when the driver's context ends or the run is cancelled; the step is
	// then released, not failed.
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
	outputs  map[string]any
	findings []teammanager.Finding
	err      error
}

// RunAs drives run id with runner until the run has finished, and returns
// it: it starts each ready step (StartStep as actor), at most concurrency
// (at least 1) at a time, each in its own goroutine, and records what the
// runner returns (AddFindings, then CompleteStep; FailStep on an error or
// outputs that CompleteStep refuses). Other drivers may drive the same run
// at the same time, in this process or another: a step is started by one
// of them only. While steps run elsewhere, RunAs waits for this Engine's
// writes, the next step timeout, or the poll interval.
//
// When ctx ends, RunAs stops starting steps, waits for its runners
// (whose context ends too), releases their steps (ReleaseStep) and returns
// the run with ctx's error: the run can be resumed by another RunAs. When
// the run is cancelled, the runners' context ends and RunAs returns.
func (e *Engine) RunAs(ctx context.Context, id, actor string, runner Runner, concurrency int) (Run, error) {
	if concurrency < 1 {
		concurrency = 1
	}
	stepCtx, stopSteps := context.WithCancel(ctx)
	defer stopSteps()
	inflight := map[string]bool{}
	done := make(chan stepResult)
	var failure error
	detached := context.WithoutCancel(ctx)

	handle := func(res stepResult) {
		delete(inflight, res.step)
		if stepCtx.Err() != nil {
			// Stopped: give the step back for whoever resumes the run.
			if err := e.ReleaseStep(detached, id, res.step, "driver "+actor+" stopped"); err != nil && !errors.Is(err, ErrInvalidTransition) && !errors.Is(err, ErrRunFinished) {
				failure = errors.Join(failure, err)
			}
			return
		}
		var err error
		switch {
		case res.err != nil:
			err = e.FailStep(ctx, id, res.step, res.err.Error())
		default:
			if len(res.findings) > 0 {
				_, err = e.AddFindings(ctx, id, res.step, res.findings)
			}
			if err == nil {
				err = e.CompleteStep(ctx, id, res.step, res.outputs)
			}
			if errors.Is(err, ErrInvalidOutput) || errors.Is(err, teammanager.ErrInvalidFinding) {
				err = e.FailStep(ctx, id, res.step, err.Error())
			}
		}
		// The step timed out or the run was cancelled meanwhile: nothing
		// to record.
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
		wake := e.changed()
		if len(inflight) < concurrency {
			ready, err := e.Ready(ctx, id)
			if err != nil && !errors.Is(err, ErrRunFinished) {
				failure = err
				break
			}
			for _, rs := range ready {
				if len(inflight) >= concurrency {
					break
				}
				name := rs.Step.Name
				if inflight[name] {
					continue
				}
				if err := e.StartStep(ctx, id, name, actor); err != nil {
					if errors.Is(err, ErrInvalidTransition) || errors.Is(err, ErrRunFinished) {
						continue // another driver started it, or finished the run (read below)
					}
					failure = err
					break
				}
				inflight[name] = true
				go func(rs ReadyStep) {
					out, fs, err := runner.Run(stepCtx, rs)
					done <- stepResult{step: rs.Step.Name, outputs: out, findings: fs, err: err}
				}(rs)
			}
			if failure != nil {
				break
			}
		}
		r, err := e.Get(ctx, id)
		if err != nil {
			failure = err
			break
		}
		if r.Status.Finished() {
			drain()
			if failure != nil {
				return r, failure
			}
			return e.Get(detached, id)
		}
		started := false
		if len(inflight) < concurrency {
			for _, s := range r.Steps {
				if s.Status == StepReady && !inflight[s.Name] {
					started = true // something to start (a fresh Ready)
				}
			}
		}
		if started && r.Status != RunMerging {
			continue
		}
		wait := e.cfg.poll
		if d := e.nextDeadline(r); d > 0 && d < wait {
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
	r, gerr := e.Get(detached, id)
	if failure == nil {
		failure = ctxcause.With(ctx, ctx.Err())
	}
	return r, errors.Join(failure, gerr)
}

// nextDeadline returns how long until the first running step of r times
// out (0: none).
func (e *Engine) nextDeadline(r Run) time.Duration {
	if r.StepTimeout <= 0 {
		return 0
	}
	now := e.now()
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
