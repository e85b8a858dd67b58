package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/config"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/server"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestRefusedCalls_MergeNothing: a call refused for its params (a filter
// term that does not parse, an id not given, a setting of the wrong type) runs
// no due merge of its team (here: the team timed out with a completed
// member, and no write has recorded it yet). Before, the server looked the
// team up with GetTeam, which runs such a merge, before it refused the
// call.
func TestRefusedCalls_MergeNothing(t *testing.T) {
	store, _ := timedOutTeam(t)
	ts := serveOn(t, store, server.DefaultOptions())
	for _, c := range []struct {
		method string
		params map[string]any
		want   string
	}{
		{"facts.list", map[string]any{"team": "t1", "subject": "<a b>"}, "params:"},
		{"facts.list", map[string]any{"team": "t1", "predicate": "nope:x"}, "params:"},
		{"facts.list", map[string]any{"team": "t1", "subject": "<urn:s>", "predicate": `"lit`}, "params:"},
		{"teams.task.get", map[string]any{"team": "t1"}, "required"},
		{"teams.task.configure_board", map[string]any{"team": "t1", "lease": "x"}, "lease"},
	} {
		r := ts.call("acme", c.method, c.params)
		if r.Error == nil || !strings.Contains(r.Error.Message, c.want) {
			t.Fatalf("%s %v: %+v, want an error with %q", c.method, c.params, r.Error, c.want)
		}
		// teams.list only reads (ListTeams never merges): the team is as
		// stored.
		var teams []api.Team
		ts.ok("acme", "teams.list", map[string]any{}, &teams)
		if len(teams) != 1 || teams[0].Merged {
			t.Fatalf("after %s %v, refused, the team was merged: %+v", c.method, c.params, teams)
		}
	}
	var tm api.Team
	// The due merge still runs on a call that is not refused.
	ts.ok("acme", "teams.get", map[string]string{"team": "t1"}, &tm)
	if !tm.Merged {
		t.Fatalf("teams.get did not run the due merge: %+v", tm)
	}
}

// timedOutTeam returns a store whose namespace acme holds team t1, timed
// out (its clock an hour back, its timeout a minute) with a member
// completed after a finding and no write that has recorded the timeout: a
// GetTeam would run its due merge.
func timedOutTeam(t *testing.T) (*cortex.Store, *cortex.Namespace) {
	t.Helper()
	ctx := context.Background()
	store := cortextest.NewStore(t)
	n, err := store.Namespace(ctx, "acme", cortex.WithBase(config.Default().NamespaceBase("acme")))
	if err != nil {
		t.Fatal(err)
	}
	x, err := namespace.New("acme", namespace.WithBase(config.Default().NamespaceBase("acme")))
	if err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour)
	m, err := teammanager.New(ctx, store, x, api.ManagerConfig(config.Default(), n, x).WithClock(func() time.Time { return past }))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateTeam(ctx, teammanager.TeamConfig{ID: "t1", Name: "n", Timeout: time.Minute,
		Members: []teammanager.MemberConfig{{AgentID: "a", Role: "r"}, {AgentID: "b", Role: "r"}}}); err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"a", "b"} {
		if _, err := m.UpdateMemberStatus(ctx, "t1", a, teammanager.Running, ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.AddFinding(ctx, "t1", "a", teammanager.Finding{Subject: quad.IRI("urn:s"), Predicate: quad.IRI("urn:p"), Object: quad.String("v")}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.UpdateMemberStatus(ctx, "t1", "a", teammanager.Completed, ""); err != nil {
		t.Fatal(err)
	}
	return store, n
}
