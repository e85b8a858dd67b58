package main

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCLI_ValuesRefusedAsEmbedded: values a server cannot be sent as they
// are (NaN or ±Inf in JSON, text that is not UTF-8) and a time that
// cannot be stored (the zero time) are refused with the same stderr and
// exit code through a server as embedded (TestCLI_ThroughServer runs it
// so): the embedded Manager's message, not the client's encoding error
// (exit 1) or a param's name. Nothing is written.
func TestCLI_ValuesRefusedAsEmbedded(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir) // ann (lead), bob, cat
	zero := writeFile(t, "zero.jsonl", `{"subject": "<https://ex.org/s>", "predicate": "rdfs:comment", "object": "\"x\"", "assertedAt": "0001-01-01T00:00:00Z"}`+"\n")
	for _, tc := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"confidence NaN", []string{"findings", "add", "crew", "bob", "<https://ex.org/s>", "rdfs:comment", `"x"`, "--confidence", "NaN"},
			"cortexctl: team crew: agent bob: invalid finding: confidence NaN not in [0, 1]\n"},
		{"confidence Inf", []string{"findings", "add", "crew", "bob", "<https://ex.org/s>", "rdfs:comment", `"x"`, "--confidence", "Inf"},
			"cortexctl: team crew: agent bob: invalid finding: confidence +Inf not in [0, 1]\n"},
		{"confidence -Inf", []string{"findings", "add", "crew", "bob", "<https://ex.org/s>", "rdfs:comment", `"x"`, "--confidence", "-Inf"},
			"cortexctl: team crew: agent bob: invalid finding: confidence -Inf not in [0, 1]\n"},
		{"--at the zero time", []string{"findings", "add", "crew", "bob", "<https://ex.org/s>", "rdfs:comment", `"x"`, "--at", "0001-01-01T00:00:00Z"},
			"cortexctl: invalid value: --at \"0001-01-01T00:00:00Z\" is the zero time, which a finding cannot have: give another time, or no --at (now)\n"},
		{"--at after 9999 in UTC", []string{"findings", "add", "crew", "bob", "<https://ex.org/s>", "rdfs:comment", `"x"`, "--at", "9999-12-31T23:00:00-05:00"},
			"cortexctl: team crew: agent bob: invalid finding: assertedAt 10000-01-01T04:00:00Z: year 10000 of UTC not in 0000-9999 (RFC 3339)\n"},
		{"import of the zero time", []string{"findings", "import", "crew", "bob", zero},
			"cortexctl: import findings: team crew: agent bob: record 1 (line 1): invalid finding: assertedAt \"0001-01-01T00:00:00Z\" is the zero time, which a finding cannot have (no assertedAt means now): give another time, or none\n"},
		{"task subject not UTF-8", []string{"tasks", "create", "crew", "bad\xff", "--as", "ann"},
			"cortexctl: team crew: create task: invalid task: subject is not valid UTF-8\n"},
		{"message body not UTF-8", []string{"mail", "send", "crew", "bad\xff", "--as", "ann"},
			"cortexctl: team crew: send message: invalid message: body is not valid UTF-8\n"},
		{"message subject not UTF-8", []string{"mail", "send", "crew", "hi", "--as", "ann", "--subject", "bad\xff"},
			"cortexctl: team crew: send message: invalid message: subject is not valid UTF-8\n"},
		{"snapshot note not UTF-8", []string{"teams", "snapshot", "create", "crew", "--note", "n\xff"},
			"cortexctl: team crew: snapshot: invalid argument: note is not valid UTF-8\n"},
		{"plan title not UTF-8", []string{"plans", "draft", "crew", "--by", "ann", "--title", "t\xff", "--step", "s"},
			"cortexctl: team crew: draft plan: invalid plan: title is not valid UTF-8\n"},
		{"plan step not UTF-8", []string{"plans", "draft", "crew", "--by", "ann", "--title", "t", "--step", "s | d\xff"},
			"cortexctl: team crew: draft plan: invalid plan: step 1 is not valid UTF-8\n"},
		{"plan feedback not UTF-8", []string{"plans", "reject", "crew", "--revision", "1", "--by", "ann", "--feedback", "f\xff"},
			"cortexctl: team crew: review plan: invalid plan: feedback is not valid UTF-8\n"},
		{"message type not UTF-8", []string{"mail", "send", "crew", "hi", "--as", "ann", "--type", "s\xff"},
			"cortexctl: mail send: invalid message: type \"s\\xff\" (want delegate_work, ask_question, share_finding, request_approval, approval, rejection, challenge, vote, task_claimed, task_completed or status)\n"},
		{"inbox status not UTF-8", []string{"mail", "inbox", "crew", "--as", "bob", "--status", "s\xff"},
			"cortexctl: invalid status: message status \"s\\xff\" (want unread, read or archived)\n"},
		{"board lead not UTF-8", []string{"tasks", "board", "crew", "--lead", "a\xff"},
			"cortexctl: team crew: configure board: lead \"a\\xff\": invalid id (unknown agent; want 1 to 64 characters of A-Z a-z 0-9 . _ @ + -)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, "", tc.args...)
			if r.code != exitInvalid || r.stderr != tc.stderr || r.stdout != "" {
				t.Fatalf("exit %d, stdout %q, stderr\n%q\nwant exit %d, stderr\n%q", r.code, r.stdout, r.stderr, exitInvalid, tc.stderr)
			}
		})
	}
	for _, args := range [][]string{{"findings", "list", "crew"}, {"tasks", "list", "crew"}, {"mail", "history", "crew"}} {
		if out := mustCLI(t, dir, append(args, "--json")...); out != "[]\n" {
			t.Errorf("%v after the refused commands: %s", args, out)
		}
	}
}

