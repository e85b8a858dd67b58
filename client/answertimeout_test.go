package client_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/client"
	"github.com/cortexgraph/cortex/server"
	"github.com/cortexgraph/cortex/teammanager"
)

// stalledListener listens on network (tcp or unix) and accepts every
// connection, reads the request on it and never answers (a stalled
// server: a deadlock, a process stopped with SIGSTOP); with opens, it
// answers a request for a JSON-RPC stream with the stream (101), then
// never answers a call on it. It returns the client target of it.
func stalledListener(t *testing.T, network string, opens bool) string {
	t.Helper()
	addr := "127.0.0.1:0"
	if network == "unix" {
		addr = filepath.Join(filepath.Dir(shortSocket(t)), "stalled.sock")
	}
	l, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go func() {
				br := bufio.NewReader(c)
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				if opens && req.Header.Get("Upgrade") != "" {
					io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: "+server.RPCStreamProtocol+"\r\n\r\n") //nolint:errcheck // the client's read says
				}
				io.Copy(io.Discard, br) //nolint:errcheck // until the test ends
			}()
		}
	}()
	if network == "unix" {
		return "unix://" + addr
	}
	return "http://" + l.Addr().String()
}

// TestClient_AnswerTimeout: a call to a server that reads the request and
// never answers fails once the answer timeout is over (ErrNoAnswer, which
// matches context.DeadlineExceeded: exit 8), over a JSON-RPC stream, as an
// HTTP request and for a query (its own timeout on top); it used to wait
// for its context, which for cortexctl never ends.
func TestClient_AnswerTimeout(t *testing.T) {
	for _, tc := range []struct {
		network string
		opens   bool // the stream opens; its calls get no answer
		stream  bool
	}{
		{"tcp", false, true}, {"tcp", true, true}, {"tcp", false, false},
		{"unix", false, true}, {"unix", true, true}, {"unix", false, false},
	} {
		target := stalledListener(t, tc.network, tc.opens)
		t.Run(fmt.Sprintf("%s/stream=%v/opens=%v", tc.network, tc.stream, tc.opens), func(t *testing.T) {
			c, err := client.New(target, client.DefaultOptions().WithRPCStream(tc.stream).WithAnswerTimeout(50*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_, err = c.CreateTeam(context.Background(), teammanager.TeamConfig{Name: "n", Members: members("a")})
			_, qerr := c.Query(context.Background(), "ASK {}", client.QueryOptions{Timeout: 10 * time.Millisecond})
			for what, err := range map[string]error{"CreateTeam": err, "Query": qerr} {
				if !errors.Is(err, client.ErrNoAnswer) || !errors.Is(err, context.DeadlineExceeded) || api.ExitCode(err) != api.ExitTimeout {
					t.Errorf("%s of a stalled server: %v (exit %d), want no answer in time (exit %d)", what, err, api.ExitCode(err), api.ExitTimeout)
				}
			}
		})
	}
}

// TestClient_AnswerTimeoutNotTheStream: the answer timeout bounds the
// beginning of an answer only: an event stream that stays open longer,
// with no event, still brings the next one.
func TestClient_AnswerTimeoutNotTheStream(t *testing.T) {
	sock := startServer(t)
	c := newClient(t, sock) // the writes: the default answer timeout
	defer c.Close()
	sub, err := client.New("unix://"+sock, client.DefaultOptions().WithNamespace("acme").WithAnswerTimeout(500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if _, err := c.CreateTeam(ctx, teammanager.TeamConfig{ID: "t1", Name: "n", Members: members("a")}); err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events, err := sub.Subscribe(sctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	idle, created := make(chan struct{}), make(chan struct{})
	defer func() { <-created }()
	go func() {
		defer close(created)
		<-idle
		time.Sleep(time.Second) // the stream idle past the answer timeout (not a timing checked)
		if _, err := c.CreateTeam(ctx, teammanager.TeamConfig{ID: "t2", Name: "n", Members: members("a")}); err != nil {
			t.Error(err)
		}
	}()
	first := true
	for ev, err := range events {
		if err != nil {
			t.Fatalf("event stream: %v", err)
		}
		if first {
			close(idle)
			first = false
		}
		if ev.Team == "t2" {
			return
		}
	}
	t.Fatal("the event stream ended")
}
