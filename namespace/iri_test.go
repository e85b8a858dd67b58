package namespace_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/namespace"
)

func mustNew(t testing.TB, name string, opts ...namespace.Option) namespace.NS {
	t.Helper()
	ns, err := namespace.New(name, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

func TestNS_Layout(t *testing.T) {
	ns := mustNew(t, "acme")
	tests := []struct {
		name string
		got  quad.IRI
		want string
	}{
		{"team", ns.Team("t1"), "urn:cortex:acme:team:t1"},
		{"team escaped", ns.Team("my team/1"), "urn:cortex:acme:team:my%20team%2F1"},
		{"team name", ns.IRI(namespace.TeamName), "urn:cortex:acme:team:name"},
		{"team status", ns.IRI(namespace.TeamStatus), "urn:cortex:acme:team:status"},
		{"team strategy", ns.IRI(namespace.TeamStrategy), "urn:cortex:acme:team:strategy"},
		{"team createdAt", ns.IRI(namespace.TeamCreatedAt), "urn:cortex:acme:team:createdAt"},
		{"team timeout", ns.IRI(namespace.TeamTimeout), "urn:cortex:acme:team:timeout"},
		{"team member", ns.IRI(namespace.TeamMember), "urn:cortex:acme:team:member"},
		{"member", ns.Member("t1", "a:1"), "urn:cortex:acme:team:t1:member:a%3A1"},
		{"member agent", ns.IRI(namespace.MemberAgent), "urn:cortex:acme:team:member:agent"},
		{"member role", ns.IRI(namespace.MemberRole), "urn:cortex:acme:team:member:role"},
		{"member task", ns.IRI(namespace.MemberTask), "urn:cortex:acme:team:member:task"},
		{"member status", ns.IRI(namespace.MemberStatus), "urn:cortex:acme:team:member:status"},
		{"member joinedAt", ns.IRI(namespace.MemberJoinedAt), "urn:cortex:acme:team:member:joinedAt"},
		{"member completedAt", ns.IRI(namespace.MemberCompletedAt), "urn:cortex:acme:team:member:completedAt"},
		{"member result", ns.IRI(namespace.MemberResult), "urn:cortex:acme:team:member:result"},
		{"member critical", ns.IRI(namespace.MemberCritical), "urn:cortex:acme:team:member:critical"},
		{"agent", ns.Agent("bob"), "urn:cortex:acme:agent:bob"},
		{"finding", ns.Finding("t1", "f-9"), "urn:cortex:acme:team:t1:finding:f-9"},
		{"finding assertedBy", ns.IRI(namespace.FindingAssertedBy), "urn:cortex:acme:finding:assertedBy"},
		{"conflict", ns.Conflict("t1", "c1"), "urn:cortex:acme:team:t1:conflict:c1"},
		{"merge", ns.Merge("t1", "m1"), "urn:cortex:acme:team:t1:merge:m1"},
		{"fact set", ns.FactSet("t1", "x"), "urn:cortex:acme:team:t1:fact:x"},
		{"class", ns.IRI(namespace.ClassTeam), "urn:cortex:acme:Team"},
		{"team graph", ns.TeamGraph("t1"), "urn:cortex:acme:team:t1:graph:state"},
		{"member graph", ns.MemberGraph("t1", "bob"), "urn:cortex:acme:team:t1:member:bob:graph:findings"},
		{"shared graph", ns.SharedGraph("t1"), "urn:cortex:acme:team:t1:graph:shared"},
		{"provenance graph", ns.ProvenanceGraph("t1"), "urn:cortex:acme:team:t1:graph:provenance"},
		{"conflict graph", ns.ConflictGraph("t1"), "urn:cortex:acme:team:t1:graph:conflicts"},
		{"team prefix", quad.IRI(ns.TeamPrefix("t1")), "urn:cortex:acme:team:t1:"},
		{"vocab word as team", ns.Team("name"), "urn:cortex:acme:team:%6Eame"},
		{"vocab word as member team", ns.Member("member", "agent"), "urn:cortex:acme:team:%6Dember:member:%61gent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if string(tt.got) != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

// hostile identifiers that must round-trip through every builder.
var hostileIDs = []string{
	"", "t1", "my team", "<script>", `"quoted"`, "a:b", "a/b", "50%", "%41", "日本語", "😀",
	"name", "status", "member", "graph", "findings", "Team", "a\nb", "\x00", "\xff",
	"{}|^`\\", "a#b?c=d", "..", ".", "~", "-",
	"/", "#", "%", " ", "a b", "a%20b", "\x7f", "\t",
	// format and bidi characters, line and paragraph separators
	"\u202eevil", "a\u200bb", "\ufeff", "\u2028", "\u2066x\u2069",
	// one word, composed (NFC) and decomposed (NFD): two ids
	"caf\u00e9", "cafe\u0301",
	strings.Repeat("long-id/", 1000),
}

func TestNS_Parse_RoundTrip(t *testing.T) {
	ns := mustNew(t, "acme")
	for _, team := range hostileIDs {
		for _, other := range []string{"x", "a:b", "name", ""} {
			refs := []namespace.Ref{
				{Kind: namespace.KindTeam, Team: team},
				{Kind: namespace.KindAgent, Agent: team},
				{Kind: namespace.KindMember, Team: team, Agent: other},
				{Kind: namespace.KindMember, Team: other, Agent: team},
				{Kind: namespace.KindFinding, Team: team, ID: other},
				{Kind: namespace.KindFinding, Team: other, ID: team},
				{Kind: namespace.KindConflict, Team: team, ID: other},
				{Kind: namespace.KindMerge, Team: team, ID: other},
				{Kind: namespace.KindFactSet, Team: other, ID: team},
				{Kind: namespace.KindTeamGraph, Team: team},
				{Kind: namespace.KindMemberGraph, Team: team, Agent: other},
				{Kind: namespace.KindMemberGraph, Team: other, Agent: team},
				{Kind: namespace.KindSharedGraph, Team: team},
				{Kind: namespace.KindProvenanceGraph, Team: team},
				{Kind: namespace.KindConflictGraph, Team: team},
				{Kind: namespace.KindTask, Team: team, ID: other},
				{Kind: namespace.KindTask, Team: other, ID: team},
				{Kind: namespace.KindTaskComment, Team: team, ID: other},
				{Kind: namespace.KindMessage, Team: other, ID: team},
				{Kind: namespace.KindTaskGraph, Team: team},
				{Kind: namespace.KindMailGraph, Team: team},
				{Kind: namespace.KindPlan, Team: team, ID: other},
				{Kind: namespace.KindPlanStep, Team: other, ID: team},
				{Kind: namespace.KindPlanGraph, Team: team},
			}
			for _, ref := range refs {
				t.Run(fmt.Sprintf("%s/%q/%q", ref.Kind, team, other), func(t *testing.T) {
					iri, err := ns.Build(ref)
					if err != nil {
						t.Fatal(err)
					}
					checkIRIRef(t, string(iri))
					got, err := ns.Parse(iri)
					if err != nil {
						t.Fatalf("Parse(%q): %v", iri, err)
					}
					if got != ref {
						t.Fatalf("Parse(%q) = %+v, want %+v", iri, got, ref)
					}
				})
			}
		}
	}
}

func TestNS_Parse_Terms(t *testing.T) {
	ns := mustNew(t, "acme")
	seen := map[quad.IRI]namespace.Term{}
	for _, term := range namespace.Terms() {
		iri := ns.IRI(term)
		if prev, dup := seen[iri]; dup {
			t.Errorf("terms %q and %q share IRI %q", prev, term, iri)
		}
		seen[iri] = term
		checkIRIRef(t, string(iri))
		ref, err := ns.Parse(iri)
		if err != nil || ref != (namespace.Ref{Kind: namespace.KindTerm, Term: term}) {
			t.Errorf("Parse(%q) = %+v, %v", iri, ref, err)
		}
		back, err := ns.Build(ref)
		if err != nil || back != iri {
			t.Errorf("Build(%+v) = %q, %v", ref, back, err)
		}
	}
}

// TestNS_IDsNeverSpellTerms checks that no identifier, in any position, can
// produce a vocabulary IRI: every id equal to a segment of a term is escaped.
func TestNS_IDsNeverSpellTerms(t *testing.T) {
	ns := mustNew(t, "acme")
	terms := map[quad.IRI]bool{}
	var words []string
	for _, term := range namespace.Terms() {
		terms[ns.IRI(term)] = true
		words = append(words, splitColon(string(term))...)
		words = append(words, string(term))
	}
	for _, w := range words {
		for _, iri := range []quad.IRI{
			ns.Team(w), ns.Agent(w), ns.Member(w, w), ns.Finding(w, w), ns.Conflict(w, w),
			ns.Merge(w, w), ns.FactSet(w, w), ns.TeamGraph(w), ns.MemberGraph(w, w),
		} {
			if terms[iri] {
				t.Errorf("id %q produces vocabulary IRI %q", w, iri)
			}
		}
	}
}

func splitColon(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == ':' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func TestNS_Parse_Errors(t *testing.T) {
	ns := mustNew(t, "acme")
	tests := []struct {
		iri  quad.IRI
		want error
	}{
		{"", namespace.ErrForeignIRI},
		{"http://example.org/x", namespace.ErrForeignIRI},
		{"urn:cortex:acme", namespace.ErrForeignIRI},
		{"urn:cortex:acmex:team:t", namespace.ErrForeignIRI},
		{"urn:cortex:acme-b:team:t", namespace.ErrForeignIRI},
		{"urn:cortex:other:team:t", namespace.ErrForeignIRI},
		{"URN:cortex:acme:team:t", namespace.ErrForeignIRI},
		{"urn:cortex:acme:", namespace.ErrUnknownIRI},
		{"urn:cortex:acme:team", namespace.ErrUnknownIRI},
		{"urn:cortex:acme:Nope", namespace.ErrUnknownIRI},
		{"urn:cortex:acme:team:t:bogus:x", namespace.ErrUnknownIRI},
		{"urn:cortex:acme:team:t:graph:bogus", namespace.ErrUnknownIRI},
		{"urn:cortex:acme:team:t:member:a:graph:state", namespace.ErrUnknownIRI},
		{"urn:cortex:acme:team:t:member:a:graph", namespace.ErrUnknownIRI},
		{"urn:cortex:acme:team:t:member", namespace.ErrUnknownIRI},
		{"urn:cortex:acme:team:member:bogus", namespace.ErrUnknownIRI},
		{"urn:cortex:acme:agent:a:b", namespace.ErrUnknownIRI},
		{"urn:cortex:acme:finding:x", namespace.ErrUnknownIRI}, // not a term, no such root
		{"urn:cortex:acme:team:a b", namespace.ErrInvalidEscape},
		{"urn:cortex:acme:team:%61", namespace.ErrInvalidEscape},
		{"urn:cortex:acme:team:%2f", namespace.ErrInvalidEscape},
		{"urn:cortex:acme:team:t:member:%", namespace.ErrInvalidEscape},
		{"urn:cortex:acme:team:a/b", namespace.ErrInvalidEscape},
		{"urn:cortex:acme:agent:status", namespace.ErrInvalidEscape},
	}
	for _, tt := range tests {
		t.Run(string(tt.iri), func(t *testing.T) {
			ref, err := ns.Parse(tt.iri)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Parse(%q) = %+v, %v; want %v", tt.iri, ref, err, tt.want)
			}
			var pe *namespace.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q) error %T is not *ParseError", tt.iri, err)
			}
			if pe.IRI != tt.iri || pe.Namespace != "acme" {
				t.Errorf("ParseError = %+v", pe)
			}
		})
	}
}

// TestNS_Isolation checks that namespaces whose names are prefixes of each
// other never accept each other's IRIs.
func TestNS_Isolation(t *testing.T) {
	names := []string{"a", "a-b", "ab", "a-bc", "b"}
	for _, n1 := range names {
		for _, n2 := range names {
			if n1 == n2 {
				continue
			}
			ns1, ns2 := mustNew(t, n1), mustNew(t, n2)
			t.Run(n1+"/"+n2, func(t *testing.T) {
				iris := []quad.IRI{
					ns2.Team("t"), ns2.Team("b:team:t"), ns2.Member("t", "x"), ns2.TeamGraph("t"),
					ns2.SharedGraph(""), ns2.IRI(namespace.TeamStatus), ns2.IRI(namespace.ClassTeam),
				}
				for _, iri := range iris {
					if ref, err := ns1.Parse(iri); !errors.Is(err, namespace.ErrForeignIRI) {
						t.Errorf("ns %s Parse(%q) = %+v, %v; want ErrForeignIRI", n1, iri, ref, err)
					}
					if iri == ns1.Team("t") || iri == ns1.Team("b:team:t") {
						t.Errorf("IRI %q shared by namespaces %s and %s", iri, n1, n2)
					}
				}
			})
		}
	}
}

func TestNS_Zero(t *testing.T) {
	var ns namespace.NS
	if _, err := ns.Parse("team:t"); !errors.Is(err, namespace.ErrForeignIRI) {
		t.Fatalf("zero NS Parse = %v, want ErrForeignIRI", err)
	}
}

func TestNS_Build_Invalid(t *testing.T) {
	ns := mustNew(t, "acme")
	for _, ref := range []namespace.Ref{{}, {Kind: 99}, {Kind: namespace.KindTerm, Term: "team:nope"}} {
		if iri, err := ns.Build(ref); !errors.Is(err, namespace.ErrUnknownIRI) {
			t.Errorf("Build(%+v) = %q, %v; want ErrUnknownIRI", ref, iri, err)
		}
	}
}

func TestKind_String(t *testing.T) {
	seen := map[string]bool{}
	for k := namespace.KindTerm; k <= namespace.KindConflictGraph; k++ {
		s := k.String()
		if s == "" || seen[s] {
			t.Errorf("Kind(%d).String() = %q (duplicate or empty)", int(k), s)
		}
		seen[s] = true
		wantGraph := k >= namespace.KindTeamGraph || k == namespace.KindFactSet
		if k.IsGraph() != wantGraph {
			t.Errorf("%s.IsGraph() = %v", k, k.IsGraph())
		}
	}
	if s := namespace.Kind(0).String(); s != "kind(0)" {
		t.Errorf("Kind(0).String() = %q", s)
	}
}

func FuzzTeamIRI(f *testing.F) {
	for _, id := range hostileIDs {
		f.Add(id, "agent-1")
	}
	ns := mustNew(f, "acme")
	custom := mustNew(f, "acme", namespace.WithBase("https://example.org/cortex/"))
	f.Fuzz(func(t *testing.T, team, agent string) {
		for _, n := range []namespace.NS{ns, custom} {
			cases := []struct {
				iri  quad.IRI
				want namespace.Ref
			}{
				{n.Team(team), namespace.Ref{Kind: namespace.KindTeam, Team: team}},
				{n.Member(team, agent), namespace.Ref{Kind: namespace.KindMember, Team: team, Agent: agent}},
				{n.MemberGraph(team, agent), namespace.Ref{Kind: namespace.KindMemberGraph, Team: team, Agent: agent}},
				{n.Finding(team, agent), namespace.Ref{Kind: namespace.KindFinding, Team: team, ID: agent}},
				{n.Agent(agent), namespace.Ref{Kind: namespace.KindAgent, Agent: agent}},
				{n.TeamGraph(team), namespace.Ref{Kind: namespace.KindTeamGraph, Team: team}},
				{n.SharedGraph(team), namespace.Ref{Kind: namespace.KindSharedGraph, Team: team}},
				{n.ProvenanceGraph(team), namespace.Ref{Kind: namespace.KindProvenanceGraph, Team: team}},
				{n.ConflictGraph(team), namespace.Ref{Kind: namespace.KindConflictGraph, Team: team}},
			}
			for _, c := range cases {
				checkIRIRef(t, string(c.iri))
				got, err := n.Parse(c.iri)
				if err != nil {
					t.Fatalf("Parse(%q): %v", c.iri, err)
				}
				if got != c.want {
					t.Fatalf("Parse(%q) = %+v, want %+v", c.iri, got, c.want)
				}
			}
		}
		// Parse never panics on arbitrary input, and whatever it accepts
		// rebuilds to the same IRI.
		for _, s := range []string{team, ns.Prefix() + team, ns.Prefix() + "team:" + team + ":" + agent} {
			ref, err := ns.Parse(quad.IRI(s))
			if err != nil {
				continue
			}
			back, err := ns.Build(ref)
			if err != nil || string(back) != s {
				t.Fatalf("Parse(%q) = %+v, rebuilt as %q, %v", s, ref, back, err)
			}
		}
	})
}

func BenchmarkNS_Member(b *testing.B) {
	ns := mustNew(b, "acme")
	b.ReportAllocs()
	for b.Loop() {
		_ = ns.Member("team-1", "agent-7")
	}
}

func BenchmarkNS_Parse(b *testing.B) {
	ns := mustNew(b, "acme")
	iri := ns.MemberGraph("team 1", "agent-7")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ns.Parse(iri); err != nil {
			b.Fatal(err)
		}
	}
}

// TestNS_Concurrent exercises one NS from many goroutines; run with -race.
func TestNS_Concurrent(t *testing.T) {
	ns := mustNew(t, "acme")
	done := make(chan error)
	for g := 0; g < 8; g++ {
		go func() {
			var err error
			for i := 0; i < 200 && err == nil; i++ {
				id := fmt.Sprintf("t %d/%d", g, i)
				var ref namespace.Ref
				ref, err = ns.Parse(ns.MemberGraph(id, "a"))
				if err == nil && (ref.Team != id || ref.Agent != "a") {
					err = fmt.Errorf("got %+v", ref)
				}
			}
			done <- err
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// FuzzAllKinds checks every Ref-backed builder, for any pair of ids: the
// IRI is a valid IRIREF, parses back to exactly the kind and ids it was
// built from, and Build rebuilds it.
func FuzzAllKinds(f *testing.F) {
	for _, id := range hostileIDs {
		f.Add(id, "x")
		f.Add("t", id)
	}
	nss := []namespace.NS{
		mustNew(f, "acme"),
		mustNew(f, "acme", namespace.WithBase("https://example.org/cortex/")),
		mustNew(f, "acme", namespace.WithBase("https://example.org/cortex#")),
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, n := range nss {
			refs := []namespace.Ref{
				{Kind: namespace.KindAgent, Agent: a},
				{Kind: namespace.KindTeam, Team: a},
				{Kind: namespace.KindMember, Team: a, Agent: b},
				{Kind: namespace.KindFinding, Team: a, ID: b},
				{Kind: namespace.KindConflict, Team: a, ID: b},
				{Kind: namespace.KindMerge, Team: a, ID: b},
				{Kind: namespace.KindFactSet, Team: a, ID: b},
				{Kind: namespace.KindTeamGraph, Team: a},
				{Kind: namespace.KindMemberGraph, Team: a, Agent: b},
				{Kind: namespace.KindSharedGraph, Team: a},
				{Kind: namespace.KindProvenanceGraph, Team: a},
				{Kind: namespace.KindConflictGraph, Team: a},
				{Kind: namespace.KindAgentDef, Agent: a},
				{Kind: namespace.KindTeamDef, Team: a},
				{Kind: namespace.KindStepDef, Team: a, ID: b},
				{Kind: namespace.KindAgentDefGraph, Agent: a},
				{Kind: namespace.KindTeamDefGraph, Team: a},
				{Kind: namespace.KindTask, Team: a, ID: b},
				{Kind: namespace.KindTaskComment, Team: a, ID: b},
				{Kind: namespace.KindMessage, Team: a, ID: b},
				{Kind: namespace.KindTaskGraph, Team: a},
				{Kind: namespace.KindMailGraph, Team: a},
				{Kind: namespace.KindPlan, Team: a, ID: b},
				{Kind: namespace.KindPlanStep, Team: a, ID: b},
				{Kind: namespace.KindPlanGraph, Team: a},
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
				got, err := n.Parse(iri)
				if err != nil {
					t.Fatalf("Parse(%q): %v", iri, err)
				}
				if got != want {
					t.Fatalf("Parse(%q) = %+v, want %+v", iri, got, want)
				}
			}
			// Whatever Parse accepts rebuilds to the same IRI.
			for _, s := range []string{n.Prefix() + a, n.Prefix() + "team:" + a + ":" + b, n.Prefix() + "teamdef:" + a + ":" + b} {
				ref, err := n.Parse(quad.IRI(s))
				if err != nil {
					continue
				}
				back, err := n.Build(ref)
				if err != nil || string(back) != s {
					t.Fatalf("Parse(%q) = %+v, rebuilt as %q, %v", s, ref, back, err)
				}
			}
		}
	})
}
