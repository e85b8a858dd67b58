package client_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/teammanager"
)

// boardBehaviours are task board and mailbox behaviours written against
// the interface: the client must give what the embedded manager gives.
var boardBehaviours = []struct {
	name string
	run  func(t *testing.T, tm api.TeamManager)
}{
	{"TaskReviewLoop", testTaskReviewLoop},
	{"TaskControl", testTaskControl},
	{"TaskErrors", testTaskErrors},
	{"BoardSettingsAndSweep", testBoardSettingsAndSweep},
	{"Mailbox", testMailbox},
	{"TaskFindingsAndRetention", testTaskFindingsAndRetention},
	{"TaskFinishAllOrNothing", testTaskFinishAllOrNothing},
	{"BoardPlanApprovalAndPartialUpdate", testBoardPlanApprovalAndPartialUpdate},
	{"TaskHandedOutCarriesPlan", testTaskHandedOutCarriesPlan},
	{"PlanReviewNamesRevision", testPlanReviewNamesRevision},
	{"PlanRedraftIsNewRevision", testPlanRedraftIsNewRevision},
	{"PlanEmptyByNotAllowed", testPlanEmptyByNotAllowed},
	{"ClaimPastCircuitBreakerReturnsTask", testClaimPastCircuitBreakerReturnsTask},
	{"LeadChangeHandsOver", testLeadChangeHandsOver},
}

// TestTaskBoard runs each board behaviour against each backend.
func TestTaskBoard(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			for _, bh := range boardBehaviours {
				t.Run(bh.name, func(t *testing.T) { bh.run(t, b.open(t)) })
			}
		})
	}
}

// crew creates team "crew": lead ann (role lead), members bob and cat.
func crew(t *testing.T, tm api.TeamManager) string {
	t.Helper()
	ms := []teammanager.MemberConfig{{AgentID: "ann", Role: "lead"}, {AgentID: "bob", Role: "dev"}, {AgentID: "cat", Role: "dev"}}
	return create(t, tm, teammanager.TeamConfig{ID: "crew", Name: "crew", Members: ms, Timeout: -1}).ID
}

func must[T any](t *testing.T, what string) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
}

func testTaskReviewLoop(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	t1 := must[teammanager.Task](t, "create T1")(tm.CreateTask(ctx, team, "ann", teammanager.NewTask{Subject: "design", Description: "the API", Priority: 5}))
	t2 := must[teammanager.Task](t, "create T2")(tm.CreateTask(ctx, team, "ann", teammanager.NewTask{Subject: "build", Assignee: "cat", BlockedBy: []string{t1.ID}}))
	if t1.ID != "T1" || t2.ID != "T2" || t1.IRI == "" || t1.CreatedBy != "ann" || t1.Status != teammanager.TaskPending || t1.CreatedAt.IsZero() ||
		!slices.Equal(t2.BlockedBy, []string{"T1"}) || t2.Assignee != "cat" {
		t.Fatalf("created %+v, %+v", t1, t2)
	}
	if got := must[teammanager.Task](t, "get T1")(tm.GetTask(ctx, team, "T1")); !slices.Equal(got.Dependents, []string{"T2"}) || got.Description != "the API" {
		t.Fatalf("GetTask T1 = %+v", got)
	}
	if _, err := tm.ClaimTask(ctx, team, "cat", "T2"); !errors.Is(err, teammanager.ErrBlocked) {
		t.Fatalf("claim blocked T2: %v", err)
	}
	got := must[teammanager.Task](t, "next")(tm.ClaimNext(ctx, team, "bob"))
	if got.ID != "T1" || got.Status != teammanager.TaskInProgress || got.Assignee != "bob" || got.Dispatches != 1 {
		t.Fatalf("ClaimNext = %+v", got)
	}
	must[teammanager.Task](t, "progress")(tm.ProgressTask(ctx, team, "bob", "T1", "half done"))
	if got = must[teammanager.Task](t, "complete")(tm.CompleteTask(ctx, team, "bob", "T1", "v1")); got.Status != teammanager.TaskInReview || got.Result != "v1" {
		t.Fatalf("CompleteTask = %+v", got)
	}
	if got = must[teammanager.Task](t, "reject")(tm.ReviewTask(ctx, team, "ann", "T1", false, "needs errors")); got.Status != teammanager.TaskInProgress || got.Feedback != "needs errors" {
		t.Fatalf("reject = %+v", got)
	}
	must[teammanager.Task](t, "complete again")(tm.CompleteTask(ctx, team, "bob", "T1", "v2"))
	if got = must[teammanager.Task](t, "approve")(tm.ReviewTask(ctx, team, "ann", "T1", true, "")); got.Status != teammanager.TaskCompleted || got.ReviewedBy != "ann" || got.ReviewedAt.IsZero() {
		t.Fatalf("approve = %+v", got)
	}
	rep := must[teammanager.DispatchReport](t, "dispatch")(tm.DispatchUnblocked(ctx, team))
	if len(rep.Dispatched) != 1 || rep.Dispatched[0].ID != "T2" || rep.Dispatched[0].Assignee != "cat" || len(rep.Requeued) != 0 || len(rep.Failed) != 0 {
		t.Fatalf("dispatch = %+v", rep)
	}
	cm := must[teammanager.TaskComment](t, "comment")(tm.AddTaskComment(ctx, team, "cat", "T2", teammanager.CommentNote, "on it"))
	if cm.ID != "T2.c1" || cm.Author != "cat" || cm.Kind != teammanager.CommentNote {
		t.Fatalf("comment = %+v", cm)
	}
	cs := must[[]teammanager.TaskComment](t, "comments")(tm.TaskComments(ctx, team, "T2"))
	if len(cs) != 1 || cs[0].Text != "on it" || cs[0].Task != "T2" {
		t.Fatalf("comments = %+v", cs)
	}
	hs := must[[]teammanager.TaskChange](t, "history")(tm.TaskHistory(ctx, team, "T1"))
	var actions []string
	for _, h := range hs {
		actions = append(actions, h.Action)
	}
	if want := []string{"created", "updated", "claimed", "submitted", "rejected", "submitted", "approved"}; !slices.Equal(actions, want) {
		t.Fatalf("history actions = %v, want %v", actions, want)
	}
	if hs[4].By != "ann" || hs[4].Reason != "needs errors" || hs[4].From != teammanager.TaskInReview || hs[4].To != teammanager.TaskInProgress {
		t.Fatalf("rejected entry = %+v", hs[4])
	}
	ts := must[[]teammanager.Task](t, "list")(tm.ListTasks(ctx, team, teammanager.TaskFilter{Status: teammanager.TaskInProgress}))
	if len(ts) != 1 || ts[0].ID != "T2" {
		t.Fatalf("ListTasks in_progress = %+v", ts)
	}
	if ts = must[[]teammanager.Task](t, "list all")(tm.ListTasks(ctx, team, teammanager.TaskFilter{})); len(ts) != 2 {
		t.Fatalf("ListTasks = %+v", ts)
	}
}

