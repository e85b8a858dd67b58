package teammanager_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/teammanager"
)

// TestTask_Lease_OthersCommentKeepsPauseDiscount: the lease of an
// in_progress task does not count the time its team was paused, also once
// a change that is not the assignee's progress (another member's comment)
// has rewritten the task after the pause.
func TestTask_Lease_OthersCommentKeepsPauseDiscount(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{RequireReview: true, Lease: 10 * time.Minute})
	f.status(t, team, "a", teammanager.Running, "")
	task := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "x"})
	if _, err := f.m.ClaimTask(ctx, team, "a", task.ID); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Minute)
	f.pauseFor(t, team, time.Hour)
	if _, err := f.m.AddTaskComment(ctx, team, "b", task.ID, teammanager.CommentNote, "need a hand?"); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(2 * time.Minute)
	sw, err := f.m.SweepTasks(ctx, team)
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.Requeued) != 0 {
		t.Fatalf("requeued %v with 3 of the lease's 10 minutes used (an hour paused, then b commented)", taskIDs(sw.Requeued))
	}
	f.clock.Advance(8 * time.Minute)
	if sw, err = f.m.SweepTasks(ctx, team); err != nil || !slices.Equal(taskIDs(sw.Requeued), []string{task.ID}) {
		t.Fatalf("sweep with 11 minutes of the lease used: requeued %v, %v; want %s", taskIDs(sw.Requeued), err, task.ID)
	}
	if err := teammanager.CheckBoard(f.m, ctx, team); err != nil {
		t.Fatal(err)
	}
}

// TestTask_Retry_FinishedAssigneeUnassigned: a failed task of a member
// that has finished since comes back from a retry unassigned, so another
// member can take it; kept assigned to the finished member, nobody could.
func TestTask_Retry_FinishedAssigneeUnassigned(t *testing.T) {
	for _, how := range []string{"failed", "cancelled"} {
		t.Run(how, func(t *testing.T) {
			f, team := boardFixture(t, teammanager.BoardSettings{RequireReview: true})
			f.status(t, team, "a", teammanager.Running, "")
			f.status(t, team, "b", teammanager.Running, "")
			task := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "x", Assignee: "a"})
			if _, err := f.m.ClaimTask(ctx, team, "a", task.ID); err != nil {
				t.Fatal(err)
			}
			var err error
			if how == "failed" {
				_, err = f.m.FailTask(ctx, team, "a", task.ID, "broken")
			} else {
				_, err = f.m.CancelTask(ctx, team, "lead", task.ID, "not now")
			}
			if err != nil {
				t.Fatal(err)
			}
			f.status(t, team, "a", teammanager.Completed, "done")
			got, err := f.m.RetryTask(ctx, team, "lead", task.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != teammanager.TaskPending || got.Assignee != "" {
				t.Fatalf("retried task: %s, assigned to %q; want pending, unassigned", got.Status, got.Assignee)
			}
			claimed, err := f.m.ClaimNext(ctx, team, "b")
			if err != nil || claimed.ID != task.ID {
				t.Fatalf("b claims next: %s, %v; want %s", claimed.ID, err, task.ID)
			}
			if err := teammanager.CheckBoard(f.m, ctx, team); err != nil {
				t.Fatal(err)
			}
		})
	}
	// A member still working keeps its retried task.
	f, team := boardFixture(t, teammanager.BoardSettings{RequireReview: true})
	task := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "x", Assignee: "a"})
	if _, err := f.m.ClaimTask(ctx, team, "a", task.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.FailTask(ctx, team, "a", task.ID, "broken"); err != nil {
		t.Fatal(err)
	}
	if got, err := f.m.RetryTask(ctx, team, "lead", task.ID); err != nil || got.Assignee != "a" {
		t.Fatalf("retried task assigned to %q, %v; want a", got.Assignee, err)
	}
}

