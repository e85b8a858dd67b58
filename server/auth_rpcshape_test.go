package server_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/server"
)

// TestAuth_RPCRefusalsAreJSONRPC: every refusal of a request to
// /ns/{ns}/rpc before its calls run (no, malformed, unknown, expired or
// revoked token, several Authorization headers: 401 with
// WWW-Authenticate; another namespace's token, a browser's cross-origin
// POST: 403; GET: 405; an invalid namespace: 400) is a JSON-RPC error
// object with id null, its data the exit code and kind, with the HTTP
// status and the Cortex-Error-Kind and Cortex-Exit-Code headers; the
// same refusals of the SPARQL, Graph Store and events routes are text,
// with the same status and headers. A token of another namespace got a
// plain-text 403 on rpc, and a JSON-RPC client could not read it.
func TestAuth_RPCRefusalsAreJSONRPC(t *testing.T) {
	f := tokenFile(t)
	now := time.Now()
	clock := func() time.Time { return now }
	ts := serve(t, server.WithClock(server.DefaultOptions().WithTokens(f), clock))
	good, _ := mint(t, f, "a", server.RoleAdmin, 0)
	other, _ := mint(t, f, "b", server.RoleAdmin, 0)
	expiring, _ := mint(t, f, "a", server.RoleAdmin, time.Minute)
	revoked, rec := mint(t, f, "a", server.RoleAdmin, 0)
	if _, err := f.Revoke(context.Background(), "a", rec.ID); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Hour) // expiring has expired
	if resp, body := ts.rpcAs("a", "teams.list", `{}`, bearer(good)...); resp.StatusCode != 200 {
		t.Fatalf("the good token: %d %s", resp.StatusCode, body)
	}
	const call = `{"jsonrpc":"2.0","id":1,"method":"teams.list","params":{}}`
	for _, tc := range []struct {
		name   string
		method string
		path   string
		header []string
		status int
		kind   string
		exit   int
	}{
		{"no token", "POST", "/ns/a/rpc", nil, 401, "denied", 10},
		{"malformed token", "POST", "/ns/a/rpc", []string{"Authorization", "Basic abc"}, 401, "denied", 10},
		{"unknown token", "POST", "/ns/a/rpc", bearer("nope"), 401, "denied", 10},
		{"expired token", "POST", "/ns/a/rpc", bearer(expiring), 401, "denied", 10},
		{"revoked token", "POST", "/ns/a/rpc", bearer(revoked), 401, "denied", 10},
		{"another namespace's token", "POST", "/ns/a/rpc", bearer(other), 403, "denied", 10},
		{"cross-origin", "POST", "/ns/a/rpc", append(bearer(good), "Sec-Fetch-Site", "cross-site"), 403, "denied", 10},
		{"GET", "GET", "/ns/a/rpc", bearer(good), 405, "usage", 2},
		{"invalid namespace", "POST", "/ns/a%20b/rpc", bearer(good), 400, "invalid", 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := ts.do(tc.method, tc.path, "application/json", strings.NewReader(call), tc.header...)
			var r rpcResponse
			if err := json.Unmarshal([]byte(body), &r); err != nil || r.Error == nil || r.JSONRPC != "2.0" || string(r.ID) != "null" {
				t.Fatalf("%d %q: want a JSON-RPC error object with id null (%v)", resp.StatusCode, body, err)
			}
			if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != "application/json" ||
				r.Error.Data.Kind != tc.kind || r.Error.Data.ExitCode != tc.exit || r.Error.Code != -32000-tc.exit && tc.kind != "usage" ||
				resp.Header.Get("Cortex-Error-Kind") != tc.kind || resp.Header.Get("Cortex-Exit-Code") != strconv.Itoa(tc.exit) {
				t.Errorf("%d %v %s: want %d, kind %s, exit %d", resp.StatusCode, resp.Header, body, tc.status, tc.kind, tc.exit)
			}
			if (tc.status == 401) != (resp.Header.Get("WWW-Authenticate") != "") {
				t.Errorf("%d with WWW-Authenticate %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
			}
			if tc.method == "GET" {
				return
			}
			// The other routes: text, with the same status and headers.
			for _, path := range []string{strings.Replace(tc.path, "/rpc", "/sparql?query=ASK%7B%7D", 1), strings.Replace(tc.path, "/rpc", "/data?default", 1), strings.Replace(tc.path, "/rpc", "/events", 1)} {
				method := "GET"
				if strings.Contains(tc.name, "cross-origin") {
					method = "DELETE" // a GET is no write: a browser may send it
				}
				resp, body := ts.do(method, path, "", nil, tc.header...)
				if resp.StatusCode != tc.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") ||
					resp.Header.Get("Cortex-Error-Kind") != tc.kind || resp.Header.Get("Cortex-Exit-Code") != strconv.Itoa(tc.exit) {
					t.Errorf("%s %s: %d %v %q: want text, %d, kind %s", method, path, resp.StatusCode, resp.Header, body, tc.status, tc.kind)
				}
			}
		})
	}
}
