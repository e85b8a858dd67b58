package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/api"
)

// crewTeam creates team "crew" in dir: lead ann (role lead), members bob
// and cat.
func crewTeam(t *testing.T, dir string) {
	t.Helper()
	mustCLI(t, dir, "teams", "create", "--id", "crew", "--name", "crew", "--member", "ann:lead", "--member", "bob:dev", "--member", "cat:dev")
}

// cliJSON runs a command that must succeed with --json and decodes its
// output into out (a pointer, zeroed first), refusing unknown fields.
func cliJSON(t *testing.T, dir string, out any, args ...string) {
	t.Helper()
	reflect.ValueOf(out).Elem().SetZero()
	s := mustCLI(t, dir, append(args, "--json")...)
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		t.Fatalf("%v --json: %v in %s", args, err, s)
	}
}

// TestCLI_Tasks runs two tasks through the board: creation with a
// blocker, claim, submission, rejection, approval, dispatch of the
// unblocked dependent, comments and history.
func TestCLI_Tasks(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	var t1, t2 api.Task
	cliJSON(t, dir, &t1, "tasks", "create", "crew", "write the parser", "--priority", "5", "--description", "a PEG parser")
	if out := mustCLI(t, dir, "tasks", "create", "crew", "test the parser", "--blocked-by", "T1"); out != "created task T2 (\"test the parser\"): pending, depends on T1\n" {
		t.Fatalf("create: %q", out)
	}
	cliJSON(t, dir, &t2, "tasks", "get", "crew", "T2")
	if t1.ID != "T1" || t1.CreatedBy != "ann" || t1.Priority != 5 || t1.Description != "a PEG parser" || !slices.Equal(t2.BlockedBy, []string{"T1"}) {
		t.Fatalf("created %+v and %+v", t1, t2)
	}
	if out := mustCLI(t, dir, "tasks", "list", "crew"); !strings.Contains(out, "T2  pending  0                   T1          test the parser") {
		t.Fatalf("list:\n%s", out)
	}
	cliJSON(t, dir, &t1, "tasks", "next", "crew", "--as", "bob")
	if t1.ID != "T1" || t1.Status != "in_progress" || t1.Assignee != "bob" {
		t.Fatalf("next: %+v", t1)
	}
	mustCLI(t, dir, "tasks", "progress", "crew", "T1", "grammar done", "--as", "bob")
	var added api.TaskFindingsAdded
	cliJSON(t, dir, &added, "tasks", "add-finding", "crew", "T1", "<https://ex.org/parser.go>", "rdfs:comment", "handles unicode", "--as", "bob", "--confidence", "0.8")
	if added.Task != "T1" || len(added.IDs) != 1 {
		t.Fatalf("add-finding: %+v", added)
	}
	var fs []api.Finding
	cliJSON(t, dir, &fs, "findings", "list", "crew")
	if len(fs) != 1 || fs[0].ID != added.IDs[0] || fs[0].Agent != "bob" || fs[0].Object != `"handles unicode"` || fs[0].Confidence != 0.8 {
		t.Fatalf("findings list after add-finding: %+v", fs)
	}
	cliJSON(t, dir, &t1, "tasks", "complete", "crew", "T1", "PR 12", "--as", "bob")
	if t1.Status != "in_review" || t1.Result != "PR 12" {
		t.Fatalf("complete: %+v", t1)
	}
	cliJSON(t, dir, &t1, "tasks", "review", "crew", "T1", "--reject", "--feedback", "add tests")
	if t1.Status != "in_progress" || t1.Feedback != "add tests" {
		t.Fatalf("reject: %+v", t1)
	}
	mustCLI(t, dir, "tasks", "complete", "crew", "T1", "PR 13", "--as", "bob")
	if out := mustCLI(t, dir, "tasks", "review", "crew", "T1", "--approve", "--as", "ann"); out != "task T1: completed, assigned to bob\n" {
		t.Fatalf("approve: %q", out)
	}
	var rep api.TaskDispatch
	cliJSON(t, dir, &rep, "tasks", "dispatch", "crew")
	if len(rep.Dispatched) != 1 || rep.Dispatched[0].ID != "T2" || rep.Dispatched[0].Status != "in_progress" {
		t.Fatalf("dispatch: %+v", rep)
	}
	who := rep.Dispatched[0].Assignee
	var cm api.TaskComment
	cliJSON(t, dir, &cm, "tasks", "comment", "crew", "T2", "fixtures?", "--as", who)
	if cm.ID != "T2.c1" || cm.Kind != "note" || cm.Author != who {
		t.Fatalf("comment: %+v", cm)
	}
	var cs []api.TaskComment
	cliJSON(t, dir, &cs, "tasks", "comments", "crew", "T2")
	if len(cs) != 1 || cs[0].Text != "fixtures?" {
		t.Fatalf("comments: %+v", cs)
	}
	var hist []api.TaskEvent
	cliJSON(t, dir, &hist, "tasks", "history", "crew", "T1")
	var actions []string
	for _, h := range hist {
		actions = append(actions, h.Action)
	}
	if want := []string{"created", "updated", "claimed", "submitted", "rejected", "submitted", "approved"}; !slices.Equal(actions, want) {
		t.Fatalf("history: %v, want %v", actions, want)
	}
	if out := mustCLI(t, dir, "tasks", "history", "crew", "T1"); !strings.Contains(out, "rejected   ann  in_review    in_progress  add tests") {
		t.Fatalf("history table:\n%s", out)
	}
	// A blocker comment fails the task and escalates to the lead.
	mustCLI(t, dir, "tasks", "comment", "crew", "T2", "no fixtures", "--blocker", "--as", who)
	cliJSON(t, dir, &t2, "tasks", "get", "crew", "T2")
	if t2.Status != "failed" {
		t.Fatalf("after a blocker: %+v", t2)
	}
	cliJSON(t, dir, &t2, "tasks", "retry", "crew", "T2")
	if t2.Status != "pending" {
		t.Fatalf("retry: %+v", t2)
	}
	var sw api.TaskSweep
	cliJSON(t, dir, &sw, "tasks", "sweep", "crew")
	if len(sw.Requeued) != 0 || len(sw.Stale) != 0 {
		t.Fatalf("sweep: %+v", sw)
	}
}

