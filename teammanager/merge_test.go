package teammanager_test

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

func TestManager_Findings(t *testing.T) {
	f := newFixture(t)
	team := f.create(t, teammanager.TeamConfig{ID: "t1", Name: "n", Members: members("a", "b")})
	id, err := f.m.AddFinding(ctx, "t1", "a", teammanager.Finding{Subject: iri("x"), Predicate: iri("p"), Object: quad.String("v"), Confidence: 0.75})
	if err != nil {
		t.Fatal(err)
	}
	// The plain triple and its description are in a's graph.
	g := f.ns.MemberGraph("t1", "a")
	qs := f.graph(t, g)
	if len(qs) != 8 {
		t.Fatalf("member graph has %d quads: %v", len(qs), qs)
	}
	plain, _ := f.n.Quads(ctx, cortex.Pattern{Subject: iri("x"), Predicate: iri("p"), Graph: g, Scope: cortex.OneGraph})
	if len(plain) != 1 {
		t.Fatalf("plain triple missing")
	}
	by, _ := f.n.Quads(ctx, cortex.Pattern{Subject: f.ns.Finding("t1", id), Predicate: f.ns.IRI(namespace.FindingAssertedBy)})
	if len(by) != 1 || by[0].Object != f.ns.Member("t1", "a") {
		t.Fatalf("assertedBy %v", by)
	}
	n, err := f.m.ImportFindings(ctx, "t1", "b", strings.NewReader("@prefix ex: <http://example.org/> .\nex:x ex:p \"w\" ; ex:q ex:y .\n"), "turtle")
	if err != nil || n != 2 {
		t.Fatalf("ImportFindings = %d, %v", n, err)
	}
	all, err := f.m.Findings(ctx, "t1", teammanager.FindingFilter{})
	if err != nil || len(all) != 3 {
		t.Fatalf("Findings = %v, %v", all, err)
	}
	if all[0].ID != id || all[0].Agent != "a" || all[0].Confidence != 0.75 || !all[0].AssertedAt.Equal(f.clock.Now()) {
		t.Fatalf("first finding %+v", all[0])
	}
	onlyP, _ := f.m.Findings(ctx, "t1", teammanager.FindingFilter{Predicate: iri("p")})
	onlyB, _ := f.m.Findings(ctx, "t1", teammanager.FindingFilter{Agent: "b"})
	if len(onlyP) != 2 || len(onlyB) != 2 {
		t.Fatalf("filters: %d by predicate, %d by agent", len(onlyP), len(onlyB))
	}
	_ = team
	ok := teammanager.Finding{Subject: iri("x"), Predicate: iri("p"), Object: quad.String("v")}
	f.status(t, "t1", "a", teammanager.Running, "")
	f.status(t, "t1", "a", teammanager.Completed, "")
	for _, tc := range []struct {
		name, team, agent string
		f                 teammanager.Finding
		want              error
	}{
		{"unknown team", "nope", "a", ok, teammanager.ErrUnknownTeam},
		{"not a member", "t1", "zed", ok, teammanager.ErrUnknownAgent},
		{"member finished", "t1", "a", ok, teammanager.ErrMemberFinished},
		{"literal subject", "t1", "b", teammanager.Finding{Subject: quad.String("x"), Predicate: iri("p"), Object: iri("o")}, teammanager.ErrInvalidFinding},
		{"confidence", "t1", "b", teammanager.Finding{Subject: iri("x"), Predicate: iri("p"), Object: iri("o"), Confidence: 2}, teammanager.ErrInvalidFinding},
		{"finding node subject", "t1", "b", teammanager.Finding{Subject: f.ns.Finding("t1", "fx"), Predicate: iri("p"), Object: iri("o")}, teammanager.ErrInvalidFinding},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := f.m.AddFinding(ctx, tc.team, tc.agent, tc.f); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

// codeReview sets up three reviewers who agree on one topic and disagree on
// another, and completes the team.
func codeReview(t *testing.T, f *fixture, strategy string) teammanager.Team {
	t.Helper()
	team := f.create(t, teammanager.TeamConfig{ID: "cr", Name: "review", Strategy: strategy, Members: members("ann", "bob", "cy")})
	say := func(agent, s, p string, o quad.Value) {
		t.Helper()
		if _, err := f.m.AddFinding(ctx, "cr", agent, teammanager.Finding{Subject: iri(s), Predicate: iri(p), Object: o}); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(time.Second)
	}
	for _, a := range []string{"ann", "bob", "cy"} {
		f.status(t, "cr", a, teammanager.Running, "")
		say(a, "main.go", "license", quad.String("MIT"))
	}
	say("ann", "main.go", "severity", quad.String("high"))
	say("bob", "main.go", "severity", quad.String("low"))
	say("cy", "main.go", "severity", quad.String("high"))
	for _, a := range []string{"ann", "bob", "cy"} { // cy completes last
		f.status(t, "cr", a, teammanager.Completed, "")
		f.clock.Advance(time.Second)
	}
	return team
}

func TestManager_Merge_ConflictFlagAndResolve(t *testing.T) {
	f := newFixture(t)
	codeReview(t, f, merge.NameConflictFlag)
	shared := f.graph(t, f.ns.SharedGraph("cr"))
	if len(shared) != 1 || shared[0].Object != quad.String("MIT") {
		t.Fatalf("shared graph %v", shared)
	}
	cs, err := f.m.Conflicts(ctx, "cr")
	if err != nil || len(cs) != 1 {
		t.Fatalf("Conflicts = %v, %v", cs, err)
	}
	c := cs[0]
	if c.Subject != iri("main.go") || c.Predicate != iri("severity") || c.Resolved || len(c.Candidates) != 2 ||
		strings.Join(c.Candidates[0].Agents, ",") != "ann,cy" || c.Candidates[1].Object != quad.String("low") {
		t.Fatalf("conflict %+v", c)
	}
	// Provenance of the kept fact.
	team, _ := f.m.GetTeam(ctx, "cr")
	if sets := f.factSets(t, "cr"); strings.Join(sets, " ") != `ann,bob,cy|"MIT"` {
		t.Fatalf("fact sets %q", sets)
	}
	// Merging again changes nothing.
	rep, err := f.m.MergeTeamResults(ctx, "cr")
	if err != nil || !rep.Unchanged || rep.MergeID != team.LastMerge {
		t.Fatalf("re-merge %+v, %v", rep, err)
	}
	// Resolve.
	if _, err := f.m.ResolveConflict(ctx, "cr", "nope", []quad.Value{quad.String("high")}, "lead"); !errors.Is(err, teammanager.ErrUnknownConflict) {
		t.Fatalf("unknown conflict: %v", err)
	}
	rep, err = f.m.ResolveConflict(ctx, "cr", c.ID, []quad.Value{quad.String("high")}, "lead")
	if err != nil || rep.Kept != 2 || rep.Report.Conflicts != 0 {
		t.Fatalf("resolve: %+v, %v", rep, err)
	}
	if _, err := f.m.ResolveConflict(ctx, "cr", c.ID, []quad.Value{quad.String("low")}, "lead"); !errors.Is(err, teammanager.ErrAlreadyResolved) {
		t.Fatalf("second resolve: %v", err)
	}
	shared = f.graph(t, f.ns.SharedGraph("cr"))
	if len(shared) != 2 {
		t.Fatalf("shared after resolve %v", shared)
	}
	by, _ := f.n.Quads(ctx, cortex.Pattern{Predicate: f.ns.IRI(namespace.FactResolvedBy), Graph: f.ns.ProvenanceGraph("cr"), Scope: cortex.OneGraph})
	if len(by) != 1 || by[0].Object != f.ns.Agent("lead") {
		t.Fatalf("resolved-by provenance %v", by)
	}
	// The resolved fact has a fact set of its own: attributed to those who
	// asserted it, resolved by lead.
	if sets := f.factSets(t, "cr"); strings.Join(sets, " ") != `ann,bob,cy|"MIT" ann,cy|"high"|by=lead` {
		t.Fatalf("fact sets after resolve %q", sets)
	}
	// Re-merging keeps the resolution.
	rep, err = f.m.MergeTeamResults(ctx, "cr")
	if err != nil || !rep.Unchanged || rep.Kept != 2 {
		t.Fatalf("re-merge after resolve %+v, %v", rep, err)
	}
	cs, _ = f.m.Conflicts(ctx, "cr")
	if len(cs) != 1 || !cs[0].Resolved || cs[0].ResolvedBy != "lead" || len(cs[0].Chosen) != 1 {
		t.Fatalf("resolved conflict %+v", cs)
	}
}

func TestManager_Merge_Strategies(t *testing.T) {
	for _, tc := range []struct {
		strategy  string
		kept      int
		conflicts int
		severity  []string
		sets      string // fact sets: agents|objects, see fixture.factSets
	}{
		{merge.NameAdditive, 3, 0, []string{"high", "low"}, `ann,bob,cy|"MIT" ann,cy|"high" bob|"low"`},
		{merge.NameMajorityWins, 2, 0, []string{"high"}, `ann,bob,cy|"MIT" ann,cy|"high"`},
		{merge.NameNewestWins, 2, 0, []string{"high"}, `ann,bob,cy|"MIT" ann,cy|"high"`},
		{merge.NameReplace, 2, 0, []string{"high"}, `ann,bob,cy|"MIT" ann,cy|"high"`},
		{merge.NameConflictFlag, 1, 1, nil, `ann,bob,cy|"MIT"`},
		// confidence-weighted: "high" has 2 of the 3 speakers' full-confidence votes.
		{merge.NameConfidenceWeighted, 2, 0, []string{"high"}, `ann,bob,cy|"MIT" ann,cy|"high"|c=0.67`},
	} {
		t.Run(tc.strategy, func(t *testing.T) {
			f := newFixture(t)
			codeReview(t, f, tc.strategy)
			team, _ := f.m.GetTeam(ctx, "cr")
			rep, err := f.m.MergeTeamResults(ctx, "cr")
			if err != nil || !rep.Unchanged || rep.MergeID != team.LastMerge {
				t.Fatalf("merge %+v, %v", rep, err)
			}
			if rep.Kept != tc.kept || rep.Report.Conflicts != tc.conflicts || len(rep.Members) != 3 {
				t.Fatalf("report %+v", rep.Report)
			}
			var sev []string
			for _, q := range f.graph(t, f.ns.SharedGraph("cr")) {
				if q.Predicate == iri("severity") {
					sev = append(sev, string(q.Object.(quad.String)))
				}
			}
			if strings.Join(sev, ",") != strings.Join(tc.severity, ",") {
				t.Fatalf("severity facts %v, want %v", sev, tc.severity)
			}
			if sets := f.factSets(t, "cr"); strings.Join(sets, " ") != tc.sets {
				t.Fatalf("fact sets %q, want %q", sets, tc.sets)
			}
		})
	}
}

func TestManager_Merge_OnlyCompletedMembers(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a", "b")})
	for _, a := range []string{"a", "b"} {
		f.status(t, "t", a, teammanager.Running, "")
		if _, err := f.m.AddFinding(ctx, "t", a, teammanager.Finding{Subject: iri(a), Predicate: iri("p"), Object: quad.String("v")}); err != nil {
			t.Fatal(err)
		}
	}
	f.status(t, "t", "a", teammanager.Completed, "")
	if g := f.graph(t, f.ns.SharedGraph("t")); len(g) != 0 {
		t.Fatalf("merged without auto-merge: %v", g)
	}
	rep, err := f.m.MergeTeamResults(ctx, "t")
	if err != nil || rep.Kept != 1 || rep.Facts[0].Subject != iri("a") {
		t.Fatalf("manual merge of a running team: %+v, %v", rep, err)
	}
}

// TestManager_Merge_LargeIsAtomic runs a merge too large for one transaction,
// then a re-merge with another result, while readers count the shared and
// provenance graphs in one snapshot: every reader sees no merge, the first
// or the second, never a mix.
func TestManager_Merge_LargeIsAtomic(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	f.create(t, teammanager.TeamConfig{ID: "big", Name: "big", Strategy: "additive", Members: members("a", "b", "c")})
	// The first merge (a, b) writes 2 facts per topic, the second (a, b, c)
	// moves half of a's facts to the sets {a, c} and adds a third object to
	// the other half: both are deltas larger than one transaction.
	perAgent := 3000
	if testing.Short() {
		perAgent = 2100 // -race
	}
	for i, agent := range []string{"a", "b", "c"} {
		f.status(t, "big", agent, teammanager.Running, "")
		var sb strings.Builder
		for k := range perAgent {
			o := (k + i) % 3
			if agent == "c" && k%2 == 0 {
				o = k % 3 // a's object
			}
			fmt.Fprintf(&sb, "<http://example.org/s%d> <http://example.org/p> \"o%d\" .\n", k, o)
		}
		if n, err := f.m.ImportFindings(ctx, "big", agent, strings.NewReader(sb.String()), "ntriples"); err != nil || n != perAgent {
			t.Fatalf("import: %d, %v", n, err)
		}
	}
	f.status(t, "big", "a", teammanager.Completed, "")
	f.status(t, "big", "b", teammanager.Completed, "")

	shared, prov := f.ns.SharedGraph("big"), f.ns.ProvenanceGraph("big")
	counts := func() (s, p int64, err error) {
		res, err := f.n.Query(ctx, "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g", sparql.Options{})
		if err != nil {
			return 0, 0, err
		}
		defer res.Close()
		for res.Next(ctx) {
			row := res.Row()
			n, _ := strconv.ParseInt(fmt.Sprint(quad.NativeOf(row[1])), 10, 64)
			switch g, _ := row[0].(quad.IRI); {
			case g == shared:
				s = n
			case g == prov:
				p += n
			default:
				if r, err := f.ns.Parse(g); err == nil && r.Kind == namespace.KindFactSet {
					p += n // fact sets are provenance
				}
			}
		}
		return s, p, res.Err()
	}
	type pair struct{ s, p int64 }
	seen := map[pair]bool{}
	var mu sync.Mutex
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			s, p, err := counts()
			if err != nil {
				done <- err
				return
			}
			mu.Lock()
			seen[pair{s, p}] = true
			mu.Unlock()
		}
	}()
	merge := func() pair {
		t.Helper()
		rep, err := f.m.MergeTeamResults(ctx, "big")
		if err != nil || rep.Unchanged {
			close(stop)
			<-done
			t.Fatalf("merge: %v %+v", err, rep)
		}
		s, p, err := counts()
		if err != nil || s != int64(len(rep.Facts)) {
			t.Fatalf("shared graph has %d triples, report %d facts (%v)", s, len(rep.Facts), err)
		}
		return pair{s, p}
	}
	first := merge()
	f.status(t, "big", "c", teammanager.Completed, "")
	second := merge()
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The second merge moves perAgent/2 facts between sets (one removal and
	// one addition each) and adds perAgent/2 facts (two quads each).
	if first.s+first.p <= cortex.MaxDeltaQuads || 2*perAgent <= cortex.MaxDeltaQuads || first == second {
		t.Fatalf("merges %v and %v: the test needs two different merges larger than one transaction", first, second)
	}
	f.factSets(t, "big")
	for ps := range seen {
		if ps != (pair{}) && ps != first && ps != second {
			t.Errorf("a reader saw %d shared triples and %d provenance quads: a partial merge (merges: %v, %v)", ps.s, ps.p, first, second)
		}
	}
	if len(seen) < 2 {
		t.Logf("readers saw only %v", seen)
	}
	// Deleting the team (far more than one transaction) leaves nothing of it.
	if err := f.m.DeleteTeam(ctx, "big"); err != nil {
		t.Fatal(err)
	}
	if s, p, err := counts(); err != nil || s != 0 || p != 0 {
		t.Fatalf("after DeleteTeam: %d shared, %d provenance quads (%v)", s, p, err)
	}
	if n, err := f.n.Size(ctx); err != nil || n != 0 {
		t.Fatalf("after DeleteTeam the namespace holds %d quads (%v)", n, err)
	}
	if _, err := f.m.GetTeam(ctx, "big"); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Fatalf("GetTeam after delete: %v", err)
	}
}

