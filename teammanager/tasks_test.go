package teammanager_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/teammanager"
)

// boardFixture is a team "crew" with lead "lead" (role lead) and members
// a, b, c, its board configured with settings s (zero fields: defaults).
func boardFixture(t testing.TB, s ...teammanager.BoardSettings) (*fixture, string) {
	t.Helper()
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false).WithMaxTeamSize(64))
	ms := append([]teammanager.MemberConfig{{AgentID: "lead", Role: "lead"}}, members("a", "b", "c")...)
	team := f.create(t, teammanager.TeamConfig{ID: "crew", Name: "crew", Members: ms, Timeout: -1})
	set := teammanager.BoardSettings{RequireReview: true}
	if len(s) > 0 {
		set = s[0]
	}
	if _, err := f.m.ConfigureBoard(ctx, team.ID, set); err != nil {
		t.Fatal(err)
	}
	return f, team.ID
}

func mustTask(t testing.TB, f *fixture, team, by string, nt teammanager.NewTask) teammanager.Task {
	t.Helper()
	task, err := f.m.CreateTask(ctx, team, by, nt)
	if err != nil {
		t.Fatalf("CreateTask %q: %v", nt.Subject, err)
	}
	return task
}

func taskIDs(ts []teammanager.Task) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

func TestBoard_DefaultLeadIsRoleLead(t *testing.T) {
	f, team := boardFixture(t)
	s, err := f.m.Board(ctx, team)
	if err != nil {
		t.Fatal(err)
	}
	if s.Lead != "lead" || s.MaxDispatches != 3 || s.Lease != teammanager.DefaultTaskLease || !s.RequireReview {
		t.Fatalf("settings = %+v", s)
	}
}

// TestTask_Create_Rules table-tests who may create which task; a refused
// creation writes nothing.
func TestTask_Create_Rules(t *testing.T) {
	tests := []struct {
		name     string
		settings teammanager.BoardSettings
		by       string
		task     teammanager.NewTask
		want     error
	}{
		{"lead creates", teammanager.BoardSettings{}, "lead", teammanager.NewTask{Subject: "x"}, nil},
		{"member may not create", teammanager.BoardSettings{}, "a", teammanager.NewTask{Subject: "x"}, teammanager.ErrNotAllowed},
		{"member creates with requests allowed", teammanager.BoardSettings{AllowRequests: true}, "a", teammanager.NewTask{Subject: "x"}, nil},
		{"stranger", teammanager.BoardSettings{AllowRequests: true}, "zed", teammanager.NewTask{Subject: "x"}, teammanager.ErrUnknownAgent},
		{"empty subject", teammanager.BoardSettings{}, "lead", teammanager.NewTask{Subject: "  "}, teammanager.ErrInvalidTask},
		{"priority too high", teammanager.BoardSettings{}, "lead", teammanager.NewTask{Subject: "x", Priority: teammanager.MaxTaskPriority + 1}, teammanager.ErrInvalidTask},
		{"assignee not a member", teammanager.BoardSettings{}, "lead", teammanager.NewTask{Subject: "x", Assignee: "zed"}, teammanager.ErrUnknownAgent},
		{"assignee is the lead", teammanager.BoardSettings{}, "lead", teammanager.NewTask{Subject: "x", Assignee: "lead"}, teammanager.ErrNotAllowed},
		{"assignee is the lead, allowed", teammanager.BoardSettings{LeadMayWork: true}, "lead", teammanager.NewTask{Subject: "x", Assignee: "lead"}, nil},
		{"unknown blocker", teammanager.BoardSettings{}, "lead", teammanager.NewTask{Subject: "x", BlockedBy: []string{"T99"}}, teammanager.ErrInvalidTask},
		{"blocker of another form", teammanager.BoardSettings{}, "lead", teammanager.NewTask{Subject: "x", BlockedBy: []string{"urn:x"}}, teammanager.ErrInvalidTask},
		{"blocker twice", teammanager.BoardSettings{}, "lead", teammanager.NewTask{Subject: "x", BlockedBy: []string{"T1", "T1"}}, teammanager.ErrInvalidTask},
		{"finished blocker", teammanager.BoardSettings{}, "lead", teammanager.NewTask{Subject: "x", BlockedBy: []string{"T2"}}, teammanager.ErrInvalidTask},
		// T3 is the id the new task would get: no task of the team has it
		// (it was refused as a cycle, T3 → T3, exit 7 instead of 3).
		{"blocker is the next id", teammanager.BoardSettings{}, "lead", teammanager.NewTask{Subject: "x", BlockedBy: []string{"T3"}}, teammanager.ErrUnknownTask},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, team := boardFixture(t, tt.settings)
			mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "first"})
			t2 := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "done"})
			if _, err := f.m.CancelTask(ctx, team, "lead", t2.ID, "not needed"); err != nil {
				t.Fatal(err)
			}
			before, _ := f.m.ListTasks(ctx, team, teammanager.TaskFilter{})
			got, err := f.m.CreateTask(ctx, team, tt.by, tt.task)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("CreateTask = %v, want %v", err, tt.want)
			}
			after, _ := f.m.ListTasks(ctx, team, teammanager.TaskFilter{})
			if err != nil {
				if len(after) != len(before) || err.Error() != strings.ToLower(err.Error()[:1])+err.Error()[1:] {
					t.Fatalf("refused creation left %d tasks (had %d), or error %q is capitalised", len(after), len(before), err)
				}
				return
			}
			if got.ID != "T3" || got.Status != teammanager.TaskPending || got.IRI != f.ns.Task(team, "T3") || len(after) != 3 {
				t.Fatalf("created %+v; board %v", got, taskIDs(after))
			}
		})
	}
}

