package main

import (
	"context"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/cortex"
)

// TestPlansArgs_CheckedBeforeOpening: plans draft and submit without
// --by, plans approve and reject without --revision (or with one below
// 1), plans reject without --feedback (or one of white space only) and
// plans draft without --title (or one of white space only), are refused
// before the store
// is opened: with their own exit code and message even while another
// process holds the store (not 6, "in use"), and leaving its directory as
// it was. (Not a TestCLI_ test: a server would hold the store.)
func TestPlansArgs_CheckedBeforeOpening(t *testing.T) {
	checkedBeforeOpening(t, []argsCase{
		{[]string{"plans", "draft", "crew", "--title", "t", "--step", "s"}, exitUsage, "--by LEAD is required"},
		{[]string{"plans", "submit", "crew"}, exitUsage, "--by LEAD is required"},
		{[]string{"plans", "reject", "crew", "--revision", "1"}, exitUsage, "plans reject: a rejection needs --feedback (why)"},
		{[]string{"plans", "reject", "crew", "--revision", "1", "--feedback", " "}, exitUsage, "plans reject: --feedback is blank: a rejection says why"},
		{[]string{"plans", "draft", "crew", "--by", "ann", "--step", "s"}, exitUsage, "plans draft: --title is required"},
		{[]string{"plans", "draft", "crew", "--by", "ann", "--title", "\t", "--step", "s"}, exitUsage, "plans draft: --title is blank"},
		{[]string{"plans", "approve", "crew"}, exitUsage, "--revision N is required"},
		{[]string{"plans", "reject", "crew", "--feedback", "why"}, exitUsage, "--revision N is required"},
		{[]string{"plans", "approve", "crew", "--revision", "-1"}, exitInvalid, "--revision -1: want 1 or more"},
	})
}

// argsCase is a command line refused by its own checks: its exit code and
// a part of its message.
type argsCase struct {
	args []string
	code int
	msg  string
}

// checkedBeforeOpening runs each case on a crew team's store that another
// process holds open (read-only), and checks that the command was refused
// before it opened the store: its own exit code and message (not 6, "in
// use"), and the store's directory as it was.
func checkedBeforeOpening(t *testing.T, cases []argsCase) {
	t.Helper()
	dir := t.TempDir()
	crewTeam(t, dir)
	reader, err := cortex.Open(context.Background(), dir, cortex.DefaultOptions().WithReadOnly(true))
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	before := dirState(t, dir)
	for _, tc := range cases {
		r := runCLI(t, dir, "", tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("%q: exit %d, %q; want %d, %q", tc.args, r.code, r.stderr, tc.code, tc.msg)
		}
		if after := dirState(t, dir); after != before {
			t.Fatalf("%q changed the store's directory", tc.args)
		}
	}
}
