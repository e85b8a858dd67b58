package server_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/server"
)

// hangGuard bounds how long a test waits for the server to close a
// connection: a server that never does fails the test instead of hanging
// it. It is no threshold of the behaviour tested.
const hangGuard = 30 * time.Second

// dial opens a raw connection to ts.
func (ts *testServer) dial() net.Conn {
	ts.t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(ts.url, "http://"))
	if err != nil {
		ts.t.Fatal(err)
	}
	ts.t.Cleanup(func() { c.Close() })
	return c
}

// dribble writes s to c one byte at a time, then (if forever) a header
// line without end, until c fails or stop is closed.
func dribble(c net.Conn, s string, forever bool, stop <-chan struct{}) {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for i := 0; forever || i < len(s); i++ {
		b := byte('a')
		if i < len(s) {
			b = s[i]
		}
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		if _, err := c.Write([]byte{b}); err != nil {
			return
		}
	}
}

// dribbled sends head on a new connection, then body a byte at a time
// and 'a's after it (dribble, forever), and returns the response's status
// and body.
func (ts *testServer) dribbled(t *testing.T, head, body string) (int, string) {
	t.Helper()
	c := ts.dial()
	io.WriteString(c, head)
	stop := make(chan struct{})
	defer close(stop)
	go dribble(c, body, true, stop)
	c.SetReadDeadline(time.Now().Add(hangGuard))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no response: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// closedByServer reads c (and drops what it reads) until the server
// closes it; it fails the test if the server never does.
func closedByServer(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(hangGuard))
	_, err := io.Copy(io.Discard, c)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the server did not close the connection")
	}
}

// Headers sent a byte at a time: the connection is closed once the read
// header timeout passes, and other clients are served meanwhile.
func TestSlowClient_HeadersDribbled(t *testing.T) {
	ts := serve(t, server.DefaultOptions().WithReadHeaderTimeout(200*time.Millisecond))
	c := ts.dial()
	stop := make(chan struct{})
	defer close(stop)
	go dribble(c, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ", true, stop)
	if resp, body := ts.do("GET", "/healthz", "", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("another client: %d %s", resp.StatusCode, body)
	}
	ts.ok("acme", "teams.create", map[string]any{"id": "t1", "name": "n", "members": []map[string]any{{"agent": "a"}}}, nil)
	closedByServer(t, c)
}

// A body sent a byte at a time fails the request with 408 once the body
// timeout passes, and writes nothing.
func TestSlowClient_BodyDribbled(t *testing.T) {
	ts := serve(t, server.DefaultOptions().WithBodyTimeout(200*time.Millisecond))
	for _, tc := range []struct{ name, path, ct, body string }{
		{"graph store", "/ns/acme/data?graph=http%3A%2F%2Fex%2Fg", "application/n-triples", "<http://ex/a> <http://ex/p> \"1\" .\n"},
		{"rpc", "/ns/acme/rpc", "application/json", `{"jsonrpc":"2.0","id":1,"method":"teams.create","params":{"id":"t1","name":"n","members":[{"agent":"a"}]}}`},
		{"sparql", "/ns/acme/sparql", "application/sparql-query", "ASK { ?s ?p ?o }"},
		// The timeout comes in the headers of a part: it used to be 400,
		// a syntax error of the multipart body.
		{"graph store multipart", "/ns/acme/data?graph=http%3A%2F%2Fex%2Fg", "multipart/form-data; boundary=XX", "--XX\r\nContent-Type: application/n-triples\r\nX-Long: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The body is announced longer than sent: the server waits
			// for the rest.
			code, b := ts.dribbled(t, fmt.Sprintf("POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", tc.path, tc.ct, len(tc.body)+1000), tc.body)
			if code != http.StatusRequestTimeout || !strings.Contains(b, "did not arrive within 200ms") {
				t.Fatalf("%d %s", code, b)
			}
		})
	}
	if resp, body := ts.do("GET", "/ns/acme/data?graph=http%3A%2F%2Fex%2Fg", "", nil); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the graph of a dribbled upload: %d %s", resp.StatusCode, body)
	}
	if r := ts.call("acme", "teams.get", map[string]any{"team": "t1"}); r.Error == nil {
		t.Fatalf("the team of a dribbled request exists: %s", r.Result)
	}
}

// A request whose headers exceed the limit is answered 431.
func TestSlowClient_OversizedHeaders(t *testing.T) {
	ts := serve(t, server.DefaultOptions().WithMaxHeaderBytes(4<<10))
	c := ts.dial()
	fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: %s\r\n\r\n", strings.Repeat("a", 64<<10))
	c.SetReadDeadline(time.Now().Add(hangGuard))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("status %d, want 431", resp.StatusCode)
	}
	// Headers within the limit are served.
	if resp, body := ts.do("GET", "/healthz", "", nil, "X-Small", strings.Repeat("a", 1<<10)); resp.StatusCode != http.StatusOK {
		t.Fatalf("small headers: %d %s", resp.StatusCode, body)
	}
}

// A kept-alive connection that sends no next request is closed after the
// idle timeout.
func TestSlowClient_IdleConnectionClosed(t *testing.T) {
	ts := serve(t, server.DefaultOptions().WithIdleTimeout(200*time.Millisecond))
	c := ts.dial()
	fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
	r := bufio.NewReader(c)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("status %d, close %v", resp.StatusCode, resp.Close)
	}
	closedByServer(t, c)
}

// TestSlowClient_GraphStoreBodyCutInAToken: a Graph Store body whose
// timeout passes in the middle of a Turtle token (an IRI, a literal) is
// 408 as any other, not the 400 of the syntax error the cut text makes
// ("unterminated IRI"), and writes nothing.
func TestSlowClient_GraphStoreBodyCutInAToken(t *testing.T) {
	ts := serve(t, server.DefaultOptions().WithBodyTimeout(200*time.Millisecond))
	const g = "/ns/acme/data?graph=http%3A%2F%2Fex%2Fg"
	for _, tc := range []struct{ name, ct, body string }{
		// dribble goes on with 'a's: the timeout comes inside the token.
		{"turtle IRI", "text/turtle", "<http://ex/a> <http://ex/"},
		{"turtle literal", "text/turtle", "<http://ex/a> <http://ex/p> \""},
		{"n-triples literal", "application/n-triples", "<http://ex/a> <http://ex/p> \""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, b := ts.dribbled(t, fmt.Sprintf("PUT %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: %s\r\nContent-Length: 100000\r\n\r\n", g, tc.ct), tc.body)
			if code != http.StatusRequestTimeout || !strings.Contains(b, "did not arrive within 200ms") {
				t.Errorf("%d %s, want 408", code, b)
			}
		})
	}
	if resp, body := ts.do("GET", g, "", nil); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the graph of the cut uploads: %d %s", resp.StatusCode, body)
	}
}
