package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/server"
)

func TestRPC_TeamLifecycle(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	var team api.Team
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "t1", Name: "review", Strategy: "conflict-flag",
		Members: []api.MemberConfig{{Agent: "alice", Role: "lead"}, {Agent: "bob", Role: "reviewer"}}}, &team)
	if team.ID != "t1" || team.Status != "pending" || len(team.Members) != 2 {
		t.Fatalf("teams.create = %+v", team)
	}
	var ms api.MemberStatus
	ts.ok("acme", "teams.member_status", map[string]string{"team": "t1", "agent": "alice", "status": "running"}, &ms)
	if ms.TeamStatus != "running" || ms.Member.Status != "running" {
		t.Fatalf("member_status = %+v", ms)
	}
	ts.ok("acme", "teams.member_status", map[string]string{"team": "t1", "agent": "bob", "status": "running"}, nil)
	var added api.FindingAdded
	ts.ok("acme", "findings.add", map[string]any{"team": "t1", "agent": "alice",
		"subject": "<http://ex/main.go>", "predicate": "<http://ex/severity>", "object": `"high"`, "confidence": 0.8}, &added)
	if added.ID == "" {
		t.Fatal("findings.add returned no id")
	}
	var batch struct {
		IDs []string `json:"ids"`
	}
	ts.ok("acme", "findings.add_batch", map[string]any{"team": "t1", "agent": "bob", "findings": []map[string]any{
		{"subject": "<http://ex/main.go>", "predicate": "<http://ex/severity>", "object": `"low"`},
		{"subject": "<http://ex/pool.go>", "predicate": "rdfs:comment", "object": "leaks", "assertedAt": "2026-01-02T15:04:05Z"},
	}}, &batch)
	if len(batch.IDs) != 2 {
		t.Fatalf("findings.add_batch ids = %v", batch.IDs)
	}
	var imported api.FindingsImported
	ts.ok("acme", "findings.import", map[string]any{"team": "t1", "agent": "bob", "format": "nt",
		"data": "<http://ex/a.go> <http://ex/ok> \"yes\" .\n"}, &imported)
	if imported.Findings != 1 {
		t.Fatalf("findings.import = %+v", imported)
	}
	var fs []api.Finding
	ts.ok("acme", "findings.list", map[string]any{"team": "t1", "agent": "bob"}, &fs)
	if len(fs) != 3 {
		t.Fatalf("findings.list bob = %+v", fs)
	}
	var done api.TeamComplete
	ts.ok("acme", "teams.is_complete", map[string]any{"team": "t1"}, &done)
	if done.Complete {
		t.Fatal("teams.is_complete before the members finished")
	}
	ts.ok("acme", "teams.member_status", map[string]string{"team": "t1", "agent": "alice", "status": "completed"}, nil)
	ts.ok("acme", "teams.member_status", map[string]string{"team": "t1", "agent": "bob", "status": "completed", "result": "done"}, &ms)
	if ms.TeamStatus != "completed" || ms.Merge == nil {
		t.Fatalf("last member_status = %+v, want completed with a merge", ms)
	}
	ts.ok("acme", "teams.is_complete", map[string]any{"team": "t1"}, &done)
	if !done.Complete {
		t.Fatal("teams.is_complete after the members finished")
	}
	ts.ok("acme", "teams.get", map[string]any{"team": "t1"}, &team)
	if !team.Merged || team.Status != "completed" {
		t.Fatalf("teams.get = %+v", team)
	}
	var cs []api.Conflict
	ts.ok("acme", "conflicts.list", map[string]any{"team": "t1", "open": true}, &cs)
	if len(cs) != 1 || len(cs[0].Candidates) != 2 {
		t.Fatalf("conflicts.list = %+v, want the severity conflict", cs)
	}
	var mr api.Merge
	ts.ok("acme", "conflicts.resolve", map[string]any{"team": "t1", "conflict": cs[0].ID, "objects": []string{`"high"`}, "by": "carol"}, &mr)
	var facts []api.Fact
	ts.ok("acme", "facts.list", map[string]any{"team": "t1", "subject": "<http://ex/main.go>"}, &facts)
	if len(facts) != 1 || facts[0].Object != `"high"` || facts[0].ResolvedBy != "carol" {
		t.Fatalf("facts.list = %+v", facts)
	}
	ts.ok("acme", "teams.merge", map[string]any{"team": "t1"}, &mr)
	if mr.Team != "t1" {
		t.Fatalf("teams.merge = %+v", mr)
	}
	var teams []api.Team
	ts.ok("acme", "teams.list", map[string]any{"status": "completed"}, &teams)
	if len(teams) != 1 || teams[0].ID != "t1" {
		t.Fatalf("teams.list = %+v", teams)
	}
	var names []string
	ts.ok("acme", "strategies.list", nil, &names)
	if !slices.Equal(names, merge.Names()) {
		t.Fatalf("strategies.list = %v, want %v", names, merge.Names())
	}
	var nss []api.Namespace
	ts.ok("acme", "namespaces.list", nil, &nss)
	if len(nss) != 1 || nss[0].Name != "acme" || nss[0].Quads == 0 {
		t.Fatalf("namespaces.list = %+v", nss)
	}
	var del api.TeamDeleted
	ts.ok("acme", "teams.delete", map[string]any{"team": "t1"}, &del)
	if !del.Deleted {
		t.Fatalf("teams.delete = %+v", del)
	}
	if r := ts.call("acme", "teams.get", map[string]any{"team": "t1"}); r.Error == nil || r.Error.Data.Kind != "not_found" {
		t.Fatalf("teams.get after delete = %+v", r)
	}
}

