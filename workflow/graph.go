package workflow

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	ns "github.com/cortexgraph/cortex/namespace"
)

// stage stages, in tx, the write of c.rec (old is the record before, nil
// for a new run): the record's rows (its head and the steps that changed,
// see stageRecord), the run graph's changed quads, one
// transition node per transition in the history graph and the round graph
// of each new council tally.
func (e *Engine) stage(tx *cortex.Tx, old *record, c *change, d *Def, p *plan) error {
	rec := c.rec
	for i := range c.trans {
		rec.Seq++
		c.trans[i].Seq = rec.Seq
	}
	changed, err := stageRecord(tx, old, rec)
	if err != nil {
		return err
	}
	var have, want []quad.Quad
	want = e.runQuads(rec)
	if old == nil {
		want = append(want, e.stepLinks(rec)...) // never change
	} else {
		have = e.runQuads(old)
	}
	for _, i := range changed {
		if old != nil {
			have = append(have, e.stepQuads(old, d, p, i)...)
		}
		want = append(want, e.stepQuads(rec, d, p, i)...)
	}
	from := 0
	if old != nil {
		from = len(old.Rounds)
	}
	for k := from; k < len(rec.Rounds); k++ { // tallies are never changed
		qs, err := e.tallyQuads(rec.ID, &rec.Rounds[k])
		if err != nil {
			return err
		}
		want = append(want, qs...)
	}
	add, rm := diff(have, want)
	tx.Remove(rm...)
	tx.Add(add...)
	for _, t := range c.trans {
		tx.Add(e.transitionQuads(rec.ID, t)...)
	}
	e.tm.KeepTables(tx)
	return nil
}

func diff(have, want []quad.Quad) (add, rm []quad.Quad) {
	h := make(map[quad.Quad]bool, len(have))
	for _, q := range have {
		h[q] = true
	}
	w := make(map[quad.Quad]bool, len(want))
	for _, q := range want {
		w[q] = true
		if !h[q] {
			add = append(add, q)
		}
	}
	for _, q := range have {
		if !w[q] {
			rm = append(rm, q)
		}
	}
	return add, rm
}

func integer(i int) quad.TypedString {
	return quad.TypedString{Value: quad.String(strconv.Itoa(i)), Type: ns.XSDInteger}
}

func jsonLiteral(v any) quad.Value {
	b, _ := json.Marshal(v)
	return ns.String(string(b))
}

func (e *Engine) runQuads(r *record) []quad.Quad {
	x := e.x
	g, node := x.RunGraph(r.ID), x.Run(r.ID)
	q := func(p ns.Term, o quad.Value) quad.Quad { return quad.Make(node, x.IRI(p), o, g) }
	out := []quad.Quad{
		quad.Make(node, ns.RDFType, x.IRI(ns.ClassRun), g),
		q(ns.RunName, ns.String(r.Name)),
		q(ns.RunType, ns.String(string(r.Type))),
		q(ns.RunStatus, ns.String(string(r.Status))),
		q(ns.RunStrategy, ns.String(r.Strategy)),
		q(ns.RunTeam, x.Team(r.Team)),
		q(ns.RunCreatedAt, ns.DateTime(r.CreatedAt)),
	}
	if len(r.Inputs) > 0 {
		out = append(out, q(ns.RunInput, jsonLiteral(r.Inputs)))
	}
	if !r.StartedAt.IsZero() {
		out = append(out, q(ns.RunStartedAt, ns.DateTime(r.StartedAt)))
	}
	if !r.CompletedAt.IsZero() {
		out = append(out, q(ns.RunCompletedAt, ns.DateTime(r.CompletedAt)))
	}
	if r.Error != "" {
		out = append(out, q(ns.RunError, ns.String(r.Error)))
	}
	return out
}

// stepLinks links the run's node to its steps' (written with the run).
func (e *Engine) stepLinks(r *record) []quad.Quad {
	x := e.x
	g, node := x.RunGraph(r.ID), x.Run(r.ID)
	out := make([]quad.Quad, 0, len(r.Steps))
	for _, s := range r.Steps {
		out = append(out, quad.Make(node, x.IRI(ns.RunStep), x.Step(r.ID, s.Name), g))
	}
	return out
}