// TestManager_Merge_FactSetsFollowAttribution checks the provenance layout
// across re-merges: a fact's set is keyed by its supporters, confidence and
// resolver, so a fact whose attribution did not change stays in the same
// set graph, a changed one moves, emptied sets disappear with their
// description, and every set points to the last run. It also asks for a
// fact's provenance in SPARQL.
func TestManager_Merge_FactSetsFollowAttribution(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Strategy: merge.NameAdditive, Members: members("a", "b")})
	add := func(agent, s, o string, c float64) {
		t.Helper()
		if _, err := f.m.AddFinding(ctx, "t", agent, teammanager.Finding{Subject: iri(s), Predicate: iri("p"), Object: quad.String(o), Confidence: c}); err != nil {
			t.Fatal(err)
		}
	}
	f.status(t, "t", "a", teammanager.Running, "")
	f.status(t, "t", "b", teammanager.Running, "")
	add("a", "s1", "x", 0.5)
	add("a", "s2", "y", 0.9)
	add("a", "s4", "w", 0.9)
	add("b", "s1", "x", 0.7)
	add("b", "s3", "z", 0)
	f.status(t, "t", "a", teammanager.Completed, "")
	first, err := f.m.MergeTeamResults(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if sets := f.factSets(t, "t"); strings.Join(sets, " ") != `a|"w","y"|c=0.9 a|"x"|c=0.5` {
		t.Fatalf("after a: fact sets %q", sets)
	}
	setOf := func(o string) quad.Value {
		t.Helper()
		qs, err := f.n.Quads(ctx, cortex.Pattern{Subject: iri("s" + map[string]string{"x": "1", "y": "2", "z": "3", "w": "4"}[o]), Object: quad.String(o)})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			if r, err := f.ns.Parse(q.Label.(quad.IRI)); err == nil && r.Kind == namespace.KindFactSet {
				return q.Label
			}
		}
		t.Fatalf("no fact set holds %s", o)
		return nil
	}
	y1, x1 := setOf("y"), setOf("x")

	f.status(t, "t", "b", teammanager.Completed, "")
	second, err := f.m.MergeTeamResults(ctx, "t")
	if err != nil || second.MergeID == first.MergeID {
		t.Fatalf("second merge %+v, %v", second, err)
	}
	if sets := f.factSets(t, "t"); strings.Join(sets, " ") != `a,b|"x"|c=0.7 a|"w","y"|c=0.9 b|"z"` {
		t.Fatalf("after b: fact sets %q", sets)
	}
	if setOf("y") != y1 {
		t.Errorf("y moved from %v to %v although its attribution did not change", y1, setOf("y"))
	}
	if setOf("x") == x1 {
		t.Errorf("x stayed in %v although b now supports it", x1)
	}
	if g := f.graph(t, x1); len(g) != 0 {
		t.Errorf("the emptied set still holds %v", g)
	}
	// Every set is described once, generated by the last run, with the
	// confidence of its best finding.
	prov := f.ns.ProvenanceGraph("t")
	want := map[string]string{"x": "0.7", "y": "0.9", "z": "1"}
	for o, c := range want {
		g := setOf(o)
		by, _ := f.n.Quads(ctx, cortex.Pattern{Subject: g, Predicate: namespace.ProvWasGeneratedBy, Graph: prov, Scope: cortex.OneGraph})
		if len(by) != 1 || by[0].Object != f.ns.Merge("t", second.MergeID) {
			t.Errorf("set of %s generated by %v, want the second run", o, by)
		}
		conf, _ := f.n.Quads(ctx, cortex.Pattern{Subject: g, Predicate: f.ns.IRI(namespace.FactConfidence), Graph: prov, Scope: cortex.OneGraph})
		if len(conf) != 1 || rdfio.FormatTerm(conf[0].Object) != `"`+c+`"^^<http://www.w3.org/2001/XMLSchema#decimal>` {
			t.Errorf("set of %s: confidence %v, want %s", o, conf, c)
		}
	}
	if qs, _ := f.n.Quads(ctx, cortex.Pattern{Subject: x1, Graph: prov, Scope: cortex.OneGraph}); len(qs) != 0 {
		t.Errorf("the emptied set is still described: %v", qs)
	}
	// Who supports s1 p "x", in SPARQL: the fact's set and its attribution.
	q := fmt.Sprintf(`PREFIX prov: <http://www.w3.org/ns/prov#>
SELECT ?agent WHERE {
  GRAPH ?set { <http://example.org/s1> <http://example.org/p> "x" }
  GRAPH %s { ?set prov:wasAttributedTo ?agent }
} ORDER BY ?agent`, prov)
	res, err := f.n.Query(ctx, q, sparql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	var agents []string
	for res.Next(ctx) {
		agents = append(agents, fmt.Sprint(res.Row()[0]))
	}
	if err := res.Err(); err != nil || strings.Join(agents, " ") != "<"+string(f.ns.Agent("a"))+"> <"+string(f.ns.Agent("b"))+">" {
		t.Fatalf("SPARQL attribution %v, %v", agents, err)
	}
}

