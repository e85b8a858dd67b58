package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

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
	store, n := timedOutTeam(t)
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

// TestReadRole_TeamsListWritesNothing: teams.list of a read-only token
// rebuilt a stale team table (here a host's delta made it stale), a write
// its role does not allow: ListTeams did, and so did teammanager.New when
// that call was the first of the namespace (the server opens its manager
// then). A caller that may not write now gets the same teams from the
// quads (PeekTeams), the manager it opens is opened without writes
// (WithOpenWrites(false)), and nothing is written; a write token's
// teams.list still rebuilds the table.
func TestReadRole_TeamsListWritesNothing(t *testing.T) {
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
	m, err := teammanager.New(ctx, store, x, api.ManagerConfig(config.Default(), n, x))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"t1", "t2"} {
		if _, err := m.CreateTeam(ctx, teammanager.TeamConfig{ID: id, Name: "n " + id,
			Members: []teammanager.MemberConfig{{AgentID: "a", Role: "r"}}}); err != nil {
			t.Fatal(err)
		}
	}
	f := tokenFile(t)
	read, _ := mint(t, f, "acme", server.RoleRead, 0)
	write, _ := mint(t, f, "acme", server.RoleWrite, 0)
	ts := serveOn(t, store, server.DefaultOptions().WithTokens(f))
	list := func(tok string) []api.Team {
		t.Helper()
		resp, body := ts.rpcAs("acme", "teams.list", `{}`, bearer(tok)...)
		var r rpcResponse
		var out []api.Team
		if resp.StatusCode != http.StatusOK || json.Unmarshal([]byte(body), &r) != nil || r.Error != nil || json.Unmarshal(r.Result, &out) != nil {
			t.Fatalf("teams.list: status %d: %s", resp.StatusCode, body)
		}
		return out
	}
	// A host's own delta makes the team table stale.
	renamed := quad.Quad{Subject: x.Team("t1"), Predicate: x.IRI(namespace.TeamName), Object: quad.String("renamed"), Label: x.TeamGraph("t1")}
	old := renamed
	old.Object = quad.String("n t1")
	rename := func(from, to quad.Quad) {
		t.Helper()
		if err := n.Apply(ctx, cortex.Delta{Remove: []quad.Quad{from}, Add: []quad.Quad{to}}); err != nil {
			t.Fatal(err)
		}
	}
	rename(old, renamed)
	// The server opens the namespace's manager for a read token: that
	// opening writes nothing either (teammanager.New rebuilt the table).
	before := n.WriteStats()
	if got := list(read); len(got) != 2 || got[0].Name != "renamed" {
		t.Fatalf("first teams.list with a read token: %+v", got)
	}
	if after := n.WriteStats(); after.Deltas != before.Deltas || after.LockAcquired != before.LockAcquired {
		t.Fatalf("first teams.list with a read token (the manager's opening) wrote: %d deltas, %d write locks",
			after.Deltas-before.Deltas, after.LockAcquired-before.LockAcquired)
	}
	rename(renamed, old)
	rename(old, renamed) // stale again, with the manager open
	before = n.WriteStats()
	got := list(read)
	if len(got) != 2 || got[0].ID != "t1" || got[0].Name != "renamed" || got[1].ID != "t2" {
		t.Fatalf("teams.list with a read token: %+v; want t1 (renamed), t2", got)
	}
	if after := n.WriteStats(); after.Deltas != before.Deltas || after.Entries != before.Entries || after.LockAcquired != before.LockAcquired {
		t.Fatalf("teams.list with a read token wrote: %d deltas, %d entries, %d write locks",
			after.Deltas-before.Deltas, after.Entries-before.Entries, after.LockAcquired-before.LockAcquired)
	}
	// Twice: the table stayed stale, the second listing reads the quads
	// again.
	if again := list(read); !reflect.DeepEqual(again, got) {
		t.Fatalf("teams.list with a read token, again: %+v; want %+v", again, got)
	}
	if after := n.WriteStats(); after.Deltas != before.Deltas || after.LockAcquired != before.LockAcquired {
		t.Fatalf("teams.list with a read token, again, wrote: %d deltas", after.Deltas-before.Deltas)
	}

	if again := list(write); !reflect.DeepEqual(again, got) {
		t.Fatalf("teams.list with a write token: %+v; want %+v", again, got)
	}
	if after := n.WriteStats(); after.Deltas == before.Deltas {
		t.Fatal("teams.list with a write token did not rebuild the stale team table")
	}
}

// TestReadRole_FirstReaderLeavesMergesToWriters: a server whose first
// request in a namespace came from a read token opened its team manager
// without writes, so the merge a previous process left interrupted
// (a crash leftover, here the marker written as such a process leaves it)
// was retried only by a write to its team or a writer's teams.get of it:
// writers working on other teams left it interrupted. The first request
// of a token that may write now retries it (teammanager.Manager.OpenWrites),
// whatever its method.
func TestReadRole_FirstReaderLeavesMergesToWriters(t *testing.T) {
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
	// A team that completed, whose merge a crash interrupted.
	m, err := teammanager.New(ctx, store, x, api.ManagerConfig(config.Default(), n, x).WithAutoMerge(false))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateTeam(ctx, teammanager.TeamConfig{ID: "t1", Name: "n", Members: []teammanager.MemberConfig{{AgentID: "a", Role: "r"}}}); err != nil {
		t.Fatal(err)
	}
	for _, st := range []teammanager.Status{teammanager.Running, teammanager.Completed} {
		if _, err := m.UpdateMemberStatus(ctx, "t1", "a", st, ""); err != nil {
			t.Fatal(err)
		}
	}
	marker := quad.Quad{Subject: x.Team("t1"), Predicate: x.IRI(namespace.TeamMergePending), Object: namespace.String(teammanager.MergeInterrupted), Label: x.TeamGraph("t1")}
	if err := n.Apply(ctx, cortex.Delta{Add: []quad.Quad{marker}}); err != nil {
		t.Fatal(err)
	}

	f := tokenFile(t)
	read, _ := mint(t, f, "acme", server.RoleRead, 0)
	write, _ := mint(t, f, "acme", server.RoleWrite, 0)
	ts := serveOn(t, store, server.DefaultOptions().WithTokens(f))
	call := func(tok, method, params string, out any) {
		t.Helper()
		resp, body := ts.rpcAs("acme", method, params, bearer(tok)...)
		var r rpcResponse
		if resp.StatusCode != http.StatusOK || json.Unmarshal([]byte(body), &r) != nil || r.Error != nil || json.Unmarshal(r.Result, out) != nil {
			t.Fatalf("%s: status %d: %s", method, resp.StatusCode, body)
		}
	}
	var tm api.Team
	call(read, "teams.get", `{"team":"t1"}`, &tm) // the server opens the namespace's manager
	if tm.Merged || tm.MergePending != teammanager.MergeInterrupted {
		t.Fatalf("teams.get with a read token: %+v; want interrupted, not merged", tm)
	}
	var created api.Team
	call(write, "teams.create", `{"id":"t2","name":"other","members":[{"agent":"b","role":"r"}]}`, &created)
	var after api.Team
	call(read, "teams.get", `{"team":"t1"}`, &after)
	if !after.Merged || after.MergePending != "" {
		t.Fatalf("teams.get with a read token after a writer's first request: %+v; want merged", after)
	}
}
