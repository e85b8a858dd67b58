package main

import (
	"slices"
	"strings"
	"testing"
)

type blankTextCase struct {
	key  string // its key in blankRefused ("": its command checks it)
	args []string
	msg  string
}

// blankTextCases are command lines giving each text of blankRefused
// (BLANK stands for the text) with what the refusal says after
// "cortexctl: usage: ".
var blankTextCases = []blankTextCase{
	{"tasks progress NOTE", []string{"tasks", "progress", "crew", "T1", "BLANK", "--as", "bob"}, "tasks progress: NOTE is blank: want TEAM TASK [NOTE]"},
	{"tasks complete RESULT", []string{"tasks", "complete", "crew", "T1", "BLANK", "--as", "bob"}, "tasks complete: RESULT is blank: want TEAM TASK [RESULT]"},
	{"tasks cancel REASON", []string{"tasks", "cancel", "crew", "T1", "BLANK"}, "tasks cancel: REASON is blank: want TEAM TASK [REASON]"},
	{"tasks skip REASON", []string{"tasks", "skip", "crew", "T1", "BLANK"}, "tasks skip: REASON is blank: want TEAM TASK [REASON]"},
	{"tasks create --description", []string{"tasks", "create", "crew", "write it", "--description", "BLANK"}, "tasks create: --description is blank: give a value or leave the option out"},
	{"tasks update --description", []string{"tasks", "update", "crew", "T1", "--description", "BLANK"}, "tasks update: --description is blank: give a value or leave the option out"},
	{"", []string{"tasks", "review", "crew", "T1", "--approve", "--feedback", "BLANK"}, "tasks review: --feedback is blank: give a value or leave the option out"},
	{"mail send --subject", []string{"mail", "send", "crew", "hi", "--as", "ann", "--subject", "BLANK"}, "mail send: --subject is blank: give a value or leave the option out"},
	{"plans approve --feedback", []string{"plans", "approve", "crew", "--revision", "1", "--feedback", "BLANK"}, "plans approve: --feedback is blank: give a value or leave the option out"},
	{"teams create --name", []string{"teams", "create", "--name", "BLANK", "--member", "a:b"}, "teams create: --name is blank: give a value or leave the option out"},
	{"teams create --context", []string{"teams", "create", "--name", "x", "--member", "a:b", "--context", "BLANK"}, "teams create: --context is blank: give a value or leave the option out"},
	{"teams member-status --result", []string{"teams", "member-status", "crew", "bob", "completed", "--result", "BLANK"}, "teams member-status: --result is blank: give a value or leave the option out"},
	{"teams snapshot create --note", []string{"teams", "snapshot", "create", "crew", "--note", "BLANK"}, "teams snapshot create: --note is blank: give a value or leave the option out"},
	{"workflows run --exec", []string{"workflows", "run", "code-review", "--input", "change=x", "--exec", "BLANK"}, "workflows run: --exec is blank: give a value or leave the option out"},
	{"workflows drive --exec", []string{"workflows", "drive", "r1", "--exec", "BLANK"}, "workflows drive: --exec is blank: give a value or leave the option out"},
	{"findings add SUBJECT", []string{"findings", "add", "crew", "ann", "BLANK", "rdfs:label", "x"}, "findings add: SUBJECT is blank: want TEAM AGENT SUBJECT PREDICATE OBJECT"},
	{"findings add PREDICATE", []string{"findings", "add", "crew", "ann", "<http://ex/s>", "BLANK", "x"}, "findings add: PREDICATE is blank: want TEAM AGENT SUBJECT PREDICATE OBJECT"},
	{"findings add OBJECT", []string{"findings", "add", "crew", "ann", "<http://ex/s>", "rdfs:label", "BLANK"}, "findings add: OBJECT is blank: want TEAM AGENT SUBJECT PREDICATE OBJECT"},
	{"tasks add-finding SUBJECT", []string{"tasks", "add-finding", "crew", "T1", "BLANK", "rdfs:label", "x", "--as", "bob"}, "tasks add-finding: SUBJECT is blank: want TEAM TASK SUBJECT PREDICATE OBJECT"},
	{"tasks add-finding PREDICATE", []string{"tasks", "add-finding", "crew", "T1", "<http://ex/s>", "BLANK", "x", "--as", "bob"}, "tasks add-finding: PREDICATE is blank: want TEAM TASK SUBJECT PREDICATE OBJECT"},
	{"tasks add-finding OBJECT", []string{"tasks", "add-finding", "crew", "T1", "<http://ex/s>", "rdfs:label", "BLANK", "--as", "bob"}, "tasks add-finding: OBJECT is blank: want TEAM TASK SUBJECT PREDICATE OBJECT"},
}

