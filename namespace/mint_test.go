package namespace_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/namespace"
)

// minter is one IRI builder of NS, called with two identifiers and a
// number (each builder uses what its layout needs).
type minter struct {
	kind string // the Kind's String() that Parse must return
	mint func(ns namespace.NS, a, b string, n int) quad.IRI
}

// minters lists every exported builder of NS that mints an IRI from
// identifiers; TestNS_Mint_EveryBuilder checks that none is missing.
var minters = map[string]minter{
	"Agent":           {"agent", func(ns namespace.NS, a, _ string, _ int) quad.IRI { return ns.Agent(a) }},
	"Team":            {"team", func(ns namespace.NS, a, _ string, _ int) quad.IRI { return ns.Team(a) }},
	"Member":          {"member", func(ns namespace.NS, a, b string, _ int) quad.IRI { return ns.Member(a, b) }},
	"Finding":         {"finding", func(ns namespace.NS, a, b string, _ int) quad.IRI { return ns.Finding(a, b) }},
	"Conflict":        {"conflict", func(ns namespace.NS, a, b string, _ int) quad.IRI { return ns.Conflict(a, b) }},
	"Merge":           {"merge", func(ns namespace.NS, a, b string, _ int) quad.IRI { return ns.Merge(a, b) }},
	"FactSet":         {"fact-set", func(ns namespace.NS, a, b string, _ int) quad.IRI { return ns.FactSet(a, b) }},
	"TeamGraph":       {"team-graph", func(ns namespace.NS, a, _ string, _ int) quad.IRI { return ns.TeamGraph(a) }},
	"MemberGraph":     {"member-graph", func(ns namespace.NS, a, b string, _ int) quad.IRI { return ns.MemberGraph(a, b) }},
	"SharedGraph":     {"shared-graph", func(ns namespace.NS, a, _ string, _ int) quad.IRI { return ns.SharedGraph(a) }},
	"ProvenanceGraph": {"provenance-graph", func(ns namespace.NS, a, _ string, _ int) quad.IRI { return ns.ProvenanceGraph(a) }},
	"ConflictGraph":   {"conflict-graph", func(ns namespace.NS, a, _ string, _ int) quad.IRI { return ns.ConflictGraph(a) }},
	"AgentDef":        {"agent-def", func(ns namespace.NS, a, _ string, _ int) quad.IRI { return ns.AgentDef(a) }},
	"AgentDefGraph":   {"agent-def-graph", func(ns namespace.NS, a, _ string, _ int) quad.IRI { return ns.AgentDefGraph(a) }},
	"TeamDef":         {"team-def", func(ns namespace.NS, a, _ string, _ int) quad.IRI { return ns.TeamDef(a) }},
	"TeamDefGraph":    {"team-def-graph", func(ns namespace.NS, a, _ string, _ int) quad.IRI { return ns.TeamDefGraph(a) }},
	"StepDef":         {"step-def", func(ns namespace.NS, a, b string, _ int) quad.IRI { return ns.StepDef(a, b) }},
	"Task":            {"task", func(ns namespace.NS, a, b string, _ int) quad.IRI { return ns.Task(a, b) }},
	"TaskComment":     {"task-comment", func(ns namespace.NS, a, b string, _ int) quad.IRI { return ns.TaskComment(a, b) }},
	"Message":         {"message", func(ns namespace.NS, a, b string, _ int) quad.IRI { return ns.Message(a, b) }},
	"TaskGraph":       {"task-graph", func(ns namespace.NS, a, _ string, _ int) quad.IRI { return ns.TaskGraph(a) }},
	"MailGraph":       {"mail-graph", func(ns namespace.NS, a, _ string, _ int) quad.IRI { return ns.MailGraph(a) }},
	"Plan":            {"plan", func(ns namespace.NS, a, _ string, n int) quad.IRI { return ns.Plan(a, n) }},
	"PlanStep":        {"plan-step", func(ns namespace.NS, a, _ string, n int) quad.IRI { return ns.PlanStep(a, n, n+1) }},
	"PlanGraph":       {"plan-graph", func(ns namespace.NS, a, _ string, _ int) quad.IRI { return ns.PlanGraph(a) }},
	"Run":             {"run", func(ns namespace.NS, a, _ string, _ int) quad.IRI { return ns.Run(a) }},
	"Step":            {"run-step", func(ns namespace.NS, a, b string, _ int) quad.IRI { return ns.Step(a, b) }},
	"Transition":      {"transition", func(ns namespace.NS, a, _ string, n int) quad.IRI { return ns.Transition(a, n) }},
	"RunGraph":        {"run-graph", func(ns namespace.NS, a, _ string, _ int) quad.IRI { return ns.RunGraph(a) }},
	"HistoryGraph":    {"history-graph", func(ns namespace.NS, a, _ string, _ int) quad.IRI { return ns.HistoryGraph(a) }},
	"Round":           {"round", func(ns namespace.NS, a, _ string, n int) quad.IRI { return ns.Round(a, n) }},
	"TallyTopic":      {"tally-topic", func(ns namespace.NS, a, b string, n int) quad.IRI { return ns.TallyTopic(a, n, b) }},
	"Ballot":          {"ballot", func(ns namespace.NS, a, b string, n int) quad.IRI { return ns.Ballot(a, n, b, n+1) }},
	"RoundGraph":      {"round-graph", func(ns namespace.NS, a, _ string, n int) quad.IRI { return ns.RoundGraph(a, n) }},
}

