package teammanager_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/teammanager"
)

// teamDump returns everything the store shows of team: the quads of its
// graphs (as N-Quads lines, sorted) and, through the API, its board,
// plan and mail.
func teamDump(t *testing.T, f *fixture, team string) string {
	t.Helper()
	gs, err := f.n.Graphs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	prefix := string(f.ns.Team(team)) + ":"
	for _, g := range gs {
		if g.Name == nil || !strings.HasPrefix(rdfio.FormatTerm(g.Name), "<"+prefix) {
			continue
		}
		for _, q := range f.graph(t, g.Name) {
			lines = append(lines, rdfio.FormatTerm(q.Subject)+" "+rdfio.FormatTerm(q.Predicate)+" "+rdfio.FormatTerm(q.Object)+" "+rdfio.FormatTerm(q.Label))
		}
	}
	slices.Sort(lines)
	tasks, err := f.m.ListTasks(ctx, team, teammanager.TaskFilter{})
	if err != nil {
		t.Fatal(err)
	}
	plans, err := f.m.PlanRevisions(ctx, team)
	if err != nil {
		t.Fatal(err)
	}
	mail, err := f.m.History(ctx, team, 0)
	if err != nil {
		t.Fatal(err)
	}
	board, err := f.m.Board(ctx, team)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s\ntasks %+v\nplans %+v\nmail %+v\nboard %+v", strings.Join(lines, "\n"), tasks, plans, mail, board)
}

// busyTeam is a board fixture with findings, tasks, a message and an
// approved plan.
func busyTeam(t *testing.T) (*fixture, string) {
	f, team := boardFixture(t)
	f.status(t, team, "a", teammanager.Running, "")
	if _, err := f.m.AddFindings(ctx, team, "a", []teammanager.Finding{{Subject: iri("fr"), Predicate: iri("capital"), Object: iri("paris")}}); err != nil {
		t.Fatal(err)
	}
	for _, o := range []planOp{opDraft, opSubmit, opApprove} {
		if err := o.run(f, team); err != nil {
			t.Fatal(err)
		}
	}
	t1 := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "crawl", Priority: 2})
	mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "index", BlockedBy: []string{t1.ID}})
	if _, err := f.m.SendMessage(ctx, team, "lead", teammanager.OutMessage{Type: teammanager.MsgAskQuestion, To: []string{"a"}, Body: "ready?"}); err != nil {
		t.Fatal(err)
	}
	return f, team
}

