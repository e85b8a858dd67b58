package server_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/server"
)

// TestRPC_TaskBoard runs a task through the board over JSON-RPC with an
// event stream open: each method answers the JSON shapes of package api,
// and each change arrives as a task.* or message.sent event whose data is
// the task after it (or the message).
func TestRPC_TaskBoard(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "crew", Name: "crew",
		Members: []api.MemberConfig{{Agent: "ann", Role: "lead"}, {Agent: "bob", Role: "dev"}}}, nil)
	st := ts.openEvents("acme", "?after=1") // after team.created

	var task api.Task
	ts.ok("acme", "teams.create_task", map[string]any{"team": "crew", "agent": "ann", "subject": "design", "priority": 3}, &task)
	if task.ID != "T1" || task.Status != "pending" || task.Priority != 3 || task.CreatedBy != "ann" || task.BlockedBy == nil {
		t.Fatalf("create_task = %+v", task)
	}
	var t2 api.Task
	ts.ok("acme", "teams.create_task", map[string]any{"team": "crew", "agent": "ann", "subject": "build", "blocked_by": []string{"T1"}}, &t2)
	if len(t2.BlockedBy) != 1 || t2.BlockedBy[0] != "T1" {
		t.Fatalf("create_task blocked_by = %+v", t2)
	}
	ts.ok("acme", "teams.update_task", map[string]any{"team": "crew", "agent": "ann", "task": "T1", "description": "the API"}, &task)
	if task.Description != "the API" || task.Subject != "design" {
		t.Fatalf("update_task = %+v", task)
	}
	ts.ok("acme", "teams.task.next", map[string]any{"team": "crew", "agent": "bob"}, &task)
	ts.ok("acme", "teams.task.complete", map[string]any{"team": "crew", "agent": "bob", "task": "T1", "result": "done"}, &task)
	ts.ok("acme", "teams.task.review", map[string]any{"team": "crew", "agent": "ann", "task": "T1", "approve": true}, &task)
	if task.Status != "completed" || task.ReviewedBy != "ann" {
		t.Fatalf("review = %+v", task)
	}
	var tasks []api.Task
	ts.ok("acme", "teams.list_tasks", map[string]any{"team": "crew", "status": "pending"}, &tasks)
	if len(tasks) != 1 || tasks[0].ID != "T2" {
		t.Fatalf("list_tasks pending = %+v", tasks)
	}
	var hist []api.TaskEvent
	ts.ok("acme", "teams.list_task_events", map[string]any{"team": "crew", "task": "T1"}, &hist)
	if len(hist) < 4 || hist[0].Action != "created" || hist[len(hist)-1].Action != "approved" || hist[0].Task != nil {
		t.Fatalf("list_task_events = %+v", hist)
	}
	var msg api.Message
	ts.ok("acme", "teams.chat.send", map[string]any{"team": "crew", "agent": "bob", "type": "ask_question", "to": []string{"ann"}, "body": "next?"}, &msg)
	var reply api.Message
	ts.ok("acme", "teams.chat.send", map[string]any{"team": "crew", "agent": "ann", "type": "status", "body": "T2", "reply_to": msg.ID}, &reply)
	if reply.ReplyTo != msg.ID || reply.Thread != msg.ID {
		t.Fatalf("reply = %+v", reply)
	}
	var marked api.MessagesMarked
	// (A message given twice is marked, and in the result, once.)
	ts.ok("acme", "teams.chat.mark", map[string]any{"team": "crew", "agent": "ann", "status": "archived", "messages": []string{msg.ID, msg.ID}}, &marked)
	if len(marked.Messages) != 1 || marked.Messages[0] != msg.ID {
		t.Fatalf("mark %s twice: %+v", msg.ID, marked)
	}
	var inbox []api.Message
	ts.ok("acme", "teams.chat.inbox", map[string]any{"team": "crew", "agent": "ann", "status": "archived"}, &inbox)
	if len(inbox) != 1 || inbox[0].ID != msg.ID || inbox[0].Status != "archived" || inbox[0].ReadAt == nil {
		t.Fatalf("inbox archived = %+v", inbox)
	}

	// Every change came as an event, with the task after it (creating T2,
	// blocked by T1, then updates T1's dependents; a submission asks the
	// lead for a review and an approval tells the assignee, by message).
	want := []struct{ typ, action, task string }{
		{"task.created", "created", "T1"}, {"task.created", "created", "T2"}, {"task.updated", "updated", "T1"},
		{"task.updated", "updated", "T1"}, {"task.status", "claimed", "T1"}, {"task.status", "submitted", "T1"},
		{"message.sent", "", ""}, {"task.status", "approved", "T1"}, {"message.sent", "", ""},
		{"message.sent", "", ""}, {"message.sent", "", ""},
	}
	evs := st.read(len(want))
	for i, w := range want {
		ev := evs[i]
		if ev.Type != w.typ || ev.Team != "crew" {
			t.Fatalf("event %d: %s of %s, want %s (%s %s)", i, ev.Type, ev.Team, w.typ, w.action, w.task)
		}
		if w.typ == "message.sent" {
			var m api.Message
			decodeStrict(t, ev.Data, &m)
			continue
		}
		var te api.TaskEvent
		decodeStrict(t, ev.Data, &te)
		if te.Action != w.action || te.Task == nil || te.Task.ID != w.task {
			t.Fatalf("event %d: %s", i, ev.Data)
		}
	}
}

