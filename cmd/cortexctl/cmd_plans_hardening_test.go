package main

import (
	"context"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/cortex"
)

// TestPlansArgs_CheckedBeforeOpening: plans draft and submit without
// --by, and plans reject without --feedback, are refused before the store
// is opened: with their own exit code and message even while another
// process holds the store (not 6, "in use"), and leaving its directory as
// it was. (Not a TestCLI_ test: a server would hold the store.)
func TestPlansArgs_CheckedBeforeOpening(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	reader, err := cortex.Open(context.Background(), dir, cortex.DefaultOptions().WithReadOnly(true))
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	before := dirState(t, dir)
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"plans", "draft", "crew", "--title", "t", "--step", "s"}, exitUsage, "--by LEAD is required"},
		{[]string{"plans", "submit", "crew"}, exitUsage, "--by LEAD is required"},
		{[]string{"plans", "reject", "crew"}, exitInvalid, "a rejection needs --feedback"},
		{[]string{"plans", "reject", "crew", "--feedback", " "}, exitInvalid, "a rejection needs --feedback"},
	} {
		r := runCLI(t, dir, "", tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("%s: exit %d, %q; want %d, %q", strings.Join(tc.args, " "), r.code, r.stderr, tc.code, tc.msg)
		}
		if after := dirState(t, dir); after != before {
			t.Fatalf("%s changed the store's directory", strings.Join(tc.args, " "))
		}
	}
}
