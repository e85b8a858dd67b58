package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestCLI_TasksBoard_MaxDispatchesZero: --max-dispatches is 1..100, as
// its help says: 0 is refused (exit 7), not taken silently as the
// default 3, and nothing is written.
func TestCLI_TasksBoard_MaxDispatchesZero(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	mustCLI(t, dir, "tasks", "board", "crew", "--max-dispatches", "7")
	r := runCLI(t, dir, "", "tasks", "board", "crew", "--max-dispatches", "0")
	if r.code != exitInvalid || !strings.Contains(r.stderr, "--max-dispatches 0: want 1..100") {
		t.Fatalf("--max-dispatches 0: exit %d (want %d), stderr %q", r.code, exitInvalid, r.stderr)
	}
	var b api.Board
	cliJSON(t, dir, &b, "tasks", "board", "crew")
	if b.MaxDispatches != 7 {
		t.Fatalf("after a refused --max-dispatches 0 the board has %d, want 7", b.MaxDispatches)
	}
}

// TestCLI_TasksRetry_HelpSaysNotSkipped: retry puts a failed or cancelled
// task back to pending, but not a skipped one (its dependents went ahead):
// the help says so, and retrying a skipped task exits 4.
func TestCLI_TasksRetry_HelpSaysNotSkipped(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	if out := mustCLI(t, dir, "tasks", "retry", "--help"); !strings.Contains(out, "a failed or cancelled (not skipped) task") {
		t.Fatalf("tasks retry --help:\n%s", out)
	}
	mustCLI(t, dir, "tasks", "create", "crew", "a")
	mustCLI(t, dir, "tasks", "skip", "crew", "T1")
	if r := runCLI(t, dir, "", "tasks", "retry", "crew", "T1"); r.code != exitConflict || !strings.Contains(r.stderr, "cannot retry") {
		t.Fatalf("retry of a skipped task: exit %d, %q", r.code, r.stderr)
	}
}

// TestCLI_TasksBoard_PlanApproval: --plan-approval and --plan-approver set
// the board's plan settings, which --json shows; a later change of other
// settings (--lease) keeps them, in both modes; with plan approval on, a
// claim exits 4 until a plan is approved.
func TestCLI_TasksBoard_PlanApproval(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	var b api.Board
	cliJSON(t, dir, &b, "tasks", "board", "crew", "--plan-approval", "--plan-approver", "cat")
	if !b.PlanApproval || b.PlanApprover != "cat" {
		t.Fatalf("--plan-approval --plan-approver cat: %+v", b)
	}
	cliJSON(t, dir, &b, "tasks", "board", "crew", "--lease", "30m")
	if !b.PlanApproval || b.PlanApprover != "cat" || b.Lease != 1800 {
		t.Fatalf("after --lease 30m: %+v", b)
	}
	if out := mustCLI(t, dir, "tasks", "board", "crew"); !strings.Contains(out, "plan approval   true") || !strings.Contains(out, "plan approver   cat") {
		t.Fatalf("tasks board:\n%s", out)
	}
	mustCLI(t, dir, "tasks", "create", "crew", "a")
	if r := runCLI(t, dir, "", "tasks", "next", "crew", "--as", "bob"); r.code != exitConflict || !strings.Contains(r.stderr, "plan") {
		t.Fatalf("claim before the plan is approved: exit %d, %q", r.code, r.stderr)
	}
	cliJSON(t, dir, &b, "tasks", "board", "crew", "--plan-approval=false", "--plan-approver", "")
	if b.PlanApproval || b.PlanApprover != "" || b.Lease != 1800 {
		t.Fatalf("after --plan-approval=false --plan-approver '': %+v", b)
	}
	if out := mustCLI(t, dir, "tasks", "board", "crew"); !strings.Contains(out, "plan approver   operator") {
		t.Fatalf("tasks board:\n%s", out)
	}
	mustCLI(t, dir, "tasks", "next", "crew", "--as", "bob")
}

