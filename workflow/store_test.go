package workflow_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/teammanager"
	"github.com/cortexgraph/cortex/workflow"
)

// TestEngine_TwoEnginesSeeEachOthersWrites: two Engines over one store
// take turns on a run; each sees the other's last write (neither serves a
// run it read before the other wrote).
func TestEngine_TwoEnginesSeeEachOthersWrites(t *testing.T) {
	f := newFixture(t)
	other, err := workflow.New(ctx, f.s, f.tm, workflow.DefaultConfig().WithClock(f.clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	d := workflow.Def{Name: "turns", Type: workflow.Chain, Steps: []workflow.Step{
		{Name: "a", Agent: "x", Outputs: []workflow.Port{{Name: "out", Type: workflow.String}}},
		{Name: "b", Agent: "y", Inputs: []workflow.Port{{Name: "in", From: "a.out"}}},
		{Name: "c", Agent: "x"},
	}}
	f.start(t, d, workflow.RunOptions{ID: "turns"})
	engines := []*workflow.Engine{f.e, other}
	for k, step := range []string{"a", "b", "c"} {
		e, seer := engines[k%2], engines[(k+1)%2]
		for _, x := range engines { // both have read the run as it is
			if got := readyOf(t, x, "turns"); fmt.Sprint(got) != fmt.Sprint([]string{step}) {
				t.Fatalf("before %s: ready %v", step, got)
			}
		}
		n, err := e.StartStep(ctx, "turns", step, "host")
		if err != nil {
			t.Fatal(err)
		}
		if got := readyOf(t, seer, "turns"); len(got) != 0 {
			t.Fatalf("%s started elsewhere: ready %v", step, got)
		}
		if _, err := seer.StartStep(ctx, "turns", step, "other"); err == nil {
			t.Fatalf("%s started twice", step)
		}
		var out map[string]any
		if step == "a" {
			out = map[string]any{"out": "v"}
		}
		if err := e.CompleteStep(ctx, "turns", step, n, out); err != nil {
			t.Fatal(err)
		}
		r, err := seer.Get(ctx, "turns")
		if err != nil {
			t.Fatal(err)
		}
		if s, _ := r.Step(step); s.Status != workflow.StepCompleted {
			t.Fatalf("%s completed elsewhere reads %s", step, s.Status)
		}
	}
	for _, x := range engines {
		if r, err := x.Get(ctx, "turns"); err != nil || r.Status != workflow.RunCompleted {
			t.Fatalf("run %s, %v", r.Status, err)
		}
	}
}

func readyOf(t *testing.T, e *workflow.Engine, id string) []string {
	t.Helper()
	rs, err := e.Ready(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rs {
		out = append(out, r.Step.Name)
	}
	return out
}

// mallocsPerStep drives a run of d to its end with concurrency (as
// BenchmarkDrive_Chain does) and returns the heap allocations per step.
func mallocsPerStep(t *testing.T, f *fixture, id string, d workflow.Def, concurrency int) float64 {
	t.Helper()
	f.start(t, d, workflow.RunOptions{ID: id})
	runner := workflow.RunnerFunc(func(_ context.Context, rs workflow.ReadyStep) (map[string]any, []teammanager.Finding, error) {
		out := map[string]any{}
		for _, p := range rs.Step.Outputs {
			out[p.Name] = map[workflow.PortType]any{workflow.String: "x", workflow.Number: 1}[p.Type]
		}
		return out, nil, nil
	})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r, err := workflow.Drive(ctx, f.e, id, "host", runner, concurrency)
	runtime.ReadMemStats(&after)
	if err != nil || r.Status != workflow.RunCompleted {
		t.Fatalf("run %s: %v", r.Status, err)
	}
	return float64(after.Mallocs-before.Mallocs) / float64(len(d.Steps))
}

// TestDrive_StepCostDoesNotGrowWithTheRun: driving a step of a 400-step
// run allocates about what a step of a 40-step one does, in a chain (a
// step's calls store and decode what it changes, not the whole run: it
// was about 4 times as much) and in a fan-out driven 4 at a time.
// Counted in allocations, not time.
func TestDrive_StepCostDoesNotGrowWithTheRun(t *testing.T) {
	for _, tc := range []struct {
		name        string
		def         func(n int) workflow.Def
		concurrency int
	}{
		{"chain", func(n int) workflow.Def { return chainDef(n, 8) }, 1},
		{"fan-out", func(n int) workflow.Def { return wideDef(n, 8) }, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			var small, large []float64
			for k := range 2 { // the lower of two, against the store's background work
				small = append(small, mallocsPerStep(t, f, fmt.Sprint("small", k), tc.def(40), tc.concurrency))
				large = append(large, mallocsPerStep(t, f, fmt.Sprint("large", k), tc.def(400), tc.concurrency))
			}
			s, l := slices.Min(small), slices.Min(large)
			t.Logf("allocations per step: %.0f at 40 steps, %.0f at 400", s, l)
			if l > 2*s {
				t.Fatalf("a step of a 400-step run allocates %.0f, of a 40-step one %.0f: more than twice as much", l, s)
			}
		})
	}
}

// TestDrive_FusesOnlyTheStepsItStarts: a driver of a 200-step fan-out
// whose steps each fuse the findings of the step they depend on, 4 at a
// time, has the fan-in of about each step once: Ready, through an
// Engine, lists only the steps the driver can start (it fused every ready
// step at every call: about 19,500 fusions here).
func TestDrive_FusesOnlyTheStepsItStarts(t *testing.T) {
	f, fusions := countedFixture(t)
	e := f.e
	const n = 200
	d := workflow.Def{Name: "fan", Type: workflow.Graph, Steps: []workflow.Step{{Name: "root", Agent: "a0"}}}
	for i := range n {
		d.Steps = append(d.Steps, workflow.Step{Name: fmt.Sprint("s", i), Agent: fmt.Sprint("a", i%8), DependsOn: []string{"root"}})
	}
	if _, err := e.Start(ctx, d, workflow.RunOptions{ID: "fan", Strategy: "counted"}); err != nil {
		t.Fatal(err)
	}
	var upstream atomic.Int32
	runner := workflow.RunnerFunc(func(_ context.Context, rs workflow.ReadyStep) (map[string]any, []teammanager.Finding, error) {
		if rs.Step.Name == "root" {
			return nil, []teammanager.Finding{finding("build", "status", quad.String("green"))}, nil
		}
		if len(rs.Upstream) == 1 {
			upstream.Add(1)
		}
		return nil, nil, nil
	})
	run, err := workflow.Drive(ctx, e, "fan", "host", runner, 4)
	if err != nil || run.Status != workflow.RunCompleted {
		t.Fatalf("run %s: %v", run.Status, err)
	}
	if got := upstream.Load(); got != n {
		t.Fatalf("%d steps saw the root's finding, want %d", got, n)
	}
	if got := fusions.Load(); got > 2*n {
		t.Fatalf("%d fusions for %d steps (and the team's merge)", got, n)
	}
	t.Logf("%d fusions for %d steps (and the team's merge)", fusions.Load(), n)
}
