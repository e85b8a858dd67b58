package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestCLI_Mail sends a question, a reply and a broadcast, and reads,
// archives, threads and lists them.
func TestCLI_Mail(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	mustCLI(t, dir, "tasks", "create", "crew", "a")
	var m1, m2 api.Message
	cliJSON(t, dir, &m1, "mail", "send", "crew", "which API?", "--as", "bob", "--to", "ann", "--type", "ask_question",
		"--subject", "scope", "--task", "T1", "--attach", "https://example.org/spec")
	if m1.ID != "M1" || m1.From != "bob" || !slices.Equal(m1.To, []string{"ann"}) || m1.Task != "T1" || m1.Type != "ask_question" ||
		!slices.Equal(m1.Attachments, []string{"https://example.org/spec"}) {
		t.Fatalf("send: %+v", m1)
	}
	if out := mustCLI(t, dir, "mail", "send", "crew", "v2", "--as", "ann", "--reply-to", "M1", "--to", "bob"); out != "sent M2 (status) to bob, thread M1\n" {
		t.Fatalf("reply: %q", out)
	}
	cliJSON(t, dir, &m2, "mail", "send", "crew", "standup at 10", "--as", "ann")
	if !m2.Broadcast || !slices.Equal(m2.To, []string{"bob", "cat"}) || m2.Type != "status" {
		t.Fatalf("broadcast: %+v", m2)
	}
	var in []api.Message
	cliJSON(t, dir, &in, "mail", "inbox", "crew", "--as", "bob")
	if len(in) != 2 || in[0].ID != "M2" || in[0].Status != "unread" || in[0].ReplyTo != "M1" || in[0].ReadAt != nil {
		t.Fatalf("inbox: %+v", in)
	}
	if out := mustCLI(t, dir, "mail", "read", "crew", "M2", "--as", "bob"); out != "1 message read: M2\n" {
		t.Fatalf("read: %q", out)
	}
	var marked api.MessagesMarked
	cliJSON(t, dir, &marked, "mail", "archive", "crew", "M3", "--as", "bob")
	if marked.Status != "archived" || !slices.Equal(marked.Messages, []string{"M3"}) {
		t.Fatalf("archive: %+v", marked)
	}
	cliJSON(t, dir, &in, "mail", "inbox", "crew", "--as", "bob")
	if len(in) != 1 || in[0].ID != "M2" || in[0].Status != "read" || in[0].ReadAt == nil {
		t.Fatalf("inbox after read and archive: %+v", in)
	}
	cliJSON(t, dir, &in, "mail", "inbox", "crew", "--as", "bob", "--status", "archived")
	if len(in) != 1 || in[0].ID != "M3" {
		t.Fatalf("archived: %+v", in)
	}
	if out := mustCLI(t, dir, "mail", "thread", "crew", "M2"); !strings.Contains(out, "M1  ") || !strings.Contains(out, "M2  ") || strings.Contains(out, "M3  ") {
		t.Fatalf("thread:\n%s", out)
	}
	cliJSON(t, dir, &in, "mail", "history", "crew", "--limit", "2")
	if len(in) != 2 || in[0].ID != "M2" || in[1].ID != "M3" || in[0].Status != "" {
		t.Fatalf("history --limit 2: %+v", in)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"send without --as", []string{"mail", "send", "crew", "hi"}, exitUsage, "want --as AGENT"},
		{"send without body", []string{"mail", "send", "crew", "--as", "bob"}, exitUsage, "want TEAM BODY"},
		{"inbox without --as", []string{"mail", "inbox", "crew"}, exitUsage, "want --as AGENT"},
		{"read without ids", []string{"mail", "read", "crew", "--as", "bob"}, exitUsage, "want TEAM MESSAGE..."},
		{"thread without id", []string{"mail", "thread", "crew"}, exitUsage, "want TEAM MESSAGE"},
		{"bad type", []string{"mail", "send", "crew", "hi", "--as", "bob", "--type", "gossip"}, exitInvalid, "gossip"},
		{"to self", []string{"mail", "send", "crew", "hi", "--as", "bob", "--to", "bob"}, exitInvalid, "itself"},
		{"reply to nothing", []string{"mail", "send", "crew", "hi", "--as", "bob", "--reply-to", "M99"}, exitNotFound, `reply to "M99": unknown message`},
		{"about no task", []string{"mail", "send", "crew", "hi", "--as", "bob", "--task", "T99"}, exitNotFound, `task "T99": unknown task`},
		{"stranger", []string{"mail", "send", "crew", "hi", "--as", "zed"}, exitNotFound, "unknown agent"},
		{"to a stranger", []string{"mail", "send", "crew", "hi", "--as", "bob", "--to", "zed"}, exitNotFound, `recipient "zed": unknown agent`},
		{"read another's", []string{"mail", "read", "crew", "M2", "M1", "--as", "bob"}, exitNotFound, "unknown message"},
		{"bad status", []string{"mail", "inbox", "crew", "--as", "bob", "--status", "new"}, exitInvalid, "new"},
		{"negative limit", []string{"mail", "history", "crew", "--limit", "-1"}, exitInvalid, "--limit"},
		{"unknown thread", []string{"mail", "thread", "crew", "M99"}, exitNotFound, "unknown message"},
		{"unknown team", []string{"mail", "history", "nope"}, exitNotFound, "unknown team"},
		{"no messages kept", []string{"mail", "retention", "crew", "--per-agent", "0"}, exitInvalid, "at least 1 message"},
		// Only the flag at fault is named (the other one was named too, at
		// its zero value, though not given).
		{"negative per-agent", []string{"mail", "retention", "crew", "--per-agent", "-1"}, exitInvalid, "invalid value: --per-agent -1: want at least 1 message"},
		{"negative max-age", []string{"mail", "retention", "crew", "--max-age", "-1h"}, exitInvalid, "invalid value: --max-age -1h: want an age ≥ 0"},
		{"retention of no team", []string{"mail", "retention", "nope"}, exitNotFound, "unknown team"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, "", tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
				t.Fatalf("exit %d (want %d), stderr %q (want %q)", r.code, tc.code, r.stderr, tc.msg)
			}
		})
	}
	// Nothing was sent, and no message changed status, by the refused
	// commands (mail read M2 M1 marks neither).
	cliJSON(t, dir, &in, "mail", "history", "crew")
	if len(in) != 3 {
		t.Fatalf("history after refused commands: %+v", in)
	}
	cliJSON(t, dir, &in, "mail", "inbox", "crew", "--as", "ann", "--status", "unread")
	if len(in) != 1 || in[0].ID != "M1" {
		t.Fatalf("ann's unread after refused commands: %+v", in)
	}
}