func testTaskControl(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	for _, s := range []string{"a", "b", "c"} {
		must[teammanager.Task](t, "create")(tm.CreateTask(ctx, team, "ann", teammanager.NewTask{Subject: s}))
	}
	subj, prio := "a, renamed", 9
	got := must[teammanager.Task](t, "update")(tm.UpdateTask(ctx, team, "ann", "T1", teammanager.TaskUpdate{Subject: &subj, Priority: &prio}))
	if got.Subject != subj || got.Priority != 9 {
		t.Fatalf("UpdateTask = %+v", got)
	}
	bb := []string{"T1"}
	if got = must[teammanager.Task](t, "update blocked_by")(tm.UpdateTask(ctx, team, "ann", "T3", teammanager.TaskUpdate{BlockedBy: &bb})); !slices.Equal(got.BlockedBy, bb) {
		t.Fatalf("UpdateTask blocked_by = %+v", got)
	}
	var none []string // a nil list clears blocked_by, as an empty one
	if got = must[teammanager.Task](t, "clear blocked_by")(tm.UpdateTask(ctx, team, "ann", "T3", teammanager.TaskUpdate{BlockedBy: &none})); len(got.BlockedBy) != 0 {
		t.Fatalf("UpdateTask blocked_by nil = %+v", got)
	}
	if got = must[teammanager.Task](t, "pause")(tm.PauseTask(ctx, team, "ann", "T2")); !got.Paused {
		t.Fatalf("PauseTask = %+v", got)
	}
	if got = must[teammanager.Task](t, "resume")(tm.ResumeTask(ctx, team, "ann", "T2")); got.Paused {
		t.Fatalf("ResumeTask = %+v", got)
	}
	if got = must[teammanager.Task](t, "skip")(tm.SkipTask(ctx, team, "ann", "T1", "not needed")); got.Status != teammanager.TaskCancelled || !got.Skipped {
		t.Fatalf("SkipTask = %+v", got)
	}
	if got = must[teammanager.Task](t, "cancel")(tm.CancelTask(ctx, team, "ann", "T2", "dropped")); got.Status != teammanager.TaskCancelled || got.Error != "dropped" {
		t.Fatalf("CancelTask = %+v", got)
	}
	if got = must[teammanager.Task](t, "retry")(tm.RetryTask(ctx, team, "ann", "T2")); got.Status != teammanager.TaskPending {
		t.Fatalf("RetryTask = %+v", got)
	}
	must[teammanager.Task](t, "claim")(tm.ClaimTask(ctx, team, "bob", "T2"))
	if got = must[teammanager.Task](t, "fail")(tm.FailTask(ctx, team, "bob", "T2", "no access")); got.Status != teammanager.TaskFailed || got.Error != "no access" {
		t.Fatalf("FailTask = %+v", got)
	}
	must[teammanager.Task](t, "retry failed")(tm.RetryTask(ctx, team, "ann", "T2"))
	must[teammanager.Task](t, "claim again")(tm.ClaimTask(ctx, team, "bob", "T2"))
	must[teammanager.TaskComment](t, "blocker")(tm.AddTaskComment(ctx, team, "bob", "T2", teammanager.CommentBlocker, "the DB is down"))
	if got = must[teammanager.Task](t, "get")(tm.GetTask(ctx, team, "T2")); got.Status != teammanager.TaskFailed {
		t.Fatalf("after a blocker comment: %+v", got)
	}
	inbox := must[[]teammanager.Message](t, "inbox")(tm.Inbox(ctx, team, "ann", teammanager.MailFilter{}))
	if len(inbox) != 2 || inbox[1].Task != "T2" || inbox[1].From != "bob" || !strings.Contains(inbox[1].Body, "the DB is down") {
		t.Fatalf("the lead's inbox after a blocker: %+v", inbox)
	}
}

