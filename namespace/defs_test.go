package namespace_test

import (
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/namespace"
)

func TestNS_DefLayout(t *testing.T) {
	ns := mustNew(t, "acme")
	tests := []struct {
		got  quad.IRI
		want string
	}{
		{ns.AgentDef("security/scanner"), "urn:cortex:acme:agentdef:security%2Fscanner"},
		{ns.AgentDefGraph("qa"), "urn:cortex:acme:agentdef:qa:graph:def"},
		{ns.TeamDef("release"), "urn:cortex:acme:teamdef:release"},
		{ns.TeamDefGraph("release"), "urn:cortex:acme:teamdef:release:graph:def"},
		{ns.StepDef("release", "pm-review"), "urn:cortex:acme:teamdef:release:step:pm-review"},
		{ns.AgentDef("name"), "urn:cortex:acme:agentdef:%6Eame"},
		{ns.IRI(namespace.DefDelegatesTo), "urn:cortex:acme:def:delegatesTo"},
		{ns.IRI(namespace.ClassTeamDef), "urn:cortex:acme:TeamDef"},
	}
	for _, tc := range tests {
		if string(tc.got) != tc.want {
			t.Errorf("got %s, want %s", tc.got, tc.want)
		}
	}
}

// TestNS_DefParse: hostile names round-trip through the definition
// builders and Parse, never produce a ':' outside the layout, and never
// spell a vocabulary term.
func TestNS_DefParse(t *testing.T) {
	ns := mustNew(t, "acme")
	hostile := []string{"", "qa", "def:name", "a/b/c", "x:graph:def", "step", "graph", "def", "<>\"{}|^`\\ \n", "é/ü", "%41", "agentdef"}
	for _, a := range hostile {
		for _, b := range hostile {
			cases := []struct {
				iri quad.IRI
				ref namespace.Ref
			}{
				{ns.AgentDef(a), namespace.Ref{Kind: namespace.KindAgentDef, Agent: a}},
				{ns.AgentDefGraph(a), namespace.Ref{Kind: namespace.KindAgentDefGraph, Agent: a}},
				{ns.TeamDef(a), namespace.Ref{Kind: namespace.KindTeamDef, Team: a}},
				{ns.TeamDefGraph(a), namespace.Ref{Kind: namespace.KindTeamDefGraph, Team: a}},
				{ns.StepDef(a, b), namespace.Ref{Kind: namespace.KindStepDef, Team: a, ID: b}},
			}
			for _, c := range cases {
				got, err := ns.Parse(c.iri)
				if err != nil || got != c.ref {
					t.Fatalf("Parse(%s) = %+v, %v; want %+v", c.iri, got, err, c.ref)
				}
				back, err := ns.Build(got)
				if err != nil || back != c.iri {
					t.Fatalf("Build(%+v) = %s, %v", got, back, err)
				}
				if strings.ContainsAny(string(c.iri), "<>\"{}|^`\\ \n") {
					t.Fatalf("%q is not a valid IRIREF", c.iri)
				}
			}
		}
	}
	if !namespace.KindTeamDefGraph.IsGraph() || namespace.KindTeamDef.IsGraph() {
		t.Error("IsGraph wrong for definition kinds")
	}
	if namespace.KindStepDef.String() != "step-def" {
		t.Errorf("KindStepDef = %s", namespace.KindStepDef)
	}
}
