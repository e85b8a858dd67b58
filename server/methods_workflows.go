package server

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/teammanager"
	"github.com/cortexgraph/cortex/workflow"
)

// The workflow methods (workflows.*): runs of team definitions (package
// workflow), one workflow.Engine per namespace (Server.engine), and the
// pull API a driver works through (package client: Client.Workflows).
// Results: a run as api.Run (the shape of cortexctl workflows status
// --json), []workflow.Transition and []api.ReadyStep. Steps are started
// atomically: two drivers on one run, through one server or in several
// processes, never start the same step; start_step returns the attempt it
// started, which the step's other calls name (a stale one is refused:
// workflow.ErrStaleAttempt).

// wfParams are the params of the workflows.* methods.
type wfParams struct {
	Run string `json:"run"`
	// Step, Actor, Reason, Outputs, Findings: the pull API's.
	Step string `json:"step"`
	// Attempt is the attempt of the step that add_findings,
	// complete_step, fail_step and release_step belong to (the one
	// start_step returned); 0, or absent: a step started before attempts
	// were counted (workflow.StepState.Attempt).
	Attempt  int             `json:"attempt"`
	Actor    string          `json:"actor"`
	Reason   string          `json:"reason"`
	Outputs  map[string]any  `json:"outputs"`
	Findings []findingParams `json:"findings"`
	// Status filters workflows.list.
	Status string `json:"status"`
}

func (p *wfParams) decode(params json.RawMessage, need ...string) error {
	if err := decodeParams(params, p); err != nil {
		return err
	}
	args := []string{"run", p.Run}
	for _, n := range need {
		switch n {
		case "step":
			args = append(args, "step", p.Step)
		case "actor":
			args = append(args, "actor", p.Actor)
		}
	}
	return requiredGiven(params, args...)
}

// wfStartParams are the params of workflows.start: the definition as
// workflow.Def's JSON (the caller parses team files and resolves built-in
// names) and the run options; step_timeout in seconds (0: the server's
// teams.workflowTimeout, -1: none).
type wfStartParams struct {
	Def         *workflow.Def  `json:"def"`
	ID          string         `json:"id"`
	Strategy    string         `json:"strategy"`
	Inputs      map[string]any `json:"inputs"`
	NonCritical []string       `json:"non_critical"`
	StepTimeout int64          `json:"step_timeout"`
	Actor       string         `json:"actor"`
}

// readStart reads the params of workflows.start: the definition and the
// run options.
func readStart(params json.RawMessage) (workflow.Def, workflow.RunOptions, error) {
	var p wfStartParams
	if err := decodeParams(params, &p); err != nil {
		return workflow.Def{}, workflow.RunOptions{}, err
	}
	if p.Def == nil {
		return workflow.Def{}, workflow.RunOptions{}, fmt.Errorf("%w: params: %q is required", api.ErrUsage, "def")
	}
	opts := workflow.RunOptions{ID: p.ID, Strategy: p.Strategy, Inputs: p.Inputs, NonCritical: p.NonCritical, Actor: p.Actor}
	switch n := p.StepTimeout; {
	case n == -1:
		opts.StepTimeout = -1
	case n < 0 || n > int64(1<<62/time.Second):
		return workflow.Def{}, workflow.RunOptions{}, fmt.Errorf("%w: params: step_timeout %d: want 1..%d seconds, 0 or -1", api.ErrInvalid, n, int64(1<<62/time.Second))
	default:
		opts.StepTimeout = time.Duration(n) * time.Second
	}
	return *p.Def, opts, nil
}

// checkWorkflowsStart checks the params of workflows.start, the definition
// and the run inputs as Start will, before the namespace is created for
// the run: a call refused for them creates nothing. (What only the
// namespace's engine knows, such as its strategies, is checked by Start.)
func checkWorkflowsStart(_ *Server, params json.RawMessage) error {
	d, opts, err := readStart(params)
	if err != nil {
		return err
	}
	if err := d.Validate(); err != nil {
		return err
	}
	if err := d.CheckInputs(opts.Inputs); err != nil {
		return fmt.Errorf("start %s: %w", d.Name, err)
	}
	return nil
}

func workflowsStart(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	d, opts, err := readStart(params)
	if err != nil {
		return nil, err
	}
	en, err := c.engine(ctx)
	if err != nil {
		return nil, err
	}
	return runResult(en.Start(ctx, d, opts))
}

