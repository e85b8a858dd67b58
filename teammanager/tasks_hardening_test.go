package teammanager_test

import (
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/teammanager"
)

// boardTables are the side tables of the task board, mailbox and plans.
var boardTables = []string{"taskboard", "tasks", "taskready", "taskheld", "taskhist", "taskcomment", "taskhead", "mail", "inbox", "plans"}

// storeDump is everything of f's namespace that a board, mailbox or plan
// call may write: every quad, the board's side-table rows and the last
// event id. Two equal dumps: nothing was written in between.
func storeDump(t testing.TB, f *fixture) string {
	t.Helper()
	qs, err := f.n.Quads(ctx, cortex.Pattern{})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, q := range qs {
		lines = append(lines, rdfio.FormatTerm(q.Subject)+" "+rdfio.FormatTerm(q.Predicate)+" "+rdfio.FormatTerm(q.Object)+" "+rdfio.FormatTerm(q.Label))
	}
	slices.Sort(lines)
	for _, table := range boardTables {
		rows, err := f.n.SideRowsAfter(ctx, table, "", 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			lines = append(lines, fmt.Sprintf("%s[%s] = %v", table, r.Key, r.Vals))
		}
	}
	last, err := f.m.LastEventID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s\nlast event %d", strings.Join(lines, "\n"), last)
}

// TestTask_IDs_OnlyCanonical: a task id is T and a number in its one
// spelling. "T+1" is not T1: as a blocker it would list T1 twice, or make a
// task block itself; anywhere it names no task, and a refused call writes
// nothing.
func TestTask_IDs_OnlyCanonical(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{})
	mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "one"})
	three := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "two"})
	for _, id := range []string{"T+1", "T+2", "T 1", "T1 ", "T1\x00", "T٣"} {
		if _, err := f.m.GetTask(ctx, team, id); !errors.Is(err, teammanager.ErrUnknownTask) {
			t.Errorf("GetTask(%q) = %v, want ErrUnknownTask", id, err)
		}
	}
	before := storeDump(t, f)
	calls := map[string]func() error{
		"create blocked by T1 and T+1": func() error {
			_, err := f.m.CreateTask(ctx, team, "lead", teammanager.NewTask{Subject: "x", BlockedBy: []string{"T1", "T+1"}})
			return err
		},
		"block T2 by itself as T+2": func() error {
			bb := []string{"T+2"}
			_, err := f.m.UpdateTask(ctx, team, "lead", three.ID, teammanager.TaskUpdate{BlockedBy: &bb})
			return err
		},
		"claim T+1": func() error {
			_, err := f.m.ClaimTask(ctx, team, "a", "T+1")
			return err
		},
		"message about T+1": func() error {
			_, err := f.m.SendMessage(ctx, team, "a", teammanager.OutMessage{Type: teammanager.MsgStatus, To: []string{"b"}, Body: "x", Task: "T+1"})
			return err
		},
	}
	for name, call := range calls {
		err := call()
		if !errors.Is(err, teammanager.ErrInvalidTask) && !errors.Is(err, teammanager.ErrUnknownTask) && !errors.Is(err, teammanager.ErrInvalidMessage) {
			t.Errorf("%s = %v, want it refused", name, err)
		}
		if after := storeDump(t, f); after != before {
			t.Fatalf("%s (refused: %v) wrote to the store", name, err)
		}
	}
}