func TestRPC_Errors(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "t1", Name: "n", Members: []api.MemberConfig{{Agent: "alice", Role: "lead"}}}, nil)
	for _, tc := range []struct {
		name, ns, method string
		params           any
		code, exit       int
		kind             api.Kind
		msg              string
	}{
		{"unknown method", "acme", "teams.frobnicate", nil, -32601, 2, api.KindUsage, "teams.frobnicate"},
		{"unknown field", "acme", "teams.get", map[string]any{"team": "t1", "tema": 1}, -32602, 2, api.KindUsage, "tema"},
		{"missing field", "acme", "teams.get", map[string]any{}, -32602, 2, api.KindUsage, `"team" is required`},
		{"wrong type", "acme", "teams.get", map[string]any{"team": 7}, -32602, 2, api.KindUsage, "team"},
		{"params array", "acme", "teams.get", []string{"t1"}, -32602, 2, api.KindUsage, "object"},
		{"unknown team", "acme", "teams.get", map[string]any{"team": "nope"}, -32003, 3, api.KindNotFound, "nope"},
		{"snapshots of an unknown team", "acme", "teams.snapshot.list", map[string]any{"team": "nope"}, -32003, 3, api.KindNotFound, `team "nope": unknown team`},
		{"no namespace (read)", "ghost", "teams.list", nil, -32003, 3, api.KindNotFound, "no such namespace"},
		{"no namespace (write)", "ghost", "findings.add", map[string]any{"team": "t1", "agent": "a", "subject": "<s:x>", "predicate": "<s:p>", "object": "o"}, -32003, 3, api.KindNotFound, "no such namespace"},
		{"transition", "acme", "teams.member_status", map[string]any{"team": "t1", "agent": "alice", "status": "pending"}, -32004, 4, api.KindConflict, "transition"},
		{"term syntax", "acme", "findings.add", map[string]any{"team": "t1", "agent": "alice", "subject": "<http://x", "predicate": "<http://p>", "object": "o"}, -32005, 5, api.KindSyntax, "subject"},
		{"bad status", "acme", "teams.member_status", map[string]any{"team": "t1", "agent": "alice", "status": "bored"}, -32007, 7, api.KindInvalid, "bored"},
		{"bad format", "acme", "findings.import", map[string]any{"team": "t1", "agent": "alice", "format": "xml", "data": ""}, -32602, 2, api.KindUsage, "xml"},
		{"resolve without objects", "acme", "conflicts.resolve", map[string]any{"team": "t1", "conflict": "c", "by": "x"}, -32602, 2, api.KindUsage, "objects"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ts.call(tc.ns, tc.method, tc.params)
			if r.Error == nil {
				t.Fatalf("no error; result %s", r.Result)
			}
			if r.Result != nil {
				t.Errorf("result %s beside the error", r.Result)
			}
			e := r.Error
			if e.Code != tc.code || e.Data.ExitCode != tc.exit || e.Data.Kind != string(tc.kind) || !strings.Contains(e.Message, tc.msg) {
				t.Errorf("error = %d %q %+v; want %d, exit %d, %s, a message with %q", e.Code, e.Message, e.Data, tc.code, tc.exit, tc.kind, tc.msg)
			}
			if string(r.ID) != "1" {
				t.Errorf("id = %s, want 1", r.ID)
			}
		})
	}
	// A read of a namespace that does not exist created nothing.
	var nss []api.Namespace
	ts.ok("acme", "namespaces.list", nil, &nss)
	if len(nss) != 1 {
		t.Errorf("namespaces after failed calls: %+v", nss)
	}
}

