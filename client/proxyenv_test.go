package client_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"sync/atomic"
	"testing"

	"github.com/cortexgraph/cortex/client"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/server"
	"github.com/cortexgraph/cortex/teammanager"
)

// proxyChildEnv names, in the environment of this test binary run again
// by TestClient_ProxyFromEnvironment, the target its client calls.
const proxyChildEnv = "CORTEX_CLIENT_TEST_PROXY_TARGET"

// TestClient_ProxyFromEnvironment: a client of an http:// target that
// the environment sends through a proxy (HTTP_PROXY, the target not in
// NO_PROXY) makes its JSON-RPC calls through the proxy, as its other
// requests: it opened its JSON-RPC stream to the target itself, which
// such a network does not reach (here: a host name no resolver knows),
// and every call failed as unavailable. The proxy's environment is read
// once per process, so the client runs in a process of its own: this test
// binary, run again.
func TestClient_ProxyFromEnvironment(t *testing.T) {
	if target := os.Getenv(proxyChildEnv); target != "" {
		c, err := client.New(target, client.DefaultOptions().WithNamespace("acme"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.CreateTeam(ctx, teammanager.TeamConfig{Name: "n", Members: members("a")}); err != nil {
			t.Fatalf("CreateTeam through HTTP_PROXY: %v", err)
		}
		if _, err := c.ListTeams(ctx, teammanager.TeamFilter{}); err != nil {
			t.Fatalf("ListTeams through HTTP_PROXY: %v", err)
		}
		return
	}
	s := cortextest.NewStore(t)
	h := server.New(s, server.DefaultOptions()).Handler()
	var proxied atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Host != "cortex.invalid:7474" {
			http.Error(w, "not proxied: "+r.URL.String(), http.StatusBadGateway)
			return
		}
		proxied.Add(1)
		// The proxy and the server in one: the server answers a server
		// on loopback by name as localhost only.
		r.Host = "localhost"
		h.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestClient_ProxyFromEnvironment$", "-test.count=1")
	cmd.Env = append(os.Environ(), proxyChildEnv+"=http://cortex.invalid:7474",
		"HTTP_PROXY="+proxy.URL, "http_proxy="+proxy.URL, "NO_PROXY=", "no_proxy=", "REQUEST_METHOD=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the client behind HTTP_PROXY: %v\n%s", err, out)
	}
	if proxied.Load() < 2 {
		t.Fatalf("the proxy carried %d requests, want the client's 2 calls\n%s", proxied.Load(), out)
	}
}