// TestManager_Merge_ResolveToNewObject resolves a conflict with an object no
// member asserted (a fact set with no supporter, resolved by the resolver),
// checks that a re-merge removes what the provenance graph should not hold
// (a leftover fact node of the earlier layout, an undescribed fact set), and
// that DeleteTeam then leaves nothing of the team.
func TestManager_Merge_ResolveToNewObject(t *testing.T) {
	f := newFixture(t)
	codeReview(t, f, merge.NameConflictFlag)
	cs, err := f.m.Conflicts(ctx, "cr")
	if err != nil || len(cs) != 1 {
		t.Fatalf("Conflicts = %v, %v", cs, err)
	}
	if _, err := f.m.ResolveConflict(ctx, "cr", cs[0].ID, []quad.Value{quad.String("medium")}, "lead"); err != nil {
		t.Fatal(err)
	}
	if sets := f.factSets(t, "cr"); strings.Join(sets, " ") != `ann,bob,cy|"MIT" |"medium"|by=lead` {
		t.Fatalf("fact sets %q", sets)
	}
	// Leftovers: a fact node of the earlier layout in the provenance graph,
	// and a stray fact set with a description but another attribution.
	prov := f.ns.ProvenanceGraph("cr")
	stray := f.ns.FactSet("cr", "stray")
	junk := []quad.Quad{
		{Subject: quad.IRI(string(f.ns.TeamPrefix("cr")) + "fact:m0-0"), Predicate: namespace.RDFSubject, Object: iri("main.go"), Label: prov},
		{Subject: stray, Predicate: namespace.RDFType, Object: f.ns.IRI(namespace.ClassFactSet), Label: prov},
		{Subject: iri("main.go"), Predicate: iri("license"), Object: quad.String("MIT"), Label: stray},
	}
	if err := f.n.Apply(ctx, cortex.Delta{Add: junk, Remove: f.lastMergeLink(t, "cr")}); err != nil {
		t.Fatal(err)
	}
	if rep, err := f.m.MergeTeamResults(ctx, "cr"); err != nil || rep.Unchanged {
		t.Fatalf("re-merge %+v, %v", rep, err)
	}
	if sets := f.factSets(t, "cr"); strings.Join(sets, " ") != `ann,bob,cy|"MIT" |"medium"|by=lead` {
		t.Fatalf("fact sets after re-merge %q", sets)
	}
	if g := f.graph(t, stray); len(g) != 0 {
		t.Fatalf("stray fact set left: %v", g)
	}
	if err := f.m.DeleteTeam(ctx, "cr"); err != nil {
		t.Fatal(err)
	}
	if n, err := f.n.Size(ctx); err != nil || n != 0 {
		gs, _ := f.n.Graphs(ctx)
		t.Fatalf("after DeleteTeam the namespace holds %d quads (%v): %v", n, err, gs)
	}
}

