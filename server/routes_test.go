package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/server"
)

// TestRoutes_MethodNotAllowed: a method a route does not serve is 405 with
// the methods it does serve in Allow (RFC 9110, 15.5.6), in the format of
// every other error; a path that is not a route stays 404.
func TestRoutes_MethodNotAllowed(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	for _, tc := range []struct{ method, path, allow string }{
		{"GET", "/ns/acme/rpc", "POST"},
		{"HEAD", "/ns/acme/rpc", "POST"},
		{"PUT", "/ns/acme/sparql?query=ASK{}", "GET, POST, HEAD"},
		{"DELETE", "/ns/acme/sparql", "GET, POST, HEAD"},
		{"OPTIONS", "/ns/acme/sparql", "GET, POST, HEAD"},
		{"PATCH", "/ns/acme/data?default", "GET, PUT, POST, DELETE, HEAD"},
		{"GET", "/ns/acme/import", "POST"},
		{"POST", "/ns/acme/export", "GET, HEAD"},
		{"POST", "/ns/acme/events", "GET, HEAD"},
		{"POST", "/healthz", "GET, HEAD"},
		{"DELETE", "/metrics", "GET, HEAD"},
	} {
		resp, body := ts.do(tc.method, tc.path, "", nil)
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != tc.allow || resp.Header.Get("Cortex-Error-Kind") != "usage" {
			t.Errorf("%s %s: %d Allow %q kind %q %q, want 405 Allow %q kind usage", tc.method, tc.path, resp.StatusCode,
				resp.Header.Get("Allow"), resp.Header.Get("Cortex-Error-Kind"), body, tc.allow)
		}
		if tc.method != "HEAD" && !strings.Contains(body, "method not allowed") {
			t.Errorf("%s %s: message %q", tc.method, tc.path, body)
		}
	}
	for _, p := range []string{"/ns/acme/nope", "/ns/acme/rpc/x", "/other"} {
		if resp, body := ts.do("POST", p, "", nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("POST %s: %d %s, want 404", p, resp.StatusCode, body)
		}
	}
}