// TestCLI_TasksNext_CarriesPlan: a task handed out (tasks next, claim,
// dispatch --json) carries the approved plan as plans get --json shows
// it; no plan while none is approved, and none on tasks get.
func TestCLI_TasksNext_CarriesPlan(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	for _, s := range []string{"a", "b", "c"} {
		mustCLI(t, dir, "tasks", "create", "crew", s)
	}
	if out := mustCLI(t, dir, "tasks", "next", "crew", "--as", "bob", "--json"); strings.Contains(out, `"plan"`) {
		t.Fatalf("tasks next with no plan approved: %s", out)
	}
	mustCLI(t, dir, "plans", "draft", "crew", "--by", "ann", "--title", "ship it", "--step", "build | with tests", "--step", "review")
	mustCLI(t, dir, "plans", "submit", "crew", "--by", "ann")
	mustCLI(t, dir, "plans", "approve", "crew", "--revision", "1")
	var want teammanager.Plan
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "plans", "get", "crew", "--json")), &want); err != nil {
		t.Fatal(err)
	}
	check := func(what string, got *teammanager.Plan) {
		t.Helper()
		if got == nil || !reflect.DeepEqual(*got, want) {
			t.Fatalf("%s: plan %+v, want %+v", what, got, want)
		}
	}
	var task api.Task
	cliJSON(t, dir, &task, "tasks", "claim", "crew", "T2", "--as", "cat")
	check("tasks claim", task.Plan)
	mustCLI(t, dir, "tasks", "fail", "crew", "T1", "stuck", "--as", "bob")
	cliJSON(t, dir, &task, "tasks", "next", "crew", "--as", "bob")
	if task.ID != "T3" {
		t.Fatalf("tasks next: %+v", task)
	}
	check("tasks next", task.Plan)
	cliJSON(t, dir, &task, "tasks", "get", "crew", "T3")
	if task.Plan != nil {
		t.Fatalf("tasks get: plan %+v", task.Plan)
	}
	mustCLI(t, dir, "tasks", "fail", "crew", "T3", "stuck", "--as", "bob")
	mustCLI(t, dir, "tasks", "retry", "crew", "T3")
	var rep api.TaskDispatch
	cliJSON(t, dir, &rep, "tasks", "dispatch", "crew")
	if len(rep.Dispatched) != 1 {
		t.Fatalf("dispatch: %+v", rep)
	}
	check("tasks dispatch", rep.Dispatched[0].Plan)
}

// TestCLI_Tasks_FinishedMember: a member whose status is completed gets
// no task: tasks next exits 4 (member is finished), dispatch skips it, and
// the task it held went back to pending when it finished.
func TestCLI_Tasks_FinishedMember(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	mustCLI(t, dir, "tasks", "create", "crew", "a")
	mustCLI(t, dir, "tasks", "create", "crew", "b")
	mustCLI(t, dir, "tasks", "next", "crew", "--as", "bob")
	mustCLI(t, dir, "teams", "member-status", "crew", "bob", "running")
	mustCLI(t, dir, "teams", "member-status", "crew", "bob", "completed")
	var task api.Task
	cliJSON(t, dir, &task, "tasks", "get", "crew", "T1")
	if task.Status != "pending" || task.Assignee != "" {
		t.Fatalf("T1 after bob completed: %+v", task)
	}
	if r := runCLI(t, dir, "", "tasks", "next", "crew", "--as", "bob"); r.code != exitConflict || !strings.Contains(r.stderr, "member bob is completed") {
		t.Fatalf("tasks next by a completed member: exit %d, %q", r.code, r.stderr)
	}
	var rep api.TaskDispatch
	cliJSON(t, dir, &rep, "tasks", "dispatch", "crew")
	if len(rep.Dispatched) != 1 || rep.Dispatched[0].Assignee != "cat" || rep.Dispatched[0].ID != "T1" {
		t.Fatalf("dispatch after bob completed: %+v", rep)
	}
}

// TestCLI_TasksBoard_ZeroDurations: --lease 0 and --stale-after 0 are
// refused (exit 7), as the help says, not taken silently as the
// defaults, and nothing is written.
func TestCLI_TasksBoard_ZeroDurations(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	if out := mustCLI(t, dir, "tasks", "board", "--help"); strings.Count(out, "(> 0; 0 is refused") != 2 {
		t.Fatalf("tasks board --help:\n%s", out)
	}
	mustCLI(t, dir, "tasks", "board", "crew", "--lease", "30m", "--stale-after", "1h")
	for _, f := range []string{"--lease", "--stale-after"} {
		r := runCLI(t, dir, "", "tasks", "board", "crew", f, "0")
		if r.code != exitInvalid || !strings.Contains(r.stderr, f+" 0: want a duration > 0") {
			t.Fatalf("%s 0: exit %d (want %d), stderr %q", f, r.code, exitInvalid, r.stderr)
		}
	}
	var b api.Board
	cliJSON(t, dir, &b, "tasks", "board", "crew")
	if b.Lease != 1800 || b.StaleAfter != 3600 {
		t.Fatalf("after refused zero durations the board has lease %v s, staleAfter %v s", b.Lease, b.StaleAfter)
	}
}

