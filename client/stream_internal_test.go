package client

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/api"

	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/server"
)

// TestStream_IdleCloses: a stream without calls for the client's idle
// time is closed; the next call opens another.
func TestStream_IdleCloses(t *testing.T) {
	dir, err := os.MkdirTemp("", "cortex-cl-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
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