// TestNS_Mint_EveryBuilder: the table of minters covers every exported
// method of NS that returns an IRI, except IRI (terms, see
// TestNS_Parse_Terms) and Build (the inverse of Parse).
func TestNS_Mint_EveryBuilder(t *testing.T) {
	iriType := reflect.TypeOf(quad.IRI(""))
	rt := reflect.TypeOf(namespace.NS{})
	for i := range rt.NumMethod() {
		m := rt.Method(i)
		if m.Name == "IRI" || m.Name == "Build" || m.Type.NumOut() == 0 || m.Type.Out(0) != iriType {
			continue
		}
		if _, ok := minters[m.Name]; !ok {
			t.Errorf("NS.%s mints IRIs but is not in the minters table", m.Name)
		}
	}
}

// TestNS_Mint_RoundTrip: every IRI a builder mints, from hostile
// identifiers and any number, parses back to the builder's kind, and
// Build of what Parse returned is the same IRI.
func TestNS_Mint_RoundTrip(t *testing.T) {
	ns := mustNew(t, "acme")
	names := make([]string, 0, len(minters))
	for name := range minters {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		m := minters[name]
		t.Run(name, func(t *testing.T) {
			for _, a := range hostileIDs {
				for _, b := range []string{"x", "a:b", "name", "step", "graph", "round", ""} {
					for _, n := range []int{1, 0, 12, -3} {
						iri := m.mint(ns, a, b, n)
						checkIRIRef(t, string(iri))
						ref, err := ns.Parse(iri)
						if err != nil {
							t.Fatalf("Parse(%s(%q, %q, %d) = %q): %v", name, a, b, n, iri, err)
						}
						if got := ref.Kind.String(); got != m.kind {
							t.Fatalf("Parse(%q).Kind = %s, want %s", iri, got, m.kind)
						}
						if back, err := ns.Build(ref); err != nil || back != iri {
							t.Fatalf("Build(Parse(%q) = %+v) = %q, %v", iri, ref, back, err)
						}
					}
				}
			}
		})
	}
}

// TestNS_Parse_RunLayouts: the run IRIs parse to their parts, hostile ids
// included, and numbers only in strconv.Itoa's form.
func TestNS_Parse_RunLayouts(t *testing.T) {
	ns := mustNew(t, "acme")
	for _, id := range hostileIDs {
		for _, ref := range []namespace.Ref{
			{Kind: namespace.KindRun, Run: id},
			{Kind: namespace.KindRunStep, Run: id, ID: "graph"},
			{Kind: namespace.KindRunStep, Run: "r", ID: id},
			{Kind: namespace.KindTransition, Run: id, Seq: 7},
			{Kind: namespace.KindRunGraph, Run: id},
			{Kind: namespace.KindHistoryGraph, Run: id},
			{Kind: namespace.KindRound, Run: id, Round: 2},
			{Kind: namespace.KindTallyTopic, Run: id, Round: 2, ID: "C1"},
			{Kind: namespace.KindTallyTopic, Run: "r", Round: 1, ID: id},
			{Kind: namespace.KindBallot, Run: id, Round: 3, ID: id, Seq: 4},
			{Kind: namespace.KindRoundGraph, Run: id, Round: 1},
		} {
			t.Run(fmt.Sprintf("%s/%q", ref.Kind, id), func(t *testing.T) {
				iri, err := ns.Build(ref)
				if err != nil {
					t.Fatal(err)
				}
				if got, err := ns.Parse(iri); err != nil || got != ref {
					t.Fatalf("Parse(%q) = %+v, %v; want %+v", iri, got, err, ref)
				}
				if !ref.Kind.IsGraph() == (ref.Kind == namespace.KindRunGraph || ref.Kind == namespace.KindHistoryGraph || ref.Kind == namespace.KindRoundGraph) {
					t.Errorf("%s.IsGraph() = %v", ref.Kind, ref.Kind.IsGraph())
				}
			})
		}
	}
	for _, rest := range []string{
		"run:r:round:01", "run:r:round:+1", "run:r:round:x", "run:r:transition:", "run:r:graph:round:1a",
		"run:r:round:1:topic:t:ballot:007", "run:r:step", "run:r:graph:def", "run:r:x:y", "run:%72un",
		"run:r:round:1:topic:t:vote:1", "run",
	} {
		iri := quad.IRI(ns.Prefix() + rest)
		if ref, err := ns.Parse(iri); err == nil {
			t.Errorf("Parse(%q) = %+v, want an error", iri, ref)
		}
	}
}
