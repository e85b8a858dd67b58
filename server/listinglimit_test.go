package server_test

import (
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/server"
)

// TestLimits_MaxResults_EveryListing: every JSON-RPC listing is bounded
// by the limit of results per response (WithMaxResults: "the items of a
// JSON-RPC listing"), not only the teams, findings ... of the first
// listings: workflows.list, workflows.history, teams.plan.list and
// teams.snapshot.list with more items than the limit fail with
// ErrTooManyResults (kind invalid), and answer at the limit.
func TestLimits_MaxResults_EveryListing(t *testing.T) {
	const limit = 2
	ts := serve(t, server.DefaultOptions().WithMaxResults(limit))
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "crew", Name: "crew",
		Members: []api.MemberConfig{{Agent: "ann", Role: "lead"}}}, nil)
	def := map[string]any{"name": "one", "type": "chain", "steps": []map[string]any{{"name": "only", "agent": "a"}}}
	for i, id := range []string{"w1", "w2", "w3"} {
		ts.ok("acme", "workflows.start", map[string]any{"id": id, "def": def}, nil)
		ts.ok("acme", "teams.snapshot.create", map[string]any{"team": "crew"}, nil)
		if i < 2 {
			ts.ok("acme", "teams.plan.draft", map[string]any{"team": "crew", "by": "ann", "title": "ship", "steps": []map[string]any{{"title": "build"}}}, nil)
		}
	}
	ts.ok("acme", "teams.plan.submit", map[string]any{"team": "crew", "by": "ann"}, nil)
	ts.ok("acme", "teams.plan.review", map[string]any{"team": "crew", "by": "operator", "revision": 2, "approve": false, "feedback": "no"}, nil)
	ts.ok("acme", "teams.plan.draft", map[string]any{"team": "crew", "by": "ann", "title": "ship", "steps": []map[string]any{{"title": "build"}}}, nil)
	ts.ok("acme", "workflows.start_step", map[string]any{"run": "w1", "step": "only", "actor": "me"}, nil)
	ts.ok("acme", "workflows.complete_step", map[string]any{"run": "w1", "step": "only", "attempt": 1}, nil)
	for _, tc := range []struct{ method, params string }{
		{"workflows.list", `{}`},
		{"workflows.history", `{"run":"w1"}`},
		{"teams.plan.list", `{"team":"crew"}`},
		{"teams.snapshot.list", `{"team":"crew"}`},
	} {
		t.Run(tc.method, func(t *testing.T) {
			_, body := ts.rpcAs("acme", tc.method, tc.params)
			if !strings.Contains(body, `"error"`) {
				t.Fatalf("more than %d items answered: %s", limit, body)
			}
			e := ts.rpcFails("acme", tc.method, tc.params)
			if e.Data.Kind != "invalid" || !strings.Contains(e.Message, "more than 2") {
				t.Errorf("%+v, want kind invalid, more than 2", e)
			}
		})
	}
}
