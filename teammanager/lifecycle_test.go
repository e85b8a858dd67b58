package teammanager_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/teammanager"
)

const (
	forming   = teammanager.LifecycleForming
	active    = teammanager.LifecycleActive
	paused    = teammanager.LifecyclePaused
	completed = teammanager.LifecycleCompleted
	disbanded = teammanager.LifecycleDisbanded
)

func TestCanTransition(t *testing.T) {
	all := []teammanager.Lifecycle{forming, active, paused, completed, disbanded}
	allowed := map[[2]teammanager.Lifecycle]bool{
		{forming, active}: true, {forming, completed}: true, {forming, disbanded}: true,
		{active, paused}: true, {active, completed}: true, {active, disbanded}: true,
		{paused, active}: true, {paused, disbanded}: true,
	}
	for _, from := range all {
		for _, to := range all {
			if got, want := teammanager.CanTransition(from, to), allowed[[2]teammanager.Lifecycle{from, to}]; got != want {
				t.Errorf("CanTransition(%s, %s) = %v, want %v", from, to, got, want)
			}
		}
	}
	if teammanager.CanTransition("", active) || teammanager.CanTransition(active, "running") {
		t.Error("CanTransition accepts a state that is not a lifecycle state")
	}
}

func TestParseLifecycle(t *testing.T) {
	for _, s := range []string{"forming", "active", "paused", "completed", "disbanded"} {
		if l, err := teammanager.ParseLifecycle(s); err != nil || string(l) != s {
			t.Errorf("ParseLifecycle(%q) = %q, %v", s, l, err)
		}
	}
	for _, s := range []string{"", "Paused", "running", "pending", "paused "} {
		if _, err := teammanager.ParseLifecycle(s); !errors.Is(err, teammanager.ErrInvalidStatus) {
			t.Errorf("ParseLifecycle(%q) = %v, want ErrInvalidStatus", s, err)
		}
	}
}