func (e *Engine) stepQuads(r *record, d *Def, p *plan, i int) []quad.Quad {
	x := e.x
	s := &r.Steps[i]
	g, node := x.RunGraph(r.ID), x.Step(r.ID, s.Name)
	q := func(p ns.Term, o quad.Value) quad.Quad { return quad.Make(node, x.IRI(p), o, g) }
	out := []quad.Quad{
		quad.Make(node, ns.RDFType, x.IRI(ns.ClassStep), g),
		q(ns.StepName, ns.String(s.Name)),
		q(ns.StepIndex, integer(i)),
		q(ns.StepAgent, x.Agent(MemberID(s.Agent))),
		q(ns.StepStatus, ns.String(string(s.Status))),
	}
	for _, k := range p.deps[i] {
		out = append(out, q(ns.StepDependsOn, x.Step(r.ID, d.Steps[k].Name)))
	}
	if s.Reason != "" {
		out = append(out, q(ns.StepReason, ns.String(s.Reason)))
	}
	if s.Actor != "" {
		out = append(out, q(ns.StepActor, ns.String(s.Actor)))
	}
	if !s.StartedAt.IsZero() {
		out = append(out, q(ns.StepStartedAt, ns.DateTime(s.StartedAt)))
	}
	if !s.CompletedAt.IsZero() {
		out = append(out, q(ns.StepCompletedAt, ns.DateTime(s.CompletedAt)))
	}
	if len(s.Outputs) > 0 {
		out = append(out, q(ns.StepOutput, jsonLiteral(s.Outputs)))
	}
	for _, f := range s.Findings {
		out = append(out, q(ns.StepFinding, x.Finding(r.Team, f)))
	}
	return out
}

func (e *Engine) transitionQuads(run string, t Transition) []quad.Quad {
	x := e.x
	g, node := x.HistoryGraph(run), x.Transition(run, t.Seq)
	q := func(p ns.Term, o quad.Value) quad.Quad { return quad.Make(node, x.IRI(p), o, g) }
	out := []quad.Quad{
		quad.Make(node, ns.RDFType, x.IRI(ns.ClassTransition), g),
		q(ns.TransitionRun, x.Run(run)),
		q(ns.TransitionSeq, integer(t.Seq)),
		q(ns.TransitionTo, ns.String(t.To)),
		q(ns.TransitionAt, ns.DateTime(t.At)),
		q(ns.TransitionActor, ns.String(t.Actor)),
	}
	if t.Step != "" {
		out = append(out, q(ns.TransitionStep, x.Step(run, t.Step)))
	}
	if t.From != "" {
		out = append(out, q(ns.TransitionFrom, ns.String(t.From)))
	}
	if t.Reason != "" {
		out = append(out, q(ns.TransitionReason, ns.String(t.Reason)))
	}
	return out
}

// decodeHistory reads the transitions of run back from its history graph.
func (e *Engine) decodeHistory(rec *record, qs []quad.Quad) ([]Transition, error) {
	x, run := e.x, rec.ID
	byNode := map[quad.Value]*Transition{}
	steps := map[quad.Value]string{}
	for _, s := range rec.Steps {
		steps[x.Step(run, s.Name)] = s.Name
	}
	for _, q := range qs {
		t := byNode[q.Subject]
		if t == nil {
			t = &Transition{}
			byNode[q.Subject] = t
		}
		var err error
		switch q.Predicate {
		case x.IRI(ns.TransitionSeq):
			t.Seq, err = strconv.Atoi(quadString(q.Object))
		case x.IRI(ns.TransitionAt):
			t.At, err = ns.ParseDateTime(q.Object)
		case x.IRI(ns.TransitionActor):
			t.Actor = quadString(q.Object)
		case x.IRI(ns.TransitionFrom):
			t.From = quadString(q.Object)
		case x.IRI(ns.TransitionTo):
			t.To = quadString(q.Object)
		case x.IRI(ns.TransitionReason):
			t.Reason = quadString(q.Object)
		case x.IRI(ns.TransitionStep):
			t.Step = steps[q.Object]
		}
		if err != nil {
			return nil, fmt.Errorf("run %s: history: %s: %w", run, q.Subject, err)
		}
	}
	out := make([]Transition, 0, len(byNode))
	for _, t := range byNode {
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b Transition) int { return a.Seq - b.Seq })
	return out, nil
}