// runResult is the result of a method that returns a run: its api.Run
// shape, or err.
func runResult(r workflow.Run, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return api.RunOf(r), nil
}

func workflowsGet(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	en, p, err := c.runEngine(ctx, params)
	if err != nil {
		return nil, err
	}
	return runResult(en.Get(ctx, p.Run))
}

func workflowsList(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p wfParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	var st workflow.RunStatus
	if p.Status != "" {
		var err error
		if st, err = workflow.ParseRunStatus(p.Status); err != nil {
			return nil, fmt.Errorf("%w: params: status: %v", api.ErrInvalid, err)
		}
	}
	en, err := c.engine(ctx)
	if err != nil {
		return nil, err
	}
	runs, err := en.List(ctx, st)
	if err != nil {
		return nil, err
	}
	if err := c.checkCount(len(runs), "runs"); err != nil {
		return nil, err
	}
	return api.RunsOf(runs), nil
}

func workflowsHistory(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	en, p, err := c.runEngine(ctx, params)
	if err != nil {
		return nil, err
	}
	h, err := en.History(ctx, p.Run)
	if err != nil {
		return nil, err
	}
	if err := c.checkCount(len(h), "transitions"); err != nil {
		return nil, err
	}
	if h == nil {
		h = []workflow.Transition{}
	}
	return h, nil
}

func workflowsCancel(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	en, p, err := c.runEngine(ctx, params)
	if err != nil {
		return nil, err
	}
	return runResult(en.Cancel(ctx, p.Run, p.Actor))
}

func workflowsReady(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	en, p, err := c.runEngine(ctx, params)
	if err != nil {
		return nil, err
	}
	rs, err := en.Ready(ctx, p.Run)
	if err != nil {
		return nil, err
	}
	out := make([]api.ReadyStep, 0, len(rs))
	for _, r := range rs {
		out = append(out, api.ReadyStepOf(r))
	}
	return out, nil
}

// wfDone is the result of the pull API's writes that return nothing else;
// start_step's has the attempt it started.
type wfDone struct {
	Run     string `json:"run"`
	Step    string `json:"step"`
	Attempt int    `json:"attempt,omitempty"`
}

func workflowsStartStep(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p wfParams
	if err := p.decode(params, "step", "actor"); err != nil {
		return nil, err
	}
	en, err := c.engine(ctx)
	if err != nil {
		return nil, err
	}
	attempt, err := en.StartStep(ctx, p.Run, p.Step, p.Actor)
	if err != nil {
		return nil, err
	}
	return wfDone{Run: p.Run, Step: p.Step, Attempt: attempt}, nil
}

func workflowsCompleteStep(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	return wfStepCall(ctx, c, params, []string{"step"}, func(en *workflow.Engine, p *wfParams) error {
		return en.CompleteStep(ctx, p.Run, p.Step, p.Attempt, p.Outputs)
	})
}

func workflowsFailStep(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	return wfStepCall(ctx, c, params, []string{"step"}, func(en *workflow.Engine, p *wfParams) error {
		return en.FailStep(ctx, p.Run, p.Step, p.Attempt, p.Reason)
	})
}

func workflowsReleaseStep(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	return wfStepCall(ctx, c, params, []string{"step"}, func(en *workflow.Engine, p *wfParams) error {
		return en.ReleaseStep(ctx, p.Run, p.Step, p.Attempt, p.Reason)
	})
}

// wfDriverParams are the params of workflows.claim_driver and
// workflows.release_driver: the run, the driver (its id alone to let go),
// the lease in milliseconds and the holder to replace (a takeover).
type wfDriverParams struct {
	Run     string          `json:"run"`
	Driver  workflow.Driver `json:"driver"`
	LeaseMS int64           `json:"lease_ms"`
	Replace string          `json:"replace"`
}

func workflowsClaimDriver(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p wfDriverParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "run", p.Run, "driver.id", p.Driver.ID, "driver.actor", p.Driver.Actor); err != nil {
		return nil, err
	}
	if maxMS := int64(math.MaxInt64 / time.Millisecond); p.LeaseMS > maxMS {
		// Past what a duration holds: the product would wrap round to
		// another lease.
		return nil, fmt.Errorf("%w: params: lease_ms %d: want 1..%d", api.ErrInvalid, p.LeaseMS, maxMS)
	}
	en, err := c.engine(ctx)
	if err != nil {
		return nil, err
	}
	return runResult(en.ClaimDriver(ctx, p.Run, p.Driver, time.Duration(p.LeaseMS)*time.Millisecond, p.Replace))
}

