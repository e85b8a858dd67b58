package workflow

import (
	"encoding/json"
	"fmt"

	"github.com/cortexgraph/cortex/spec"
)

// FromSpec returns the Def of team definition t (package spec: parsed and
// validated), with the definitions of its agents among agents (any of them
// may be missing) as each step's AgentDefs entry, keyed by the name the
// team uses. A step, lead, specialist or tie_breaker that gives the bare
// name of a qualified team agent (as package spec allows) names that
// agent as the team lists it. Ports without "required": false are required; a council's
// consensus gets the spec's defaults (0.5, 3 rounds); a crew or swarm gets
// collaboration.specialists, and its lead turns from consensus.max_rounds
// if the file gives it (else DefaultMaxTurns). A step that runs a loop
// (spec v0.9) instead of an agent cannot run: ErrInvalidDef.
func FromSpec(t *spec.Team, agents []*spec.Agent) (Def, error) {
	// member is the team's agents entry ref names: a step, lead,
	// specialist or tie_breaker may give a qualified entry's bare name
	// (package spec), a Def names its agents as the team lists them.
	members := spec.NewResolver(t.Agents) // indexed once, not per reference
	member := func(ref string) string {
		if q := members.Resolve(ref); q != "" {
			return q
		}
		return ref
	}
	d := Def{Name: t.Name, Description: t.Description, Context: t.Context, Type: Type(t.WorkflowType()),
		Agents: append([]string(nil), t.Agents...), Lead: member(t.Lead())}
	if c := t.Collaboration; c != nil && c.Consensus != nil {
		d.Consensus = &Consensus{RequiredAgreement: c.Consensus.Agreement(), MaxRounds: c.Consensus.Rounds(), TieBreaker: member(c.Consensus.TieBreaker)}
	}
	if c := t.Collaboration; c != nil && d.Type.Led() {
		// A crew's or swarm's lead turns: the team file's max_rounds, if
		// it gives one.
		d.PlanApproval = t.PlanApproval
		for _, s := range c.Specialists {
			d.Specialists = append(d.Specialists, member(s))
		}
		if c.Consensus != nil && c.Consensus.MaxRounds != nil {
			d.MaxTurns = *c.Consensus.MaxRounds
		}
	}
	for _, s := range t.Steps() {
		if s.Loop != "" {
			return Def{}, fmt.Errorf("team %s: %w: step %q runs loop %q (multi-agent-spec v0.9), which workflows cannot run: give the step an agent instead", t.Name, ErrInvalidDef, s.Name, s.Loop)
		}
		st := Step{Name: s.Name, Agent: member(s.Agent), DependsOn: append([]string(nil), s.DependsOn...)}
		for _, p := range s.Inputs {
			st.Inputs = append(st.Inputs, portOf(p))
		}
		for _, p := range s.Outputs {
			st.Outputs = append(st.Outputs, portOf(p))
		}
		d.Steps = append(d.Steps, st)
	}
	known := spec.NewResolver(qualifiedNames(agents))
	byName := map[string][]*spec.Agent{}
	for _, a := range agents {
		byName[a.QualifiedName()] = append(byName[a.QualifiedName()], a)
	}
	for _, name := range t.Agents {
		q := known.Resolve(name)
		if q == "" {
			continue
		}
		for _, a := range byName[q] {
			data, err := spec.MarshalAgent(a, "json")
			if err != nil {
				return Def{}, fmt.Errorf("team %s: agent %s: %w", t.Name, name, err)
			}
			if d.AgentDefs == nil {
				d.AgentDefs = map[string]json.RawMessage{}
			}
			d.AgentDefs[name] = data
		}
	}
	return d, nil
}

func portOf(p spec.Port) Port {
	return Port{Name: p.Name, Type: PortType(p.Type), From: p.From, Default: p.Default, Optional: p.Required != nil && !*p.Required}
}

func qualifiedNames(agents []*spec.Agent) []string {
	out := make([]string, len(agents))
	for i, a := range agents {
		out[i] = a.QualifiedName()
	}
	return out
}
