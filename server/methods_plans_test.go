package server_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/server"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestRPC_PlanReviewNamesRevision: teams.plan.review reviews the revision
// its params name ("revision", required): one the lead has since replaced
// by a new revision pending review is a conflict (exit 4, plan_state), one
// the team does not have not found, and none of them writes anything; the
// latest, named, is reviewed. "approve" is required too.
func TestRPC_PlanReviewNamesRevision(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "crew", Name: "crew",
		Members: []api.MemberConfig{{Agent: "ann", Role: "lead"}, {Agent: "bob", Role: "dev"}}}, nil)
	draft := map[string]any{"team": "crew", "by": "ann", "title": "ship", "steps": []map[string]any{{"title": "build"}}}
	submit := map[string]any{"team": "crew", "by": "ann"}
	ts.ok("acme", "teams.plan.draft", draft, nil)
	ts.ok("acme", "teams.plan.submit", submit, nil)
	ts.ok("acme", "teams.plan.review", map[string]any{"team": "crew", "by": teammanager.Operator, "revision": 1, "approve": false, "feedback": "add tests"}, nil)
	ts.ok("acme", "teams.plan.draft", draft, nil)
	ts.ok("acme", "teams.plan.submit", submit, nil)
	var before []teammanager.Plan
	ts.ok("acme", "teams.plan.list", map[string]any{"team": "crew"}, &before)
	for _, tc := range []struct {
		name   string
		params string
		code   int
		kind   string
		errs   []string
		msg    string
	}{
		{"approve a replaced revision", `{"team":"crew","by":"operator","revision":1,"approve":true}`, 4, "conflict", []string{"plan_state"},
			"revision 1 is not the latest: revision 2 is (pending_review)"},
		{"reject a replaced revision", `{"team":"crew","by":"operator","revision":1,"approve":false,"feedback":"no"}`, 4, "conflict", []string{"plan_state"},
			"revision 1 is not the latest"},
		{"a revision the team does not have", `{"team":"crew","by":"operator","revision":3,"approve":true}`, 3, "not_found", []string{"no_plan"},
			"no plan: revision 3 (the latest is revision 2)"},
		{"revision 0", `{"team":"crew","by":"operator","revision":0,"approve":true}`, 7, "invalid", []string{"invalid_plan"},
			"a review names the revision it reviews"},
		{"no revision", `{"team":"crew","by":"operator","approve":true}`, 2, "usage", nil, `"revision" is required`},
		// As teams.task.review: a review without "approve" was a rejection
		// (of a plan the reviewer may have meant to approve, with a note).
		{"no approve", `{"team":"crew","by":"operator","revision":2,"feedback":"looks good"}`, 2, "usage", nil, `"approve" is required (true approves, false rejects)`},
		{"a key review does not read", `{"team":"crew","by":"operator","revision":2,"approve":true,"title":"x"}`, 2, "usage", nil, `unknown field "title"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := ts.rpcFails("acme", "teams.plan.review", tc.params)
			if e.Data.ExitCode != tc.code || e.Data.Kind != tc.kind || !strings.Contains(e.Message, tc.msg) {
				t.Fatalf("error %+v, want exit %d, kind %s, message with %q", e, tc.code, tc.kind, tc.msg)
			}
			for _, n := range tc.errs {
				if !slices.Contains(e.Data.Errors, n) {
					t.Fatalf("errors %v lack %q", e.Data.Errors, n)
				}
			}
		})
	}
	var after []teammanager.Plan
	ts.ok("acme", "teams.plan.list", map[string]any{"team": "crew"}, &after)
	if len(after) != 2 || after[1].State != teammanager.PlanPendingReview || !after[1].UpdatedAt.Equal(before[1].UpdatedAt) || after[0].State != teammanager.PlanRejected {
		t.Fatalf("refused reviews changed the revisions: %+v → %+v", before, after)
	}
	var p teammanager.Plan
	ts.ok("acme", "teams.plan.review", map[string]any{"team": "crew", "by": teammanager.Operator, "revision": 2, "approve": true}, &p)
	if p.Revision != 2 || p.State != teammanager.PlanApproved {
		t.Fatalf("review of revision 2 = %+v", p)
	}
}

// TestRPC_PlanParams: each plan method refuses a key it does not read
// (they shared one params struct, so that submit took "approve" and get
// took "by" and ignored them), as every other method does.
func TestRPC_PlanParams(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "crew", Name: "crew",
		Members: []api.MemberConfig{{Agent: "ann", Role: "lead"}, {Agent: "bob", Role: "dev"}}}, nil)
	for _, tc := range []struct{ method, params, field string }{
		{"teams.plan.draft", `{"team":"crew","by":"ann","title":"t","steps":[{"title":"s"}],"revision":1}`, "revision"},
		{"teams.plan.submit", `{"team":"crew","by":"ann","approve":true}`, "approve"},
		{"teams.plan.submit", `{"team":"crew","by":"ann","revision":1}`, "revision"},
		{"teams.plan.get", `{"team":"crew","by":"ann"}`, "by"},
		{"teams.plan.list", `{"team":"crew","revision":1}`, "revision"},
	} {
		e := ts.rpcFails("acme", tc.method, tc.params)
		if e.Data.Kind != "usage" || !strings.Contains(e.Message, `unknown field "`+tc.field+`"`) {
			t.Errorf("%s %s: %+v, want a usage error naming %q", tc.method, tc.params, e, tc.field)
		}
	}
	var ps []teammanager.Plan
	ts.ok("acme", "teams.plan.list", map[string]any{"team": "crew"}, &ps)
	if len(ps) != 0 {
		t.Fatalf("refused calls drafted %+v", ps)
	}
}

// TestRPC_PlanBy: "by" of teams.plan.draft, submit and review is required
// (absent: usage, exit 2), and an empty one is no one: not allowed, exit
// 4, as the Manager answers it in process.
func TestRPC_PlanBy(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "crew", Name: "crew",
		Members: []api.MemberConfig{{Agent: "ann", Role: "lead"}, {Agent: "bob", Role: "dev"}}}, nil)
	for _, tc := range []struct {
		method, params string
		code           int
		msg            string
	}{
		{"teams.plan.draft", `{"team":"crew","title":"t","steps":[{"title":"s"}]}`, 2, `"by" is required`},
		{"teams.plan.draft", `{"team":"crew","by":"","title":"t","steps":[{"title":"s"}]}`, 4, "only the lead (ann) drafts"},
		{"teams.plan.submit", `{"team":"crew"}`, 2, `"by" is required`},
		{"teams.plan.submit", `{"team":"crew","by":""}`, 4, "only the lead (ann) drafts and submits"},
		{"teams.plan.review", `{"team":"crew","revision":1,"approve":true}`, 2, `"by" is required`},
		{"teams.plan.review", `{"team":"crew","by":"","revision":1,"approve":true}`, 4, "only operator approves"},
		{"teams.plan.draft", `{"team":"nope","by":"","title":"t","steps":[{"title":"s"}]}`, 3, "unknown team"},
	} {
		e := ts.rpcFails("acme", tc.method, tc.params)
		if e.Data.ExitCode != tc.code || !strings.Contains(e.Message, tc.msg) {
			t.Errorf("%s %s: %+v, want exit %d, message with %q", tc.method, tc.params, e, tc.code, tc.msg)
		}
	}
	var ps []teammanager.Plan
	ts.ok("acme", "teams.plan.list", map[string]any{"team": "crew"}, &ps)
	if len(ps) != 0 {
		t.Fatalf("refused calls drafted %+v", ps)
	}
}