// TestManager_Merge_TwoManagers runs a merge of one Manager that has read
// the store when another Manager's merge, with another result, is written:
// the first must start again rather than write a diff computed against a
// state that is gone (which would leave facts in two fact sets).
func TestManager_Merge_TwoManagers(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	m2, err := teammanager.New(ctx, f.s, f.ns, f.cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a", "b", "c")})
	for _, a := range []string{"a", "b", "c"} {
		f.status(t, "t", a, teammanager.Running, "")
		for k := range 5 {
			if _, err := f.m.AddFinding(ctx, "t", a, teammanager.Finding{Subject: iri(fmt.Sprint("s", k)), Predicate: iri("p"), Object: quad.String("x")}); err != nil {
				t.Fatal(err)
			}
		}
	}
	f.status(t, "t", "a", teammanager.Completed, "")
	f.status(t, "t", "b", teammanager.Completed, "")

	release, wait := pausedMerge(t, f.m, "t") // a and b: sets {a,b}
	f.status(t, "t", "c", teammanager.Completed, "")
	second, err := m2.MergeTeamResults(ctx, "t") // a, b and c: sets {a,b,c}
	release()
	if err != nil {
		t.Fatal(err)
	}
	first, err := wait()
	if err != nil || !first.Unchanged || first.MergeID != second.MergeID {
		t.Fatalf("first merge %+v, %v; want it redone, unchanged from %s", first, err, second.MergeID)
	}
	if sets := f.factSets(t, "t"); strings.Join(sets, " ") != `a,b,c|"x","x","x","x","x"` {
		t.Fatalf("fact sets %q", sets)
	}
}

// TestManager_Conflicts_ScanPaths lists the same conflicts with candidate
// findings looked up one by one, found by reading the member graphs
// entirely, and found partly so, the read stopping at every key budget from
// 0 to ~9,600 keys in steps of 80 (so also between a finding's object and
// its author): every listing is equal. A member of another team asserting
// triples about this team's finding nodes changes none of them.
func TestManager_Conflicts_ScanPaths(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Strategy: merge.NameConflictFlag, Members: members("a", "b")})
	for i, a := range []string{"a", "b"} {
		f.status(t, "t", a, teammanager.Running, "")
		var sb strings.Builder
		for k := range 40 { // disputed
			fmt.Fprintf(&sb, "<http://example.org/d%d> <http://example.org/p> \"o%d\" .\n", k, i)
		}
		for k := range 600 { // agreed
			fmt.Fprintf(&sb, "<http://example.org/a%d> <http://example.org/p> \"same\" .\n", k)
		}
		if _, err := f.m.ImportFindings(ctx, "t", a, strings.NewReader(sb.String()), "ntriples"); err != nil {
			t.Fatal(err)
		}
		f.status(t, "t", a, teammanager.Completed, "")
	}
	if _, err := f.m.MergeTeamResults(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	list := func(min, budget int) ([]teammanager.Conflict, int) {
		t.Helper()
		found := -1
		defer teammanager.SetFindingScan(min, budget, func(n int) { found = n })()
		cs, err := f.m.Conflicts(ctx, "t")
		if err != nil || len(cs) != 40 {
			t.Fatalf("Conflicts = %d, %v", len(cs), err)
		}
		return cs, found
	}
	oneByOne, found := list(1<<30, 60)
	if found != -1 {
		t.Fatalf("the member graphs were read for %d candidates", found)
	}
	for _, c := range oneByOne {
		if len(c.Candidates) != 2 || len(c.Candidates[0].Agents) != 1 || len(c.Candidates[0].Findings) != 1 {
			t.Fatalf("conflict %+v", c)
		}
	}
	check := func(when string) {
		t.Helper()
		if cs, found := list(1, 1<<20); !reflect.DeepEqual(cs, oneByOne) || found != 80 {
			t.Fatalf("%s: listing through the whole member graphs (%d found) differs:\n%+v\n%+v", when, found, cs, oneByOne)
		}
		partial := 0
		for budget := 0; budget <= 120; budget++ {
			cs, found := list(1, budget)
			if !reflect.DeepEqual(cs, oneByOne) {
				t.Fatalf("%s: budget %d keys per candidate (%d found by the read): listing differs", when, budget, found)
			}
			if found > 0 && found < 80 {
				partial++
			}
		}
		if partial == 0 {
			t.Fatalf("%s: no budget stopped the read part way", when)
		}
	}
	check("as written")

	// Another team's member asserts triples about this team's findings.
	fs, err := f.m.Findings(ctx, "t", teammanager.FindingFilter{Agent: "a"})
	if err != nil {
		t.Fatal(err)
	}
	f.create(t, teammanager.TeamConfig{ID: "evil", Name: "e", Members: members("x")})
	f.status(t, "evil", "x", teammanager.Running, "")
	for _, sf := range fs {
		node := f.ns.Finding("t", sf.ID)
		for _, p := range []quad.Value{namespace.RDFObject, f.ns.IRI(namespace.FindingAssertedBy)} {
			if _, err := f.m.AddFinding(ctx, "evil", "x", teammanager.Finding{Subject: node, Predicate: p, Object: quad.String("forged")}); err != nil {
				t.Fatal(err)
			}
		}
	}
	check("after another team's findings about these findings")
}

