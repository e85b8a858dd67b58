package teammanager_test

import (
	"context"
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