func TestRPC_Protocol(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	one := func(body string) rpcResponse {
		t.Helper()
		resp, b := ts.rpcRaw("acme", body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d", body, resp.StatusCode)
		}
		var r rpcResponse
		if err := json.Unmarshal([]byte(b), &r); err != nil {
			t.Fatalf("%s: %v: %s", body, err, b)
		}
		return r
	}
	for _, tc := range []struct {
		name, body string
		code       int
		id         string
	}{
		{"parse error", `{"jsonrpc": "2.0", "method": "teams.list", "id": 1`, -32700, "null"},
		{"not an object", `42`, -32600, "null"},
		{"no version", `{"method": "teams.list", "id": 2}`, -32600, "2"},
		{"method not a string", `{"jsonrpc": "2.0", "method": 1, "id": "x"}`, -32600, `"x"`},
		{"id an object", `{"jsonrpc": "2.0", "method": "teams.list", "id": {}}`, -32600, "null"},
		{"empty batch", `[]`, -32600, "null"},
		{"batch parse error", `[{"jsonrpc": "2.0", "method": "teams.list", "id": 1},`, -32700, "null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := one(tc.body)
			if r.Error == nil || r.Error.Code != tc.code || string(r.ID) != tc.id || r.JSONRPC != "2.0" {
				t.Fatalf("response %+v (error %+v), want code %d, id %s", r, r.Error, tc.code, tc.id)
			}
		})
	}

	// A notification is run, and answered with nothing.
	resp, body := ts.rpcRaw("acme", `{"jsonrpc": "2.0", "method": "teams.create", "params": {"id": "n1", "name": "x", "members": [{"agent": "a", "role": "r"}]}}`)
	if resp.StatusCode != http.StatusNoContent || body != "" {
		t.Fatalf("notification: %d %q", resp.StatusCode, body)
	}
	var team api.Team
	ts.ok("acme", "teams.get", map[string]string{"team": "n1"}, &team)

	// A batch: responses for the calls, none for the notifications, in order.
	resp, body = ts.rpcRaw("acme", `[
		{"jsonrpc": "2.0", "method": "teams.get", "params": {"team": "n1"}, "id": "a"},
		{"jsonrpc": "2.0", "method": "teams.get", "params": {"team": "n1"}},
		{"jsonrpc": "2.0", "method": "teams.get", "params": {"team": "zz"}, "id": 3},
		7
	]`)
	var rs []rpcResponse
	if err := json.Unmarshal([]byte(body), &rs); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("batch: %d %v: %s", resp.StatusCode, err, body)
	}
	if len(rs) != 3 || string(rs[0].ID) != `"a"` || rs[0].Error != nil || rs[1].Error == nil || rs[1].Error.Code != -32003 || string(rs[1].ID) != "3" ||
		rs[2].Error == nil || rs[2].Error.Code != -32600 {
		t.Fatalf("batch responses: %s", body)
	}
	resp, body = ts.rpcRaw("acme", `[{"jsonrpc": "2.0", "method": "teams.list"}, {"jsonrpc": "2.0", "method": "strategies.list"}]`)
	if resp.StatusCode != http.StatusNoContent || body != "" {
		t.Fatalf("batch of notifications: %d %q", resp.StatusCode, body)
	}
}