// pausedMerge starts a merge of team with m that stops at the merge hook
// (after its reads, before its write) until release is called; wait
// returns its result. Later merges pass the hook.
func pausedMerge(t *testing.T, m *teammanager.Manager, team string) (release func(), wait func() (teammanager.MergeReport, error)) {
	t.Helper()
	hooked, rel := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32 // (not sync.Once: its Do blocks the other callers)
	teammanager.SetMergeHook(func() {
		if calls.Add(1) == 1 {
			close(hooked)
			<-rel
		}
	})
	type result struct {
		rep teammanager.MergeReport
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := m.MergeTeamResults(ctx, team)
		done <- result{rep, err}
	}()
	<-hooked
	t.Cleanup(func() { teammanager.SetMergeHook(nil) })
	return func() { close(rel) }, func() (teammanager.MergeReport, error) {
		r := <-done
		return r.rep, r.err
	}
}

// TestManager_Merge_TeamDeletedMeanwhile deletes the team (with another
// Manager) while a merge is between its reads and its write: the merge
// fails with ErrUnknownTeam and writes nothing.
func TestManager_Merge_TeamDeletedMeanwhile(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	m2, err := teammanager.New(ctx, f.s, f.ns, f.cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a")})
	f.status(t, "t", "a", teammanager.Running, "")
	if _, err := f.m.AddFinding(ctx, "t", "a", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("x")}); err != nil {
		t.Fatal(err)
	}
	f.status(t, "t", "a", teammanager.Completed, "")
	release, wait := pausedMerge(t, f.m, "t")
	if err := m2.DeleteTeam(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	release()
	if _, err := wait(); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Fatalf("merge of a deleted team: %v", err)
	}
	if n, err := f.n.Size(ctx); err != nil || n != 0 {
		gs, _ := f.n.Graphs(ctx)
		t.Fatalf("the namespace holds %d quads (%v): %v", n, err, gs)
	}
}