func TestTask_UpdateBlockedBy_Cycle(t *testing.T) {
	f, team := boardFixture(t)
	t1 := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "one"})
	t2 := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "two", BlockedBy: []string{t1.ID}})
	t3 := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "three", BlockedBy: []string{t2.ID}})
	for _, tt := range []struct {
		name    string
		task    string
		blocked []string
		cycle   []string
	}{
		{"three long", t1.ID, []string{t3.ID}, []string{"T1", "T3", "T2", "T1"}},
		{"self", t2.ID, []string{t2.ID}, []string{"T2", "T2"}},
		{"two long", t2.ID, []string{t1.ID, t3.ID}, []string{"T2", "T3", "T2"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.m.UpdateTask(ctx, team, "lead", tt.task, teammanager.TaskUpdate{BlockedBy: &tt.blocked})
			var ce *teammanager.CycleError
			if !errors.As(err, &ce) || !errors.Is(err, teammanager.ErrTaskCycle) || !slices.Equal(ce.Cycle, tt.cycle) {
				t.Fatalf("UpdateTask = %v, want the cycle %v", err, tt.cycle)
			}
			if !strings.Contains(err.Error(), strings.Join(tt.cycle, " → ")) {
				t.Fatalf("error %q does not name the cycle", err)
			}
			if n := strings.Count(err.Error(), "team "+team+":"); n != 1 {
				t.Fatalf("error %q names the team %d times, want once", err, n)
			}
		})
	}
	// Nothing changed; a legal change is accepted and relinks dependents.
	got, _ := f.m.GetTask(ctx, team, t1.ID)
	if len(got.BlockedBy) != 0 || !slices.Equal(got.Dependents, []string{"T2"}) {
		t.Fatalf("T1 after refused updates: %+v", got)
	}
	none := []string{}
	if _, err := f.m.UpdateTask(ctx, team, "lead", t2.ID, teammanager.TaskUpdate{BlockedBy: &none}); err != nil {
		t.Fatal(err)
	}
	got, _ = f.m.GetTask(ctx, team, t1.ID)
	if len(got.Dependents) != 0 {
		t.Fatalf("T1 dependents after unlinking T2: %v", got.Dependents)
	}
	if _, err := f.m.ClaimTask(ctx, team, "a", t2.ID); err != nil {
		t.Fatalf("T2, no longer blocked: %v", err)
	}
}