// TestTasksMailArgs_CheckedBeforeOpening: tasks review --reject without
// feedback, mail send with an empty or blank body, and tasks create,
// comment and fail with a blank subject, text or reason, are refused
// before the store is opened: with their own exit code and message even while another
// process holds the store (not 6, "in use"), and leaving its directory as
// it was. (Not a TestCLI_ test: a server would hold the store.)
func TestTasksMailArgs_CheckedBeforeOpening(t *testing.T) {
	checkedBeforeOpening(t, []argsCase{
		{[]string{"tasks", "review", "crew", "T1", "--reject"}, exitUsage, "tasks review: a rejection needs --feedback (why)"},
		{[]string{"tasks", "review", "crew", "T1", "--reject", "--feedback", " "}, exitUsage, "tasks review: --feedback is blank: a rejection says why"},
		{[]string{"tasks", "create", "crew", " "}, exitUsage, "tasks create: SUBJECT is blank"},
		{[]string{"tasks", "comment", "crew", "T1", " ", "--as", "bob"}, exitUsage, "tasks comment: TEXT is blank"},
		{[]string{"tasks", "fail", "crew", "T1", " ", "--as", "bob"}, exitUsage, "tasks fail: REASON is blank"},
		{[]string{"mail", "send", "crew", "", "--as", "bob"}, exitUsage, "mail send: BODY is empty"},
		{[]string{"mail", "send", "crew", " \n", "--as", "bob", "--to", "ann"}, exitUsage, "mail send: BODY is blank: want TEAM BODY"},
	})
}

// TestCLI_Tasks_EmptyOptionValues: "" means something for --assignee and
// --blocked-by of tasks update only (their help says so: unassigned, no
// blockers); elsewhere an option given an empty value is a usage error
// (exit 2) and nothing is written, not taken for the option left out: a
// tasks list --assignee "" would list every task, a tasks create
// --assignee "" or --blocked-by "" would create a task for anyone, ready.
func TestCLI_Tasks_EmptyOptionValues(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	mustCLI(t, dir, "tasks", "create", "crew", "a", "--assignee", "bob")
	for _, args := range [][]string{
		{"tasks", "list", "crew", "--assignee", ""},
		{"tasks", "create", "crew", "b", "--assignee", ""},
		{"tasks", "create", "crew", "b", "--blocked-by", ""},
	} {
		r := runCLI(t, dir, "", args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "is empty") {
			t.Errorf("%q: exit %d (want %d), stderr %q", args, r.code, exitUsage, r.stderr)
		}
	}
	var tasks []api.Task
	cliJSON(t, dir, &tasks, "tasks", "list", "crew")
	if len(tasks) != 1 {
		t.Fatalf("after refused creates the board has %d tasks, want 1", len(tasks))
	}
	// tasks update takes '' for both, as its help says.
	var task api.Task
	cliJSON(t, dir, &task, "tasks", "update", "crew", "T1", "--assignee", "", "--blocked-by", "")
	if task.Assignee != "" {
		t.Fatalf("tasks update --assignee '': %+v", task)
	}
}

