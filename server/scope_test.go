package server_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/server"
)

// TestAuth_ListingsScopedToTheTokensNamespace: namespaces.list and
// stats.get name the namespaces a request may learn of: every one for a
// request let in without a token (here, a loopback server with no token
// yet), only its own for a token, an admin token included (which needs
// admin for them). An admin token of alpha saw beta's name and size.
func TestAuth_ListingsScopedToTheTokensNamespace(t *testing.T) {
	f := tokenFile(t)
	ts := serve(t, server.DefaultOptions().WithTokens(f))
	for _, ns := range []string{"alpha", "beta", "gamma"} {
		if resp, body := ts.rpcAs(ns, "teams.create", `{"id":"t1","name":"n","members":[{"agent":"x"}]}`); resp.StatusCode != http.StatusOK || strings.Contains(body, `"error"`) {
			t.Fatalf("teams.create in %s: %d %s", ns, resp.StatusCode, body)
		}
	}
	names := func(header ...string) (listed, stats []string) {
		t.Helper()
		var r struct {
			Result json.RawMessage `json:"result"`
			Error  any             `json:"error"`
		}
		for _, method := range []string{"namespaces.list", "stats.get"} {
			resp, body := ts.rpcAs("alpha", method, `{}`, header...)
			if err := json.Unmarshal([]byte(body), &r); resp.StatusCode != http.StatusOK || err != nil || r.Error != nil {
				t.Fatalf("%s: %d %s", method, resp.StatusCode, body)
			}
			if method == "stats.get" {
				var st api.Stats
				if err := json.Unmarshal(r.Result, &st); err != nil {
					t.Fatal(err)
				}
				stats = st.Namespaces
				continue
			}
			var ns []api.Namespace
			if err := json.Unmarshal(r.Result, &ns); err != nil {
				t.Fatal(err)
			}
			listed = []string{}
			for _, n := range ns {
				listed = append(listed, n.Name)
			}
		}
		return listed, stats
	}
	all := []string{"alpha", "beta", "gamma"}
	if listed, stats := names(); !reflect.DeepEqual(listed, all) || !reflect.DeepEqual(stats, all) {
		t.Fatalf("without tokens: namespaces.list %v, stats.get %v, want %v for both", listed, stats, all)
	}
	adminAlpha, _ := mint(t, f, "alpha", server.RoleAdmin, 0)
	if listed, stats := names(bearer(adminAlpha)...); !reflect.DeepEqual(listed, []string{"alpha"}) || !reflect.DeepEqual(stats, []string{"alpha"}) {
		t.Errorf("an admin token of alpha: namespaces.list %v, stats.get %v, want [alpha] for both", listed, stats)
	}
	// The roles stay as documented: a write token of alpha may not list.
	writeAlpha, _ := mint(t, f, "alpha", server.RoleWrite, 0)
	for _, method := range []string{"namespaces.list", "stats.get"} {
		if resp, body := ts.rpcAs("alpha", method, `{}`, bearer(writeAlpha)...); resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s with a write token: %d %s, want 403", method, resp.StatusCode, body)
		}
	}
}

// TestMetrics_DeletedNamespaceForgotten: namespaces.delete drops the
// namespace's series from /metrics; cortex_merges_total kept one for
// every namespace ever merged in, deleted or not, for the server's life.
func TestMetrics_DeletedNamespaceForgotten(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "t1", Name: "n", Members: []api.MemberConfig{{Agent: "alice"}}}, nil)
	for _, status := range []string{"running", "completed"} { // the last member done: a merge
		ts.ok("acme", "teams.member_status", map[string]string{"team": "t1", "agent": "alice", "status": status}, nil)
	}
	_, body := ts.do("GET", "/metrics", "", nil)
	if !strings.Contains(body, `cortex_merges_total{namespace="acme"} 1`) {
		t.Fatalf("no merge counted in acme:\n%s", body)
	}
	ts.ok("acme", "namespaces.delete", map[string]string{"name": "acme"}, nil)
	if _, body = ts.do("GET", "/metrics", "", nil); strings.Contains(body, `namespace="acme"`) {
		t.Fatalf("metrics of deleted namespace acme:\n%s", body)
	}
}
