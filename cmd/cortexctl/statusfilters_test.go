package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestCLI_WorkflowsList_UnknownStatus: an unknown --status of workflows
// list is an invalid status (exit 7) listing the valid ones, worded as
// the other status filters' (tasks list, mail inbox); it said `invalid
// run: status "X" (...)`, as if a run were invalid. A team's and a
// member's unknown status name whose status it is too.
func TestCLI_WorkflowsList_UnknownStatus(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"workflows", "list", "--status", "X"}, `invalid status: run status "X" (want pending, running, merging, completed, failed or cancelled)`},
		{[]string{"workflows", "list", "--status", "done", "--json"}, `invalid status: run status "done" (want pending, running, merging, completed, failed or cancelled)`},
		{[]string{"tasks", "list", "crew", "--status", "X"}, `invalid status: task status "X" (want pending, in_progress, in_review, completed, failed or cancelled)`},
		// They said `invalid status: "X" (want ...)`, naming no status.
		{[]string{"teams", "list", "--status", "X"}, `invalid status: team status "X" (want pending, running, completed or failed)`},
		{[]string{"teams", "member-status", "crew", "bob", "paused"}, `invalid status: member status "paused" (want pending, running, completed or failed)`},
	} {
		r := runCLI(t, dir, "", tc.args...)
		if want := "cortexctl: " + tc.stderr + "\n"; r.code != exitInvalid || r.stderr != want || r.stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d, stderr %q", tc.args, r.code, r.stdout, r.stderr, exitInvalid, want)
		}
	}
}

// TestMailSend_UnknownType: an unknown --type of mail send is an invalid
// message (exit 7) listing the types in words, checked before the store
// is opened (another process holds it here); it was checked once the
// store was open and listed them as a Go slice ("want one of
// [delegate_work ask_question ...]").
func TestMailSend_UnknownType(t *testing.T) {
	const want = "cortexctl: mail send: invalid message: type %q (want delegate_work, ask_question, share_finding, request_approval, approval, rejection, challenge, vote, task_claimed, task_completed or status)\n"
	checkedBeforeOpening(t, []argsCase{
		{[]string{"mail", "send", "crew", "hi", "--as", "ann", "--type", "X"}, exitInvalid, fmt.Sprintf(want, "X")},
		// Any case is taken (TestCLI_EnumInputsAnyCase); what is echoed
		// is what was typed.
		{[]string{"mail", "send", "crew", "hi", "--as", "ann", "--type", "STATUSES", "--to", "bob"}, exitInvalid, fmt.Sprintf(want, "STATUSES")},
	})
}

// TestCLI_EnumInputsAnyCase: the words of our fixed vocabularies given as
// values (a member's status, a message type, a merge strategy, --format
// table|json; a token's role: TestTokens_RoleAnyCase) are taken in any
// case, as the status filters are, and stored and printed in lower case;
// member-status RUNNING was refused (exit 7).
func TestCLI_EnumInputsAnyCase(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	for _, tc := range []struct {
		args []string
		want string // in stdout
	}{
		{[]string{"teams", "member-status", "crew", "bob", "RUNNING"}, "member bob: running;"},
		{[]string{"teams", "member-status", "crew", "cat", "Running", "--format", "JSON"}, `"status": "running"`},
		{[]string{"mail", "send", "crew", "hi", "--as", "ann", "--to", "bob", "--type", "Ask_Question", "--json"}, `"type": "ask_question"`},
		{[]string{"teams", "create", "--id", "crew2", "--name", "c", "--member", "ann:lead", "--strategy", "Majority-Wins", "--json"}, `"strategy": "majority-wins"`},
		{[]string{"teams", "list", "--format", "Table"}, "crew2"},
	} {
		r := runCLI(t, dir, "", tc.args...)
		if r.code != 0 || !strings.Contains(r.stdout, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 0, %q", tc.args, r.code, r.stdout, r.stderr, tc.want)
		}
	}
}

// TestCLI_DurationEchoedAsTyped: a duration flag's value refused for its
// sign is echoed as it was typed; it was echoed as Go prints it
// (--max-age -1h said "--max-age -1h0m0s").
func TestCLI_DurationEchoedAsTyped(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	for _, tc := range []struct {
		args []string
		want string // in stderr
	}{
		{[]string{"mail", "retention", "crew", "--max-age", "-1h"}, `--max-age -1h: want an age ≥ 0`},
		{[]string{"mail", "retention", "crew", "--max-age=-90m"}, `--max-age -90m: want an age ≥ 0`},
		{[]string{"tasks", "board", "crew", "--lease", "-60s"}, `--lease -60s: want a duration > 0`},
		{[]string{"tasks", "board", "crew", "--stale-after", "0h"}, `--stale-after 0h: want a duration > 0`},
		{[]string{"query", "--timeout", "-1m", "ASK {}"}, `query: --timeout -1m is negative`},
		{[]string{"--server-timeout", "-2h", "teams", "list"}, `--server-timeout -2h: want 0`},
		{[]string{"serve", "--idle-timeout", "-5s"}, `serve: --idle-timeout -5s: want a positive duration`},
	} {
		r := runCLI(t, dir, "", tc.args...)
		if r.code != exitInvalid || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d, %q", tc.args, r.code, r.stderr, exitInvalid, tc.want)
		}
	}
}