// TestCLI_Tasks_AsNotAMember: an --as that is not a member is exit 3 (a
// malformed one 7), as README's exit codes say, for the lead's commands
// and the assignee's as for tasks claim — not 4, as if a member the
// board's rules refuse.
func TestCLI_Tasks_AsNotAMember(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	mustCLI(t, dir, "tasks", "create", "crew", "a")
	mustCLI(t, dir, "tasks", "claim", "crew", "T1", "--as", "bob")
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"tasks", "review", "crew", "T1", "--approve", "--as", "zed"}, exitNotFound},
		{[]string{"tasks", "cancel", "crew", "T1", "--as", "zed"}, exitNotFound},
		{[]string{"tasks", "update", "crew", "T1", "--priority", "2", "--as", "zed"}, exitNotFound},
		{[]string{"tasks", "complete", "crew", "T1", "--as", "zed"}, exitNotFound},
		{[]string{"tasks", "progress", "crew", "T1", "--as", "zed"}, exitNotFound},
		{[]string{"tasks", "fail", "crew", "T1", "why", "--as", "zed"}, exitNotFound},
		{[]string{"tasks", "retry", "crew", "T1", "--as", "a b"}, exitInvalid},
	} {
		if r := runCLI(t, dir, "", tc.args...); r.code != tc.code || !strings.Contains(r.stderr, "unknown agent") {
			t.Errorf("%q: exit %d (want %d), stderr %q", tc.args, r.code, tc.code, r.stderr)
		}
	}
}

// TestCLI_TasksBoard_AgentNamedFirst: a --lead or --plan-approver that is
// not a member, malformed (a space, a newline) or not, is named first and
// then what is wrong with it, as every other error of the board names its
// subject: it said "invalid id (unknown agent; want ...): lead "a b" is
// not a member", the detail before the subject. Nothing is written.
func TestCLI_TasksBoard_AgentNamedFirst(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	const want = "want 1 to 64 characters of A-Z a-z 0-9 . _ @ + -"
	for _, tc := range []struct {
		flag, value string
		code        int
		stderr      string
	}{
		{"--lead", "a b", exitInvalid, `lead "a b": invalid id (unknown agent; ` + want + `)`},
		{"--lead", "bob\ncat", exitInvalid, `lead "bob\ncat": invalid id (unknown agent; ` + want + `)`},
		{"--lead", "zed", exitNotFound, `lead "zed": unknown agent`},
		{"--plan-approver", "a b", exitInvalid, `plan approver "a b": invalid id (unknown agent; ` + want + `)`},
		{"--plan-approver", "zed", exitNotFound, `plan approver "zed": unknown agent`},
	} {
		r := runCLI(t, dir, "", "tasks", "board", "crew", tc.flag, tc.value)
		if want := "cortexctl: team crew: configure board: " + tc.stderr + "\n"; r.code != tc.code || r.stderr != want || r.stdout != "" {
			t.Errorf("%s %q: exit %d, stderr %q; want exit %d, stderr %q", tc.flag, tc.value, r.code, r.stderr, tc.code, want)
		}
	}
	var b api.Board
	cliJSON(t, dir, &b, "tasks", "board", "crew")
	if b.Lead != "ann" || b.PlanApprover != "" {
		t.Fatalf("refused board settings were written: %+v", b)
	}
}

// TestCLI_Tasks_NoLeadTeamClosed: a lead's command without --as on a
// board without a lead, of a team whose board takes no write (completed,
// disbanded, paused), is refused for the team's state (exit 4), as the
// same command with --as is: it said "board has no lead: give --as"
// (exit 2), and --as then only led to the real refusal. On a team whose
// board takes writes, --as is still asked for (exit 2). Nothing is
// written.
func TestCLI_Tasks_NoLeadTeamClosed(t *testing.T) {
	dir := t.TempDir()
	team := func(id string) {
		mustCLI(t, dir, "teams", "create", "--id", id, "--name", id, "--member", "bob:dev", "--member", "cat:dev")
	}
	team("done")
	for _, a := range []string{"bob", "cat"} {
		mustCLI(t, dir, "teams", "member-status", "done", a, "running")
		mustCLI(t, dir, "teams", "member-status", "done", a, "completed")
	}
	team("gone")
	mustCLI(t, dir, "teams", "disband", "gone")
	team("held")
	mustCLI(t, dir, "teams", "member-status", "held", "bob", "running")
	mustCLI(t, dir, "teams", "pause", "held")
	team("open")
	for _, tc := range []struct {
		team string
		code int
		msg  string
	}{
		{"done", exitConflict, "team done is completed: team is finished"},
		{"gone", exitConflict, "team gone: team is disbanded; its graphs are read-only"},
		{"held", exitConflict, "team held is paused (ResumeTeam): team is paused"},
		{"open", exitUsage, "team open's board has no lead: give --as AGENT"},
	} {
		for _, args := range [][]string{
			{"tasks", "create", tc.team, "x"},
			{"tasks", "cancel", tc.team, "T1"},
			{"tasks", "update", tc.team, "T1", "--priority", "2"},
			{"tasks", "review", tc.team, "T1", "--approve"},
		} {
			r := runCLI(t, dir, "", args...)
			if want := "cortexctl: " + map[int]string{exitUsage: "usage: "}[tc.code] + args[0] + " " + args[1] + ": " + tc.msg; r.code != tc.code || !strings.HasPrefix(r.stderr, want) {
				t.Errorf("%q: exit %d, stderr %q; want exit %d, stderr %q...", args, r.code, r.stderr, tc.code, want)
			}
			if tc.code == exitConflict {
				with := runCLI(t, dir, "", append(args, "--as", "bob")...)
				if with.code != exitConflict || !strings.Contains(with.stderr, tc.msg) {
					t.Errorf("%q --as bob: exit %d, stderr %q; want exit 4 and %q", args, with.code, with.stderr, tc.msg)
				}
			}
		}
		if out := mustCLI(t, dir, "tasks", "list", tc.team, "--json"); out != "[]\n" {
			t.Errorf("tasks of %s after the refused commands: %s", tc.team, out)
		}
	}
}