// TestTask_Blockers: a dependent is ready only when all its blockers
// completed; a failed blocker keeps it blocked and tells the lead; skipping
// the blocker releases it.
func TestTask_Blockers(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{})
	t1 := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "one"})
	t2 := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "two"})
	t3 := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "three", BlockedBy: []string{t1.ID, t2.ID}})
	if _, err := f.m.ClaimTask(ctx, team, "a", t3.ID); !errors.Is(err, teammanager.ErrBlocked) {
		t.Fatalf("claim blocked task = %v, want ErrBlocked", err)
	}
	claimAndComplete(t, f, team, "a", t1.ID)
	if _, err := f.m.ClaimTask(ctx, team, "a", t3.ID); !errors.Is(err, teammanager.ErrBlocked) {
		t.Fatalf("claim with one blocker left = %v, want ErrBlocked", err)
	}
	if _, err := f.m.ClaimTask(ctx, team, "b", t2.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.FailTask(ctx, team, "b", t2.ID, "source is gone"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.ClaimTask(ctx, team, "a", t3.ID); !errors.Is(err, teammanager.ErrBlocked) {
		t.Fatalf("claim with a failed blocker = %v, want ErrBlocked", err)
	}
	if next, err := f.m.ClaimNext(ctx, team, "c"); !errors.Is(err, teammanager.ErrNoReadyTask) {
		t.Fatalf("ClaimNext with only a blocked task = %+v, %v", next, err)
	}
	inbox, err := f.m.Inbox(ctx, team, "lead", teammanager.MailFilter{})
	if err != nil || len(inbox) != 1 || !strings.Contains(inbox[0].Body, "T3 stay blocked") || inbox[0].Task != "T2" {
		t.Fatalf("lead's inbox = %+v, %v", inbox, err)
	}
	if _, err := f.m.SkipTask(ctx, team, "lead", t2.ID, "use the cache"); err != nil {
		t.Fatal(err)
	}
	got, err := f.m.ClaimNext(ctx, team, "c")
	if err != nil || got.ID != t3.ID {
		t.Fatalf("ClaimNext after skip = %+v, %v", got, err)
	}
}

func claimAndComplete(t testing.TB, f *fixture, team, agent, id string) {
	t.Helper()
	if _, err := f.m.ClaimTask(ctx, team, agent, id); err != nil {
		t.Fatal(err)
	}
	got, err := f.m.CompleteTask(ctx, team, agent, id, "done")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status == teammanager.TaskInReview {
		if _, err := f.m.ReviewTask(ctx, team, "lead", id, true, ""); err != nil {
			t.Fatal(err)
		}
	}
}

func TestTask_Claim_Rules(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{})
	open := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "open"})
	forB := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "for b", Assignee: "b"})
	paused := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "paused"})
	if _, err := f.m.PauseTask(ctx, team, "lead", paused.ID); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, agent, task string
		want              error
	}{
		{"lead may not work", "lead", open.ID, teammanager.ErrNotAllowed},
		{"stranger", "zed", open.ID, teammanager.ErrUnknownAgent},
		{"assigned to another", "a", forB.ID, teammanager.ErrNotAllowed},
		{"paused", "a", paused.ID, teammanager.ErrTaskState},
		{"unknown task", "a", "T42", teammanager.ErrUnknownTask},
		{"bad id", "a", "x", teammanager.ErrUnknownTask},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := f.m.ClaimTask(ctx, team, tt.agent, tt.task); !errors.Is(err, tt.want) {
				t.Fatalf("ClaimTask = %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := f.m.ClaimTask(ctx, team, "b", forB.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.ClaimTask(ctx, team, "a", forB.ID); !errors.Is(err, teammanager.ErrTaskState) {
		t.Fatalf("claim of a claimed task = %v", err)
	}
}

// TestTask_DispatchUnblocked hands ready tasks out by priority, one per free
// member per round, never to the lead, never before blockers complete.
func TestTask_DispatchUnblocked(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{RequireReview: true})
	low := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "low", Priority: 1})
	high := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "high", Priority: 9})
	mid := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "mid", Priority: 5})
	forC := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "for c", Priority: 0, Assignee: "c"})
	dep := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "after high", Priority: 100, BlockedBy: []string{high.ID}})
	rep, err := f.m.DispatchUnblocked(ctx, team)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range rep.Dispatched {
		got[d.ID] = d.Assignee
	}
	// Free members a, b, c; order high (9), mid (5), low (1), for-c (0):
	// high → a, mid → b, low → c; for-c waits (c is taken this round).
	want := map[string]string{high.ID: "a", mid.ID: "b", low.ID: "c"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("round 1 dispatched %v, want %v", got, want)
	}
	rep, err = f.m.DispatchUnblocked(ctx, team)
	if err != nil || len(rep.Dispatched) != 0 {
		t.Fatalf("round 2 with every member busy: %+v, %v", rep, err)
	}
	if _, err := f.m.CompleteTask(ctx, team, "c", low.ID, "ok"); err != nil {
		t.Fatal(err)
	}
	rep, err = f.m.DispatchUnblocked(ctx, team)
	if err != nil || len(rep.Dispatched) != 1 || rep.Dispatched[0].ID != forC.ID || rep.Dispatched[0].Dispatches != 1 {
		t.Fatalf("round 3: %+v, %v", rep, err)
	}
	// dep is not dispatched before high completes (and is approved).
	if _, err := f.m.CompleteTask(ctx, team, "a", high.ID, "ok"); err != nil {
		t.Fatal(err)
	}
	if rep, _ := f.m.DispatchUnblocked(ctx, team); len(rep.Dispatched) != 0 {
		t.Fatalf("dispatched %v while high is in review", taskIDs(rep.Dispatched))
	}
	if _, err := f.m.ReviewTask(ctx, team, "lead", high.ID, true, "good"); err != nil {
		t.Fatal(err)
	}
	rep, err = f.m.DispatchUnblocked(ctx, team)
	if err != nil || len(rep.Dispatched) != 1 || rep.Dispatched[0].ID != dep.ID || rep.Dispatched[0].Assignee != "a" {
		t.Fatalf("after approval: %+v, %v", rep, err)
	}
}

