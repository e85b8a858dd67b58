package spec_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/cortexgraph/cortex/spec"
)

// TestExamples_Spec: the spec's own examples (agents and teams from its
// docs, the team examples' workflow fragments completed into team files)
// validate without a single problem, together with stand-ins for the agents
// the team examples name but do not define.
func TestExamples_Spec(t *testing.T) {
	set, rep, err := spec.Load([]string{filepath.Join("testdata", "examples", "spec"), filepath.Join("testdata", "examples", "support")}, spec.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		t.Errorf("%s", p)
	}
	if got := len(set.Teams()); got != 8 {
		t.Errorf("%d teams, want 8", got)
	}
	var reviewer *spec.Agent
	for _, a := range set.Agents() {
		if a.Name == "security-reviewer" {
			reviewer = a
		}
	}
	if reviewer == nil || reviewer.Role != "Security Analyst" || reviewer.Delegation == nil || len(reviewer.Delegation.CanReceiveFrom) != 2 ||
		!bytes.HasPrefix([]byte(reviewer.Instructions), []byte("# Security Review Instructions")) {
		t.Errorf("security-reviewer = %+v", reviewer)
	}
}

// TestExamples_Legacy: team files as real repositories write them ($schema,
// legacy workflow types and port shapes, qualified agents from a
// subdirectory, "*" participants, "lead" tie breaker) load with warnings
// only, the documented legacy ones (testdata/legacy.golden).
func TestExamples_Legacy(t *testing.T) {
	t.Chdir(filepath.Join("testdata", "examples"))
	set, rep, err := spec.Load([]string{"legacy"}, spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors() != 0 {
		t.Errorf("errors in legacy examples:\n%v", rep.Problems)
	}
	var out bytes.Buffer
	for _, p := range rep.Problems {
		out.WriteString(p.String() + "\n")
	}
	t.Chdir(filepath.Join("..", ".."))
	golden(t, "legacy.golden", out.Bytes())

	var release, review *spec.Team
	for _, tm := range set.Teams() {
		switch tm.Name {
		case "release":
			release = tm
		case "review":
			review = tm
		}
	}
	if release == nil || review == nil {
		t.Fatalf("teams %v", set.Teams())
	}
	if release.WorkflowType() != spec.WorkflowChain {
		t.Errorf("release workflow %q, want chain", release.WorkflowType())
	}
	if review.WorkflowType() != spec.WorkflowCrew {
		t.Errorf("review workflow %q, want crew (orchestrated with an orchestrator)", review.WorkflowType())
	}
	test := release.Steps()[1]
	if len(test.Inputs) != 1 || test.Inputs[0] != (spec.Port{Name: "scope", From: "plan.scope"}) {
		t.Errorf("legacy input map → %+v", test.Inputs)
	}
	if plan := release.Steps()[0]; len(plan.Outputs) != 2 || plan.Outputs[1].Name != "scope" {
		t.Errorf("legacy output names → %+v", plan.Outputs)
	}
	var unit, pm *spec.Agent
	for _, a := range set.Agents() {
		switch a.QualifiedName() {
		case "qa/unit":
			unit = a
		case "pm":
			pm = a
		}
	}
	if unit == nil {
		t.Fatal("agents/qa/unit.md did not get namespace qa")
	}
	if pm == nil || len(pm.Tasks) != 1 || pm.Tasks[0].ExpectedOutput != "A scope everyone agreed on" || pm.Tasks[0].HumanInLoop != "Ask the release owner" {
		t.Errorf("pm's task lost expected_output or human_in_loop: %+v", pm)
	}
}
