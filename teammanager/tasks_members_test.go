package teammanager_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/teammanager"
)

// finish moves member agent of team through running to status.
func finish(t *testing.T, f *fixture, team, agent string, status teammanager.Status) {
	t.Helper()
	for _, s := range []teammanager.Status{teammanager.Running, status} {
		if _, err := f.m.UpdateMemberStatus(ctx, team, agent, s, ""); err != nil {
			t.Fatalf("%s %s: %v", agent, s, err)
		}
	}
}

// TestTask_FinishedMember: a member whose status is completed (or failed)
// is not dispatched to, claims nothing and is not assigned tasks; its
// in_progress task goes back to pending and its pending assigned task is
// unassigned, in the write that finishes it; a task of it in review stays
// for the lead, and rejected goes back to pending, unassigned.
func TestTask_FinishedMember(t *testing.T) {
	for _, status := range []teammanager.Status{teammanager.Completed, teammanager.Failed} {
		t.Run(string(status), func(t *testing.T) {
			f, team := boardFixture(t)
			mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "held", Priority: 9})     // T1: a claims it
			mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "mine", Assignee: "a"})   // T2: assigned to a
			mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "reviewed", Priority: 8}) // T3: a submits it
			mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "free", Priority: -1})    // T4
			if _, err := f.m.ClaimTask(ctx, team, "a", "T3"); err != nil {
				t.Fatal(err)
			}
			if _, err := f.m.CompleteTask(ctx, team, "a", "T3", "done"); err != nil {
				t.Fatal(err)
			}
			if _, err := f.m.ClaimTask(ctx, team, "a", "T1"); err != nil {
				t.Fatal(err)
			}
			finish(t, f, team, "a", status)
			want := "member a is " + string(status)
			for id, action := range map[string]string{"T1": teammanager.ActionRequeued, "T2": teammanager.ActionUpdated} {
				task, err := f.m.GetTask(ctx, team, id)
				if err != nil {
					t.Fatal(err)
				}
				if task.Status != teammanager.TaskPending || task.Assignee != "" {
					t.Fatalf("%s after a finished: %s, assigned to %q", id, task.Status, task.Assignee)
				}
				hist, err := f.m.TaskHistory(ctx, team, id)
				if err != nil {
					t.Fatal(err)
				}
				if last := hist[len(hist)-1]; last.Action != action || last.Reason != want {
					t.Fatalf("%s's last change: %+v, want %s (%s)", id, last, action, want)
				}
			}
			if task, err := f.m.GetTask(ctx, team, "T3"); err != nil || task.Status != teammanager.TaskInReview || task.Assignee != "a" {
				t.Fatalf("T3 in review after a finished: %+v, %v", task, err)
			}
			if err := teammanager.CheckBoard(f.m, ctx, team); err != nil {
				t.Fatal(err)
			}
			for name, err := range map[string]error{
				"claim next":  errOf(f.m.ClaimNext(ctx, team, "a")),
				"claim":       errOf(f.m.ClaimTask(ctx, team, "a", "T4")),
				"create for":  errOf(f.m.CreateTask(ctx, team, "lead", teammanager.NewTask{Subject: "x", Assignee: "a"})),
				"reassign to": errOf(f.m.UpdateTask(ctx, team, "lead", "T4", teammanager.TaskUpdate{Assignee: ptr("a")})),
			} {
				if !errors.Is(err, teammanager.ErrMemberFinished) || !strings.Contains(err.Error(), "a is "+string(status)) {
					t.Errorf("%s a finished member: %v", name, err)
				}
			}
			rep, err := f.m.DispatchUnblocked(ctx, team)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, task := range rep.Dispatched {
				got[task.Assignee] = task.ID
			}
			if len(rep.Dispatched) != 2 || got["a"] != "" || got["b"] != "T1" || got["c"] != "T2" {
				t.Fatalf("dispatch after a finished: %+v", got)
			}
			task, err := f.m.ReviewTask(ctx, team, "lead", "T3", false, "redo it")
			if err != nil {
				t.Fatal(err)
			}
			if task.Status != teammanager.TaskPending || task.Assignee != "" || task.Feedback != "redo it" {
				t.Fatalf("T3 rejected after a finished: %+v", task)
			}
			if err := teammanager.CheckBoard(f.m, ctx, team); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestTask_FinishedMember_BoardRowOfBefore: a board row written before
// boards recorded their finished members learns them at its next write,
// so a member that finished then claims nothing.
func TestTask_FinishedMember_BoardRowOfBefore(t *testing.T) {
	f, team := boardFixture(t)
	mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "x"})
	finish(t, f, team, "a", teammanager.Completed)
	if err := teammanager.RewriteBoardRowUnfinished(f.m, ctx, team); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.ClaimNext(ctx, team, "a"); !errors.Is(err, teammanager.ErrMemberFinished) {
		t.Fatalf("claim by a member finished before its board recorded it: %v", err)
	}
	if task, err := f.m.ClaimNext(ctx, team, "b"); err != nil || task.ID != "T1" {
		t.Fatalf("claim by b: %+v, %v", task, err)
	}
}

