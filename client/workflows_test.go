package client_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/client"
	"github.com/cortexgraph/cortex/config"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/server"
	"github.com/cortexgraph/cortex/teammanager"
	"github.com/cortexgraph/cortex/workflow"
)

// fanDef is a graph of n independent steps, each with an output "n",
// feeding a final join step that receives s00's output.
func fanDef(n int) workflow.Def {
	d := workflow.Def{Name: "fan", Type: workflow.Graph}
	var deps []string
	for i := range n {
		name := fmt.Sprintf("s%02d", i)
		d.Steps = append(d.Steps, workflow.Step{Name: name, Agent: fmt.Sprintf("a%d", i%3),
			Outputs: []workflow.Port{{Name: "n", Type: workflow.Number}}})
		deps = append(deps, name)
	}
	d.Steps = append(d.Steps, workflow.Step{Name: "join", Agent: "a0", DependsOn: deps,
		Inputs: []workflow.Port{{Name: "first", Type: workflow.Number, From: "s00.n"}}})
	return d
}

func wf(t *testing.T, sock string) *client.Workflows {
	return newClient(t, sock).Workflows(5 * time.Millisecond)
}

// TestWorkflows_TwoDriversThroughOneServer: two drivers, each with its own
// client of one server, drive one run at once; every step runs exactly
// once, the run completes, and the join step receives its upstream
// findings and inputs as the engine resolved them.
func TestWorkflows_TwoDriversThroughOneServer(t *testing.T) {
	sock := startServer(t)
	r, err := wf(t, sock).Start(ctx, fanDef(10), workflow.RunOptions{ID: "two", Strategy: "additive", StepTimeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	if r.ID != "two" || r.StepTimeout != 0 || len(r.Steps) != 11 {
		t.Fatalf("started %+v", r)
	}
	var mu sync.Mutex
	ran := map[string][]string{}
	var join workflow.ReadyStep
	runner := func(driver string) workflow.Runner {
		return workflow.RunnerFunc(func(_ context.Context, rs workflow.ReadyStep) (map[string]any, []teammanager.Finding, error) {
			mu.Lock()
			ran[rs.Step.Name] = append(ran[rs.Step.Name], driver)
			if rs.Step.Name == "join" {
				join = rs
			}
			mu.Unlock()
			if rs.Step.Name == "join" {
				return nil, nil, nil
			}
			return map[string]any{"n": 7}, []teammanager.Finding{{Subject: iri("repo"), Predicate: iri("checked"), Object: quad.String(rs.Step.Name), Confidence: 0.5}}, nil
		})
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := fmt.Sprint("d", i)
			_, errs[i] = workflow.Drive(ctx, wf(t, sock), "two", d, runner(d), 4)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("driver %d: %v", i, err)
		}
	}
	for _, s := range r.Steps {
		if len(ran[s.Name]) != 1 {
			t.Errorf("step %s ran %d times (%v), want once", s.Name, len(ran[s.Name]), ran[s.Name])
		}
	}
	got, err := wf(t, sock).Get(ctx, "two")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != workflow.RunCompleted {
		t.Fatalf("run %s: %s", got.Status, got.Error)
	}
	if join.Inputs["first"] != float64(7) || len(join.Upstream) != 10 {
		t.Fatalf("join received inputs %v and %d upstream facts, want first=7 and 10", join.Inputs, len(join.Upstream))
	}
	f := join.Upstream[0]
	if f.Subject != iri("repo") || f.Predicate != iri("checked") || len(f.Supporters) != 1 || len(f.FindingIDs) != 1 {
		t.Fatalf("upstream fact %+v", f)
	}
	if _, ok := f.Object.(quad.String); !ok {
		t.Fatalf("upstream object %#v, want a string literal", f.Object)
	}
}

// TestWorkflows_Errors: the workflow package's errors cross the wire
// (errors.Is matches its sentinels) and leave the run as it was.
func TestWorkflows_Errors(t *testing.T) {
	w := wf(t, startServer(t))
	if _, err := w.Start(ctx, workflow.Def{Name: "bad", Type: workflow.Graph, Steps: []workflow.Step{{Name: "a", Agent: "x", DependsOn: []string{"nowhere"}}}}, workflow.RunOptions{}); !errors.Is(err, workflow.ErrInvalidDef) {
		t.Fatalf("start an invalid def: %v", err)
	}
	if _, err := w.Start(ctx, fanDef(2), workflow.RunOptions{ID: "bad id!"}); !errors.Is(err, workflow.ErrInvalidRun) {
		t.Fatalf("start with a bad id: %v", err)
	}
	if _, err := w.Start(ctx, fanDef(2), workflow.RunOptions{ID: "e"}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Get(ctx, "nope"); !errors.Is(err, workflow.ErrUnknownRun) || api.ExitCode(err) != api.ExitNotFound {
		t.Fatalf("get unknown run: %v", err)
	}
	if _, err := w.Get(ctx, "a/b"); !errors.Is(err, namespace.ErrInvalidID) || !errors.Is(err, workflow.ErrUnknownRun) || api.ExitCode(err) != api.ExitInvalid {
		t.Fatalf("get a run id no run can have: %v (exit %d), want invalid_id and unknown_run, exit 7", err, api.ExitCode(err))
	}
	if _, err := w.Start(ctx, fanDef(2), workflow.RunOptions{ID: "e"}); !errors.Is(err, workflow.ErrRunExists) {
		t.Fatalf("start twice: %v", err)
	}
	if _, err := w.StartStep(ctx, "e", "s00", "me"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.StartStep(ctx, "e", "s00", "you"); !errors.Is(err, workflow.ErrInvalidTransition) {
		t.Fatalf("start a running step: %v", err)
	}
	if _, err := w.StartStep(ctx, "e", "zz", "me"); !errors.Is(err, workflow.ErrUnknownStep) {
		t.Fatalf("start an unknown step: %v", err)
	}
	if _, err := w.StartStep(ctx, "e", "s00\n", "me"); !errors.Is(err, namespace.ErrInvalidID) || !errors.Is(err, workflow.ErrUnknownStep) || api.ExitCode(err) != api.ExitInvalid {
		t.Fatalf("start a step name no step can have: %v (exit %d), want invalid_id and unknown_step, exit 7", err, api.ExitCode(err))
	}
	if err := w.CompleteStep(ctx, "e", "s00", 1, map[string]any{"n": "seven"}); !errors.Is(err, workflow.ErrInvalidOutput) {
		t.Fatalf("complete with a bad output: %v", err)
	}
	if _, err := w.AddFindings(ctx, "e", "s00", 1, []teammanager.Finding{{Subject: iri("a"), Predicate: iri("b"), Object: quad.String("c"), Confidence: 2}}); !errors.Is(err, teammanager.ErrInvalidFinding) {
		t.Fatalf("add a bad finding: %v", err)
	}
	// JSON has no NaN: refused as the Manager refuses it, not as an
	// encoding error (exit 1).
	if _, err := w.AddFindings(ctx, "e", "s00", 1, []teammanager.Finding{{Subject: iri("a"), Predicate: iri("b"), Object: quad.String("c")}, {Subject: iri("a"), Predicate: iri("b"), Object: quad.String("c"), Confidence: math.NaN()}}); !errors.Is(err, teammanager.ErrInvalidFinding) ||
		api.ExitCode(err) != api.ExitInvalid || !strings.Contains(err.Error(), "run e: step s00: finding 2 of 2: invalid finding: confidence NaN not in [0, 1]") {
		t.Fatalf("add a finding of confidence NaN: %v (exit %d)", err, api.ExitCode(err))
	}
	// As the Engine refuses it in process (it was a usage error, exit 2).
	if _, err := w.StartStep(ctx, "e", "s00", ""); !errors.Is(err, workflow.ErrInvalidRun) || api.ExitCode(err) != api.ExitInvalid {
		t.Fatalf("start_step without an actor: %v, want invalid_run (exit 7)", err)
	}
	r, err := w.Get(ctx, "e")
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := r.Step("s00"); s.Status != workflow.StepRunning || s.Actor != "me" || len(s.Findings) != 0 {
		t.Fatalf("after the refused calls, s00 is %+v", s)
	}
	if err := w.ReleaseStep(ctx, "e", "s00", 1, "giving up"); err != nil {
		t.Fatal(err)
	}
	ready, err := w.Ready(ctx, "e")
	if err != nil || len(ready) != 2 {
		t.Fatalf("ready after release: %v, %v", ready, err)
	}
	if _, err := w.Cancel(ctx, "e", "tester"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Cancel(ctx, "e", "tester"); !errors.Is(err, workflow.ErrRunFinished) {
		t.Fatalf("cancel twice: %v", err)
	}
	runs, err := w.List(ctx, workflow.RunCancelled)
	if err != nil || len(runs) != 1 || runs[0].ID != "e" {
		t.Fatalf("list cancelled: %v, %v", runs, err)
	}
	h, err := w.History(ctx, "e")
	if err != nil || len(h) == 0 || h[len(h)-1].To != string(workflow.RunCancelled) || h[len(h)-1].Actor != "tester" {
		t.Fatalf("history: %+v, %v", h, err)
	}
}

// TestWorkflows_DriverHeldThroughServer: a crew run's driver hold through
// a server: a second driver's claim is refused with driver_busy (exit 4,
// the holder named), the holder renews and lets go, and then the second
// one gets the run; a graph run has no driver.
func TestWorkflows_DriverHeldThroughServer(t *testing.T) {
	sock := startServer(t)
	w := wf(t, sock)
	crew := workflow.Def{Name: "dev", Type: workflow.Crew, Lead: "architect", Agents: []string{"architect", "backend"},
		Specialists: []string{"backend"}, MaxTurns: 3}
	r, err := w.Start(ctx, crew, workflow.RunOptions{ID: "crew"})
	if err != nil {
		t.Fatal(err)
	}
	a, b := workflow.NewDriver("first"), workflow.NewDriver("second")
	got, err := w.ClaimDriver(ctx, r.ID, a, time.Hour, "")
	if err != nil || got.Driver == nil || got.Driver.ID != a.ID || got.Driver.PID != a.PID || got.Driver.Until.IsZero() {
		t.Fatalf("claim: %+v, %v", got.Driver, err)
	}
	_, err = w.ClaimDriver(ctx, r.ID, b, time.Hour, "")
	var ce *client.Error
	if !errors.Is(err, workflow.ErrDriverBusy) || !errors.As(err, &ce) || ce.ExitCode != api.ExitConflict || !strings.Contains(err.Error(), a.ID) {
		t.Fatalf("second claim: %v, want driver_busy naming %s", err, a.ID)
	}
	if _, err := w.ClaimDriver(ctx, r.ID, a, time.Hour, ""); err != nil {
		t.Fatalf("renewal: %v", err)
	}
	if err := w.ReleaseDriver(ctx, r.ID, a.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := w.Get(ctx, r.ID); err != nil || got.Driver != nil {
		t.Fatalf("let go of: %+v, %v", got.Driver, err)
	}
	if _, err := w.ClaimDriver(ctx, r.ID, a, time.Hour, ""); !errors.Is(err, workflow.ErrDriverBusy) || api.ExitCode(err) != api.ExitConflict {
		t.Fatalf("the driver that let go claims again: %v, want driver_busy", err)
	}
	if got, err := w.ClaimDriver(ctx, r.ID, b, time.Hour, ""); err != nil || got.Driver.ID != b.ID {
		t.Fatalf("after the first let go: %+v, %v", got.Driver, err)
	}
	// As the Engine refuses it in process (it was a usage error, exit 2).
	if _, err := w.ClaimDriver(ctx, r.ID, workflow.Driver{ID: "x"}, time.Hour, ""); !errors.Is(err, workflow.ErrInvalidRun) || api.ExitCode(err) != api.ExitInvalid {
		t.Fatalf("a driver without an actor: %v, want invalid_run (exit 7)", err)
	}
	g, err := w.Start(ctx, fanDef(2), workflow.RunOptions{ID: "fan"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.ClaimDriver(ctx, g.ID, a, time.Hour, ""); !errors.Is(err, workflow.ErrInvalidRun) {
		t.Fatalf("a graph run: %v, want invalid_run", err)
	}
}

// TestWorkflows_StaleAttempt: through a server as in process, start_step
// returns the attempt it started, and a late runner's calls for an attempt
// that was given back and started again are refused (an *Error matching
// workflow.ErrStaleAttempt and ErrInvalidTransition, exit 4) and write
// nothing; the current attempt completes the step.
func TestWorkflows_StaleAttempt(t *testing.T) {
	w := wf(t, startServer(t))
	if _, err := w.Start(ctx, fanDef(1), workflow.RunOptions{ID: "late"}); err != nil {
		t.Fatal(err)
	}
	first, err := w.StartStep(ctx, "late", "s00", "driver-a")
	if err != nil || first != 1 {
		t.Fatalf("start: attempt %d, %v; want 1", first, err)
	}
	if err := w.ReleaseStep(ctx, "late", "s00", first, "driver-a stopped"); err != nil {
		t.Fatal(err)
	}
	second, err := w.StartStep(ctx, "late", "s00", "driver-b")
	if err != nil || second != 2 {
		t.Fatalf("restart: attempt %d, %v; want 2", second, err)
	}
	before, err := w.Get(ctx, "late")
	if err != nil {
		t.Fatal(err)
	}
	_, ferr := w.AddFindings(ctx, "late", "s00", first, []teammanager.Finding{{Subject: iri("a"), Predicate: iri("b"), Object: quad.String("c")}})
	for what, err := range map[string]error{
		"add_findings":  ferr,
		"complete_step": w.CompleteStep(ctx, "late", "s00", first, map[string]any{"n": 1}),
		"fail_step":     w.FailStep(ctx, "late", "s00", first, "late"),
		"release_step":  w.ReleaseStep(ctx, "late", "s00", first, "late"),
	} {
		if !errors.Is(err, workflow.ErrStaleAttempt) || !errors.Is(err, workflow.ErrInvalidTransition) || api.ExitCode(err) != api.ExitConflict ||
			!strings.Contains(err.Error(), "attempt 1 is stale: the step's current attempt is 2 (running)") {
			t.Fatalf("%s of attempt %d: %v, want a stale attempt (exit 4)", what, first, err)
		}
	}
	if after, err := w.Get(ctx, "late"); err != nil || !reflect.DeepEqual(after, before) {
		t.Fatalf("the stale calls changed the run (%v):\n%+v\nwant\n%+v", err, after, before)
	}
	if err := w.CompleteStep(ctx, "late", "s00", second, map[string]any{"n": 2}); err != nil {
		t.Fatalf("complete the current attempt: %v", err)
	}
	r, err := w.Get(ctx, "late")
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := r.Step("s00"); s.Status != workflow.StepCompleted || s.Attempt != 2 || s.Actor != "driver-b" || s.Outputs["n"] != float64(2) {
		t.Fatalf("s00 %+v, want completed by attempt 2 of driver-b", s)
	}
}

// embeddedEngine returns a workflow engine over a store of its own
// (namespace acme, the default config): what a client's Workflows are
// compared with.
func embeddedEngine(t *testing.T) *workflow.Engine {
	t.Helper()
	e, _ := embeddedBoard(t)
	return e
}

// embeddedBoard is embeddedEngine with the team manager under it.
func embeddedBoard(t *testing.T) (*workflow.Engine, *teammanager.Manager) {
	t.Helper()
	s := cortextest.NewStore(t)
	x, err := namespace.New("acme", namespace.WithBase(config.Default().NamespaceBase("acme")))
	if err != nil {
		t.Fatal(err)
	}
	m, err := teammanager.New(ctx, s, x, teammanager.FromConfig(config.Default().Teams))
	if err != nil {
		t.Fatal(err)
	}
	e, err := workflow.New(ctx, s, m, workflow.FromConfig(config.Default().Teams))
	if err != nil {
		t.Fatal(err)
	}
	return e, m
}

// TestWorkflows_NonFiniteValues: a run input or a step output that JSON
// cannot carry (NaN, ±Inf, at any depth) is refused through a server as
// the embedded Engine refuses it — ErrInvalidRun or ErrInvalidOutput,
// exit 7, word for word — not with the client's encoding error (exit 1);
// nothing is written.
func TestWorkflows_NonFiniteValues(t *testing.T) {
	type engine interface {
		workflow.Pull
		Start(ctx context.Context, d workflow.Def, opts workflow.RunOptions) (workflow.Run, error)
		List(ctx context.Context, st workflow.RunStatus) ([]workflow.Run, error)
	}
	embedded := func(t *testing.T) engine { return embeddedEngine(t) }
	remote := func(t *testing.T) engine { return wf(t, startServer(t)) }
	d := fanDef(2)
	d.Steps[0].Inputs = []workflow.Port{{Name: "x", Type: workflow.Number, Optional: true}}
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name string
		call func(e engine) error
		want error
	}{
		{"input NaN", func(e engine) error {
			return errOf(e.Start(ctx, d, workflow.RunOptions{ID: "r2", Inputs: map[string]any{"x": nan}}))
		}, workflow.ErrInvalidRun},
		{"input +Inf", func(e engine) error {
			return errOf(e.Start(ctx, d, workflow.RunOptions{ID: "r2", Inputs: map[string]any{"x": inf}}))
		}, workflow.ErrInvalidRun},
		{"input -Inf in a list", func(e engine) error {
			return errOf(e.Start(ctx, d, workflow.RunOptions{ID: "r2", Inputs: map[string]any{"x": 1, "y": []any{1, -inf}}}))
		}, workflow.ErrInvalidRun},
		{"input float32 NaN in an object", func(e engine) error {
			return errOf(e.Start(ctx, d, workflow.RunOptions{ID: "r2", Inputs: map[string]any{"y": map[string]any{"z": float32(nan)}}}))
		}, workflow.ErrInvalidRun},
		{"input not UTF-8 in a list", func(e engine) error {
			return errOf(e.Start(ctx, d, workflow.RunOptions{ID: "r2", Inputs: map[string]any{"x": 1, "y": []any{"a\xff"}}}))
		}, workflow.ErrInvalidRun},
		{"output not UTF-8", func(e engine) error {
			return e.CompleteStep(ctx, "r1", "s00", 1, map[string]any{"n": 1, "note": "b\xffd"})
		}, workflow.ErrInvalidOutput},
		{"output key not UTF-8", func(e engine) error {
			return e.CompleteStep(ctx, "r1", "s00", 1, map[string]any{"n": 1, "k\xff": 1})
		}, workflow.ErrInvalidOutput},
		{"output NaN", func(e engine) error {
			return e.CompleteStep(ctx, "r1", "s00", 1, map[string]any{"n": nan})
		}, workflow.ErrInvalidOutput},
		{"output -Inf", func(e engine) error {
			return e.CompleteStep(ctx, "r1", "s00", 1, map[string]any{"n": -inf})
		}, workflow.ErrInvalidOutput},
		{"output +Inf nested", func(e engine) error {
			return e.CompleteStep(ctx, "r1", "s00", 1, map[string]any{"n": 1, "extra": []any{map[string]any{"v": inf}}})
		}, workflow.ErrInvalidOutput},
	}
	got := map[string][]error{}
	for _, b := range []struct {
		name string
		open func(t *testing.T) engine
	}{{"embedded", embedded}, {"remote", remote}} {
		e := b.open(t)
		if _, err := e.Start(ctx, d, workflow.RunOptions{ID: "r1", Inputs: map[string]any{"x": 1.5}}); err != nil {
			t.Fatalf("%s: start: %v", b.name, err)
		}
		if _, err := e.StartStep(ctx, "r1", "s00", "me"); err != nil {
			t.Fatalf("%s: start step: %v", b.name, err)
		}
		for _, tc := range cases {
			err := tc.call(e)
			if !errors.Is(err, tc.want) || api.ExitCode(err) != api.ExitInvalid {
				t.Errorf("%s: %s: %v (exit %d), want an error matching %v (exit %d)", b.name, tc.name, err, api.ExitCode(err), tc.want, api.ExitInvalid)
			}
			got[b.name] = append(got[b.name], err)
		}
		runs, err := e.List(ctx, "")
		if err != nil || len(runs) != 1 || runs[0].ID != "r1" {
			t.Fatalf("%s: runs after the refused starts: %+v, %v; want r1 alone", b.name, runs, err)
		}
		if s, _ := runs[0].Step("s00"); s.Status != workflow.StepRunning || len(s.Outputs) != 0 {
			t.Fatalf("%s: s00 after the refused completions: %+v", b.name, s)
		}
		// A finite value still goes through.
		if err := e.CompleteStep(ctx, "r1", "s00", 1, map[string]any{"n": 7}); err != nil {
			t.Fatalf("%s: complete s00: %v", b.name, err)
		}
	}
	for i, tc := range cases {
		if e, r := got["embedded"][i], got["remote"][i]; e == nil || r == nil || e.Error() != r.Error() {
			t.Errorf("%s: remote %q, embedded %q", tc.name, r, e)
		}
	}
}

// TestWorkflows_ClaimDriverUntil: the Until of the driver given to
// ClaimDriver is not read — the lease ends ttl from now on the store's
// clock — so one JSON cannot carry (after year 9999) is taken through a
// server as the embedded Engine takes it; the client sent it and failed
// with the encoding error of its params (exit 1). Both hold the run for
// the driver until now + ttl, and a renewal with such an Until, too.
func TestWorkflows_ClaimDriverUntil(t *testing.T) {
	onCrewRun(t, func(t *testing.T, e driverClaimer) {
		d := workflow.NewDriver("me")
		for _, until := range []time.Time{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)} {
			d.Until = until
			before := time.Now()
			r, err := e.ClaimDriver(ctx, "crew", d, time.Hour, "")
			if err != nil {
				t.Fatalf("claim with until %v: %v (exit %d)", until, err, api.ExitCode(err))
			}
			if g := r.Driver; g == nil || g.ID != d.ID || g.Until.Before(before.Add(time.Hour-time.Second)) || g.Until.After(time.Now().Add(time.Hour)) {
				t.Fatalf("claim with until %v: driver %+v, want %s until an hour from now", until, g, d.ID)
			}
		}
	})
}

// driverClaimer is what the driver-claim tests use of an Engine, embedded
// or through a server.
type driverClaimer interface {
	Start(ctx context.Context, d workflow.Def, opts workflow.RunOptions) (workflow.Run, error)
	ClaimDriver(ctx context.Context, id string, d workflow.Driver, ttl time.Duration, replace string) (workflow.Run, error)
}

// onCrewRun runs fn, embedded and through a server, on an Engine holding a
// crew run "crew".
func onCrewRun(t *testing.T, fn func(t *testing.T, e driverClaimer)) {
	crew := workflow.Def{Name: "dev", Type: workflow.Crew, Lead: "architect", Agents: []string{"architect", "backend"},
		Specialists: []string{"backend"}, MaxTurns: 3}
	for _, b := range []struct {
		name string
		open func(t *testing.T) driverClaimer
	}{
		{"embedded", func(t *testing.T) driverClaimer { return embeddedEngine(t) }},
		{"remote", func(t *testing.T) driverClaimer { return wf(t, startServer(t)) }},
	} {
		t.Run(b.name, func(t *testing.T) {
			e := b.open(t)
			if _, err := e.Start(ctx, crew, workflow.RunOptions{ID: "crew"}); err != nil {
				t.Fatal(err)
			}
			fn(t, e)
		})
	}
}

// TestWorkflows_ClaimDriverShortLease: a lease shorter than a millisecond,
// which the embedded Engine takes, is taken through a server too (the
// client sent it as lease_ms 0, which the server refused, exit 7); a lease
// of no time is refused by both.
func TestWorkflows_ClaimDriverShortLease(t *testing.T) {
	onCrewRun(t, func(t *testing.T, e driverClaimer) {
		d := workflow.NewDriver("me")
		for _, ttl := range []time.Duration{time.Nanosecond, 500 * time.Microsecond} {
			if _, err := e.ClaimDriver(ctx, "crew", d, ttl, ""); err != nil {
				t.Errorf("claim for %s: %v (exit %d)", ttl, err, api.ExitCode(err))
			}
		}
		if _, err := e.ClaimDriver(ctx, "crew", workflow.NewDriver("me"), 0, ""); !errors.Is(err, workflow.ErrInvalidRun) {
			t.Errorf("claim for 0: %v, want ErrInvalidRun", err)
		}
	})
}

// TestWorkflows_TooDeepForTheServer: params nested deeper than the
// server's JSON reader goes (10,000 levels) are answered at once with its
// parse error (kind syntax). On the stream that error comes with id null,
// which the client takes for the end of the stream: the call waited for
// the server to close the stream idle, twice, and failed unavailable.
func TestWorkflows_TooDeepForTheServer(t *testing.T) {
	s := cortextest.NewStore(t)
	sock := filepath.Join(t.TempDir(), "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- server.New(s, server.DefaultOptions().WithIdleTimeout(500*time.Millisecond)).Serve(sctx, l)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	c := newClient(t, sock)
	w := c.Workflows(5 * time.Millisecond)
	if _, err := w.Start(ctx, fanDef(2), workflow.RunOptions{ID: "ok"}); err != nil { // the stream is open
		t.Fatal(err)
	}
	var v any = 1
	for range 9998 {
		v = []any{v}
	}
	// Workflows.Start refuses inputs that deep itself (MaxValueDepth): the
	// params go as they are.
	err = c.Call(ctx, "workflows.start", map[string]any{"def": fanDef(2), "id": "deep", "inputs": map[string]any{"y": v}}, nil)
	if err == nil || errors.Is(err, api.ErrUnavailable) || api.ExitCode(err) != api.ExitSyntax {
		t.Fatalf("start with inputs too deep for the server: %v (exit %d), want its parse error (exit %d)", err, api.ExitCode(err), api.ExitSyntax)
	}
	if _, err := w.Get(ctx, "ok"); err != nil {
		t.Fatalf("a call after it: %v", err)
	}
}

// TestWorkflows_TooDeepValues: run inputs and step outputs nested deeper
// than encoding/json reads are refused through a server as the embedded
// Engine refuses them (ErrInvalidRun, ErrInvalidOutput, exit 7, word for
// word), not with the server's parse error of the request (exit 5).
func TestWorkflows_TooDeepValues(t *testing.T) {
	var deep any = 1
	for range 10000 {
		deep = []any{deep}
	}
	d := fanDef(2)
	got := map[string][]error{}
	for _, b := range engineModes {
		e := b.open(t)
		_, err := e.Start(ctx, d, workflow.RunOptions{ID: "deep", Inputs: map[string]any{"y": deep}})
		if !errors.Is(err, workflow.ErrInvalidRun) || api.ExitCode(err) != api.ExitInvalid {
			t.Errorf("%s: start: %v (exit %d), want ErrInvalidRun (exit 7)", b.name, err, api.ExitCode(err))
		}
		got[b.name] = append(got[b.name], err)
		if _, err := e.Start(ctx, d, workflow.RunOptions{ID: "r1"}); err != nil {
			t.Fatal(err)
		}
		n, err := e.StartStep(ctx, "r1", "s00", "me")
		if err != nil {
			t.Fatal(err)
		}
		err = e.CompleteStep(ctx, "r1", "s00", n, map[string]any{"n": 1, "extra": deep})
		if !errors.Is(err, workflow.ErrInvalidOutput) || api.ExitCode(err) != api.ExitInvalid {
			t.Errorf("%s: complete: %v (exit %d), want ErrInvalidOutput (exit 7)", b.name, err, api.ExitCode(err))
		}
		got[b.name] = append(got[b.name], err)
	}
	for i := range got["embedded"] {
		if e, r := got["embedded"][i], got["remote"][i]; e == nil || r == nil || e.Error() != r.Error() {
			t.Errorf("call %d: remote %q, embedded %q", i, r, e)
		}
	}
}

// nestedList returns a value that is depth lists nested in one another
// (depth ≥ 1), the innermost holding 1.
func nestedList(depth int) any {
	var v any = 1.0
	for range depth {
		v = []any{v}
	}
	return v
}

// TestWorkflows_NestingLimit: a run input or step output nested as deep as
// a value may be (workflow.MaxValueDepth, counting the inputs or outputs
// map as level 1) is taken, embedded and through a server alike, and
// reads back; one level deeper is refused by both with the same error
// (ErrInvalidRun / ErrInvalidOutput, exit 7), nothing written. Inputs
// nested 9,998 to 10,000 levels were taken embedded and refused through a
// server (its JSON reader's limit, which the request's envelope reaches
// first).
func TestWorkflows_NestingLimit(t *testing.T) {
	d := fanDef(2)
	d.Steps[0].Inputs = []workflow.Port{{Name: "x", Type: workflow.Array, Optional: true}}
	d.Steps[0].Outputs = append(d.Steps[0].Outputs, workflow.Port{Name: "x", Type: workflow.Array})
	limit := workflow.MaxValueDepth
	depths := []int{limit - 1, limit, limit + 1, 9997, 9998, 9999, 10000, 10001}
	got := map[string][]string{}
	for _, b := range engineModes {
		e := b.open(t)
		for _, depth := range depths {
			// The inputs map is level 1, "x"'s value level 2 and deeper.
			id := fmt.Sprintf("in%d", depth)
			_, err := e.Start(ctx, d, workflow.RunOptions{ID: id, Inputs: map[string]any{"x": nestedList(depth - 1)}})
			switch {
			case depth <= limit && err != nil:
				t.Errorf("%s: inputs nested %d deep: %v, want taken", b.name, depth, err)
			case depth <= limit:
				ready, err := e.Ready(ctx, id)
				if err != nil || len(ready) == 0 || ready[0].Inputs["x"] == nil {
					t.Errorf("%s: inputs nested %d deep: ready %d, %v", b.name, depth, len(ready), err)
				}
			case !errors.Is(err, workflow.ErrInvalidRun) || api.ExitCode(err) != api.ExitInvalid:
				t.Errorf("%s: inputs nested %d deep: %v (exit %d), want ErrInvalidRun (exit 7)", b.name, depth, err, api.ExitCode(err))
			default:
				if _, gerr := e.Get(ctx, id); !errors.Is(gerr, workflow.ErrUnknownRun) {
					t.Errorf("%s: inputs nested %d deep, refused: the run reads %v", b.name, depth, gerr)
				}
			}
			got[b.name] = append(got[b.name], fmt.Sprint(err))

			id = fmt.Sprintf("out%d", depth)
			if _, err := e.Start(ctx, d, workflow.RunOptions{ID: id}); err != nil {
				t.Fatalf("%s: start: %v", b.name, err)
			}
			attempt, err := e.StartStep(ctx, id, "s00", "me")
			if err != nil {
				t.Fatalf("%s: start step: %v", b.name, err)
			}
			err = e.CompleteStep(ctx, id, "s00", attempt, map[string]any{"n": 1, "x": nestedList(depth - 1)})
			switch {
			case depth <= limit && err != nil:
				t.Errorf("%s: outputs nested %d deep: %v, want taken", b.name, depth, err)
			case depth <= limit:
				r, gerr := e.Get(ctx, id)
				if s, _ := r.Step("s00"); gerr != nil || s.Status != workflow.StepCompleted || s.Outputs["x"] == nil {
					t.Errorf("%s: outputs nested %d deep: %+v, %v", b.name, depth, s, gerr)
				}
			case !errors.Is(err, workflow.ErrInvalidOutput) || api.ExitCode(err) != api.ExitInvalid:
				t.Errorf("%s: outputs nested %d deep: %v (exit %d), want ErrInvalidOutput (exit 7)", b.name, depth, err, api.ExitCode(err))
			}
			got[b.name] = append(got[b.name], fmt.Sprint(err))
		}
	}
	if e, r := got["embedded"], got["remote"]; !slices.Equal(e, r) {
		t.Errorf("embedded and remote differ:\nembedded %q\nremote   %q", e, r)
	}
}

// ledFuncs is a workflow.LedRunner from two funcs.
type ledFuncs struct {
	lead func(turn workflow.LeadTurn) ([]workflow.LeadOp, error)
	task func(w workflow.TaskWork) (workflow.TaskResult, error)
}

func (r ledFuncs) Lead(_ context.Context, turn workflow.LeadTurn) ([]workflow.LeadOp, error) {
	return r.lead(turn)
}

func (r ledFuncs) Task(_ context.Context, w workflow.TaskWork) (workflow.TaskResult, error) {
	return r.task(w)
}

// TestWorkflows_DriverFencedThroughServer: a driver of a crew run through
// a server whose run another driver takes over while its lead works (or
// while a member's task runs) does not act on the run — the server fences
// its writes as the embedded Engine does: the lead's answer is not
// applied, the member's result not recorded — and the drive stops with
// ErrDriverBusy. The lease is an hour: no renewal runs meanwhile to tell
// the driver.
func TestWorkflows_DriverFencedThroughServer(t *testing.T) {
	for _, duringTask := range []bool{false, true} {
		t.Run(fmt.Sprintf("during task %v", duringTask), func(t *testing.T) {
			c, w, r, takeOver := crewTakenOver(t, false)
			runner := ledFuncs{
				lead: func(turn workflow.LeadTurn) ([]workflow.LeadOp, error) {
					if !duringTask {
						takeOver()
					}
					return []workflow.LeadOp{{Op: workflow.OpCreate, Subject: "build", Assignee: "backend"}}, nil
				},
				task: func(workflow.TaskWork) (workflow.TaskResult, error) {
					takeOver()
					return workflow.TaskResult{Result: "built"}, nil
				},
			}
			_, err := workflow.DriveLedWith(ctx, w, c, r.ID, "driver", runner, workflow.LedOptions{Lease: time.Hour})
			if !errors.Is(err, workflow.ErrDriverBusy) {
				t.Fatalf("drive: %v, want ErrDriverBusy", err)
			}
			tasks, err := c.ListTasks(ctx, r.Team, teammanager.TaskFilter{})
			if err != nil {
				t.Fatal(err)
			}
			run, err := w.Get(ctx, r.ID)
			if err != nil {
				t.Fatal(err)
			}
			turn1, _ := run.Step("turn-1/architect")
			if !duringTask {
				if len(tasks) != 0 || turn1.Status != workflow.StepReady {
					t.Errorf("the lead's answer after the takeover was applied: tasks %+v, turn 1 %s", tasks, turn1.Status)
				}
				return
			}
			if len(tasks) != 1 || tasks[0].Status == teammanager.TaskInReview || tasks[0].Result != "" {
				t.Errorf("the member's result after the takeover was recorded: %+v", tasks)
			}
		})
	}
}

// TestWorkflows_LeadTurnOneWriteThroughServer: through a server as in
// process, a lead's turn is one write of the board: a turn whose last
// operation the board refuses (approve a task it does not have) fails,
// and so the run, with nothing of the turn written (the two tasks
// before it were created); a driver taken over while it applies its
// lead's answer (after its first create, or before the turn's write)
// writes nothing of it, gives the turn back and stops with
// ErrDriverBusy.
func TestWorkflows_LeadTurnOneWriteThroughServer(t *testing.T) {
	turn := []workflow.LeadOp{
		{Op: workflow.OpCreate, Subject: "build", Assignee: "backend", Ref: "b"},
		{Op: workflow.OpCreate, Subject: "check", Assignee: "backend", BlockedBy: []string{"b"}},
	}
	t.Run("refused", func(t *testing.T) {
		c, w, r, _ := crewTakenOver(t, false)
		runner := ledFuncs{lead: func(workflow.LeadTurn) ([]workflow.LeadOp, error) {
			return append(slices.Clone(turn), workflow.LeadOp{Op: workflow.OpApprove, Task: "T99"}), nil
		}}
		got, err := workflow.DriveLedWith(ctx, w, c, r.ID, "driver", runner, workflow.LedOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != workflow.RunFailed || !strings.Contains(got.Error, "lead operation 3 (approve)") {
			t.Fatalf("run %s %q, want failed by operation 3", got.Status, got.Error)
		}
		if tasks, err := c.ListTasks(ctx, r.Team, teammanager.TaskFilter{}); err != nil || len(tasks) != 0 {
			t.Fatalf("tasks %+v, %v; want none of the refused turn", tasks, err)
		}
	})
	t.Run("taken over", func(t *testing.T) {
		c, w, r, takeOver := crewTakenOver(t, false)
		runner := ledFuncs{lead: func(workflow.LeadTurn) ([]workflow.LeadOp, error) { return turn, nil }}
		once := sync.OnceFunc(takeOver)
		b := &takeoverClientBoard{turnHookBoard{Client: c, before: once}, once}
		_, err := workflow.DriveLedWith(ctx, w, b, r.ID, "driver", runner, workflow.LedOptions{Lease: time.Hour})
		if !errors.Is(err, workflow.ErrDriverBusy) {
			t.Fatalf("drive: %v, want ErrDriverBusy", err)
		}
		if tasks, err := c.ListTasks(ctx, r.Team, teammanager.TaskFilter{}); err != nil || len(tasks) != 0 {
			t.Fatalf("tasks %+v, %v; want none of the turn", tasks, err)
		}
		run, err := w.Get(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if s, _ := run.Step("turn-1/architect"); s.Status != workflow.StepReady {
			t.Errorf("turn 1: %s, want ready (given back)", s.Status)
		}
	})
}

// takeoverClientBoard is a turnHookBoard that also calls afterCreate once
// each CreateTask has returned (a lead's operations applied one call at a
// time would make their first write there).
type takeoverClientBoard struct {
	turnHookBoard
	afterCreate func()
}

func (b *takeoverClientBoard) CreateTask(ctx context.Context, team, by string, nt teammanager.NewTask) (teammanager.Task, error) {
	t, err := b.Client.CreateTask(ctx, team, by, nt)
	b.afterCreate()
	return t, err
}

// TestWorkflows_DefaultsLikeInputs: a step input's default is held to
// what a run input is (workflow.CheckValues): one nested deeper than a run
// input may be, or one JSON cannot carry, is refused by Start with the
// same error embedded and through a server (ErrInvalidDef, exit 7), and
// nothing is written; a default nested as deep as an input may be is
// taken, and the step receives it. A default nested near encoding/json's
// 10,000 levels was taken embedded, stored, and the run could not be read
// back (its definition did not decode), while a server refused the
// request with its parse error.
func TestWorkflows_DefaultsLikeInputs(t *testing.T) {
	withDefault := func(v any) workflow.Def {
		d := fanDef(2)
		d.Steps[0].Inputs = []workflow.Port{{Name: "x", Type: workflow.Array, Default: v}}
		return d
	}
	limit := workflow.MaxValueDepth
	cases := []struct {
		name string
		def  any
		ok   bool
	}{
		{"as deep as an input", nestedList(limit - 1), true},
		{"deeper than an input", nestedList(limit), false},
		{"near the JSON reader's limit", nestedList(9994), false},
		{"NaN inside", []any{math.NaN()}, false},
		{"not UTF-8 inside", []any{"a\xff"}, false},
	}
	got := map[string][]string{}
	for _, b := range engineModes {
		e := b.open(t)
		for i, tc := range cases {
			id := fmt.Sprintf("d%d", i)
			_, err := e.Start(ctx, withDefault(tc.def), workflow.RunOptions{ID: id})
			got[b.name] = append(got[b.name], fmt.Sprint(err))
			if tc.ok {
				if err != nil {
					t.Errorf("%s: %s: %v, want taken", b.name, tc.name, err)
					continue
				}
				ready, err := e.Ready(ctx, id)
				if err != nil || len(ready) == 0 || ready[0].Inputs["x"] == nil {
					t.Errorf("%s: %s: ready %d, %v", b.name, tc.name, len(ready), err)
				}
				continue
			}
			if !errors.Is(err, workflow.ErrInvalidDef) || api.ExitCode(err) != api.ExitInvalid {
				t.Errorf("%s: %s: %v (exit %d), want ErrInvalidDef (exit 7)", b.name, tc.name, err, api.ExitCode(err))
			}
			if _, gerr := e.Get(ctx, id); !errors.Is(gerr, workflow.ErrUnknownRun) {
				t.Errorf("%s: %s: refused, the run reads %v", b.name, tc.name, gerr)
			}
		}
	}
	if e, r := got["embedded"], got["remote"]; !slices.Equal(e, r) {
		t.Errorf("embedded and remote differ:\nembedded %q\nremote   %q", e, r)
	}
}

// startEngine is what the value-limit tests need of a workflow engine,
// embedded or through a server.
type startEngine interface {
	workflow.Pull
	Start(ctx context.Context, d workflow.Def, opts workflow.RunOptions) (workflow.Run, error)
}

// engineModes opens a workflow engine each way: embedded and through a
// server.
var engineModes = []struct {
	name string
	open func(t *testing.T) startEngine
}{
	{"embedded", func(t *testing.T) startEngine { return embeddedEngine(t) }},
	{"remote", func(t *testing.T) startEngine { return wf(t, startServer(t)) }},
}

// TestWorkflows_OptionsNotUTF8: a run's strategy, id or non-critical agent
// that is not UTF-8 is refused through a server as the embedded Engine
// refuses it — ErrInvalidRun, exit 7, word for word — not with the
// client's encoding error; a strategy named U+FFFD is not selected by
// "\xff".
func TestWorkflows_OptionsNotUTF8(t *testing.T) {
	fffd := replacementStrategy()
	e, w := embeddedEngine(t), wf(t, startServer(t))
	for _, opts := range []workflow.RunOptions{
		{Strategy: "\xff"},
		{Strategy: "a\xff", ID: "\xff"},
		{Strategy: fffd, NonCritical: []string{"\xff"}},
	} {
		_, want := e.Start(ctx, fanDef(2), opts)
		_, err := w.Start(ctx, fanDef(2), opts)
		if want == nil || !errors.Is(err, workflow.ErrInvalidRun) || api.ExitCode(err) != api.ExitInvalid || err.Error() != want.Error() {
			t.Errorf("options %q %q %q: %v (exit %d)\nwant %v", opts.Strategy, opts.ID, opts.NonCritical, err, api.ExitCode(err), want)
		}
	}
	if r, err := w.Start(ctx, fanDef(2), workflow.RunOptions{Strategy: fffd}); err != nil || r.Strategy != fffd {
		t.Fatalf("strategy %q: %q, %v", fffd, r.Strategy, err)
	}
}

// TestWorkflows_EmptyIDsAsEmbedded: an empty run, step, actor or driver
// given to the pull API fails as the embedded Engine fails it (an invalid
// id or run, exit 7; an unknown run first; nothing for a release by no
// driver), with its message, through a server too. (A server answered
// each as a missing param: kind usage, exit 2.)
func TestWorkflows_EmptyIDsAsEmbedded(t *testing.T) {
	got := map[string][]string{}
	for _, b := range engineModes {
		e := b.open(t)
		if _, err := e.Start(ctx, fanDef(1), workflow.RunOptions{ID: "r1"}); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			call func() error
		}{
			{"Get", func() error { _, err := e.Get(ctx, ""); return err }},
			{"Ready", func() error { _, err := e.Ready(ctx, ""); return err }},
			{"StartStep empty run", func() error { _, err := e.StartStep(ctx, "", "s00", "x"); return err }},
			{"StartStep empty step", func() error { _, err := e.StartStep(ctx, "r1", "", "x"); return err }},
			{"StartStep empty step of no run", func() error { _, err := e.StartStep(ctx, "nope", "", "x"); return err }},
			{"StartStep empty actor", func() error { _, err := e.StartStep(ctx, "r1", "s00", ""); return err }},
			{"AddFindings empty step", func() error { _, err := e.AddFindings(ctx, "r1", "", 1, nil); return err }},
			{"CompleteStep empty step", func() error { return e.CompleteStep(ctx, "r1", "", 1, nil) }},
			{"FailStep empty step", func() error { return e.FailStep(ctx, "r1", "", 1, "x") }},
			{"ReleaseStep empty step", func() error { return e.ReleaseStep(ctx, "r1", "", 1, "x") }},
			{"ClaimDriver empty driver", func() error { _, err := e.ClaimDriver(ctx, "r1", workflow.Driver{}, time.Minute, ""); return err }},
			{"ClaimDriver empty run", func() error {
				_, err := e.ClaimDriver(ctx, "", workflow.Driver{ID: "d", Actor: "a"}, time.Minute, "")
				return err
			}},
			{"ReleaseDriver empty driver", func() error { return e.ReleaseDriver(ctx, "r1", "") }},
			{"ReleaseDriver empty run", func() error { return e.ReleaseDriver(ctx, "", "d") }},
		} {
			err := tc.call()
			got[b.name] = append(got[b.name], fmt.Sprintf("%s: %v (exit %d)", tc.name, err, api.ExitCode(err)))
		}
	}
	if e, r := got["embedded"], got["remote"]; !slices.Equal(e, r) {
		t.Errorf("embedded and remote differ:\nembedded:\n%s\nremote:\n%s", strings.Join(e, "\n"), strings.Join(r, "\n"))
	}
}

// turnHookBoard is a workflow.Board through a client that calls before
// before each ApplyBoardOps (the write of a lead's turn), and after once
// it has returned without error.
type turnHookBoard struct {
	*client.Client
	before, after func()
}

func (b *turnHookBoard) ApplyBoardOps(ctx context.Context, team, lead string, ops []teammanager.BoardOp) ([]teammanager.BoardOpResult, error) {
	if b.before != nil {
		b.before()
	}
	res, err := b.Client.ApplyBoardOps(ctx, team, lead, ops)
	if err == nil && b.after != nil {
		b.after()
	}
	return res, err
}

// TestWorkflows_PlanOpAllOrNothingThroughServer: through a server as in
// process, the lead's plan operation is drafted and submitted in the
// turn's one write: a driver taken over while its lead works writes no
// revision; one taken over once the turn is written leaves it pending
// review, never an unsubmitted draft. A plan drafted with NewPlan.Submit through a
// client is submitted.
func TestWorkflows_PlanOpAllOrNothingThroughServer(t *testing.T) {
	for _, afterDraft := range []bool{false, true} {
		t.Run(fmt.Sprintf("after draft %v", afterDraft), func(t *testing.T) {
			c, w, r, takeOver := crewTakenOver(t, true)
			runner := ledFuncs{lead: func(workflow.LeadTurn) ([]workflow.LeadOp, error) {
				if !afterDraft {
					takeOver()
				}
				return []workflow.LeadOp{{Op: workflow.OpPlan, Title: "ship it", Steps: []teammanager.PlanStep{{Title: "build"}}}}, nil
			}}
			b := &turnHookBoard{Client: c, after: func() {
				if afterDraft {
					takeOver()
				}
			}}
			_, err := workflow.DriveLedWith(ctx, w, b, r.ID, "driver", runner, workflow.LedOptions{Lease: time.Hour})
			if !errors.Is(err, workflow.ErrDriverBusy) {
				t.Fatalf("drive: %v, want ErrDriverBusy", err)
			}
			revs, err := c.PlanRevisions(ctx, r.Team)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case !afterDraft && len(revs) != 0:
				t.Fatalf("taken over before the plan: revisions %+v, want none", revs)
			case afterDraft && (len(revs) != 1 || revs[0].State != teammanager.PlanPendingReview || revs[0].SubmittedAt.IsZero()):
				t.Fatalf("taken over after the plan: revisions %+v, want revision 1 pending review", revs)
			}
		})
	}
}

// TestWorkflows_DriverOfServerRunFencesLocalBoard: a driver of a run on a
// server whose Board is a Manager in this process (not a client of that
// server) cannot have that board check its hold of the server's run: the
// board writes nothing for it (Workflows.DriverCheck refuses), and the
// drive stops with ErrDriverBusy, where the board's writes went
// unfenced. The server's run is left as it was, its turn ready.
func TestWorkflows_DriverOfServerRunFencesLocalBoard(t *testing.T) {
	w := wf(t, startServer(t))
	crew := workflow.Def{Name: "dev", Type: workflow.Crew, Lead: "architect", Agents: []string{"architect", "backend"},
		Specialists: []string{"backend"}, MaxTurns: 3}
	r, err := w.Start(ctx, crew, workflow.RunOptions{ID: "crew", StepTimeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	// A board in this process with a team of the run's id.
	local, m := embeddedBoard(t)
	if _, err := local.Start(ctx, crew, workflow.RunOptions{ID: "crew", StepTimeout: -1}); err != nil {
		t.Fatal(err)
	}
	runner := ledFuncs{
		lead: func(workflow.LeadTurn) ([]workflow.LeadOp, error) {
			return []workflow.LeadOp{{Op: workflow.OpCreate, Subject: "build", Assignee: "backend"}}, nil
		},
		task: func(workflow.TaskWork) (workflow.TaskResult, error) { return workflow.TaskResult{Result: "built"}, nil },
	}
	dctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if _, err := workflow.DriveLedWith(dctx, w, m, r.ID, "driver", runner, workflow.LedOptions{Lease: time.Hour}); !errors.Is(err, workflow.ErrDriverBusy) {
		t.Fatalf("drive: %v, want ErrDriverBusy", err)
	}
	if tasks, err := m.ListTasks(ctx, r.Team, teammanager.TaskFilter{}); err != nil || len(tasks) != 0 {
		t.Fatalf("the local board's tasks: %+v, %v; want none", tasks, err)
	}
	run, err := w.Get(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := run.Step("turn-1/architect"); s.Status != workflow.StepReady || run.Status.Finished() {
		t.Fatalf("the server's run: %s, turn 1 %s", run.Status, s.Status)
	}
}

// TestWorkflows_ClaimDriverNotUTF8: a driver whose id, actor or host is
// not valid UTF-8 is refused through a server as the embedded Engine
// refuses it (ErrInvalidRun, exit 7, word for word), and the run has no
// driver; sent, it would have been held under its U+FFFD form.
func TestWorkflows_ClaimDriverNotUTF8(t *testing.T) {
	got := map[string][]string{}
	for _, m := range engineModes {
		e := m.open(t)
		crew := workflow.Def{Name: "dev", Type: workflow.Crew, Lead: "architect", Agents: []string{"architect", "backend"}, Specialists: []string{"backend"}}
		if _, err := e.Start(ctx, crew, workflow.RunOptions{ID: "crew"}); err != nil {
			t.Fatal(err)
		}
		for _, d := range []workflow.Driver{{ID: "d\xff", Actor: "A"}, {ID: "d", Actor: "A\xff"}, {ID: "d", Actor: "A", Host: "h\xff"}} {
			_, err := e.ClaimDriver(ctx, "crew", d, time.Hour, "")
			if !errors.Is(err, workflow.ErrInvalidRun) || api.ExitCode(err) != api.ExitInvalid {
				t.Errorf("%s: claim %+v: %v (exit %d), want ErrInvalidRun (exit 7)", m.name, d, err, api.ExitCode(err))
			}
			got[m.name] = append(got[m.name], fmt.Sprint(err))
		}
		if r, err := e.Get(ctx, "crew"); err != nil || r.Driver != nil {
			t.Errorf("%s: driver %+v, %v; want none", m.name, r.Driver, err)
		}
	}
	if e, r := got["embedded"], got["remote"]; !slices.Equal(e, r) {
		t.Errorf("embedded and remote differ:\nembedded %q\nremote   %q", e, r)
	}
}

// crewTakenOver starts crew run "crew" (architect leads backend, at most 3
// turns; planApproval as given) through a client of a new server, and
// returns that client, its Workflows, the run, and takeOver, which makes
// another client of the server the run's driver.
func crewTakenOver(t *testing.T, planApproval bool) (*client.Client, *client.Workflows, workflow.Run, func()) {
	t.Helper()
	sock := startServer(t)
	c := newClient(t, sock)
	w := c.Workflows(5 * time.Millisecond)
	crew := workflow.Def{Name: "dev", Type: workflow.Crew, Lead: "architect", Agents: []string{"architect", "backend"},
		Specialists: []string{"backend"}, MaxTurns: 3, PlanApproval: planApproval}
	r, err := w.Start(ctx, crew, workflow.RunOptions{ID: "crew", StepTimeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	other := wf(t, sock)
	takeOver := func() {
		run, err := other.Get(ctx, r.ID)
		if err != nil || run.Driver == nil {
			t.Errorf("the run's driver: %+v, %v", run.Driver, err)
			return
		}
		if _, err := other.ClaimDriver(ctx, r.ID, workflow.NewDriver("other"), time.Hour, run.Driver.ID); err != nil {
			t.Errorf("takeover: %v", err)
		}
	}
	return c, w, r, takeOver
}
