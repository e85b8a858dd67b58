package workflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/teammanager"
	"github.com/cortexgraph/cortex/workflow"
)

func TestEngine_Chain_StepsInOrder(t *testing.T) {
	f := newFixture(t)
	d := workflow.Def{Name: "chain", Type: workflow.Chain, Steps: []workflow.Step{
		{Name: "analyze", Agent: "analyst", Outputs: []workflow.Port{{Name: "summary", Type: workflow.String}}},
		{Name: "review", Agent: "reviewer", Outputs: []workflow.Port{{Name: "ok", Type: workflow.Boolean}}},
		{Name: "report", Agent: "reporter", Inputs: []workflow.Port{
			{Name: "summary", From: "analyze.summary"}, // transitive upstream
			{Name: "ok", From: "review.ok"},
		}},
	}}
	r := f.start(t, d, workflow.RunOptions{ID: "c1"})
	if r.Status != workflow.RunPending || r.Team != "c1" {
		t.Fatalf("new run: status %s team %s", r.Status, r.Team)
	}
	for _, step := range []string{"analyze", "review", "report"} {
		if got := f.readyNames(t, "c1"); !slices.Equal(got, []string{step}) {
			t.Fatalf("ready = %v, want [%s]", got, step)
		}
		out := map[string]any{}
		switch step {
		case "analyze":
			out["summary"] = "fine"
		case "review":
			out["ok"] = true
		case "report":
			rs, err := f.e.Ready(ctx, "c1")
			if err != nil {
				t.Fatal(err)
			}
			if want := map[string]any{"summary": "fine", "ok": true}; !reflect.DeepEqual(rs[0].Inputs, want) {
				t.Fatalf("report inputs = %v, want %v", rs[0].Inputs, want)
			}
		}
		f.do(t, "c1", step, out, finding(step, "done", quad.String("yes")))
		if step == "analyze" && f.get(t, "c1").Status != workflow.RunRunning {
			t.Fatalf("run not running after its first step")
		}
	}
	r = f.get(t, "c1")
	if r.Status != workflow.RunCompleted {
		t.Fatalf("run %s (%s), want completed", r.Status, r.Error)
	}
	team, err := f.tm.GetTeam(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if team.Status != teammanager.Completed || !team.Merged {
		t.Fatalf("team %s merged=%v, want completed and merged", team.Status, team.Merged)
	}
	facts, err := f.tm.Facts(ctx, "c1", teammanager.FactFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != 3 {
		t.Fatalf("shared graph has %d facts, want 3 (one per step)", len(facts))
	}
}

func TestEngine_Scatter_FanInIsAMerge(t *testing.T) {
	f := newFixture(t)
	f.start(t, scatterDef(), workflow.RunOptions{ID: "s1", Strategy: merge.NameConflictFlag})
	f.do(t, "s1", "prepare", map[string]any{"plan": "p"})
	if got := f.readyNames(t, "s1"); !slices.Equal(got, []string{"test-1", "test-2", "test-3"}) {
		t.Fatalf("ready after prepare = %v", got)
	}
	f.do(t, "s1", "test-1", nil, finding("build", "status", quad.String("green")), finding("cov", "pct", quad.String("80")))
	f.clock.Advance(time.Second) // else the same agent's same finding is stored once
	f.do(t, "s1", "test-2", nil, finding("build", "status", quad.String("green")))
	if got := f.readyNames(t, "s1"); !slices.Equal(got, []string{"test-3"}) {
		t.Fatalf("collect ready before test-3: %v", got)
	}
	f.do(t, "s1", "test-3", nil, finding("cov", "pct", quad.String("75")))
	rs, err := f.e.Ready(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].Step.Name != "collect" {
		t.Fatalf("ready = %v, want collect", rs)
	}
	c := rs[0]
	if len(c.Upstream) != 1 {
		t.Fatalf("collect sees %d fused facts, want 1: %v", len(c.Upstream), c.Upstream)
	}
	if got := c.Upstream[0]; got.Subject != iri("build") || !slices.Equal(got.Supporters, []string{"test-1", "test-2"}) || len(got.FindingIDs) != 2 {
		t.Errorf("fused fact %v, want build status green supported by test-1 and test-2 with 2 findings", got)
	}
	if len(c.Conflicts) != 1 || c.Conflicts[0].Topic.Subject != iri("cov") {
		t.Errorf("conflicts = %v, want the cov disagreement", c.Conflicts)
	}
	if c.Inputs["plan"] != "p" {
		t.Errorf("collect inputs %v, want plan p (transitive from)", c.Inputs)
	}
	f.do(t, "s1", "collect", nil)
	if r := f.get(t, "s1"); r.Status != workflow.RunCompleted {
		t.Fatalf("run %s (%s)", r.Status, r.Error)
	}
	// The final merge is the team's, whose members are agents: the three
	// test steps are one member, tester, so cov is not a conflict there.
	team, err := f.tm.GetTeam(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	facts, err := f.tm.Facts(ctx, "s1", teammanager.FactFilter{Subject: iri("build")})
	if err != nil {
		t.Fatal(err)
	}
	if !team.Merged || len(facts) != 1 || !slices.Equal(facts[0].Supporters, []string{"tester"}) {
		t.Errorf("team merged=%v, build facts %v", team.Merged, facts)
	}
}

func graphDef() workflow.Def {
	return workflow.Def{Name: "graph", Type: workflow.Graph, Steps: []workflow.Step{
		{Name: "analyze", Agent: "analyst", Outputs: []workflow.Port{{Name: "summary", Type: workflow.String}}},
		{Name: "security", Agent: "security"},
		{Name: "review", Agent: "reviewer", DependsOn: []string{"analyze"},
			Inputs: []workflow.Port{{Name: "summary", From: "analyze.summary", Default: "none"}}},
		{Name: "report", Agent: "reporter", DependsOn: []string{"review", "security"}},
	}}
}

func TestEngine_FailedStep_SkipsDependents(t *testing.T) {
	f := newFixture(t)
	f.start(t, graphDef(), workflow.RunOptions{ID: "g1"})
	if got := f.readyNames(t, "g1"); !slices.Equal(got, []string{"analyze", "security"}) {
		t.Fatalf("ready = %v", got)
	}
	if _, err := f.e.StartStep(ctx, "g1", "analyze", "host"); err != nil {
		t.Fatal(err)
	}
	if err := f.e.FailStep(ctx, "g1", "analyze", 1, "llm quota"); err != nil {
		t.Fatal(err)
	}
	r := f.get(t, "g1")
	want := map[string]workflow.StepStatus{"analyze": "failed", "security": "ready", "review": "skipped", "report": "skipped"}
	if got := statuses(r); !reflect.DeepEqual(got, want) {
		t.Fatalf("statuses %v, want %v", got, want)
	}
	if s, _ := r.Step("report"); s.Reason != "dependency review was skipped" {
		t.Errorf("report reason %q", s.Reason)
	}
	if s, _ := r.Step("review"); s.Reason != "dependency analyze failed" {
		t.Errorf("review reason %q", s.Reason)
	}
	// The independent branch still runs; then the run ends, failed.
	f.do(t, "g1", "security", nil, finding("x", "safe", quad.String("yes")))
	r = f.get(t, "g1")
	if r.Status != workflow.RunFailed || !strings.Contains(r.Error, "analyze") {
		t.Fatalf("run %s (%q), want failed naming analyze", r.Status, r.Error)
	}
	team, err := f.tm.GetTeam(ctx, "g1")
	if err != nil {
		t.Fatal(err)
	}
	if !team.Merged {
		t.Errorf("team not merged (security completed)")
	}
	m, _ := team.Member("analyst")
	if m.Status != teammanager.Failed {
		t.Errorf("member analyst %s, want failed", m.Status)
	}
}

func TestEngine_NonCriticalFailure_DependentsRun(t *testing.T) {
	f := newFixture(t)
	f.start(t, graphDef(), workflow.RunOptions{ID: "g2", NonCritical: []string{"analyst"}})
	if _, err := f.e.StartStep(ctx, "g2", "analyze", "host"); err != nil {
		t.Fatal(err)
	}
	if err := f.e.FailStep(ctx, "g2", "analyze", 1, "flaky"); err != nil {
		t.Fatal(err)
	}
	rs, err := f.e.Ready(ctx, "g2")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[1].Step.Name != "review" || rs[1].Inputs["summary"] != "none" {
		t.Fatalf("ready = %+v, want security and review with the default summary", rs)
	}
	f.do(t, "g2", "security", nil)
	f.do(t, "g2", "review", nil)
	f.do(t, "g2", "report", nil)
	if r := f.get(t, "g2"); r.Status != workflow.RunCompleted {
		t.Fatalf("run %s (%s), want completed", r.Status, r.Error)
	}
}

func TestEngine_UnresolvedInput_Skips(t *testing.T) {
	f := newFixture(t)
	d := graphDef()
	d.Steps[2].Inputs[0].Default = nil // required, no default
	f.start(t, d, workflow.RunOptions{ID: "g3", NonCritical: []string{"analyst"}})
	if _, err := f.e.StartStep(ctx, "g3", "analyze", "host"); err != nil {
		t.Fatal(err)
	}
	if err := f.e.FailStep(ctx, "g3", "analyze", 1, "flaky"); err != nil {
		t.Fatal(err)
	}
	s, _ := f.get(t, "g3").Step("review")
	if s.Status != workflow.StepSkipped || s.Reason != "input summary unresolved: step analyze failed" {
		t.Fatalf("review %s %q", s.Status, s.Reason)
	}
}

func TestEngine_RunInputsAndDefaults(t *testing.T) {
	f := newFixture(t)
	d := workflow.Def{Name: "in", Steps: []workflow.Step{{Name: "a", Agent: "x", Inputs: []workflow.Port{
		{Name: "repo", Type: workflow.String},
		{Name: "depth", Type: workflow.Number, Default: 2.0},
		{Name: "note", Optional: true},
	}}}}
	f.start(t, d, workflow.RunOptions{ID: "i1", Inputs: map[string]any{"repo": "cortex"}})
	rs, err := f.e.Ready(ctx, "i1")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"repo": "cortex", "depth": 2.0}; len(rs) != 1 || !reflect.DeepEqual(rs[0].Inputs, want) {
		t.Fatalf("inputs %v, want %v", rs, want)
	}
	_, err = f.e.Start(ctx, d, workflow.RunOptions{ID: "i2", Inputs: map[string]any{"repo": 3}})
	if !errors.Is(err, workflow.ErrInvalidRun) || !strings.Contains(err.Error(), "want string, got number") {
		t.Fatalf("wrong-typed input: %v", err)
	}
	// A required input that only a run input can give: the run is
	// refused (TestEngine_Start_MissingRunInput).
	if _, err := f.e.Start(ctx, d, workflow.RunOptions{ID: "i3"}); !errors.Is(err, workflow.ErrInvalidRun) || !strings.Contains(err.Error(), "missing run input repo") {
		t.Fatalf("step without its input: %v", err)
	}
}

// TestEngine_Start_MissingRunInput: a run without a required input that
// only a run input can give (no from, no default, not optional) is refused
// before anything is written, with every such input named with the steps
// that need it; inputs that come from a step, a default, or are optional
// are not asked for. Def.CheckInputs says the same without a store.
func TestEngine_Start_MissingRunInput(t *testing.T) {
	f := newFixture(t)
	d := workflow.Def{Name: "need", Steps: []workflow.Step{
		{Name: "a", Agent: "x", Inputs: []workflow.Port{{Name: "repo", Type: workflow.String}, {Name: "note", Optional: true}},
			Outputs: []workflow.Port{{Name: "sum"}}},
		{Name: "b", Agent: "y", DependsOn: []string{"a"}, Inputs: []workflow.Port{
			{Name: "sum", From: "a.sum"}, {Name: "depth", Default: 2.0}, {Name: "repo"}, {Name: "change"}}},
	}}
	want := "start need: invalid run: missing run input change (required by step b, with no default); " +
		"missing run input repo (required by steps a, b, with no default)"
	_, err := f.e.Start(ctx, d, workflow.RunOptions{ID: "m1"})
	if !errors.Is(err, workflow.ErrInvalidRun) || err.Error() != want {
		t.Fatalf("Start: %v\nwant %s", err, want)
	}
	if err := d.CheckInputs(nil); !errors.Is(err, workflow.ErrInvalidRun) || "start need: "+err.Error() != want {
		t.Fatalf("CheckInputs: %v", err)
	}
	if _, err := f.e.Get(ctx, "m1"); !errors.Is(err, workflow.ErrUnknownRun) {
		t.Fatalf("the refused run was recorded: %v", err)
	}
	if _, err := f.tm.GetTeam(ctx, "m1"); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Fatalf("the refused run's team was created: %v", err)
	}
	if runs, err := f.e.List(ctx, ""); err != nil || len(runs) != 0 {
		t.Fatalf("runs %v (%v)", runs, err)
	}
	in := map[string]any{"repo": "cortex", "change": "HEAD"}
	if err := d.CheckInputs(in); err != nil {
		t.Fatal(err)
	}
	f.start(t, d, workflow.RunOptions{ID: "m2", Inputs: in})
	if got := f.readyNames(t, "m2"); len(got) != 1 || got[0] != "a" {
		t.Fatalf("ready %v", got)
	}
}

// TestEngine_NoStepCompleted_Fails: a run in which no step completed
// (every step skipped, or failed with a non-critical agent) did nothing:
// it fails, saying so with the first step's reason, as its team does
// (every member failed), and is not merged.
func TestEngine_NoStepCompleted_Fails(t *testing.T) {
	for _, tc := range []struct {
		name string
		def  workflow.Def
		want string
	}{
		{"one failed step", workflow.Def{Name: "one", Steps: []workflow.Step{{Name: "a", Agent: "x"}}},
			"no step completed (step a failed: flaky)"},
		{"failed then skipped", workflow.Def{Name: "two", Type: workflow.Chain, Steps: []workflow.Step{
			{Name: "a", Agent: "x", Outputs: []workflow.Port{{Name: "out"}}},
			{Name: "b", Agent: "y", Inputs: []workflow.Port{{Name: "in", From: "a.out"}}},
		}}, "no step completed (step a failed: flaky)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.start(t, tc.def, workflow.RunOptions{ID: "n1", NonCritical: []string{"x"}})
			attempt, err := f.e.StartStep(ctx, "n1", "a", "host")
			if err != nil {
				t.Fatal(err)
			}
			if err := f.e.FailStep(ctx, "n1", "a", attempt, "flaky"); err != nil {
				t.Fatal(err)
			}
			r := f.get(t, "n1")
			for _, s := range r.Steps {
				if s.Status == workflow.StepCompleted || !s.Status.Final() {
					t.Fatalf("step %s %s: the test wants no step completed", s.Name, s.Status)
				}
			}
			if r.Status != workflow.RunFailed || r.Error != tc.want {
				t.Fatalf("run %s %q, want failed %q", r.Status, r.Error, tc.want)
			}
			team, err := f.tm.GetTeam(ctx, r.Team)
			if err != nil {
				t.Fatal(err)
			}
			if team.Status != teammanager.Failed || team.FailReason != teammanager.FailAllMembers || team.Merged {
				t.Fatalf("team %s (%s, merged %v), want failed (%s), not merged", team.Status, team.FailReason, team.Merged, teammanager.FailAllMembers)
			}
		})
	}
}