// TestTask_LeadlessBoard_NoOneActsAsLead: on a board without a lead, the
// empty agent id is not the lead: the lead's controls, reviews and updates
// are refused and write nothing — as by no member (ErrUnknownAgent, as a
// server refuses an empty agent too), and by a member with ErrNotAllowed.
func TestTask_LeadlessBoard_NoOneActsAsLead(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	team := f.create(t, teammanager.TeamConfig{ID: "flat", Name: "flat", Members: members("a", "b"), Timeout: -1}).ID
	if _, err := f.m.ConfigureBoard(ctx, team, teammanager.BoardSettings{AllowRequests: true, RequireReview: true}); err != nil {
		t.Fatal(err)
	}
	task := mustTask(t, f, team, "a", teammanager.NewTask{Subject: "x"})
	subject := "renamed"
	before := storeDump(t, f)
	for name, call := range map[string]func(by string) error{
		"cancel": func(by string) error { _, err := f.m.CancelTask(ctx, team, by, task.ID, ""); return err },
		"skip":   func(by string) error { _, err := f.m.SkipTask(ctx, team, by, task.ID, ""); return err },
		"pause":  func(by string) error { _, err := f.m.PauseTask(ctx, team, by, task.ID); return err },
		"review": func(by string) error { _, err := f.m.ReviewTask(ctx, team, by, task.ID, true, ""); return err },
		"update": func(by string) error {
			_, err := f.m.UpdateTask(ctx, team, by, task.ID, teammanager.TaskUpdate{Subject: &subject})
			return err
		},
	} {
		if err := call(""); !errors.Is(err, teammanager.ErrUnknownAgent) {
			t.Errorf("%s by the empty agent id = %v, want ErrUnknownAgent", name, err)
		}
		if err := call("b"); !errors.Is(err, teammanager.ErrNotAllowed) {
			t.Errorf("%s by member b = %v, want ErrNotAllowed", name, err)
		}
		if after := storeDump(t, f); after != before {
			t.Fatalf("refused %s wrote to the store", name)
		}
	}
	if _, err := f.m.UpdateTask(ctx, team, "a", task.ID, teammanager.TaskUpdate{Subject: &subject}); err != nil {
		t.Fatalf("update by its creator on a board that allows requests: %v", err)
	}
}

// TestTask_FailPaused_NotPausedAfter: a paused in_progress task that its
// assignee fails (FailTask, or a blocker comment) is failed, not "failed
// and paused" (cancel and skip unpause too): the lead's retry makes it a
// pending task that a member can claim, not one held by a pause no one
// sees.
func TestTask_FailPaused_NotPausedAfter(t *testing.T) {
	for name, fail := range map[string]func(f *fixture, team, id string) error{
		"FailTask": func(f *fixture, team, id string) error {
			_, err := f.m.FailTask(ctx, team, "a", id, "broken")
			return err
		},
		"blocker comment": func(f *fixture, team, id string) error {
			_, err := f.m.AddTaskComment(ctx, team, "a", id, teammanager.CommentBlocker, "stuck")
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			f, team := boardFixture(t, teammanager.BoardSettings{})
			task := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "x"})
			if _, err := f.m.ClaimTask(ctx, team, "a", task.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := f.m.PauseTask(ctx, team, "lead", task.ID); err != nil {
				t.Fatal(err)
			}
			if err := fail(f, team, task.ID); err != nil {
				t.Fatal(err)
			}
			got, err := f.m.GetTask(ctx, team, task.ID)
			if err != nil || got.Status != teammanager.TaskFailed || got.Paused {
				t.Fatalf("failed task = %+v, %v; want failed, not paused", got, err)
			}
			if _, err := f.m.ResumeTask(ctx, team, "lead", task.ID); !errors.Is(err, teammanager.ErrTaskState) {
				t.Fatalf("resume of a failed task = %v, want ErrTaskState", err)
			}
			if got, err = f.m.RetryTask(ctx, team, "lead", task.ID); err != nil || got.Status != teammanager.TaskPending || got.Paused {
				t.Fatalf("retried task = %+v, %v; want pending, not paused", got, err)
			}
			if got, err = f.m.ClaimNext(ctx, team, "a"); err != nil || got.ID != task.ID { // (a retry keeps the assignee)
				t.Fatalf("ClaimNext after the retry = %+v, %v; want %s", got, err, task.ID)
			}
		})
	}
}