// TestTask_CircuitBreaker: a task dispatched MaxDispatches times without
// completing fails at the next dispatch, and the lead hears of it.
func TestTask_CircuitBreaker(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{MaxDispatches: 2, Lease: time.Minute})
	task := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "flaky"})
	for round := 1; round <= 2; round++ {
		rep, err := f.m.DispatchUnblocked(ctx, team)
		if err != nil || len(rep.Dispatched) != 1 {
			t.Fatalf("round %d: %+v, %v", round, rep, err)
		}
		f.clock.Advance(2 * time.Minute) // the member goes silent: the lease runs out
	}
	rep, err := f.m.DispatchUnblocked(ctx, team)
	if err != nil || len(rep.Requeued) != 1 || len(rep.Dispatched) != 0 || len(rep.Failed) != 1 {
		t.Fatalf("round 3: %+v, %v", rep, err)
	}
	got, _ := f.m.GetTask(ctx, team, task.ID)
	if got.Status != teammanager.TaskFailed || got.Error != "dispatched 2 times without completing" {
		t.Fatalf("task = %+v", got)
	}
	inbox, _ := f.m.Inbox(ctx, team, "lead", teammanager.MailFilter{})
	if len(inbox) != 1 || !strings.Contains(inbox[0].Body, "dispatched 2 times") || !strings.Contains(inbox[0].Body, "tasks retry crew T1") {
		t.Fatalf("lead's inbox = %+v", inbox)
	}
	// Retry resets the count; the claim path trips the breaker too.
	if _, err := f.m.RetryTask(ctx, team, "lead", task.ID); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := f.m.ClaimTask(ctx, team, "a", task.ID); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(2 * time.Minute)
		if sw, err := f.m.SweepTasks(ctx, team); err != nil || len(sw.Requeued) != 1 {
			t.Fatalf("sweep: %+v, %v", sw, err)
		}
	}
	got, err = f.m.ClaimTask(ctx, team, "a", task.ID)
	if !errors.Is(err, teammanager.ErrCircuitOpen) || got.Status != teammanager.TaskFailed {
		t.Fatalf("third claim = %+v, %v", got, err)
	}
}

func TestTask_BlockerComment_Escalates(t *testing.T) {
	f, team := boardFixture(t)
	task := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "scrape prices"})
	if _, err := f.m.AddTaskComment(ctx, team, "a", task.ID, teammanager.CommentBlocker, "need an API key"); !errors.Is(err, teammanager.ErrTaskState) {
		t.Fatalf("blocker on a pending task = %v", err)
	}
	if _, err := f.m.ClaimTask(ctx, team, "a", task.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.AddTaskComment(ctx, team, "a", task.ID, "rant", "x"); !errors.Is(err, teammanager.ErrInvalidTask) {
		t.Fatalf("bad kind = %v", err)
	}
	if _, err := f.m.AddTaskComment(ctx, team, "b", task.ID, teammanager.CommentBlocker, "x"); !errors.Is(err, teammanager.ErrNotAllowed) {
		t.Fatalf("blocker by a non-assignee = %v", err)
	}
	c, err := f.m.AddTaskComment(ctx, team, "a", task.ID, teammanager.CommentBlocker, "need an API key")
	if err != nil || c.ID != "T1.c1" || c.Kind != teammanager.CommentBlocker {
		t.Fatalf("comment = %+v, %v", c, err)
	}
	got, _ := f.m.GetTask(ctx, team, task.ID)
	if got.Status != teammanager.TaskFailed || got.Error != "blocked: need an API key" {
		t.Fatalf("task = %+v", got)
	}
	inbox, _ := f.m.Inbox(ctx, team, "lead", teammanager.MailFilter{})
	if len(inbox) != 1 {
		t.Fatalf("lead's inbox: %+v", inbox)
	}
	msg := inbox[0]
	for _, want := range []string{"reported by a", "T1 (scrape prices)", "need an API key", "tasks retry crew T1"} {
		if !strings.Contains(msg.Body, want) {
			t.Errorf("escalation %q lacks %q", msg.Body, want)
		}
	}
	if msg.From != "a" || msg.Type != teammanager.MsgStatus || msg.Task != "T1" {
		t.Errorf("escalation = %+v", msg)
	}
	cs, err := f.m.TaskComments(ctx, team, task.ID)
	if err != nil || len(cs) != 1 || cs[0].Text != "need an API key" {
		t.Fatalf("comments = %+v, %v", cs, err)
	}
}