// TestCLI_TasksPlans_BlankText: a text that must say something (a task's
// subject, comment or failure reason, a rejection's feedback, a plan's
// title) given as white space only, or a required one left out, is a
// usage error (exit 2) naming it, reported before a missing --as, as an
// empty one is, and nothing is written: they were invalid values (exit
// 7: "empty subject", "a rejection needs --feedback", "no steps"), found
// by the board once the store was open, while the empty ones were 2.
func TestCLI_TasksPlans_BlankText(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	mustCLI(t, dir, "tasks", "create", "crew", "a")
	mustCLI(t, dir, "tasks", "claim", "crew", "T1", "--as", "bob")
	mustCLI(t, dir, "tasks", "complete", "crew", "T1", "done", "--as", "bob")
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"tasks", "create", "crew", " \n"}, "tasks create: SUBJECT is blank: want TEAM SUBJECT"},
		{[]string{"tasks", "update", "crew", "T1", "--subject", "\t"}, "tasks update: --subject is blank: give a subject or leave the option out"},
		{[]string{"tasks", "comment", "crew", "T1", " "}, "tasks comment: TEXT is blank: want TEAM TASK TEXT"},
		{[]string{"tasks", "fail", "crew", "T1", " "}, "tasks fail: REASON is blank: want TEAM TASK REASON"},
		{[]string{"tasks", "review", "crew", "T1", "--reject"}, "tasks review: a rejection needs --feedback (why)"},
		{[]string{"tasks", "review", "crew", "T1", "--reject", "--feedback", "\n"}, "tasks review: --feedback is blank: a rejection says why"},
		{[]string{"plans", "draft", "crew", "--by", "ann", "--step", "s"}, "plans draft: --title is required: the plan's title"},
		{[]string{"plans", "draft", "crew", "--by", "ann", "--title", " ", "--step", "s"}, "plans draft: --title is blank: give the plan's title"},
		{[]string{"plans", "draft", "crew", "--by", "ann", "--title", "t"}, "plans draft: --step is required: the plan's steps, in order (at least one)"},
		{[]string{"plans", "reject", "crew", "--revision", "1"}, "plans reject: a rejection needs --feedback (why)"},
		{[]string{"plans", "reject", "crew", "--revision", "1", "--feedback", " "}, "plans reject: --feedback is blank: a rejection says why"},
	} {
		r := runCLI(t, dir, "", tc.args...)
		if want := "cortexctl: usage: " + tc.stderr + "\n"; r.code != exitUsage || r.stderr != want || r.stdout != "" {
			t.Errorf("%q: exit %d, stderr %q; want exit %d, stderr %q", tc.args, r.code, r.stderr, exitUsage, want)
		}
	}
	var task api.Task
	cliJSON(t, dir, &task, "tasks", "get", "crew", "T1")
	if task.Status != "in_review" || task.Subject != "a" {
		t.Fatalf("T1 after the refused commands: %+v", task)
	}
	for _, args := range [][]string{{"tasks", "comments", "crew", "T1"}, {"plans", "list", "crew"}} {
		if out := mustCLI(t, dir, append(args, "--json")...); out != "[]\n" {
			t.Errorf("%q after the refused commands: %s", args, out)
		}
	}
	if out := mustCLI(t, dir, "tasks", "list", "crew", "--json"); strings.Count(out, `"id"`) != 1 {
		t.Errorf("tasks after the refused commands: %s", out)
	}
}

