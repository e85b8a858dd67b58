package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/server"
)

// TestRPC_WorkflowsMalformedIDs: the workflows.* methods that take a run
// answer a run no run has with not found (exit 3, "unknown_run"), and one
// no run can have (not 1 to 64 of A-Z a-z 0-9 . _ @ + -) with invalid
// (exit 7, "invalid_id" and "unknown_run"); those that take a step, the
// same with "unknown_step" for a name no step can have (a control
// character). None of them writes.
func TestRPC_WorkflowsMalformedIDs(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("default", "workflows.start", map[string]any{"id": "w1", "def": map[string]any{"name": "one", "type": "chain",
		"steps": []map[string]any{{"name": "only", "agent": "a"}, {"name": "next", "agent": "b"}}}}, nil)
	ts.ok("default", "workflows.start_step", map[string]any{"run": "w1", "step": "only", "actor": "me"}, nil)
	var before []map[string]any
	ts.ok("default", "workflows.history", map[string]any{"run": "w1"}, &before)
	run := map[string]map[string]any{
		"workflows.get":            {},
		"workflows.history":        {},
		"workflows.cancel":         {"actor": "me"},
		"workflows.ready":          {},
		"workflows.start_step":     {"step": "next", "actor": "me"},
		"workflows.add_findings":   {"step": "only", "attempt": 1},
		"workflows.complete_step":  {"step": "only", "attempt": 1},
		"workflows.fail_step":      {"step": "only", "attempt": 1},
		"workflows.release_step":   {"step": "only", "attempt": 1},
		"workflows.claim_driver":   {"driver": map[string]any{"id": "d", "actor": "me"}, "lease_ms": 1000},
		"workflows.release_driver": {"driver": map[string]any{"id": "d"}},
	}
	for method, params := range run {
		for _, tc := range []struct {
			id, kind string
			code     int
			errors   string
		}{
			{"nope", "not_found", 3, "[unknown_run]"},
			{"a/b", "invalid", 7, "[invalid_id unknown_run]"},
			{"a b", "invalid", 7, "[invalid_id unknown_run]"},
			{"w1\n", "invalid", 7, "[invalid_id unknown_run]"},
			{strings.Repeat("w", 65), "invalid", 7, "[invalid_id unknown_run]"},
		} {
			p := map[string]any{"run": tc.id}
			for k, v := range params {
				p[k] = v
			}
			b, _ := json.Marshal(p)
			e := ts.rpcFails("default", method, string(b))
			if e.Data.Kind != tc.kind || e.Data.ExitCode != tc.code || e.Code != -32000-tc.code || fmt.Sprint(e.Data.Errors) != tc.errors {
				t.Errorf("%s %s: %+v, want kind %s, exit %d, errors %s", method, b, e, tc.kind, tc.code, tc.errors)
			}
		}
	}
	for _, method := range []string{"workflows.start_step", "workflows.add_findings", "workflows.complete_step", "workflows.fail_step", "workflows.release_step"} {
		for _, tc := range []struct {
			step, kind string
			code       int
			errors     string
		}{
			{"nope", "not_found", 3, "[unknown_step]"},
			{"only\n", "invalid", 7, "[invalid_id unknown_step]"},
			{"\t", "invalid", 7, "[invalid_id unknown_step]"},
		} {
			b, _ := json.Marshal(map[string]any{"run": "w1", "step": tc.step, "attempt": 1, "actor": "me"})
			e := ts.rpcFails("default", method, string(b))
			if e.Data.Kind != tc.kind || e.Data.ExitCode != tc.code || fmt.Sprint(e.Data.Errors) != tc.errors {
				t.Errorf("%s %s: %+v, want kind %s, exit %d, errors %s", method, b, e, tc.kind, tc.code, tc.errors)
			}
		}
	}
	var after []map[string]any
	ts.ok("default", "workflows.history", map[string]any{"run": "w1"}, &after)
	if len(after) != len(before) {
		t.Errorf("refused calls added transitions: %d, was %d", len(after), len(before))
	}
}

