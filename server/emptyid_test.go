package server_test

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/server"
)

// TestRPC_EmptyIDs: an id param given empty ("team": "") is the id no team,
// agent, task, message, conflict or snapshot can have, and is answered as
// the embedded Manager answers an empty id: an invalid id (kind invalid,
// exit 7, a message saying "invalid id"), for every method. An id param
// that is absent is a malformed request (kind usage, exit 2, `"team" is
// required`), as before. (An empty id was a usage error, exit 2, through a
// server, and exit 7 in process.) The params are otherwise complete: a
// request that lacks another param is a malformed request whatever its
// ids hold (a given id, empty or not, is the Manager's to judge).
func TestRPC_EmptyIDs(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "crew", Name: "crew",
		Members: []api.MemberConfig{{Agent: "ann", Role: "lead"}, {Agent: "bob", Role: "dev"}}}, nil)
	ts.ok("acme", "teams.create_task", map[string]any{"team": "crew", "agent": "ann", "subject": "a"}, nil)
	team := map[string]any{"team": "crew"}
	member := map[string]any{"team": "crew", "agent": "ann"}
	task := map[string]any{"team": "crew", "task": "T1"}
	taskBy := map[string]any{"team": "crew", "task": "T1", "agent": "ann"}
	ids := map[string]bool{"team": true, "agent": true, "task": true, "message": true, "conflict": true, "snapshot": true}
	for _, tc := range []struct {
		method string
		params map[string]any // valid ids (and values): each id is left empty, then out, in turn
	}{
		{"teams.get", team},
		{"teams.delete", team},
		{"teams.pause", team},
		{"teams.resume", team},
		{"teams.disband", team},
		{"teams.merge", team},
		{"teams.is_complete", team},
		{"teams.member_status", map[string]any{"team": "crew", "agent": "ann", "status": "running"}},
		{"findings.add", map[string]any{"team": "crew", "agent": "ann", "subject": "<http://ex/s>", "predicate": "<http://ex/p>", "object": "o"}},
		{"findings.add_batch", member},
		{"findings.list", team},
		{"findings.import", map[string]any{"team": "crew", "agent": "ann", "format": "json", "data": "[]"}},
		{"facts.list", team},
		{"conflicts.list", team},
		{"conflicts.resolve", map[string]any{"team": "crew", "conflict": "c0123456789abcdef0123456789abcdef", "by": "ann", "objects": []string{}}},
		{"teams.plan.get", team},
		{"teams.plan.list", team},
		{"teams.snapshot.create", team},
		{"teams.snapshot.list", team},
		{"teams.snapshot.get", map[string]any{"team": "crew", "snapshot": "S1"}},
		{"teams.snapshot.restore", map[string]any{"team": "crew", "snapshot": "S1"}},
		{"teams.snapshot.delete", map[string]any{"team": "crew", "snapshot": "S1"}},
		{"teams.create_task", member},
		{"teams.update_task", taskBy},
		{"teams.list_tasks", team},
		{"teams.add_task_comment", taskBy},
		{"teams.list_task_comments", task},
		{"teams.list_task_events", task},
		{"teams.task.get", task},
		{"teams.task.claim", taskBy},
		{"teams.task.next", member},
		{"teams.task.progress", taskBy},
		{"teams.task.complete", taskBy},
		{"teams.task.review", map[string]any{"team": "crew", "task": "T1", "agent": "ann", "approve": true}},
		{"teams.task.fail", taskBy},
		{"teams.task.cancel", taskBy},
		{"teams.task.pause", taskBy},
		{"teams.task.resume", taskBy},
		{"teams.task.retry", taskBy},
		{"teams.task.skip", taskBy},
		{"teams.task.configure_board", team},
		{"teams.task.add_findings", taskBy},
		{"teams.chat.send", map[string]any{"team": "crew", "agent": "ann", "type": "status", "body": "b"}},
		{"teams.chat.thread", map[string]any{"team": "crew", "message": "M1"}},
		{"teams.chat.history", team},
		{"teams.chat.inbox", member},
		{"teams.chat.mark", map[string]any{"team": "crew", "agent": "ann", "status": "read", "messages": []string{"M1"}}},
		{"teams.chat.configure", team},
	} {
		for key := range tc.params {
			if !ids[key] {
				continue
			}
			t.Run(tc.method+"/"+key, func(t *testing.T) {
				p := maps.Clone(tc.params)
				p[key] = ""
				b, err := json.Marshal(p)
				if err != nil {
					t.Fatal(err)
				}
				r := rawCall(t, ts, tc.method, string(b))
				if r.Error == nil {
					t.Fatalf("empty %s: no error; result %s", key, r.Result)
				}
				if e := r.Error; e.Data.ExitCode != api.ExitInvalid || e.Data.Kind != string(api.KindInvalid) || !strings.Contains(e.Message, "invalid id") {
					t.Errorf("empty %s: error %d %q %+v; want exit %d, kind %s, invalid id", key, e.Code, e.Message, e.Data, api.ExitInvalid, api.KindInvalid)
				}
				delete(p, key)
				if b, err = json.Marshal(p); err != nil {
					t.Fatal(err)
				}
				r = rawCall(t, ts, tc.method, string(b))
				if r.Error == nil {
					t.Fatalf("no %s: no error; result %s", key, r.Result)
				}
				if e := r.Error; e.Data.ExitCode != api.ExitUsage || e.Data.Kind != string(api.KindUsage) || !strings.Contains(e.Message, `"`+key+`" is required`) {
					t.Errorf("no %s: error %d %q %+v; want exit %d, kind %s, %q is required", key, e.Code, e.Message, e.Data, api.ExitUsage, api.KindUsage, key)
				}
			})
		}
	}
}