// TestManager_Merge_ResolvedMeanwhile resolves a conflict (with another
// Manager) while a merge that read the conflict open is between its reads
// and its write, and holds the resolution's own re-merge until that merge
// has written: the merge starts again, and the record keeps its topic and
// candidates with the resolution.
func TestManager_Merge_ResolvedMeanwhile(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	m2, err := teammanager.New(ctx, f.s, f.ns, f.cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Strategy: merge.NameMajorityWins, Members: members("a", "b", "c")})
	for a, o := range map[string]string{"a": "x", "b": "y", "c": "y"} {
		f.status(t, "t", a, teammanager.Running, "")
		if _, err := f.m.AddFinding(ctx, "t", a, teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String(o)}); err != nil {
			t.Fatal(err)
		}
	}
	f.status(t, "t", "a", teammanager.Completed, "")
	f.status(t, "t", "b", teammanager.Completed, "")
	if rep, err := f.m.MergeTeamResults(ctx, "t"); err != nil || rep.Report.Conflicts != 1 {
		t.Fatalf("first merge %+v, %v", rep.Report, err)
	}
	cs, _ := f.m.Conflicts(ctx, "t")
	f.status(t, "t", "c", teammanager.Completed, "") // y now has a majority: no conflict
	// The first merge to reach the hook (f.m's) waits for rel[0], the
	// second (m2's re-merge after its resolution) for rel[1].
	var hooked, rel [2]chan struct{}
	for i := range 2 {
		hooked[i], rel[i] = make(chan struct{}), make(chan struct{})
	}
	var calls atomic.Int32
	teammanager.SetMergeHook(func() {
		if i := calls.Add(1) - 1; i < 2 {
			close(hooked[i])
			<-rel[i]
		}
	})
	defer teammanager.SetMergeHook(nil)
	first := make(chan error, 1)
	go func() { _, err := f.m.MergeTeamResults(ctx, "t"); first <- err }()
	<-hooked[0]
	second := make(chan error, 1)
	go func() {
		_, err := m2.ResolveConflict(ctx, "t", cs[0].ID, []quad.Value{quad.String("x")}, "lead")
		second <- err
	}()
	<-hooked[1] // the resolution is committed; its re-merge waits
	close(rel[0])
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	close(rel[1])
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	cs, err = f.m.Conflicts(ctx, "t")
	if err != nil || len(cs) != 1 || !cs[0].Resolved || cs[0].Subject != iri("s") || cs[0].Predicate != iri("p") || len(cs[0].Candidates) != 2 {
		t.Fatalf("conflict after the race %+v, %v", cs, err)
	}
	if sets := f.factSets(t, "t"); strings.Join(sets, " ") != `a|"x"|by=lead` {
		t.Fatalf("fact sets %q", sets)
	}
}