// TestTask_ReviewLoop: submit → in_review; reject with feedback → back to
// the member with the feedback; submit → approve → completed, dependents
// ready.
func TestTask_ReviewLoop(t *testing.T) {
	f, team := boardFixture(t)
	task := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "draft", Assignee: "a"})
	dep := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "publish", BlockedBy: []string{task.ID}})
	if _, err := f.m.ClaimTask(ctx, team, "a", task.ID); err != nil {
		t.Fatal(err)
	}
	got, err := f.m.CompleteTask(ctx, team, "a", task.ID, "v1")
	if err != nil || got.Status != teammanager.TaskInReview {
		t.Fatalf("submit = %+v, %v", got, err)
	}
	if _, err := f.m.ReviewTask(ctx, team, "a", task.ID, true, ""); !errors.Is(err, teammanager.ErrNotAllowed) {
		t.Fatalf("review by a member = %v", err)
	}
	if _, err := f.m.ReviewTask(ctx, team, "lead", task.ID, false, ""); !errors.Is(err, teammanager.ErrInvalidTask) {
		t.Fatalf("rejection without feedback = %v", err)
	}
	got, err = f.m.ReviewTask(ctx, team, "lead", task.ID, false, "cite sources")
	if err != nil || got.Status != teammanager.TaskInProgress || got.Assignee != "a" || got.Feedback != "cite sources" {
		t.Fatalf("reject = %+v, %v", got, err)
	}
	if _, err := f.m.ClaimTask(ctx, team, "b", dep.ID); !errors.Is(err, teammanager.ErrBlocked) {
		t.Fatalf("dependent after rejection = %v", err)
	}
	if _, err := f.m.CompleteTask(ctx, team, "a", task.ID, "v2"); err != nil {
		t.Fatal(err)
	}
	got, err = f.m.ReviewTask(ctx, team, "lead", task.ID, true, "")
	if err != nil || got.Status != teammanager.TaskCompleted || got.ReviewedBy != "lead" || got.Result != "v2" || got.Feedback != "cite sources" {
		t.Fatalf("approve = %+v, %v", got, err)
	}
	if _, err := f.m.ClaimTask(ctx, team, "b", dep.ID); err != nil {
		t.Fatalf("dependent after approval: %v", err)
	}
	var types []teammanager.MessageType
	for _, who := range []string{"lead", "a"} {
		in, _ := f.m.Inbox(ctx, team, who, teammanager.MailFilter{})
		for _, m := range in {
			types = append(types, m.Type)
		}
	}
	want := []teammanager.MessageType{teammanager.MsgRequestApproval, teammanager.MsgRequestApproval, teammanager.MsgRejection, teammanager.MsgApproval}
	if !slices.Equal(types, want) {
		t.Fatalf("messages %v, want %v", types, want)
	}
	hist, err := f.m.TaskHistory(ctx, team, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, h := range hist {
		actions = append(actions, h.Action+":"+string(h.To))
	}
	wantActions := []string{"created:pending", "updated:pending", "claimed:in_progress", "submitted:in_review",
		"rejected:in_progress", "submitted:in_review", "approved:completed"}
	if !slices.Equal(actions, wantActions) {
		t.Fatalf("history %v, want %v", actions, wantActions)
	}
}

