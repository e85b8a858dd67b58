package teammanager_test

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestManager_PeekTeams_WritesNothing: ListTeams of a stale team table
// (here a team renamed by a host's own delta) rebuilds the table, a write
// that a caller that may not write (a read token of the server) must not
// make. PeekTeams lists the same teams, in the same order, for every
// filter, from the quads, and writes nothing: the table stays stale, and
// ListTeams then still rebuilds it.
func TestManager_PeekTeams_WritesNothing(t *testing.T) {
	f := newFixture(t)
	var ids []string
	for i := range 5 {
		ids = append(ids, f.create(t, teammanager.TeamConfig{Name: fmt.Sprint("team ", i), Members: members("a", "b"), Timeout: time.Hour}).ID)
		f.clock.Advance(time.Second)
	}
	f.status(t, ids[1], "a", teammanager.Running, "")
	f.status(t, ids[2], "a", teammanager.Running, "")
	f.status(t, ids[2], "b", teammanager.Running, "")
	f.status(t, ids[2], "a", teammanager.Completed, "")
	f.status(t, ids[2], "b", teammanager.Completed, "")
	f.status(t, ids[3], "a", teammanager.Running, "")
	if _, err := f.m.PauseTeam(ctx, ids[3]); err != nil {
		t.Fatal(err)
	}
	f.status(t, ids[4], "a", teammanager.Running, "")
	f.clock.Advance(2 * time.Hour) // every running team has timed out, unrecorded

	x := f.ns
	qs, err := f.n.Quads(ctx, cortex.Pattern{Subject: x.Team(ids[0]), Predicate: x.IRI(namespace.TeamName), Graph: x.TeamGraph(ids[0]), Scope: cortex.OneGraph})
	if err != nil || len(qs) != 1 {
		t.Fatalf("name of %s: %v, %v", ids[0], qs, err)
	}
	renamed := qs[0]
	renamed.Object = quad.String("renamed by hand")
	if err := f.n.Apply(ctx, cortex.Delta{Remove: qs, Add: []quad.Quad{renamed}}); err != nil {
		t.Fatal(err)
	}
	if current, _ := f.tableCurrent(t); current {
		t.Fatal("table current after a host's delta, want stale")
	}

	var filters []teammanager.TeamFilter
	for _, st := range allStatuses {
		filters = append(filters, teammanager.TeamFilter{Status: st})
	}
	for _, lc := range []teammanager.Lifecycle{teammanager.LifecycleForming, teammanager.LifecycleActive,
		teammanager.LifecyclePaused, teammanager.LifecycleCompleted, teammanager.LifecycleDisbanded} {
		filters = append(filters, teammanager.TeamFilter{Lifecycle: lc}, teammanager.TeamFilter{Status: teammanager.Failed, Lifecycle: lc})
	}
	before := f.n.WriteStats()
	peeked := make([][]teammanager.Team, len(filters))
	for i, tf := range filters {
		if peeked[i], err = f.m.PeekTeams(ctx, tf); err != nil {
			t.Fatalf("PeekTeams(%+v): %v", tf, err)
		}
	}
	if all := peeked[0]; len(all) != 5 || all[0].ID != ids[0] || all[0].Name != "renamed by hand" {
		t.Fatalf("PeekTeams of a stale table: %+v; want 5 teams, %s renamed first", all, ids[0])
	}
	if _, err := f.m.PeekTeams(ctx, teammanager.TeamFilter{Status: "bogus"}); err == nil {
		t.Fatal("PeekTeams of an invalid status: no error")
	}
	if after := f.n.WriteStats(); after.Deltas != before.Deltas || after.Entries != before.Entries || after.LockAcquired != before.LockAcquired {
		t.Fatalf("PeekTeams wrote %d deltas, %d entries, took the write lock %d times",
			after.Deltas-before.Deltas, after.Entries-before.Entries, after.LockAcquired-before.LockAcquired)
	}
	if current, _ := f.tableCurrent(t); current {
		t.Fatal("table current after PeekTeams, want stale (not rebuilt)")
	}

	// ListTeams rebuilds the table, and lists what PeekTeams listed.
	for i, tf := range filters {
		got, err := f.m.ListTeams(ctx, tf)
		if err != nil {
			t.Fatalf("ListTeams(%+v): %v", tf, err)
		}
		if !reflect.DeepEqual(got, peeked[i]) {
			t.Fatalf("filter %+v: PeekTeams listed\n %+v\nListTeams\n %+v", tf, peeked[i], got)
		}
	}
	if current, rows := f.tableCurrent(t); !current || rows != 5 {
		t.Fatalf("after ListTeams: table current %v with %d rows, want current with 5", current, rows)
	}
	if after := f.n.WriteStats(); after.LockAcquired == before.LockAcquired {
		t.Fatal("ListTeams of a stale table did not take the write lock to rebuild it")
	}
	// On a current table, PeekTeams reads it, as ListTeams does.
	for i, tf := range filters {
		if got, err := f.m.PeekTeams(ctx, tf); err != nil || !reflect.DeepEqual(got, peeked[i]) {
			t.Fatalf("PeekTeams(%+v) of a current table: %+v, %v; want %+v", tf, got, err, peeked[i])
		}
	}
}