// TestCLI_IDsNotUTF8AsEmbedded: an id that is not valid UTF-8 (a team,
// agent, task, snapshot or run id given as bytes) is a malformed id, with
// the same stderr and exit code through a server as embedded
// (TestCLI_ThroughServer runs it so); in a namespace that does not exist
// it is no such namespace (3), as any id there. Through a server it was
// the client's generic "not UTF-8" naming a param, exit 7 in every case.
func TestCLI_IDsNotUTF8AsEmbedded(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir) // ann (lead), bob, cat
	const team = `want 1 to 64 characters of A-Z a-z 0-9 . _ @ + -)`
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"team", []string{"teams", "get", "cr\xffew"}, exitInvalid,
			`cortexctl: team "cr\xffew": invalid id (unknown team; ` + team + "\n"},
		{"team of tasks", []string{"tasks", "list", "\xff"}, exitInvalid,
			`cortexctl: team "\xff": invalid id (unknown team; ` + team + "\n"},
		{"task", []string{"tasks", "get", "crew", "\xff"}, exitInvalid,
			`cortexctl: team crew: task "\xff": invalid id (unknown task; want T1, T2, ...)` + "\n"},
		{"task of an unknown team", []string{"tasks", "get", "nope", "\xff"}, exitNotFound,
			`cortexctl: team "nope": unknown team` + "\n"},
		{"agent", []string{"findings", "add", "crew", "\xff", "<http://ex/s>", "<http://ex/p>", `"x"`}, exitInvalid,
			`cortexctl: team crew: agent "\xff": invalid id (unknown agent; ` + team + "\n"},
		{"agent of an unknown team", []string{"findings", "add", "nope", "\xff", "<http://ex/s>", "<http://ex/p>", `"x"`}, exitNotFound,
			`cortexctl: team "nope": unknown team` + "\n"},
		{"sender", []string{"mail", "send", "crew", "hi", "--as", "\xff"}, exitInvalid,
			`cortexctl: team crew: send message: sender "\xff": invalid id (unknown agent; ` + team + "\n"},
		{"recipient", []string{"mail", "send", "crew", "hi", "--as", "ann", "--to", "\xff"}, exitInvalid,
			`cortexctl: team crew: send message: invalid message: recipient "\xff": invalid id (unknown agent; ` + team + "\n"},
		{"run", []string{"workflows", "status", "\xff"}, exitInvalid,
			`cortexctl: run "\xff": invalid id (unknown run; ` + team + "\n"},
		{"new team's id", []string{"teams", "create", "--id", "t\xff", "--name", "n", "--member", "a:r"}, exitInvalid,
			`cortexctl: create team "n": invalid team config: id "t\xff" must be 1..64 characters of [A-Za-z0-9._@+-]` + "\n"},
		{"new team's member", []string{"teams", "create", "--id", "tz", "--name", "n", "--member", "a\xff:r"}, exitInvalid,
			`cortexctl: create team "n": invalid team config: agent id "a\xff" must be 1..64 characters of [A-Za-z0-9._@+-]` + "\n"},
		{"new team's strategy", []string{"teams", "create", "--id", "tz", "--name", "n", "--member", "a:r", "--strategy", "s\xff"}, exitInvalid,
			`cortexctl: create team "n": invalid team config: merge strategy "s\xff": unknown merge strategy (known: additive, confidence-weighted, conflict-flag, consensus, majority-wins, newest-wins, replace)` + "\n"},
		{"team in a namespace that does not exist", []string{"-n", "nope", "teams", "get", "\xff"}, exitNotFound,
			`cortexctl: no such namespace "nope"` + "\n"},
		{"task in a namespace that does not exist", []string{"-n", "nope", "tasks", "get", "crew", "\xff"}, exitNotFound,
			`cortexctl: no such namespace "nope"` + "\n"},
		{"run in a namespace that does not exist", []string{"-n", "nope", "workflows", "status", "\xff"}, exitNotFound,
			`cortexctl: no such namespace "nope"` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, "", tc.args...)
			if r.code != tc.code || r.stderr != tc.stderr || r.stdout != "" {
				t.Fatalf("exit %d, stdout %q, stderr\n%q\nwant exit %d, stderr\n%q", r.code, r.stdout, r.stderr, tc.code, tc.stderr)
			}
		})
	}
}