func testTaskErrors(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	must[teammanager.Task](t, "create")(tm.CreateTask(ctx, team, "ann", teammanager.NewTask{Subject: "a"}))
	must[teammanager.Task](t, "create")(tm.CreateTask(ctx, team, "ann", teammanager.NewTask{Subject: "b", BlockedBy: []string{"T1"}}))
	cycle := []string{"T2"}
	for _, tc := range []struct {
		name string
		err  error
		want error
		kind error
	}{
		{"unknown task", errOf(tm.GetTask(ctx, team, "T9")), teammanager.ErrUnknownTask, api.ErrNotFound},
		{"unknown team", errOf(tm.ListTasks(ctx, "nope", teammanager.TaskFilter{})), teammanager.ErrUnknownTeam, api.ErrNotFound},
		{"member creates", errOf(tm.CreateTask(ctx, team, "bob", teammanager.NewTask{Subject: "x"})), teammanager.ErrNotAllowed, api.ErrConflict},
		{"empty subject", errOf(tm.CreateTask(ctx, team, "ann", teammanager.NewTask{})), teammanager.ErrInvalidTask, api.ErrInvalid},
		{"cycle", errOf(tm.UpdateTask(ctx, team, "ann", "T1", teammanager.TaskUpdate{BlockedBy: &cycle})), teammanager.ErrTaskCycle, api.ErrInvalid},
		{"complete unclaimed", errOf(tm.CompleteTask(ctx, team, "bob", "T1", "r")), teammanager.ErrTaskState, api.ErrConflict},
		{"blocked", errOf(tm.ClaimTask(ctx, team, "bob", "T2")), teammanager.ErrBlocked, api.ErrConflict},
		{"bad status filter", errOf(tm.ListTasks(ctx, team, teammanager.TaskFilter{Status: "done"})), teammanager.ErrInvalidStatus, api.ErrInvalid},
		{"bad comment kind", errOf(tm.AddTaskComment(ctx, team, "bob", "T1", "rant", "x")), teammanager.ErrInvalidTask, api.ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !errors.Is(tc.err, tc.want) || api.ExitCode(tc.err) != api.ExitCode(tc.kind) {
				t.Fatalf("err = %v (exit %d), want %v (exit %d)", tc.err, api.ExitCode(tc.err), tc.want, api.ExitCode(tc.kind))
			}
		})
	}
	must[teammanager.Task](t, "claim")(tm.ClaimTask(ctx, team, "bob", "T1"))
	if _, err := tm.ClaimNext(ctx, team, "cat"); !errors.Is(err, teammanager.ErrNoReadyTask) {
		t.Fatalf("ClaimNext with nothing ready: %v", err)
	}
	if got := must[teammanager.Task](t, "get")(tm.GetTask(ctx, team, "T1")); got.Assignee != "bob" || got.Status != teammanager.TaskInProgress {
		t.Fatalf("a refused call changed T1: %+v", got)
	}
}

func errOf[T any](_ T, err error) error { return err }

// testLeadChangeHandsOver: a new lead that may not work lets go of its
// tasks (others take them), and reviews the tasks in review, which it is
// asked to; the old lead no longer does.
func testLeadChangeHandsOver(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	must[teammanager.Task](t, "create T1")(tm.CreateTask(ctx, team, "ann", teammanager.NewTask{Subject: "held"}))
	must[teammanager.Task](t, "create T2")(tm.CreateTask(ctx, team, "ann", teammanager.NewTask{Subject: "reviewed"}))
	must[teammanager.Task](t, "claim T1")(tm.ClaimTask(ctx, team, "bob", "T1"))
	must[teammanager.Task](t, "claim T2")(tm.ClaimTask(ctx, team, "cat", "T2"))
	must[teammanager.Task](t, "submit T2")(tm.CompleteTask(ctx, team, "cat", "T2", "done"))
	must[teammanager.BoardSettings](t, "bob leads")(tm.UpdateBoard(ctx, team, teammanager.BoardUpdate{Lead: ptr("bob")}))
	if got := must[teammanager.Task](t, "get T1")(tm.GetTask(ctx, team, "T1")); got.Status != teammanager.TaskPending || got.Assignee != "" {
		t.Fatalf("the new lead's T1 = %+v, want pending, unassigned", got)
	}
	must[teammanager.Task](t, "ann claims T1")(tm.ClaimTask(ctx, team, "ann", "T1"))
	inbox := must[[]teammanager.Message](t, "inbox")(tm.Inbox(ctx, team, "bob", teammanager.MailFilter{}))
	if len(inbox) != 1 || inbox[0].Type != teammanager.MsgRequestApproval || inbox[0].Task != "T2" {
		t.Fatalf("the new lead's inbox = %+v", inbox)
	}
	if _, err := tm.ReviewTask(ctx, team, "ann", "T2", true, ""); !errors.Is(err, teammanager.ErrNotAllowed) {
		t.Fatalf("the old lead reviews: %v", err)
	}
	must[teammanager.Task](t, "bob approves T2")(tm.ReviewTask(ctx, team, "bob", "T2", true, ""))
}

