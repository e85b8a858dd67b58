package workflow_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/spec"
	"github.com/cortexgraph/cortex/workflow"
)

func TestDef_Validate(t *testing.T) {
	step := func(name, agent string, deps ...string) workflow.Step {
		return workflow.Step{Name: name, Agent: agent, DependsOn: deps}
	}
	tests := []struct {
		name string
		def  workflow.Def
		want []string // substrings, every one expected
	}{
		{"ok", workflow.Def{Name: "t", Steps: []workflow.Step{step("a", "x"), step("b", "y", "a")}}, nil},
		{"no name", workflow.Def{Steps: []workflow.Step{step("a", "x")}}, []string{"name: missing"}},
		{"bad type", workflow.Def{Name: "t", Type: "dag"}, []string{`type: "dag" is not chain`}},
		{"duplicate step", workflow.Def{Name: "t", Steps: []workflow.Step{step("a", "x"), step("a", "y")}},
			[]string{`steps/1/name: step "a" defined twice`}},
		{"missing agent", workflow.Def{Name: "t", Steps: []workflow.Step{{Name: "a"}}}, []string{"steps/0/agent: missing"}},
		{"agent not in team", workflow.Def{Name: "t", Agents: []string{"x"}, Steps: []workflow.Step{step("a", "y")}},
			[]string{`steps/0/agent: "y" is not one of the team's agents`}},
		{"unknown dependency", workflow.Def{Name: "t", Steps: []workflow.Step{step("a", "x", "zz")}},
			[]string{`steps/0/depends_on/0: unknown step "zz"`}},
		{"self dependency", workflow.Def{Name: "t", Steps: []workflow.Step{step("a", "x", "a")}},
			[]string{`depends on itself`}},
		{"cycle", workflow.Def{Name: "t", Steps: []workflow.Step{step("a", "x", "c"), step("b", "x", "a"), step("c", "x", "b"), step("d", "x")}},
			[]string{"depends_on: cycle a → b → c → a"}},
		{"too many steps", workflow.Def{Name: "t", Steps: make([]workflow.Step, spec.MaxSteps+1)},
			[]string{"steps: at most 10000, not 10001"}},
		{"every problem at once", workflow.Def{Name: "t", Steps: []workflow.Step{{Name: "a"}, step("b", "x", "q")}},
			[]string{"steps/0/agent: missing", `steps/1/depends_on/0: unknown step "q"`}},
		{"ports", workflow.Def{Name: "t", Steps: []workflow.Step{
			{Name: "a", Agent: "x", Outputs: []workflow.Port{{Name: "o", Type: "text"}, {Name: "o"}}},
			{Name: "b", Agent: "x", DependsOn: []string{"a"}, Inputs: []workflow.Port{
				{Name: "i", Type: workflow.Number, Default: "three"},
				{Name: "j", From: "a.nope"},
				{Name: "k", From: "zz.o"},
				{Name: "l", From: "c.o"},
				{Name: "m", From: "ao"},
			}},
			{Name: "c", Agent: "x", Outputs: []workflow.Port{{Name: "o"}}},
		}}, []string{
			`steps/0/outputs/0/type: "text" is not string`,
			`steps/0/outputs/1/name: "o" defined twice`,
			`steps/1/inputs/0/default: want number, got string`,
			`steps/1/inputs/1/from: step "a" has no output "nope"`,
			`steps/1/inputs/2/from: unknown step "zz"`,
			`steps/1/inputs/3/from: step "c" is not upstream of "b"`,
			`steps/1/inputs/4/from: "ao" is not step.output`,
		}},
		{"transitive from", workflow.Def{Name: "t", Steps: []workflow.Step{
			{Name: "a", Agent: "x", Outputs: []workflow.Port{{Name: "o"}}},
			step("b", "x", "a"),
			{Name: "c", Agent: "x", DependsOn: []string{"b"}, Inputs: []workflow.Port{{Name: "i", From: "a.o"}}},
		}}, nil},
		{"chain orders by position", workflow.Def{Name: "t", Type: workflow.Chain, Steps: []workflow.Step{
			{Name: "a", Agent: "x", Outputs: []workflow.Port{{Name: "o"}}},
			step("b", "x"),
			{Name: "c", Agent: "x", Inputs: []workflow.Port{{Name: "i", From: "a.o"}}},
		}}, nil},
		{"council", workflow.Def{Name: "t", Type: workflow.Council, Agents: []string{"a", "b"}, Lead: "b",
			Consensus: &workflow.Consensus{RequiredAgreement: 0.5, MaxRounds: 1, TieBreaker: "lead"}}, nil},
		{"council without consensus", workflow.Def{Name: "t", Type: workflow.Council, Agents: []string{"a"}},
			[]string{"consensus: a council needs consensus rules"}},
		{"council rules", workflow.Def{Name: "t", Type: workflow.Council, Agents: []string{"a"},
			Consensus: &workflow.Consensus{RequiredAgreement: 1.5, MaxRounds: 0, TieBreaker: "zed"}},
			[]string{"consensus/required_agreement: 1.5 is not in 0..1", "consensus/max_rounds: 0 is less than 1",
				`consensus/tie_breaker: "zed" is not one of the council's agents`}},
		{"council lead tie-breaker without a lead", workflow.Def{Name: "t", Type: workflow.Council, Agents: []string{"a"},
			Consensus: &workflow.Consensus{MaxRounds: 2, TieBreaker: "lead"}},
			[]string{`consensus/tie_breaker: "lead" but the team has no lead`}},
		{"council without agents", workflow.Def{Name: "t", Type: workflow.Council, Consensus: &workflow.Consensus{MaxRounds: 2}},
			[]string{"agents: a council needs agents"}},
		{"control characters in names", workflow.Def{Name: "t", Steps: []workflow.Step{{Name: "a\x00b", Agent: "x\ny"}}},
			[]string{`steps/0/name: "a\x00b" contains a control character`, `steps/0/agent: "x\ny" contains a control character`}},
		{"council rounds over the limit", workflow.Def{Name: "t", Type: workflow.Council, Agents: []string{"a"},
			Consensus: &workflow.Consensus{MaxRounds: workflow.MaxCouncilRounds + 1}},
			[]string{"consensus/max_rounds: 1001 is more than 1000"}},
		{"council steps over the limit", workflow.Def{Name: "t", Type: workflow.Council,
			Agents: []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}, Consensus: &workflow.Consensus{MaxRounds: 1000}},
			[]string{"consensus/max_rounds: 11 agents × 1000 rounds is more than 10000 steps"}},
		{"council at the limits", workflow.Def{Name: "t", Type: workflow.Council,
			Agents: []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}, Consensus: &workflow.Consensus{MaxRounds: 1000}}, nil},
		{"crew turns over the limit", workflow.Def{Name: "t", Type: workflow.Crew, Lead: "a", Agents: []string{"a", "b"},
			MaxTurns: workflow.MaxLeadTurns + 1}, []string{"max_turns: 1001 is more than 1000"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.def.Validate()
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if !errors.Is(err, workflow.ErrInvalidDef) {
				t.Fatalf("Validate = %v, want ErrInvalidDef", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestDef_Validate_HugeRoundsAllocateNothing: a team file's max_rounds of
// a million (for a council, or a crew's turns) is refused before a step is
// made; it used to make every step first (a few bytes of JSON made a run
// of gigabytes).
func TestDef_Validate_HugeRoundsAllocateNothing(t *testing.T) {
	for name, d := range map[string]workflow.Def{
		"council": {Name: "t", Type: workflow.Council, Agents: []string{"a"}, Consensus: &workflow.Consensus{MaxRounds: 1_000_000}},
		"crew":    {Name: "t", Type: workflow.Crew, Lead: "a", Agents: []string{"a", "b"}, MaxTurns: 1_000_000},
	} {
		t.Run(name, func(t *testing.T) {
			var err error
			allocs := testing.AllocsPerRun(1, func() { err = d.Validate() })
			if !errors.Is(err, workflow.ErrInvalidDef) {
				t.Fatalf("Validate = %v, want ErrInvalidDef", err)
			}
			if allocs > 1000 {
				t.Fatalf("Validate made %v allocations: it expanded the rounds", allocs)
			}
		})
	}
}