// TestSnapshot_Restore: a dry run shows the difference and writes nothing;
// applying it brings the team back exactly (graphs, board, plan, mail).
func TestSnapshot_Restore(t *testing.T) {
	f, team := busyTeam(t)
	want := teamDump(t, f, team)
	s, err := f.m.SnapshotTeam(ctx, team, "before the run")
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != "S1" || s.Note != "before the run" || s.Quads == 0 || s.Rows == 0 || len(s.Graphs) == 0 || s.Lifecycle != teammanager.LifecycleActive {
		t.Fatalf("snapshot %+v", s)
	}
	// Work goes on.
	if _, err := f.m.ClaimTask(ctx, team, "a", "T1"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.SendMessage(ctx, team, "a", teammanager.OutMessage{Type: teammanager.MsgStatus, To: []string{"lead"}, Body: "on it"}); err != nil {
		t.Fatal(err)
	}
	if err := opDraft.run(f, team); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.AddFindings(ctx, team, "a", []teammanager.Finding{{Subject: iri("de"), Predicate: iri("capital"), Object: iri("berlin")}}); err != nil {
		t.Fatal(err)
	}
	changed := teamDump(t, f, team)
	last, _ := f.m.LastEventID(ctx)

	d, err := f.m.RestoreSnapshot(ctx, team, s.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	if d.Applied || d.Empty() || len(d.Add) == 0 || len(d.Remove) == 0 || d.Snapshot.ID != "S1" {
		t.Fatalf("dry run %+v", d)
	}
	tables := map[string]bool{}
	for _, tc := range d.Tables {
		tables[tc.Table] = true
	}
	for _, want := range []string{"tasks", "mail", "plans", "taskboard"} {
		if !tables[want] {
			t.Errorf("dry run does not change table %s: %+v", want, d.Tables)
		}
	}
	if got := teamDump(t, f, team); got != changed {
		t.Fatal("a dry run changed the team")
	}
	if id, _ := f.m.LastEventID(ctx); id != last {
		t.Fatalf("a dry run wrote events %d → %d", last, id)
	}

	d, err = f.m.RestoreSnapshot(ctx, team, s.ID, true)
	if err != nil || !d.Applied {
		t.Fatalf("restore: %+v, %v", d, err)
	}
	if got := teamDump(t, f, team); got != want {
		t.Fatalf("restored team differs:\n%s\nwant\n%s", got, want)
	}
	if evs := collect(t, f.m, last, 1); evs[0].Type != teammanager.EventSnapshotRestored || evs[0].Snapshot == nil || evs[0].Snapshot.ID != "S1" {
		t.Fatalf("event %+v", evs[0])
	}
	if d, err := f.m.RestoreSnapshot(ctx, team, s.ID, false); err != nil || !d.Empty() {
		t.Fatalf("restore after restore: %+v, %v", d, err)
	}
	// The restored board works: T1 is pending again and claimable.
	if task, err := f.m.ClaimTask(ctx, team, "b", "T1"); err != nil || task.Plan == nil || task.Plan.Revision != 1 {
		t.Fatalf("claim after restore: %+v, %v", task, err)
	}
}

// TestSnapshot_SurvivesDeletion: a snapshot outlives its team; restoring
// it recreates the team, listed again.
func TestSnapshot_SurvivesDeletion(t *testing.T) {
	f, team := busyTeam(t)
	want := teamDump(t, f, team)
	s, err := f.m.SnapshotTeam(ctx, team, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.DisbandTeam(ctx, team); err != nil {
		t.Fatal(err)
	}
	f.deleteTeam(t, team)
	if _, err := f.m.GetTeam(ctx, team); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Fatalf("GetTeam after delete = %v", err)
	}
	list, err := f.m.Snapshots(ctx, team)
	if err != nil || len(list) != 1 || list[0].ID != s.ID {
		t.Fatalf("Snapshots after delete = %+v, %v", list, err)
	}
	d, err := f.m.RestoreSnapshot(ctx, team, s.ID, false)
	if err != nil || len(d.Remove) != 0 || len(d.Add) != s.Quads {
		t.Fatalf("dry run of a deleted team: add %d remove %d (snapshot %d quads), %v", len(d.Add), len(d.Remove), s.Quads, err)
	}
	if _, err := f.m.RestoreSnapshot(ctx, team, s.ID, true); err != nil {
		t.Fatal(err)
	}
	if got := teamDump(t, f, team); got != want {
		t.Fatalf("recreated team differs:\n%s\nwant\n%s", got, want)
	}
	teams, err := f.m.ListTeams(ctx, teammanager.TeamFilter{})
	if err != nil || len(teams) != 1 || teams[0].ID != team || teams[0].Lifecycle != teammanager.LifecycleActive {
		t.Fatalf("ListTeams after restore = %+v, %v", teams, err)
	}
}

// TestSnapshot_ListGetDelete table-tests the errors and checks that ids are
// not reused.
func TestSnapshot_ListGetDelete(t *testing.T) {
	f, team := boardFixture(t)
	if _, err := f.m.SnapshotTeam(ctx, "nope", ""); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Fatalf("snapshot of an unknown team = %v", err)
	}
	s1, err := f.m.SnapshotTeam(ctx, team, "one")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.m.DeleteSnapshot(ctx, team, s1.ID); err != nil {
		t.Fatal(err)
	}
	s2, err := f.m.SnapshotTeam(ctx, team, "two")
	if err != nil || s2.ID != "S2" {
		t.Fatalf("second snapshot %+v, %v (ids are not reused)", s2, err)
	}
	got, err := f.m.GetSnapshot(ctx, team, "S2")
	if err != nil || got.Note != "two" || got.Quads != s2.Quads {
		t.Fatalf("GetSnapshot = %+v, %v", got, err)
	}
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"get deleted", func() error { _, err := f.m.GetSnapshot(ctx, team, "S1"); return err }},
		{"get malformed", func() error { _, err := f.m.GetSnapshot(ctx, team, "1"); return err }},
		{"get of another team", func() error { _, err := f.m.GetSnapshot(ctx, "other", "S2"); return err }},
		{"restore unknown", func() error { _, err := f.m.RestoreSnapshot(ctx, team, "S9", true); return err }},
		{"delete twice", func() error { return f.m.DeleteSnapshot(ctx, team, "S1") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, teammanager.ErrUnknownSnapshot) {
				t.Fatalf("= %v, want ErrUnknownSnapshot", err)
			}
		})
	}
	list, err := f.m.Snapshots(ctx, team)
	if err != nil || len(list) != 1 || list[0].ID != "S2" {
		t.Fatalf("Snapshots = %+v, %v", list, err)
	}
}

