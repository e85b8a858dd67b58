package client

import (
	"context"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/teammanager"
	"github.com/cortexgraph/cortex/workflow"
)

// Workflows is the workflows.* methods of a server: runs of team
// definitions and their pull API, with the signatures of workflow.Engine,
// so that workflow.Drive drives a run through a server. Its errors match
// the workflow package's sentinels (errors.Is: workflow.ErrUnknownRun,
// workflow.ErrInvalidTransition, ...; a run id or step name that none can
// have, namespace.ErrInvalidID too). It is safe for concurrent use.
type Workflows struct {
	c    *Client
	poll time.Duration
}

var _ workflow.Pull = (*Workflows)(nil)

// Workflows returns the workflows.* methods of c; a driver working through
// them polls the server every poll (at least 1 ms) while it has nothing to
// do.
func (c *Client) Workflows(poll time.Duration) *Workflows {
	return &Workflows{c: c, poll: max(poll, time.Millisecond)}
}

// PollInterval returns the poll interval given to Client.Workflows.
func (w *Workflows) PollInterval() time.Duration { return w.poll }

// Start starts a run of d (workflows.start); see workflow.Engine.Start.
// opts.StepTimeout is sent in whole seconds (negative: none). A definition
// that does not validate (Def.Validate: its port defaults too, which JSON
// might not carry) and inputs that JSON cannot carry (a NaN or ±Inf at any
// depth), or nested deeper than workflow.MaxValueDepth, are refused before
// anything is sent with the embedded Engine's error (ErrInvalidDef,
// ErrInvalidRun).
func (w *Workflows) Start(ctx context.Context, d workflow.Def, opts workflow.RunOptions) (workflow.Run, error) {
	if err := d.Validate(); err != nil {
		return workflow.Run{}, err // as Engine.Start returns it
	}
	if !utf8.ValidString(opts.ID) || !utf8.ValidString(opts.Strategy) || slices.ContainsFunc(opts.NonCritical, func(a string) bool { return !utf8.ValidString(a) }) {
		// JSON cannot carry them (sent, each bad byte would be U+FFFD,
		// which a strategy's name may hold): checked here as the Engine
		// checks them first, against the server's strategies.
		names, err := w.c.Strategies(ctx)
		if err != nil {
			return workflow.Run{}, err
		}
		if err := d.CheckOptions(opts, names); err != nil {
			return workflow.Run{}, fmt.Errorf("start %s: %w", d.Name, err)
		}
	}
	secs := int64(opts.StepTimeout / time.Second)
	switch {
	case opts.StepTimeout < 0:
		secs = -1
	case opts.StepTimeout > 0 && secs == 0:
		return workflow.Run{}, fmt.Errorf("%w: step timeout %s: want whole seconds", workflow.ErrInvalidRun, opts.StepTimeout)
	}
	if err := workflow.CheckValues(opts.Inputs); err != nil {
		// The embedded Engine's error (not valid UTF-8, which JSON could
		// not carry; not encodable; nested too deep), not the encoding
		// error of the params nor the server's parse error.
		return workflow.Run{}, fmt.Errorf("start %s: %w: inputs: %v", d.Name, workflow.ErrInvalidRun, err)
	}
	p := map[string]any{"def": d, "id": opts.ID, "strategy": opts.Strategy, "inputs": opts.Inputs,
		"non_critical": opts.NonCritical, "step_timeout": secs, "actor": opts.Actor}
	return w.run(ctx, "workflows.start", p)
}

// run calls method, whose result is a run (api.Run), and returns the run.
func (w *Workflows) run(ctx context.Context, method string, params any) (workflow.Run, error) {
	var r api.Run
	if err := w.c.Call(ctx, method, params, &r); err != nil {
		return workflow.Run{}, err
	}
	return api.RunFrom(r), nil
}

// Get returns run id (workflows.get).
func (w *Workflows) Get(ctx context.Context, id string) (workflow.Run, error) {
	return w.run(ctx, "workflows.get", map[string]string{"run": id})
}

// List returns the runs with status st, empty: all (workflows.list).
func (w *Workflows) List(ctx context.Context, st workflow.RunStatus) ([]workflow.Run, error) {
	var rs []api.Run
	if err := w.c.Call(ctx, "workflows.list", map[string]string{"status": string(st)}, &rs); err != nil {
		return nil, err
	}
	var out []workflow.Run
	for _, r := range rs {
		out = append(out, api.RunFrom(r))
	}
	return out, nil
}

// History returns the transitions of run id (workflows.history).
func (w *Workflows) History(ctx context.Context, id string) ([]workflow.Transition, error) {
	var h []workflow.Transition
	err := w.c.Call(ctx, "workflows.history", map[string]string{"run": id}, &h)
	return h, err
}

// Cancel cancels run id as actor (workflows.cancel).
func (w *Workflows) Cancel(ctx context.Context, id, actor string) (workflow.Run, error) {
	return w.run(ctx, "workflows.cancel", map[string]string{"run": id, "actor": actor})
}

// Ready returns the steps of run id that may start now (workflows.ready).
func (w *Workflows) Ready(ctx context.Context, id string) ([]workflow.ReadyStep, error) {
	var rs []api.ReadyStep
	if err := w.c.Call(ctx, "workflows.ready", map[string]string{"run": id}, &rs); err != nil {
		return nil, err
	}
	var out []workflow.ReadyStep
	for _, r := range rs {
		s, err := api.ReadyStepFrom(r)
		if err != nil {
			return nil, fmt.Errorf("workflows.ready: %w", err)
		}
		out = append(out, s)
	}
	return out, nil
}

