package server_test

import (
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/config"
	"github.com/cortexgraph/cortex/server"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestRPC_ParamsNamesExact: a params member is named exactly as the
// method's field is (encoding/json matched "Team" and "TEAM" to "team",
// and took the last of two members naming one field); another case, a
// name given twice, at any depth, is invalid params (-32602, kind usage,
// exit code 2) naming the member, and the call writes nothing.
func TestRPC_ParamsNamesExact(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "t1", Name: "n", Members: []api.MemberConfig{{Agent: "alice", Role: "lead"}}}, nil)
	const spo = `"subject":"<http://ex/s>","predicate":"<http://ex/p>","object":"\"o\""`
	for _, tc := range []struct {
		name, method, params string
		msg                  string // "": a result
	}{
		{"exact case", "findings.add", `{"team":"t1","agent":"alice",` + spo + `,"confidence":0.5}`, ""},
		{"exact case, nested", "findings.add_batch", `{"team":"t1","agent":"alice","findings":[{` + spo + `,"confidence":0.5}]}`, ""},
		{"wrong case", "teams.get", `{"Team":"t1"}`,
			`params: unknown field "Team" (field names are case-sensitive; did you mean "team"?)`},
		{"wrong case of an optional field", "findings.add", `{"team":"t1","agent":"alice",` + spo + `,"Confidence":0.9}`,
			`params: unknown field "Confidence" (field names are case-sensitive; did you mean "confidence"?)`},
		{"all capitals", "teams.list", `{"STATUS":"running"}`,
			`params: unknown field "STATUS" (field names are case-sensitive; did you mean "status"?)`},
		{"escaped wrong case", "teams.get", `{"\u0054eam":"t1"}`,
			`params: unknown field "Team" (field names are case-sensitive; did you mean "team"?)`},
		{"both cases", "teams.get", `{"team":"t1","Team":"t2"}`,
			`params: unknown field "Team" (field names are case-sensitive; did you mean "team"?)`},
		{"duplicate key", "teams.get", `{"team":"t1","team":"t2"}`, `params: duplicate key "team"`},
		{"duplicate key, escaped", "findings.add", `{"team":"t1","agent":"alice",` + spo + `,"\u0061gent":"bob"}`, `params: duplicate key "agent"`},
		{"nested wrong case", "findings.add_batch", `{"team":"t1","agent":"alice","findings":[{` + spo + `},{` + spo + `,"Confidence":1}]}`,
			`params: findings[1]: unknown field "Confidence" (field names are case-sensitive; did you mean "confidence"?)`},
		{"nested wrong case, team config", "teams.create", `{"id":"t2","name":"n","members":[{"Agent":"bob"}]}`,
			`params: members[0]: unknown field "Agent" (field names are case-sensitive; did you mean "agent"?)`},
		{"nested duplicate", "findings.add_batch", `{"team":"t1","agent":"alice","findings":[{` + spo + `,"object":"\"p\""}]}`,
			`params: findings[0]: duplicate key "object"`},
		{"nested wrong case, workflow definition", "workflows.start", `{"def":{"name":"d","steps":[{"name":"s","Agent":"alice"}]}}`,
			`params: def.steps[0]: unknown field "Agent" (field names are case-sensitive; did you mean "agent"?)`},
		{"duplicate key in a map", "workflows.start", `{"def":{"name":"d","steps":[{"name":"s","agent":"alice"}]},"inputs":{"x":1,"x":2}}`,
			`params: inputs: duplicate key "x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rawCall(t, ts, tc.method, tc.params)
			if tc.msg == "" {
				if r.Error != nil {
					t.Fatalf("error %d %s", r.Error.Code, r.Error.Message)
				}
				return
			}
			if r.Error == nil {
				t.Fatalf("no error; result %s", r.Result)
			}
			if e := r.Error; e.Code != -32602 || e.Data.Kind != string(api.KindUsage) || e.Data.ExitCode != api.ExitUsage || !strings.Contains(e.Message, tc.msg) || string(r.ID) != "1" {
				t.Errorf("error %d %q %+v (id %s), want -32602, kind usage, exit 2, id 1 and %q", e.Code, e.Message, e.Data, r.ID, tc.msg)
			}
		})
	}
	// The refused calls wrote nothing: the two findings of the exact calls,
	// with confidence 0.5, and no team t2.
	var fs []api.Finding
	ts.ok("acme", "findings.list", map[string]any{"team": "t1"}, &fs)
	if len(fs) != 2 || fs[0].Confidence != 0.5 || fs[1].Confidence != 0.5 || fs[0].Agent != "alice" {
		t.Errorf("findings after the refused calls: %+v", fs)
	}
	if r := ts.call("acme", "teams.get", map[string]any{"team": "t2"}); r.Error == nil || r.Error.Data.Kind != string(api.KindNotFound) {
		t.Errorf("teams.get t2 after a refused teams.create: %s %+v", r.Result, r.Error)
	}
}

// TestRPC_ParamsDeep: params nested thousands of levels deep are refused
// with a short message (jsonexact builds a refused name's path once and
// prints it shortened): a name given twice deep in a free value, by its
// path; a nested value where a string is expected, as a value of the wrong
// type, without looking into it.
func TestRPC_ParamsDeep(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	// teams.get reads namespace acme: it must exist (a refused
	// workflows.start no longer creates it).
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "t1", Name: "n", Members: []api.MemberConfig{{Agent: "alice", Role: "lead"}}}, nil)
	const depth = 9990 // encoding/json reads at most 10,000 levels, the request's own included
	arrays := func(inner string) string { return strings.Repeat("[", depth) + inner + strings.Repeat("]", depth) }
	for _, tc := range []struct {
		name, method, params string
		prefix, suffix       string
	}{
		{"duplicate key deep in a free value", "workflows.start", `{"def":{"name":"d","steps":[{"name":"s","agent":"alice"}]},"inputs":{"x":` + arrays(`{"a":1,"a":2}`) + `}}`,
			`params: inputs["x"][0][0][0]`, `[0][0][0]: duplicate key "a"`},
		{"nested arrays for a string", "teams.get", `{"team":` + arrays(`{"a":1,"a":2}`) + `}`,
			`params: team: want a string, got an array`, `params: team: want a string, got an array`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rawCall(t, ts, tc.method, tc.params)
			if r.Error == nil {
				t.Fatalf("no error; result %s", r.Result)
			}
			if e := r.Error; e.Code != -32602 || e.Data.Kind != string(api.KindUsage) || len(e.Message) > 600 || !strings.Contains(e.Message, tc.prefix) || !strings.HasSuffix(e.Message, tc.suffix) {
				t.Errorf("error %d %+v, message of %d bytes: %.700s; want -32602, kind usage, at most 600 bytes, %q ... %q", e.Code, e.Data, len(e.Message), e.Message, tc.prefix, tc.suffix)
			}
		})
	}
}

// A batch's items are read as single requests are: one with a params
// member in another case is refused, the others are answered.
func TestRPC_ParamsNamesExactInBatch(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "t1", Name: "n", Members: []api.MemberConfig{{Agent: "alice", Role: "lead"}}}, nil)
	resp, body := ts.rpcRaw("acme", `[{"jsonrpc":"2.0","id":1,"method":"teams.get","params":{"team":"t1"}},`+
		`{"jsonrpc":"2.0","id":2,"method":"teams.get","params":{"TEAM":"t1"}},`+
		`{"jsonrpc":"2.0","id":3,"method":"teams.get","params":{"team":"t1","team":"t1"}}]`)
	var rs []rpcResponse
	if err := json.Unmarshal([]byte(body), &rs); err != nil || resp.StatusCode != http.StatusOK || len(rs) != 3 {
		t.Fatalf("%d %v: %s", resp.StatusCode, err, body)
	}
	if rs[0].Error != nil || string(rs[0].ID) != "1" {
		t.Errorf("exact params: %s", body)
	}
	for i, msg := range map[int]string{1: `unknown field "TEAM" (field names are case-sensitive; did you mean "team"?)`, 2: `duplicate key "team"`} {
		if e := rs[i].Error; e == nil || e.Code != -32602 || e.Data.Kind != string(api.KindUsage) || !strings.Contains(e.Message, msg) {
			t.Errorf("item %d: %s, want -32602 with %q", i+1, body, msg)
		}
	}
}

// TestRPC_DuplicateMembers: a request member (jsonrpc, method, params, id)
// given twice is an invalid request (encoding/json took the last, where
// another reader takes the first); one whose id is given twice is answered
// with id null. A member the protocol does not know may repeat: it is
// ignored.
func TestRPC_DuplicateMembers(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	for _, tc := range []struct {
		name, body string
		code       int    // 0: a result
		id, msg    string // the id and message wanted
	}{
		{"method", `{"jsonrpc":"2.0","method":"teams.delete","method":"strategies.list","id":1}`, -32600, "1", `duplicate member "method"`},
		{"method, escaped", `{"jsonrpc":"2.0","method":"strategies.list","\u006dethod":"strategies.list","id":2}`, -32600, "2", `duplicate member "method"`},
		{"params", `{"jsonrpc":"2.0","method":"strategies.list","params":{},"params":null,"id":3}`, -32600, "3", `duplicate member "params"`},
		{"jsonrpc", `{"jsonrpc":"1.0","jsonrpc":"2.0","method":"strategies.list","id":4}`, -32600, "4", `duplicate member "jsonrpc"`},
		{"id", `{"jsonrpc":"2.0","method":"strategies.list","id":5,"id":6}`, -32600, "null", `duplicate member "id"`},
		{"notification", `{"jsonrpc":"2.0","method":"strategies.list","method":"strategies.list"}`, -32600, "null", `duplicate member "method"`},
		{"unknown member", `{"jsonrpc":"2.0","method":"strategies.list","id":7,"note":1,"note":2}`, 0, "7", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := ts.rpcRaw("acme", tc.body)
			var r rpcResponse
			if err := json.Unmarshal([]byte(body), &r); err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("%d %v: %s", resp.StatusCode, err, body)
			}
			if string(r.ID) != tc.id {
				t.Errorf("id %s, want %s: %s", r.ID, tc.id, body)
			}
			switch {
			case tc.code == 0 && (r.Error != nil || r.Result == nil):
				t.Errorf("want a result: %s", body)
			case tc.code != 0 && (r.Error == nil || r.Error.Code != tc.code || r.Error.Data.Kind != string(api.KindUsage) || !strings.Contains(r.Error.Message, tc.msg)):
				t.Errorf("want error %d with %q: %s", tc.code, tc.msg, body)
			}
		})
	}
}

// rawCall calls method with params as written (raw JSON) and returns the
// response.
func rawCall(t *testing.T, ts *testServer, method, params string) rpcResponse {
	t.Helper()
	resp, body := ts.rpcRaw("acme", `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`)
	var r rpcResponse
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("%s: %d %v in %s", method, resp.StatusCode, err, body)
	}
	return r
}

// TestRPC_FindingValues: a confidence too large for a float64 (1e400) is
// ±Inf, refused by the Manager as in process (kind invalid, exit 7, its
// message), not a value of the wrong type (usage); a value of the wrong
// type still is one, named by its path in params in JSON's terms. An assertedAt of the zero time is refused, not
// replaced by now. Nothing is written.
func TestRPC_FindingValues(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "t1", Name: "n", Members: []api.MemberConfig{{Agent: "alice", Role: "lead"}}}, nil)
	const spo = `"subject":"<http://ex/s>","predicate":"<http://ex/p>","object":"\"o\""`
	for _, tc := range []struct {
		name, method, params string
		code, exit           int
		kind, msg            string
	}{
		{"confidence 1e400", "findings.add", `{"team":"t1","agent":"alice",` + spo + `,"confidence":1e400}`,
			-32007, api.ExitInvalid, "invalid", "team t1: agent alice: invalid finding: confidence +Inf not in [0, 1]"},
		{"confidence -1e400", "findings.add_batch", `{"team":"t1","agent":"alice","findings":[{` + spo + `},{` + spo + `,"confidence":-1e400}]}`,
			-32007, api.ExitInvalid, "invalid", "team t1: agent alice: finding 2 of 2: invalid finding: confidence -Inf not in [0, 1]"},
		{"confidence a string", "findings.add", `{"team":"t1","agent":"alice",` + spo + `,"confidence":"0.5"}`,
			-32602, api.ExitUsage, "usage", "params: confidence: want a number, got a string"},
		{"confidence an object", "findings.add_batch", `{"team":"t1","agent":"alice","findings":[{` + spo + `,"confidence":{}}]}`,
			-32602, api.ExitUsage, "usage", "params: findings[0].confidence: want a number, got an object"},
		{"assertedAt the zero time", "findings.add", `{"team":"t1","agent":"alice",` + spo + `,"assertedAt":"0001-01-01T00:00:00Z"}`,
			-32007, api.ExitInvalid, "invalid", "invalid finding: assertedAt 0001-01-01T00:00:00Z is the zero time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rawCall(t, ts, tc.method, tc.params)
			if r.Error == nil {
				t.Fatalf("no error; result %s", r.Result)
			}
			if e := r.Error; e.Code != tc.code || e.Data.Kind != tc.kind || e.Data.ExitCode != tc.exit || !strings.Contains(e.Message, tc.msg) {
				t.Errorf("error %d %q %+v, want %d, kind %s, exit %d and %q", e.Code, e.Message, e.Data, tc.code, tc.kind, tc.exit, tc.msg)
			}
		})
	}
	var fs []api.Finding
	ts.ok("acme", "findings.list", map[string]any{"team": "t1"}, &fs)
	if len(fs) != 0 {
		t.Errorf("findings after the refused calls: %+v", fs)
	}
	// null is no confidence, as it was.
	ts.ok("acme", "findings.add", json.RawMessage(`{"team":"t1","agent":"alice",`+spo+`,"confidence":null}`), nil)
	ts.ok("acme", "findings.list", map[string]any{"team": "t1"}, &fs)
	if len(fs) != 1 || fs[0].Confidence != 0 {
		t.Errorf("findings after a confidence null: %+v", fs)
	}
}

// TestRPC_NumberOutOfRange: a params number too large (or small) for the
// numeric field it is read into — a team's threshold of 1e400, which no
// float64 holds, an int64 timeout of 2^63 — is a value out of range,
// refused as the embedded Manager refuses a threshold out of range (kind
// invalid, exit 7, -32007), naming the field; it was invalid params
// (kind usage, exit 2) as if the request were malformed. A number of the
// wrong form for its field (1.5 for an integer) and a value of the wrong
// type are still invalid params. Nothing is written (t0, created first,
// stays the namespace's one team).
func TestRPC_NumberOutOfRange(t *testing.T) {
	embedded := teammanager.FromConfig(config.Default().Teams).ValidateTeam(teammanager.TeamConfig{Name: "n",
		Threshold: math.Inf(1), Members: []teammanager.MemberConfig{{AgentID: "alice", Role: "lead"}}})
	code, kind := api.Classify(embedded)
	if code != api.ExitInvalid || kind != api.KindInvalid {
		t.Fatalf("embedded: a threshold of +Inf: %v, exit %d, kind %s; want exit %d, kind %s", embedded, code, kind, api.ExitInvalid, api.KindInvalid)
	}
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "t0", Name: "n", Members: []api.MemberConfig{{Agent: "alice", Role: "lead"}}}, nil)
	const members = `"members":[{"agent":"alice","role":"lead"}]`
	const invalid = "invalid value: "
	for _, tc := range []struct {
		name, method, params string
		code, exit           int
		kind                 api.Kind
		msg                  string
	}{
		{"threshold 1e400", "teams.create", `{"name":"n","threshold":1e400,` + members + `}`,
			-32000 - code, code, kind, invalid + "params: threshold: number 1e400 is out of range for a float64"},
		{"threshold -1e400", "teams.create", `{"name":"n","threshold":-1e400,` + members + `}`,
			-32000 - code, code, kind, invalid + "params: threshold: number -1e400 is out of range for a float64"},
		{"timeout 2^63", "teams.create", `{"name":"n","timeout":9223372036854775808,` + members + `}`,
			-32000 - code, code, kind, invalid + "params: timeout: number 9223372036854775808 is out of range for an int64"},
		{"timeout 1e400", "teams.create", `{"name":"n","timeout":1e400,` + members + `}`,
			-32000 - code, code, kind, invalid + "params: timeout: number 1e400 is out of range for an int64"},
		{"nested: a driver's pid", "workflows.claim_driver", `{"run":"t0","driver":{"id":"d","actor":"me","pid":-1e30},"lease_ms":1000}`,
			-32000 - code, code, kind, invalid + "params: driver.pid: number -1e30 is out of range for an int"},
		{"a long number, cut", "teams.create", `{"name":"n","threshold":1` + strings.Repeat("0", 400) + `,` + members + `}`,
			-32000 - code, code, kind, invalid + "params: threshold: number 100000000000000000000000000000...000000000000000000000000000000 is out of range for a float64"},
		{"timeout 1.5: not an integer", "teams.create", `{"name":"n","timeout":1.5,` + members + `}`,
			-32602, api.ExitUsage, api.KindUsage, "usage: params: timeout: want a whole number, got number 1.5"},
		{"threshold a string", "teams.create", `{"name":"n","threshold":"1e400",` + members + `}`,
			-32602, api.ExitUsage, api.KindUsage, "usage: params: threshold: want a number, got a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rawCall(t, ts, tc.method, tc.params)
			if r.Error == nil {
				t.Fatalf("no error; result %s", r.Result)
			}
			if e := r.Error; e.Code != tc.code || e.Data.Kind != string(tc.kind) || e.Data.ExitCode != tc.exit || e.Message != tc.msg {
				t.Errorf("error %d %q %+v, want %d, kind %s, exit %d and %q", e.Code, e.Message, e.Data, tc.code, tc.kind, tc.exit, tc.msg)
			}
		})
	}
	var teams []api.Team
	ts.ok("acme", "teams.list", nil, &teams)
	if len(teams) != 1 {
		t.Errorf("teams after the refused calls: %+v", teams)
	}
}

// TestRPC_ParamsMessages: a params mistake is said in JSON's terms, not
// Go's ("cannot unmarshal number into Go struct field
// findingParams.subject of type string"): the value by its path in params,
// elements included, what is wanted and what was given; a body that is
// not JSON by the line, column and offset of the mistake. The error keeps
// its code and data (-32602, kind usage, exit 2; -32700, kind syntax,
// exit 5), and nothing is written.
func TestRPC_ParamsMessages(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "t1", Name: "n", Members: []api.MemberConfig{{Agent: "alice", Role: "lead"}}}, nil)
	const spo = `"subject":"<http://ex/s>","predicate":"<http://ex/p>","object":"\"o\""`
	const usage = "usage: params: "
	for _, tc := range []struct {
		name, method, params, msg string
	}{
		{"a number for a string", "findings.add", `{"team":"t1","agent":"alice","subject":5,"predicate":"<http://ex/p>","object":"\"o\""}`,
			usage + "subject: want a string, got a number"},
		{"a string for a number, third finding", "findings.add_batch", `{"team":"t1","agent":"alice","findings":[{` + spo + `},{` + spo + `},{` + spo + `,"confidence":"high"}]}`,
			usage + "findings[2].confidence: want a number, got a string"},
		{"an object for an array", "teams.create", `{"id":"t2","name":"n","members":{"agent":"bob"}}`,
			usage + "members: want an array, got an object"},
		{"a number in a member", "teams.create", `{"id":"t2","name":"n","members":[{"agent":"bob","role":5}]}`,
			usage + "members[0].role: want a string, got a number"},
		{"a fraction for a whole number", "teams.create", `{"id":"t2","name":"n","timeout":1.5,"members":[{"agent":"bob"}]}`,
			usage + "timeout: want a whole number, got number 1.5"},
		{"a string for true or false", "conflicts.list", `{"team":"t1","open":"yes"}`,
			usage + "open: want true or false, got a string"},
		{"a string for an object", "workflows.start", `{"def":"d"}`,
			usage + "def: want an object, got a string"},
		{"deep in a workflow definition", "workflows.start", `{"def":{"name":"d","steps":[{"name":"s","agent":"alice"},{"name":["s2"]}]}}`,
			usage + "def.steps[1].name: want a string, got an array"},
		{"an unknown member, nested", "findings.add_batch", `{"team":"t1","agent":"alice","findings":[{` + spo + `,"weight":1}]}`,
			usage + `findings[0]: unknown field "weight"`},
		{"params an array", "teams.get", `["t1"]`,
			"usage: params must be an object with named members, not an array"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rawCall(t, ts, tc.method, tc.params)
			if r.Error == nil {
				t.Fatalf("no error; result %s", r.Result)
			}
			if e := r.Error; e.Code != -32602 || e.Data.Kind != string(api.KindUsage) || e.Data.ExitCode != api.ExitUsage || e.Message != tc.msg || string(r.ID) != "1" {
				t.Errorf("error %d %q %+v (id %s), want -32602, kind usage, exit 2, id 1 and %q", e.Code, e.Message, e.Data, r.ID, tc.msg)
			}
		})
	}
	const parse = "syntax error: parse error: "
	for _, tc := range []struct{ name, body, msg string }{
		{"a trailing comma", `{"jsonrpc":"2.0","id":1,"method":"teams.get","params":{"team":"t1",}}`,
			parse + `line 1, column 68 (offset 67): invalid character '}', want a member name (a string in "")`},
		{"a word for a value, second line", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"teams.get\",\n\"params\":{\"team\":x1}}",
			parse + "line 2, column 18 (offset 63): invalid character 'x', want a value"},
		{"cut short", `{"jsonrpc":"2.0","id":1,"method":"teams.get","params":{"team":"t1"}`,
			parse + "line 1, column 68 (offset 67): the JSON ends too early"},
		{"a batch with a trailing comma", "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"teams.get\",\"params\":{\"team\":\"t1\"}},\n]",
			parse + "line 2, column 1 (offset 71): invalid character ']', want a value"},
		{"nothing", "  ", parse + "line 1, column 3 (offset 2): no JSON value, want one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := ts.rpcRaw("acme", tc.body)
			var r rpcResponse
			if err := json.Unmarshal([]byte(body), &r); err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("%d %v: %s", resp.StatusCode, err, body)
			}
			if e := r.Error; e == nil || e.Code != -32700 || e.Data.Kind != string(api.KindSyntax) || e.Data.ExitCode != api.ExitSyntax || e.Message != tc.msg || string(r.ID) != "null" {
				t.Errorf("%s; want -32700, kind syntax, exit %d, id null and %q", body, api.ExitSyntax, tc.msg)
			}
		})
	}
	var fs []api.Finding
	ts.ok("acme", "findings.list", map[string]any{"team": "t1"}, &fs)
	var teams []api.Team
	ts.ok("acme", "teams.list", nil, &teams)
	if len(fs) != 0 || len(teams) != 1 {
		t.Errorf("after the refused calls: findings %+v, teams %+v", fs, teams)
	}
}
