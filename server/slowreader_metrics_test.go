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
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		if err != nil {
			return err
		}
		return serr
	}}
	c, err := d.DialContext(ctx, "tcp", strings.TrimPrefix(ts.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// No Accept-Encoding: the response is not compressed.
	if _, err := io.WriteString(c, "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	// The client reads one byte, so the request is known to be writing
	// its response (which does not fit in the sockets), then nothing:
	// the request must end on its own, leaving only the scrapes that
	// watch it (a request of the route too) in flight.
	c.SetReadDeadline(time.Now().Add(hangGuard))
	if _, err := c.Read(make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(hangGuard)
	for {
		if strings.Contains(ts.metricsText(), `cortex_http_requests_in_flight{route="metrics"} 1`+"\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the /metrics request whose response the client does not read still runs after %s: no write timeout", hangGuard)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