// TestCLI_MailRetention: an inbox keeps --per-agent messages, the oldest
// go first.
func TestCLI_MailRetention(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	var r api.MailRetention
	cliJSON(t, dir, &r, "mail", "retention", "crew", "--per-agent", "2")
	if r.PerAgent != 2 || r.MaxAge != 30*24*3600 {
		t.Fatalf("retention: %+v", r)
	}
	for _, body := range []string{"one", "two", "three"} {
		mustCLI(t, dir, "mail", "send", "crew", body, "--as", "ann", "--to", "bob")
	}
	var in []api.Message
	cliJSON(t, dir, &in, "mail", "inbox", "crew", "--as", "bob")
	if len(in) != 2 || in[0].Body != "two" || in[1].Body != "three" {
		t.Fatalf("inbox keeping 2: %+v", in)
	}
	if out := mustCLI(t, dir, "mail", "retention", "crew", "--max-age", "1h", "--per-agent", "1"); out != "team crew: each inbox keeps 1 message, none older than 1h0m0s\n" {
		t.Fatalf("retention: %q", out)
	}
	// --max-age 0 keeps messages whatever their age: the table says so
	// (not "none older than 0s").
	if out := mustCLI(t, dir, "mail", "retention", "crew", "--max-age", "0", "--per-agent", "1"); out != "team crew: each inbox keeps 1 message, whatever their age\n" {
		t.Fatalf("retention --max-age 0: %q", out)
	}
}