// TestRPC_TaskErrors checks the params of the board's methods and that a
// board error carries its exit code, kind and name.
func TestRPC_TaskErrors(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "crew", Name: "crew",
		Members: []api.MemberConfig{{Agent: "ann", Role: "lead"}, {Agent: "bob", Role: "dev"}}}, nil)
	ts.ok("acme", "teams.create_task", map[string]any{"team": "crew", "agent": "ann", "subject": "a"}, nil)
	for _, tc := range []struct {
		name, method string
		params       any
		exit         int
		msg          string
	}{
		{"no agent", "teams.create_task", map[string]any{"team": "crew", "subject": "a"}, 2, `"agent" is required`},
		{"no task", "teams.task.claim", map[string]any{"team": "crew", "agent": "bob"}, 2, `"task" is required`},
		{"unknown param", "teams.task.claim", map[string]any{"team": "crew", "agent": "bob", "task": "T1", "force": true}, 2, "force"},
		{"review without verdict", "teams.task.review", map[string]any{"team": "crew", "agent": "ann", "task": "T1"}, 2, `"approve" is required`},
		{"mark without ids", "teams.chat.mark", map[string]any{"team": "crew", "agent": "ann", "status": "read"}, 2, `"messages" is required`},
		{"negative history limit", "teams.chat.history", map[string]any{"team": "crew", "limit": -1}, 7, "limit"},
		{"get with agent", "teams.task.get", map[string]any{"team": "crew", "task": "T1", "agent": "bob"}, 2, "agent"},
		{"unknown task", "teams.task.get", map[string]any{"team": "crew", "task": "T7"}, 3, "unknown task"},
		{"malformed task id", "teams.task.get", map[string]any{"team": "crew", "task": "X7"}, 7, `task "X7": invalid id`},
		{"malformed team id", "teams.task.get", map[string]any{"team": "a/b", "task": "T1"}, 7, `team "a/b": invalid id`},
		{"malformed agent id", "teams.task.claim", map[string]any{"team": "crew", "agent": "b b", "task": "T1"}, 7, `agent "b b": invalid id`},
		{"member creates", "teams.create_task", map[string]any{"team": "crew", "agent": "bob", "subject": "x"}, 4, "not allowed"},
		{"cycle", "teams.update_task", map[string]any{"team": "crew", "agent": "ann", "task": "T1", "blocked_by": []string{"T1"}}, 7, "T1"},
		{"blocked by no task", "teams.create_task", map[string]any{"team": "crew", "agent": "ann", "subject": "b", "blocked_by": []string{"T9"}}, 3, `blocked_by "T9": unknown task`},
		{"reply to no message", "teams.chat.send", map[string]any{"team": "crew", "agent": "bob", "type": "status", "body": "x", "reply_to": "M9"}, 3, `reply to "M9": unknown message`},
		{"about no task", "teams.chat.send", map[string]any{"team": "crew", "agent": "bob", "type": "status", "body": "x", "task": "T9"}, 3, `task "T9": unknown task`},
		{"bad status", "teams.list_tasks", map[string]any{"team": "crew", "status": "done"}, 7, "done"},
		{"bad message type", "teams.chat.send", map[string]any{"team": "crew", "agent": "bob", "type": "gossip", "body": "x"}, 7, "gossip"},
		{"bad lease", "teams.task.configure_board", map[string]any{"team": "crew", "lease": -5}, 7, "invalid board setting: lease -5s: want > 0"},
		// The Manager looks the team up before the settings (an invalid
		// value was answered first).
		{"bad lease of no team", "teams.task.configure_board", map[string]any{"team": "nope", "lease": -5}, 3, `configure board: team "nope": unknown team`},
		{"lease below a nanosecond of no team", "teams.task.configure_board", map[string]any{"team": "nope", "lease": 1e-12}, 3, "unknown team"},
		// A positive lease or staleAfter below a nanosecond would round to
		// 0, which is no lease at all: refused as what it asked.
		{"lease below a nanosecond", "teams.task.configure_board", map[string]any{"team": "crew", "lease": 1e-12}, 7, "lease"},
		{"stale after below a nanosecond", "teams.task.configure_board", map[string]any{"team": "crew", "staleAfter": 1e-12}, 7, "staleAfter"},
		{"findings without agent", "teams.task.add_findings", map[string]any{"team": "crew", "task": "T1", "findings": []any{}}, 2, `"agent" is required`},
		{"finding term", "teams.task.add_findings", map[string]any{"team": "crew", "task": "T1", "agent": "bob",
			"findings": []any{map[string]any{"subject": "<http://x", "predicate": "<http://p>", "object": "o"}}}, 5, "findings[0].subject"},
		{"findings for an unclaimed task", "teams.task.add_findings", map[string]any{"team": "crew", "task": "T1", "agent": "bob",
			"findings": []any{map[string]any{"subject": "<http://x>", "predicate": "<http://p>", "object": "o"}}}, 4, "not allowed"},
		{"negative max age", "teams.chat.configure", map[string]any{"team": "crew", "maxAge": -1, "perAgent": 5}, 7, "maxAge"},
		{"no messages kept", "teams.chat.configure", map[string]any{"team": "crew", "perAgent": 0}, 7, "at least 1 message"},
		// A positive age below a nanosecond was taken as 0, "whatever their
		// age": the opposite of what it asked.
		{"max age below a nanosecond", "teams.chat.configure", map[string]any{"team": "crew", "maxAge": 1e-12, "perAgent": 5}, 7, "maxAge"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ts.call("acme", tc.method, tc.params)
			if r.Error == nil {
				t.Fatalf("no error; result %s", r.Result)
			}
			if r.Error.Data.ExitCode != tc.exit || r.Error.Data.Kind != string(api.KindOf(tc.exit)) || !strings.Contains(r.Error.Message, tc.msg) {
				t.Fatalf("error %q %+v; want exit %d and %q", r.Error.Message, r.Error.Data, tc.exit, tc.msg)
			}
		})
	}
	var task api.Task
	ts.ok("acme", "teams.task.get", map[string]any{"team": "crew", "task": "T1"}, &task)
	if task.Status != "pending" || len(task.BlockedBy) != 0 || task.Subject != "a" {
		t.Fatalf("a refused call changed T1: %+v", task)
	}
}

