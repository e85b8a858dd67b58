package teammanager_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestSnapshot_Note_ValidUTF8: a snapshot's note that is not valid UTF-8
// is refused and writes nothing (its JSON row would keep another note
// than the one returned); any valid note reads back as given.
func TestSnapshot_Note_ValidUTF8(t *testing.T) {
	f, team := boardFixture(t)
	before, err := f.m.LastEventID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.SnapshotTeam(ctx, team, "a\xffb"); !errors.Is(err, cortex.ErrInvalidArgument) {
		t.Fatalf("SnapshotTeam(invalid UTF-8 note) = %v, want cortex.ErrInvalidArgument", err)
	}
	if after, _ := f.m.LastEventID(ctx); after != before {
		t.Errorf("a refused snapshot recorded events %d..%d", before+1, after)
	}
	if ss, err := f.m.Snapshots(ctx, team); err != nil || len(ss) != 0 {
		t.Fatalf("Snapshots after a refused one = %v, %v; want none", ss, err)
	}
	note := "tab\t nul\x00 ü \u202e /../%2F#"
	s, err := f.m.SnapshotTeam(ctx, team, note)
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != "S1" {
		t.Errorf("first snapshot after a refused one is %s, want S1", s.ID)
	}
	got, err := f.m.GetSnapshot(ctx, team, s.ID)
	if err != nil || got.Note != note {
		t.Fatalf("GetSnapshot note = %q, %v; want %q", got.Note, err, note)
	}
}

// TestTask_Create_EventsInOrder: creating a task blocked by others records
// its task.created event before the task.updated events of its blockers,
// which name it ("blocks T3", Dependents T3): a subscriber never reads of
// a task before its creation.
func TestTask_Create_EventsInOrder(t *testing.T) {
	f, team := boardFixture(t)
	t1 := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "crawl"})
	t2 := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "fetch"})
	before, err := f.m.LastEventID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t3 := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "index", BlockedBy: []string{t1.ID, t2.ID}})
	var got []string
	for _, ev := range stored(t, f.m) {
		if ev.ID > before {
			got = append(got, fmt.Sprintf("%s %s %s", ev.Type, ev.Task.Task.ID, ev.Task.Reason))
		}
	}
	want := []string{
		"task.created " + t3.ID + " ",
		"task.updated " + t1.ID + " blocks " + t3.ID,
		"task.updated " + t2.ID + " blocks " + t3.ID,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events of the creation:\n got %q\nwant %q", got, want)
	}
	for _, id := range []string{t1.ID, t2.ID} {
		bt, err := f.m.GetTask(ctx, team, id)
		if err != nil || !slices.Equal(bt.Dependents, []string{t3.ID}) {
			t.Errorf("task %s: dependents %v, %v; want [%s]", id, bt.Dependents, err, t3.ID)
		}
	}
	if ts, err := f.m.ListTasks(ctx, team, teammanager.TaskFilter{}); err != nil || len(ts) != 3 {
		t.Fatalf("ListTasks = %d tasks, %v", len(ts), err)
	}
	claimAndComplete(t, f, team, "a", t1.ID)
	if _, err := f.m.ClaimTask(ctx, team, "b", t3.ID); !errors.Is(err, teammanager.ErrBlocked) {
		t.Fatalf("claim of %s with %s pending = %v, want ErrBlocked", t3.ID, t2.ID, err)
	}
	claimAndComplete(t, f, team, "a", t2.ID)
	if _, err := f.m.ClaimTask(ctx, team, "b", t3.ID); err != nil {
		t.Fatalf("claim of %s once its blockers completed: %v", t3.ID, err)
	}
}

// TestBoard_Results_DoNotAliasArguments: the Task and Message a call
// returns are the caller's own: changing the slices it passed in
// (NewTask.BlockedBy, OutMessage.Attachments) afterwards, to build the
// next call, does not change them.
func TestBoard_Results_DoNotAliasArguments(t *testing.T) {
	f, team := boardFixture(t)
	t1 := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "crawl"})
	blockers := []string{t1.ID}
	t2 := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "index", BlockedBy: blockers})
	blockers[0] = "T99"
	if !slices.Equal(t2.BlockedBy, []string{t1.ID}) {
		t.Errorf("CreateTask's task: BlockedBy %v after the caller reused its slice, want [%s]", t2.BlockedBy, t1.ID)
	}
	att := []string{"http://example.org/report"}
	msg, err := f.m.SendMessage(ctx, team, "lead", teammanager.OutMessage{Type: teammanager.MsgShareFinding, To: []string{"a"}, Body: "see", Attachments: att})
	if err != nil {
		t.Fatal(err)
	}
	att[0] = "http://example.org/other"
	if !slices.Equal(msg.Attachments, []string{"http://example.org/report"}) {
		t.Errorf("SendMessage's message: Attachments %v after the caller reused its slice", msg.Attachments)
	}
}
