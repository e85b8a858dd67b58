package workflow_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
	"github.com/cortexgraph/cortex/workflow"
)

var ctx = context.Background()

// fakeClock is a settable clock, for timeouts without sleeping.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set sets the clock to t.
func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type fixture struct {
	s     *cortex.Store
	tm    *teammanager.Manager
	e     *workflow.Engine
	x     namespace.NS
	clock *fakeClock
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	return newFixtureOn(t, cortextest.NewStore(t))
}

func newFixtureOn(t testing.TB, s *cortex.Store) *fixture {
	t.Helper()
	x, err := newNS()
	if err != nil {
		t.Fatal(err)
	}
	clock := newClock()
	tm, err := teammanager.New(ctx, s, x, teammanager.DefaultConfig().WithClock(clock.Now).WithMaxTeamSize(1000))
	if err != nil {
		t.Fatal(err)
	}
	e, err := workflow.New(ctx, s, tm, workflow.DefaultConfig().WithClock(clock.Now).WithPollInterval(5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{s: s, tm: tm, e: e, x: x, clock: clock}
}

func (f *fixture) start(t testing.TB, d workflow.Def, opts workflow.RunOptions) workflow.Run {
	t.Helper()
	r, err := f.e.Start(ctx, d, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (f *fixture) get(t testing.TB, id string) workflow.Run {
	t.Helper()
	r, err := f.e.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// readyNames returns the names of the ready steps of run id.
func (f *fixture) readyNames(t testing.TB, id string) []string {
	t.Helper()
	rs, err := f.e.Ready(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rs {
		out = append(out, r.Step.Name)
	}
	return out
}

// do starts step, records findings and completes it with outputs.
func (f *fixture) do(t testing.TB, id, step string, outputs map[string]any, fs ...teammanager.Finding) {
	t.Helper()
	attempt, err := f.e.StartStep(ctx, id, step, "host")
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) > 0 {
		if _, err := f.e.AddFindings(ctx, id, step, attempt, fs); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.e.CompleteStep(ctx, id, step, attempt, outputs); err != nil {
		t.Fatal(err)
	}
}

func statuses(r workflow.Run) map[string]workflow.StepStatus {
	out := map[string]workflow.StepStatus{}
	for _, s := range r.Steps {
		out[s.Name] = s.Status
	}
	return out
}

func iri(s string) quad.IRI { return quad.IRI("http://ex.org/" + s) }

func finding(s, p string, o quad.Value) teammanager.Finding {
	return teammanager.Finding{Subject: iri(s), Predicate: iri(p), Object: o}
}

// scatterDef is the spec's scatter example, with ports.
func scatterDef() workflow.Def {
	return workflow.Def{
		Name: "scatter", Type: workflow.Scatter,
		Steps: []workflow.Step{
			{Name: "prepare", Agent: "coordinator", Outputs: []workflow.Port{{Name: "plan", Type: workflow.String}}},
			{Name: "test-1", Agent: "tester", DependsOn: []string{"prepare"}, Inputs: []workflow.Port{{Name: "plan", From: "prepare.plan"}}},
			{Name: "test-2", Agent: "tester", DependsOn: []string{"prepare"}},
			{Name: "test-3", Agent: "tester", DependsOn: []string{"prepare"}},
			{Name: "collect", Agent: "coordinator", DependsOn: []string{"test-1", "test-2", "test-3"},
				Inputs: []workflow.Port{{Name: "plan", From: "prepare.plan", Type: workflow.String}}},
		},
	}
}

func newNS() (namespace.NS, error) { return namespace.New("wf") }