func TestEngine_CompleteStep_TypedOutputs(t *testing.T) {
	f := newFixture(t)
	f.start(t, graphDef(), workflow.RunOptions{ID: "o1"})
	if _, err := f.e.StartStep(ctx, "o1", "analyze", "host"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		out  map[string]any
		want string
	}{
		{"wrong type", map[string]any{"summary": 3}, "summary: want string, got number"},
		{"undeclared", map[string]any{"verdict": "x"}, `"verdict" is not a declared output`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := f.e.CompleteStep(ctx, "o1", "analyze", 1, tc.out)
			if !errors.Is(err, workflow.ErrInvalidOutput) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want ErrInvalidOutput with %q", err, tc.want)
			}
			if s, _ := f.get(t, "o1").Step("analyze"); s.Status != workflow.StepRunning || s.Outputs != nil {
				t.Fatalf("refused completion wrote: %s %v", s.Status, s.Outputs)
			}
		})
	}
	if err := f.e.CompleteStep(ctx, "o1", "analyze", 1, map[string]any{"summary": "ok"}); err != nil {
		t.Fatal(err)
	}
	if s, _ := f.get(t, "o1").Step("analyze"); s.Outputs["summary"] != "ok" {
		t.Fatalf("outputs %v", s.Outputs)
	}
}

