package teammanager_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/cortexgraph/cortex/teammanager"
)

// TestTaskRow_UnpackedRowsStillRead: task rows written before rows were
// packed (one value per field) are read as before by GetTask, ListTasks
// (with and without filters) and the board's writes, and a task's next
// save packs its row.
func TestTaskRow_UnpackedRowsStillRead(t *testing.T) {
	f := newFixture(t)
	team := f.create(t, teammanager.TeamConfig{ID: "rows", Name: "rows", Members: []teammanager.MemberConfig{
		{AgentID: "lead", Role: "lead"}, {AgentID: "m1"}, {AgentID: "m2"}}}).ID
	t1, err := f.m.CreateTask(ctx, team, "lead", teammanager.NewTask{Subject: "3:ab:c 10:", Priority: 7,
		Description: "line one\n12:line two — ünïcode: 0:", Assignee: "m1"})
	if err != nil {
		t.Fatal(err)
	}
	t2, err := f.m.CreateTask(ctx, team, "lead", teammanager.NewTask{Subject: "second", BlockedBy: []string{t1.ID}})
	if err != nil {
		t.Fatal(err)
	}
	before, err := f.m.ListTasks(ctx, team, teammanager.TaskFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{t1.ID, t2.ID} {
		if n, err := teammanager.TaskRowValues(f.m, ctx, team, id); err != nil || n != 1 {
			t.Fatalf("task %s: a row of %d values (%v), want one packed value", id, n, err)
		}
		if err := teammanager.RewriteTaskRowUnpacked(f.m, ctx, team, id); err != nil {
			t.Fatal(err)
		}
		if n, err := teammanager.TaskRowValues(f.m, ctx, team, id); err != nil || n == 1 {
			t.Fatalf("task %s: rewritten row of %d values (%v)", id, n, err)
		}
	}
	after, err := f.m.ListTasks(ctx, team, teammanager.TaskFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(after, before) {
		t.Fatalf("unpacked rows list as\n%+v\nwant\n%+v", after, before)
	}
	got, err := f.m.GetTask(ctx, team, t1.ID)
	if err != nil || !reflect.DeepEqual(got, before[0]) {
		t.Fatalf("GetTask of an unpacked row: %+v, %v; want %+v", got, err, before[0])
	}
	for _, c := range []struct {
		f    teammanager.TaskFilter
		want []string
	}{
		{teammanager.TaskFilter{Assignee: "m1"}, []string{t1.ID}},
		{teammanager.TaskFilter{Status: teammanager.TaskPending}, []string{t1.ID, t2.ID}},
		{teammanager.TaskFilter{Status: teammanager.TaskInProgress}, nil},
	} {
		ts, err := f.m.ListTasks(ctx, team, c.f)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, x := range ts {
			ids = append(ids, x.ID)
		}
		if !reflect.DeepEqual(ids, c.want) {
			t.Errorf("ListTasks(%+v) on unpacked rows: %v, want %v", c.f, ids, c.want)
		}
	}
	// The board's writes read the old rows: claim and complete T1, and
	// T2 (whose row says it is blocked by T1) becomes ready.
	if _, err := f.m.ClaimTask(ctx, team, "m1", t1.ID); err != nil {
		t.Fatal(err)
	}
	if n, err := teammanager.TaskRowValues(f.m, ctx, team, t1.ID); err != nil || n != 1 {
		t.Fatalf("claimed task: a row of %d values (%v), want it packed", n, err)
	}
	if _, err := f.m.CompleteTask(ctx, team, "m1", t1.ID, "done: 4:ok"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.ReviewTask(ctx, team, "lead", t1.ID, true, ""); err != nil {
		t.Fatal(err)
	}
	next, err := f.m.ClaimNext(ctx, team, "m2")
	if err != nil || next.ID != t2.ID {
		t.Fatalf("ClaimNext after the blocker completed: %s, %v; want %s", next.ID, err, t2.ID)
	}
	done, err := f.m.GetTask(ctx, team, t1.ID)
	if err != nil || done.Result != "done: 4:ok" || done.Status != teammanager.TaskCompleted || done.Dependents[0] != t2.ID {
		t.Fatalf("completed task: %+v, %v", done, err)
	}
	if err := teammanager.CheckBoard(f.m, ctx, team); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.GetTask(ctx, team, "T99"); !errors.Is(err, teammanager.ErrUnknownTask) {
		t.Fatalf("unknown task: %v", err)
	}
}
