package teammanager_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

// fakeClock is a settable clock for timeouts without sleeping.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock {
	return &fakeClock{t: time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var ctx = context.Background()

type fixture struct {
	s     *cortex.Store
	cfg   teammanager.Config
	m     *teammanager.Manager
	n     *cortex.Namespace
	ns    namespace.NS
	clock *fakeClock
}

func newFixture(t testing.TB, cfg ...teammanager.Config) *fixture {
	t.Helper()
	return newFixtureOn(t, cortextest.NewStore(t), cfg...)
}

// newDurableFixture is newFixture on a store whose commits wait for fsync
// (cortex.DefaultOptions), as a host's are.
func newDurableFixture(t testing.TB, cfg ...teammanager.Config) *fixture {
	t.Helper()
	return newFixtureOn(t, cortextest.NewStore(t, cortex.DefaultOptions()), cfg...)
}

func newFixtureOn(t testing.TB, s *cortex.Store, cfg ...teammanager.Config) *fixture {
	t.Helper()
	clock := newClock()
	c := teammanager.DefaultConfig()
	if len(cfg) > 0 {
		c = cfg[0]
	}
	c = c.WithClock(clock.Now)
	x, err := namespace.New("acme")
	if err != nil {
		t.Fatal(err)
	}
	m, err := teammanager.New(ctx, s, x, c)
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.Namespace(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{s: s, cfg: c, m: m, n: n, ns: x, clock: clock}
}

func (f *fixture) create(t testing.TB, tc teammanager.TeamConfig) teammanager.Team {
	t.Helper()
	team, err := f.m.CreateTeam(ctx, tc)
	if err != nil {
		t.Fatalf("CreateTeam: %v", err)
	}
	return team
}

func (f *fixture) status(t testing.TB, team, agent string, s teammanager.Status, result string) teammanager.MemberUpdate {
	t.Helper()
	tm, err := f.m.UpdateMemberStatus(ctx, team, agent, s, result)
	if err != nil {
		t.Fatalf("UpdateMemberStatus(%s, %s, %s): %v", team, agent, s, err)
	}
	return tm
}

func (f *fixture) graph(t testing.TB, g quad.Value) []quad.Quad {
	t.Helper()
	qs, err := f.n.Quads(ctx, cortex.Pattern{Graph: g, Scope: cortex.OneGraph})
	if err != nil {
		t.Fatal(err)
	}
	return qs
}

func members(ids ...string) []teammanager.MemberConfig {
	var out []teammanager.MemberConfig
	for _, id := range ids {
		out = append(out, teammanager.MemberConfig{AgentID: id, Role: "reviewer"})
	}
	return out
}

func iri(s string) quad.IRI { return quad.IRI("http://example.org/" + s) }

// lastMergeLink returns the team:merge triple of a team.
func (f *fixture) lastMergeLink(t testing.TB, team string) []quad.Quad {
	t.Helper()
	qs, err := f.n.Quads(ctx, cortex.Pattern{Subject: f.ns.Team(team), Predicate: f.ns.IRI(namespace.TeamLastMerge)})
	if err != nil {
		t.Fatal(err)
	}
	return qs
}

// factSets checks the fact-set invariant of a team's merged knowledge and
// returns one line per fact set, sorted: the agents it is attributed to
// (sorted, joined with ","), "|", its facts' objects (sorted, joined with
// ","), then "|c=" and its confidence if not 1, and "|by=" and its
// resolver if any. It fails the test unless every triple of the shared
// graph is in exactly one fact set, every fact set's triple is in the
// shared graph, the fact-set graphs of the team are exactly the described
// ones, each non-empty, each description has one type, confidence, run and
// time and at most one resolver, and every other subject of the provenance
// graph is a merge run.
func (f *fixture) factSets(t testing.TB, team string) []string {
	t.Helper()
	shared := map[quad.Quad]int{}
	for _, q := range f.graph(t, f.ns.SharedGraph(team)) {
		q.Label = nil
		shared[q] = 0
	}
	kind := func(v quad.Value) namespace.Kind {
		iri, _ := v.(quad.IRI)
		r, err := f.ns.Parse(iri)
		if err != nil || r.Team != team {
			return 0
		}
		return r.Kind
	}
	desc := map[quad.Value]map[quad.Value][]quad.Value{}
	for _, q := range f.graph(t, f.ns.ProvenanceGraph(team)) {
		switch kind(q.Subject) {
		case namespace.KindMerge:
		case namespace.KindFactSet:
			if desc[q.Subject] == nil {
				desc[q.Subject] = map[quad.Value][]quad.Value{}
			}
			desc[q.Subject][q.Predicate] = append(desc[q.Subject][q.Predicate], q.Object)
		default:
			t.Errorf("provenance graph: %v is neither a merge run nor a fact set", q)
		}
	}
	graphs, err := f.n.Graphs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range graphs {
		if kind(g.Name) == namespace.KindFactSet && desc[g.Name] == nil {
			t.Errorf("fact set %s (%d quads) is not described", g.Name, g.Quads)
		}
	}
	var out []string
	for set, d := range desc {
		for _, p := range []quad.Value{namespace.RDFType, f.ns.IRI(namespace.FactConfidence), namespace.ProvWasGeneratedBy, namespace.ProvGeneratedAtTime} {
			if len(d[p]) != 1 {
				t.Fatalf("fact set %s: %d values of %s, want 1", set, len(d[p]), p)
			}
		}
		if d[namespace.RDFType][0] != f.ns.IRI(namespace.ClassFactSet) {
			t.Errorf("fact set %s has type %v", set, d[namespace.RDFType])
		}
		var agents, objects []string
		for _, a := range d[namespace.ProvWasAttributedTo] {
			r, err := f.ns.Parse(a.(quad.IRI))
			if err != nil {
				t.Fatal(err)
			}
			agents = append(agents, r.Agent)
		}
		facts := f.graph(t, set)
		if len(facts) == 0 {
			t.Errorf("fact set %s is empty", set)
		}
		for _, fq := range facts {
			fq.Label = nil
			n, ok := shared[fq]
			if !ok {
				t.Errorf("fact set %s holds %v, not in the shared graph", set, fq)
			}
			shared[fq] = n + 1
			objects = append(objects, fmt.Sprint(fq.Object))
		}
		slices.Sort(agents)
		slices.Sort(objects)
		line := strings.Join(agents, ",") + "|" + strings.Join(objects, ",")
		if c, err := namespace.ParseConfidence(d[f.ns.IRI(namespace.FactConfidence)][0]); err != nil || c != 1 {
			line += fmt.Sprintf("|c=%v", c)
		}
		switch by := d[f.ns.IRI(namespace.FactResolvedBy)]; len(by) {
		case 0:
		case 1:
			r, _ := f.ns.Parse(by[0].(quad.IRI))
			line += "|by=" + r.Agent
		default:
			t.Errorf("fact set %s: resolvers %v", set, by)
		}
		out = append(out, line)
	}
	for q, n := range shared {
		if n != 1 {
			t.Errorf("shared fact %v is in %d fact sets, want 1", q, n)
		}
	}
	slices.Sort(out)
	return out
}

// deleteTeam deletes team id, disbanding it first unless it is completed
// (DeleteTeam deletes only completed or disbanded teams).
func (f *fixture) deleteTeam(t testing.TB, id string) {
	t.Helper()
	tm, err := f.m.GetTeam(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if tm.Lifecycle != teammanager.LifecycleCompleted && tm.Lifecycle != teammanager.LifecycleDisbanded {
		if _, err := f.m.DisbandTeam(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.m.DeleteTeam(ctx, id); err != nil {
		t.Fatal(err)
	}
}
