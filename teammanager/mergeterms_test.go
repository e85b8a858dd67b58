package teammanager_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

// langStringNoTag is a literal RDF 1.1 does not allow (Concepts 3.3):
// rdf:langString without a language tag. The store and a merge refuse it.
var langStringNoTag = quad.TypedString{Value: "x", Type: "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"}

// A finding a merge would refuse is refused when it is written, with
// nothing stored: stored, it would fail every later merge of its team.
func TestManager_AddFinding_RefusesTermAMergeRefuses(t *testing.T) {
	f := newFixture(t)
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "t", Members: members("ann")})
	f.status(t, "t", "ann", teammanager.Running, "")
	bad := teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: langStringNoTag}
	// As for any other ill-formed term: the store's error too.
	if _, err := f.m.AddFinding(ctx, "t", "ann", bad); !errors.Is(err, teammanager.ErrInvalidFinding) || !errors.Is(err, cortex.ErrInvalidQuad) {
		t.Fatalf("AddFinding(rdf:langString without tag) = %v, want ErrInvalidFinding and cortex.ErrInvalidQuad", err)
	}
	if err := teammanager.CheckFinding(bad); !errors.Is(err, teammanager.ErrInvalidFinding) || !errors.Is(err, cortex.ErrInvalidQuad) {
		t.Fatalf("CheckFinding(rdf:langString without tag) = %v, want ErrInvalidFinding and cortex.ErrInvalidQuad", err)
	}
	ok := teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("y")}
	if _, err := f.m.AddFindings(ctx, "t", "ann", []teammanager.Finding{ok, bad}); !errors.Is(err, teammanager.ErrInvalidFinding) {
		t.Fatalf("AddFindings with one such finding = %v, want ErrInvalidFinding", err)
	}
	// In a document it is a malformed term, as a bad language tag is.
	nt := `<http://example.org/s> <http://example.org/p> "x"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString> .` + "\n"
	if _, err := f.m.ImportFindings(ctx, "t", "ann", strings.NewReader(nt), "ntriples"); !errors.Is(err, rdfio.ErrSyntax) {
		t.Fatalf("ImportFindings of such a triple = %v, want rdfio.ErrSyntax", err)
	}
	js := `{"subject": "<http://example.org/s>", "predicate": "<http://example.org/p>", "object": "\"x\"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString>"}`
	if _, err := f.m.ImportFindings(ctx, "t", "ann", strings.NewReader(js), teammanager.FindingsJSON); !errors.Is(err, rdfio.ErrSyntax) {
		t.Fatalf("ImportFindings (json) of such a finding = %v, want rdfio.ErrSyntax", err)
	}
	if got := f.graph(t, f.ns.MemberGraph("t", "ann")); len(got) != 0 {
		t.Fatalf("member graph after refused findings: %v", got)
	}
	up, err := f.m.UpdateMemberStatus(ctx, "t", "ann", teammanager.Completed, "")
	if err != nil || up.Merge == nil {
		t.Fatalf("completing the team: %+v, %v (the merge must run and succeed)", up, err)
	}
}

// A resolution a merge would refuse is refused before it is written: a
// written one would fail every later merge of the team, and a resolved
// conflict cannot be resolved again.
func TestManager_ResolveConflict_RefusesObjectAMergeRefuses(t *testing.T) {
	f := newFixture(t)
	codeReview(t, f, merge.NameConflictFlag)
	cs, err := f.m.Conflicts(ctx, "cr")
	if err != nil || len(cs) != 1 {
		t.Fatalf("Conflicts = %v, %v", cs, err)
	}
	if _, err := f.m.ResolveConflict(ctx, "cr", cs[0].ID, []quad.Value{langStringNoTag}, "lead"); !errors.Is(err, teammanager.ErrInvalidResolution) {
		t.Fatalf("ResolveConflict(rdf:langString without tag) = %v, want ErrInvalidResolution", err)
	}
	if cs, _ := f.m.Conflicts(ctx, "cr"); len(cs) != 1 || cs[0].Resolved {
		t.Fatalf("conflict after a refused resolution: %+v", cs)
	}
	if _, err := f.m.MergeTeamResults(ctx, "cr"); err != nil {
		t.Fatalf("merge after a refused resolution: %v", err)
	}
	if _, err := f.m.ResolveConflict(ctx, "cr", cs[0].ID, []quad.Value{quad.String("high")}, "lead"); err != nil {
		t.Fatalf("a valid resolution after the refused one: %v", err)
	}
}