// testClaimPastCircuitBreakerReturnsTask: a claim that trips the circuit
// breaker returns the failed task together with the error matching
// ErrCircuitOpen (ClaimTask's contract), through a server too.
func testClaimPastCircuitBreakerReturnsTask(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	must[teammanager.BoardSettings](t, "board")(tm.UpdateBoard(ctx, team, teammanager.BoardUpdate{MaxDispatches: ptr(1)}))
	must[teammanager.Task](t, "create")(tm.CreateTask(ctx, team, "ann", teammanager.NewTask{Subject: "flaky", Priority: 3}))
	must[teammanager.Task](t, "claim")(tm.ClaimTask(ctx, team, "bob", "T1"))
	// bob finishes: T1 goes back to pending, unassigned, dispatched once.
	must[teammanager.MemberUpdate](t, "bob runs")(tm.UpdateMemberStatus(ctx, team, "bob", teammanager.Running, ""))
	must[teammanager.MemberUpdate](t, "bob completes")(tm.UpdateMemberStatus(ctx, team, "bob", teammanager.Completed, "done"))
	got, err := tm.ClaimTask(ctx, team, "cat", "T1")
	const reason = "dispatched once without completing"
	if !errors.Is(err, teammanager.ErrCircuitOpen) || api.ExitCode(err) != api.ExitCode(api.ErrConflict) || !strings.Contains(err.Error(), reason) {
		t.Fatalf("claim past the breaker: err = %v (exit %d)", err, api.ExitCode(err))
	}
	if got.ID != "T1" || got.Team != team || got.Status != teammanager.TaskFailed || got.Error != reason || got.Dispatches != 1 ||
		got.Subject != "flaky" || got.Priority != 3 || got.IRI == "" || got.UpdatedAt.IsZero() {
		t.Fatalf("claim past the breaker returned task %+v, want T1 failed (%q)", got, reason)
	}
	if stored := must[teammanager.Task](t, "get")(tm.GetTask(ctx, team, "T1")); stored.Status != teammanager.TaskFailed || stored.Error != reason {
		t.Fatalf("T1 after the breaker = %+v", stored)
	}
}

func testBoardSettingsAndSweep(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	s := must[teammanager.BoardSettings](t, "board")(tm.Board(ctx, team))
	if s.Lead != "ann" || !s.RequireReview || s.MaxDispatches != teammanager.DefaultMaxDispatches || s.Lease != teammanager.DefaultTaskLease {
		t.Fatalf("Board = %+v", s)
	}
	s.RequireReview, s.AllowRequests, s.MaxDispatches, s.Lease = false, true, 2, 90*time.Second
	got := must[teammanager.BoardSettings](t, "configure")(tm.ConfigureBoard(ctx, team, s))
	if got != s {
		t.Fatalf("ConfigureBoard = %+v, want %+v", got, s)
	}
	if got = must[teammanager.BoardSettings](t, "board again")(tm.Board(ctx, team)); got != s {
		t.Fatalf("Board after configure = %+v, want %+v", got, s)
	}
	if _, err := tm.ConfigureBoard(ctx, team, teammanager.BoardSettings{Lead: "zed"}); !errors.Is(err, teammanager.ErrUnknownAgent) {
		t.Fatalf("ConfigureBoard with a stranger as lead: %v", err)
	}
	must[teammanager.Task](t, "member creates")(tm.CreateTask(ctx, team, "bob", teammanager.NewTask{Subject: "x"}))
	must[teammanager.Task](t, "claim")(tm.ClaimTask(ctx, team, "bob", "T1"))
	if got := must[teammanager.Task](t, "complete")(tm.CompleteTask(ctx, team, "bob", "T1", "r")); got.Status != teammanager.TaskCompleted {
		t.Fatalf("complete without review = %+v", got)
	}
	sw := must[teammanager.TaskSweep](t, "sweep")(tm.SweepTasks(ctx, team))
	if len(sw.Requeued) != 0 || len(sw.Stale) != 0 {
		t.Fatalf("SweepTasks = %+v", sw)
	}
}