// lifecycleOf reads team id's lifecycle three ways — GetTeam, ListTeams and
// SPARQL over the stored triple — and fails unless they agree.
func (f *fixture) lifecycleOf(t *testing.T, id string) teammanager.Lifecycle {
	t.Helper()
	tm, err := f.m.GetTeam(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	list, err := f.m.ListTeams(ctx, teammanager.TeamFilter{Lifecycle: tm.Lifecycle})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, lt := range list {
		found = found || lt.ID == id
		if lt.Lifecycle != tm.Lifecycle {
			t.Fatalf("ListTeams(lifecycle %s) lists %s as %s", tm.Lifecycle, lt.ID, lt.Lifecycle)
		}
	}
	if !found {
		t.Fatalf("ListTeams(lifecycle %s) misses team %s", tm.Lifecycle, id)
	}
	rows, err := selectRows(t, f.m, `SELECT ?l WHERE { GRAPH ?g { ?t cx:team:lifecycle:status ?l } }`,
		sparql.Options{Bindings: map[string]quad.Value{"t": f.ns.Team(id)}})
	if want := fmt.Sprintf("%q", tm.Lifecycle); err != nil || len(rows) != 1 || rows[0] != want {
		t.Fatalf("SPARQL: cx:team:lifecycle:status of %s = %v, %v; want %s", id, rows, err, want)
	}
	return tm.Lifecycle
}

func TestManager_Lifecycle_FollowsStatus(t *testing.T) {
	f := newFixture(t)
	team := f.create(t, teammanager.TeamConfig{ID: "t", Name: "t", Members: members("a", "b")})
	if team.Lifecycle != forming {
		t.Fatalf("new team: lifecycle %q, want forming", team.Lifecycle)
	}
	if l := f.lifecycleOf(t, "t"); l != forming {
		t.Fatalf("created: %s", l)
	}
	f.status(t, "t", "a", teammanager.Running, "")
	if l := f.lifecycleOf(t, "t"); l != active {
		t.Fatalf("a member runs: %s, want active", l)
	}
	f.status(t, "t", "a", teammanager.Completed, "")
	f.status(t, "t", "b", teammanager.Failed, "")
	if l := f.lifecycleOf(t, "t"); l != completed {
		t.Fatalf("finished: %s, want completed", l)
	}
	// A team whose members all fail before starting completes from forming.
	f.create(t, teammanager.TeamConfig{ID: "u", Name: "u", Members: members("a")})
	f.status(t, "u", "a", teammanager.Failed, "")
	if l := f.lifecycleOf(t, "u"); l != completed {
		t.Fatalf("all failed: %s, want completed", l)
	}
}

func TestManager_PauseResume(t *testing.T) {
	f := newFixture(t)
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "t", Members: members("a", "b")})
	f.status(t, "t", "a", teammanager.Running, "")
	finding := teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("o")}
	if _, err := f.m.AddFinding(ctx, "t", "a", finding); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Second)
	tm, err := f.m.PauseTeam(ctx, "t")
	if err != nil || tm.Lifecycle != paused || !tm.PausedAt.Equal(f.clock.Now()) || tm.Status != teammanager.Running {
		t.Fatalf("PauseTeam = %+v, %v", tm, err)
	}
	if l := f.lifecycleOf(t, "t"); l != paused {
		t.Fatalf("after pause: %s", l)
	}
	// Members wait; nothing they try is written.
	before := len(f.graph(t, f.ns.TeamGraph("t")))
	if _, err := f.m.UpdateMemberStatus(ctx, "t", "b", teammanager.Running, ""); !errors.Is(err, teammanager.ErrTeamPaused) {
		t.Fatalf("member update while paused: %v, want ErrTeamPaused", err)
	}
	if _, err := f.m.AddFinding(ctx, "t", "a", finding); !errors.Is(err, teammanager.ErrTeamPaused) {
		t.Fatalf("finding while paused: %v, want ErrTeamPaused", err)
	}
	if _, err := f.m.ImportFindings(ctx, "t", "a", strings.NewReader("<http://example.org/x> <http://example.org/p> \"o\" .\n"), "ntriples"); !errors.Is(err, teammanager.ErrTeamPaused) {
		t.Fatalf("import while paused: %v, want ErrTeamPaused", err)
	}
	if fs, err := f.m.Findings(ctx, "t", teammanager.FindingFilter{Agent: "a"}); err != nil || len(fs) != 1 {
		t.Fatalf("findings while paused: %d, %v; want the 1 from before", len(fs), err)
	}
	if after := len(f.graph(t, f.ns.TeamGraph("t"))); after != before {
		t.Fatalf("refused writes changed the team graph: %d → %d quads", before, after)
	}
	// Reads and merges go on.
	if _, err := f.m.MergeTeamResults(ctx, "t"); err != nil {
		t.Fatalf("merge while paused: %v", err)
	}
	// Moves a paused team does not make.
	if _, err := f.m.PauseTeam(ctx, "t"); !errors.Is(err, teammanager.ErrInvalidTransition) {
		t.Fatalf("pause twice: %v, want ErrInvalidTransition", err)
	}
	f.clock.Advance(time.Minute)
	tm, err = f.m.ResumeTeam(ctx, "t")
	if err != nil || tm.Lifecycle != active || !tm.PausedAt.IsZero() || tm.PausedFor != time.Minute {
		t.Fatalf("ResumeTeam = %+v, %v", tm, err)
	}
	if _, err := f.m.ResumeTeam(ctx, "t"); !errors.Is(err, teammanager.ErrInvalidTransition) {
		t.Fatalf("resume an active team: %v, want ErrInvalidTransition", err)
	}
	f.status(t, "t", "b", teammanager.Running, "")
	if _, err := f.m.AddFinding(ctx, "t", "a", finding); err != nil {
		t.Fatalf("finding after resume: %v", err)
	}
	// Pause and resume are team.status events carrying the lifecycle.
	var seen []string
	for _, ev := range stored(t, f.m) {
		if ev.Type == teammanager.EventTeamStatus && ev.TeamState != nil {
			seen = append(seen, string(ev.TeamState.Lifecycle))
		}
	}
	if got := strings.Join(seen, " "); got != "active paused active" {
		t.Fatalf("team.status events' lifecycles: %q, want \"active paused active\"", got)
	}
}