// TestCLI_MailRetention_ShowAndKeep: mail retention without flags shows the
// team's retention and writes nothing; with one flag it sets that value and
// keeps the other (it used to set the other back to its default).
func TestCLI_MailRetention_ShowAndKeep(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	if out := mustCLI(t, dir, "mail", "retention", "crew"); out != "team crew: each inbox keeps 1,000 messages, none older than 720h0m0s\n" {
		t.Fatalf("retention of a new team: %q", out)
	}
	mustCLI(t, dir, "mail", "retention", "crew", "--per-agent", "200")
	mustCLI(t, dir, "mail", "retention", "crew", "--max-age", "1h")
	var r api.MailRetention
	cliJSON(t, dir, &r, "mail", "retention", "crew")
	if r.Team != "crew" || r.PerAgent != 200 || r.MaxAge != 3600 {
		t.Fatalf("after --per-agent 200 then --max-age 1h: %+v, want 200 messages and 3600 s", r)
	}
	if !throughServer { // (a server opens the store for writing, whatever the command)
		before := dirState(t, dir)
		mustCLI(t, dir, "mail", "retention", "crew")
		if after := dirState(t, dir); after != before {
			t.Fatalf("mail retention without flags wrote to the store:\n%s\n%s", before, after)
		}
	}
	if r := runCLI(t, dir, "", "mail", "retention", "nosuch"); r.code != exitNotFound {
		t.Fatalf("retention of an unknown team: exit %d\n%s", r.code, r.stderr)
	}
}

// TestCLI_RepeatableFlagsKeepCommas: a repeatable flag's value is one value,
// commas and all: an attachment IRI with a comma is one attachment (urfave
// split it: 'https://ex.org/a,urn:b' became two, 'https://ex.org/a,b' was
// refused for its part "b"), and a plan step with a comma is one step. The
// id lists (--to, --blocked-by) still take comma-separated ids, which no id
// holds.
func TestCLI_RepeatableFlagsKeepCommas(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	for _, iri := range []string{"https://example.org/a,b", "https://example.org/a,urn:b"} {
		var m api.Message
		cliJSON(t, dir, &m, "mail", "send", "crew", "see", "--as", "bob", "--to", "ann", "--attach", iri)
		if !slices.Equal(m.Attachments, []string{iri}) {
			t.Errorf("--attach %s: attachments %q, want that one IRI", iri, m.Attachments)
		}
	}
	var m api.Message
	cliJSON(t, dir, &m, "mail", "send", "crew", "both", "--as", "bob", "--to", "ann,cat")
	if !slices.Equal(m.To, []string{"ann", "cat"}) {
		t.Errorf("--to ann,cat: to %q", m.To)
	}
	var p teammanager.Plan
	cliJSON(t, dir, &p, "plans", "draft", "crew", "--by", "ann", "--title", "t", "--step", "write it, then test it")
	if len(p.Steps) != 1 || p.Steps[0].Title != "write it, then test it" {
		t.Errorf("--step with a comma: steps %+v", p.Steps)
	}
}

// TestCLI_MailSend_BlankBody: a body of white space only is text left
// out, as an empty one: a usage error (exit 2) naming BODY, reported
// before a missing --as as the empty one is, and nothing is sent. It was
// an invalid value (exit 7, "empty body") while the empty one was 2.
func TestCLI_MailSend_BlankBody(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	for _, body := range []string{"", " ", " \n", "\t\r\n", "\u00a0"} {
		want := "cortexctl: usage: mail send: BODY is blank: want TEAM BODY\n"
		if body == "" {
			want = "cortexctl: usage: mail send: BODY is empty: want TEAM BODY\n"
		}
		for _, as := range [][]string{{"--as", "bob", "--to", "ann"}, nil} {
			args := append([]string{"mail", "send", "crew", body}, as...)
			if r := runCLI(t, dir, "", args...); r.code != exitUsage || r.stderr != want || r.stdout != "" {
				t.Errorf("%q: exit %d, stderr %q; want exit %d, stderr %q", args, r.code, r.stderr, exitUsage, want)
			}
		}
	}
	if out := mustCLI(t, dir, "mail", "history", "crew", "--json"); out != "[]\n" {
		t.Fatalf("history after the refused sends: %s", out)
	}
}