func TestEngine_StepTransitions_Refused(t *testing.T) {
	f := newFixture(t)
	f.start(t, graphDef(), workflow.RunOptions{ID: "t1"})
	var te *workflow.TransitionError
	if _, err := f.e.StartStep(ctx, "t1", "review", "host"); !errors.As(err, &te) || te.From != workflow.StepPending {
		t.Errorf("start of a pending step: %v", err)
	}
	if err := f.e.CompleteStep(ctx, "t1", "analyze", 1, nil); !errors.Is(err, workflow.ErrInvalidTransition) {
		t.Errorf("complete of a ready step: %v", err)
	}
	if _, err := f.e.AddFindings(ctx, "t1", "analyze", 1, []teammanager.Finding{finding("a", "b", quad.String("c"))}); !errors.Is(err, workflow.ErrInvalidTransition) {
		t.Errorf("findings for a ready step: %v", err)
	}
	if _, err := f.e.StartStep(ctx, "t1", "nope", "host"); !errors.Is(err, workflow.ErrUnknownStep) {
		t.Errorf("unknown step: %v", err)
	}
	if _, err := f.e.StartStep(ctx, "nope", "a", "host"); !errors.Is(err, workflow.ErrUnknownRun) {
		t.Errorf("unknown run: %v", err)
	}
	if _, err := f.e.Start(ctx, graphDef(), workflow.RunOptions{ID: "t1"}); !errors.Is(err, workflow.ErrRunExists) {
		t.Errorf("duplicate id: %v", err)
	}
}

func TestEngine_StepTimeout(t *testing.T) {
	f := newFixture(t)
	f.start(t, graphDef(), workflow.RunOptions{ID: "to", StepTimeout: time.Minute})
	if _, err := f.e.StartStep(ctx, "to", "analyze", "host"); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(59 * time.Second)
	if got := f.readyNames(t, "to"); !slices.Equal(got, []string{"security"}) {
		t.Fatalf("ready before the timeout = %v", got)
	}
	f.clock.Advance(time.Second)
	if _, err := f.e.Ready(ctx, "to"); err != nil {
		t.Fatal(err)
	}
	s, _ := f.get(t, "to").Step("analyze")
	if s.Status != workflow.StepFailed || s.Reason != "timed out after 1m0s" {
		t.Fatalf("analyze %s %q, want failed by its timeout", s.Status, s.Reason)
	}
	if err := f.e.CompleteStep(ctx, "to", "analyze", 1, nil); !errors.Is(err, workflow.ErrInvalidTransition) {
		t.Fatalf("completion after the timeout: %v", err)
	}
}

