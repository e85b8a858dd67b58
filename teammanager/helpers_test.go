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
	m     *teammanager.Manager
	n     *cortex.Namespace
	ns    namespace.NS
	clock *fakeClock
}

func newFixture(t testing.TB, cfg ...teammanager.Config) *fixture {
	t.Helper()
	s := cortextest.NewStore(t)
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
	return &fixture{m: m, n: n, ns: x, clock: clock}
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
// returns, per fact set, the agents it is attributed to, sorted and joined
// with ",", followed by "|" and its facts' objects, sorted and joined with
// ",": every triple of the shared graph is in exactly one fact set, every
// fact set's triple is in the shared graph, and every fact set is non-empty
// and described in the provenance graph.
func (f *fixture) factSets(t testing.TB, team string) []string {
	t.Helper()
	shared := map[quad.Quad]int{}
	for _, q := range f.graph(t, f.ns.SharedGraph(team)) {
		q.Label = nil
		shared[q] = 0
	}
	prov := f.graph(t, f.ns.ProvenanceGraph(team))
	var out []string
	for _, q := range prov {
		if q.Predicate != namespace.RDFType || q.Object != f.ns.IRI(namespace.ClassFactSet) {
			continue
		}
		var agents, objects []string
		for _, d := range prov {
			if d.Subject == q.Subject && d.Predicate == namespace.ProvWasAttributedTo {
				r, err := f.ns.Parse(d.Object.(quad.IRI))
				if err != nil {
					t.Fatal(err)
				}
				agents = append(agents, r.Agent)
			}
		}
		facts := f.graph(t, q.Subject)
		if len(facts) == 0 {
			t.Errorf("fact set %s is empty", q.Subject)
		}
		for _, fq := range facts {
			fq.Label = nil
			n, ok := shared[fq]
			if !ok {
				t.Errorf("fact set %s holds %v, not in the shared graph", q.Subject, fq)
			}
			shared[fq] = n + 1
			objects = append(objects, fmt.Sprint(fq.Object))
		}
		slices.Sort(agents)
		slices.Sort(objects)
		out = append(out, strings.Join(agents, ",")+"|"+strings.Join(objects, ","))
	}
	for q, n := range shared {
		if n != 1 {
			t.Errorf("shared fact %v is in %d fact sets, want 1", q, n)
		}
	}
	slices.Sort(out)
	return out
}