// TestManager_Merge_RepairsDuplicateLinks merges a team that links two runs
// (as a race of earlier versions could leave), neither of them the current
// result: the merge succeeds and leaves one link, to its own run.
func TestManager_Merge_RepairsDuplicateLinks(t *testing.T) {
	f := newFixture(t)
	codeReview(t, f, merge.NameAdditive)
	team, _ := f.m.GetTeam(ctx, "cr")
	link := func(id string) quad.Quad {
		return quad.Quad{Subject: f.ns.Team("cr"), Predicate: f.ns.IRI(namespace.TeamLastMerge), Object: f.ns.Merge("cr", id), Label: f.ns.TeamGraph("cr")}
	}
	if err := f.n.Apply(ctx, cortex.Delta{Add: []quad.Quad{link("m0"), link("m1")}, Remove: []quad.Quad{link(team.LastMerge)}}); err != nil {
		t.Fatal(err)
	}
	if links := f.lastMergeLink(t, "cr"); len(links) != 2 {
		t.Fatalf("links %v", links)
	}
	if _, err := f.m.MergeTeamResults(ctx, "cr"); err != nil {
		t.Fatal(err)
	}
	if links := f.lastMergeLink(t, "cr"); len(links) != 1 || links[0] != link(team.LastMerge) {
		t.Fatalf("links after the merge %v", links)
	}
}