func TestTask_LeaseAndStale(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{Lease: 10 * time.Minute, StaleAfter: 30 * time.Minute, RequireReview: true})
	a := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "a"})
	b := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "b"})
	if _, err := f.m.ClaimTask(ctx, team, "a", a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.ClaimTask(ctx, team, "b", b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.CompleteTask(ctx, team, "b", b.ID, "ok"); err != nil { // in_review
		t.Fatal(err)
	}
	f.clock.Advance(8 * time.Minute)
	if _, err := f.m.ProgressTask(ctx, team, "a", a.ID, "halfway"); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(8 * time.Minute)
	sw, err := f.m.SweepTasks(ctx, team)
	if err != nil || len(sw.Requeued) != 0 || len(sw.Stale) != 0 {
		t.Fatalf("sweep within the lease: %+v, %v", sw, err)
	}
	f.clock.Advance(3 * time.Minute)
	sw, err = f.m.SweepTasks(ctx, team)
	if err != nil || !slices.Equal(taskIDs(sw.Requeued), []string{a.ID}) || sw.Requeued[0].Assignee != "" || sw.Requeued[0].Status != teammanager.TaskPending {
		t.Fatalf("sweep past the lease: %+v, %v", sw, err)
	}
	f.clock.Advance(15 * time.Minute)
	sw, err = f.m.SweepTasks(ctx, team)
	if err != nil || !slices.Equal(taskIDs(sw.Stale), []string{b.ID}) {
		t.Fatalf("stale: %+v, %v", sw, err)
	}
}

// TestTask_Controls table-tests pause, resume, retry, skip and cancel on
// each status: who may, and from which status.
func TestTask_Controls(t *testing.T) {
	type op func(f *fixture, team, by, id string) (teammanager.Task, error)
	pause := func(f *fixture, team, by, id string) (teammanager.Task, error) {
		return f.m.PauseTask(ctx, team, by, id)
	}
	resume := func(f *fixture, team, by, id string) (teammanager.Task, error) {
		return f.m.ResumeTask(ctx, team, by, id)
	}
	retry := func(f *fixture, team, by, id string) (teammanager.Task, error) {
		return f.m.RetryTask(ctx, team, by, id)
	}
	skip := func(f *fixture, team, by, id string) (teammanager.Task, error) {
		return f.m.SkipTask(ctx, team, by, id, "")
	}
	cancel := func(f *fixture, team, by, id string) (teammanager.Task, error) {
		return f.m.CancelTask(ctx, team, by, id, "")
	}
	// states: how to bring a fresh task to a state.
	states := map[string]func(f *fixture, team, id string){
		"pending": func(*fixture, string, string) {},
		"in_progress": func(f *fixture, team, id string) {
			f.m.ClaimTask(ctx, team, "a", id)
		},
		"paused": func(f *fixture, team, id string) { f.m.PauseTask(ctx, team, "lead", id) },
		"failed": func(f *fixture, team, id string) {
			f.m.ClaimTask(ctx, team, "a", id)
			f.m.FailTask(ctx, team, "a", id, "broken")
		},
		"completed": func(f *fixture, team, id string) {
			f.m.ClaimTask(ctx, team, "a", id)
			f.m.CompleteTask(ctx, team, "a", id, "ok")
		},
		"cancelled": func(f *fixture, team, id string) { f.m.CancelTask(ctx, team, "lead", id, "") },
	}
	tests := []struct {
		op        string
		fn        op
		from      string
		want      error
		status    teammanager.TaskStatus
		paused    bool
		dispCount int
	}{
		{"pause", pause, "pending", nil, teammanager.TaskPending, true, 0},
		{"pause", pause, "in_progress", nil, teammanager.TaskInProgress, true, 1},
		{"pause", pause, "paused", teammanager.ErrTaskState, "", false, 0},
		{"pause", pause, "completed", teammanager.ErrTaskState, "", false, 0},
		{"resume", resume, "paused", nil, teammanager.TaskPending, false, 0},
		{"resume", resume, "pending", teammanager.ErrTaskState, "", false, 0},
		{"retry", retry, "failed", nil, teammanager.TaskPending, false, 0},
		{"retry", retry, "cancelled", nil, teammanager.TaskPending, false, 0},
		{"retry", retry, "pending", teammanager.ErrTaskState, "", false, 0},
		{"retry", retry, "completed", teammanager.ErrTaskState, "", false, 0},
		{"skip", skip, "pending", nil, teammanager.TaskCancelled, false, 0},
		{"skip", skip, "failed", nil, teammanager.TaskCancelled, false, 1},
		{"skip", skip, "completed", teammanager.ErrTaskState, "", false, 0},
		{"cancel", cancel, "in_progress", nil, teammanager.TaskCancelled, false, 1},
		{"cancel", cancel, "completed", teammanager.ErrTaskState, "", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.op+"/"+tt.from, func(t *testing.T) {
			f, team := boardFixture(t, teammanager.BoardSettings{})
			task := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "x"})
			states[tt.from](f, team, task.ID)
			if _, err := tt.fn(f, team, "a", task.ID); !errors.Is(err, teammanager.ErrNotAllowed) {
				t.Fatalf("%s by a member = %v, want ErrNotAllowed", tt.op, err)
			}
			before, _ := f.m.GetTask(ctx, team, task.ID)
			got, err := tt.fn(f, team, "lead", task.ID)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("%s = %v, want %v", tt.op, err, tt.want)
			}
			if err != nil {
				after, _ := f.m.GetTask(ctx, team, task.ID)
				if after.UpdatedAt != before.UpdatedAt || after.Status != before.Status {
					t.Fatalf("refused %s changed the task", tt.op)
				}
				return
			}
			if got.Status != tt.status || got.Paused != tt.paused || (tt.op == "retry") != (got.Dispatches == 0 && tt.from != "pending") && tt.op == "retry" {
				t.Fatalf("%s → %+v", tt.op, got)
			}
			if tt.op == "skip" && !got.Skipped {
				t.Fatalf("skip did not mark the task skipped: %+v", got)
			}
		})
	}
}