func TestManager_Pause_Errors(t *testing.T) {
	f := newFixture(t)
	f.create(t, teammanager.TeamConfig{ID: "forming", Name: "t", Members: members("a")})
	f.create(t, teammanager.TeamConfig{ID: "done", Name: "t", Members: members("a")})
	f.status(t, "done", "a", teammanager.Running, "")
	f.status(t, "done", "a", teammanager.Completed, "")
	var le *teammanager.LifecycleError
	if _, err := f.m.PauseTeam(ctx, "forming"); !errors.As(err, &le) || le.From != forming || le.To != paused || !errors.Is(err, teammanager.ErrInvalidTransition) {
		t.Fatalf("pause a forming team: %v", err)
	}
	for name, move := range map[string]func() (teammanager.Team, error){
		"pause":   func() (teammanager.Team, error) { return f.m.PauseTeam(ctx, "done") },
		"resume":  func() (teammanager.Team, error) { return f.m.ResumeTeam(ctx, "done") },
		"disband": func() (teammanager.Team, error) { return f.m.DisbandTeam(ctx, "done") },
	} {
		if _, err := move(); !errors.Is(err, teammanager.ErrTeamFinished) {
			t.Errorf("%s a completed team: %v, want ErrTeamFinished", name, err)
		}
	}
	if _, err := f.m.PauseTeam(ctx, "nope"); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Fatalf("pause an unknown team: %v", err)
	}
}

