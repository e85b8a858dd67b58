package api

import (
	"encoding/json"
	"fmt"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/workflow"
)

// ReadyStep is the JSON shape of a workflow.ReadyStep (workflows.ready):
// workflow.ReadyStep's own fields, with the upstream facts and conflicts
// in the shapes of facts list and conflicts list (terms in N-Triples), so
// that ReadyStepFrom restores them.
type ReadyStep struct {
	Run       string          `json:"run"`
	Step      workflow.Step   `json:"step"`
	Agent     json.RawMessage `json:"agent,omitempty"`
	Context   string          `json:"context,omitempty"`
	Inputs    map[string]any  `json:"inputs"`
	Upstream  []Fact          `json:"upstream,omitempty"`
	Conflicts []Conflict      `json:"conflicts,omitempty"`
	Round     int             `json:"round,omitempty"`
	Tally     *workflow.Tally `json:"tally,omitempty"`
	// Turn, MaxTurns and Members: a crew's or swarm's lead turn.
	Turn     int                  `json:"turn,omitempty"`
	MaxTurns int                  `json:"max_turns,omitempty"`
	Members  []workflow.RunMember `json:"members,omitempty"`
}

// ReadyStepOf returns the JSON shape of rs.
func ReadyStepOf(rs workflow.ReadyStep) ReadyStep {
	out := ReadyStep{Run: rs.Run, Step: rs.Step, Agent: rs.Agent, Context: rs.Context, Inputs: rs.Inputs, Round: rs.Round, Tally: rs.Tally,
		Turn: rs.Turn, MaxTurns: rs.MaxTurns, Members: rs.Members}
	for _, f := range rs.Upstream {
		out.Upstream = append(out.Upstream, FactOf(f, ""))
	}
	for _, cf := range rs.Conflicts {
		cj := Conflict{ID: cf.ID, Subject: rdfio.FormatTerm(cf.Topic.Subject), Predicate: rdfio.FormatTerm(cf.Topic.Predicate),
			Reason: cf.Reason, Candidates: []Candidate{}}
		for _, cd := range cf.Candidates {
			cj.Candidates = append(cj.Candidates, Candidate{Object: rdfio.FormatTerm(cd.Object), Agents: cd.Agents, Findings: cd.FindingIDs})
		}
		out.Conflicts = append(out.Conflicts, cj)
	}
	return out
}

// ReadyStepFrom returns the workflow.ReadyStep that r is the shape of
// (ReadyStepOf's inverse); an error for a term that does not parse.
func ReadyStepFrom(r ReadyStep) (workflow.ReadyStep, error) {
	out := workflow.ReadyStep{Run: r.Run, Step: r.Step, Agent: r.Agent, Context: r.Context, Inputs: r.Inputs, Round: r.Round, Tally: r.Tally,
		Turn: r.Turn, MaxTurns: r.MaxTurns, Members: r.Members}
	parse := func(ts ...string) ([]quad.Value, error) {
		vs := make([]quad.Value, len(ts))
		for i, t := range ts {
			v, err := rdfio.ParseTerm(t)
			if err != nil {
				return nil, fmt.Errorf("ready step %s: %w", r.Step.Name, err)
			}
			vs[i] = v
		}
		return vs, nil
	}
	for _, f := range r.Upstream {
		vs, err := parse(f.Subject, f.Predicate, f.Object)
		if err != nil {
			return workflow.ReadyStep{}, err
		}
		mf := merge.Fact{Supporters: f.Supporters, FindingIDs: f.Findings, Confidence: f.Confidence, ResolvedBy: f.ResolvedBy}
		mf.Subject, mf.Predicate, mf.Object = vs[0], vs[1], vs[2]
		out.Upstream = append(out.Upstream, mf)
	}
	for _, c := range r.Conflicts {
		vs, err := parse(c.Subject, c.Predicate)
		if err != nil {
			return workflow.ReadyStep{}, err
		}
		mc := merge.Conflict{ID: c.ID, Reason: c.Reason, Topic: merge.Topic{Subject: vs[0], Predicate: vs[1]}}
		for _, cd := range c.Candidates {
			o, err := parse(cd.Object)
			if err != nil {
				return workflow.ReadyStep{}, err
			}
			mc.Candidates = append(mc.Candidates, merge.Candidate{Object: o[0], Agents: cd.Agents, FindingIDs: cd.Findings})
		}
		out.Conflicts = append(out.Conflicts, mc)
	}
	return out, nil
}