// TestRPC_WorkflowEmptyParams: a workflow method's run, step, actor or
// driver given empty is left to the Engine, which refuses it as in
// process (an invalid id or run, exit 7); absent, it is a missing param
// (usage, exit 2), as before. (Given empty, it was a missing param too.)
func TestRPC_WorkflowEmptyParams(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "workflows.start", json.RawMessage(`{"id":"w1","def":{"name":"d","type":"chain","steps":[{"name":"s","agent":"a"}]}}`), nil)
	for _, tc := range []struct {
		method, params string
		exit           int
		msg            string
	}{
		{"workflows.get", `{"run":""}`, api.ExitInvalid, `run "": invalid id`},
		{"workflows.get", `{}`, api.ExitUsage, `"run" is required`},
		{"workflows.start_step", `{"run":"w1","step":"","actor":"x"}`, api.ExitInvalid, `step "": invalid id`},
		{"workflows.start_step", `{"run":"w1","actor":"x"}`, api.ExitUsage, `"step" is required`},
		{"workflows.start_step", `{"run":"w1","step":"s","actor":""}`, api.ExitInvalid, `actor "": empty`},
		{"workflows.start_step", `{"run":"w1","step":"s","actor":null}`, api.ExitUsage, `"actor" is required`},
		{"workflows.claim_driver", `{"run":"w1","driver":{"id":"","actor":""},"lease_ms":1000}`, api.ExitInvalid, "a driver needs an id"},
		{"workflows.claim_driver", `{"run":"w1","driver":{},"lease_ms":1000}`, api.ExitUsage, `"driver.id" is required`},
		{"workflows.release_driver", `{"run":"","driver":{"id":"d"}}`, api.ExitInvalid, `run "": invalid id`},
		{"workflows.release_driver", `{"run":"w1"}`, api.ExitUsage, `"driver.id" is required`},
	} {
		wantRawError(t, ts, tc.method, tc.params, tc.exit, tc.msg)
	}
}