// TestCLI_WorkflowInputNotUTF8: a run input that is not valid UTF-8 is
// refused (the run's error, exit 7, nothing started), through a server as
// embedded (TestCLI_ThroughServer runs it so). Embedded, the run started
// with the input's bad bytes turned into U+FFFD; through a server it was
// the client's generic "not UTF-8" naming a param.
func TestCLI_WorkflowInputNotUTF8(t *testing.T) {
	dir := t.TempDir()
	team := writeFile(t, "release.json", graphTeam)
	r := runCLI(t, dir, "", "workflows", "run", team, "--id", "r1", "--input", "version=1.\xff")
	want := `cortexctl: start release: invalid run: inputs: "version" is not valid UTF-8` + "\n"
	if r.code != exitInvalid || r.stderr != want || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr\n%q\nwant exit %d, stderr\n%q", r.code, r.stdout, r.stderr, exitInvalid, want)
	}
	if r := runCLI(t, dir, "", "workflows", "status", "r1"); r.code != exitNotFound {
		t.Fatalf("status of the refused run: exit %d, %s%s", r.code, r.stdout, r.stderr)
	}
}

// TestCLI_AttachmentNotUTF8AsEmbedded: an attachment that is not valid
// UTF-8 is refused with the same stderr and exit code through a server as
// embedded (TestCLI_ThroughServer runs it so), where the Manager refuses
// it: after the team, the sender and the recipients, as an IRI that is not
// absolute. Through a server it was the client's generic "not UTF-8"
// naming a param, exit 7 in every case.
func TestCLI_AttachmentNotUTF8AsEmbedded(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir) // ann (lead), bob, cat
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"not UTF-8", []string{"mail", "send", "crew", "hi", "--as", "bob", "--attach", "a\xff"}, exitInvalid,
			`cortexctl: team crew: send message: invalid message: attachment "a\xff" is not an absolute IRI` + "\n"},
		{"an IRI with a byte that is not UTF-8", []string{"mail", "send", "crew", "hi", "--as", "bob", "--attach", "https://ex.org/a\xff"}, exitInvalid,
			`cortexctl: team crew: send message: invalid message: attachment "https://ex.org/a\xff" is not an absolute IRI` + "\n"},
		{"the second of two", []string{"mail", "send", "crew", "hi", "--as", "bob", "--attach", "https://ex.org/a", "--attach", "https://ex.org/\xfe\xff"}, exitInvalid,
			`cortexctl: team crew: send message: invalid message: attachment "https://ex.org/\xfe\xff" is not an absolute IRI` + "\n"},
		{"after a relative one", []string{"mail", "send", "crew", "hi", "--as", "bob", "--attach", "rel", "--attach", "a\xff"}, exitInvalid,
			`cortexctl: team crew: send message: invalid message: attachment "rel" is not an absolute IRI` + "\n"},
		{"unknown team first", []string{"mail", "send", "nope", "hi", "--as", "bob", "--attach", "a\xff"}, exitNotFound,
			`cortexctl: send message: team "nope": unknown team` + "\n"},
		{"unknown recipient first", []string{"mail", "send", "crew", "hi", "--as", "bob", "--to", "zed", "--attach", "a\xff"}, exitNotFound,
			`cortexctl: team crew: send message: invalid message: recipient "zed": unknown agent` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, "", tc.args...)
			if r.code != tc.code || r.stderr != tc.stderr || r.stdout != "" {
				t.Fatalf("exit %d, stdout %q, stderr\n%q\nwant exit %d, stderr\n%q", r.code, r.stdout, r.stderr, tc.code, tc.stderr)
			}
		})
	}
	if out := mustCLI(t, dir, "mail", "history", "crew", "--json"); out != "[]\n" {
		t.Errorf("mail history after the refused sends: %s", out)
	}
}

