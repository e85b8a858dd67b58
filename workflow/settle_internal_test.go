package workflow

import (
	"context"
	"testing"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestSettle_AfterInterruptedCall stops CompleteStep between its two
// parts (the step's write, then the team's members and the final merge),
// as a crash there would, and checks that the next call of a new Engine
// (Ready) finishes the work: the member completes, the team is merged and
// the run completes.
func TestSettle_AfterInterruptedCall(t *testing.T) {
	ctx := context.Background()
	s, tm, e := newInternalEngine(t)
	d := Def{Name: "one", Steps: []Step{{Name: "a", Agent: "x"}}}
	if _, err := e.Start(ctx, d, RunOptions{ID: "r"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.StartStep(ctx, "r", "a", "host"); err != nil {
		t.Fatal(err)
	}
	// CompleteStep's first part only.
	if _, err := e.update(ctx, "r", func(c *change, _ *Def, _ *plan) error {
		c.step(0, StepCompleted, "host", "")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if r, _ := e.Get(ctx, "r"); r.Status != RunMerging {
		t.Fatalf("run %s after the interrupted call, want merging", r.Status)
	}
	e2, err := New(ctx, s, tm, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e2.Ready(ctx, "r"); err != nil {
		t.Fatal(err)
	}
	r, err := e2.Get(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	team, err := tm.GetTeam(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != RunCompleted || team.Status != teammanager.Completed || !team.Merged {
		t.Fatalf("after Ready: run %s, team %s merged=%v", r.Status, team.Status, team.Merged)
	}
}

// newInternalEngine returns a store, its team manager of namespace "wf" and
// an Engine over them, with the default configurations.
func newInternalEngine(t *testing.T) (*cortex.Store, *teammanager.Manager, *Engine) {
	t.Helper()
	ctx := context.Background()
	s := cortextest.NewStore(t)
	x, err := namespace.New("wf")
	if err != nil {
		t.Fatal(err)
	}
	tm, err := teammanager.New(ctx, s, x, teammanager.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(ctx, s, tm, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return s, tm, e
}