func TestRPC_BodyTooLarge(t *testing.T) {
	ts := serve(t, server.DefaultOptions().WithMaxBodyBytes(64))
	resp, body := ts.rpcRaw("acme", `{"jsonrpc": "2.0", "method": "teams.list", "id": 1, "params": {"status": "`+strings.Repeat("x", 100)+`"}}`)
	var r rpcResponse
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	if resp.StatusCode != http.StatusRequestEntityTooLarge || r.Error == nil || r.Error.Data.Kind != "invalid" || !strings.Contains(r.Error.Message, "too large") {
		t.Fatalf("oversized request: %d %s", resp.StatusCode, body)
	}
}

// TestRPC_ServerTiming: a JSON-RPC response says in Server-Timing how long
// the server spent in the call (a batch's calls together); a body that is
// not JSON never reached a call and has none.
func TestRPC_ServerTiming(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	timing := regexp.MustCompile(`^call;dur=[0-9]+\.[0-9]{3}$`)
	for _, body := range []string{
		`{"jsonrpc": "2.0", "method": "strategies.list", "id": 1}`,
		`{"jsonrpc": "2.0", "method": "teams.get", "params": {"team": "none"}, "id": 2}`,
		`[{"jsonrpc": "2.0", "method": "teams.list", "id": 1}, {"jsonrpc": "2.0", "method": "strategies.list", "id": 2}]`,
	} {
		resp, _ := ts.rpcRaw("acme", body)
		if got := resp.Header.Values("Server-Timing"); len(got) != 1 || !timing.MatchString(got[0]) {
			t.Errorf("%s: Server-Timing %q, want one call;dur=MS", body, got)
		}
	}
	resp, _ := ts.rpcRaw("acme", `{"jsonrpc": "2.0", "method"`)
	if got := resp.Header.Get("Server-Timing"); got != "" {
		t.Errorf("parse error: Server-Timing %q, want none", got)
	}
}

// TestRPC_MemberNamesCaseSensitive: JSON-RPC 2.0 member names are
// case-sensitive (its section 3). "Method", "ID", "Params" and "JSONRPC"
// are members the protocol does not know, ignored, never the request's
// own; encoding/json matched them to the request's fields.
func TestRPC_MemberNamesCaseSensitive(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "t1", Name: "n", Members: []api.MemberConfig{{Agent: "a"}}}, nil)
	for _, tc := range []struct {
		name, body string
		code       int    // 0: a result
		id, msg    string // the id and message wanted
	}{
		{"Method only", `{"jsonrpc":"2.0","Method":"strategies.list","id":1}`, -32600, "1", `"method" must be`},
		{"JSONRPC only", `{"JSONRPC":"2.0","method":"strategies.list","id":2}`, -32600, "2", `"jsonrpc" must be`},
		{"Method beside method", `{"jsonrpc":"2.0","method":"strategies.list","id":3,"Method":"teams.frobnicate"}`, 0, "3", ""},
		{"Params beside none", `{"jsonrpc":"2.0","method":"teams.get","id":4,"Params":{"team":"t1"}}`, -32602, "4", `"team" is required`},
		{"ID beside id", `{"jsonrpc":"2.0","method":"strategies.list","id":5,"ID":6}`, 0, "5", ""},
		{"escaped name", `{"jsonrpc":"2.0","\u006dethod":"strategies.list","id":7}`, 0, "7", ""},
		{"null", `null`, -32600, "null", "got null"},
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
			case tc.code != 0 && (r.Error == nil || r.Error.Code != tc.code || !strings.Contains(r.Error.Message, tc.msg)):
				t.Errorf("want error %d with %q: %s", tc.code, tc.msg, body)
			}
		})
	}
	// "ID" is not "id": a request with only "ID" is a notification.
	resp, body := ts.rpcRaw("acme", `{"jsonrpc":"2.0","method":"strategies.list","ID":1}`)
	if resp.StatusCode != http.StatusNoContent || body != "" {
		t.Errorf("a notification with an ID member: %d %q, want 204 and no body", resp.StatusCode, body)
	}
}