// testBoardPlanApprovalAndPartialUpdate: every board setting, plan
// approval and its approver too, goes through ConfigureBoard and Board;
// UpdateBoard changes only the settings given.
func testBoardPlanApprovalAndPartialUpdate(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	s := must[teammanager.BoardSettings](t, "board")(tm.Board(ctx, team))
	s.PlanApproval, s.PlanApprover = true, "cat"
	if got := must[teammanager.BoardSettings](t, "configure")(tm.ConfigureBoard(ctx, team, s)); got != s {
		t.Fatalf("ConfigureBoard = %+v, want %+v", got, s)
	}
	if got := must[teammanager.BoardSettings](t, "board again")(tm.Board(ctx, team)); got != s {
		t.Fatalf("Board after configure = %+v, want %+v", got, s)
	}
	lease := 30 * time.Minute
	got := must[teammanager.BoardSettings](t, "update lease")(tm.UpdateBoard(ctx, team, teammanager.BoardUpdate{Lease: &lease}))
	want := s
	want.Lease = lease
	if got != want {
		t.Fatalf("UpdateBoard of the lease = %+v, want %+v", got, want)
	}
	must[teammanager.Task](t, "create")(tm.CreateTask(ctx, team, "ann", teammanager.NewTask{Subject: "x"}))
	if _, err := tm.ClaimNext(ctx, team, "bob"); !errors.Is(err, teammanager.ErrPlanNotApproved) {
		t.Fatalf("claim before the plan is approved: %v", err)
	}
	off, none := false, ""
	got = must[teammanager.BoardSettings](t, "update plan")(tm.UpdateBoard(ctx, team, teammanager.BoardUpdate{PlanApproval: &off, PlanApprover: &none}))
	want.PlanApproval, want.PlanApprover = false, ""
	if got != want {
		t.Fatalf("UpdateBoard of the plan settings = %+v, want %+v", got, want)
	}
	if _, err := tm.UpdateBoard(ctx, team, teammanager.BoardUpdate{PlanApprover: ptr("ann")}); !errors.Is(err, teammanager.ErrInvalidConfig) {
		t.Fatalf("UpdateBoard with the lead as approver: %v", err)
	}
	if got := must[teammanager.BoardSettings](t, "board at last")(tm.Board(ctx, team)); got != want {
		t.Fatalf("a refused UpdateBoard changed the board: %+v, want %+v", got, want)
	}
}

func ptr[T any](v T) *T { return &v }

// testTaskHandedOutCarriesPlan: a task claimed (ClaimTask, ClaimNext) or
// dispatched carries the plan in force; none while no plan is approved,
// and none on a task read back.
func testTaskHandedOutCarriesPlan(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	pl := tm.(api.TeamPlans)
	for _, s := range []string{"a", "b", "c", "d"} {
		must[teammanager.Task](t, "create")(tm.CreateTask(ctx, team, "ann", teammanager.NewTask{Subject: s}))
	}
	if got := must[teammanager.Task](t, "claim without a plan")(tm.ClaimTask(ctx, team, "bob", "T1")); got.Plan != nil {
		t.Fatalf("claimed with no plan approved: plan %+v", got.Plan)
	}
	must[teammanager.Plan](t, "draft")(pl.DraftPlan(ctx, team, "ann", teammanager.NewPlan{Title: "ship", Steps: []teammanager.PlanStep{{Title: "build", Description: "it"}, {Title: "test"}}}))
	must[teammanager.Plan](t, "submit")(pl.SubmitPlan(ctx, team, "ann"))
	if got := must[teammanager.Task](t, "claim with a plan pending")(tm.ClaimTask(ctx, team, "cat", "T2")); got.Plan != nil {
		t.Fatalf("claimed with a plan pending review: plan %+v", got.Plan)
	}
	p := must[teammanager.Plan](t, "approve")(pl.ReviewPlan(ctx, team, teammanager.Operator, 1, true, ""))
	check := func(what string, got *teammanager.Plan) {
		t.Helper()
		if got == nil || got.Revision != p.Revision || got.Title != "ship" || got.State != teammanager.PlanApproved || got.IRI != p.IRI ||
			!slices.Equal(got.Steps, p.Steps) || len(got.Steps) != 2 || got.Steps[0].Description != "it" {
			t.Fatalf("%s: plan %+v, want %+v", what, got, p)
		}
	}
	must[teammanager.Task](t, "complete T1")(tm.CompleteTask(ctx, team, "bob", "T1", "r"))
	check("ClaimTask", must[teammanager.Task](t, "claim")(tm.ClaimTask(ctx, team, "bob", "T3")).Plan)
	must[teammanager.Task](t, "complete T2")(tm.CompleteTask(ctx, team, "cat", "T2", "r"))
	rep := must[teammanager.DispatchReport](t, "dispatch")(tm.DispatchUnblocked(ctx, team))
	if len(rep.Dispatched) != 1 {
		t.Fatalf("dispatch = %+v", rep)
	}
	check("DispatchUnblocked", rep.Dispatched[0].Plan)
	if got := must[teammanager.Task](t, "get")(tm.GetTask(ctx, team, "T3")); got.Plan != nil {
		t.Fatalf("GetTask: plan %+v", got.Plan)
	}
	must[teammanager.Task](t, "complete T3")(tm.CompleteTask(ctx, team, "bob", "T3", "r"))
	must[teammanager.Task](t, "review T3")(tm.ReviewTask(ctx, team, "ann", "T3", false, "again"))
	must[teammanager.Task](t, "fail T3")(tm.FailTask(ctx, team, "bob", "T3", "no"))
	must[teammanager.Task](t, "retry T3")(tm.RetryTask(ctx, team, "ann", "T3"))
	check("ClaimNext", must[teammanager.Task](t, "next")(tm.ClaimNext(ctx, team, "bob")).Plan)
}