// TestRPC_ConfigureBoard_Partial: teams.task.configure_board changes the
// settings its params give and keeps the others (plan approval and its
// approver among them); teams.task.board answers every setting.
func TestRPC_ConfigureBoard_Partial(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "crew", Name: "crew",
		Members: []api.MemberConfig{{Agent: "ann", Role: "lead"}, {Agent: "bob", Role: "dev"}, {Agent: "cat", Role: "dev"}}}, nil)
	var b api.Board
	ts.ok("acme", "teams.task.configure_board", map[string]any{"team": "crew", "planApproval": true, "planApprover": "cat", "allowRequests": true}, &b)
	want := api.Board{Team: "crew", Lead: "ann", AllowRequests: true, RequireReview: true, MaxDispatches: 3, Lease: 600, StaleAfter: 1800,
		PlanApproval: true, PlanApprover: "cat"}
	if b != want {
		t.Fatalf("configure_board = %+v, want %+v", b, want)
	}
	ts.ok("acme", "teams.task.configure_board", map[string]any{"team": "crew", "lease": 1800}, &b)
	want.Lease = 1800
	if b != want {
		t.Fatalf("configure_board of the lease = %+v, want %+v", b, want)
	}
	// Any lease a time.Duration holds, as the Manager takes it (a server
	// refused one over 2^62 ns, about 146 years); beyond, refused.
	ts.ok("acme", "teams.task.configure_board", map[string]any{"team": "crew", "lease": 7.2e9}, &b)
	if b.Lease != 7.2e9 {
		t.Fatalf("configure_board of a lease of 7.2e9 s = %+v", b)
	}
	if r := ts.call("acme", "teams.task.configure_board", map[string]any{"team": "crew", "staleAfter": 1e10}); r.Error == nil || r.Error.Data.ExitCode != 7 {
		t.Fatalf("configure_board staleAfter 1e10 s: %+v, %s, want exit 7", r.Error, r.Result)
	}
	ts.ok("acme", "teams.task.configure_board", map[string]any{"team": "crew", "lease": 1800}, &b)
	ts.ok("acme", "teams.task.board", map[string]any{"team": "crew"}, &b)
	if b != want {
		t.Fatalf("board = %+v, want %+v", b, want)
	}
	ts.ok("acme", "teams.create_task", map[string]any{"team": "crew", "agent": "ann", "subject": "a"}, nil)
	if r := ts.call("acme", "teams.task.next", map[string]any{"team": "crew", "agent": "bob"}); r.Error == nil || r.Error.Data.ExitCode != 4 ||
		!strings.Contains(r.Error.Message, "plan") {
		t.Fatalf("claim before the plan is approved: %+v", r)
	}
	b = api.Board{} // (planApprover is omitted when empty)
	ts.ok("acme", "teams.task.configure_board", map[string]any{"team": "crew", "planApprover": ""}, &b)
	want.PlanApprover = ""
	if b != want {
		t.Fatalf("configure_board of the approver = %+v, want %+v", b, want)
	}
}