// TestTask_Dispatch_TrippedTaskTakesNoTurn: a task that fails at the
// circuit breaker in a dispatch round takes no member's turn (as
// DispatchUnblocked promises): the member it would have gone to gets the
// next ready task it may take in the same round.
func TestTask_Dispatch_TrippedTaskTakesNoTurn(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{MaxDispatches: 1, Lease: time.Minute})
	flaky := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "flaky", Priority: 10})
	forA := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "for a", Priority: 5, Assignee: "a"})
	if _, err := f.m.ClaimTask(ctx, team, "a", flaky.ID); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(2 * time.Minute) // a goes silent: flaky is requeued, unassigned
	rep, err := f.m.DispatchUnblocked(ctx, team)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(taskIDs(rep.Failed), []string{flaky.ID}) || !slices.Equal(taskIDs(rep.Dispatched), []string{forA.ID}) || rep.Dispatched[0].Assignee != "a" {
		t.Fatalf("round: failed %v, dispatched %v; want %s failed and %s dispatched to a", taskIDs(rep.Failed), taskIDs(rep.Dispatched), flaky.ID, forA.ID)
	}
	if got, _ := f.m.GetTask(ctx, team, forA.ID); got.Status != teammanager.TaskInProgress || got.Assignee != "a" {
		t.Fatalf("%s after the round = %+v", forA.ID, got)
	}
}

