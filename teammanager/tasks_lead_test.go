package teammanager_test

import (
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/teammanager"
)

// TestTask_LeadChange: making member a the lead of a board that does not
// let the lead work leaves no task stuck on a or on the old lead, in the
// write that changes the lead: a's in_progress task goes back to pending,
// unassigned (requeued), and a's pending task is unassigned (as when a
// member finishes); the tasks in review wait for the new lead, who is
// asked to review each one, and the old lead no longer reviews; a task of
// a's that failed comes back unassigned when retried, and one of a's in
// review, rejected, goes back to pending, unassigned.
func TestTask_LeadChange(t *testing.T) {
	f, team := boardFixture(t)
	mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "mine", Assignee: "a"}) // T1: assigned to a
	mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "held"})                // T2: a works on it
	mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "b's"})                 // T3: b submits it
	mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "broken"})              // T4: a fails it
	mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "a's"})                 // T5: a submits it
	for _, s := range []struct{ agent, task, then string }{{"b", "T3", "submit"}, {"a", "T4", "fail"}, {"a", "T5", "submit"}, {"a", "T2", ""}} {
		if _, err := f.m.ClaimTask(ctx, team, s.agent, s.task); err != nil {
			t.Fatal(err)
		}
		var err error
		switch s.then {
		case "submit":
			_, err = f.m.CompleteTask(ctx, team, s.agent, s.task, "done")
		case "fail":
			_, err = f.m.FailTask(ctx, team, s.agent, s.task, "no access")
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.m.UpdateBoard(ctx, team, teammanager.BoardUpdate{Lead: ptr("a")}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id       string
		status   teammanager.TaskStatus
		assignee string
		action   string // the last change's; "" if the lead change did not change the task
	}{
		{"T1", teammanager.TaskPending, "", teammanager.ActionUpdated},
		{"T2", teammanager.TaskPending, "", teammanager.ActionRequeued},
		{"T3", teammanager.TaskInReview, "b", ""},
		{"T4", teammanager.TaskFailed, "a", ""},
		{"T5", teammanager.TaskInReview, "a", ""},
	} {
		task, err := f.m.GetTask(ctx, team, tc.id)
		if err != nil {
			t.Fatal(err)
		}
		if task.Status != tc.status || task.Assignee != tc.assignee {
			t.Errorf("%s after the lead change: %s, assigned to %q; want %s, %q", tc.id, task.Status, task.Assignee, tc.status, tc.assignee)
		}
		hist, err := f.m.TaskHistory(ctx, team, tc.id)
		if err != nil {
			t.Fatal(err)
		}
		if last := hist[len(hist)-1]; tc.action != "" && (last.Action != tc.action || last.Reason != "a is the lead now") {
			t.Errorf("%s's last change: %+v, want %s (a is the lead now)", tc.id, last, tc.action)
		}
	}
	// The new lead is asked to review what waits for a review.
	inbox, err := f.m.Inbox(ctx, team, "a", teammanager.MailFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	for _, msg := range inbox {
		if msg.Type == teammanager.MsgRequestApproval {
			asked = append(asked, msg.Task)
		}
	}
	if !slices.Equal(asked, []string{"T3", "T5"}) {
		t.Errorf("the new lead was asked to review %v, want [T3 T5] (inbox %+v)", asked, inbox)
	}
	// Others take a's tasks; the old lead no longer reviews, the new one does.
	if _, err := f.m.ClaimTask(ctx, team, "b", "T1"); err != nil {
		t.Errorf("b claims a's former T1: %v", err)
	}
	if _, err := f.m.ClaimTask(ctx, team, "lead", "T2"); err != nil {
		t.Errorf("the old lead claims T2: %v", err)
	}
	if _, err := f.m.ReviewTask(ctx, team, "lead", "T3", true, ""); !errors.Is(err, teammanager.ErrNotAllowed) {
		t.Errorf("the old lead reviews T3: %v, want ErrNotAllowed", err)
	}
	if task, err := f.m.ReviewTask(ctx, team, "a", "T3", true, ""); err != nil || task.Status != teammanager.TaskCompleted {
		t.Errorf("the new lead approves T3: %+v, %v", task, err)
	}
	if task, err := f.m.RetryTask(ctx, team, "a", "T4"); err != nil || task.Status != teammanager.TaskPending || task.Assignee != "" {
		t.Errorf("retry of a's failed T4: %+v, %v; want pending, unassigned", task, err)
	}
	if task, err := f.m.UpdateTask(ctx, team, "a", "T5", teammanager.TaskUpdate{Description: ptr("as submitted")}); err != nil || task.Assignee != "a" {
		t.Errorf("the new lead updates the description of its own T5 in review: %+v, %v", task, err)
	}
	if task, err := f.m.ReviewTask(ctx, team, "a", "T5", false, "redo it"); err != nil || task.Status != teammanager.TaskPending || task.Assignee != "" {
		t.Errorf("rejection of a's own T5: %+v, %v; want pending, unassigned", task, err)
	}
}

// TestTask_LeadMayWorkOff: turning LeadMayWork off while the lead holds
// tasks unassigns them as a lead change does.
func TestTask_LeadMayWorkOff(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{RequireReview: true, LeadMayWork: true})
	mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "held"})                   // T1: the lead works on it
	mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "mine", Assignee: "lead"}) // T2
	if _, err := f.m.ClaimTask(ctx, team, "lead", "T1"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.UpdateBoard(ctx, team, teammanager.BoardUpdate{LeadMayWork: ptr(false)}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"T1", "T2"} {
		task, err := f.m.GetTask(ctx, team, id)
		if err != nil || task.Status != teammanager.TaskPending || task.Assignee != "" {
			t.Errorf("%s after LeadMayWork off: %+v, %v; want pending, unassigned", id, task, err)
		}
	}
	rep, err := f.m.DispatchUnblocked(ctx, team)
	if err != nil || len(rep.Dispatched) != 2 {
		t.Errorf("dispatch after LeadMayWork off: %+v, %v; want both tasks handed out", rep, err)
	}
}