// TestCLI_MailRead_DuplicateOnce: a message given twice is marked once
// and reported once; `mail read crew M1 M1` said "2 messages read: M1 M1"
// and its JSON (a server's result too) listed M1 twice.
func TestCLI_MailRead_DuplicateOnce(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	mustCLI(t, dir, "mail", "send", "crew", "one", "--as", "ann", "--to", "bob")
	mustCLI(t, dir, "mail", "send", "crew", "two", "--as", "ann", "--to", "bob")
	if out := mustCLI(t, dir, "mail", "read", "crew", "M1", "M1", "--as", "bob"); out != "1 message read: M1\n" {
		t.Errorf("mail read M1 M1: %q", out)
	}
	var got api.MessagesMarked
	cliJSON(t, dir, &got, "mail", "archive", "crew", "M2", "M1", "M2", "--as", "bob")
	if want := []string{"M2", "M1"}; !slices.Equal(got.Messages, want) {
		t.Errorf("mail archive M2 M1 M2 --json: messages %q, want %q", got.Messages, want)
	}
}

// TestCLI_StatusFilters_AnyCase: a --status (or --lifecycle) filter takes
// its word in any case, for tasks, mail, teams and workflow runs alike:
// `mail inbox --status READ` said `invalid message: status "READ"` and
// `tasks list --status PENDING` "invalid status". An unknown word is an
// invalid status (exit 7) listing the known ones, for mail too.
func TestCLI_StatusFilters_AnyCase(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	mustCLI(t, dir, "tasks", "create", "crew", "a")
	mustCLI(t, dir, "mail", "send", "crew", "hi", "--as", "ann", "--to", "bob")
	mustCLI(t, dir, "mail", "read", "crew", "M1", "--as", "bob")
	for _, args := range [][]string{
		{"tasks", "list", "crew", "--status", "PENDING"},
		{"mail", "inbox", "crew", "--as", "bob", "--status", "Read"},
		{"teams", "list", "--lifecycle", "ACTIVE"},
		{"teams", "list", "--status", "Pending"},
		{"workflows", "list", "--status", "RUNNING"},
	} {
		if r := runCLI(t, dir, "", args...); r.code != exitOK {
			t.Errorf("%q: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	var ts []api.Task
	cliJSON(t, dir, &ts, "tasks", "list", "crew", "--status", "PENDING")
	var ms []api.Message
	cliJSON(t, dir, &ms, "mail", "inbox", "crew", "--as", "bob", "--status", "READ")
	if len(ts) != 1 || ts[0].ID != "T1" || len(ms) != 1 || ms[0].ID != "M1" {
		t.Errorf("tasks --status PENDING: %+v; inbox --status READ: %+v", ts, ms)
	}
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"mail", "inbox", "crew", "--as", "bob", "--status", "seen"}, `invalid status: message status "seen" (want unread, read or archived)`},
		{[]string{"tasks", "list", "crew", "--status", "DONE"}, `invalid status: task status "DONE" (want pending, in_progress, in_review, completed, failed or cancelled)`},
	} {
		r := runCLI(t, dir, "", tc.args...)
		if want := "cortexctl: " + tc.stderr + "\n"; r.code != exitInvalid || r.stderr != want {
			t.Errorf("%q: exit %d, stderr %q; want exit %d, stderr %q", tc.args, r.code, r.stderr, exitInvalid, want)
		}
	}
}