// TestRPC_TaskClaim_CircuitOpenCarriesTask: a teams.task.claim past the
// circuit breaker is an error (conflict, circuit_open) whose data holds
// the task it failed, in the tasks get --json shape, as README says.
func TestRPC_TaskClaim_CircuitOpenCarriesTask(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "crew", Name: "crew",
		Members: []api.MemberConfig{{Agent: "ann", Role: "lead"}, {Agent: "bob", Role: "dev"}, {Agent: "cat", Role: "dev"}}}, nil)
	ts.ok("acme", "teams.task.configure_board", map[string]any{"team": "crew", "maxDispatches": 1}, nil)
	ts.ok("acme", "teams.create_task", map[string]any{"team": "crew", "agent": "ann", "subject": "flaky"}, nil)
	ts.ok("acme", "teams.task.claim", map[string]any{"team": "crew", "agent": "bob", "task": "T1"}, nil)
	for _, s := range []string{"running", "completed"} {
		ts.ok("acme", "teams.member_status", map[string]any{"team": "crew", "agent": "bob", "status": s}, nil)
	}
	_, body := ts.rpcRaw("acme", `{"jsonrpc":"2.0","id":1,"method":"teams.task.claim","params":{"team":"crew","agent":"cat","task":"T1"}}`)
	var r struct {
		Error struct {
			Code int `json:"code"`
			Data struct {
				ExitCode int       `json:"exitCode"`
				Kind     string    `json:"kind"`
				Errors   []string  `json:"errors"`
				Task     *api.Task `json:"task"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("%v in %s", err, body)
	}
	d := r.Error.Data
	if r.Error.Code != -32004 || d.ExitCode != 4 || d.Kind != "conflict" || !slices.Contains(d.Errors, "circuit_open") ||
		d.Task == nil || d.Task.ID != "T1" || d.Task.Status != "failed" || d.Task.Error != "dispatched once without completing" {
		t.Fatalf("claim past the breaker answered %s", body)
	}
}
