package workflow_test

import (
	"errors"
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
