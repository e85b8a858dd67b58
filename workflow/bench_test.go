package workflow_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/cortexgraph/cortex/teammanager"
	"github.com/cortexgraph/cortex/workflow"
)

// layeredDef is a graph of n steps in layers of width, each step of a
// layer depending on two steps of the layer before and taking an input
// from the first of them; 8 agents.
func layeredDef(n, width int) workflow.Def {
	d := workflow.Def{Name: "layered", Type: workflow.Graph}
	for i := range n {
		s := workflow.Step{Name: fmt.Sprint("s", i), Agent: fmt.Sprint("a", i%8),
			Outputs: []workflow.Port{{Name: "out", Type: workflow.String}}}
		if i >= width {
			a, b := i-width, i-width+1 // two neighbours of the layer before
			if b%width == 0 {
				b = a - 1
			}
			s.DependsOn = []string{fmt.Sprint("s", a), fmt.Sprint("s", b)}
			s.Inputs = []workflow.Port{{Name: "in", From: fmt.Sprint("s", a, ".out"), Default: "none"}}
		} else {
			s.Inputs = []workflow.Port{{Name: "in", Type: workflow.String, Default: "start"}}
		}
		d.Steps = append(d.Steps, s)
	}
	return d
}

// BenchmarkReady_1000Steps: Ready on a 1,000-step graph run (10 layers of
// 100) whose first layer has completed, so the 100 steps of the second
// are ready with inputs resolved from the first.
func BenchmarkReady_1000Steps(b *testing.B) {
	f := newFixture(b)
	d := layeredDef(1000, 100)
	if err := d.Validate(); err != nil {
		b.Fatal(err)
	}
	f.start(b, d, workflow.RunOptions{ID: "big"})
	for i := range 100 {
		f.do(b, "big", fmt.Sprint("s", i), map[string]any{"out": "x"})
	}
	rs, err := f.e.Ready(ctx, "big")
	if err != nil || len(rs) != 100 {
		b.Fatalf("ready: %d, %v", len(rs), err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := f.e.Ready(ctx, "big"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRun_16Steps: a whole run of a 16-step graph (15 parallel steps
// and a join) started and driven to its end by Run with a no-op runner,
// 4 at a time: Cortex's overhead per run, final merge included.
func BenchmarkRun_16Steps(b *testing.B) {
	f := newFixture(b)
	d := wideDef(15, 4)
	noop := workflow.RunnerFunc(func(context.Context, workflow.ReadyStep) (map[string]any, []teammanager.Finding, error) {
		return nil, nil, nil
	})
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		n++
		id := fmt.Sprint("run", n)
		if _, err := f.e.Start(ctx, d, workflow.RunOptions{ID: id}); err != nil {
			b.Fatal(err)
		}
		r, err := f.e.RunAs(ctx, id, "bench", noop, 4)
		if err != nil || r.Status != workflow.RunCompleted {
			b.Fatalf("run %s: %v", r.Status, err)
		}
	}
}

// chainDef is a chain of n steps over agents agents, each step taking the
// output of the step before as its input.
func chainDef(n, agents int) workflow.Def {
	d := workflow.Def{Name: "chain", Type: workflow.Chain}
	for i := range n {
		s := workflow.Step{Name: fmt.Sprint("s", i), Agent: fmt.Sprint("a", i%agents),
			Outputs: []workflow.Port{{Name: "out", Type: workflow.String}}}
		if i > 0 {
			s.Inputs = []workflow.Port{{Name: "in", From: fmt.Sprint("s", i-1, ".out"), Type: workflow.String}}
		}
		d.Steps = append(d.Steps, s)
	}
	return d
}

// benchDrive starts a run of d and drives it to its end with Drive over
// the Engine, as cortexctl's workflows run --exec does, with a runner that
// returns an output at once, concurrency steps at a time; it reports the
// steps driven per second (start and final merge included).
func benchDrive(b *testing.B, d workflow.Def, concurrency int) {
	f := newFixture(b)
	if err := d.Validate(); err != nil {
		b.Fatal(err)
	}
	runner := workflow.RunnerFunc(func(_ context.Context, rs workflow.ReadyStep) (map[string]any, []teammanager.Finding, error) {
		out := map[string]any{}
		for _, p := range rs.Step.Outputs { // chainDef's and wideDef's types
			out[p.Name] = map[workflow.PortType]any{workflow.String: "x", workflow.Number: 1}[p.Type]
		}
		return out, nil, nil
	})
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		n++
		id := fmt.Sprint("run", n)
		if _, err := f.e.Start(ctx, d, workflow.RunOptions{ID: id}); err != nil {
			b.Fatal(err)
		}
		r, err := workflow.Drive(ctx, f.e, id, "bench", runner, concurrency)
		if err != nil || r.Status != workflow.RunCompleted {
			b.Fatalf("run %s: %v", r.Status, err)
		}
	}
	b.ReportMetric(float64(n*len(d.Steps))/b.Elapsed().Seconds(), "steps/s")
}

// BenchmarkDrive_Chain: a chain of N steps (8 agents, each step's input the
// output of the one before) driven one step at a time, as workflows run
// --exec with its default --parallel 1 (N=5000: the size of the run that
// took minutes; run it alone with -bench 'Drive_Chain/N=5000').
func BenchmarkDrive_Chain(b *testing.B) {
	for _, n := range []int{100, 1000, 5000} {
		b.Run(fmt.Sprint("N=", n), func(b *testing.B) { benchDrive(b, chainDef(n, 8), 1) })
	}
}

// BenchmarkDrive_Wide: N parallel steps (8 agents) and a join, driven 4 at
// a time.
func BenchmarkDrive_Wide(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprint("N=", n), func(b *testing.B) { benchDrive(b, wideDef(n, 8), 4) })
	}
}
