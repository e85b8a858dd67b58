package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/server"
)

// graphs.list, stats.get and namespaces.delete answer what cortexctl
// graphs, stats and namespaces delete print with --json.
func TestRPC_StoreMethods(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	seed(t, ts) // graphs g1 (2 triples) and g2 (1) in acme
	var gs []api.Graph
	ts.ok("acme", "graphs.list", map[string]any{}, &gs)
	if len(gs) != 2 || gs[0].Graph == nil || *gs[0].Graph != "http://ex/g1" || gs[0].Quads != 2 || gs[1].Quads != 1 || gs[0].Name() != "<http://ex/g1>" {
		t.Fatalf("graphs.list: %+v", gs)
	}
	var st api.Stats
	ts.ok("acme", "stats.get", nil, &st)
	if st.Namespace != "acme" || st.Quads != 3 || st.Graphs != 2 || strings.Join(st.Namespaces, ",") != "acme" || st.Store == "" || st.DiskBytes <= 0 {
		t.Fatalf("stats.get: %+v", st)
	}
	var del api.NamespaceDeleted
	ts.ok("acme", "namespaces.delete", map[string]any{"name": "acme"}, &del)
	if del != (api.NamespaceDeleted{Namespace: "acme", Deleted: true}) {
		t.Fatalf("namespaces.delete: %+v", del)
	}
	for _, m := range []string{"graphs.list", "stats.get"} {
		if r := ts.call("acme", m, nil); r.Error == nil || r.Error.Data.Kind != "not_found" {
			t.Fatalf("%s after the delete: %+v %s", m, r.Error, r.Result)
		}
	}
	// A namespace created again starts empty, teams included.
	ts.ok("acme", "teams.create", map[string]any{"id": "t1", "name": "n", "members": []map[string]any{{"agent": "a"}}}, nil)
	ts.ok("acme", "graphs.list", nil, &gs)
	var teams []api.Team
	ts.ok("acme", "teams.list", nil, &teams)
	if len(teams) != 1 {
		t.Fatalf("teams after the namespace was created again: %+v", teams)
	}
}

// Hostile input to the store methods gets the errors cortexctl gives for
// it, and deletes nothing.
func TestRPC_StoreMethods_HostileInput(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	seed(t, ts)
	for _, tc := range []struct {
		name, method, params string
		kind                 string
		exit                 int
		msg                  string
	}{
		{"delete without a name", "namespaces.delete", `{}`, "usage", api.ExitUsage, `"name" is required`},
		{"delete another namespace", "namespaces.delete", `{"name":"other"}`, "usage", api.ExitUsage, "not the namespace of the request"},
		{"delete a path", "namespaces.delete", `{"name":"../acme"}`, "invalid", api.ExitInvalid, "namespace"},
		{"delete a NUL", "namespaces.delete", `{"name":"ac\u0000me"}`, "invalid", api.ExitInvalid, "namespace"},
		{"delete an empty name", "namespaces.delete", `{"name":""}`, "usage", api.ExitUsage, `"name" is required`},
		{"delete a name too long", "namespaces.delete", `{"name":"` + strings.Repeat("a", 300) + `"}`, "invalid", api.ExitInvalid, "namespace"},
		{"delete with a number", "namespaces.delete", `{"name":7}`, "usage", api.ExitUsage, "params"},
		{"delete with an unknown field", "namespaces.delete", `{"name":"acme","force":true}`, "usage", api.ExitUsage, "unknown field"},
		{"graphs with params", "graphs.list", `{"graph":"x"}`, "usage", api.ExitUsage, "unknown field"},
		{"stats with an array", "stats.get", `[1]`, "usage", api.ExitUsage, "params"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := ts.rpcRaw("acme", `{"jsonrpc":"2.0","id":1,"method":"`+tc.method+`","params":`+tc.params+`}`)
			var r rpcResponse
			if err := json.Unmarshal([]byte(body), &r); err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
			if r.Error == nil || r.Error.Data.Kind != tc.kind || r.Error.Data.ExitCode != tc.exit || !strings.Contains(r.Error.Message, tc.msg) {
				t.Fatalf("%+v %s", r.Error, r.Result)
			}
		})
	}
	// Hostile namespaces in the path are refused before any method runs.
	for _, path := range []string{"/ns/..%2Facme/rpc", "/ns/%2e%2e/rpc", "/ns/a%00b/rpc", "/ns/" + strings.Repeat("a", 300) + "/rpc"} {
		resp, body := ts.do("POST", path, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"namespaces.delete","params":{"name":"acme"}}`))
		if resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d %s", path, resp.StatusCode, body)
		}
	}
	var st api.Stats
	ts.ok("acme", "stats.get", nil, &st)
	if st.Quads != 3 {
		t.Fatalf("after the hostile requests: %+v", st)
	}
}