func testMailbox(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	m1 := must[teammanager.Message](t, "send")(tm.SendMessage(ctx, team, "bob", teammanager.OutMessage{Type: teammanager.MsgAskQuestion,
		To: []string{"ann"}, Subject: "scope", Body: "which API?", Attachments: []string{"https://example.org/spec"}}))
	if m1.ID != "M1" || m1.Thread != "M1" || m1.From != "bob" || !slices.Equal(m1.To, []string{"ann"}) || m1.SentAt.IsZero() {
		t.Fatalf("sent %+v", m1)
	}
	m2 := must[teammanager.Message](t, "reply")(tm.SendMessage(ctx, team, "ann", teammanager.OutMessage{Type: teammanager.MsgStatus,
		To: []string{"bob"}, Body: "the public one", ReplyTo: "M1"}))
	m3 := must[teammanager.Message](t, "broadcast")(tm.SendMessage(ctx, team, "ann", teammanager.OutMessage{Type: teammanager.MsgStatus, Body: "standup"}))
	if m2.Thread != "M1" || m2.ReplyTo != "M1" || !m3.Broadcast || !slices.Equal(m3.To, []string{"bob", "cat"}) {
		t.Fatalf("reply %+v, broadcast %+v", m2, m3)
	}
	in := must[[]teammanager.Message](t, "inbox")(tm.Inbox(ctx, team, "bob", teammanager.MailFilter{}))
	if len(in) != 2 || in[0].ID != "M2" || in[0].Status != teammanager.MsgUnread || !in[0].ReadAt.IsZero() {
		t.Fatalf("bob's inbox = %+v", in)
	}
	if err := tm.MarkMessages(ctx, team, "bob", teammanager.MsgRead, "M2"); err != nil {
		t.Fatal(err)
	}
	if err := tm.MarkMessages(ctx, team, "bob", teammanager.MsgArchived, "M3"); err != nil {
		t.Fatal(err)
	}
	in = must[[]teammanager.Message](t, "inbox")(tm.Inbox(ctx, team, "bob", teammanager.MailFilter{}))
	if len(in) != 1 || in[0].ID != "M2" || in[0].Status != teammanager.MsgRead || in[0].ReadAt.IsZero() {
		t.Fatalf("bob's inbox after read and archive = %+v", in)
	}
	if in = must[[]teammanager.Message](t, "archived")(tm.Inbox(ctx, team, "bob", teammanager.MailFilter{Status: teammanager.MsgArchived})); len(in) != 1 || in[0].ID != "M3" {
		t.Fatalf("bob's archive = %+v", in)
	}
	th := must[[]teammanager.Message](t, "thread")(tm.Thread(ctx, team, "M2"))
	if len(th) != 2 || th[0].ID != "M1" || th[1].ID != "M2" || th[0].Attachments[0] != "https://example.org/spec" {
		t.Fatalf("thread = %+v", th)
	}
	if h := must[[]teammanager.Message](t, "history")(tm.History(ctx, team, 2)); len(h) != 2 || h[0].ID != "M2" || h[1].ID != "M3" {
		t.Fatalf("history 2 = %+v", h)
	}
	if h := must[[]teammanager.Message](t, "history")(tm.History(ctx, team, 0)); len(h) != 3 {
		t.Fatalf("history = %+v", h)
	}
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"bad type", errOf(tm.SendMessage(ctx, team, "bob", teammanager.OutMessage{Type: "gossip", Body: "x"})), teammanager.ErrInvalidMessage},
		{"to self", errOf(tm.SendMessage(ctx, team, "bob", teammanager.OutMessage{Type: teammanager.MsgStatus, To: []string{"bob"}, Body: "x"})), teammanager.ErrInvalidMessage},
		{"stranger sends", errOf(tm.SendMessage(ctx, team, "zed", teammanager.OutMessage{Type: teammanager.MsgStatus, Body: "x"})), teammanager.ErrUnknownAgent},
		{"mark unknown", tm.MarkMessages(ctx, team, "cat", teammanager.MsgRead, "M1"), teammanager.ErrUnknownMessage},
		{"mark unread", tm.MarkMessages(ctx, team, "bob", teammanager.MsgUnread, "M2"), teammanager.ErrInvalidMessage},
		{"unknown thread", errOf(tm.Thread(ctx, team, "M99")), teammanager.ErrUnknownMessage},
		{"history of no team", errOf(tm.History(ctx, "nope", 0)), teammanager.ErrUnknownTeam},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !errors.Is(tc.err, tc.want) {
				t.Fatalf("err = %v, want %v", tc.err, tc.want)
			}
		})
	}
	if h := must[[]teammanager.Message](t, "history")(tm.History(ctx, team, 0)); len(h) != 3 {
		t.Fatalf("a refused send sent something: %s", fmt.Sprint(h))
	}
}