// TestCLI_HostileIDsQuoted: an id that is not one (bytes that are not
// UTF-8, a newline, an escape sequence) shows quoted wherever a message
// names it, as the lookup errors do ("task %q: invalid id"), through a
// server as embedded (TestCLI_ThroughServer runs it so): the messages
// printed it raw in their prefix ("restore snapshot \xff: ..."), where a
// newline forged a second line and an escape sequence reached the
// terminal.
func TestCLI_HostileIDsQuoted(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir) // ann (lead), bob, cat
	mustCLI(t, dir, "mail", "send", "crew", "hi", "--as", "ann")
	const agentWant = "want 1 to 64 characters of A-Z a-z 0-9 . _ @ + -)"
	for _, id := range []string{"\xff", "a\nb", "a\x1b[31m"} {
		q := strconv.Quote(id)
		for _, tc := range []struct {
			args   []string
			code   int
			stderr string
		}{
			{[]string{"teams", "snapshot", "restore", "crew", id}, exitInvalid,
				"team crew: restore snapshot " + q + ": invalid id (unknown snapshot; want S1, S2, ...)"},
			{[]string{"teams", "snapshot", "get", "crew", id}, exitInvalid,
				"team crew: snapshot " + q + ": invalid id (unknown snapshot; want S1, S2, ...)"},
			{[]string{"teams", "snapshot", "delete", "crew", id}, exitInvalid,
				"team crew: delete snapshot " + q + ": invalid id (unknown snapshot; want S1, S2, ...)"},
			{[]string{"teams", "snapshot", "create", id}, exitInvalid,
				"snapshot: team " + q + ": invalid id (unknown team; " + agentWant},
			{[]string{"tasks", "dispatch", id}, exitInvalid,
				"dispatch: team " + q + ": invalid id (unknown team; " + agentWant},
			{[]string{"tasks", "claim", "crew", id, "--as", "bob"}, exitInvalid,
				"team crew: claim task " + q + ": invalid id (unknown task; want T1, T2, ...)"},
			{[]string{"tasks", "next", "crew", "--as", id}, exitInvalid,
				"team crew: claim next: agent " + q + ": invalid id (unknown agent; " + agentWant},
			{[]string{"mail", "inbox", "crew", "--as", id}, exitInvalid,
				"team crew: inbox: agent " + q + ": invalid id (unknown agent; " + agentWant},
			{[]string{"mail", "read", "crew", "M1", "--as", id}, exitInvalid,
				"team crew: mark messages read: agent " + q + ": invalid id (unknown agent; " + agentWant},
			{[]string{"plans", "submit", "crew", "--by", id}, exitConflict,
				"team crew: submit plan: not allowed: only the lead (ann) drafts and submits the plan, not " + q},
			{[]string{"plans", "approve", "crew", "--by", id, "--revision", "1"}, exitConflict,
				"team crew: review plan: not allowed: only operator approves or rejects this board's plan, not " + q},
			{[]string{"conflicts", "resolve", "crew", id, "--object", `"a"`, "--by", "b\x1bq"}, exitInvalid,
				"resolve conflict " + q + `: invalid resolution: resolver "b\x1bq" must be 1..64 characters of [A-Za-z0-9._@+-]`},
		} {
			t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
				r := runCLI(t, dir, "", tc.args...)
				want := "cortexctl: " + tc.stderr + "\n"
				if r.code != tc.code || r.stderr != want || r.stdout != "" {
					t.Fatalf("exit %d, stdout %q, stderr\n%q\nwant exit %d, stderr\n%q", r.code, r.stdout, r.stderr, tc.code, want)
				}
			})
		}
		// With text that is not UTF-8 as well, a server's client refuses
		// the text first (client.textNotUTF8), the Manager the id: the
		// messages differ after the prefix, which quotes the id in both
		// (the Manager's names the team once: "create task: team "a b":
		// invalid id ...", the client's "team "a b": create task: ...").
		for _, tc := range []struct {
			args     []string
			prefixes []string
		}{
			{[]string{"tasks", "create", id, "s\xff", "--as", "ann"}, []string{"team " + q + ": create task: ", "create task: team " + q + ": "}},
			{[]string{"tasks", "comment", "crew", id, "c\xff", "--as", "ann"}, []string{"team crew: comment on task " + q + ": "}},
			{[]string{"mail", "send", id, "b\xff", "--as", "ann"}, []string{"team " + q + ": send message: ", "send message: team " + q + ": "}},
		} {
			t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
				r := runCLI(t, dir, "", tc.args...)
				starts := slices.ContainsFunc(tc.prefixes, func(p string) bool { return strings.HasPrefix(r.stderr, "cortexctl: "+p) })
				if r.code != exitInvalid || !starts || strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
					t.Fatalf("exit %d, stdout %q, stderr\n%q\nwant exit %d, stderr one line that starts with one of\n%q", r.code, r.stdout, r.stderr, exitInvalid, tc.prefixes)
				}
			})
		}
	}
}

// TestCLI_TwoIDsNotUTF8AsEmbedded: a message that names two ids that are
// not UTF-8, one ending the other ("\xff" and "b\xff"), names both as
// given through a server as embedded (TestCLI_ThroughServer runs it so).
// The client put the first one's byte back raw everywhere before it
// looked for the second one's quoted form, which then showed a raw byte
// between its quotes.
func TestCLI_TwoIDsNotUTF8AsEmbedded(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	r := runCLI(t, dir, "", "conflicts", "resolve", "crew", "\xff", "--object", `"a"`, "--by", "b\xff")
	want := `cortexctl: resolve conflict "\xff": invalid resolution: resolver "b\xff" must be 1..64 characters of [A-Za-z0-9._@+-]` + "\n"
	if r.code != exitInvalid || r.stderr != want || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr\n%q\nwant exit %d, stderr\n%q", r.code, r.stdout, r.stderr, exitInvalid, want)
	}
}
