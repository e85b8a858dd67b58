package teammanager_test

import (
	"sync"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/teammanager"
)

// snapshotRaceTeam makes team "t" of members a and b: a completed with
// finding x, merged, snapshot S1 taken, then b completed with finding y.
// It returns the dump of the team as S1 has it.
func snapshotRaceTeam(t *testing.T, f *fixture) string {
	t.Helper()
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a", "b")})
	f.status(t, "t", "a", teammanager.Running, "")
	if _, err := f.m.AddFinding(ctx, "t", "a", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("x")}); err != nil {
		t.Fatal(err)
	}
	f.status(t, "t", "a", teammanager.Completed, "")
	if _, err := f.m.MergeTeamResults(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.SnapshotTeam(ctx, "t", ""); err != nil {
		t.Fatal(err)
	}
	snap := teamDump(t, f, "t")
	f.status(t, "t", "b", teammanager.Running, "")
	if _, err := f.m.AddFinding(ctx, "t", "b", teammanager.Finding{Subject: iri("s2"), Predicate: iri("p"), Object: quad.String("y")}); err != nil {
		t.Fatal(err)
	}
	f.status(t, "t", "b", teammanager.Completed, "")
	return snap
}

// checkMergedAsRead fails t unless team "t" is what merging its findings
// gives (a merge of it changes nothing) and the store is consistent.
func checkMergedAsRead(t *testing.T, f *fixture) {
	t.Helper()
	if err := f.s.Check(ctx); err != nil {
		t.Fatalf("store check: %v", err)
	}
	facts, err := f.m.Facts(ctx, "t", teammanager.FactFilter{})
	if err != nil {
		t.Fatal(err)
	}
	team, err := f.m.GetTeam(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := f.m.MergeTeamResults(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Unchanged {
		t.Fatalf("the team's merged facts %+v (members %+v) are not the merge of its findings: a merge now gives %+v", facts, team.Members, rep.Facts)
	}
}

// TestSnapshot_RestoreWhileMergePaused: another Manager restores a
// snapshot while a merge is between its reads and its write. The merge
// must not then write the facts it computed from findings the restore
// removed: the team ends as the snapshot has it (merged again or not),
// never with a fact whose finding and member state are gone.
func TestSnapshot_RestoreWhileMergePaused(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	m2, err := teammanager.New(ctx, f.s, f.ns, f.cfg)
	if err != nil {
		t.Fatal(err)
	}
	snap := snapshotRaceTeam(t, f)
	release, wait := pausedMerge(t, f.m, "t")
	if _, err := m2.RestoreSnapshot(ctx, "t", "S1", true); err != nil {
		t.Fatal(err)
	}
	release()
	if _, err := wait(); err != nil {
		t.Fatalf("merge: %v", err)
	}
	checkMergedAsRead(t, f)
	if got := teamDump(t, f, "t"); got != snap {
		t.Fatalf("team after the race:\n%s\nwant it as snapshot S1 has it:\n%s", got, snap)
	}
}

// TestSnapshot_RestoreRacesMerge runs merges of one Manager and restores
// of another over the same namespace at once (run with -race): whatever
// the order, the store stays consistent and the team is the merge of its
// findings.
func TestSnapshot_RestoreRacesMerge(t *testing.T) {
	for range 5 {
		f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
		m2, err := teammanager.New(ctx, f.s, f.ns, f.cfg)
		if err != nil {
			t.Fatal(err)
		}
		snapshotRaceTeam(t, f)
		var wg sync.WaitGroup
		wg.Go(func() {
			if _, err := f.m.MergeTeamResults(ctx, "t"); err != nil {
				t.Errorf("merge: %v", err)
			}
		})
		wg.Go(func() {
			if _, err := m2.RestoreSnapshot(ctx, "t", "S1", true); err != nil {
				t.Errorf("restore: %v", err)
			}
		})
		wg.Wait()
		checkMergedAsRead(t, f)
	}
}
