package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/teammanager"
)

// TestCLI_Plans: the lead drafts and submits, the operator rejects and then
// approves the next revision; every revision is listed; the rules' errors
// exit as the table says.
func TestCLI_Plans(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "crew", "--name", "crew", "--member", "boss:lead", "--member", "ann")
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"plans", "draft", "crew", "--title", "x", "--step", "a"}, exitUsage, "--by LEAD"},
		{[]string{"plans", "draft", "crew", "--by", "ann", "--title", "x", "--step", "a"}, exitConflict, "lead"},
		{[]string{"plans", "draft", "crew", "--by", "boss", "--title", "x"}, exitUsage, "plans draft: --step is required"},
		{[]string{"plans", "get", "crew"}, exitNotFound, "cortexctl: team crew: get plan: no plan yet: the lead drafts one first\n"},
		{[]string{"plans", "get", "nope"}, exitNotFound, "cortexctl: get plan: team \"nope\": unknown team\n"},
		{[]string{"plans", "approve", "crew", "--revision", "1"}, exitNotFound, "plan"},
		{[]string{"plans", "approve", "crew"}, exitUsage, "plans approve: --revision N is required"},
		{[]string{"plans", "reject", "crew", "--feedback", "no"}, exitUsage, "plans reject: --revision N is required"},
		{[]string{"plans", "approve", "crew", "--revision", "0"}, exitInvalid, "--revision 0: want 1 or more"},
	} {
		if r := runCLI(t, dir, "", tc.args...); r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("%v: exit %d (want %d), stderr %q (want %q)", tc.args, r.code, tc.code, r.stderr, tc.msg)
		}
	}
	out := mustCLI(t, dir, "plans", "draft", "crew", "--by", "boss", "--title", "ship v2", "--step", "design | the API", "--step", "implement")
	if !strings.Contains(out, "revision 1: ship v2 (draft)") || !strings.Contains(out, "1. design — the API") || !strings.Contains(out, "2. implement") {
		t.Fatalf("draft: %q", out)
	}
	if r := runCLI(t, dir, "", "plans", "get", "crew", "--revision", "2"); r.code != exitNotFound || !strings.Contains(r.stderr, "no plan: revision 2 (the latest is revision 1)") {
		t.Errorf("get --revision 2 of 1: exit %d, stderr %q", r.code, r.stderr)
	}
	// Revisions count from 1: --revision 0 is refused, not read as the
	// latest (what leaving the flag out means).
	for _, rev := range []string{"0", "-1"} {
		if r := runCLI(t, dir, "", "plans", "get", "crew", "--revision", rev); r.code != exitInvalid || !strings.Contains(r.stderr, "--revision "+rev+": want 1 or more") {
			t.Errorf("get --revision %s: exit %d, stderr %q", rev, r.code, r.stderr)
		}
	}
	mustCLI(t, dir, "plans", "submit", "crew", "--by", "boss")
	if r := runCLI(t, dir, "", "plans", "reject", "crew", "--revision", "1"); r.code == 0 {
		t.Fatalf("reject without feedback: exit 0")
	}
	mustCLI(t, dir, "plans", "reject", "crew", "--revision", "1", "--feedback", "split design")
	mustCLI(t, dir, "plans", "draft", "crew", "--by", "boss", "--title", "ship v2", "--step", "design", "--step", "review", "--step", "implement")
	mustCLI(t, dir, "plans", "submit", "crew", "--by", "boss")
	// The approver read revision 1; revision 2 came since: approving or
	// rejecting revision 1 does not review revision 2 unseen.
	before := mustCLI(t, dir, "plans", "list", "crew", "--json")
	for _, args := range [][]string{
		{"plans", "approve", "crew", "--revision", "1"},
		{"plans", "reject", "crew", "--revision", "1", "--feedback", "no"},
	} {
		if r := runCLI(t, dir, "", args...); r.code != exitConflict || !strings.Contains(r.stderr, "revision 1 is not the latest: revision 2 is (pending_review)") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	if r := runCLI(t, dir, "", "plans", "approve", "crew", "--revision", "3"); r.code != exitNotFound || !strings.Contains(r.stderr, "no plan: revision 3 (the latest is revision 2)") {
		t.Errorf("approve --revision 3 of 2: exit %d, stderr %q", r.code, r.stderr)
	}
	if after := mustCLI(t, dir, "plans", "list", "crew", "--json"); after != before {
		t.Fatalf("refused reviews changed the revisions:\n%s\n→\n%s", before, after)
	}
	var p teammanager.Plan
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "plans", "approve", "crew", "--revision", "2", "--json")), &p); err != nil ||
		p.Revision != 2 || p.State != teammanager.PlanApproved || p.ReviewedBy != teammanager.Operator || len(p.Steps) != 3 {
		t.Fatalf("approve --json: %+v, %v", p, err)
	}
	var ps []teammanager.Plan
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "plans", "list", "crew", "--json")), &ps); err != nil || len(ps) != 2 ||
		ps[0].State != teammanager.PlanRejected || ps[0].Feedback != "split design" || ps[1].State != teammanager.PlanApproved {
		t.Fatalf("list --json: %+v, %v", ps, err)
	}
	if out := mustCLI(t, dir, "plans", "get", "crew", "--revision", "1"); !strings.Contains(out, "(rejected)") || !strings.Contains(out, "split design") {
		t.Fatalf("get --revision 1: %q", out)
	}
}
