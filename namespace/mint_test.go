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

// TestNS_Mint_Injective: no two calls of the builders mint the same IRI
// unless they are the same call: every (builder, ids, number) of hostile
// identifiers (empty, "/", "..", "#", "%", spaces, controls, bidi and
// format characters, NFC and NFD forms of one word, a long id) gives its
// own IRI. Arguments a builder does not use are left out of the call's
// identity.
func TestNS_Mint_Injective(t *testing.T) {
	for _, ns := range []namespace.NS{
		mustNew(t, "acme"),
		mustNew(t, "acme", namespace.WithBase("https://example.org/cortex/")),
		mustNew(t, "acme", namespace.WithBase("https://example.org/cortex#")),
	} {
		seen := map[quad.IRI]string{}
		names := make([]string, 0, len(minters))
		for name := range minters {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			m := minters[name]
			usesB := m.mint(ns, "a", "b1", 1) != m.mint(ns, "a", "b2", 1)
			usesN := m.mint(ns, "a", "b", 1) != m.mint(ns, "a", "b", 2)
			for _, a := range hostileIDs {
				for _, b := range hostileIDs {
					if !usesB && b != "" {
						continue
					}
					for _, n := range []int{0, 1, 12, -3} {
						if !usesN && n != 0 {
							continue
						}
						iri := m.mint(ns, a, b, n)
						call := fmt.Sprintf("%s(%q, %q, %d)", name, a, b, n)
						if prev, dup := seen[iri]; dup {
							t.Fatalf("%s and %s both mint %q", prev, call, iri)
						}
						seen[iri] = call
					}
				}
			}
		}
		for _, term := range namespace.Terms() {
			if prev, dup := seen[ns.IRI(term)]; dup {
				t.Errorf("%s mints the IRI of term %s", prev, term)
			}
		}
	}
}

// FuzzRunKinds is FuzzAllKinds for the workflow run layouts, which hold
// numbers besides ids: every IRI is a valid IRIREF, no two kinds build
// the same one, and Parse returns exactly the ids and numbers it was
// built from (so the builders are injective).
func FuzzRunKinds(f *testing.F) {
	for _, id := range hostileIDs {
		f.Add(id, "x", 1, 1)
		f.Add("r", id, 0, -1)
	}
	nss := []namespace.NS{
		mustNew(f, "acme"),
		mustNew(f, "acme", namespace.WithBase("https://example.org/cortex/")),
	}
	f.Fuzz(func(t *testing.T, run, id string, round, seq int) {
		for _, n := range nss {
			refs := []namespace.Ref{
				{Kind: namespace.KindRun, Run: run},
				{Kind: namespace.KindRunStep, Run: run, ID: id},
				{Kind: namespace.KindTransition, Run: run, Seq: seq},
				{Kind: namespace.KindRunGraph, Run: run},
				{Kind: namespace.KindHistoryGraph, Run: run},
				{Kind: namespace.KindRound, Run: run, Round: round},
				{Kind: namespace.KindTallyTopic, Run: run, Round: round, ID: id},
				{Kind: namespace.KindBallot, Run: run, Round: round, ID: id, Seq: seq},
				{Kind: namespace.KindRoundGraph, Run: run, Round: round},
				{Kind: namespace.KindPlan, Team: run, ID: id},
				{Kind: namespace.KindPlanStep, Team: run, ID: id},
			}
			seen := make(map[quad.IRI]namespace.Ref, len(refs))
			for _, want := range refs {
				iri, err := n.Build(want)
				if err != nil {
					t.Fatalf("Build(%+v): %v", want, err)
				}
				checkIRIRef(t, string(iri))
				if prev, dup := seen[iri]; dup {
					t.Fatalf("%+v and %+v both build %q", prev, want, iri)
				}
				seen[iri] = want
				if got, err := n.Parse(iri); err != nil || got != want {
					t.Fatalf("Parse(%q) = %+v, %v; want %+v", iri, got, err, want)
				}
			}
		}
	})
}