// TestBoard_Text_ValidUTF8: the text of a task, comment, message or plan
// must be valid UTF-8 — the store cannot export a literal that is not
// (N-Quads, Turtle and JSON carry UTF-8 only) — so each call given such
// text is refused with its kind's error and writes nothing.
func TestBoard_Text_ValidUTF8(t *testing.T) {
	const bad = "bad \xff text"
	f, team := boardFixture(t, teammanager.BoardSettings{RequireReview: true})
	pending := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "pending"})
	claimed := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "claimed"})
	if _, err := f.m.ClaimTask(ctx, team, "a", claimed.ID); err != nil {
		t.Fatal(err)
	}
	review := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "in review"})
	if _, err := f.m.ClaimTask(ctx, team, "b", review.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.CompleteTask(ctx, team, "b", review.ID, "done"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.DraftPlan(ctx, team, "lead", teammanager.NewPlan{Title: "p", Steps: []teammanager.PlanStep{{Title: "s"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.SubmitPlan(ctx, team, "lead"); err != nil {
		t.Fatal(err)
	}
	badText := bad
	tests := []struct {
		name string
		call func() error
		want error
	}{
		{"create subject", func() error {
			_, err := f.m.CreateTask(ctx, team, "lead", teammanager.NewTask{Subject: bad})
			return err
		}, teammanager.ErrInvalidTask},
		{"create description", func() error {
			_, err := f.m.CreateTask(ctx, team, "lead", teammanager.NewTask{Subject: "x", Description: bad})
			return err
		}, teammanager.ErrInvalidTask},
		{"update subject", func() error {
			_, err := f.m.UpdateTask(ctx, team, "lead", pending.ID, teammanager.TaskUpdate{Subject: &badText})
			return err
		}, teammanager.ErrInvalidTask},
		{"cancel reason", func() error { _, err := f.m.CancelTask(ctx, team, "lead", pending.ID, bad); return err }, teammanager.ErrInvalidTask},
		{"skip reason", func() error { _, err := f.m.SkipTask(ctx, team, "lead", pending.ID, bad); return err }, teammanager.ErrInvalidTask},
		{"complete result", func() error { _, err := f.m.CompleteTask(ctx, team, "a", claimed.ID, bad); return err }, teammanager.ErrInvalidTask},
		{"fail reason", func() error { _, err := f.m.FailTask(ctx, team, "a", claimed.ID, bad); return err }, teammanager.ErrInvalidTask},
		{"progress note", func() error { _, err := f.m.ProgressTask(ctx, team, "a", claimed.ID, bad); return err }, teammanager.ErrInvalidTask},
		{"note", func() error {
			_, err := f.m.AddTaskComment(ctx, team, "a", claimed.ID, teammanager.CommentNote, bad)
			return err
		}, teammanager.ErrInvalidTask},
		{"blocker", func() error {
			_, err := f.m.AddTaskComment(ctx, team, "a", claimed.ID, teammanager.CommentBlocker, bad)
			return err
		}, teammanager.ErrInvalidTask},
		{"reject feedback", func() error { _, err := f.m.ReviewTask(ctx, team, "lead", review.ID, false, bad); return err }, teammanager.ErrInvalidTask},
		{"approve feedback", func() error { _, err := f.m.ReviewTask(ctx, team, "lead", review.ID, true, bad); return err }, teammanager.ErrInvalidMessage},
		{"message body", func() error {
			_, err := f.m.SendMessage(ctx, team, "a", teammanager.OutMessage{Type: teammanager.MsgStatus, Body: bad})
			return err
		}, teammanager.ErrInvalidMessage},
		{"message subject", func() error {
			_, err := f.m.SendMessage(ctx, team, "a", teammanager.OutMessage{Type: teammanager.MsgStatus, Body: "x", Subject: bad})
			return err
		}, teammanager.ErrInvalidMessage},
		{"plan title", func() error {
			_, err := f.m.DraftPlan(ctx, team, "lead", teammanager.NewPlan{Title: bad, Steps: []teammanager.PlanStep{{Title: "s"}}})
			return err
		}, teammanager.ErrInvalidPlan},
		{"plan step", func() error {
			_, err := f.m.DraftPlan(ctx, team, "lead", teammanager.NewPlan{Title: "t", Steps: []teammanager.PlanStep{{Title: "s", Description: bad}}})
			return err
		}, teammanager.ErrInvalidPlan},
		{"plan feedback", func() error {
			_, err := f.m.ReviewPlan(ctx, team, teammanager.Operator, 1, false, bad)
			return err
		}, teammanager.ErrInvalidPlan},
	}
	for _, tt := range tests {
		before := storeDump(t, f)
		if err := tt.call(); !errors.Is(err, tt.want) || !strings.Contains(err.Error(), "UTF-8") {
			t.Errorf("%s not valid UTF-8: %v, want %v saying UTF-8", tt.name, err, tt.want)
		}
		if storeDump(t, f) != before {
			t.Fatalf("%s: a refused call wrote to the store", tt.name)
		}
	}
}

// TestTask_Lease_TeamPauseDoesNotCount: while the team is paused its
// members cannot report progress (the board waits), so the time paused
// does not count against a claimed task's lease — as it does not against
// the team's timeout. A claim is not lost, nor a dispatch spent, because
// the operator paused the team.
func TestTask_Lease_TeamPauseDoesNotCount(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{RequireReview: true, Lease: 10 * time.Minute})
	f.status(t, team, "a", teammanager.Running, "")
	sweep := func() []string {
		t.Helper()
		sw, err := f.m.SweepTasks(ctx, team)
		if err != nil {
			t.Fatal(err)
		}
		return taskIDs(sw.Requeued)
	}
	f.pauseFor(t, team, time.Hour) // a pause before the claim is not the task's
	task := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "x"})
	if _, err := f.m.ClaimTask(ctx, team, "a", task.ID); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(5 * time.Minute)
	f.pauseFor(t, team, time.Hour)
	if got := sweep(); len(got) != 0 {
		t.Fatalf("requeued %v right after an hour's pause, 5 of the lease's 10 minutes used", got)
	}
	f.clock.Advance(4 * time.Minute)
	f.pauseFor(t, team, 3*time.Hour)
	if got := sweep(); len(got) != 0 {
		t.Fatalf("requeued %v with 9 of the lease's 10 minutes used", got)
	}
	f.clock.Advance(2 * time.Minute)
	if got := sweep(); !slices.Equal(got, []string{task.ID}) {
		t.Fatalf("requeued %v with 11 minutes of the lease used, want %s", got, task.ID)
	}
	h, err := f.m.TaskHistory(ctx, team, task.ID)
	if err != nil || h[len(h)-1].Reason != "no progress from a for 11m0s (lease 10m0s)" {
		t.Fatalf("history %+v, %v", h, err)
	}
}

// TestTask_Concurrent_BoardStaysConsistent: goroutines on one Manager
// claim, dispatch, complete, review, fail, comment, control and update a
// small board at random, racing each other (run with -race). Whatever
// wins, the board stays consistent (CheckBoard: rows, ready and held
// queues, quads), each task's history is a chain (every change starts
// from the status the one before ended in, the last one at the task's
// status), and no finished task is left paused.
func TestTask_Concurrent_BoardStaysConsistent(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{RequireReview: true, MaxDispatches: 4, Lease: time.Minute})
	var ids []string
	for i := range 8 {
		var bb []string
		if i%3 == 2 {
			bb = []string{ids[i-1]}
		}
		ids = append(ids, mustTask(t, f, team, "lead", teammanager.NewTask{Subject: fmt.Sprint("task ", i), Priority: i % 4, BlockedBy: bb}).ID)
	}
	agents := []string{"a", "b", "c"}
	ops := []func(r *rand.Rand, id, agent string){
		func(_ *rand.Rand, id, agent string) { f.m.ClaimTask(ctx, team, agent, id) },
		func(_ *rand.Rand, _, agent string) { f.m.ClaimNext(ctx, team, agent) },
		func(_ *rand.Rand, id, agent string) { f.m.ProgressTask(ctx, team, agent, id, "") },
		func(_ *rand.Rand, id, agent string) { f.m.CompleteTask(ctx, team, agent, id, "result") },
		func(r *rand.Rand, id, _ string) { f.m.ReviewTask(ctx, team, "lead", id, r.Intn(2) == 0, "feedback") },
		func(_ *rand.Rand, id, agent string) { f.m.FailTask(ctx, team, agent, id, "broken") },
		func(_ *rand.Rand, id, agent string) {
			f.m.AddTaskComment(ctx, team, agent, id, teammanager.CommentBlocker, "stuck")
		},
		func(_ *rand.Rand, id, _ string) { f.m.CancelTask(ctx, team, "lead", id, "") },
		func(_ *rand.Rand, id, _ string) { f.m.PauseTask(ctx, team, "lead", id) },
		func(_ *rand.Rand, id, _ string) { f.m.ResumeTask(ctx, team, "lead", id) },
		func(_ *rand.Rand, id, _ string) { f.m.RetryTask(ctx, team, "lead", id) },
		func(_ *rand.Rand, id, _ string) { f.m.SkipTask(ctx, team, "lead", id, "") },
		func(_ *rand.Rand, _, _ string) { f.m.DispatchUnblocked(ctx, team) },
		func(_ *rand.Rand, _, _ string) { f.clock.Advance(30 * time.Second); f.m.SweepTasks(ctx, team) },
		func(r *rand.Rand, id, _ string) {
			p := r.Intn(5)
			f.m.UpdateTask(ctx, team, "lead", id, teammanager.TaskUpdate{Priority: &p})
		},
	}
	var wg sync.WaitGroup
	for g := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(g)))
			for range 120 {
				ops[r.Intn(len(ops))](r, ids[r.Intn(len(ids))], agents[r.Intn(len(agents))])
			}
		}()
	}
	wg.Wait()
	if err := teammanager.CheckBoard(f.m, ctx, team); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		h, err := f.m.TaskHistory(ctx, team, id)
		if err != nil {
			t.Fatal(err)
		}
		var last teammanager.TaskStatus
		for i, c := range h {
			if i > 0 && c.From != last {
				t.Fatalf("%s: change %d (%s) is from %s, after a change to %s", id, i+1, c.Action, c.From, last)
			}
			last = c.To
		}
		got, err := f.m.GetTask(ctx, team, id)
		if err != nil || got.Status != last || got.Status.Finished() && got.Paused {
			t.Fatalf("%s = %+v, %v; its history ends at %s", id, got, err, last)
		}
	}
}