// TestCLI_TaskControl covers update, pause, resume, skip, cancel, fail
// and the board's settings.
func TestCLI_TaskControl(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	for _, s := range []string{"a", "b", "c"} {
		mustCLI(t, dir, "tasks", "create", "crew", s)
	}
	var task api.Task
	cliJSON(t, dir, &task, "tasks", "update", "crew", "T3", "--priority", "9", "--assignee", "cat", "--blocked-by", "T1")
	if task.Priority != 9 || task.Assignee != "cat" || !slices.Equal(task.BlockedBy, []string{"T1"}) {
		t.Fatalf("update: %+v", task)
	}
	cliJSON(t, dir, &task, "tasks", "update", "crew", "T3", "--blocked-by", "")
	if len(task.BlockedBy) != 0 || task.Assignee != "cat" {
		t.Fatalf("update --blocked-by '': %+v", task)
	}
	if out := mustCLI(t, dir, "tasks", "pause", "crew", "T2"); out != "task T2: pending (paused)\n" {
		t.Fatalf("pause: %q", out)
	}
	cliJSON(t, dir, &task, "tasks", "resume", "crew", "T2")
	if task.Paused {
		t.Fatalf("resume: %+v", task)
	}
	cliJSON(t, dir, &task, "tasks", "skip", "crew", "T1", "done by hand")
	if task.Status != "cancelled" || !task.Skipped || task.Error != "skipped: done by hand" {
		t.Fatalf("skip: %+v", task)
	}
	cliJSON(t, dir, &task, "tasks", "cancel", "crew", "T2", "out of scope")
	if task.Status != "cancelled" || task.Skipped {
		t.Fatalf("cancel: %+v", task)
	}
	mustCLI(t, dir, "tasks", "claim", "crew", "T3", "--as", "cat")
	cliJSON(t, dir, &task, "tasks", "fail", "crew", "T3", "no access", "--as", "cat")
	if task.Status != "failed" || task.Error != "no access" {
		t.Fatalf("fail: %+v", task)
	}
	var b api.Board
	cliJSON(t, dir, &b, "tasks", "board", "crew")
	if b.Lead != "ann" || !b.RequireReview || b.MaxDispatches != 3 || b.Lease != 600 {
		t.Fatalf("board: %+v", b)
	}
	cliJSON(t, dir, &b, "tasks", "board", "crew", "--allow-requests", "--require-review=false", "--max-dispatches", "5", "--lease", "90s")
	if !b.AllowRequests || b.RequireReview || b.MaxDispatches != 5 || b.Lease != 90 || b.StaleAfter != 1800 || b.Lead != "ann" {
		t.Fatalf("board set: %+v", b)
	}
	// With requests allowed a member creates tasks; without review a
	// submission completes the task.
	cliJSON(t, dir, &task, "tasks", "create", "crew", "d", "--as", "bob")
	mustCLI(t, dir, "tasks", "claim", "crew", task.ID, "--as", "bob")
	cliJSON(t, dir, &task, "tasks", "complete", "crew", task.ID, "--as", "bob")
	if task.Status != "completed" {
		t.Fatalf("complete without review: %+v", task)
	}
}