// TestManager_Pause_StopsTheTimeout: the time a team is paused is added to
// its deadline; a paused team never times out.
func TestManager_Pause_StopsTheTimeout(t *testing.T) {
	f := newFixture(t)
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "t", Members: members("a"), Timeout: time.Minute})
	f.status(t, "t", "a", teammanager.Running, "")
	start := f.clock.Now()
	f.clock.Advance(50 * time.Second)
	if _, err := f.m.PauseTeam(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(100 * time.Second) // far past the minute
	if swept, err := f.m.Sweep(ctx); err != nil || len(swept) != 0 {
		t.Fatalf("Sweep of a paused team: %v, %v", swept, err)
	}
	if tm, err := f.m.GetTeam(ctx, "t"); err != nil || tm.Status != teammanager.Running {
		t.Fatalf("paused team: %+v, %v", tm, err)
	}
	if _, err := f.m.ResumeTeam(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(9 * time.Second)
	if tm, err := f.m.GetTeam(ctx, "t"); err != nil || tm.Status != teammanager.Running {
		t.Fatalf("resumed team before its deadline: %+v, %v", tm, err)
	}
	f.clock.Advance(2 * time.Second)
	swept, err := f.m.Sweep(ctx)
	if err != nil || len(swept) != 1 {
		t.Fatalf("Sweep after the deadline: %v, %v", swept, err)
	}
	tm, err := f.m.GetTeam(ctx, "t")
	if want := start.Add(time.Minute + 100*time.Second); err != nil || tm.Status != teammanager.Failed ||
		tm.FailReason != teammanager.FailTimeout || !tm.CompletedAt.Equal(want) || tm.Lifecycle != completed {
		t.Fatalf("timed out: %+v, %v; want failed by timeout at %s", tm, err, want)
	}
}

func TestManager_Disband(t *testing.T) {
	for _, from := range []teammanager.Lifecycle{forming, active, paused} {
		t.Run(string(from), func(t *testing.T) {
			f := newFixture(t)
			// Two members disagree and complete, c keeps the team going:
			// it has a merge with an open conflict.
			f.create(t, teammanager.TeamConfig{ID: "t", Name: "t", Members: members("a", "b", "c"), Strategy: "conflict-flag"})
			if from != forming {
				for agent, o := range map[string]string{"a": "x", "b": "y"} {
					f.status(t, "t", agent, teammanager.Running, "")
					if _, err := f.m.AddFinding(ctx, "t", agent, teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String(o)}); err != nil {
						t.Fatal(err)
					}
					f.status(t, "t", agent, teammanager.Completed, "")
				}
				if _, err := f.m.MergeTeamResults(ctx, "t"); err != nil {
					t.Fatal(err)
				}
			}
			if from == paused {
				if _, err := f.m.PauseTeam(ctx, "t"); err != nil {
					t.Fatal(err)
				}
			}
			f.clock.Advance(time.Second)
			tm, err := f.m.DisbandTeam(ctx, "t")
			if err != nil || tm.Lifecycle != disbanded || !tm.DisbandedAt.Equal(f.clock.Now()) || !tm.PausedAt.IsZero() {
				t.Fatalf("DisbandTeam = %+v, %v", tm, err)
			}
			if l := f.lifecycleOf(t, "t"); l != disbanded {
				t.Fatalf("after disband: %s", l)
			}
			graphs := fmt.Sprint(len(f.graph(t, f.ns.TeamGraph("t"))), len(f.graph(t, f.ns.MemberGraph("t", "a"))), len(f.graph(t, f.ns.SharedGraph("t"))))
			// Read-only: every write is refused.
			writes := map[string]func() error{
				"member update": func() error { _, err := f.m.UpdateMemberStatus(ctx, "t", "c", teammanager.Running, ""); return err },
				"finding": func() error {
					_, err := f.m.AddFinding(ctx, "t", "c", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("z")})
					return err
				},
				"merge": func() error { _, err := f.m.MergeTeamResults(ctx, "t"); return err },
			}
			if from != forming {
				cs, err := f.m.Conflicts(ctx, "t")
				if err != nil || len(cs) != 1 {
					t.Fatalf("conflicts: %v, %v", cs, err)
				}
				writes["resolve"] = func() error {
					_, err := f.m.ResolveConflict(ctx, "t", cs[0].ID, []quad.Value{quad.String("x")}, "judge")
					return err
				}
			}
			for name, w := range writes {
				if err := w(); !errors.Is(err, teammanager.ErrTeamDisbanded) {
					t.Errorf("%s on a disbanded team: %v, want ErrTeamDisbanded", name, err)
				}
			}
			for name, move := range map[string]func(context.Context, string) (teammanager.Team, error){
				"pause": f.m.PauseTeam, "resume": f.m.ResumeTeam, "disband": f.m.DisbandTeam,
			} {
				if _, err := move(ctx, "t"); !errors.Is(err, teammanager.ErrInvalidTransition) {
					t.Errorf("%s a disbanded team: %v, want ErrInvalidTransition", name, err)
				}
			}
			if got := fmt.Sprint(len(f.graph(t, f.ns.TeamGraph("t"))), len(f.graph(t, f.ns.MemberGraph("t", "a"))), len(f.graph(t, f.ns.SharedGraph("t")))); got != graphs {
				t.Fatalf("refused writes changed the graphs: %s → %s quads", graphs, got)
			}
			if err := f.m.DeleteTeam(ctx, "t"); err != nil {
				t.Fatalf("delete a disbanded team: %v", err)
			}
			if _, err := f.m.GetTeam(ctx, "t"); !errors.Is(err, teammanager.ErrUnknownTeam) {
				t.Fatalf("deleted team: %v", err)
			}
		})
	}
}

