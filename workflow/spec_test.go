package workflow_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/spec"
	"github.com/cortexgraph/cortex/workflow"
)

func TestFromSpec(t *testing.T) {
	team, rep := spec.ParseTeam("t.json", []byte(`{"name": "t", "version": "1", "description": "d", "context": "c",
		"agents": ["a", "b", "judge"],
		"workflow": {"type": "scatter", "steps": [
			{"name": "one", "agent": "a", "outputs": [{"name": "n", "type": "number"}]},
			{"name": "two", "agent": "b", "depends_on": ["one"], "inputs": [
				{"name": "n", "type": "number", "from": "one.n"},
				{"name": "opt", "type": "string", "required": false, "default": "x"}]}]},
		"collaboration": {"lead": "judge", "consensus": {"max_rounds": 2, "tie_breaker": "judge"}}}`), spec.Options{})
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	agent, rep := spec.ParseAgent("a.md", []byte("---\nname: a\ndescription: first\n---\nDo one.\n"), spec.Options{})
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	d, err := workflow.FromSpec(team, []*spec.Agent{agent})
	if err != nil {
		t.Fatal(err)
	}
	want := workflow.Def{Name: "t", Description: "d", Context: "c", Type: workflow.Scatter, Agents: []string{"a", "b", "judge"}, Lead: "judge",
		Consensus: &workflow.Consensus{RequiredAgreement: 0.5, MaxRounds: 2, TieBreaker: "judge"},
		Steps: []workflow.Step{
			{Name: "one", Agent: "a", Outputs: []workflow.Port{{Name: "n", Type: workflow.Number}}},
			{Name: "two", Agent: "b", DependsOn: []string{"one"}, Inputs: []workflow.Port{
				{Name: "n", Type: workflow.Number, From: "one.n"},
				{Name: "opt", Type: workflow.String, Default: "x", Optional: true}}},
		}}
	defs := d.AgentDefs
	d.AgentDefs = nil
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("FromSpec:\n got  %+v\n want %+v", d, want)
	}
	if len(defs) != 1 || !strings.Contains(string(defs["a"]), "Do one.") {
		t.Fatalf("agent definitions: %s", defs)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestFromSpec_LoopStep: a step that runs a loop (spec v0.9: loop instead
// of agent) is a valid definition that no workflow runs yet; FromSpec
// says so, naming the step and the loop, rather than a Def whose step has
// no agent ("steps/0/agent: missing").
func TestFromSpec_LoopStep(t *testing.T) {
	team, rep := spec.ParseTeam("t.json", []byte(`{"name": "t", "version": "1", "agents": ["a"],
		"workflow": {"steps": [{"name": "one", "agent": "a"}, {"name": "fix", "loop": "fix-until-green", "depends_on": ["one"]}]}}`), spec.Options{})
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	_, err := workflow.FromSpec(team, nil)
	if !errors.Is(err, workflow.ErrInvalidDef) {
		t.Fatalf("FromSpec of a loop step: %v, want ErrInvalidDef", err)
	}
	for _, want := range []string{`step "fix"`, `loop "fix-until-green"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q is not one line", err)
	}
}

// TestFromSpec_UnqualifiedAgents: a step, lead, specialist or tie_breaker
// may name a qualified team agent by its bare name when one team agent
// has it (package spec checks teams so); FromSpec gives the Def the
// team's entry, which Validate and the run's members use. It passed them
// as written, so a team defs validate accepted was refused by workflows
// run ("steps/0/agent: \"a\" is not one of the team's agents").
func TestFromSpec_UnqualifiedAgents(t *testing.T) {
	for _, c := range []struct{ name, team string }{
		{"chain", `{"name": "t", "version": "1", "agents": ["ns/a", "qa/b"],
			"workflow": {"type": "chain", "steps": [{"name": "one", "agent": "a"}, {"name": "two", "agent": "qa/b"}]}}`},
		{"crew", `{"name": "t", "version": "1", "agents": ["ns/a", "qa/b"], "workflow": {"type": "crew"},
			"collaboration": {"lead": "a", "specialists": ["b"]}}`},
		{"council", `{"name": "t", "version": "1", "agents": ["ns/a", "qa/b"], "workflow": {"type": "council"},
			"collaboration": {"consensus": {"tie_breaker": "b"}}}`},
		{"council-lead", `{"name": "t", "version": "1", "agents": ["ns/a", "qa/b"], "orchestrator": "a", "workflow": {"type": "council"},
			"collaboration": {"consensus": {"tie_breaker": "lead"}}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			team, rep := spec.ParseTeam("t.json", []byte(c.team), spec.Options{})
			if err := rep.Err(); err != nil {
				t.Fatal(err)
			}
			agent := &spec.Agent{Name: "a", Namespace: "ns", Instructions: "Do a."}
			d, err := workflow.FromSpec(team, []*spec.Agent{agent})
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if !strings.Contains(string(d.AgentDefs["ns/a"]), "Do a.") {
				t.Fatalf("agent definitions: %s", d.AgentDefs)
			}
		})
	}
}

// TestFromSpec_LinearInReferences: each step's agent was resolved with
// spec.Resolve, which indexes the team's whole agent list per call, so a
// team of n agents and steps cost n² (2,000: ~4M allocations). The list
// is indexed once now; allocations grow with n.
func TestFromSpec_LinearInReferences(t *testing.T) {
	allocs := func(n int) float64 {
		var refs, steps []string
		for i := range n {
			refs = append(refs, fmt.Sprintf(`"ns%d/a%d"`, i%7, i))
			steps = append(steps, fmt.Sprintf(`{"name": "s%d", "agent": "a%d"}`, i, i)) // bare: resolved
		}
		data := `{"name": "t", "version": "1", "agents": [` + strings.Join(refs, ",") + `], "workflow": {"type": "dag", "steps": [` + strings.Join(steps, ",") + `]}}`
		team, rep := spec.ParseTeam("t.json", []byte(data), spec.Options{})
		if rep.Err() != nil {
			t.Fatal(rep.Err())
		}
		var d workflow.Def
		a := testing.AllocsPerRun(1, func() {
			var err error
			if d, err = workflow.FromSpec(team, nil); err != nil {
				t.Fatal(err)
			}
		})
		if got := d.Steps[n-1].Agent; got != fmt.Sprintf("ns%d/a%d", (n-1)%7, n-1) {
			t.Fatalf("step %d runs %q", n-1, got)
		}
		return a
	}
	small, large := allocs(250), allocs(2000)
	t.Logf("250: %v allocations, 2,000: %v", small, large)
	if large > 16*small { // linear: 8×; quadratic: 64×
		t.Errorf("FromSpec of 2,000 agents and steps: %v allocations, 250: %v (want linear growth)", large, small)
	}
}