func testTaskFindingsAndRetention(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	must[teammanager.Task](t, "create")(tm.CreateTask(ctx, team, "ann", teammanager.NewTask{Subject: "a"}))
	f := teammanager.Finding{Subject: iri("parser"), Predicate: iri("says"), Object: quad.String("fast"), Confidence: 0.7}
	if _, err := tm.AddTaskFindings(ctx, team, "bob", "T1", []teammanager.Finding{f}); !errors.Is(err, teammanager.ErrNotAllowed) {
		t.Fatalf("findings for an unclaimed task: %v", err)
	}
	must[teammanager.Task](t, "claim")(tm.ClaimTask(ctx, team, "bob", "T1"))
	g := f
	g.Object = quad.String("slow")
	ids := must[[]string](t, "task findings")(tm.AddTaskFindings(ctx, team, "bob", "T1", []teammanager.Finding{f, g}))
	if len(ids) != 2 {
		t.Fatalf("AddTaskFindings ids = %v", ids)
	}
	fs := must[[]teammanager.StoredFinding](t, "findings")(tm.Findings(ctx, team, teammanager.FindingFilter{Agent: "bob"}))
	if len(fs) != 2 || !slices.ContainsFunc(fs, func(sf teammanager.StoredFinding) bool { return sf.ID == ids[0] && sf.Object == quad.String("fast") }) ||
		!slices.ContainsFunc(fs, func(sf teammanager.StoredFinding) bool { return sf.ID == ids[1] && sf.Confidence == 0.7 }) {
		t.Fatalf("findings = %+v", fs)
	}
	if err := tm.ConfigureMailbox(ctx, team, 0, 0); !errors.Is(err, teammanager.ErrInvalidConfig) {
		t.Fatalf("ConfigureMailbox 0 messages: %v", err)
	}
	if err := tm.ConfigureMailbox(ctx, team, time.Hour, 1); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{"one", "two"} {
		must[teammanager.Message](t, "send")(tm.SendMessage(ctx, team, "ann", teammanager.OutMessage{Type: teammanager.MsgStatus, To: []string{"cat"}, Body: body}))
	}
	in := must[[]teammanager.Message](t, "inbox")(tm.Inbox(ctx, team, "cat", teammanager.MailFilter{}))
	if len(in) != 1 || in[0].Body != "two" {
		t.Fatalf("cat's inbox, keeping 1 message = %+v", in)
	}
}

// testTaskFinishAllOrNothing: FinishTask records a member's findings, new
// tasks and result in one write; when a part is refused (here the new
// task: the board takes tasks from its lead only) nothing of it is
// written: no finding, no task, and the task is still in progress.
func testTaskFinishAllOrNothing(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	must[teammanager.Task](t, "create")(tm.CreateTask(ctx, team, "ann", teammanager.NewTask{Subject: "a"}))
	must[teammanager.Task](t, "claim")(tm.ClaimTask(ctx, team, "bob", "T1"))
	o := teammanager.TaskOutcome{Result: "done",
		Findings: []teammanager.Finding{{Subject: iri("parser"), Predicate: iri("says"), Object: quad.String("fast"), Confidence: 0.7}},
		Tasks:    []teammanager.NewTask{{Subject: "more"}}}
	if _, err := tm.FinishTask(ctx, team, "bob", "T1", o); !errors.Is(err, teammanager.ErrNotAllowed) {
		t.Fatalf("FinishTask with a new task on a board without requests: %v, want ErrNotAllowed", err)
	}
	fs := must[[]teammanager.StoredFinding](t, "findings")(tm.Findings(ctx, team, teammanager.FindingFilter{}))
	ts := must[[]teammanager.Task](t, "tasks")(tm.ListTasks(ctx, team, teammanager.TaskFilter{}))
	if len(fs) != 0 || len(ts) != 1 || ts[0].Status != teammanager.TaskInProgress || ts[0].Result != "" {
		t.Fatalf("after a refused FinishTask: findings %+v, tasks %+v", fs, ts)
	}
	o.Tasks = nil
	fin := must[teammanager.TaskFinish](t, "finish")(tm.FinishTask(ctx, team, "bob", "T1", o))
	if fin.Task.ID != "T1" || fin.Task.Status != teammanager.TaskInReview || fin.Task.Result != "done" || len(fin.Findings) != 1 || fin.Created != nil {
		t.Fatalf("FinishTask = %+v", fin)
	}
	fs = must[[]teammanager.StoredFinding](t, "findings")(tm.Findings(ctx, team, teammanager.FindingFilter{Agent: "bob"}))
	if len(fs) != 1 || fs[0].ID != fin.Findings[0] {
		t.Fatalf("findings %+v, want %v", fs, fin.Findings)
	}
}

// testPlanReviewNamesRevision: a review names the revision it reviews; one
// the lead has since replaced by a new revision pending review is refused
// (ErrPlanState), as is one the team does not have (ErrNoPlan) and
// revision 0 (ErrInvalidPlan), and none of them writes anything; the
// latest, named, is reviewed.
func testPlanReviewNamesRevision(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	pl := tm.(api.TeamPlans)
	np := teammanager.NewPlan{Title: "ship", Steps: []teammanager.PlanStep{{Title: "build"}}}
	must[teammanager.Plan](t, "draft 1")(pl.DraftPlan(ctx, team, "ann", np))
	must[teammanager.Plan](t, "submit 1")(pl.SubmitPlan(ctx, team, "ann"))
	must[teammanager.Plan](t, "reject 1")(pl.ReviewPlan(ctx, team, teammanager.Operator, 1, false, "add tests"))
	np.Steps = append(np.Steps, teammanager.PlanStep{Title: "test"})
	must[teammanager.Plan](t, "draft 2")(pl.DraftPlan(ctx, team, "ann", np))
	must[teammanager.Plan](t, "submit 2")(pl.SubmitPlan(ctx, team, "ann"))
	before := must[[]teammanager.Plan](t, "revisions")(pl.PlanRevisions(ctx, team))
	for _, tc := range []struct {
		rev     int
		approve bool
		want    error
	}{
		{1, true, teammanager.ErrPlanState},
		{1, false, teammanager.ErrPlanState},
		{3, true, teammanager.ErrNoPlan},
		{0, true, teammanager.ErrInvalidPlan},
		{-1, false, teammanager.ErrInvalidPlan},
	} {
		if _, err := pl.ReviewPlan(ctx, team, teammanager.Operator, tc.rev, tc.approve, "no"); !errors.Is(err, tc.want) {
			t.Fatalf("review of revision %d (approve %v) = %v, want %v", tc.rev, tc.approve, err, tc.want)
		}
	}
	if after := must[[]teammanager.Plan](t, "revisions")(pl.PlanRevisions(ctx, team)); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("refused reviews changed the revisions: %+v → %+v", before, after)
	}
	p := must[teammanager.Plan](t, "approve 2")(pl.ReviewPlan(ctx, team, teammanager.Operator, 2, true, ""))
	if p.Revision != 2 || p.State != teammanager.PlanApproved || len(p.Steps) != 2 {
		t.Fatalf("approved %+v", p)
	}
}