func TestEngine_Cancel(t *testing.T) {
	f := newFixture(t)
	f.start(t, graphDef(), workflow.RunOptions{ID: "k"})
	f.do(t, "k", "security", nil, finding("x", "safe", quad.String("yes")))
	if _, err := f.e.StartStep(ctx, "k", "analyze", "host"); err != nil {
		t.Fatal(err)
	}
	r, err := f.e.Cancel(ctx, "k", "alice")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]workflow.StepStatus{"analyze": "failed", "security": "completed", "review": "skipped", "report": "skipped"}
	if r.Status != workflow.RunCancelled || !reflect.DeepEqual(statuses(r), want) {
		t.Fatalf("cancelled run %s %v", r.Status, statuses(r))
	}
	if _, err := f.e.Cancel(ctx, "k", "alice"); !errors.Is(err, workflow.ErrRunFinished) {
		t.Fatalf("second cancel: %v", err)
	}
	if _, err := f.e.StartStep(ctx, "k", "review", "host"); !errors.Is(err, workflow.ErrRunFinished) {
		t.Fatalf("start after cancel: %v", err)
	}
	team, err := f.tm.GetTeam(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	if !teammanager.Finished(team.Status) || !team.Merged {
		t.Fatalf("team of a cancelled run: %s merged=%v", team.Status, team.Merged)
	}
}