// TestRPC_InvalidUTF8IsParseError: a body that is not UTF-8 is not JSON
// (RFC 8259, 8.1): a parse error that writes nothing. encoding/json read
// each bad byte as U+FFFD, and findings.add stored a literal it was never
// sent, where cortexctl refuses one that is not UTF-8 (exit 5).
func TestRPC_InvalidUTF8IsParseError(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "t1", Name: "n", Members: []api.MemberConfig{{Agent: "alice", Role: "lead"}}}, nil)
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"findings.add","params":{"team":"t1","agent":"alice","subject":"<http://ex/s>","predicate":"<http://ex/p>","object":"\"bad` + "\xff" + `\""}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"findings.add","params":{"team":"t1","agent":"alice","subject":"<http://ex/s>","predicate":"<http://ex/p>","object":"\"ok\""}},` +
			`{"jsonrpc":"2.0","id":2,"method":"findings.add","params":{"team":"t1","agent":"alice","subject":"<http://ex/s>","predicate":"<http://ex/p>","object":"\"` + "\xc3\x28" + `\""}}]`,
	} {
		resp, b := ts.rpcRaw("acme", body)
		var r rpcResponse
		if err := json.Unmarshal([]byte(b), &r); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%d %v: %s", resp.StatusCode, err, b)
		}
		if r.Error == nil || r.Error.Code != -32700 || r.Error.Data.Kind != "syntax" || string(r.ID) != "null" || !strings.Contains(r.Error.Message, "UTF-8") {
			t.Errorf("%q: %s, want a parse error", body, b)
		}
	}
	var fs []api.Finding
	ts.ok("acme", "findings.list", map[string]any{"team": "t1"}, &fs)
	if len(fs) != 0 {
		t.Errorf("findings after the refused calls: %+v", fs)
	}
	// U+FFFD itself, sent as UTF-8, is a character like another.
	ts.ok("acme", "findings.add", map[string]any{"team": "t1", "agent": "alice", "subject": "<http://ex/s>", "predicate": "<http://ex/p>", "object": "\"\uFFFD\""}, nil)
}

// TestRPC_FindingsImportTriplesLimit: findings.import of RDF is bounded in
// triples by the limit of results (WithMaxResults), as a Graph Store body
// is: a short Turtle collection expanding past it is refused, kind
// invalid, and nothing is imported; data at the limit is imported.
func TestRPC_FindingsImportTriplesLimit(t *testing.T) {
	ts := serve(t, server.DefaultOptions().WithMaxResults(20))
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "t1", Name: "n", Members: []api.MemberConfig{{Agent: "bob", Role: "r"}}}, nil)
	ts.ok("acme", "teams.member_status", map[string]string{"team": "t1", "agent": "bob", "status": "running"}, nil)
	list := func(n int) string {
		var b strings.Builder
		b.WriteString("<http://ex/s> <http://ex/list> (")
		for i := range n {
			fmt.Fprintf(&b, " %d", i)
		}
		b.WriteString(" ) .\n")
		return b.String()
	}
	r := ts.call("acme", "findings.import", map[string]any{"team": "t1", "agent": "bob", "format": "turtle", "data": list(10)}) // 21 triples
	if r.Error == nil || r.Error.Data.Kind != string(api.KindInvalid) || !strings.Contains(r.Error.Message, "more than 20 triples") {
		t.Fatalf("findings.import of 21 triples = %+v, want kind invalid", r)
	}
	var fs []api.Finding
	ts.ok("acme", "findings.list", map[string]any{"team": "t1", "agent": "bob"}, &fs)
	if len(fs) != 0 {
		t.Fatalf("%d findings after the refused import", len(fs))
	}
	var imported api.FindingsImported
	ts.ok("acme", "findings.import", map[string]any{"team": "t1", "agent": "bob", "format": "turtle", "data": list(9) + "<http://ex/s> <http://ex/p> \"x\" .\n"}, &imported)
	if imported.Findings != 20 {
		t.Fatalf("findings.import of 20 triples = %+v", imported)
	}
}