// Objects that a merge treats as one (language tags differing in case) are
// one candidate of a conflict record, spelled as the merge spells it, and a
// resolution choosing either spelling chooses the findings of both.
func TestManager_Conflicts_LanguageTagCaseIsOneCandidate(t *testing.T) {
	f := newFixture(t)
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "t", Strategy: merge.NameConflictFlag, Members: members("ann", "bob")})
	say := func(agent string, o quad.Value) string {
		t.Helper()
		id, err := f.m.AddFinding(ctx, "t", agent, teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: o})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	for _, a := range []string{"ann", "bob"} {
		f.status(t, "t", a, teammanager.Running, "")
	}
	annA := say("ann", quad.LangString{Value: "a", Lang: "en"})
	bobA := say("bob", quad.LangString{Value: "a", Lang: "EN"})
	bobB := say("bob", quad.String("b"))
	for _, a := range []string{"ann", "bob"} {
		f.status(t, "t", a, teammanager.Completed, "")
	}
	cs, err := f.m.Conflicts(ctx, "t")
	if err != nil || len(cs) != 1 {
		t.Fatalf("Conflicts = %+v, %v", cs, err)
	}
	var got []string
	for _, c := range cs[0].Candidates {
		got = append(got, quad.StringOf(c.Object)+" "+strings.Join(c.Agents, ",")+" "+strings.Join(c.Findings, ","))
	}
	ab := []string{annA, bobA}
	slices.Sort(ab)
	want := []string{`"b" bob ` + bobB, `"a"@EN ann,bob ` + strings.Join(ab, ",")}
	if !slices.Equal(got, want) {
		t.Fatalf("candidates\n%q\nwant\n%q", got, want)
	}

	if _, err := f.m.ResolveConflict(ctx, "t", cs[0].ID, []quad.Value{quad.LangString{Value: "a", Lang: "eN"}}, "lead"); err != nil {
		t.Fatal(err)
	}
	chosen, err := f.n.Quads(ctx, cortex.Pattern{Subject: f.ns.Conflict("t", cs[0].ID), Predicate: f.ns.IRI(namespace.ConflictChosen),
		Graph: f.ns.ConflictGraph("t"), Scope: cortex.OneGraph})
	if err != nil {
		t.Fatal(err)
	}
	var chosenIDs []string
	for _, q := range chosen {
		r, err := f.ns.Parse(q.Object.(quad.IRI))
		if err != nil {
			t.Fatal(err)
		}
		chosenIDs = append(chosenIDs, r.ID)
	}
	slices.Sort(chosenIDs)
	if !slices.Equal(chosenIDs, ab) {
		t.Fatalf("conflict:chosen %v, want the findings of both spellings %v", chosenIDs, ab)
	}
}

// TestManager_AddFinding_NegativeZeroConfidence: a confidence of -0 is 0,
// unspecified: asserting a finding with it and again with 0 is asserting the
// same finding twice, which gives the same id and stores it once (a merge
// would otherwise list two findings behind one claim).
func TestManager_AddFinding_NegativeZeroConfidence(t *testing.T) {
	f := newFixture(t)
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a")})
	f.status(t, "t", "a", teammanager.Running, "")
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var ids []string
	for _, c := range []float64{math.Copysign(0, -1), 0} {
		id, err := f.m.AddFinding(ctx, "t", "a", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("v"), Confidence: c, AssertedAt: at})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if ids[0] != ids[1] {
		t.Errorf("ids %q: want one finding", ids)
	}
}

// TestManager_ResolveConflict_LanguageTagCaseChosenOnce: a resolution
// naming one object in two spellings of its language tag makes one fact
// (a merge compares tags case-insensitively); its record lists that one
// object as chosen, spelled as the fact is, not both spellings.
func TestManager_ResolveConflict_LanguageTagCaseChosenOnce(t *testing.T) {
	f := newFixture(t)
	codeReview(t, f, merge.NameConflictFlag)
	cs, err := f.m.Conflicts(ctx, "cr")
	if err != nil || len(cs) != 1 {
		t.Fatalf("Conflicts = %+v, %v", cs, err)
	}
	rep, err := f.m.ResolveConflict(ctx, "cr", cs[0].ID, []quad.Value{
		quad.LangString{Value: "mid", Lang: "en"}, quad.LangString{Value: "mid", Lang: "EN"}, quad.String("low")}, "lead")
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, fa := range rep.Facts {
		if fa.ResolvedBy != "" {
			kept = append(kept, quad.StringOf(fa.Object))
		}
	}
	cs, err = f.m.Conflicts(ctx, "cr")
	if err != nil || len(cs) != 1 {
		t.Fatalf("Conflicts = %+v, %v", cs, err)
	}
	var chosen []string
	for _, o := range cs[0].Chosen {
		chosen = append(chosen, quad.StringOf(o))
	}
	if want := []string{`"low"`, `"mid"@EN`}; !slices.Equal(kept, want) || !slices.Equal(chosen, want) {
		t.Fatalf("resolved facts %q, conflict's chosen %q; want both %q", kept, chosen, want)
	}
}
