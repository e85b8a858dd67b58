package teammanager_test

import (
	"errors"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/teammanager"
)

// TestTask_ClaimNext_TrippedTaskFailsWhenNoneLeft: ClaimNext fails a task
// past the circuit breaker "as in ClaimTask" even when no other task is
// ready: the failure and the lead's escalation are written, though the
// call ends with ErrNoReadyTask.
func TestTask_ClaimNext_TrippedTaskFailsWhenNoneLeft(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{MaxDispatches: 1, Lease: time.Minute, RequireReview: true})
	task := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "flaky"})
	if _, err := f.m.ClaimNext(ctx, team, "a"); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(2 * time.Minute)
	if sw, err := f.m.SweepTasks(ctx, team); err != nil || len(sw.Requeued) != 1 {
		t.Fatalf("sweep: %+v, %v", sw, err)
	}
	if _, err := f.m.ClaimNext(ctx, team, "b"); !errors.Is(err, teammanager.ErrNoReadyTask) {
		t.Fatalf("ClaimNext = %v, want ErrNoReadyTask", err)
	}
	got, err := f.m.GetTask(ctx, team, task.ID)
	if err != nil || got.Status != teammanager.TaskFailed {
		t.Fatalf("task after ClaimNext tripped its breaker = %+v, %v; want failed", got, err)
	}
	inbox, _ := f.m.Inbox(ctx, team, "lead", teammanager.MailFilter{})
	if len(inbox) != 1 {
		t.Fatalf("lead's inbox = %+v, want the escalation", inbox)
	}
}

// TestTask_Lease_LeadUpdateThenOthersComment: neither a lead's update nor
// another member's comment renews a lease, nor do both in turn: the lease
// still runs from the claim.
func TestTask_Lease_LeadUpdateThenOthersComment(t *testing.T) {
	f, team, task := leaseUpdatedByLead(t)
	f.clock.Advance(30 * time.Second)
	if _, err := f.m.AddTaskComment(ctx, team, "b", task.ID, teammanager.CommentNote, "any news?"); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(90 * time.Second) // 11 minutes since the claim
	sw, err := f.m.SweepTasks(ctx, team)
	if err != nil || len(sw.Requeued) != 1 {
		t.Fatalf("sweep 11 minutes after the claim = %+v, %v; want T1 requeued", sw.Requeued, err)
	}
}

// TestTask_Lease_ProgressRightAfterLeadUpdate: the assignee's progress
// renews its lease even at the instant of a lead's update.
func TestTask_Lease_ProgressRightAfterLeadUpdate(t *testing.T) {
	f, team, task := leaseUpdatedByLead(t)
	if _, err := f.m.ProgressTask(ctx, team, "a", task.ID, "half done"); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(9 * time.Minute) // 9 minutes since the progress
	sw, err := f.m.SweepTasks(ctx, team)
	if err != nil || len(sw.Requeued) != 0 {
		t.Fatalf("sweep 9 minutes after progress = %+v, %v; want nothing requeued", sw.Requeued, err)
	}
}

// leaseUpdatedByLead returns a board with 10-minute leases whose task x,
// claimed by member a, the lead updated 9 minutes after the claim (an
// update that does not renew the lease).
func leaseUpdatedByLead(t *testing.T) (*fixture, string, teammanager.Task) {
	t.Helper()
	f, team := boardFixture(t, teammanager.BoardSettings{Lease: 10 * time.Minute, RequireReview: true})
	task := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "x"})
	if _, err := f.m.ClaimTask(ctx, team, "a", task.ID); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(9 * time.Minute)
	subj := "y"
	if _, err := f.m.UpdateTask(ctx, team, "lead", task.ID, teammanager.TaskUpdate{Subject: &subj}); err != nil {
		t.Fatal(err)
	}
	return f, team, task
}