// TestManager_New_OpenWritesOff: New rebuilds a stale team table and
// retries interrupted merges, writes that a host opening the Manager for a
// caller that may not write (the server, on a read token's first request)
// must not make. With WithOpenWrites(false) New writes nothing and runs no
// strategy: the table stays stale (listings read the quads), the merge
// stays interrupted; a New that may write still does both.
func TestManager_New_OpenWritesOff(t *testing.T) {
	f, st := flakyFixture(t, teammanager.DefaultConfig())
	startTeam(t, f, "crashed")
	f.status(t, "crashed", "a", teammanager.Completed, "")
	crashInMerge(t, func() { f.m.UpdateMemberStatus(ctx, "crashed", "b", teammanager.Completed, "") })
	extra := quad.Quad{Subject: quad.IRI("urn:x"), Predicate: quad.IRI("urn:p"), Object: quad.String("o")}
	if err := f.n.Apply(ctx, cortex.Delta{Add: []quad.Quad{extra}}); err != nil {
		t.Fatal(err)
	}
	if current, _ := f.tableCurrent(t); current {
		t.Fatal("table current after a host's delta, want stale")
	}
	calls, before := st.calls.Load(), f.n.WriteStats()
	m, err := teammanager.New(ctx, f.s, f.ns, f.cfg.WithOpenWrites(false))
	if err != nil {
		t.Fatal(err)
	}
	if after := f.n.WriteStats(); after.Deltas != before.Deltas || after.LockAcquired != before.LockAcquired || st.calls.Load() != calls {
		t.Fatalf("New without open writes wrote %d deltas, took the write lock %d times, ran the strategy %d times",
			after.Deltas-before.Deltas, after.LockAcquired-before.LockAcquired, st.calls.Load()-calls)
	}
	if current, _ := f.tableCurrent(t); current {
		t.Fatal("table current after New without open writes, want stale")
	}
	if got, err := m.PeekTeam(ctx, "crashed"); err != nil || got.MergePending != teammanager.MergeInterrupted {
		t.Fatalf("after New without open writes: %+v, %v; want the merge interrupted", got, err)
	}
	if ts, err := m.PeekTeams(ctx, teammanager.TeamFilter{}); err != nil || len(ts) != 1 || ts[0].ID != "crashed" {
		t.Fatalf("PeekTeams after New without open writes: %+v, %v", ts, err)
	}

	if _, err := teammanager.New(ctx, f.s, f.ns, f.cfg); err != nil {
		t.Fatal(err)
	}
	if current, _ := f.tableCurrent(t); !current {
		t.Fatal("table stale after New, want rebuilt")
	}
	if st.calls.Load() == calls {
		t.Fatal("New did not retry the interrupted merge")
	}
}
