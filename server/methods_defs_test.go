package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/server"
)

// rpcError is the error of a JSON-RPC response, with the names of the
// sentinel errors its data gives.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    struct {
		ExitCode int      `json:"exitCode"`
		Kind     string   `json:"kind"`
		Errors   []string `json:"errors"`
	} `json:"data"`
}

// rpcFails calls method with params (JSON) in ns, which must fail, and
// returns its error.
func (ts *testServer) rpcFails(ns, method, params string, header ...string) rpcError {
	ts.t.Helper()
	_, body := ts.rpcAs(ns, method, params, header...)
	var r struct {
		Error *rpcError `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil || r.Error == nil {
		ts.t.Fatalf("%s %s: want an error, got %v %s", method, params, err, body)
	}
	return *r.Error
}

// TestRPC_DefsMalformedNames: defs.get, defs.export and defs.delete of a
// name no definition has are not found (exit 3, "unknown_definition"); of
// one none can have (blank, a control character, an agent's "a//b"),
// invalid (exit 7, "invalid_id" and "unknown_definition"), and delete
// nothing.
func TestRPC_DefsMalformedNames(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("default", "defs.import", map[string]any{"files": []map[string]any{
		{"path": "pm.md", "data": "---\nname: pm\n---\nplans\n"},
		{"path": "qa/unit.md", "namespace": "qa", "inDir": true, "data": "---\nname: unit\n---\ntests\n"},
	}}, nil)
	for _, method := range []string{"defs.get", "defs.export", "defs.delete"} {
		for _, tc := range []struct {
			params, kind string
			code         int
			errors       string
		}{
			{`{"name":"nope"}`, "not_found", 3, "[unknown_definition]"},
			{`{"name":"qa//unit"}`, "not_found", 3, "[unknown_definition]"},
			{`{"name":" "}`, "invalid", 7, "[invalid_id unknown_definition]"},
			{`{"name":"pm\n"}`, "invalid", 7, "[invalid_id unknown_definition]"},
			{`{"name":"qa//unit","kind":"agent"}`, "invalid", 7, "[invalid_id unknown_definition]"},
			{`{"name":"qa/","kind":"agent"}`, "invalid", 7, "[invalid_id unknown_definition]"},
		} {
			e := ts.rpcFails("default", method, tc.params)
			if e.Data.Kind != tc.kind || e.Data.ExitCode != tc.code || e.Code != -32000-tc.code || fmt.Sprint(e.Data.Errors) != tc.errors {
				t.Errorf("%s %s: %+v, want kind %s, exit %d, errors %s", method, tc.params, e, tc.kind, tc.code, tc.errors)
			}
		}
	}
	var list []map[string]any
	ts.ok("default", "defs.list", map[string]any{}, &list)
	if len(list) != 2 {
		t.Errorf("refused calls changed the definitions: %v", list)
	}
}

// TestAuth_TokensRevokeMalformedID: tokens.revoke of an id no token has is
// not found (3); of one no token can have (not 12 lower-case hexadecimal
// digits), invalid (7, "invalid_id"); neither revokes anything.
func TestAuth_TokensRevokeMalformedID(t *testing.T) {
	f := tokenFile(t)
	ts := serve(t, server.DefaultOptions().WithTokens(f))
	admin, rec := mint(t, f, "a", server.RoleAdmin, 0)
	for _, tc := range []struct {
		id, kind string
		code     int
		errors   string
	}{
		{"000000000000", "not_found", 3, "[]"},
		{"zz", "invalid", 7, "[invalid_id]"},
		{strings.Repeat("0", 13), "invalid", 7, "[invalid_id]"},
		{"ABCDEF012345", "invalid", 7, "[invalid_id]"},
		{rec.ID + "\n", "invalid", 7, "[invalid_id]"},
	} {
		p, _ := json.Marshal(map[string]string{"id": tc.id})
		e := ts.rpcFails("a", "tokens.revoke", string(p), bearer(admin)...)
		if e.Data.Kind != tc.kind || e.Data.ExitCode != tc.code || fmt.Sprint(e.Data.Errors) != tc.errors {
			t.Errorf("tokens.revoke %q: %+v, want kind %s, exit %d, errors %s", tc.id, e, tc.kind, tc.code, tc.errors)
		}
	}
	if _, err := f.Authenticate(admin, rec.Created); err != nil {
		t.Errorf("a refused revoke revoked the token: %v", err)
	}
}