// TestRPC_EmptyValuesAsEmbedded: a status, message type or resolver
// given empty is the Manager's to refuse, as in process (kind invalid,
// exit 7, its sentinel and message; a message type after the team and the
// sender); absent, it is a missing param (usage, exit 2), as before.
// (Given empty, each was a missing param too.)
func TestRPC_EmptyValuesAsEmbedded(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "crew", Name: "crew",
		Members: []api.MemberConfig{{Agent: "ann", Role: "lead"}, {Agent: "bob", Role: "dev"}}}, nil)
	for _, tc := range []struct {
		method, params string
		exit           int
		msg            string
	}{
		{"teams.member_status", `{"team":"crew","agent":"ann","status":""}`, api.ExitInvalid, `member ann: invalid status ""`},
		{"teams.member_status", `{"team":"crew","agent":"ann"}`, api.ExitUsage, `"status" is required`},
		// The Manager checks the status first, whatever the ids.
		{"teams.member_status", `{"team":"","agent":"","status":""}`, api.ExitInvalid, `team "": member "": invalid status ""`},
		{"teams.chat.mark", `{"team":"","agent":"ann","status":"","messages":["M1"]}`, api.ExitInvalid, `mark as ""`},
		{"conflicts.resolve", `{"team":"","conflict":"","objects":[],"by":""}`, api.ExitInvalid, `resolver ""`},
		{"teams.member_status", `{"agent":"ann","status":""}`, api.ExitUsage, `"team" is required`},
		{"teams.chat.send", `{"team":"crew","agent":"ann","type":"","body":"x"}`, api.ExitInvalid, `invalid message: type ""`},
		{"teams.chat.send", `{"team":"nope","agent":"ann","type":"","body":"x"}`, api.ExitNotFound, `unknown team`},
		{"teams.chat.send", `{"team":"crew","agent":"zed","type":"","body":"x"}`, api.ExitNotFound, `unknown agent`},
		{"teams.chat.send", `{"team":"crew","agent":"ann","body":"x"}`, api.ExitUsage, `"type" is required`},
		{"teams.chat.mark", `{"team":"crew","agent":"ann","status":"","messages":["M1"]}`, api.ExitInvalid, `mark as ""`},
		{"teams.chat.mark", `{"team":"crew","agent":"ann","messages":["M1"]}`, api.ExitUsage, `"status" is required`},
		{"conflicts.resolve", `{"team":"crew","conflict":"c0123456789abcdef0123456789abcdef","objects":[],"by":""}`, api.ExitInvalid, `resolver ""`},
		{"conflicts.resolve", `{"team":"crew","conflict":"c0123456789abcdef0123456789abcdef","objects":[]}`, api.ExitUsage, `"by" is required`},
	} {
		wantRawError(t, ts, tc.method, tc.params, tc.exit, tc.msg)
	}
}

// wantRawError calls method with params as they are written and wants an
// error object with exit code exit, its kind, and a message holding msg.
func wantRawError(t *testing.T, ts *testServer, method, params string, exit int, msg string) {
	t.Helper()
	r := rawCall(t, ts, method, params)
	if r.Error == nil {
		t.Errorf("%s %s: no error; result %s", method, params, r.Result)
		return
	}
	if e := r.Error; e.Data.ExitCode != exit || e.Data.Kind != string(api.KindOf(exit)) || !strings.Contains(e.Message, msg) {
		t.Errorf("%s %s: error %q %+v; want exit %d and %q", method, params, e.Message, e.Data, exit, msg)
	}
}

// TestRPC_FilterTermAfterTeamAndAgent: a filter term of findings.list or
// facts.list that is no term is a syntax error (exit 5) after the team
// and the filter's agent are looked up, as the Manager looks them up
// before it checks a filter's terms: an unknown team or agent comes first
// (exit 3). (The term was refused first, whatever the team.)
func TestRPC_FilterTermAfterTeamAndAgent(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "crew", Name: "crew",
		Members: []api.MemberConfig{{Agent: "ann", Role: "lead"}, {Agent: "bob", Role: "dev"}}}, nil)
	for _, method := range []string{"findings.list", "facts.list"} {
		for _, tc := range []struct {
			params string
			exit   int
			msg    string
		}{
			{`{"team":"nope","subject":"<a b>"}`, api.ExitNotFound, `team "nope": unknown team`},
			{`{"team":"crew","agent":"zed","predicate":"<a b>"}`, api.ExitNotFound, `agent "zed": unknown agent`},
			{`{"team":"","subject":"<a b>"}`, api.ExitInvalid, `team "": invalid id`},
			{`{"team":"crew","agent":"bob","subject":"<a b>"}`, api.ExitSyntax, `params: subject: 1:3: character ' ' not allowed in IRI`},
			{`{"team":"crew","predicate":"zz:x"}`, api.ExitInvalid, `params: predicate: invalid value: unknown prefix "zz" in "zz:x"`},
		} {
			wantRawError(t, ts, method, tc.params, tc.exit, tc.msg)
		}
	}
}
