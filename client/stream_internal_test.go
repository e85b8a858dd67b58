package client

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/api"

	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/server"
)

// listenUnix listens on a Unix socket in a directory of its own (a short
// path: a socket's is at most 107 bytes), removed when the test ends.
func listenUnix(t *testing.T) (net.Listener, string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "cortex-cl-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	return l, sock
}

// TestStream_IdleCloses: a stream without calls for the client's idle
// time is closed; the next call opens another.
func TestStream_IdleCloses(t *testing.T) {
	l, sock := listenUnix(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.New(cortextest.NewStore(t), server.DefaultOptions()).Serve(ctx, l) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	c, err := New("unix://"+sock, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.idle = 10 * time.Millisecond
	if _, err := c.Strategies(ctx); err != nil {
		t.Fatal(err)
	}
	c.smu.Lock()
	first := c.st
	c.smu.Unlock()
	<-first.done // closed by the idle timer
	if _, err := c.Strategies(ctx); err != nil {
		t.Fatalf("a call after the stream was closed idle: %v", err)
	}
	c.smu.Lock()
	second := c.st
	c.smu.Unlock()
	if second == first || !second.usable() {
		t.Errorf("the call after did not open a new stream")
	}
}

// fakeServer accepts TCP connections on loopback, reads the request that
// opens a stream, and hands the connection and the request to serve; it
// closes the connection when serve returns.
func fakeServer(t *testing.T, serve func(conn net.Conn, req *http.Request)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
			req, err := http.ReadRequest(bufio.NewReader(conn))
			if err != nil {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				serve(conn, req)
			}()
		}
	}()
	return "http://" + l.Addr().String()
}

// TestStream_OpeningDoesNotHoldOthers: while a call waits for a stream to
// open (a server that does not answer), another call whose context ends
// returns with its context's error instead of waiting for the opening.
func TestStream_OpeningDoesNotHoldOthers(t *testing.T) {
	asked, hang := make(chan struct{}, 1), make(chan struct{})
	target := fakeServer(t, func(net.Conn, *http.Request) { // answers nothing
		asked <- struct{}{}
		<-hang
	})
	c, err := New(target, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	first := make(chan error, 1)
	go func() { first <- c.Call(context.Background(), "strategies.list", nil, nil) }()
	<-asked
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Call(ctx, "strategies.list", nil, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled call while a stream opens: %v, want context.Canceled", err)
	}
	close(hang) // the server closes the connection
	if err := <-first; !errors.Is(err, api.ErrUnavailable) {
		t.Errorf("the call whose stream never opened: %v", err)
	}
}

// TestStream_FullQueueHonoursCtx: a call whose request cannot be queued
// (the server reads nothing, the connection and the queue are full)
// returns when its context ends.
func TestStream_FullQueueHonoursCtx(t *testing.T) {
	hang := make(chan struct{})
	defer close(hang)
	target := fakeServer(t, func(conn net.Conn, _ *http.Request) {
		io.WriteString(conn, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: "+streamProtocol+"\r\n\r\n")
		<-hang // and reads nothing more
	})
	c, err := New(target, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pad := map[string]string{"pad": strings.Repeat("x", 16<<10)}
	var calls sync.WaitGroup
	defer calls.Wait()
	all, cancelAll := context.WithCancel(context.Background())
	defer cancelAll() // ends the calls below
	call := func() {
		calls.Add(1)
		go func() {
			defer calls.Done()
			c.Call(all, "strategies.list", pad, nil) //nolint:errcheck // cancelled
		}()
	}
	call()
	var st *stream
	for st == nil {
		c.smu.Lock()
		st = c.st
		c.smu.Unlock()
		runtime.Gosched()
	}
	for len(st.out) < cap(st.out) {
		call()
		time.Sleep(100 * time.Microsecond) // lets it queue: fewer calls past a full queue
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Call(ctx, "strategies.list", pad, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled call with the queue full: %v, want context.Canceled", err)
	}
}

// racingConn is a client's connection whose write of a request holding
// hold is delayed until the server's "$/closing" arrives, and made
// before the client reads that line: the request reaches a server that
// has stopped reading, as one sent at the instant the stream goes idle
// does.
type racingConn struct {
	net.Conn
	hold    []byte
	closing chan struct{} // closed when "$/closing" is read
	written chan struct{} // closed when the held request is written
	once    sync.Once
}

func (c *racingConn) Write(b []byte) (int, error) {
	if !bytes.Contains(b, c.hold) {
		return c.Conn.Write(b)
	}
	<-c.closing
	defer close(c.written)
	return c.Conn.Write(b)
}

func (c *racingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if bytes.Contains(b[:n], []byte(`"`+closingMethod+`"`)) {
		c.once.Do(func() { close(c.closing) })
		<-c.written
	}
	return n, err
}

// TestStream_CallRacingIdleClose: a call sent as the server closes its
// idle stream reaches it after it stopped reading; the server answers
// "$/closing" without running it, and the client sends it again on a new
// stream: it succeeds, and ran once.
func TestStream_CallRacingIdleClose(t *testing.T) {
	l, sock := listenUnix(t)
	srv := server.New(cortextest.NewStore(t), server.DefaultOptions().WithIdleTimeout(20*time.Millisecond))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	c, err := New("unix://"+sock, DefaultOptions().WithNamespace("acme"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.idle = time.Hour // the server closes the stream, not the client
	dial := c.dial
	var dials atomic.Int64
	c.dial = func(ctx context.Context) (net.Conn, error) {
		conn, err := dial(ctx)
		if err != nil || dials.Add(1) > 1 {
			return conn, err
		}
		return &racingConn{Conn: conn, hold: []byte(`"teams.create"`), closing: make(chan struct{}), written: make(chan struct{})}, nil
	}
	if err := c.Call(ctx, "teams.create", map[string]any{"id": "t1", "name": "n", "members": []map[string]string{{"agent": "ann"}}}, nil); err != nil {
		t.Fatalf("a call racing the idle close: %v", err)
	}
	if n := dials.Load(); n != 2 {
		t.Errorf("%d connections, want 2 (the stream closed idle, and the one the call was sent again on)", n)
	}
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "http://localhost/metrics", nil))
	var runs []string
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if strings.HasPrefix(line, `cortex_rpc_calls_total{method="teams.create"`) {
			runs = append(runs, line)
		}
	}
	if len(runs) != 1 || !strings.HasSuffix(runs[0], `outcome="ok"} 1`) {
		t.Errorf("teams.create ran: %q, want once, ok", runs)
	}
}
