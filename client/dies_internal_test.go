package client

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/api"
)

// TestCall_ServerDiesMidAnswer: a server that dies while it answers a
// call (its answer cut short, on a stream or in an HTTP response) is an
// unavailable server whose message says so and that the call may have
// run: it said "EOF" or "unexpected EOF" alone.
func TestCall_ServerDiesMidAnswer(t *testing.T) {
	for _, stream := range []bool{true, false} {
		target := fakeServer(t, func(conn net.Conn, req *http.Request) {
			if stream {
				io.WriteString(conn, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: cortex-jsonrpc\r\n\r\n")
				buf := make([]byte, 4096)
				if _, err := conn.Read(buf); err != nil { // the call
					return
				}
				io.WriteString(conn, `{"jsonrpc":"2.0","id":1,"result":[{"id":"t`)
				return
			}
			io.Copy(io.Discard, req.Body)
			io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"+`{"jsonrpc":"2.0","id":1,"result":[`)
		})
		c, err := New(target, DefaultOptions().WithRPCStream(stream))
		if err != nil {
			t.Fatal(err)
		}
		err = c.Call(context.Background(), "teams.list", nil, nil)
		if !errors.Is(err, api.ErrUnavailable) || !strings.Contains(err.Error(), "before its answer was whole") || !strings.Contains(err.Error(), "may have run") {
			t.Errorf("stream %v: a call whose answer is cut short: %v, want an unavailable server that says so", stream, err)
		}
		c.Close()
	}
}
