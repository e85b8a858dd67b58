package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/client"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/server"
	"github.com/cortexgraph/cortex/teammanager"
)

// countingListener counts the connections it accepts.
type countingListener struct {
	net.Listener
	n atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// serveCounting serves srv on a Unix socket in a short temporary
// directory until the test ends (or stop is called) and returns the
// socket and the listener.
func serveCounting(t *testing.T, srv *server.Server, sock string) (*countingListener, func()) {
	t.Helper()
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	cl := &countingListener{Listener: l}
	sctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(sctx, cl) }()
	stop := sync.OnceFunc(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	t.Cleanup(stop)
	return cl, stop
}

func shortSocket(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cortex-cl-") // a socket path is at most 107 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "s.sock")
}

// TestStream_ConcurrentCallsShareOneConnection: 64 goroutines calling at
// once go over one connection (the stream), and every call is done.
func TestStream_ConcurrentCallsShareOneConnection(t *testing.T) {
	sock := shortSocket(t)
	l, _ := serveCounting(t, server.New(cortextest.NewStore(t), server.DefaultOptions()), sock)
	c, err := client.New("unix://"+sock, client.DefaultOptions().WithNamespace("acme"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	create(t, c, teammanager.TeamConfig{ID: "t1", Name: "n", Members: members("ann")})
	status(t, c, "t1", "ann", teammanager.Running, "")
	var wg sync.WaitGroup
	for g := range 64 {
		wg.Go(func() {
			for i := range 5 {
				if _, err := c.AddFinding(ctx, "t1", "ann", teammanager.Finding{
					Subject: iri(fmt.Sprintf("s%d-%d", g, i)), Predicate: iri("p"), Object: quad.String("o"),
				}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	fs, err := c.Findings(ctx, "t1", teammanager.FindingFilter{})
	if err != nil || len(fs) != 320 {
		t.Fatalf("Findings: %d, %v; want 320", len(fs), err)
	}
	if n := l.n.Load(); n != 1 {
		t.Errorf("%d connections for the calls, want one (the stream)", n)
	}
}

// TestStream_Off: WithRPCStream(false) sends each call as an HTTP
// request, as before streams.
func TestStream_Off(t *testing.T) {
	sock := shortSocket(t)
	srv := server.New(cortextest.NewStore(t), server.DefaultOptions())
	serveCounting(t, srv, sock)
	c, err := client.New("unix://"+sock, client.DefaultOptions().WithNamespace("acme").WithRPCStream(false))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for range 3 {
		if _, err := c.Strategies(ctx); err != nil {
			t.Fatal(err)
		}
	}
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "http://localhost/metrics", nil))
	m := rec.Body.String()
	if !strings.Contains(m, `cortex_http_requests_total{code="200",route="rpc"} 3`) || strings.Contains(m, `code="101"`) {
		t.Errorf("want 3 JSON-RPC requests and no stream:\n%s", m)
	}
}

// TestStream_FallsBackToRequests: a server that answers the request that
// opens a stream as a plain JSON-RPC POST (one without streams) gets
// every call as an HTTP request.
func TestStream_FallsBackToRequests(t *testing.T) {
	var upgrades, posts atomic.Int64
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if len(body) == 0 { // what a server without streams answers the upgrade request
			upgrades.Add(1)
			io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error"},"id":null}`)
			return
		}
		posts.Add(1)
		io.WriteString(w, `{"jsonrpc":"2.0","result":["additive"],"id":1}`)
	}))
	defer hs.Close()
	c, err := client.New(hs.URL, client.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if s, err := c.Strategies(ctx); err != nil || len(s) != 1 {
			t.Fatalf("Strategies: %v, %v", s, err)
		}
	}
	if upgrades.Load() != 1 || posts.Load() != 2 {
		t.Errorf("%d stream openings and %d requests, want 1 and 2", upgrades.Load(), posts.Load())
	}
}

// TestStream_OpensAgain: when its server stops, the client's stream
// breaks; the next call, to the server started again on the socket,
// opens a new one.
func TestStream_OpensAgain(t *testing.T) {
	sock := shortSocket(t)
	store := cortextest.NewStore(t)
	_, stop := serveCounting(t, server.New(store, server.DefaultOptions()), sock)
	c, err := client.New("unix://"+sock, client.DefaultOptions().WithNamespace("acme"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	create(t, c, teammanager.TeamConfig{ID: "t1", Name: "n", Members: members("ann")})
	stop()
	if _, err := c.GetTeam(ctx, "t1"); !errors.Is(err, api.ErrUnavailable) {
		t.Fatalf("GetTeam without a server: %v", err)
	}
	os.Remove(sock)
	serveCounting(t, server.New(store, server.DefaultOptions()), sock)
	if _, err := c.GetTeam(ctx, "t1"); err != nil {
		t.Fatalf("GetTeam from the new server: %v", err)
	}
}

// TestStream_CancelledCall: a call whose context ends returns its error
// at once and tells the server ("$/cancelRequest" with its id); the
// stream goes on serving the other calls. The server here is a stand-in
// that answers strategies.list and leaves findings.list unanswered.
func TestStream_CancelledCall(t *testing.T) {
	type line struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ID json.RawMessage `json:"id"`
		} `json:"params"`
	}
	pendingID := make(chan string, 1)
	cancelled := make(chan string, 1)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		io.WriteString(conn, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: cortex-jsonrpc\r\n\r\n")
		for {
			b, err := brw.ReadBytes('\n')
			if err != nil {
				return
			}
			var l line
			if err := json.Unmarshal(b, &l); err != nil {
				t.Errorf("%q: %v", b, err)
				return
			}
			switch l.Method {
			case "strategies.list":
				io.WriteString(conn, `{"jsonrpc":"2.0","result":["additive"],"id":`+string(l.ID)+"}\n")
			case "findings.list":
				pendingID <- string(l.ID)
			case "$/cancelRequest":
				cancelled <- string(l.Params.ID)
			}
		}
	}))
	defer hs.Close()
	c, err := client.New(hs.URL, client.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := c.Findings(cctx, "t1", teammanager.FindingFilter{})
		done <- err
	}()
	id := <-pendingID
	if _, err := c.Strategies(ctx); err != nil {
		t.Fatalf("a call while another is pending: %v", err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled call: %v", err)
	}
	if got := <-cancelled; got != id {
		t.Errorf("the server was told to cancel call %s, want %s", got, id)
	}
	if _, err := c.Strategies(ctx); err != nil {
		t.Fatalf("a call after: %v", err)
	}
}

// TestStream_DeniedOpening: a stream the server refuses for want of a
// valid token is the call's error, as a refused request is.
func TestStream_DeniedOpening(t *testing.T) {
	f := server.OpenTokens(filepath.Join(t.TempDir(), "tokens.json"))
	if _, _, err := f.Create(ctx, "acme", server.RoleRead, 0); err != nil {
		t.Fatal(err)
	}
	store := cortextest.NewStore(t, cortex.DefaultOptions())
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- server.New(store, server.DefaultOptions().WithTokens(f)).Serve(sctx, l) }()
	defer func() {
		cancel()
		<-done
	}()
	c, err := client.New("http://"+l.Addr().String(), client.DefaultOptions().WithNamespace("acme").WithToken("ctk_000000000000_"+strings.Repeat("A", 43)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Strategies(ctx); !errors.Is(err, api.ErrDenied) || api.ExitCode(err) != api.ExitDenied ||
		strings.HasPrefix(err.Error(), "{") || !strings.Contains(err.Error(), "unknown token") {
		t.Fatalf("a call with an unknown token: %v (exit %d)", err, api.ExitCode(err))
	}
}

// TestStream_BusyFallsBackForAWhile: a server at its limit of streams
// (503 busy, server.Options.WithMaxRPCStreams) gets the calls as HTTP
// requests, and a stream again once the client's wait is over and the
// server has room: a client refused once used to send HTTP requests for
// the rest of its life.
func TestStream_BusyFallsBackForAWhile(t *testing.T) {
	defer client.SetStreamBusyWait(0)()
	sock := shortSocket(t)
	srv := server.New(cortextest.NewStore(t), server.DefaultOptions().WithMaxRPCStreams(1))
	serveCounting(t, srv, sock)
	// Another client holds the only stream.
	holder, err := client.New("unix://"+sock, client.DefaultOptions().WithNamespace("acme"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := holder.Strategies(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := client.New("unix://"+sock, client.DefaultOptions().WithNamespace("acme"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if s, err := c.Strategies(ctx); err != nil || len(s) == 0 {
		t.Fatalf("Strategies with no stream free: %v, %v", s, err)
	}
	metrics := func() string {
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "http://localhost/metrics", nil))
		return rec.Body.String()
	}
	if m := metrics(); !strings.Contains(m, `cortex_http_requests_total{code="503",route="rpc"} 1`) ||
		!strings.Contains(m, `cortex_http_requests_total{code="200",route="rpc"} 1`) {
		t.Fatalf("want a stream refused busy and the call as a request:\n%s", m)
	}
	holder.Close()
	// Once the server sees the holder gone, c's calls go on a stream
	// (counted as 101 when it ends: the holder's, then c's).
	for i := 0; ; i++ {
		if _, err := c.Strategies(ctx); err != nil {
			t.Fatal(err)
		}
		c.Close()
		if m := metrics(); strings.Contains(m, `cortex_http_requests_total{code="101",route="rpc"} 2`) {
			break
		} else if i == 1000 {
			t.Fatalf("no stream after the holder left:\n%s", m)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestStream_ClosingRetriesOnce: a call that "$/closing" leaves
// unanswered is sent again on a new stream, once: if that stream closes
// without answering it too, the call fails, matching api.ErrUnavailable.
// A stream that ends without "$/closing" (cut) fails the call waiting for
// its answer, and it is not sent again: it may have run. The server is a
// stand-in that reads one call per stream and then closes the stream, as
// it is told.
func TestStream_ClosingRetriesOnce(t *testing.T) {
	for _, tc := range []struct {
		name    string
		closing bool // the stand-in says "$/closing" before it closes
		calls   int64
	}{
		{"closing", true, 2},
		{"cut", false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int64
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				conn, brw, err := http.NewResponseController(w).Hijack()
				if err != nil {
					t.Error(err)
					return
				}
				defer conn.Close()
				io.WriteString(conn, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: cortex-jsonrpc\r\n\r\n")
				if _, err := brw.ReadBytes('\n'); err != nil {
					return
				}
				calls.Add(1)
				if tc.closing {
					io.WriteString(conn, `{"jsonrpc":"2.0","method":"$/closing","params":{"reason":"shutdown"}}`+"\n")
				}
			}))
			defer hs.Close()
			c, err := client.New(hs.URL, client.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := c.Strategies(ctx); !errors.Is(err, api.ErrUnavailable) {
				t.Errorf("Strategies: %v, want api.ErrUnavailable", err)
			}
			if n := calls.Load(); n != tc.calls {
				t.Errorf("the call was sent %d times, want %d", n, tc.calls)
			}
		})
	}
}

// TestStream_CallOverServerBodyLimit: a call within the client's limit of
// a stream's line (1 MiB) but over the server's body limit
// (WithMaxBodyBytes) fails as it would as an HTTP request, with the
// server's "request body too large" (kind invalid, exit 7), not as a
// broken connection (api.ErrUnavailable), and the calls after it work.
// The server answers such a line with an error of id null and ends the
// stream; the client failed the call with the stream's EOF.
func TestStream_CallOverServerBodyLimit(t *testing.T) {
	sock := shortSocket(t)
	serveCounting(t, server.New(cortextest.NewStore(t), server.DefaultOptions().WithMaxBodyBytes(4096)), sock)
	c, err := client.New("unix://"+sock, client.DefaultOptions().WithNamespace("acme"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.CreateTeam(ctx, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateMemberStatus(ctx, "t", "a", teammanager.Running, ""); err != nil {
		t.Fatal(err)
	}
	big := teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String(strings.Repeat("x", 10000))}
	_, err = c.AddFinding(ctx, "t", "a", big)
	if errors.Is(err, api.ErrUnavailable) || !errors.Is(err, api.ErrInvalid) || api.ExitCode(err) != api.ExitInvalid || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("AddFinding over the server's body limit: %v (exit %d), want the server's \"request body too large\" (exit %d)", err, api.ExitCode(err), api.ExitInvalid)
	}
	if _, err := c.AddFinding(ctx, "t", "a", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("small")}); err != nil {
		t.Fatalf("AddFinding after: %v", err)
	}
	if fs, err := c.Findings(ctx, "t", teammanager.FindingFilter{}); err != nil || len(fs) != 1 {
		t.Fatalf("findings: %d, %v, want the small one only", len(fs), err)
	}
}