// TestSnapshot_RestoreUndoesDisband: restoring a snapshot taken before a
// disband makes the team active again, its board working.
func TestSnapshot_RestoreUndoesDisband(t *testing.T) {
	f, team := busyTeam(t)
	s, err := f.m.SnapshotTeam(ctx, team, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.DisbandTeam(ctx, team); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.ClaimTask(ctx, team, "a", "T1"); !errors.Is(err, teammanager.ErrTeamDisbanded) {
		t.Fatalf("claim on a disbanded team = %v", err)
	}
	if _, err := f.m.RestoreSnapshot(ctx, team, s.ID, true); err != nil {
		t.Fatal(err)
	}
	if tm, err := f.m.GetTeam(ctx, team); err != nil || tm.Lifecycle != teammanager.LifecycleActive {
		t.Fatalf("team after restore: %+v, %v", tm, err)
	}
	if _, err := f.m.ClaimTask(ctx, team, "a", "T1"); err != nil {
		t.Fatalf("claim after restore: %v", err)
	}
}

// TestSnapshot_RestoreQueues: a restored board hands out the tasks it
// held, although claims moved its ready queue's head past them since the
// snapshot (the heads are restored with the rows).
func TestSnapshot_RestoreQueues(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{})
	for _, s := range []string{"one", "two"} {
		mustTask(t, f, team, "lead", teammanager.NewTask{Subject: s})
	}
	f.status(t, team, "a", teammanager.Running, "")
	snap, err := f.m.SnapshotTeam(ctx, team, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, agent := range []string{"a", "b"} {
		if _, err := f.m.ClaimNext(ctx, team, agent); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.m.ClaimNext(ctx, team, "c"); !errors.Is(err, teammanager.ErrNoReadyTask) {
		t.Fatalf("third claim: %v, want ErrNoReadyTask", err)
	}
	if _, err := f.m.RestoreSnapshot(ctx, team, snap.ID, true); err != nil {
		t.Fatal(err)
	}
	for _, agent := range []string{"a", "b"} {
		if task, err := f.m.ClaimNext(ctx, team, agent); err != nil {
			t.Fatalf("claim after the restore: %v", err)
		} else if task.Assignee != agent {
			t.Fatalf("claimed %+v", task)
		}
	}
}

// TestSnapshot_IDs_OnlyCanonical: a snapshot id is S and a number in its
// one spelling: "S+1" names no snapshot, so deleting it deletes nothing.
func TestSnapshot_IDs_OnlyCanonical(t *testing.T) {
	f, team := boardFixture(t)
	if _, err := f.m.SnapshotTeam(ctx, team, "one"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"S+1", "S 1", "S1 "} {
		if _, err := f.m.GetSnapshot(ctx, team, id); !errors.Is(err, teammanager.ErrUnknownSnapshot) {
			t.Errorf("GetSnapshot(%q) = %v, want ErrUnknownSnapshot", id, err)
		}
		if err := f.m.DeleteSnapshot(ctx, team, id); !errors.Is(err, teammanager.ErrUnknownSnapshot) {
			t.Errorf("DeleteSnapshot(%q) = %v, want ErrUnknownSnapshot", id, err)
		}
	}
	if list, err := f.m.Snapshots(ctx, team); err != nil || len(list) != 1 {
		t.Fatalf("Snapshots = %+v, %v; want S1 kept", list, err)
	}
}

// TestSnapshot_List_UnknownTeam: Snapshots lists the snapshots of a team
// of the namespace (none: an empty list, with a board or without) and of
// a deleted team; an id that is neither a team nor a team with snapshots
// fails with ErrUnknownTeam (not an *IDError: it is well formed), as a
// deleted team does once its last snapshot is deleted.
func TestSnapshot_List_UnknownTeam(t *testing.T) {
	f, team := boardFixture(t)
	f.create(t, teammanager.TeamConfig{ID: "plain", Name: "plain", Members: members("x"), Timeout: -1})
	f.create(t, teammanager.TeamConfig{ID: "gone", Name: "gone", Members: members("x"), Timeout: -1})
	f.create(t, teammanager.TeamConfig{ID: "bare", Name: "bare", Members: members("x"), Timeout: -1})
	for _, id := range []string{"gone", "bare"} {
		if _, err := f.m.SnapshotTeam(ctx, id, ""); err != nil {
			t.Fatal(err)
		}
		f.deleteTeam(t, id)
	}
	if err := f.m.DeleteSnapshot(ctx, "bare", "S1"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, team string
		want       int   // snapshots listed
		err        error // or this error
	}{
		{"team with a board, no snapshots", team, 0, nil},
		{"team without a board, no snapshots", "plain", 0, nil},
		{"deleted team with a snapshot", "gone", 1, nil},
		{"deleted team without snapshots", "bare", 0, teammanager.ErrUnknownTeam},
		{"never a team", "nope", 0, teammanager.ErrUnknownTeam},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list, err := f.m.Snapshots(ctx, tc.team)
			switch {
			case tc.err == nil && (err != nil || list == nil || len(list) != tc.want):
				t.Fatalf("Snapshots(%q) = %+v, %v; want %d snapshots", tc.team, list, err, tc.want)
			case tc.err != nil && (!errors.Is(err, tc.err) || errors.Is(err, teammanager.ErrInvalidID) || list != nil):
				t.Fatalf("Snapshots(%q) = %+v, %v; want %v", tc.team, list, err, tc.err)
			case tc.err != nil && !strings.Contains(err.Error(), `team "`+tc.team+`": unknown team`):
				t.Fatalf("Snapshots(%q): message %q does not name the team", tc.team, err)
			}
		})
	}
}