// TestTask_Progress_BlankNote: a progress report whose note is only
// blanks renews the lease without a comment — as AddTaskComment refuses an
// empty comment — instead of leaving a blank one on the task.
func TestTask_Progress_BlankNote(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{})
	task := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "x"})
	if _, err := f.m.ClaimTask(ctx, team, "a", task.ID); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Minute)
	got, err := f.m.ProgressTask(ctx, team, "a", task.ID, " \n\t")
	if err != nil || !got.UpdatedAt.Equal(f.clock.Now()) {
		t.Fatalf("progress = %+v, %v; want the lease renewed", got, err)
	}
	if cs, err := f.m.TaskComments(ctx, team, task.ID); err != nil || len(cs) != 0 {
		t.Fatalf("comments after a blank progress note: %+v, %v", cs, err)
	}
	if _, err := f.m.ProgressTask(ctx, team, "a", task.ID, "parser done"); err != nil {
		t.Fatal(err)
	}
	if cs, err := f.m.TaskComments(ctx, team, task.ID); err != nil || len(cs) != 1 || cs[0].Text != "parser done" {
		t.Fatalf("comments after a progress note: %+v, %v", cs, err)
	}
}

// pauseFor pauses team, lets d pass on the fixture's clock and resumes it.
func (f *fixture) pauseFor(t testing.TB, team string, d time.Duration) {
	t.Helper()
	if _, err := f.m.PauseTeam(ctx, team); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(d)
	if _, err := f.m.ResumeTeam(ctx, team); err != nil {
		t.Fatal(err)
	}
}