// TestCLI_TaskRefusals_NameTaskOnce: a task command that the task's
// status, its blockers or its assignee refuse names the team and the task
// once, as an unknown task does: they said "team crew: review task T1:
// team crew: task T1: task status does not allow this: ...", "claim task
// T2: task T2: task is blocked by T1", "claim task T1: not allowed: task
// T1 is assigned to bob, not cat".
func TestCLI_TaskRefusals_NameTaskOnce(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	mustCLI(t, dir, "tasks", "create", "crew", "a", "--assignee", "bob")
	mustCLI(t, dir, "tasks", "create", "crew", "b", "--blocked-by", "T1")
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"tasks", "review", "crew", "T1", "--approve"}, "team crew: review task T1: task status does not allow this: cannot review a task that is pending"},
		{[]string{"tasks", "complete", "crew", "T1", "--as", "bob"}, "team crew: complete task T1: task status does not allow this: cannot complete a task that is pending"},
		{[]string{"tasks", "resume", "crew", "T1"}, "team crew: resume task T1: task status does not allow this: cannot resume a task that is pending"},
		{[]string{"tasks", "claim", "crew", "T2", "--as", "bob"}, "team crew: claim task T2: task is blocked by T1"},
		{[]string{"tasks", "claim", "crew", "T1", "--as", "cat"}, "team crew: claim task T1: not allowed: it is assigned to bob, not cat"},
	} {
		r := runCLI(t, dir, "", tc.args...)
		if want := "cortexctl: " + tc.stderr + "\n"; r.code != exitConflict || r.stderr != want {
			t.Errorf("%q: exit %d, stderr %q; want exit %d, stderr %q", tc.args, r.code, r.stderr, exitConflict, want)
		}
	}
	mustCLI(t, dir, "tasks", "claim", "crew", "T1", "--as", "bob")
	mustCLI(t, dir, "tasks", "pause", "crew", "T1")
	want := "cortexctl: team crew: claim task T1: task status does not allow this: cannot claim a task that is in_progress (paused)\n"
	if r := runCLI(t, dir, "", "tasks", "claim", "crew", "T1", "--as", "bob"); r.code != exitConflict || r.stderr != want {
		t.Errorf("claim of a paused task: exit %d, stderr %q; want %q", r.code, r.stderr, want)
	}
}

// TestCLI_TasksAddFinding_NotReporter: findings for a task that --as may
// not report on are refused (exit 4) naming its assignee, or no one, and
// who may: it said `assigned to ""` of a task without one. Nothing is
// written.
func TestCLI_TasksAddFinding_NotReporter(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	mustCLI(t, dir, "tasks", "create", "crew", "a")
	mustCLI(t, dir, "tasks", "create", "crew", "b")
	mustCLI(t, dir, "tasks", "claim", "crew", "T2", "--as", "bob")
	const why = " (its assignee reports findings while it is in_progress or in_review)\n"
	for _, tc := range []struct {
		task, as, stderr string
	}{
		{"T1", "bob", "cortexctl: team crew: task T1 findings: not allowed: the task is pending, assigned to no one" + why},
		{"T2", "cat", "cortexctl: team crew: task T2 findings: not allowed: the task is in_progress, assigned to bob" + why},
	} {
		args := []string{"tasks", "add-finding", "crew", tc.task, "<https://ex.org/s>", "rdfs:comment", `"x"`, "--as", tc.as}
		if r := runCLI(t, dir, "", args...); r.code != exitConflict || r.stderr != tc.stderr {
			t.Errorf("%q: exit %d, stderr %q; want exit %d, stderr %q", args, r.code, r.stderr, exitConflict, tc.stderr)
		}
	}
	if out := mustCLI(t, dir, "findings", "list", "crew", "--json"); out != "[]\n" {
		t.Fatalf("findings after the refused ones: %s", out)
	}
}