// TestTask_EventsAndSPARQL: every transition is an event on the team
// manager's stream, and the board is RDF that SPARQL reads.
func TestTask_EventsAndSPARQL(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{RequireReview: true})
	last, _ := f.m.LastEventID(ctx)
	task := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "index the docs", Priority: 7})
	claimAndComplete(t, f, team, "a", task.ID)
	end, _ := f.m.LastEventID(ctx)
	seq, err := f.m.Subscribe(ctx, last)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for ev, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Task != nil {
			got = append(got, string(ev.Type)+":"+ev.Task.Action+":"+string(ev.Task.Task.Status))
		} else if ev.Message != nil {
			got = append(got, string(ev.Type)+":"+string(ev.Message.Type))
		}
		if ev.ID == end {
			break
		}
	}
	want := []string{"task.created:created:pending", "task.status:claimed:in_progress", "task.status:submitted:in_review",
		"message.sent:request_approval", "task.status:approved:completed", "message.sent:approval"}
	if !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	rows, err := selectRows(t, f.m, `SELECT ?id ?status ?prio ?who WHERE { GRAPH ?g {
		?t a cx:Task ; cx:task:id ?id ; cx:task:status ?status ; cx:task:priority ?prio ; cx:task:assignee ?who } }`, sparql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0] != fmt.Sprintf(`"T1" "completed" "7"^^<http://www.w3.org/2001/XMLSchema#integer> %s`, f.ns.Member(team, "a")) {
		t.Fatalf("SPARQL rows %q", rows)
	}
}

// TestTask_Findings: a task's findings go through the finding machinery
// with the task in their provenance.
func TestTask_Findings(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{})
	task := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "find capitals"})
	fs := []teammanager.Finding{{Subject: iri("fr"), Predicate: iri("capital"), Object: iri("paris")}}
	if _, err := f.m.AddTaskFindings(ctx, team, "a", task.ID, fs); !errors.Is(err, teammanager.ErrNotAllowed) {
		t.Fatalf("findings on an unclaimed task = %v", err)
	}
	if _, err := f.m.ClaimTask(ctx, team, "a", task.ID); err != nil {
		t.Fatal(err)
	}
	f.status(t, team, "a", teammanager.Running, "")
	ids, err := f.m.AddTaskFindings(ctx, team, "a", task.ID, fs)
	if err != nil || len(ids) != 1 {
		t.Fatal(ids, err)
	}
	rows, err := selectRows(t, f.m, `SELECT ?who ?task WHERE { GRAPH ?g { ?f cx:finding:task ?task ; cx:finding:assertedBy ?who } }`, sparql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%s %s", f.ns.Member(team, "a"), f.ns.Task(team, task.ID)); len(rows) != 1 || rows[0] != want {
		t.Fatalf("rows %q, want %q", rows, want)
	}
	stored, err := f.m.Findings(ctx, team, teammanager.FindingFilter{Agent: "a"})
	if err != nil || len(stored) != 1 || stored[0].ID != ids[0] {
		t.Fatalf("findings %+v, %v", stored, err)
	}
}

// TestTask_DeleteTeam removes the board with the team.
func TestTask_DeleteTeam(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{})
	task := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "x"})
	claimAndComplete(t, f, team, "a", task.ID)
	if _, err := f.m.SendMessage(ctx, team, "a", teammanager.OutMessage{Type: teammanager.MsgStatus, Body: "hi"}); err != nil {
		t.Fatal(err)
	}
	f.deleteTeam(t, team)
	for _, g := range []quad.IRI{f.ns.TaskGraph(team), f.ns.MailGraph(team)} {
		if qs := f.graph(t, g); len(qs) != 0 {
			t.Fatalf("graph %s keeps %d quads", g, len(qs))
		}
	}
	if _, err := f.m.ListTasks(ctx, team, teammanager.TaskFilter{}); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Fatalf("ListTasks after delete = %v", err)
	}
	for _, table := range []string{"taskboard", "tasks", "taskready", "taskheld", "taskhist", "taskcomment", "mail", "inbox"} {
		rows, _, err := f.n.SideRows(ctx, table)
		if err != nil || len(rows) != 0 {
			t.Fatalf("table %s keeps %d rows (%v)", table, len(rows), err)
		}
	}
}