// TestCLI_TaskErrors: each refused command exits with its code and a
// message saying why, and writes nothing.
func TestCLI_TaskErrors(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	mustCLI(t, dir, "tasks", "create", "crew", "a")
	mustCLI(t, dir, "tasks", "create", "crew", "b", "--blocked-by", "T1")
	before := mustCLI(t, dir, "tasks", "list", "crew", "--json")
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no team", []string{"tasks", "list"}, exitUsage, "want TEAM"},
		{"create without subject", []string{"tasks", "create", "crew"}, exitUsage, "want TEAM SUBJECT"},
		{"claim without --as", []string{"tasks", "claim", "crew", "T1"}, exitUsage, "want --as AGENT"},
		{"next without --as", []string{"tasks", "next", "crew"}, exitUsage, "want --as AGENT"},
		{"fail without reason", []string{"tasks", "fail", "crew", "T1", "--as", "bob"}, exitUsage, "want TEAM TASK REASON"},
		{"review without verdict", []string{"tasks", "review", "crew", "T1"}, exitUsage, "--approve and --reject"},
		{"review with both", []string{"tasks", "review", "crew", "T1", "--approve", "--reject"}, exitUsage, "--approve and --reject"},
		{"update nothing", []string{"tasks", "update", "crew", "T1"}, exitUsage, "nothing to change"},
		{"comment without text", []string{"tasks", "comment", "crew", "T1", "--as", "bob"}, exitUsage, "want TEAM TASK TEXT"},
		{"unknown team", []string{"tasks", "list", "nope"}, exitNotFound, "unknown team"},
		{"unknown task", []string{"tasks", "get", "crew", "T9"}, exitNotFound, "unknown task"},
		{"unknown agent", []string{"tasks", "claim", "crew", "T1", "--as", "zed"}, exitNotFound, "unknown agent"},
		{"list of an unknown assignee", []string{"tasks", "list", "crew", "--assignee", "zed"}, exitNotFound, `assignee "zed": unknown agent`},
		{"member creates", []string{"tasks", "create", "crew", "x", "--as", "bob"}, exitConflict, "not allowed"},
		{"blocked claim", []string{"tasks", "claim", "crew", "T2", "--as", "bob"}, exitConflict, "blocked"},
		{"complete unclaimed", []string{"tasks", "complete", "crew", "T1", "--as", "bob"}, exitConflict, "cannot"},
		{"bad status", []string{"tasks", "list", "crew", "--status", "done"}, exitInvalid, "done"},
		{"cycle", []string{"tasks", "update", "crew", "T1", "--blocked-by", "T2"}, exitInvalid, "T1 → T2 → T1"},
		{"created blocked by no task", []string{"tasks", "create", "crew", "x", "--blocked-by", "T99"}, exitNotFound, `blocked_by "T99": unknown task`},
		{"updated blocked by no task", []string{"tasks", "update", "crew", "T2", "--blocked-by", "T99"}, exitNotFound, `blocked_by "T99": unknown task`},
		{"priority out of range", []string{"tasks", "create", "crew", "x", "--priority", "2000000000"}, exitInvalid, "--priority"},
		{"bad max dispatches", []string{"tasks", "board", "crew", "--max-dispatches", "500"}, exitInvalid, "max-dispatches"},
		{"lead not a member", []string{"tasks", "board", "crew", "--lead", "zed"}, exitNotFound, "zed"},
		{"finding without --as", []string{"tasks", "add-finding", "crew", "T1", "<http://x>", "<http://p>", "o"}, exitUsage, "want --as AGENT"},
		{"finding term", []string{"tasks", "add-finding", "crew", "T1", "<http://x", "<http://p>", "o", "--as", "bob"}, exitSyntax, "subject"},
		{"finding for an unclaimed task", []string{"tasks", "add-finding", "crew", "T1", "<http://x>", "<http://p>", "o", "--as", "bob"}, exitConflict, "not allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, "", tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
				t.Fatalf("exit %d (want %d), stderr %q (want %q)", r.code, tc.code, r.stderr, tc.msg)
			}
		})
	}
	mustCLI(t, dir, "tasks", "claim", "crew", "T1", "--as", "bob")
	if r := runCLI(t, dir, "", "tasks", "next", "crew", "--as", "cat"); r.code != exitConflict || !strings.Contains(r.stderr, "no ready task") {
		t.Fatalf("next with nothing ready: exit %d, %q", r.code, r.stderr)
	}
	mustCLI(t, dir, "tasks", "fail", "crew", "T1", "oops", "--as", "bob")
	mustCLI(t, dir, "tasks", "retry", "crew", "T1")
	after := mustCLI(t, dir, "tasks", "list", "crew", "--json")
	var b, a []api.Task
	if err := json.Unmarshal([]byte(before), &b); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(after), &a); err != nil {
		t.Fatal(err)
	}
	if len(a) != 2 || a[0].Subject != b[0].Subject || a[0].Priority != b[0].Priority || len(a[0].BlockedBy) != 0 || !slices.Equal(a[1].BlockedBy, b[1].BlockedBy) {
		t.Fatalf("refused commands changed the board:\nbefore %s\nafter %s", before, after)
	}
	var board api.Board
	cliJSON(t, dir, &board, "tasks", "board", "crew")
	if board.Lead != "ann" || board.MaxDispatches != 3 {
		t.Fatalf("refused board settings were written: %+v", board)
	}
}