// TestTask_Concurrent_LeadChanges: members claim, submit, fail and review
// while the lead changes and LeadMayWork flips, racing each other (run
// with -race). The board stays consistent, and no pending or in_progress
// task is left to a lead that may not work.
func TestTask_Concurrent_LeadChanges(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{RequireReview: true, MaxDispatches: 100, Lease: time.Minute})
	var ids []string
	for i := range 8 {
		ids = append(ids, mustTask(t, f, team, "lead", teammanager.NewTask{Subject: fmt.Sprint("task ", i), Priority: i % 3}).ID)
	}
	agents := []string{"lead", "a", "b", "c"}
	ops := []func(r *rand.Rand, id, agent string){
		func(_ *rand.Rand, id, agent string) { f.m.ClaimTask(ctx, team, agent, id) },
		func(_ *rand.Rand, _, agent string) { f.m.ClaimNext(ctx, team, agent) },
		func(_ *rand.Rand, id, agent string) { f.m.CompleteTask(ctx, team, agent, id, "result") },
		func(r *rand.Rand, id, agent string) { f.m.ReviewTask(ctx, team, agent, id, r.Intn(2) == 0, "feedback") },
		func(_ *rand.Rand, id, agent string) { f.m.FailTask(ctx, team, agent, id, "broken") },
		func(_ *rand.Rand, id, agent string) { f.m.RetryTask(ctx, team, agent, id) },
		func(_ *rand.Rand, _, _ string) { f.m.DispatchUnblocked(ctx, team) },
		func(_ *rand.Rand, id, agent string) {
			f.m.UpdateTask(ctx, team, agent, id, teammanager.TaskUpdate{Assignee: ptr(agents[len(id)%len(agents)])})
		},
		func(_ *rand.Rand, _, agent string) { f.m.UpdateBoard(ctx, team, teammanager.BoardUpdate{Lead: &agent}) },
		func(r *rand.Rand, _, _ string) {
			f.m.UpdateBoard(ctx, team, teammanager.BoardUpdate{LeadMayWork: ptr(r.Intn(2) == 0)})
		},
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(g)))
			for range 100 {
				ops[r.Intn(len(ops))](r, ids[r.Intn(len(ids))], agents[r.Intn(len(agents))])
			}
		}()
	}
	wg.Wait()
	if err := teammanager.CheckBoard(f.m, ctx, team); err != nil {
		t.Fatal(err)
	}
	s, err := f.m.Board(ctx, team)
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := f.m.ListTasks(ctx, team, teammanager.TaskFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		if !s.LeadMayWork && task.Assignee == s.Lead && (task.Status == teammanager.TaskPending || task.Status == teammanager.TaskInProgress) {
			t.Errorf("%s is %s, assigned to %s, the lead of a board that does not let the lead work", task.ID, task.Status, s.Lead)
		}
	}
}