// testPlanRedraftIsNewRevision: a draft the lead rewrites becomes a new
// revision, so that a reviewer who read the earlier draft (its number)
// cannot approve the rewritten content once it is submitted: the review
// of the old number is a conflict (ErrPlanState) and writes nothing. (A
// draft was rewritten in place under its number: the approval of
// revision 1, read as "ship", approved "ship it all" unseen.)
func testPlanRedraftIsNewRevision(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	pl := tm.(api.TeamPlans)
	d1 := must[teammanager.Plan](t, "draft 1")(pl.DraftPlan(ctx, team, "ann", teammanager.NewPlan{Title: "ship", Steps: []teammanager.PlanStep{{Title: "build"}}}))
	seen := must[teammanager.Plan](t, "reviewer reads")(pl.GetPlan(ctx, team, 0))
	if seen.Revision != d1.Revision || seen.Title != "ship" {
		t.Fatalf("read %+v, want the draft %+v", seen, d1)
	}
	d2 := must[teammanager.Plan](t, "rewrite the draft")(pl.DraftPlan(ctx, team, "ann", teammanager.NewPlan{Title: "ship it all", Steps: []teammanager.PlanStep{{Title: "build"}, {Title: "delete the backups"}}}))
	if d2.Revision == seen.Revision {
		t.Fatalf("the rewritten draft kept revision %d", d2.Revision)
	}
	sub := must[teammanager.Plan](t, "submit")(pl.SubmitPlan(ctx, team, "ann"))
	if sub.Revision != d2.Revision || sub.Title != "ship it all" {
		t.Fatalf("submitted %+v, want revision %d", sub, d2.Revision)
	}
	before := must[[]teammanager.Plan](t, "revisions")(pl.PlanRevisions(ctx, team))
	if _, err := pl.ReviewPlan(ctx, team, teammanager.Operator, seen.Revision, true, ""); !errors.Is(err, teammanager.ErrPlanState) {
		t.Fatalf("approval of revision %d, read before the rewrite = %v, want ErrPlanState", seen.Revision, err)
	}
	if after := must[[]teammanager.Plan](t, "revisions")(pl.PlanRevisions(ctx, team)); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("a refused review changed the revisions: %+v → %+v", before, after)
	}
	if old := must[teammanager.Plan](t, "get the old draft")(pl.GetPlan(ctx, team, seen.Revision)); old.Title != "ship" || old.State != teammanager.PlanDraft {
		t.Fatalf("revision %d is %+v, want the draft the reviewer read, kept", seen.Revision, old)
	}
	p := must[teammanager.Plan](t, "approve the submitted revision")(pl.ReviewPlan(ctx, team, teammanager.Operator, sub.Revision, true, ""))
	if p.Title != "ship it all" || p.State != teammanager.PlanApproved {
		t.Fatalf("approved %+v", p)
	}
}

// testPlanEmptyByNotAllowed: an empty by is no one: not the lead, so it
// may not draft or submit, and not the approver, so it may not review
// (ErrNotAllowed, exit 4), through a server as in process, and nothing
// is written. (A server refused it as a missing param: exit 2, usage,
// and no sentinel to match.)
func testPlanEmptyByNotAllowed(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	pl := tm.(api.TeamPlans)
	np := teammanager.NewPlan{Title: "ship", Steps: []teammanager.PlanStep{{Title: "build"}}}
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, teammanager.ErrNotAllowed) || api.ExitCode(err) != api.ExitConflict {
			t.Errorf("%s with an empty by: %v (exit %d), want ErrNotAllowed (exit %d)", what, err, api.ExitCode(err), api.ExitConflict)
		}
	}
	check("DraftPlan", errOf(pl.DraftPlan(ctx, team, "", np)))
	must[teammanager.Plan](t, "draft")(pl.DraftPlan(ctx, team, "ann", np))
	check("SubmitPlan", errOf(pl.SubmitPlan(ctx, team, "")))
	must[teammanager.Plan](t, "submit")(pl.SubmitPlan(ctx, team, "ann"))
	check("ReviewPlan approve", errOf(pl.ReviewPlan(ctx, team, "", 1, true, "")))
	check("ReviewPlan reject", errOf(pl.ReviewPlan(ctx, team, "", 1, false, "no")))
	revs := must[[]teammanager.Plan](t, "revisions")(pl.PlanRevisions(ctx, team))
	if len(revs) != 1 || revs[0].State != teammanager.PlanPendingReview {
		t.Fatalf("revisions after refused calls: %+v", revs)
	}
}