// TestCLI_Tasks_AssigneeLeadNamedFirst: a task assigned to the lead of a
// board that does not let the lead work is refused (exit 4) naming the
// assignee first, then why: it said "assignee ann is the lead, and the
// board does not let the lead work: not allowed", the kind of refusal
// last. Nothing is written.
func TestCLI_Tasks_AssigneeLeadNamedFirst(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	want := "cortexctl: team crew: create task: invalid task: assignee ann: not allowed: it is the lead, and the board does not let the lead work\n"
	if r := runCLI(t, dir, "", "tasks", "create", "crew", "x", "--assignee", "ann"); r.code != exitConflict || r.stderr != want {
		t.Errorf("exit %d, stderr %q; want exit %d, stderr %q", r.code, r.stderr, exitConflict, want)
	}
	if out := mustCLI(t, dir, "tasks", "list", "crew", "--json"); out != "[]\n" {
		t.Fatalf("tasks after the refused one: %s", out)
	}
}

// TestCLI_TasksBoard_NoLeadShown: the table of a board without a lead
// says so, and what it means; its lead row was blank.
func TestCLI_TasksBoard_NoLeadShown(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "open", "--name", "open", "--member", "bob:dev")
	out := mustCLI(t, dir, "tasks", "board", "open")
	if first, _, _ := strings.Cut(out, "\n"); first != "lead            none (the lead's commands need --as)" {
		t.Fatalf("tasks board of a board without a lead:\n%s", out)
	}
	var b api.Board
	cliJSON(t, dir, &b, "tasks", "board", "open")
	if b.Lead != "" {
		t.Fatalf("--json: lead %q", b.Lead)
	}
}

// TestCLI_TasksBoard_PlanApproverLead: a plan approver that is the lead
// is refused as a board setting, named; it said "invalid team manager
// config: plan approver ...".
func TestCLI_TasksBoard_PlanApproverLead(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	r := runCLI(t, dir, "", "tasks", "board", "crew", "--plan-approver", "ann")
	want := "cortexctl: team crew: configure board: invalid board setting: plan approver \"ann\" is the lead, who does not approve its own plan\n"
	if r.code != exitInvalid || r.stderr != want {
		t.Errorf("exit %d, stderr %q; want exit %d, stderr %q", r.code, r.stderr, exitInvalid, want)
	}
}

// TestCLI_TasksUpdate_MalformedAssigneeFirst: a malformed --assignee is
// reported (exit 7) before the task's status or the caller refuse the
// update; of an in_progress task it said "cannot reassign" (exit 4).
func TestCLI_TasksUpdate_MalformedAssigneeFirst(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	mustCLI(t, dir, "tasks", "create", "crew", "a", "--assignee", "bob")
	mustCLI(t, dir, "tasks", "create", "crew", "b", "--assignee", "bob")
	mustCLI(t, dir, "tasks", "claim", "crew", "T1", "--as", "bob")
	mustCLI(t, dir, "tasks", "cancel", "crew", "T2")
	for _, args := range [][]string{
		{"tasks", "update", "crew", "T1", "--assignee", "a b"},
		{"tasks", "update", "crew", "T2", "--assignee", "a b"},
		{"tasks", "update", "crew", "T1", "--assignee", "a b", "--as", "cat"},
	} {
		r := runCLI(t, dir, "", args...)
		want := "cortexctl: team crew: update task " + args[3] + `: invalid task: assignee "a b": invalid id (unknown agent; want 1 to 64 characters of A-Z a-z 0-9 . _ @ + -)` + "\n"
		if r.code != exitInvalid || r.stderr != want {
			t.Errorf("%q: exit %d, stderr %q; want exit %d, stderr %q", args, r.code, r.stderr, exitInvalid, want)
		}
	}
}

// TestCLI_TasksNext_OperationFirst: tasks next names the operation, then
// the agent, as other commands do; it said `cat: claim next: team "nope":
// unknown team`.
func TestCLI_TasksNext_OperationFirst(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"tasks", "next", "nope", "--as", "cat"}, exitNotFound, `claim next for cat: team "nope": unknown team`},
		{[]string{"tasks", "next", "crew", "--as", "cat"}, exitConflict, `team crew: claim next for cat: no ready task`},
	} {
		r := runCLI(t, dir, "", tc.args...)
		if want := "cortexctl: " + tc.stderr + "\n"; r.code != tc.code || r.stderr != want {
			t.Errorf("%q: exit %d, stderr %q; want exit %d, stderr %q", tc.args, r.code, r.stderr, tc.code, want)
		}
	}
}