// TestBoardClosed_AsTheBoardRefuses: BoardClosed of a team as GetTeam
// returns it is the refusal of a write to its board (CreateTask's, its
// operation left out): ErrTeamFinished for a completed team and one past
// its timeout (the board names the timeout), ErrTeamDisbanded,
// ErrTeamPaused; nil for a team whose board takes writes (which refuses
// a member's task on a board without a lead for who acts). The completed
// team's refusal named its status quoted ("team done is "completed"").
func TestBoardClosed_AsTheBoardRefuses(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	for _, id := range []string{"open", "done", "gone", "held", "late"} {
		tc := teammanager.TeamConfig{ID: id, Name: id, Members: members("a", "b"), Timeout: -1}
		if id == "late" {
			tc.Timeout = time.Minute
		}
		f.create(t, tc)
	}
	for _, a := range []string{"a", "b"} {
		f.status(t, "done", a, teammanager.Running, "")
		f.status(t, "done", a, teammanager.Completed, "")
	}
	if _, err := f.m.DisbandTeam(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	f.status(t, "held", "a", teammanager.Running, "")
	if _, err := f.m.PauseTeam(ctx, "held"); err != nil {
		t.Fatal(err)
	}
	f.status(t, "late", "a", teammanager.Running, "")
	f.clock.Advance(2 * time.Minute)
	for _, tc := range []struct {
		team string
		want error  // nil: the board takes writes
		msg  string // BoardClosed's message; "": the board's
	}{
		{"open", nil, ""}, // the board goes on to who acts: a may not create tasks
		{"done", teammanager.ErrTeamFinished, ""},
		{"gone", teammanager.ErrTeamDisbanded, ""},
		{"held", teammanager.ErrTeamPaused, ""},
		{"late", teammanager.ErrTeamFinished, "team late is failed: team is finished"},
	} {
		team, err := f.m.GetTeam(ctx, tc.team)
		if err != nil {
			t.Fatal(err)
		}
		got := teammanager.BoardClosed(team)
		_, werr := f.m.CreateTask(ctx, tc.team, "a", teammanager.NewTask{Subject: "x"})
		if tc.want == nil {
			if got != nil || !errors.Is(werr, teammanager.ErrNotAllowed) {
				t.Errorf("%s: BoardClosed %v, CreateTask %v; want nil, not allowed", tc.team, got, werr)
			}
			continue
		}
		msg := tc.msg
		if msg == "" {
			msg = strings.TrimPrefix(fmt.Sprint(werr), "create task: ")
		}
		if !errors.Is(got, tc.want) || !errors.Is(werr, tc.want) || fmt.Sprint(got) != msg || strings.Contains(msg, `"`) {
			t.Errorf("%s: BoardClosed %v, CreateTask %v; want %v, %q", tc.team, got, werr, tc.want, msg)
		}
	}
}
