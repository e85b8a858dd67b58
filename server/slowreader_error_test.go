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

// TestSlowClient_ErrorResponseNotRead: a client that sends a body whose
// error names a large part of it (a Turtle prefix of megabytes that is not
// defined) and reads none of the error has its connection closed once the
// server waits past the write timeout to send a chunk of it, as for every
// other response: the request ends rather than holding its goroutine and
// the message for as long as the client keeps the connection open.
func TestSlowClient_ErrorResponseNotRead(t *testing.T) {
	ts := serve(t, server.DefaultOptions().WithWriteTimeout(200*time.Millisecond).WithIdleTimeout(time.Hour))
	// The ~4 MB message is more than the sockets hold.
	body := strings.Repeat("p", 4<<20) + ":s <http://example.org/p> <http://example.org/o> .\n"
	c := dialSmallBuffer(t, ts)
	if _, err := io.WriteString(c, fmt.Sprintf("PUT /ns/acme/data?graph=http://example.org/g HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/turtle\r\nContent-Length: %d\r\n\r\n%s", len(body), body)); err != nil {
		t.Fatal(err)
	}
	// The client reads one byte, so the request is known to be writing
	// its error (which does not fit in the sockets), then nothing: the
	// request must end on its own.
	readOneThenWait(t, ts, c, `cortex_http_requests_in_flight{route="data"} 0`, "the request whose error the client does not read")
}
