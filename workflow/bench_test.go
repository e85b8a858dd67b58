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