// TestRPC_WorkflowsRunShape: the methods that return a run return it in
// the shape cortexctl prints with --json (api.Run): camelCase names, the
// step timeout in seconds (it was workflow.Run's own JSON: step_timeout
// in nanoseconds, created_at, ...).
func TestRPC_WorkflowsRunShape(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	def := map[string]any{"name": "one", "type": "chain", "steps": []map[string]any{{"name": "only", "agent": "a"}}}
	for _, c := range []struct {
		method string
		params map[string]any
	}{
		{"workflows.start", map[string]any{"id": "w1", "def": def, "step_timeout": 90, "non_critical": []string{"a"}}},
		{"workflows.get", map[string]any{"run": "w1"}},
		{"workflows.list", map[string]any{}},
		{"workflows.cancel", map[string]any{"run": "w1", "actor": "me"}},
	} {
		var raw json.RawMessage
		ts.ok("default", c.method, c.params, &raw)
		var r map[string]any
		if c.method == "workflows.list" {
			var rs []map[string]any
			if err := json.Unmarshal(raw, &rs); err != nil || len(rs) != 1 {
				t.Fatalf("%s: %s, %v", c.method, raw, err)
			}
			r = rs[0]
		} else if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatalf("%s: %s, %v", c.method, raw, err)
		}
		steps, _ := r["steps"].([]any)
		if r["stepTimeout"] != 90.0 || r["createdAt"] == nil || fmt.Sprint(r["nonCritical"]) != "[a]" || len(steps) != 1 {
			t.Errorf("%s: %s, want stepTimeout 90 (s), createdAt, nonCritical [a] and a step", c.method, raw)
		}
		for _, old := range []string{"step_timeout", "created_at", "non_critical", "completed_at"} {
			if strings.Contains(string(raw), `"`+old+`"`) {
				t.Errorf("%s: %s has %s", c.method, raw, old)
			}
		}
	}
}

// TestRPC_WorkflowsStartRefusedCreatesNothing: a workflows.start refused
// for its params (none, an unknown field, no definition, a step timeout
// out of range, a definition that does not validate, a run input of the
// wrong type or one missing) creates no namespace, as a refused
// teams.create creates none. Each used to leave the namespace of the
// path behind, empty, listed by namespaces.list and open to reads.
func TestRPC_WorkflowsStartRefusedCreatesNothing(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	const def = `{"name":"d","type":"chain","steps":[{"name":"s","agent":"a","inputs":[{"name":"n","type":"number"}]}]}`
	for i, tc := range []struct {
		name, params, kind, msg string
	}{
		{"no params", `{}`, "usage", `"def" is required`},
		{"unknown field", `{"def":` + def + `,"bogus":1}`, "usage", `unknown field "bogus"`},
		{"def of the wrong type", `{"def":"d"}`, "usage", "def"},
		{"step timeout", `{"def":` + def + `,"step_timeout":-2}`, "invalid", "step_timeout -2"},
		{"def without a name", `{"def":{"type":"chain","steps":[{"name":"s","agent":"a"}]}}`, "invalid", "name: missing"},
		{"input of the wrong type", `{"def":` + def + `,"inputs":{"n":"x"}}`, "invalid", "start d: invalid run: input n (step s)"},
		{"input missing", `{"def":` + def + `}`, "invalid", "start d: invalid run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := fmt.Sprintf("fresh%d", i)
			e := ts.rpcFails(ns, "workflows.start", tc.params)
			if e.Data.Kind != tc.kind || !strings.Contains(e.Message, tc.msg) {
				t.Errorf("%s: %+v, want kind %s with %q", tc.params, e, tc.kind, tc.msg)
			}
			if r := ts.call(ns, "workflows.list", map[string]any{}); r.Error == nil || r.Error.Data.Kind != "not_found" {
				t.Errorf("after the refused start, namespace %s exists: workflows.list = %s %+v", ns, r.Result, r.Error)
			}
		})
	}
	// A valid start creates it.
	ts.ok("fresh", "workflows.start", json.RawMessage(`{"id":"w1","def":`+def+`,"inputs":{"n":1}}`), nil)
}

