package server_test

import (
	"context"
	"encoding/json"
	"net/http"
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

// TestReadRole_TeamReadsWriteNothing: teams.get, teams.is_complete and
// facts.list of a read-only token ran the due merge of a team (GetTeam's
// retry: here the team timed out with a completed member and no write has
// recorded it yet): they recorded the timeout and wrote the merge, writes
// that the token's role does not allow. A caller that may not write now
// gets the team as it reads (failed, not merged: mergePending "timeout")
// and nothing is written; a write token's teams.get still merges it.
func TestReadRole_TeamReadsWriteNothing(t *testing.T) {
	ctx := context.Background()
	store := cortextest.NewStore(t)
	base := config.Default().NamespaceBase("acme")
	n, err := store.Namespace(ctx, "acme", cortex.WithBase(base))
	if err != nil {
		t.Fatal(err)
	}
	x, err := namespace.New("acme", namespace.WithBase(base))
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
	f := tokenFile(t)
	read, _ := mint(t, f, "acme", server.RoleRead, 0)
	write, _ := mint(t, f, "acme", server.RoleWrite, 0)
	ts := serveOn(t, store, server.DefaultOptions().WithTokens(f))
	call := func(tok, method string, out any) {
		t.Helper()
		params := `{"team":"t1"}`
		if method == "teams.list" {
			params = `{}`
		}
		resp, body := ts.rpcAs("acme", method, params, bearer(tok)...)
		var r rpcResponse
		if resp.StatusCode != http.StatusOK || json.Unmarshal([]byte(body), &r) != nil || r.Error != nil || json.Unmarshal(r.Result, out) != nil {
			t.Fatalf("%s: status %d: %s", method, resp.StatusCode, body)
		}
	}
	var listed []api.Team
	call(read, "teams.list", &listed) // the server opens the namespace's manager
	before := n.WriteStats()

	var tm api.Team
	call(read, "teams.get", &tm)
	if tm.Merged || tm.MergePending != teammanager.MergeTimeout || tm.Status != string(teammanager.Failed) {
		t.Fatalf("teams.get with a read token: %+v; want failed, not merged, mergePending timeout", tm)
	}
	var done api.TeamComplete
	call(read, "teams.is_complete", &done)
	if !done.Complete {
		t.Fatalf("teams.is_complete with a read token: %+v", done)
	}
	var facts []api.Fact
	call(read, "facts.list", &facts)
	if len(facts) != 0 {
		t.Fatalf("facts.list with a read token: %+v; want none (not merged)", facts)
	}
	if after := n.WriteStats(); after.Deltas != before.Deltas || after.LockAcquired != before.LockAcquired {
		t.Fatalf("reads with a read token wrote: %d deltas, %d write locks", after.Deltas-before.Deltas, after.LockAcquired-before.LockAcquired)
	}

	var merged api.Team
	call(write, "teams.get", &merged)
	if !merged.Merged || merged.MergePending != "" {
		t.Fatalf("teams.get with a write token did not merge: %+v", merged)
	}
}