// TestTask_List_UnknownAssignee: a filter on an agent that is not a member
// fails with ErrUnknownAgent (as Findings does) instead of listing nothing;
// a member without tasks lists nothing.
func TestTask_List_UnknownAssignee(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{RequireReview: true})
	mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "x", Assignee: "a"})
	if ts, err := f.m.ListTasks(ctx, team, teammanager.TaskFilter{Assignee: "zed"}); !errors.Is(err, teammanager.ErrUnknownAgent) {
		t.Fatalf("ListTasks(assignee zed) = %v, %v; want ErrUnknownAgent", taskIDs(ts), err)
	}
	if ts, err := f.m.ListTasks(ctx, team, teammanager.TaskFilter{Assignee: "b"}); err != nil || len(ts) != 0 {
		t.Fatalf("ListTasks(assignee b) = %v, %v; want none", taskIDs(ts), err)
	}
	if ts, err := f.m.ListTasks(ctx, team, teammanager.TaskFilter{Assignee: "a"}); err != nil || len(ts) != 1 {
		t.Fatalf("ListTasks(assignee a) = %v, %v; want T1", taskIDs(ts), err)
	}
	if _, err := f.m.ListTasks(ctx, "nope", teammanager.TaskFilter{Assignee: "a"}); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Fatalf("ListTasks(team nope) = %v; want ErrUnknownTeam", err)
	}
	// A team that never used its board.
	f.create(t, teammanager.TeamConfig{ID: "fresh", Name: "fresh", Members: members("a", "b"), Timeout: -1})
	if _, err := f.m.ListTasks(ctx, "fresh", teammanager.TaskFilter{Assignee: "zed"}); !errors.Is(err, teammanager.ErrUnknownAgent) {
		t.Fatalf("ListTasks(fresh, assignee zed) = %v; want ErrUnknownAgent", err)
	}
	if ts, err := f.m.ListTasks(ctx, "fresh", teammanager.TaskFilter{Assignee: "a"}); err != nil || len(ts) != 0 {
		t.Fatalf("ListTasks(fresh, assignee a) = %v, %v; want none", taskIDs(ts), err)
	}
}

// TestTask_Lease_LeadUpdateIsNoProgress: a lead's change of an in_progress
// task's fields (priority, description) is not its assignee's progress: the
// lease runs on from the last progress, so a member that died is still
// found out one lease after its last sign of life. The assignee's progress
// renews it.
func TestTask_Lease_LeadUpdateIsNoProgress(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{RequireReview: true, Lease: 10 * time.Minute})
	f.status(t, team, "a", teammanager.Running, "")
	task := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "x"})
	if _, err := f.m.ClaimTask(ctx, team, "a", task.ID); err != nil {
		t.Fatal(err)
	}
	sweep := func() []string {
		t.Helper()
		sw, err := f.m.SweepTasks(ctx, team)
		if err != nil {
			t.Fatal(err)
		}
		return taskIDs(sw.Requeued)
	}
	f.clock.Advance(4 * time.Minute)
	if _, err := f.m.ProgressTask(ctx, team, "a", task.ID, "half done"); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(2 * time.Minute)
	f.pauseFor(t, team, time.Hour) // (not counted either)
	prio, desc := 7, "now with tests"
	if _, err := f.m.UpdateTask(ctx, team, "lead", task.ID, teammanager.TaskUpdate{Priority: &prio}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(6 * time.Minute)
	if _, err := f.m.UpdateTask(ctx, team, "lead", task.ID, teammanager.TaskUpdate{Description: &desc}); err != nil {
		t.Fatal(err)
	}
	if got := sweep(); len(got) != 0 {
		t.Fatalf("requeued %v with 8 of the lease's 10 minutes used", got)
	}
	f.clock.Advance(3 * time.Minute)
	if got := sweep(); !slices.Equal(got, []string{task.ID}) {
		t.Fatalf("requeued %v 11 minutes after a's last progress (the lead updated the task 3 and 9 minutes ago), want %s", got, task.ID)
	}
	h, err := f.m.TaskHistory(ctx, team, task.ID)
	if err != nil || h[len(h)-1].Reason != "no progress from a for 11m0s (lease 10m0s)" {
		t.Fatalf("history %+v, %v", h, err)
	}
	got, err := f.m.GetTask(ctx, team, task.ID)
	if err != nil || got.Priority != prio || got.Description != desc {
		t.Fatalf("task after the updates: %+v, %v", got, err)
	}
	if err := teammanager.CheckBoard(f.m, ctx, team); err != nil {
		t.Fatal(err)
	}
}
