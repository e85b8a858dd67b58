package teammanager_test

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestManager_ListTeams_MatchesGetTeam lists teams in every state (pending,
// running, completed, failed, timed out; with and without description and
// timeout; shared and distinct creation times) from a freshly opened store,
// so that every term is read from the log, and checks each listed team
// against GetTeam: the same fields (ListTeams leaves out members, threshold,
// tie-breaker and last merge), the documented order, and the status filters.
func TestManager_ListTeams_MatchesGetTeam(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 60
	}
	dir := t.TempDir()
	clock := newClock()
	x, err := namespace.New("acme")
	if err != nil {
		t.Fatal(err)
	}
	open := func() (*cortex.Store, *teammanager.Manager) {
		t.Helper()
		s, err := cortex.Open(ctx, dir, cortex.DefaultOptions().WithSyncWrites(false))
		if err != nil {
			t.Fatal(err)
		}
		cfg := teammanager.DefaultConfig().WithClock(clock.Now).WithAutoMerge(false).WithWorkflowTimeout(time.Hour)
		m, err := teammanager.New(ctx, s, x, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return s, m
	}
	s, m := open()
	strategies := merge.Names()
	for i := range n {
		tc := teammanager.TeamConfig{
			Name:     fmt.Sprintf("team %d «ü» \"q\"\n", i%(n/2)), // names repeat
			Strategy: strategies[i%len(strategies)],
			Members:  members("a", "b"),
		}
		if i%5 == 0 {
			tc.Context = fmt.Sprint("goal ", i)
		}
		switch i % 3 {
		case 0:
			tc.Timeout = 90 * time.Second
		case 1:
			tc.Timeout = -1 // none
		}
		team, err := m.CreateTeam(ctx, tc)
		if err != nil {
			t.Fatal(err)
		}
		set := func(agent string, st teammanager.Status) {
			t.Helper()
			if _, err := m.UpdateMemberStatus(ctx, team.ID, agent, st, "r"); err != nil {
				t.Fatalf("team %d: %s %s: %v", i, agent, st, err)
			}
		}
		switch i % 7 {
		case 1, 4:
			set("a", teammanager.Running)
		case 2:
			for _, a := range []string{"a", "b"} {
				set(a, teammanager.Running)
				set(a, teammanager.Completed)
			}
		case 3:
			for _, a := range []string{"a", "b"} {
				set(a, teammanager.Running)
				set(a, teammanager.Failed)
			}
		}
		if i%4 != 0 {
			clock.Advance(time.Second) // else the next team shares the creation time
		}
	}
	clock.Advance(2 * time.Minute) // running teams with a 90 s timeout time out
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, m = open()
	defer s.Close()
	all, err := m.ListTeams(ctx, teammanager.TeamFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != n {
		t.Fatalf("listed %d teams, want %d", len(all), n)
	}
	byStatus := map[teammanager.Status][]teammanager.Team{}
	for i, got := range all {
		want, err := m.GetTeam(ctx, got.ID)
		if err != nil {
			t.Fatalf("team %s: %v", got.ID, err)
		}
		want.Members, want.Threshold, want.TieBreaker, want.LastMerge = nil, 0, "", ""
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("team %d:\n got %+v\nwant %+v", i, got, want)
		}
		if i > 0 {
			prev := all[i-1]
			if c := prev.CreatedAt.Compare(got.CreatedAt); c > 0 || c == 0 && prev.ID >= got.ID {
				t.Fatalf("teams %d and %d out of order: %v %s, %v %s", i-1, i, prev.CreatedAt, prev.ID, got.CreatedAt, got.ID)
			}
		}
		byStatus[got.Status] = append(byStatus[got.Status], got)
	}
	for _, st := range []teammanager.Status{teammanager.Pending, teammanager.Running, teammanager.Completed, teammanager.Failed} {
		t.Run(string(st), func(t *testing.T) {
			got, err := m.ListTeams(ctx, teammanager.TeamFilter{Status: st})
			if err != nil {
				t.Fatal(err)
			}
			if len(byStatus[st]) == 0 {
				t.Fatalf("no %s team in the fixture", st)
			}
			if !reflect.DeepEqual(got, byStatus[st]) {
				t.Fatalf("%d teams, want %d", len(got), len(byStatus[st]))
			}
		})
	}
	var timedOut int
	for _, tm := range byStatus[teammanager.Failed] {
		if tm.FailReason == teammanager.FailTimeout {
			timedOut++
		}
	}
	if timedOut == 0 {
		t.Fatal("no timed-out team in the fixture")
	}
}
