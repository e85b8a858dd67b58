package teammanager_test

import (
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

// reportFacts turns a merge report's facts into the Facts a reader gets.
func reportFacts(rep teammanager.MergeReport) []teammanager.Fact {
	out := []teammanager.Fact{}
	for _, f := range rep.Facts {
		out = append(out, teammanager.Fact{Fact: f, MergeID: rep.MergeID})
	}
	return out
}

// TestManager_Facts reads the merged knowledge back: equal to the report of
// the merge that wrote it (supporters, findings — a language tag's case
// does not matter — confidence, resolver, run), filtered by subject,
// predicate or supporting agent, and without running the strategy again.
func TestManager_Facts(t *testing.T) {
	reg := merge.NewRegistry()
	merge.RegisterBuiltins(reg)
	var runs int
	reg.Register("counted", merge.StrategyFunc(func(in merge.Input) (merge.Result, error) {
		runs++
		return merge.Merge(merge.NameConflictFlag, in)
	}))
	f := newFixture(t, teammanager.DefaultConfig().WithRegistry(reg).WithAutoMerge(false))
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Strategy: "counted", Members: members("a", "b", "c")})
	var ids []string
	say := func(agent, s, p string, o quad.Value, c float64) {
		t.Helper()
		id, err := f.m.AddFinding(ctx, "t", agent, teammanager.Finding{Subject: iri(s), Predicate: iri(p), Object: o, Confidence: c})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	for _, a := range []string{"a", "b", "c"} {
		f.status(t, "t", a, teammanager.Running, "")
	}
	say("a", "x", "label", quad.LangString{Value: "leak", Lang: "en"}, 0.8)
	say("b", "x", "label", quad.LangString{Value: "leak", Lang: "EN"}, 0.612)
	say("a", "x", "label", quad.LangString{Value: "leak", Lang: "en"}, 0.3) // a second finding of a's claim
	say("a", "x", "severity", quad.String("high"), 0)
	say("b", "x", "severity", quad.String("low"), 0.9)
	say("c", "y", "license", quad.String("MIT"), 0)
	say("c", "z", "owner", iri("alice"), 0.456)
	for _, a := range []string{"a", "b", "c"} {
		f.status(t, "t", a, teammanager.Completed, "")
	}
	if got, err := f.m.Facts(ctx, "t", teammanager.FactFilter{}); err != nil || len(got) != 0 {
		t.Fatalf("facts before any merge: %v, %v", got, err)
	}
	if _, err := f.m.MergeTeamResults(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	cs, err := f.m.Conflicts(ctx, "t")
	if err != nil || len(cs) != 1 {
		t.Fatalf("conflicts %v, %v", cs, err)
	}
	rep, err := f.m.ResolveConflict(ctx, "t", cs[0].ID, []quad.Value{quad.String("high"), quad.String("medium")}, "lead")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Facts) != 5 {
		t.Fatalf("report facts %+v", rep.Facts)
	}
	runsBefore := runs
	got, err := f.m.Facts(ctx, "t", teammanager.FactFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if want := reportFacts(rep); !reflect.DeepEqual(got, want) {
		t.Fatalf("Facts differ from the merge report:\n got  %+v\n want %+v", got, want)
	}
	if runs != runsBefore {
		t.Fatalf("Facts ran the strategy %d times", runs-runsBefore)
	}
	// The label: both spellings of the tag, a's two findings and b's; the
	// confidences as stored (0.612 → 0.61 is below a's 0.8).
	label := got[0]
	if label.Predicate != iri("label") || strings.Join(label.Supporters, ",") != "a,b" || len(label.FindingIDs) != 3 || label.Confidence != 0.8 {
		t.Fatalf("label fact %+v", label)
	}
	byObject := map[string]teammanager.Fact{}
	for _, fa := range got {
		byObject[fmt.Sprint(fa.Object)] = fa
	}
	if fa := byObject[`"medium"`]; fa.ResolvedBy != "lead" || len(fa.Supporters) != 0 || len(fa.FindingIDs) != 0 || fa.Confidence != 1 || fa.MergeID != rep.MergeID {
		t.Fatalf("resolved, unasserted fact %+v", fa)
	}
	if fa := byObject[fmt.Sprint(iri("alice"))]; fa.Confidence != 0.46 {
		t.Fatalf("confidence of 0.456 stored as %v, want 0.46", fa.Confidence)
	}
	filtered := func(ff teammanager.FactFilter) string {
		t.Helper()
		fs, err := f.m.Facts(ctx, "t", ff)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, fa := range fs {
			out = append(out, fmt.Sprint(fa.Object))
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		filter teammanager.FactFilter
		want   string
	}{
		{teammanager.FactFilter{Subject: iri("x")}, `"leak"@EN "high" "medium"`},
		{teammanager.FactFilter{Subject: iri("x"), Predicate: iri("severity")}, `"high" "medium"`},
		{teammanager.FactFilter{Predicate: iri("license")}, `"MIT"`},
		{teammanager.FactFilter{Agent: "c"}, `"MIT" <http://example.org/alice>`},
		{teammanager.FactFilter{Agent: "a", Predicate: iri("severity")}, `"high"`},
		{teammanager.FactFilter{Subject: iri("nothing")}, ``},
	} {
		if got := filtered(tc.filter); got != tc.want {
			t.Errorf("Facts(%+v) = %s, want %s", tc.filter, got, tc.want)
		}
	}
	if _, err := f.m.Facts(ctx, "nope", teammanager.FactFilter{}); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Errorf("unknown team: %v", err)
	}
	if _, err := f.m.Facts(ctx, "t", teammanager.FactFilter{Agent: "zed"}); !errors.Is(err, teammanager.ErrUnknownAgent) {
		t.Errorf("unknown agent: %v", err)
	}
	if _, err := f.m.Facts(ctx, "t", teammanager.FactFilter{Subject: quad.IRI("not an iri")}); err == nil {
		t.Errorf("malformed subject accepted")
	}
}

// TestManager_Facts_ConfidenceRounded: fused confidences are stored rounded
// to 0.01, so facts whose confidences differ by less share a fact set.
func TestManager_Facts_ConfidenceRounded(t *testing.T) {
	f := newFixture(t)
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a")})
	f.status(t, "t", "a", teammanager.Running, "")
	for i, c := range []float64{0.901, 0.9, 0.904, 0.8951, 0.004} {
		if _, err := f.m.AddFinding(ctx, "t", "a", teammanager.Finding{Subject: iri(fmt.Sprint("s", i)), Predicate: iri("p"), Object: quad.String("v"), Confidence: c}); err != nil {
			t.Fatal(err)
		}
	}
	up := f.status(t, "t", "a", teammanager.Completed, "")
	if sets := f.factSets(t, "t"); strings.Join(sets, " ") != `a|"v","v","v","v"|c=0.9 a|"v"|c=0.01` {
		t.Fatalf("fact sets %q", sets)
	}
	var confs []string
	for _, fa := range up.Merge.Facts {
		confs = append(confs, strconv.FormatFloat(fa.Confidence, 'g', -1, 64))
	}
	if strings.Join(confs, " ") != "0.9 0.9 0.9 0.9 0.01" {
		t.Fatalf("report confidences %v", confs)
	}
}

// provenanceQuads counts the quads of the team's provenance graph and fact
// sets (the copies of the facts and their descriptions), and its facts.
func provenanceQuads(t *testing.T, f *fixture, team string) (prov, facts int64) {
	t.Helper()
	res, err := f.n.Query(ctx, "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g", sparql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	for res.Next(ctx) {
		row := res.Row()
		n, _ := strconv.ParseInt(fmt.Sprint(quad.NativeOf(row[1])), 10, 64)
		g, _ := row[0].(quad.IRI)
		switch r, err := f.ns.Parse(g); {
		case err != nil || r.Team != team:
		case r.Kind == namespace.KindSharedGraph:
			facts = n
		case r.Kind == namespace.KindProvenanceGraph, r.Kind == namespace.KindFactSet:
			prov += n
		}
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	return prov, facts
}

// TestManager_Provenance_Bounded merges 20,000 facts asserted by random
// subsets of 4 agents with random float confidences (as LLM agents report
// them), and checks that provenance costs at most 3 quads per fact on
// average: one copy in a fact set, plus the sets' descriptions, of which
// there are at most 100 per distinct supporters.
//
// With -short it merges 10,000 facts: still far from the 7 quads per fact
// of fact sets keyed by exact confidences, and under 3 (the descriptions
// are then about 1.3 quads per fact).
func TestManager_Provenance_Bounded(t *testing.T) {
	nFacts := 20000
	if testing.Short() {
		nFacts = 10000
	}
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	agents := []string{"a", "b", "c", "d"}
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Members: members(agents...)})
	r := rand.New(rand.NewSource(1))
	byAgent := map[string][]teammanager.Finding{}
	for i := range nFacts {
		mask := 1 + r.Intn(15) // a non-empty subset of the agents
		for j, a := range agents {
			if mask&(1<<j) != 0 {
				byAgent[a] = append(byAgent[a], teammanager.Finding{
					Subject: iri(fmt.Sprint("s", i)), Predicate: iri("p"), Object: quad.String("o"), Confidence: 0.01 + 0.99*r.Float64(),
				})
			}
		}
	}
	for _, a := range agents {
		f.status(t, "t", a, teammanager.Running, "")
		if _, err := f.m.AddFindings(ctx, "t", a, byAgent[a]); err != nil {
			t.Fatal(err)
		}
		f.status(t, "t", a, teammanager.Completed, "")
	}
	rep, err := f.m.MergeTeamResults(ctx, "t")
	if err != nil || rep.Kept != nFacts {
		t.Fatalf("merge: kept %d, %v", rep.Kept, err)
	}
	prov, facts := provenanceQuads(t, f, "t")
	perFact := float64(prov) / float64(facts)
	t.Logf("%d facts, %d provenance quads: %.2f per fact", facts, prov, perFact)
	if facts != int64(nFacts) || perFact > 3 {
		t.Fatalf("%d facts, %d provenance quads: %.2f per fact, want at most 3", facts, prov, perFact)
	}
}

// TestManager_TeamLinks: conflict records and fact sets name their team, so
// counting them per team is one SPARQL pattern; a resolved conflict keeps
// its link.
func TestManager_TeamLinks(t *testing.T) {
	f := newFixture(t)
	for _, id := range []string{"cr", "cr2"} {
		f.create(t, teammanager.TeamConfig{ID: id, Name: "n", Strategy: merge.NameConflictFlag, Members: members("a", "b")})
		for _, a := range []string{"a", "b"} {
			f.status(t, id, a, teammanager.Running, "")
			for k := range map[string]int{"cr": 3, "cr2": 2}[id] {
				if _, err := f.m.AddFinding(ctx, id, a, teammanager.Finding{Subject: iri(fmt.Sprint("s", k)), Predicate: iri("p"), Object: quad.String(a)}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := f.m.AddFinding(ctx, id, a, teammanager.Finding{Subject: iri("agreed"), Predicate: iri("p"), Object: quad.String("yes")}); err != nil {
				t.Fatal(err)
			}
		}
		for _, a := range []string{"a", "b"} {
			f.status(t, id, a, teammanager.Completed, "")
		}
	}
	cs, err := f.m.Conflicts(ctx, "cr")
	if err != nil || len(cs) != 3 {
		t.Fatalf("conflicts %v, %v", cs, err)
	}
	if _, err := f.m.ResolveConflict(ctx, "cr", cs[0].ID, []quad.Value{quad.String("a")}, "judge"); err != nil {
		t.Fatal(err)
	}
	count := func(pred namespace.Term) map[string]string {
		t.Helper()
		q := fmt.Sprintf("SELECT ?team (COUNT(?x) AS ?n) WHERE { GRAPH ?g { ?x <%s> ?team } } GROUP BY ?team", string(f.ns.IRI(pred)))
		res, err := f.n.Query(ctx, q, sparql.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer res.Close()
		out := map[string]string{}
		for res.Next(ctx) {
			row := res.Row()
			r, err := f.ns.Parse(row[0].(quad.IRI))
			if err != nil || r.Kind != namespace.KindTeam {
				t.Fatalf("%v is not a team node", row[0])
			}
			out[r.Team] = fmt.Sprint(quad.NativeOf(row[1]))
		}
		if err := res.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := count(namespace.ConflictTeam); fmt.Sprint(got) != "map[cr:3 cr2:2]" {
		t.Fatalf("conflicts per team %v, want cr 3 (one resolved), cr2 2", got)
	}
	// cr: the agreed fact's set and the resolved fact's set; cr2: one set.
	if got := count(namespace.FactTeam); fmt.Sprint(got) != "map[cr:2 cr2:1]" {
		t.Fatalf("fact sets per team %v", got)
	}
	resolved, err := f.n.Quads(ctx, cortex.Pattern{Subject: f.ns.Conflict("cr", cs[0].ID), Predicate: f.ns.IRI(namespace.ConflictTeam)})
	if err != nil || len(resolved) != 1 || resolved[0].Object != f.ns.Team("cr") {
		t.Fatalf("resolved conflict's team link %v, %v", resolved, err)
	}
}

// TestManager_Facts_OneSnapshot re-merges a team while Facts reads it (a
// hook once Facts has begun to read the fact sets): the re-merge moves
// every fact to another fact set (its supporters change from a to a and
// b). Facts sees the facts of one merge or the other, whole: each fact
// once, none missing, all with the same supporters.
func TestManager_Facts_OneSnapshot(t *testing.T) {
	f := newFixture(t)
	f.running(t, "t", "a", "b")
	var fs []teammanager.Finding
	for i := range 10 {
		fs = append(fs, teammanager.Finding{Subject: iri(fmt.Sprint("s", i)), Predicate: iri("p"), Object: quad.String("o")})
	}
	for _, a := range []string{"a", "b"} {
		if _, err := f.m.AddFindings(ctx, "t", a, fs); err != nil {
			t.Fatal(err)
		}
	}
	f.status(t, "t", "a", teammanager.Completed, "")
	first, err := f.m.MergeTeamResults(ctx, "t") // by hand, b still running: supporters a
	if err != nil || first.Kept != 10 {
		t.Fatalf("merge by hand: %+v, %v", first, err)
	}
	var second *teammanager.MergeReport
	teammanager.SetFactsHook(func() {
		teammanager.SetFactsHook(nil)
		up := f.status(t, "t", "b", teammanager.Completed, "") // completes the team: merged, supporters a, b
		second = up.Merge
	})
	defer teammanager.SetFactsHook(nil)
	facts, err := f.m.Facts(ctx, "t", teammanager.FactFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if second == nil || second.MergeID == first.MergeID {
		t.Fatalf("no re-merge while Facts read: %+v", second)
	}
	seen := map[quad.Value]int{}
	for _, fa := range facts {
		seen[fa.Subject]++
		if fa.MergeID != facts[0].MergeID || !slices.Equal(fa.Supporters, facts[0].Supporters) {
			t.Fatalf("facts of two merges: %+v and %+v", facts[0], fa)
		}
	}
	if len(facts) != 10 || len(seen) != 10 {
		t.Fatalf("%d facts about %d subjects, want 10 once each: %+v", len(facts), len(seen), facts)
	}
	if after, err := f.m.Facts(ctx, "t", teammanager.FactFilter{}); err != nil || len(after) != 10 || after[0].MergeID != second.MergeID || !slices.Equal(after[0].Supporters, []string{"a", "b"}) {
		t.Fatalf("facts after the re-merge: %d, %v", len(after), err)
	}
}

// TestManager_Facts_BlankSubject filters facts by a blank-node subject,
// which a query cannot take as a parameter: it is matched as stored.
func TestManager_Facts_BlankSubject(t *testing.T) {
	f := newFixture(t)
	f.running(t, "t", "a")
	for _, s := range []quad.Value{quad.BNode("b1"), quad.BNode("b2"), iri("s")} {
		if _, err := f.m.AddFinding(ctx, "t", "a", teammanager.Finding{Subject: s, Predicate: iri("p"), Object: quad.String("o")}); err != nil {
			t.Fatal(err)
		}
	}
	f.status(t, "t", "a", teammanager.Completed, "")
	all, err := f.m.Facts(ctx, "t", teammanager.FactFilter{})
	if err != nil || len(all) != 3 {
		t.Fatalf("facts: %+v, %v", all, err)
	}
	var blank quad.Value
	for _, fa := range all {
		if _, ok := fa.Subject.(quad.BNode); ok && blank == nil {
			blank = fa.Subject
		}
	}
	for _, ff := range []teammanager.FactFilter{{Subject: blank}, {Subject: blank, Predicate: iri("p")}, {Subject: blank, Agent: "a"}} {
		got, err := f.m.Facts(ctx, "t", ff)
		if err != nil || len(got) != 1 || got[0].Subject != blank || len(got[0].FindingIDs) != 1 {
			t.Fatalf("Facts(%+v) = %+v, %v", ff, got, err)
		}
	}
}

// TestManager_Facts_ConfidenceRoundsTheDecimal: a confidence is rounded to
// 0.01 as the decimal it is (the finding's xsd:decimal), a half going up
// whatever the float's binary error: 0.145 is 0.15, as 0.135 is 0.14 and
// 0.995 is 1 (0.145*100 is 14.499999999999998 in float64, which rounded
// 0.145, 0.285, 0.565 and 0.575 down and every other x.xx5 up).
func TestManager_Facts_ConfidenceRoundsTheDecimal(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0.145, "0.15"}, {0.285, "0.29"}, {0.565, "0.57"}, {0.575, "0.58"},
		{0.135, "0.14"}, {0.995, "1"}, {0.005, "0.01"}, {0.0049, "0.01"}, {0.9949999, "0.99"},
		{0.1449999, "0.14"}, {0.07, "0.07"}, {1e-300, "0.01"}, {1, "1"},
	} {
		t.Run(strconv.FormatFloat(tc.in, 'g', -1, 64), func(t *testing.T) {
			f := newFixture(t)
			f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a")})
			f.status(t, "t", "a", teammanager.Running, "")
			if _, err := f.m.AddFinding(ctx, "t", "a", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("v"), Confidence: tc.in}); err != nil {
				t.Fatal(err)
			}
			up := f.status(t, "t", "a", teammanager.Completed, "")
			if got := strconv.FormatFloat(up.Merge.Facts[0].Confidence, 'g', -1, 64); got != tc.want {
				t.Errorf("report confidence %s, want %s", got, tc.want)
			}
			fs, err := f.m.Facts(ctx, "t", teammanager.FactFilter{})
			if err != nil || len(fs) != 1 || strconv.FormatFloat(fs[0].Confidence, 'g', -1, 64) != tc.want {
				t.Errorf("Facts = %+v, %v; want confidence %s", fs, err, tc.want)
			}
		})
	}
}

// TestManager_Facts_MalformedFilterTerm: a filter term that is not a
// well-formed RDF term (an IRI with a space, an empty IRI or blank node
// label, a literal that is not UTF-8 or of a malformed language tag) is
// an invalid argument (cortex.ErrInvalidArgument, exit 7), after the team;
// it was an error of no kind, which cortexctl and a server report as
// internal (exit 1): "team t: facts: IRI "a b" contains ' ', which IRIs
// cannot hold".
func TestManager_Facts_MalformedFilterTerm(t *testing.T) {
	f := newFixture(t)
	f.running(t, "t", "a")
	for _, v := range []quad.Value{quad.IRI("a b"), quad.IRI(""), quad.BNode(""), quad.String("\xff"), quad.LangString{Value: "x", Lang: "!!"}} {
		for _, ff := range []teammanager.FactFilter{{Subject: v}, {Predicate: v}} {
			if _, err := f.m.Facts(ctx, "t", ff); !errors.Is(err, cortex.ErrInvalidArgument) {
				t.Errorf("Facts(%#v): %v, want an error matching cortex.ErrInvalidArgument", ff, err)
			}
		}
	}
	if _, err := f.m.Facts(ctx, "nope", teammanager.FactFilter{Subject: quad.IRI("a b")}); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Errorf("Facts of no team with a malformed filter term: %v, want ErrUnknownTeam", err)
	}
}