// TestManager_Delete_OnlyFinishedOrDisbanded: a forming, active or paused
// team is not deleted, and nothing of it goes.
func TestManager_Delete_OnlyFinishedOrDisbanded(t *testing.T) {
	f := newFixture(t)
	f.create(t, teammanager.TeamConfig{ID: "forming", Name: "t", Members: members("a")})
	f.create(t, teammanager.TeamConfig{ID: "active", Name: "t", Members: members("a")})
	f.status(t, "active", "a", teammanager.Running, "")
	f.create(t, teammanager.TeamConfig{ID: "paused", Name: "t", Members: members("a")})
	f.status(t, "paused", "a", teammanager.Running, "")
	if _, err := f.m.PauseTeam(ctx, "paused"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"forming", "active", "paused"} {
		before := len(f.graph(t, f.ns.TeamGraph(id)))
		if err := f.m.DeleteTeam(ctx, id); !errors.Is(err, teammanager.ErrTeamActive) || !strings.Contains(err.Error(), id) {
			t.Errorf("delete %s team: %v, want ErrTeamActive naming it", id, err)
		}
		if after := len(f.graph(t, f.ns.TeamGraph(id))); after != before || before == 0 {
			t.Errorf("refused delete of %s changed its graph: %d → %d quads", id, before, after)
		}
	}
}

// TestManager_Resume_OnlyPaused: ResumeTeam is the move paused → active.
// A forming team (never paused) is refused with a *LifecycleError and left
// as it was: resuming it used to add the time since year 1 to its pauses,
// which overflowed its deadline so that its next write found it timed out.
func TestManager_Resume_OnlyPaused(t *testing.T) {
	f := newFixture(t)
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "t", Members: members("a", "b"), Timeout: time.Hour})
	before, err := f.m.GetTeam(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	var le *teammanager.LifecycleError
	if _, err := f.m.ResumeTeam(ctx, "t"); !errors.As(err, &le) || le.From != forming || le.To != active {
		t.Fatalf("resume a forming team: %v, want a *LifecycleError forming → active", err)
	}
	after, err := f.m.GetTeam(ctx, "t")
	if err != nil || after.PausedFor != 0 || after.Lifecycle != forming || !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Fatalf("a refused resume changed the team: %+v, %v", after, err)
	}
	f.status(t, "t", "a", teammanager.Running, "")
	f.clock.Advance(time.Minute)
	if tm, err := f.m.UpdateMemberStatus(ctx, "t", "b", teammanager.Running, ""); err != nil || tm.TeamStatus != teammanager.Running {
		t.Fatalf("a write a minute into an hour's timeout: %+v, %v", tm, err)
	}
}

// TestManager_Lifecycle_ReturnsWholeTeam: PauseTeam, ResumeTeam and
// DisbandTeam return the team as GetTeam reads it after the change, members
// in full (role, task, join time, result), not only the status and
// criticality that the write itself reads of them.
func TestManager_Lifecycle_ReturnsWholeTeam(t *testing.T) {
	f := newFixture(t)
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "t", Members: []teammanager.MemberConfig{
		{AgentID: "a", Role: "lead", Task: "plan", Critical: true}, {AgentID: "b", Role: "dev", Task: "code"}}})
	f.status(t, "t", "a", teammanager.Running, "half done")
	for _, tc := range []struct {
		name string
		move func(context.Context, string) (teammanager.Team, error)
	}{
		{"PauseTeam", f.m.PauseTeam},
		{"ResumeTeam", f.m.ResumeTeam},
		{"DisbandTeam", f.m.DisbandTeam},
	} {
		got, err := tc.move(ctx, "t")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want, err := f.m.GetTeam(ctx, "t")
		if err != nil {
			t.Fatal(err)
		}
		if g, w := fmt.Sprintf("%+v", got.Members), fmt.Sprintf("%+v", want.Members); g != w {
			t.Errorf("%s returned the members\n%s\nGetTeam reads\n%s", tc.name, g, w)
		}
	}
}
