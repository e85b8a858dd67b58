package teammanager_test

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
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

// TestManager_PinsFollowTeamState checks the pins (cortex.Delta.Pin) the
// manager keeps for listings: after creating, running, finishing, timing
// out, merging and deleting teams, each team's node, graph and name are
// pinned under their current ids (values created earlier by other quads,
// such as statuses or times, may not be), and no pin is left for a freed
// term, also once every team is deleted. A store whose team state was
// written without pins (restored from an export) lists the same teams.
func TestManager_PinsFollowTeamState(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithWorkflowTimeout(time.Hour))
	var ids []string
	for i := range 12 {
		tc := teammanager.TeamConfig{Name: fmt.Sprint("team ", i%5), Members: members("a", "b")}
		if i%3 == 0 {
			tc.Context, tc.Timeout = "goal", time.Minute
		}
		team := f.create(t, tc)
		ids = append(ids, team.ID)
		switch i % 4 {
		case 1:
			f.status(t, team.ID, "a", teammanager.Running, "")
		case 2, 3:
			end := teammanager.Completed
			if i%4 == 3 {
				end = teammanager.Failed
			}
			for _, a := range []string{"a", "b"} {
				f.status(t, team.ID, a, teammanager.Running, "")
				f.clock.Advance(time.Second) // times that other quads share, then free
				if _, err := f.m.AddFinding(ctx, team.ID, a, teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: iri(a)}); err != nil {
					t.Fatal(err)
				}
				nt := fmt.Sprintf("<http://example.org/s%d> <http://example.org/q> %q .\n", i, a)
				if _, err := f.m.ImportFindings(ctx, team.ID, a, strings.NewReader(nt), "ntriples"); err != nil {
					t.Fatal(err)
				}
				f.status(t, team.ID, a, end, "done")
				f.clock.Advance(time.Second)
			}
		}
		f.clock.Advance(time.Second)
	}
	f.clock.Advance(2 * time.Minute)
	if out, err := f.m.Sweep(ctx); err != nil || len(out) != 1 {
		t.Fatalf("Sweep: %v, %v; want one timed-out team", out, err)
	}
	if _, err := f.m.MergeTeamResults(ctx, ids[2]); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids[:3] {
		f.deleteTeam(t, id)
	}

	pins, err := f.n.PinnedTerms(ctx)
	if err != nil {
		t.Fatal(err)
	}
	live, err := f.n.Dataset().IDs(ctx, pins)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range pins {
		if live[i] == 0 {
			t.Errorf("pinned term %s is in no quad", v)
		}
	}
	pinned := map[quad.Value]bool{}
	for _, v := range pins {
		pinned[v] = true
	}
	// Finding nodes are pinned too (for merges and Findings).
	findings := 0
	for _, id := range ids[3:] {
		fs, err := f.m.Findings(ctx, id, teammanager.FindingFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, sf := range fs {
			findings++
			if !pinned[f.ns.Finding(id, sf.ID)] {
				t.Errorf("team %s: finding %s not pinned", id, sf.ID)
			}
		}
	}
	if findings == 0 {
		t.Fatal("no findings left to check")
	}
	listed := map[quad.Value]bool{}
	// Names are created by the team's own writes here (times may have been
	// created by a finding or member update first, and stay unpinned).
	listed[f.ns.IRI(namespace.TeamName)] = true
	want, err := f.m.ListTeams(ctx, teammanager.TeamFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 9 {
		t.Fatalf("%d teams, want 9", len(want))
	}
	fields := 0
	for _, tm := range want {
		node, g := f.ns.Team(tm.ID), f.ns.TeamGraph(tm.ID)
		if !pinned[node] || !pinned[g] {
			t.Errorf("team %s: node or graph not pinned", tm.ID)
		}
		for _, q := range f.graph(t, g) {
			if q.Subject == node && listed[q.Predicate] {
				fields++
				if !pinned[q.Object] {
					t.Errorf("team %s: %s %s not pinned", tm.ID, q.Predicate, q.Object)
				}
			}
		}
	}
	if fields != 9 {
		t.Fatalf("only %d listed fields", fields)
	}

	// Restore the namespace from an export into a fresh store: no pins, the
	// same listing.
	var buf bytes.Buffer
	if _, err := f.n.Export(ctx, &buf, "nquads", cortex.ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	s2 := cortextest.NewStore(t)
	n2, err := s2.Namespace(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n2.ImportRDF(ctx, &buf, cortex.RDFImportOptions{Format: "nquads"}); err != nil {
		t.Fatal(err)
	}
	if pins, err := n2.PinnedTerms(ctx); err != nil || len(pins) != 0 {
		t.Fatalf("restored store: %d pins, %v", len(pins), err)
	}
	m2, err := teammanager.New(ctx, s2, f.ns, teammanager.DefaultConfig().WithClock(f.clock.Now).WithWorkflowTimeout(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	got, err := m2.ListTeams(ctx, teammanager.TeamFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("restored listing differs:\n got %+v\nwant %+v", got, want)
	}

	// Deleting every team frees every term, and every pin with it.
	for _, tm := range want {
		f.deleteTeam(t, tm.ID)
	}
	if size, err := f.n.Size(ctx); err != nil || size != 0 {
		t.Fatalf("%d quads left, %v", size, err)
	}
	if pins, err := f.n.PinnedTerms(ctx); err != nil || len(pins) != 0 {
		t.Fatalf("%d pins left after deleting every team: %v, %v", len(pins), pins, err)
	}
}
