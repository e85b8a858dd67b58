package teammanager_test

import (
	"errors"
	"fmt"
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

func TestManager_CreateTeam_Validation(t *testing.T) {
	f := newFixture(t)
	nine := members("a", "b", "c", "d", "e", "f", "g", "h", "i")
	for _, tc := range []struct {
		name string
		tc   teammanager.TeamConfig
		also error
	}{
		{"empty name", teammanager.TeamConfig{Name: " ", Members: members("a")}, nil},
		{"no members", teammanager.TeamConfig{Name: "x"}, nil},
		{"too many", teammanager.TeamConfig{Name: "x", Members: nine}, nil},
		{"duplicate agent", teammanager.TeamConfig{Name: "x", Members: members("a", "a")}, nil},
		{"bad agent id", teammanager.TeamConfig{Name: "x", Members: members("a:b")}, nil},
		{"unknown strategy", teammanager.TeamConfig{Name: "x", Strategy: "coin-flip", Members: members("a")}, merge.ErrUnknownStrategy},
		{"bad id", teammanager.TeamConfig{ID: "a b", Name: "x", Members: members("a")}, nil},
		{"tie-breaker not member", teammanager.TeamConfig{Name: "x", Members: members("a"), TieBreaker: "z"}, nil},
		{"threshold", teammanager.TeamConfig{Name: "x", Members: members("a"), Threshold: 1.5}, nil},
		// Text the store could not export (not valid UTF-8).
		{"name not UTF-8", teammanager.TeamConfig{Name: "x\xff", Members: members("a")}, nil},
		{"context not UTF-8", teammanager.TeamConfig{Name: "x", Context: "\xed\xa0\x80", Members: members("a")}, nil},
		{"role not UTF-8", teammanager.TeamConfig{Name: "x", Members: []teammanager.MemberConfig{{AgentID: "a", Role: "r\xff"}}}, nil},
		{"task not UTF-8", teammanager.TeamConfig{Name: "x", Members: []teammanager.MemberConfig{{AgentID: "a", Task: "t\xff"}}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.m.CreateTeam(ctx, tc.tc)
			if !errors.Is(err, teammanager.ErrInvalidTeam) || tc.also != nil && !errors.Is(err, tc.also) {
				t.Fatalf("err = %v", err)
			}
		})
	}
	if ts, err := f.m.ListTeams(ctx, teammanager.TeamFilter{}); err != nil || len(ts) != 0 {
		t.Fatalf("invalid configs left teams: %v %v", ts, err)
	}
	// A blank name is quoted as given, not as the empty name it trims to
	// ("create team \"\": invalid team config: empty name").
	for name, want := range map[string]string{" ": `create team: invalid team config: name " " is blank`, "": "create team: invalid team config: empty name"} {
		if _, err := f.m.CreateTeam(ctx, teammanager.TeamConfig{Name: name, Members: members("a")}); err == nil || err.Error() != want {
			t.Errorf("name %q: %v, want %s", name, err, want)
		}
	}
}

func TestManager_CreateAndGetTeam(t *testing.T) {
	f := newFixture(t)
	team := f.create(t, teammanager.TeamConfig{
		ID: "review-1", Name: "Code review", Context: "review PR 42", Strategy: merge.NameMajorityWins,
		Members: []teammanager.MemberConfig{
			{AgentID: "bob", Role: "reviewer", Task: "style"},
			{AgentID: "alice", Role: "lead", Task: "correctness", Critical: true},
		},
		Threshold: 0.6, TieBreaker: "alice", Timeout: 90 * time.Second,
	})
	got, err := f.m.GetTeam(ctx, "review-1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "Code review" || got.Context != "review PR 42" || got.Strategy != "majority-wins" ||
		got.Status != teammanager.Pending || got.Timeout != 90*time.Second || got.Threshold != 0.6 ||
		got.TieBreaker != "alice" || !got.CreatedAt.Equal(f.clock.Now()) {
		t.Fatalf("team %+v", got)
	}
	if len(got.Members) != 2 || got.Members[0].AgentID != "alice" || !got.Members[0].Critical ||
		got.Members[0].Role != "lead" || got.Members[1].Task != "style" || got.Members[1].Status != teammanager.Pending {
		t.Fatalf("members %+v", got.Members)
	}
	if team.ID != got.ID {
		t.Fatalf("create returned %q", team.ID)
	}
	if _, err := f.m.CreateTeam(ctx, teammanager.TeamConfig{ID: "review-1", Name: "again", Members: members("a")}); !errors.Is(err, teammanager.ErrTeamExists) {
		t.Fatalf("duplicate id: %v", err)
	}
	if _, err := f.m.GetTeam(ctx, "nope"); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Fatalf("unknown team: %v", err)
	}
	// Generated ids are distinct.
	a := f.create(t, teammanager.TeamConfig{Name: "a", Members: members("x")})
	b := f.create(t, teammanager.TeamConfig{Name: "b", Members: members("x")})
	if a.ID == b.ID || !strings.HasPrefix(a.ID, "t") {
		t.Fatalf("ids %q %q", a.ID, b.ID)
	}
}

// TestManager_StateIsTriples checks that team and member state are plain,
// queryable triples in the team graph.
func TestManager_StateIsTriples(t *testing.T) {
	f := newFixture(t)
	team := f.create(t, teammanager.TeamConfig{ID: "t1", Name: "n", Members: members("a", "b")})
	f.status(t, team.ID, "a", teammanager.Running, "")
	qs, err := f.n.Quads(ctx, cortex.Pattern{Predicate: f.ns.IRI(namespace.MemberStatus), Object: quad.String("running")})
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 || qs[0].Subject != f.ns.Member("t1", "a") || qs[0].Label != f.ns.TeamGraph("t1") {
		t.Fatalf("running members: %v", qs)
	}
	qs, _ = f.n.Quads(ctx, cortex.Pattern{Subject: f.ns.Team("t1"), Predicate: f.ns.IRI(namespace.TeamStatus)})
	if len(qs) != 1 || qs[0].Object != quad.String("running") {
		t.Fatalf("team status triples: %v", qs)
	}
}

func TestManager_Lifecycle(t *testing.T) {
	f := newFixture(t)
	team := f.create(t, teammanager.TeamConfig{Name: "n", Members: members("a", "b", "c")})
	start := f.clock.Now()
	f.clock.Advance(time.Second)
	up := f.status(t, team.ID, "a", teammanager.Running, "")
	if up.TeamStatus != teammanager.Running {
		t.Fatalf("after first start: %s", up.TeamStatus)
	}
	f.clock.Advance(time.Second)
	f.status(t, team.ID, "a", teammanager.Completed, "done")
	f.status(t, team.ID, "b", teammanager.Failed, "crashed")
	if up := f.status(t, team.ID, "c", teammanager.Running, ""); up.TeamStatus != teammanager.Running {
		t.Fatalf("team %s before the last member finished", up.TeamStatus)
	}
	up = f.status(t, team.ID, "c", teammanager.Completed, "ok")
	if up.TeamStatus != teammanager.Completed || up.Merge == nil {
		t.Fatalf("final update %+v", up)
	}
	got, _ := f.m.GetTeam(ctx, team.ID)
	if !got.StartedAt.Equal(start.Add(time.Second)) || !got.CompletedAt.Equal(f.clock.Now()) || got.LastMerge != up.Merge.MergeID {
		t.Fatalf("team %+v", got)
	}
	if done, err := f.m.IsTeamComplete(ctx, team.ID); !done || err != nil {
		t.Fatalf("IsTeamComplete = %v, %v", done, err)
	}
	if _, err := f.m.UpdateMemberStatus(ctx, team.ID, "a", teammanager.Running, ""); !errors.Is(err, teammanager.ErrTeamFinished) {
		t.Fatalf("update after completion: %v", err)
	}
}

func TestManager_UpdateMemberStatus_Errors(t *testing.T) {
	f := newFixture(t)
	team := f.create(t, teammanager.TeamConfig{Name: "n", Members: members("a", "b", "c")})
	f.status(t, team.ID, "a", teammanager.Running, "")
	f.status(t, team.ID, "a", teammanager.Completed, "")
	for _, tc := range []struct {
		name, team, agent string
		status            teammanager.Status
		want              error
	}{
		{"unknown team", "nope", "a", teammanager.Running, teammanager.ErrUnknownTeam},
		{"unknown agent", team.ID, "zed", teammanager.Running, teammanager.ErrUnknownAgent},
		{"completed to running", team.ID, "a", teammanager.Running, teammanager.ErrInvalidTransition},
		{"pending to completed", team.ID, "b", teammanager.Completed, teammanager.ErrInvalidTransition},
		{"pending to pending", team.ID, "b", teammanager.Pending, teammanager.ErrInvalidTransition},
		{"bad status", team.ID, "b", "paused", teammanager.ErrInvalidStatus},
		{"result not UTF-8", team.ID, "b", teammanager.Running, teammanager.ErrInvalidStatus},
	} {
		t.Run(tc.name, func(t *testing.T) {
			result := "x"
			if tc.name == "result not UTF-8" {
				result = "x\xff"
			}
			_, err := f.m.UpdateMemberStatus(ctx, tc.team, tc.agent, tc.status, result)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	var te *teammanager.TransitionError
	_, err := f.m.UpdateMemberStatus(ctx, team.ID, "a", teammanager.Running, "")
	if !errors.As(err, &te) || te.From != teammanager.Completed || te.To != teammanager.Running {
		t.Fatalf("TransitionError: %v", err)
	}
	got, _ := f.m.GetTeam(ctx, team.ID)
	if mb, _ := got.Member("b"); mb.Status != teammanager.Pending || mb.Result != "" {
		t.Fatalf("refused update wrote %+v", mb)
	}
}

func TestManager_TeamFails(t *testing.T) {
	t.Run("all failed", func(t *testing.T) {
		f := newFixture(t)
		team := f.create(t, teammanager.TeamConfig{Name: "n", Members: members("a", "b")})
		f.status(t, team.ID, "a", teammanager.Failed, "")
		up := f.status(t, team.ID, "b", teammanager.Failed, "")
		if up.TeamStatus != teammanager.Failed || up.FailReason != teammanager.FailAllMembers {
			t.Fatalf("%+v", up)
		}
	})
	t.Run("critical member", func(t *testing.T) {
		f := newFixture(t)
		team := f.create(t, teammanager.TeamConfig{Name: "n", Members: []teammanager.MemberConfig{
			{AgentID: "lead", Critical: true}, {AgentID: "helper"},
		}})
		f.status(t, team.ID, "helper", teammanager.Running, "")
		up := f.status(t, team.ID, "lead", teammanager.Failed, "")
		if up.TeamStatus != teammanager.Failed || up.FailReason != teammanager.FailCriticalMember {
			t.Fatalf("%+v", up)
		}
		if _, err := f.m.UpdateMemberStatus(ctx, team.ID, "helper", teammanager.Completed, ""); !errors.Is(err, teammanager.ErrTeamFinished) {
			t.Fatalf("update of a failed team: %v", err)
		}
	})
}

func TestManager_Timeout(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithWorkflowTimeout(10*time.Minute))
	team := f.create(t, teammanager.TeamConfig{Name: "slow", Members: members("a", "b")})
	other := f.create(t, teammanager.TeamConfig{Name: "idle", Members: members("a")})
	f.status(t, team.ID, "a", teammanager.Running, "")
	started := f.clock.Now()
	f.clock.Advance(10*time.Minute - time.Nanosecond)
	if got, _ := f.m.GetTeam(ctx, team.ID); got.Status != teammanager.Running {
		t.Fatalf("before the timeout: %s", got.Status)
	}
	f.clock.Advance(time.Hour)
	// Reads report the failure before anything is written.
	got, _ := f.m.GetTeam(ctx, team.ID)
	if got.Status != teammanager.Failed || got.FailReason != teammanager.FailTimeout || !got.CompletedAt.Equal(started.Add(10*time.Minute)) {
		t.Fatalf("read after timeout: %+v", got)
	}
	failed, _ := f.m.ListTeams(ctx, teammanager.TeamFilter{Status: teammanager.Failed})
	if len(failed) != 1 || failed[0].ID != team.ID {
		t.Fatalf("failed teams %+v", failed)
	}
	qs, _ := f.n.Quads(ctx, cortex.Pattern{Subject: f.ns.Team(team.ID), Predicate: f.ns.IRI(namespace.TeamStatus)})
	if qs[0].Object != quad.String("running") {
		t.Fatalf("a read wrote %v", qs)
	}
	// Sweep records it; pending teams never time out.
	ids, err := f.m.Sweep(ctx)
	if err != nil || len(ids) != 1 || ids[0] != team.ID {
		t.Fatalf("Sweep = %v, %v", ids, err)
	}
	qs, _ = f.n.Quads(ctx, cortex.Pattern{Subject: f.ns.Team(team.ID), Predicate: f.ns.IRI(namespace.TeamStatus)})
	if len(qs) != 1 || qs[0].Object != quad.String("failed") {
		t.Fatalf("after sweep %v", qs)
	}
	if got, _ := f.m.GetTeam(ctx, other.ID); got.Status != teammanager.Pending {
		t.Fatalf("pending team %s", got.Status)
	}
	if _, err := f.m.UpdateMemberStatus(ctx, team.ID, "b", teammanager.Running, ""); !errors.Is(err, teammanager.ErrTeamFinished) {
		t.Fatalf("update after timeout: %v", err)
	}
}

func TestManager_TimeoutRecordedByWrite(t *testing.T) {
	f := newFixture(t)
	team := f.create(t, teammanager.TeamConfig{Name: "n", Members: members("a"), Timeout: time.Minute})
	f.status(t, team.ID, "a", teammanager.Running, "")
	f.clock.Advance(2 * time.Minute)
	_, err := f.m.UpdateMemberStatus(ctx, team.ID, "a", teammanager.Completed, "late")
	if !errors.Is(err, teammanager.ErrTeamFinished) {
		t.Fatalf("late update: %v", err)
	}
	qs, _ := f.n.Quads(ctx, cortex.Pattern{Subject: f.ns.Team(team.ID), Predicate: f.ns.IRI(namespace.TeamError)})
	if len(qs) != 1 || qs[0].Object != quad.String(teammanager.FailTimeout) {
		t.Fatalf("failure not recorded: %v", qs)
	}
	got, _ := f.m.GetTeam(ctx, team.ID)
	if mb, _ := got.Member("a"); mb.Status != teammanager.Running || mb.Result != "" {
		t.Fatalf("late update was applied: %+v", mb)
	}
}

func TestManager_ListTeams(t *testing.T) {
	f := newFixture(t)
	const n = 250 // more than the 200 the reference implementation truncated at
	var want []string
	for i := range n {
		team := f.create(t, teammanager.TeamConfig{Name: fmt.Sprint("team ", i), Members: members("a")})
		want = append(want, team.ID)
		f.clock.Advance(time.Second)
		if i%10 == 0 {
			f.status(t, team.ID, "a", teammanager.Running, "")
		}
	}
	all, err := f.m.ListTeams(ctx, teammanager.TeamFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != n {
		t.Fatalf("listed %d teams, want %d", len(all), n)
	}
	for i, tm := range all {
		if tm.ID != want[i] || tm.Name != fmt.Sprint("team ", i) || tm.Strategy != "additive" {
			t.Fatalf("team %d: %+v (want id %s)", i, tm, want[i])
		}
	}
	running, _ := f.m.ListTeams(ctx, teammanager.TeamFilter{Status: teammanager.Running})
	if len(running) != n/10 {
		t.Fatalf("%d running teams", len(running))
	}
	if _, err := f.m.ListTeams(ctx, teammanager.TeamFilter{Status: "busy"}); !errors.Is(err, teammanager.ErrInvalidStatus) {
		t.Fatalf("bad filter: %v", err)
	}
	// A copy of a team graph in another graph (say, an exported backup
	// imported again) is not a team: the listing does not change.
	var backup []quad.Quad
	for _, q := range f.graph(t, f.ns.TeamGraph(want[1])) {
		q.Label = iri("backup")
		if q.Predicate == f.ns.IRI(namespace.TeamName) {
			q.Object = quad.String("impostor")
		}
		backup = append(backup, q)
	}
	if err := f.n.Apply(ctx, cortex.Delta{Add: backup}); err != nil {
		t.Fatal(err)
	}
	again, err := f.m.ListTeams(ctx, teammanager.TeamFilter{})
	if err != nil || len(again) != n || again[1].ID != want[1] || again[1].Name != "team 1" {
		t.Fatalf("with a copied team graph: %d teams, team 1 %+v, %v", len(again), again[1], err)
	}
}

func TestManager_DeleteTeam(t *testing.T) {
	f := newFixture(t)
	keep := f.create(t, teammanager.TeamConfig{Name: "keep", Members: members("a")})
	team := f.create(t, teammanager.TeamConfig{Name: "gone", Members: members("a", "b")})
	if _, err := f.m.AddFinding(ctx, team.ID, "a", teammanager.Finding{Subject: iri("x"), Predicate: iri("p"), Object: quad.String("v")}); err != nil {
		t.Fatal(err)
	}
	f.status(t, team.ID, "a", teammanager.Running, "")
	f.status(t, team.ID, "a", teammanager.Completed, "")
	f.status(t, team.ID, "b", teammanager.Failed, "")
	if err := f.m.DeleteTeam(ctx, team.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.GetTeam(ctx, team.ID); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Fatalf("deleted team: %v", err)
	}
	gs, _ := f.n.Graphs(ctx)
	if len(gs) != 1 || gs[0].Name != f.ns.TeamGraph(keep.ID) {
		t.Fatalf("graphs left: %v", gs)
	}
	if err := f.m.DeleteTeam(ctx, team.ID); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Fatalf("second delete: %v", err)
	}
}

// TestNew_RecordsTheBase: a Manager over a namespace with its own IRI base
// records that base in the store when it creates the namespace, and a
// Manager with another base over the same namespace is refused (its teams'
// IRIs would not be found).
func TestNew_RecordsTheBase(t *testing.T) {
	s := cortextest.NewStore(t)
	x, err := namespace.New("acme", namespace.WithBase("https://acme.example/kg"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := teammanager.New(ctx, s, x, teammanager.DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	n, err := s.OpenNamespace(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if n.Base() != "https://acme.example/kg" {
		t.Fatalf("recorded base %q, want the Manager's", n.Base())
	}
	other, err := namespace.New("acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := teammanager.New(ctx, s, other, teammanager.DefaultConfig()); !errors.Is(err, cortex.ErrBaseMismatch) {
		t.Fatalf("a Manager with another base: %v, want ErrBaseMismatch", err)
	}
}