// StartStep starts ready step step of run id as actor
// (workflows.start_step): of two callers, one only succeeds. It returns
// the attempt it started, which the step's other calls name.
func (w *Workflows) StartStep(ctx context.Context, id, step, actor string) (int, error) {
	var r struct {
		Attempt int `json:"attempt"`
	}
	if err := w.c.Call(ctx, "workflows.start_step", map[string]string{"run": id, "step": step, "actor": actor}, &r); err != nil {
		return 0, err
	}
	return r.Attempt, nil
}

// AddFindings records findings of attempt attempt of running step step, in
// one write (workflows.add_findings), and returns their ids.
func (w *Workflows) AddFindings(ctx context.Context, id, step string, attempt int, fs []teammanager.Finding) ([]string, error) {
	ps := make([]findingParams, 0, len(fs))
	for i, f := range fs {
		if !encodable(f) {
			// The error of the Manager (of a council's votes, with
			// "finding N" too), without the run's team and member.
			return nil, fmt.Errorf("run %s: step %s: finding %d of %d: %w", id, step, i+1, len(fs), checkFinding(f))
		}
		ps = append(ps, findingParamsOf(f))
	}
	var r struct {
		IDs []string `json:"ids"`
	}
	if err := w.c.Call(ctx, "workflows.add_findings", map[string]any{"run": id, "step": step, "attempt": attempt, "findings": ps}, &r); err != nil {
		return nil, err
	}
	if len(r.IDs) == 0 {
		return nil, nil
	}
	return r.IDs, nil
}

// CompleteStep completes attempt attempt of running step step with
// outputs (workflows.complete_step); a stale attempt is an *Error matching
// workflow.ErrStaleAttempt. Outputs that JSON cannot carry (a NaN or ±Inf
// at any depth) are refused before anything is sent with the embedded
// Engine's error (ErrInvalidOutput), though the Engine checks the run,
// step and attempt first.
func (w *Workflows) CompleteStep(ctx context.Context, id, step string, attempt int, outputs map[string]any) error {
	if err := workflow.CheckValues(outputs); err != nil {
		// The embedded Engine's error (as for Start's inputs).
		return fmt.Errorf("run %s: step %s: %w: %w", id, step, workflow.ErrInvalidOutput, err)
	}
	return w.c.Call(ctx, "workflows.complete_step", map[string]any{"run": id, "step": step, "attempt": attempt, "outputs": outputs}, nil)
}

// FailStep fails attempt attempt of running step step with reason
// (workflows.fail_step).
func (w *Workflows) FailStep(ctx context.Context, id, step string, attempt int, reason string) error {
	return w.c.Call(ctx, "workflows.fail_step", map[string]any{"run": id, "step": step, "attempt": attempt, "reason": reason}, nil)
}

// ClaimDriver holds crew or swarm run id for driver d for ttl
// (workflows.claim_driver; see workflow.Engine.ClaimDriver). A run held by
// another driver is an *Error matching workflow.ErrDriverBusy. d.Until is
// not sent: the server sets it from ttl, as the embedded Engine does,
// whatever it is (a time past year 9999, which JSON cannot carry,
// included). ttl is sent in milliseconds, a part of one rounded up, so
// that a lease under a millisecond, which the embedded Engine takes, is
// not sent as none.
func (w *Workflows) ClaimDriver(ctx context.Context, id string, d workflow.Driver, ttl time.Duration, replace string) (workflow.Run, error) {
	if d.ID != "" && d.Actor != "" && ttl > 0 && (!utf8.ValidString(d.ID) || !utf8.ValidString(d.Actor) || !utf8.ValidString(d.Host)) {
		// JSON cannot carry them: the embedded Engine's error, which it
		// checks after these.
		return workflow.Run{}, &textError{fmt.Errorf("run %s: %w: driver %q: its id, actor and host must be valid UTF-8", id, workflow.ErrInvalidRun, d.ID)}
	}
	driver := map[string]any{"id": d.ID, "actor": d.Actor, "host": d.Host, "pid": d.PID}
	ms := ttl.Milliseconds()
	if ttl > 0 && ttl%time.Millisecond != 0 {
		ms++
	}
	return w.run(ctx, "workflows.claim_driver", map[string]any{"run": id, "driver": driver, "lease_ms": ms, "replace": replace})
}

// ReleaseDriver lets go of run id if driver driverID holds it
// (workflows.release_driver).
func (w *Workflows) ReleaseDriver(ctx context.Context, id, driverID string) error {
	return w.c.Call(ctx, "workflows.release_driver", map[string]any{"run": id, "driver": map[string]string{"id": driverID}}, nil)
}

// DriverCheck returns the fence of driver driverID of run id for a task
// board in this process: it refuses every write (ErrDriverBusy), since
// such a board cannot read the server's run to check that the driver
// holds it. A driver through w works on the server's board (a Client as
// its workflow.Board), whose writes the server fences (workflows.as_driver).
func (w *Workflows) DriverCheck(id, driverID string) teammanager.WriteCheck {
	return func(context.Context, *cortex.Tx) error {
		return fmt.Errorf("run %s: %w: driver %s drives the run through a server: a task board in this process cannot check that it holds the run, "+
			"so it writes nothing for it (drive with the server's board: a client)", id, workflow.ErrDriverBusy, driverID)
	}
}

// ReleaseStep gives attempt attempt of running step step back, ready
// again (workflows.release_step).
func (w *Workflows) ReleaseStep(ctx context.Context, id, step string, attempt int, reason string) error {
	return w.c.Call(ctx, "workflows.release_step", map[string]any{"run": id, "step": step, "attempt": attempt, "reason": reason}, nil)
}