func errOf[T any](_ T, err error) error { return err }

func ptr[T any](v T) *T { return &v }

// TestTask_Findings_CancelledBeforeTheWrite: a task's findings are checked
// against the task in the write that records them: a task cancelled or
// failed after AddTaskFindings began, before its write, gets none.
func TestTask_Findings_CancelledBeforeTheWrite(t *testing.T) {
	for _, tc := range []struct {
		status string
		change func(f *fixture, team string) error
	}{
		{"cancelled", func(f *fixture, team string) error {
			return errOf(f.m.CancelTask(ctx, team, "lead", "T1", "out of scope"))
		}},
		{"failed", func(f *fixture, team string) error { return errOf(f.m.FailTask(ctx, team, "a", "T1", "stuck")) }},
	} {
		t.Run(tc.status, func(t *testing.T) {
			f, team := boardFixture(t, teammanager.BoardSettings{})
			mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "find capitals"})
			if _, err := f.m.ClaimTask(ctx, team, "a", "T1"); err != nil {
				t.Fatal(err)
			}
			f.status(t, team, "a", teammanager.Running, "")
			changed := errors.New("no change")
			teammanager.SetTaskFindingsHook(func() { changed = tc.change(f, team) })
			defer teammanager.SetTaskFindingsHook(nil)
			fs := []teammanager.Finding{{Subject: iri("fr"), Predicate: iri("capital"), Object: iri("paris")}}
			ids, err := f.m.AddTaskFindings(ctx, team, "a", "T1", fs)
			if changed != nil {
				t.Fatalf("T1 not %s: %v", tc.status, changed)
			}
			if !errors.Is(err, teammanager.ErrNotAllowed) || !strings.Contains(err.Error(), "the task is "+tc.status) {
				t.Fatalf("findings for a task %s before the write: %v, %v", tc.status, ids, err)
			}
			stored, err := f.m.Findings(ctx, team, teammanager.FindingFilter{})
			if err != nil || len(stored) != 0 {
				t.Fatalf("findings recorded: %+v, %v", stored, err)
			}
		})
	}
}

// TestTask_CircuitBreaker_Once: with MaxDispatches 1, the breaker's reason
// reads "dispatched once", not "dispatched 1 times".
func TestTask_CircuitBreaker_Once(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{MaxDispatches: 1, Lease: time.Minute})
	mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "flaky"})
	if _, err := f.m.ClaimTask(ctx, team, "a", "T1"); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(2 * time.Minute) // the lease runs out
	if sw, err := f.m.SweepTasks(ctx, team); err != nil || len(sw.Requeued) != 1 {
		t.Fatalf("sweep: %+v, %v", sw, err)
	}
	task, err := f.m.ClaimTask(ctx, team, "b", "T1")
	const want = "dispatched once without completing"
	if !errors.Is(err, teammanager.ErrCircuitOpen) || task.Error != want || !strings.Contains(err.Error(), want) {
		t.Fatalf("claim past the breaker: %+v, %v; want reason %q", task, err, want)
	}
	inbox, err := f.m.Inbox(ctx, team, "lead", teammanager.MailFilter{})
	if err != nil || len(inbox) != 1 || !strings.Contains(inbox[0].Body, want) {
		t.Fatalf("lead's inbox = %+v, %v", inbox, err)
	}
}

// TestTask_Stale_TeamPauseDoesNotCount: a task's staleness (SweepTasks)
// does not count the time its team was paused since the task last
// changed, as its lease does not: right after a long pause no task is
// stale, and a task in review (which holds no lease) neither. A pause
// before the change is not the task's.
func TestTask_Stale_TeamPauseDoesNotCount(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{RequireReview: true, Lease: time.Hour, StaleAfter: 30 * time.Minute})
	f.status(t, team, "a", teammanager.Running, "")
	stale := func() []string {
		t.Helper()
		sw, err := f.m.SweepTasks(ctx, team)
		if err != nil || len(sw.Requeued) != 0 {
			t.Fatalf("sweep: %+v, %v", sw, err)
		}
		return taskIDs(sw.Stale)
	}
	f.pauseFor(t, team, 2*time.Hour) // before the tasks: not theirs
	mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "held"})
	mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "reviewed"})
	if _, err := f.m.ClaimTask(ctx, team, "b", "T2"); err != nil {
		t.Fatal(err)
	}
	if task, err := f.m.CompleteTask(ctx, team, "b", "T2", "done"); err != nil || task.Status != teammanager.TaskInReview {
		t.Fatalf("T2 submitted: %+v, %v", task, err)
	}
	if _, err := f.m.ClaimTask(ctx, team, "a", "T1"); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(20 * time.Minute)
	f.pauseFor(t, team, 3*time.Hour)
	if got := stale(); len(got) != 0 {
		t.Fatalf("stale %v right after a 3-hour pause, 20 of 30 minutes unchanged", got)
	}
	f.clock.Advance(11 * time.Minute)
	if got := stale(); !slices.Equal(got, []string{"T1", "T2"}) {
		t.Fatalf("stale %v after 31 minutes unchanged, want T1 T2", got)
	}
}