// TestCLI_DelegationFromStoredDefinitions: the delegation rules of the
// agent definitions imported with defs import apply to task assignment and
// to delegate_work messages (embedded and, in TestCLI_ThroughServer,
// through a server); members without a definition are not restricted.
func TestCLI_DelegationFromStoredDefinitions(t *testing.T) {
	dir := t.TempDir()
	defs := t.TempDir()
	agent := func(name, delegation string) {
		text := "---\nname: " + name + "\ndescription: " + name + "\n" + delegation + "---\n" + name + "\n"
		if err := os.WriteFile(filepath.Join(defs, name+".md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	agent("ann", "delegation:\n  allow_delegation: true\n  can_delegate_to:\n    - bob\n")
	agent("bob", "delegation:\n  allow_delegation: false\n")
	mustCLI(t, dir, "defs", "import", defs)
	crewTeam(t, dir) // ann (lead), bob, cat: cat has no definition
	if r := runCLI(t, dir, "", "tasks", "create", "crew", "review it", "--assignee", "cat"); r.code != exitConflict ||
		!strings.Contains(r.stderr, "ann may not delegate work to cat") {
		t.Fatalf("ann assigning to cat: exit %d, %q", r.code, r.stderr)
	}
	mustCLI(t, dir, "tasks", "create", "crew", "write it", "--assignee", "bob")
	if r := runCLI(t, dir, "", "mail", "send", "crew", "take this", "--as", "bob", "--to", "cat", "--type", "delegate_work"); r.code != exitConflict ||
		!strings.Contains(r.stderr, "bob may not delegate work to cat") {
		t.Fatalf("bob delegating to cat: exit %d, %q", r.code, r.stderr)
	}
	mustCLI(t, dir, "mail", "send", "crew", "take this", "--as", "cat", "--to", "bob", "--type", "delegate_work")
	if out := mustCLI(t, dir, "tasks", "list", "crew"); strings.Contains(out, "review it") {
		t.Fatalf("a refused task was created:\n%s", out)
	}
}