func workflowsReleaseDriver(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p wfDriverParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "run", p.Run, "driver.id", p.Driver.ID); err != nil {
		return nil, err
	}
	en, err := c.engine(ctx)
	if err != nil {
		return nil, err
	}
	if err := en.ReleaseDriver(ctx, p.Run, p.Driver.ID); err != nil {
		return nil, err
	}
	return wfDone{Run: p.Run}, nil
}

func wfStepCall(ctx context.Context, c *rpcCtx, params json.RawMessage, need []string, fn func(*workflow.Engine, *wfParams) error) (any, error) {
	var p wfParams
	if err := p.decode(params, need...); err != nil {
		return nil, err
	}
	en, err := c.engine(ctx)
	if err != nil {
		return nil, err
	}
	if err := fn(en, &p); err != nil {
		return nil, err
	}
	return wfDone{Run: p.Run, Step: p.Step}, nil
}

func workflowsAddFindings(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p wfParams
	if err := p.decode(params, "step"); err != nil {
		return nil, err
	}
	fs := make([]teammanager.Finding, 0, len(p.Findings))
	for i, fp := range p.Findings {
		f, err := c.finding(fmt.Sprintf("findings/%d/", i), fp)
		if err != nil {
			return nil, err
		}
		fs = append(fs, f)
	}
	en, err := c.engine(ctx)
	if err != nil {
		return nil, err
	}
	ids, err := en.AddFindings(ctx, p.Run, p.Step, p.Attempt, fs)
	if err != nil {
		return nil, err
	}
	if ids == nil {
		ids = []string{}
	}
	return struct {
		IDs []string `json:"ids"`
	}{ids}, nil
}

// engine returns the workflow engine of the call's namespace.
func (c *rpcCtx) engine(ctx context.Context) (*workflow.Engine, error) {
	return c.s.engine(ctx, c.ns, c.m)
}

// runEngine reads the params of a method on one run (run required) and
// returns them with the namespace's engine.
func (c *rpcCtx) runEngine(ctx context.Context, params json.RawMessage) (*workflow.Engine, wfParams, error) {
	var p wfParams
	if err := p.decode(params); err != nil {
		return nil, p, err
	}
	en, err := c.engine(ctx)
	return en, p, err
}

// asDriverMethod runs a call for a driver of a crew or swarm run: its
// writes of the run and of the task board are fenced (workflow.WithDriver).
const asDriverMethod = "workflows.as_driver"

func init() {
	// In init: the method calls invoke, which reads methods.
	methods[asDriverMethod] = method{access: accessRead, run: workflowsAsDriver}
}

// wfAsDriverParams are the params of workflows.as_driver.
type wfAsDriverParams struct {
	Run    string          `json:"run"`
	Driver string          `json:"driver"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// workflowsAsDriver runs method with params as driver driver of run run
// (a client sends a call so when its context carries the driver:
// workflow.WithDriver): the call's writes of the run, and its task board
// writes, are made only while the driver holds the run — it is the run's
// driver, its lease not ended — else they write nothing and fail with
// workflow.ErrDriverBusy (kind conflict). The call's method needs its own
// role and access, as when called alone.
func workflowsAsDriver(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p wfAsDriverParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := required("run", p.Run, "driver", p.Driver, "method", p.Method); err != nil {
		return nil, err
	}
	if p.Method == asDriverMethod {
		return nil, fmt.Errorf("%w: params: method %s: a call for a driver holds one call, not another %s", api.ErrInvalid, p.Method, asDriverMethod)
	}
	if _, known := methods[p.Method]; known {
		if err := allow(ctx, c.ns, roleOf("rpc "+p.Method), p.Method); err != nil {
			return nil, err
		}
	}
	en, err := c.engine(ctx)
	if err != nil {
		return nil, err
	}
	ctx = teammanager.WithWriteCheck(workflow.WithDriver(ctx, p.Run, p.Driver), en.DriverCheck(p.Run, p.Driver))
	return c.s.invoke(ctx, c.ns, p.Method, p.Params)
}
