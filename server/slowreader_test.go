//go:build unix

package server_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/server"
)

// TestSlowClient_MetricsResponseNotRead: a client that asks for /metrics
// and reads none of the response has its connection closed once the server
// waits past the write timeout to send a chunk of it, as for every other
// response: the request ends rather than holding its goroutine for as long
// as the client keeps the connection open.
func TestSlowClient_MetricsResponseNotRead(t *testing.T) {
	store := cortextest.NewStore(t)
	ctx := context.Background()
	// Namespaces with long names: each adds ten series of ~110 bytes to
	// the metrics, ~4 MB in all, more than the sockets hold.
	for i := 0; i < 4000; i++ {
		name := fmt.Sprintf("ns-%04d-%s", i, strings.Repeat("x", 50))
		if _, err := store.Namespace(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	ts := serveOn(t, store, server.DefaultOptions().WithWriteTimeout(200*time.Millisecond).WithIdleTimeout(time.Hour))
	c := dialSmallBuffer(t, ts)
	// No Accept-Encoding: the response is not compressed.
	if _, err := io.WriteString(c, "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	// The client reads one byte, so the request is known to be writing
	// its response (which does not fit in the sockets), then nothing:
	// the request must end on its own, leaving only the scrapes that
	// watch it (a request of the route too) in flight.
	readOneThenWait(t, ts, c, `cortex_http_requests_in_flight{route="metrics"} 1`+"\n", "the /metrics request whose response the client does not read")
}

// readOneThenWait reads one byte of c's response (so its request is known
// to be writing it), then nothing, and waits until the server's metrics
// hold inFlight (the request has ended on its own); what names the request
// in the failure (it still runs after hangGuard: no write timeout).
func readOneThenWait(t *testing.T, ts *testServer, c net.Conn, inFlight, what string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(hangGuard))
	if _, err := c.Read(make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	waitEnded(t, ts, inFlight, what)
}

// waitEnded waits until the server's metrics hold inFlight (the request
// what names has ended on its own), failing t after hangGuard.
func waitEnded(t *testing.T, ts *testServer, inFlight, what string) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !strings.Contains(ts.metricsText(), inFlight) {
		if time.Now().After(deadline) {
			t.Fatalf("%s still runs after %s: no write timeout", what, hangGuard)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// dialSmallBuffer opens a connection to ts whose receive buffer is small,
// set before it connects, so that a response of a few MB is more than
// the sockets hold while the client does not read.
func dialSmallBuffer(t *testing.T, ts *testServer) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		if err != nil {
			return err
		}
		return serr
	}}
	c, err := d.DialContext(context.Background(), "tcp", strings.TrimPrefix(ts.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// readOneByte reads a byte of a response on c: the request is writing it.
func readOneByte(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(hangGuard))
	if _, err := c.Read(make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
}

// TestSlowClient_ExplainNotRead: a client that asks for a large query
// plan (explain=true) and reads none of it neither holds the request past
// the write timeout nor, meanwhile, the turn of a query (WithMaxQueries):
// another query runs.
func TestSlowClient_ExplainNotRead(t *testing.T) {
	ts := serve(t, server.DefaultOptions().WithWriteTimeout(200*time.Millisecond).WithIdleTimeout(time.Hour).
		WithMaxQueries(1).WithQueueWait(hangGuard))
	ts.ok("acme", "teams.create", map[string]any{"id": "t1", "name": "n", "members": []map[string]any{{"agent": "a"}}}, nil)
	// A plan of ~6 MB: 300 patterns of 20 KB IRIs.
	var b strings.Builder
	b.WriteString("ASK { ")
	long := strings.Repeat("a", 20000)
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&b, "?s <http://ex/%d/%s> ?o%d . ", i, long, i)
	}
	b.WriteString("}")
	c := dialSmallBuffer(t, ts)
	q := b.String()
	if _, err := fmt.Fprintf(c, "POST /ns/acme/sparql?explain=true HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/sparql-query\r\nContent-Length: %d\r\n\r\n%s", len(q), q); err != nil {
		t.Fatal(err)
	}
	readOneByte(t, c)
	// The client reads no more: another query gets the turn.
	if resp, body := ts.do("GET", "/ns/acme/sparql?query=ASK%7B%7D", "", nil); resp.StatusCode != 200 {
		t.Fatalf("a query while a client does not read a plan: %d %s", resp.StatusCode, body)
	}
	deadline := time.Now().Add(hangGuard)
	for !strings.Contains(ts.metricsText(), `cortex_http_requests_in_flight{route="sparql"} 0`) {
		if time.Now().After(deadline) {
			t.Fatalf("the explain request whose plan the client does not read still runs after %s: no write timeout", hangGuard)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