// TestTask_TeamLifecycle: a paused team's board waits (its mailbox does
// not); a disbanded team's board and mailbox are read-only.
func TestTask_TeamLifecycle(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{})
	task := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "x"})
	f.status(t, team, "a", teammanager.Running, "")
	if _, err := f.m.PauseTeam(ctx, team); err != nil {
		t.Fatal(err)
	}
	boardWrites := map[string]func() error{
		"create": func() error {
			_, err := f.m.CreateTask(ctx, team, "lead", teammanager.NewTask{Subject: "y"})
			return err
		},
		"claim":    func() error { _, err := f.m.ClaimTask(ctx, team, "a", task.ID); return err },
		"dispatch": func() error { _, err := f.m.DispatchUnblocked(ctx, team); return err },
	}
	for name, w := range boardWrites {
		if err := w(); !errors.Is(err, teammanager.ErrTeamPaused) {
			t.Errorf("%s while paused: %v, want ErrTeamPaused", name, err)
		}
	}
	send := func() error {
		_, err := f.m.SendMessage(ctx, team, "lead", teammanager.OutMessage{Type: teammanager.MsgStatus, Body: "paused for now"})
		return err
	}
	if err := send(); err != nil {
		t.Fatalf("mail while paused: %v", err)
	}
	if ts, err := f.m.ListTasks(ctx, team, teammanager.TaskFilter{}); err != nil || len(ts) != 1 {
		t.Fatalf("list while paused: %v, %v", ts, err)
	}
	if _, err := f.m.ResumeTeam(ctx, team); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.ClaimTask(ctx, team, "a", task.ID); err != nil {
		t.Fatalf("claim after resume: %v", err)
	}
	if _, err := f.m.DisbandTeam(ctx, team); err != nil {
		t.Fatal(err)
	}
	boardWrites["mail"] = send
	for name, w := range boardWrites {
		if err := w(); !errors.Is(err, teammanager.ErrTeamDisbanded) {
			t.Errorf("%s once disbanded: %v, want ErrTeamDisbanded", name, err)
		}
	}
}

func TestParseTaskStatus(t *testing.T) {
	for _, s := range []string{"pending", "in_progress", "in_review", "completed", "failed", "cancelled"} {
		if st, err := teammanager.ParseTaskStatus(s); err != nil || string(st) != s {
			t.Errorf("ParseTaskStatus(%q) = %q, %v", s, st, err)
		}
	}
	for _, s := range []string{"", "running", "Completed", "in-progress"} {
		if _, err := teammanager.ParseTaskStatus(s); !errors.Is(err, teammanager.ErrInvalidStatus) {
			t.Errorf("ParseTaskStatus(%q) = %v, want ErrInvalidStatus", s, err)
		}
	}
}

// TestTask_Lease_ExpiredUntilSwept: a lease that ran out takes effect only
// when SweepTasks or DispatchUnblocked requeues the task (the documented
// behaviour, BoardSettings.Lease): until then the task stays its
// assignee's — its progress renews the lease and its completion is taken,
// and no other member can claim it; once requeued, the former assignee's
// writes are refused.
func TestTask_Lease_ExpiredUntilSwept(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{Lease: 10 * time.Minute, RequireReview: true})
	a := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "a"})
	b := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "b"})
	for _, c := range []struct{ agent, task string }{{"a", a.ID}, {"b", b.ID}} {
		if _, err := f.m.ClaimTask(ctx, team, c.agent, c.task); err != nil {
			t.Fatal(err)
		}
	}
	f.clock.Advance(11 * time.Minute) // both leases ran out; no sweep yet
	var se *teammanager.TaskStateError
	if _, err := f.m.ClaimTask(ctx, team, "c", a.ID); !errors.As(err, &se) {
		t.Fatalf("another member claims a task whose lease ran out, unswept: %v, want a *TaskStateError", err)
	}
	if got, err := f.m.ProgressTask(ctx, team, "a", a.ID, "still on it"); err != nil || got.Assignee != "a" || got.Status != teammanager.TaskInProgress {
		t.Fatalf("progress past the lease, unswept: %+v, %v", got, err)
	}
	if got, err := f.m.CompleteTask(ctx, team, "b", b.ID, "done late"); err != nil || got.Status != teammanager.TaskInReview {
		t.Fatalf("completion past the lease, unswept: %+v, %v", got, err)
	}
	if sw, err := f.m.SweepTasks(ctx, team); err != nil || len(sw.Requeued) != 0 {
		t.Fatalf("sweep after the late progress and completion: %+v, %v", sw, err)
	}
	f.clock.Advance(11 * time.Minute)
	if sw, err := f.m.SweepTasks(ctx, team); err != nil || !slices.Equal(taskIDs(sw.Requeued), []string{a.ID}) {
		t.Fatalf("sweep past the renewed lease: %+v, %v", sw, err)
	}
	if _, err := f.m.ProgressTask(ctx, team, "a", a.ID, "too late"); !errors.As(err, &se) || se.Status != teammanager.TaskPending {
		t.Fatalf("progress once requeued: %v, want a *TaskStateError (pending)", err)
	}
	if _, err := f.m.CompleteTask(ctx, team, "a", a.ID, "too late"); !errors.As(err, &se) {
		t.Fatalf("completion once requeued: %v, want a *TaskStateError", err)
	}
}