// TestBlankTexts_Refused: an optional text (a progress note, a result, a
// reason, a description, feedback, a subject line, a note, a team's name
// or context, a member's result, an --exec command) given as white space
// only was stored as blank (or run: sh -c ' '), as was a finding's
// OBJECT (a blank SUBJECT or PREDICATE was taken for a literal, exit 7);
// it is text left out, a
// usage error (exit 2) naming it, as an empty one is, checked before the
// store is opened (another process holds it here) and leaving it as it
// was. Every text of blankRefused has a case.
func TestBlankTexts_Refused(t *testing.T) {
	var cases []argsCase
	blanks := []string{" ", " \n", "\t", "\u00a0"}
	for i, tc := range blankTextCases {
		args := slices.Clone(tc.args)
		args[slices.Index(args, "BLANK")] = blanks[i%len(blanks)]
		cases = append(cases, argsCase{args, exitUsage, "cortexctl: usage: " + tc.msg + "\n"})
	}
	checkedBeforeOpening(t, cases)
	for key := range blankRefused {
		if !slices.ContainsFunc(blankTextCases, func(tc blankTextCase) bool { return tc.key == key }) {
			t.Errorf("blankRefused has %q, which no case tests", key)
		}
	}
	for _, tc := range blankTextCases {
		if tc.key != "" && !blankRefused[tc.key] {
			t.Errorf("case %q is not in blankRefused", tc.key)
		}
		if tc.key != "" && !strings.HasPrefix(strings.Join(tc.args, " "), strings.Fields(tc.key)[0]) {
			t.Errorf("case %q runs %q", tc.key, tc.args)
		}
	}
}

// TestIDLists_EmptyItem: an option listing ids on commas (--to,
// --critical, --non-critical, --blocked-by) with an empty one is a usage
// error (exit 2) quoting the value, before the store is opened (another
// process holds it here), writing nothing: `tasks create --blocked-by '
// , '` created a task blocked by none, `mail send --to bob,` said
// `recipient "": invalid id` (exit 7) and `--to ,` "a recipient is
// listed twice". Every option of idLists has a case.
func TestIDLists_EmptyItem(t *testing.T) {
	cases := map[string]argsCase{
		"mail send --to":               {[]string{"mail", "send", "crew", "hi", "--as", "ann", "--to", "bob,"}, exitUsage, `cortexctl: usage: mail send: --to "bob,": an empty AGENT in the list: want AGENT[,AGENT...]` + "\n"},
		"teams create --critical":      {[]string{"teams", "create", "--name", "x", "--member", "a", "--critical", ",a"}, exitUsage, `cortexctl: usage: teams create: --critical ",a": an empty AGENT in the list: want AGENT[,AGENT...]` + "\n"},
		"workflows run --non-critical": {[]string{"workflows", "run", "code-review", "--input", "change=x", "--non-critical", "a,,b"}, exitUsage, `cortexctl: usage: workflows run: --non-critical "a,,b": an empty AGENT in the list: want AGENT[,AGENT...]` + "\n"},
		"tasks create --blocked-by":    {[]string{"tasks", "create", "crew", "x", "--blocked-by", " , "}, exitUsage, `cortexctl: usage: tasks create: --blocked-by ",": an empty TASK in the list: want TASK[,TASK...]` + "\n"},
		"tasks update --blocked-by":    {[]string{"tasks", "update", "crew", "T1", "--blocked-by", "T2, "}, exitUsage, `cortexctl: usage: tasks update: --blocked-by "T2,": an empty TASK in the list: want TASK[,TASK...]` + "\n"},
	}
	var list []argsCase
	for key := range idLists {
		tc, ok := cases[key]
		if !ok {
			t.Errorf("idLists has %q, which no case tests", key)
			continue
		}
		list = append(list, tc)
	}
	checkedBeforeOpening(t, list)
}
