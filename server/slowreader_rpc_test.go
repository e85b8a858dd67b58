//go:build unix

package server_test

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/server"
)

// TestSlowClient_RPCResponseNotRead: a client that asks for a large
// JSON-RPC result and reads none of it has its connection closed once the
// server waits past the write timeout to send a chunk of it, as for a
// SPARQL or Graph Store response: the request ends (counted in the
// metrics) rather than holding its goroutine and its result for as long
// as the client keeps the connection open.
func TestSlowClient_RPCResponseNotRead(t *testing.T) {
	ts := serve(t, server.DefaultOptions().WithWriteTimeout(200*time.Millisecond).WithIdleTimeout(time.Hour))
	ts.ok("acme", "teams.create", map[string]any{"id": "t1", "name": "n", "members": []map[string]string{{"agent": "a"}}}, nil)
	ts.ok("acme", "teams.member_status", map[string]string{"team": "t1", "agent": "a", "status": "running"}, nil)
	big := strings.Repeat("x", 64<<10)
	for b := 0; b < 4; b++ {
		var fs []map[string]string
		for i := 0; i < 40; i++ {
			fs = append(fs, map[string]string{"subject": fmt.Sprintf("<http://example.org/s/%d/%d>", b, i), "predicate": "<http://example.org/p>", "object": big})
		}
		ts.ok("acme", "findings.add_batch", map[string]any{"team": "t1", "agent": "a", "findings": fs}, nil)
	}
	// The ~10 MB result is more than the sockets hold.
	c := dialSmallBuffer(t, ts)
	body := `{"jsonrpc":"2.0","id":1,"method":"findings.list","params":{"team":"t1"}}`
	if _, err := io.WriteString(c, fmt.Sprintf("POST /ns/acme/rpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)); err != nil {
		t.Fatal(err)
	}
	// The client reads nothing: the request, once it runs, must end on
	// its own.
	waitInFlight(t, ts.url, "rpc")
	waitEnded(t, ts, `cortex_http_requests_in_flight{route="rpc"} 0`, "the request whose large result the client does not read")
}

func (ts *testServer) metricsText() string {
	ts.t.Helper()
	_, b := ts.do("GET", "/metrics", "", nil)
	return b
}