func TestEngine_History(t *testing.T) {
	f := newFixture(t)
	f.start(t, workflow.Def{Name: "h", Steps: []workflow.Step{{Name: "a", Agent: "x"}}}, workflow.RunOptions{ID: "h", Actor: "cli"})
	f.clock.Advance(time.Second)
	if _, err := f.e.StartStep(ctx, "h", "a", "bob"); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Second)
	if err := f.e.FailStep(ctx, "h", "a", 1, "boom"); err != nil {
		t.Fatal(err)
	}
	hist, err := f.e.History(ctx, "h")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, tr := range hist {
		if tr.Seq != i+1 {
			t.Errorf("transition %d has seq %d", i, tr.Seq)
		}
		got = append(got, strings.TrimSpace(tr.Step+" "+tr.From+">"+tr.To+" "+tr.Actor+" "+tr.Reason))
	}
	want := []string{
		">pending cli run created",
		"a pending>ready cortex",
		"a ready>running bob",
		"pending>running bob",
		"a running>failed bob boom",
		"running>merging cortex no step can still run",
		"merging>failed cortex step a failed: boom",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("history\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	start := newClock().Now()
	if !hist[0].At.Equal(start) || !hist[2].At.Equal(start.Add(time.Second)) || !hist[4].At.Equal(start.Add(2*time.Second)) {
		t.Errorf("times %v %v %v", hist[0].At, hist[2].At, hist[4].At)
	}
}

func TestEngine_StateIsQueryable(t *testing.T) {
	f := newFixture(t)
	f.start(t, graphDef(), workflow.RunOptions{ID: "q"})
	f.do(t, "q", "analyze", map[string]any{"summary": "s"})
	res, err := f.tm.Query(ctx, `SELECT ?name ?status WHERE { GRAPH ?g { ?step cx:workflow:step:name ?name ; cx:workflow:step:status ?status } } ORDER BY ?name`, sparql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	var got []string
	for res.Next(ctx) {
		row := res.Row()
		got = append(got, quadString(row[0])+"="+quadString(row[1]))
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"analyze=completed", "report=pending", "review=ready", "security=ready"}
	if !slices.Equal(got, want) {
		t.Fatalf("SPARQL step statuses %v, want %v", got, want)
	}
}

func quadString(v quad.Value) string {
	if s, ok := v.(quad.String); ok {
		return string(s)
	}
	if v == nil {
		return ""
	}
	return quad.StringOf(v)
}

func TestEngine_Led_StartsTurnsAndBoard(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		def    workflow.Def
		first  string
		lead   string
		review bool
	}{
		{workflow.Def{Name: "c", Type: workflow.Crew, Lead: "b", Agents: []string{"a", "b"}, MaxTurns: 2}, "turn-1/b", "b", true},
		{workflow.Def{Name: "s", Type: workflow.Swarm, Agents: []string{"a", "b"}, MaxTurns: 2}, "turn-1/a", "", false},
	} {
		r := f.start(t, tc.def, workflow.RunOptions{})
		if got := statuses(r); len(got) != 2 || got[tc.first] != workflow.StepReady {
			t.Errorf("%s: steps %v, want %s ready of 2 turns", tc.def.Type, got, tc.first)
		}
		team, err := f.tm.GetTeam(ctx, r.Team)
		if err != nil {
			t.Fatal(err)
		}
		if len(team.Members) != 2 {
			t.Errorf("%s: members %+v, want a and b", tc.def.Type, team.Members)
		}
		b, err := f.tm.Board(ctx, r.Team)
		if err != nil {
			t.Fatal(err)
		}
		if b.Lead != tc.lead || b.RequireReview != tc.review || b.AllowRequests == tc.review {
			t.Errorf("%s: board %+v", tc.def.Type, b)
		}
	}
}

func TestEngine_TeamRefused_NoRunLeft(t *testing.T) {
	f := newFixture(t)
	tm, err := teammanager.New(ctx, f.s, f.x, teammanager.DefaultConfig().WithMaxTeamSize(1))
	if err != nil {
		t.Fatal(err)
	}
	e, err := workflow.New(ctx, f.s, tm, workflow.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Start(ctx, graphDef(), workflow.RunOptions{ID: "big"})
	if !errors.Is(err, workflow.ErrInvalidRun) || !errors.Is(err, teammanager.ErrInvalidTeam) {
		t.Fatalf("start with too many agents: %v", err)
	}
	if _, err := e.Get(ctx, "big"); !errors.Is(err, workflow.ErrUnknownRun) {
		t.Fatalf("refused run left behind: %v", err)
	}
}

// countedFixture is a fixture whose team manager and engine share a
// registry with strategy "counted" (additive), which counts its merges.
func countedFixture(t *testing.T) (*fixture, *atomic.Int32) {
	t.Helper()
	s := cortextest.NewStore(t)
	x, err := newNS()
	if err != nil {
		t.Fatal(err)
	}
	r := merge.NewRegistry()
	merge.RegisterBuiltins(r)
	var calls atomic.Int32
	r.Register("counted", merge.StrategyFunc(func(in merge.Input) (merge.Result, error) {
		calls.Add(1)
		return r.Merge(merge.NameAdditive, in)
	}))
	tm, err := teammanager.New(ctx, s, x, teammanager.DefaultConfig().WithRegistry(r))
	if err != nil {
		t.Fatal(err)
	}
	e, err := workflow.New(ctx, s, tm, workflow.DefaultConfig().WithRegistry(r))
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{s: s, tm: tm, e: e, x: x, clock: newClock()}, &calls
}

// TestEngine_WithRegistry: fan-in findings are fused by the strategy of
// the engine's registry, so a host's own strategy (registered in the team
// manager's registry too) works for runs.
func TestEngine_WithRegistry(t *testing.T) {
	f, calls := countedFixture(t)
	f.start(t, scatterDef(), workflow.RunOptions{ID: "s1", Strategy: "counted"})
	f.do(t, "s1", "prepare", map[string]any{"plan": "p"})
	for _, step := range []string{"test-1", "test-2", "test-3"} {
		f.do(t, "s1", step, nil, finding("build", "status", quad.String("green")))
	}
	before := calls.Load()
	rs, err := f.e.Ready(ctx, "s1")
	if err != nil || len(rs) != 1 || len(rs[0].Upstream) != 1 {
		t.Fatalf("ready = %v, %v", rs, err)
	}
	if calls.Load() == before {
		t.Fatal("the fan-in did not use the registry's strategy")
	}
}

// TestEngine_FanInStrategyStopsWithContext: a fan-in's strategy that is
// no merge.ContextStrategy and does not return is left behind when the
// caller's context ends (the call returns its error); Ready called it
// without a context and waited for ever.
func TestEngine_FanInStrategyStopsWithContext(t *testing.T) {
	s := cortextest.NewStore(t)
	x, err := newNS()
	if err != nil {
		t.Fatal(err)
	}
	r := merge.NewRegistry()
	merge.RegisterBuiltins(r)
	started, release := make(chan struct{}, 16), make(chan struct{})
	t.Cleanup(func() { close(release) })
	var stuck atomic.Bool
	r.Register("stuck", merge.StrategyFunc(func(in merge.Input) (merge.Result, error) {
		if stuck.Load() {
			started <- struct{}{}
			<-release
		}
		return r.Merge(merge.NameAdditive, in)
	}))
	tm, err := teammanager.New(ctx, s, x, teammanager.DefaultConfig().WithRegistry(r))
	if err != nil {
		t.Fatal(err)
	}
	e, err := workflow.New(ctx, s, tm, workflow.DefaultConfig().WithRegistry(r))
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{s: s, tm: tm, e: e, x: x, clock: newClock()}
	f.start(t, scatterDef(), workflow.RunOptions{ID: "s1", Strategy: "stuck"})
	f.do(t, "s1", "prepare", map[string]any{"plan": "p"})
	for _, step := range []string{"test-1", "test-2", "test-3"} {
		f.do(t, "s1", step, nil, finding("build", "status", quad.String("green")))
	}
	stuck.Store(true)
	cctx, cancel := context.WithCancel(ctx)
	go func() {
		<-started
		cancel()
	}()
	if rs, err := e.Ready(cctx, "s1"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Ready with a stuck strategy: %d steps, %v; want context.Canceled", len(rs), err)
	}
	stuck.Store(false)
	if rs, err := e.Ready(ctx, "s1"); err != nil || len(rs) != 1 || len(rs[0].Upstream) != 1 {
		t.Fatalf("Ready after: %v, %v", rs, err)
	}
}

// TestEngine_TeamDeletedUnderRun disbands (and deletes) a run's team: the
// run fails with the reason at its next write (a graph's StartStep) or,
// for a crew whose coordination is the team's board, its next Ready,
// instead of every call failing on the missing or read-only team and the
// run staying open for ever (a crew's Ready handed out its lead turn on a
// disbanded team).
func TestEngine_TeamDeletedUnderRun(t *testing.T) {
	for _, tc := range []struct {
		name   string
		def    workflow.Def
		start  string // the step to start after the deletion, if any
		delete bool   // delete the team after disbanding it
	}{
		{"graph", graphDef(), graphDef().Steps[0].Name, true},
		{"crew", crewDef(), "", true},
		{"graph-disbanded", graphDef(), graphDef().Steps[0].Name, false},
		{"crew-disbanded", crewDef(), "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			r := f.start(t, tc.def, workflow.RunOptions{ID: "gone"})
			if _, err := f.tm.DisbandTeam(ctx, r.Team); err != nil {
				t.Fatal(err)
			}
			how := "disbanded"
			if tc.delete {
				how = "deleted"
				if err := f.tm.DeleteTeam(ctx, r.Team); err != nil {
					t.Fatal(err)
				}
			}
			if tc.start != "" {
				if _, err := f.e.StartStep(ctx, "gone", tc.start, "host"); err != nil {
					t.Fatalf("StartStep: %v", err)
				}
			}
			if rs, err := f.e.Ready(ctx, "gone"); err != nil || len(rs) != 0 {
				t.Fatalf("Ready: %d steps, %v; want none, nil", len(rs), err)
			}
			r = f.get(t, "gone")
			want := "team " + r.Team + " was " + how
			if r.Status != workflow.RunFailed || r.Error != want {
				t.Fatalf("run %s (%q), want failed (%q)", r.Status, r.Error, want)
			}
			for _, s := range r.Steps {
				st := workflow.StepSkipped
				if s.Name == tc.start {
					st = workflow.StepFailed
				}
				if s.Status != st || s.Reason != want {
					t.Fatalf("step %s %s (%q), want %s (%q)", s.Name, s.Status, s.Reason, st, want)
				}
			}
			if _, err := f.e.Cancel(ctx, "gone", "alice"); !errors.Is(err, workflow.ErrRunFinished) {
				t.Fatalf("Cancel: %v, want ErrRunFinished", err)
			}
		})
	}
}

// TestEngine_AddFindingsTeamGone: a running step's AddFindings after its
// team was disbanded (or deleted) fails the run, "team T was disbanded",
// and returns an error matching ErrRunFinished, which a driver takes as the
// run's end; it used to return the team's error and leave the run running
// with its next Ready handing out steps.
func TestEngine_AddFindingsTeamGone(t *testing.T) {
	for _, del := range []bool{false, true} {
		how := map[bool]string{false: "disbanded", true: "deleted"}[del]
		t.Run(how, func(t *testing.T) {
			f := newFixture(t)
			r := f.start(t, graphDef(), workflow.RunOptions{ID: "g"})
			step := graphDef().Steps[0].Name
			attempt, err := f.e.StartStep(ctx, "g", step, "host")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.tm.DisbandTeam(ctx, r.Team); err != nil {
				t.Fatal(err)
			}
			if del {
				if err := f.tm.DeleteTeam(ctx, r.Team); err != nil {
					t.Fatal(err)
				}
			}
			fs := []teammanager.Finding{{Subject: quad.IRI("urn:x:s"), Predicate: quad.IRI("urn:x:p"), Object: quad.String("o")}}
			if _, err := f.e.AddFindings(ctx, "g", step, attempt, fs); !errors.Is(err, workflow.ErrRunFinished) {
				t.Fatalf("AddFindings: %v, want ErrRunFinished", err)
			}
			r = f.get(t, "g")
			want := "team " + r.Team + " was " + how
			if r.Status != workflow.RunFailed || r.Error != want || r.Steps[0].Status != workflow.StepFailed {
				t.Fatalf("run %s (%q), step %s; want failed (%q), failed", r.Status, r.Error, r.Steps[0].Status, want)
			}
			if rs, err := f.e.Ready(ctx, "g"); err != nil || len(rs) != 0 {
				t.Fatalf("Ready: %d steps, %v; want none", len(rs), err)
			}
		})
	}
}

// TestEngine_CancelWithTeamDisbanded: Cancel of a run whose team was
// disbanded cancels the run and reports success; it used to report the
// team's refusal of the members' moves after it had cancelled the run.
func TestEngine_CancelWithTeamDisbanded(t *testing.T) {
	for _, def := range []workflow.Def{graphDef(), crewDef()} {
		t.Run(string(def.Type), func(t *testing.T) {
			f := newFixture(t)
			r := f.start(t, def, workflow.RunOptions{ID: "c"})
			if _, err := f.tm.DisbandTeam(ctx, r.Team); err != nil {
				t.Fatal(err)
			}
			if _, err := f.e.Cancel(ctx, "c", "alice"); err != nil {
				t.Fatalf("Cancel: %v", err)
			}
			if r := f.get(t, "c"); r.Status != workflow.RunCancelled {
				t.Fatalf("run %s, want cancelled", r.Status)
			}
		})
	}
}

// TestEngine_StaleAttempt: a runner that returns after its step was given
// back and started again (by another driver) names an attempt that is no
// longer the step's: its AddFindings, CompleteStep, FailStep and
// ReleaseStep are refused with an *AttemptError and write nothing (the
// run, its history, the team's findings); the current attempt's calls
// go through. Without attempts, the late runner completed the new
// attempt.
func TestEngine_StaleAttempt(t *testing.T) {
	f := newFixture(t)
	f.start(t, graphDef(), workflow.RunOptions{ID: "late"})
	first, err := f.e.StartStep(ctx, "late", "analyze", "driver-a")
	if err != nil || first != 1 {
		t.Fatalf("first start: attempt %d, %v; want 1", first, err)
	}
	if err := f.e.ReleaseStep(ctx, "late", "analyze", first, "driver-a lost its lease"); err != nil {
		t.Fatal(err)
	}
	second, err := f.e.StartStep(ctx, "late", "analyze", "driver-b")
	if err != nil || second != 2 {
		t.Fatalf("restart: attempt %d, %v; want 2", second, err)
	}
	stale := func(t *testing.T, what string, err error, status workflow.StepStatus) {
		t.Helper()
		var ae *workflow.AttemptError
		if !errors.As(err, &ae) || !errors.Is(err, workflow.ErrStaleAttempt) || !errors.Is(err, workflow.ErrInvalidTransition) ||
			ae.Attempt != first || ae.Current != second || ae.Status != status {
			t.Fatalf("%s of attempt %d: %v (%+v), want a stale attempt, current %d (%s)", what, first, err, ae, second, status)
		}
	}
	before := f.get(t, "late")
	history, err := f.e.History(ctx, "late")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.e.AddFindings(ctx, "late", "analyze", first, []teammanager.Finding{finding("x", "y", quad.String("late"))})
	stale(t, "AddFindings", err, workflow.StepRunning)
	stale(t, "CompleteStep", f.e.CompleteStep(ctx, "late", "analyze", first, map[string]any{"summary": "late"}), workflow.StepRunning)
	stale(t, "FailStep", f.e.FailStep(ctx, "late", "analyze", first, "late"), workflow.StepRunning)
	stale(t, "ReleaseStep", f.e.ReleaseStep(ctx, "late", "analyze", first, "late"), workflow.StepRunning)
	if after := f.get(t, "late"); !reflect.DeepEqual(after, before) {
		t.Fatalf("the stale calls changed the run:\n%+v\nwant\n%+v", after, before)
	}
	if h, err := f.e.History(ctx, "late"); err != nil || len(h) != len(history) {
		t.Fatalf("history: %d transitions, %v; want %d", len(h), err, len(history))
	}
	if fs, err := f.tm.Findings(ctx, "late", teammanager.FindingFilter{}); err != nil || len(fs) != 0 {
		t.Fatalf("team findings after the stale AddFindings: %+v, %v", fs, err)
	}

	if err := f.e.CompleteStep(ctx, "late", "analyze", second, map[string]any{"summary": "b's"}); err != nil {
		t.Fatalf("complete the current attempt: %v", err)
	}
	s, _ := f.get(t, "late").Step("analyze")
	if s.Status != workflow.StepCompleted || s.Attempt != second || s.Actor != "driver-b" || s.Outputs["summary"] != "b's" {
		t.Fatalf("analyze %+v, want completed by attempt 2 of driver-b", s)
	}
	stale(t, "CompleteStep after the step completed", f.e.CompleteStep(ctx, "late", "analyze", first, nil), workflow.StepCompleted)
	// An attempt the step never had is refused alike.
	if _, err := f.e.StartStep(ctx, "late", "security", "driver-b"); err != nil {
		t.Fatal(err)
	}
	if err := f.e.CompleteStep(ctx, "late", "security", 7, nil); !errors.Is(err, workflow.ErrStaleAttempt) {
		t.Fatalf("complete attempt 7 of a step at attempt 1: %v", err)
	}
}

// TestEngine_Start_TeamIDTaken: a run whose id is that of an existing
// team (not a run's) is refused with ErrRunExists before anything is
// written; the run would otherwise take that team as its own, fail every
// call on its unknown members, and move and merge the team's members.
func TestEngine_Start_TeamIDTaken(t *testing.T) {
	f := newFixture(t)
	if _, err := f.tm.CreateTeam(ctx, teammanager.TeamConfig{ID: "t1", Name: "other",
		Members: []teammanager.MemberConfig{{AgentID: "analyst"}}}); err != nil {
		t.Fatal(err)
	}
	_, err := f.e.Start(ctx, graphDef(), workflow.RunOptions{ID: "t1"})
	if !errors.Is(err, workflow.ErrRunExists) {
		t.Fatalf("start with a team's id: %v, want ErrRunExists", err)
	}
	if _, err := f.e.Get(ctx, "t1"); !errors.Is(err, workflow.ErrUnknownRun) {
		t.Fatalf("refused run written: %v", err)
	}
	team, err := f.tm.GetTeam(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if team.Name != "other" || len(team.Members) != 1 || team.Members[0].Status != teammanager.Pending {
		t.Fatalf("the team was changed: %+v", team)
	}
}

// TestEngine_Start_AgentNoMemberCanBe: an agent whose member id no team
// member can have (not 1..64 of [A-Za-z0-9._@+-] once '/' is '+') is
// refused by CheckOptions, and by Start before anything is written: not
// after the run and its definition were written, by the team manager. So
// are a blank definition name and a name or context that is not UTF-8,
// which the run's team takes.
func TestEngine_Start_AgentNoMemberCanBe(t *testing.T) {
	for _, agent := range []string{"a b", "é", "a:b", "a\u200bb", strings.Repeat("a", 65)} {
		t.Run(agent, func(t *testing.T) {
			f := newFixture(t)
			d := workflow.Def{Name: "x", Steps: []workflow.Step{{Name: "s", Agent: agent}}}
			if err := d.CheckOptions(workflow.RunOptions{}, f.tm.Strategies()); !errors.Is(err, workflow.ErrInvalidRun) {
				t.Fatalf("CheckOptions: %v, want ErrInvalidRun", err)
			}
			if _, err := f.e.Start(ctx, d, workflow.RunOptions{ID: "r"}); !errors.Is(err, workflow.ErrInvalidRun) {
				t.Fatalf("Start: %v, want ErrInvalidRun", err)
			}
			n, err := f.s.Namespace(ctx, f.x.Name(), cortex.WithBase(f.x.Base()))
			if err != nil {
				t.Fatal(err)
			}
			for _, table := range []string{"workflows", "workflow-steps", "workflow-defs"} {
				if rows, _, err := n.SideRows(ctx, table); err != nil || len(rows) != 0 {
					t.Errorf("table %s: %d rows left (%v)", table, len(rows), err)
				}
			}
		})
	}
	for name, d := range map[string]workflow.Def{
		"blank name":    {Name: " \t", Steps: []workflow.Step{{Name: "s", Agent: "a"}}},
		"name not utf8": {Name: "x\xff", Steps: []workflow.Step{{Name: "s", Agent: "a"}}},
		"context":       {Name: "x", Context: "\xfe", Steps: []workflow.Step{{Name: "s", Agent: "a"}}},
	} {
		f := newFixture(t)
		if err := d.CheckOptions(workflow.RunOptions{}, f.tm.Strategies()); !errors.Is(err, workflow.ErrInvalidRun) {
			t.Errorf("%s: CheckOptions: %v, want ErrInvalidRun", name, err)
		}
		if _, err := f.e.Start(ctx, d, workflow.RunOptions{ID: "r"}); !errors.Is(err, workflow.ErrInvalidRun) {
			t.Errorf("%s: Start: %v, want ErrInvalidRun", name, err)
		}
	}
	f := newFixture(t)
	d := workflow.Def{Name: "x", Steps: []workflow.Step{{Name: "s", Agent: "ns/a.b@c"}}}
	if err := d.CheckOptions(workflow.RunOptions{}, f.tm.Strategies()); err != nil {
		t.Fatal(err)
	}
	f.start(t, d, workflow.RunOptions{ID: "ok"})
}

// TestEngine_List_UnknownStatus: List refuses a status that no run can
// have (a typo, another case) with ErrInvalidRun, instead of listing no
// runs as if none had it.
func TestEngine_List_UnknownStatus(t *testing.T) {
	f := newFixture(t)
	f.start(t, graphDef(), workflow.RunOptions{ID: "l1"})
	for _, st := range []workflow.RunStatus{"Pending", "done", "pending ", "\x00"} {
		if runs, err := f.e.List(ctx, st); !errors.Is(err, workflow.ErrInvalidRun) {
			t.Errorf("List(%q): %d runs, %v; want ErrInvalidRun", st, len(runs), err)
		}
	}
	if runs, err := f.e.List(ctx, workflow.RunPending); err != nil || len(runs) != 1 {
		t.Fatalf("List(pending): %d runs, %v", len(runs), err)
	}
}

// TestEngine_FindingsAfterTimeout: a runner that reports findings after
// its step's timeout (not recorded yet) is refused as its completion is
// (ErrInvalidTransition: the step failed) and writes nothing: its findings
// were written to its agent's member graph before the refusal, and the
// team's final merge took them, as its agent completed another step.
func TestEngine_FindingsAfterTimeout(t *testing.T) {
	f := newFixture(t)
	d := workflow.Def{Name: "late", Steps: []workflow.Step{{Name: "slow", Agent: "a"}, {Name: "fast", Agent: "a"}}}
	f.start(t, d, workflow.RunOptions{ID: "late", StepTimeout: time.Minute, NonCritical: []string{"a"}})
	n, err := f.e.StartStep(ctx, "late", "slow", "host")
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Minute)
	if _, err := f.e.AddFindings(ctx, "late", "slow", n, []teammanager.Finding{finding("x", "late", quad.String("yes"))}); !errors.Is(err, workflow.ErrInvalidTransition) {
		t.Fatalf("findings after the timeout: %v, want ErrInvalidTransition", err)
	}
	if s, _ := f.get(t, "late").Step("slow"); s.Status != workflow.StepFailed {
		t.Fatalf("slow %s, want failed by its timeout", s.Status)
	}
	fs, err := f.tm.Findings(ctx, "late", teammanager.FindingFilter{Agent: "a"})
	if err != nil || len(fs) != 0 {
		t.Fatalf("a's findings after a refused report: %+v, %v", fs, err)
	}
	f.do(t, "late", "fast", nil, finding("x", "fast", quad.String("yes")))
	r := f.get(t, "late")
	if r.Status != workflow.RunCompleted {
		t.Fatalf("run %s (%s)", r.Status, r.Error)
	}
	facts, err := f.tm.Facts(ctx, "late", teammanager.FactFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != 1 || facts[0].Predicate != iri("fast") {
		t.Fatalf("merged facts %+v, want fast's only", facts)
	}
}

// TestEngine_FindingsAfterTimeout_LastStep: late findings of a run's last
// running step record its timeout, and the run, with no step left, ends.
func TestEngine_FindingsAfterTimeout_LastStep(t *testing.T) {
	f := newFixture(t)
	f.start(t, workflow.Def{Name: "one", Steps: []workflow.Step{{Name: "s", Agent: "a"}}}, workflow.RunOptions{ID: "one", StepTimeout: time.Minute})
	n, err := f.e.StartStep(ctx, "one", "s", "host")
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Hour)
	if _, err := f.e.AddFindings(ctx, "one", "s", n, []teammanager.Finding{finding("x", "late", quad.String("yes"))}); !errors.Is(err, workflow.ErrRunFinished) && !errors.Is(err, workflow.ErrInvalidTransition) {
		t.Fatalf("findings after the timeout: %v", err)
	}
	if r := f.get(t, "one"); r.Status != workflow.RunFailed {
		t.Fatalf("run %s (%s), want failed", r.Status, r.Error)
	}
}

// TestEngine_CyclicValues: run inputs and step outputs that hold
// themselves are refused (ErrInvalidRun, ErrInvalidOutput), as encoding/json
// refuses a cycle; their check for strings that are not UTF-8 recursed
// until the goroutine's stack overflowed, crashing the process.
func TestEngine_CyclicValues(t *testing.T) {
	f := newFixture(t)
	m := map[string]any{}
	m["self"] = m
	l := []any{nil}
	l[0] = l
	var ptr any
	ptr = &ptr
	for name, v := range map[string]any{"map": m, "list": l, "pointer": ptr} {
		if _, err := f.e.Start(ctx, graphDef(), workflow.RunOptions{ID: "cyc", Inputs: map[string]any{"x": v}}); !errors.Is(err, workflow.ErrInvalidRun) {
			t.Errorf("start with a %s that holds itself: %v, want ErrInvalidRun", name, err)
		}
	}
	d := workflow.Def{Name: "one", Steps: []workflow.Step{{Name: "s", Agent: "a"}}}
	f.start(t, d, workflow.RunOptions{ID: "one"})
	n, err := f.e.StartStep(ctx, "one", "s", "host")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.e.CompleteStep(ctx, "one", "s", n, map[string]any{"x": m}); !errors.Is(err, workflow.ErrInvalidOutput) {
		t.Errorf("complete with a map that holds itself: %v, want ErrInvalidOutput", err)
	}
}

// TestEngine_Ready_StepIsACopy: what Ready gives a runner is its own: a
// runner that changes its step's ports, dependencies or agent definition
// (or a lead turn's members') does not change the run's definition as the
// Engine holds it. It did: a port renamed by a runner made the Engine
// refuse the declared output ("plan" is not a declared output).
func TestEngine_Ready_StepIsACopy(t *testing.T) {
	f := newFixture(t)
	d := scatterDef()
	d.AgentDefs = map[string]json.RawMessage{"coordinator": json.RawMessage(`{"name":"coordinator"}`)}
	r := f.start(t, d, workflow.RunOptions{ID: "copied"})
	rs, err := f.e.Ready(ctx, r.ID)
	if err != nil || len(rs) != 1 {
		t.Fatalf("ready %d, %v", len(rs), err)
	}
	rs[0].Step.Outputs[0].Name = "mutated"
	rs[0].Step.Name = "mutated"
	rs[0].Agent[2] = 'X'
	again, err := f.e.Ready(ctx, r.ID)
	if err != nil || len(again) != 1 || again[0].Step.Outputs[0].Name != "plan" || string(again[0].Agent) != `{"name":"coordinator"}` {
		t.Fatalf("Ready after a runner changed its step: %+v, %v", again, err)
	}
	f.do(t, r.ID, "prepare", map[string]any{"plan": "p"})
	rs, err = f.e.Ready(ctx, r.ID)
	if err != nil || len(rs) != 3 {
		t.Fatalf("ready %d, %v", len(rs), err)
	}
	rs[0].Step.DependsOn[0] = "test-2"
	rs[0].Step.Inputs[0].From = "nothing.here"
	if again, err = f.e.Ready(ctx, r.ID); err != nil || again[0].Step.DependsOn[0] != "prepare" || again[0].Step.Inputs[0].From != "prepare.plan" {
		t.Fatalf("Ready after a runner changed its step's inputs: %+v, %v", again[0].Step, err)
	}
}

// TestEngine_Start_DefIsCopied: a host that changes its Def after Start
// (to start another run from it, say) does not change the run's: the
// Engine kept the caller's slices and maps as the run's definition, so a
// port renamed afterwards made it refuse the declared output.
func TestEngine_Start_DefIsCopied(t *testing.T) {
	f := newFixture(t)
	d := scatterDef()
	r := f.start(t, d, workflow.RunOptions{ID: "kept"})
	d.Steps[0].Outputs[0].Name = "mutated"
	d.Steps[4].DependsOn[0] = "prepare"
	f.do(t, r.ID, "prepare", map[string]any{"plan": "p"})
	if got := f.readyNames(t, r.ID); !slices.Equal(got, []string{"test-1", "test-2", "test-3"}) {
		t.Fatalf("ready %v", got)
	}
}