// TestRPC_WorkflowsClaimDriverLease: a lease_ms past what a duration can
// hold (about 292 years) is refused as invalid and holds nothing, instead
// of wrapping round to another lease (18446744073710 ms: half a
// millisecond) or to a negative one; 0 and negative leases are invalid
// too.
func TestRPC_WorkflowsClaimDriverLease(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("default", "workflows.start", map[string]any{"id": "c1", "def": map[string]any{"name": "crew", "type": "crew",
		"agents": []string{"lead", "dev"}, "lead": "lead"}}, nil)
	for _, ms := range []int64{18446744073710, 9223372036855, 1 << 62, 0, -1} {
		r := ts.call("default", "workflows.claim_driver", map[string]any{"run": "c1",
			"driver": map[string]any{"id": fmt.Sprint("d", ms), "actor": "me"}, "lease_ms": ms})
		if r.Error == nil || r.Error.Data.Kind != "invalid" || r.Error.Data.ExitCode != 7 {
			t.Errorf("lease_ms %d: %s, %+v; want invalid (exit 7)", ms, r.Result, r.Error)
		}
	}
	var run map[string]any
	ts.ok("default", "workflows.get", map[string]any{"run": "c1"}, &run)
	if run["driver"] != nil {
		t.Fatalf("a refused claim holds the run: %v", run["driver"])
	}
	// The longest lease a duration holds is taken.
	ts.ok("default", "workflows.claim_driver", map[string]any{"run": "c1",
		"driver": map[string]any{"id": "long", "actor": "me"}, "lease_ms": 9223372036854}, nil)
}

// TestRPC_WorkflowsAsDriver: workflows.as_driver runs the call it holds
// for a driver: a write while the driver holds the run goes through; once
// another driver holds it, the same write is refused (driver_busy, exit 4)
// and writes nothing; a call holding another as_driver is invalid.
func TestRPC_WorkflowsAsDriver(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("default", "workflows.start", map[string]any{"id": "c1", "def": map[string]any{"name": "crew", "type": "crew",
		"agents": []string{"lead", "dev"}, "lead": "lead"}}, nil)
	ts.ok("default", "workflows.claim_driver", map[string]any{"run": "c1",
		"driver": map[string]any{"id": "d1", "actor": "me"}, "lease_ms": 3600000}, nil)
	create := func(subject string) map[string]any {
		return map[string]any{"run": "c1", "driver": "d1", "method": "teams.create_task",
			"params": map[string]any{"team": "c1", "agent": "lead", "subject": subject}}
	}
	ts.ok("default", "workflows.as_driver", create("held"), nil)
	ts.ok("default", "workflows.claim_driver", map[string]any{"run": "c1",
		"driver": map[string]any{"id": "d2", "actor": "other"}, "lease_ms": 3600000, "replace": "d1"}, nil)
	r := ts.call("default", "workflows.as_driver", create("taken"))
	if r.Error == nil || r.Error.Data.ExitCode != 4 {
		t.Errorf("a write of a driver whose run was taken over: %s, %+v; want driver_busy (exit 4)", r.Result, r.Error)
	}
	var tasks []map[string]any
	ts.ok("default", "teams.list_tasks", map[string]any{"team": "c1"}, &tasks)
	if len(tasks) != 1 || tasks[0]["subject"] != "held" {
		t.Errorf("tasks: %v, want the one created while d1 held the run", tasks)
	}
	nested := map[string]any{"run": "c1", "driver": "d2", "method": "workflows.as_driver", "params": create("nested")}
	if r := ts.call("default", "workflows.as_driver", nested); r.Error == nil || r.Error.Data.ExitCode != 7 {
		t.Errorf("as_driver holding as_driver: %s, %+v; want invalid (exit 7)", r.Result, r.Error)
	}
}
