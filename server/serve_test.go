package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	stdlog "log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/server"
)

func TestHealthAndMetrics(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	if resp, body := ts.do("GET", "/healthz", "", nil); resp.StatusCode != 200 || body != "ok\n" {
		t.Fatalf("healthz: %d %q", resp.StatusCode, body)
	}
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "t1", Name: "n", Members: []api.MemberConfig{{Agent: "alice", Role: "lead"}}}, nil)
	ts.ok("acme", "teams.member_status", map[string]string{"team": "t1", "agent": "alice", "status": "running"}, nil)
	ts.ok("acme", "findings.add", map[string]any{"team": "t1", "agent": "alice", "subject": "<http://ex/s>", "predicate": "<http://ex/p>", "object": "o"}, nil)
	ts.ok("acme", "teams.member_status", map[string]string{"team": "t1", "agent": "alice", "status": "completed"}, nil)
	if r := ts.call("acme", "teams.get", map[string]string{"team": "zz"}); r.Error == nil {
		t.Fatal("teams.get zz succeeded")
	}
	ts.do("GET", "/ns/ghost/sparql?query=ASK{}", "", nil)
	resp, body := ts.do("GET", "/metrics", "", nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("metrics: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for _, want := range []string{
		`cortex_http_requests_total{code="200",route="rpc"} 5`,
		`cortex_http_requests_total{code="404",route="sparql"} 1`,
		`cortex_http_requests_total{code="200",route="healthz"} 1`,
		`cortex_http_request_duration_seconds_count{route="rpc"} 5`,
		`cortex_http_request_duration_seconds_bucket{route="rpc",le="+Inf"} 5`,
		`cortex_rpc_calls_total{method="teams.member_status",outcome="ok"} 2`,
		`cortex_rpc_calls_total{method="teams.get",outcome="not_found"} 1`,
		`cortex_merges_total{namespace="acme"} 1`,
		`# TYPE cortex_store_disk_bytes gauge`,
		`cortex_namespace_quads{namespace="acme"} `,
		`# TYPE cortex_namespace_write_lock_wait_seconds_total counter`,
		`# TYPE cortex_namespace_write_lock_waiting gauge`,
		`cortex_namespace_write_lock_waiting{namespace="acme"} 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	// The writes of the calls above: a team, two member updates, a finding
	// and the merge, each a delta of quads and keys under the write lock.
	for name, least := range map[string]float64{
		"cortex_namespace_deltas_total": 5, "cortex_namespace_delta_quads_total": 5, "cortex_namespace_delta_entries_total": 25,
		"cortex_namespace_write_lock_acquisitions_total": 5, "cortex_namespace_write_lock_held_seconds_total": 1e-9,
	} {
		if v := metricValue(t, body, name+`{namespace="acme"}`); v < least {
			t.Errorf("%s of acme is %v, want at least %v", name, v, least)
		}
	}
	if t.Failed() {
		t.Log(body)
	}
}

// acceptSignal is a listener that says when it has accepted a connection.
type acceptSignal struct {
	net.Listener
	accepted chan struct{}
}

func (l *acceptSignal) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		select {
		case l.accepted <- struct{}{}:
		default:
		}
	}
	return c, err
}

// TestServe_GracefulShutdown: a request in flight when the context ends
// is finished (its write done and answered), new connections are refused,
// and Serve returns nil.
func TestServe_GracefulShutdown(t *testing.T) {
	store := cortextest.NewStore(t)
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &acceptSignal{Listener: inner, accepted: make(chan struct{}, 1)}
	addr := "http://" + inner.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	srv := server.New(store, server.DefaultOptions())
	go func() { done <- srv.Serve(ctx, l) }()

	pr, pw := io.Pipe()
	req, err := http.NewRequest("PUT", addr+"/ns/acme/data?graph=http%3A%2F%2Fex%2Fg", pr)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/n-triples")
	type result struct {
		code int
		err  error
	}
	res := make(chan result, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			res <- result{err: err}
			return
		}
		resp.Body.Close()
		res <- result{code: resp.StatusCode}
	}()
	if _, err := pw.Write([]byte("<http://ex/a> <http://ex/p> \"1\" .\n")); err != nil {
		t.Fatal(err)
	}
	<-l.accepted
	// A request whose handler has not started when the shutdown begins is
	// not served (net/http drops it): wait for the handler.
	waitInFlight(t, addr, "data")
	cancel() // the shutdown starts with the request half sent
	if _, err := pw.Write([]byte("<http://ex/b> <http://ex/p> \"2\" .\n")); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	r := <-res
	if r.err != nil || r.code != http.StatusCreated {
		t.Fatalf("request in flight at shutdown: %d %v", r.code, r.err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if _, err := http.Get(addr + "/healthz"); err == nil {
		t.Fatal("a request after the shutdown was answered")
	}
	n, err := store.OpenNamespace(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	if size, err := n.Size(context.Background()); err != nil || size != 2 {
		t.Fatalf("quads written by the request in flight: %d, %v; want 2", size, err)
	}
}

// TestServe_ShutdownCutsRequestNotStreams: a request still in flight when
// the shutdown timeout ends is cut, and the log says so; with no JSON-RPC
// stream open it does not also say that streams were cut (it did about
// every other time: the expired timeout and the streams' end raced).
func TestServe_ShutdownCutsRequestNotStreams(t *testing.T) {
	store := cortextest.NewStore(t)
	for i := range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := "http://" + l.Addr().String()
		var log strings.Builder
		ctx, cancel := context.WithCancel(context.Background())
		srv := server.New(store, server.DefaultOptions().WithShutdownTimeout(time.Millisecond).
			WithLogger(stdlog.New(&log, "", 0)))
		done := make(chan error, 1)
		go func() { done <- srv.Serve(ctx, l) }()
		pr, pw := io.Pipe()
		sent := make(chan struct{})
		go func() {
			defer close(sent)
			resp, err := http.Post(addr+"/ns/acme/data?default", "application/n-triples", pr)
			if err == nil {
				resp.Body.Close()
			}
		}()
		if _, err := pw.Write([]byte("<http://ex/a> <http://ex/p> \"1\" .\n")); err != nil {
			t.Fatal(err)
		}
		waitInFlight(t, addr, "data")
		cancel() // the body never ends: the request outlives the shutdown timeout
		if err := <-done; err != nil {
			t.Fatalf("Serve: %v", err)
		}
		pw.Close()
		<-sent
		if got := log.String(); !strings.Contains(got, "requests still running") || strings.Contains(got, "streams") {
			t.Fatalf("shutdown %d logged %q; want requests cut, no streams", i, got)
		}
	}
}

// waitInFlight waits until the server at addr answers a request of route
// (cortex_http_requests_in_flight).
func waitInFlight(t *testing.T, addr, route string) {
	t.Helper()
	want := `cortex_http_requests_in_flight{route="` + route + `"} 1`
	for {
		resp, err := http.Get(addr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), want) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// TestDiscovery_Copy: the discovery file of a copied store directory
// names the directory it was written for, so the copy is not taken for
// the served store (its commands, writes included, would go to the
// original); the served directory reached through a symbolic link is.
func TestDiscovery_Copy(t *testing.T) {
	dir := t.TempDir()
	if err := server.WriteDiscovery(dir, server.Discovery{PID: os.Getpid(), Socket: dir + "/cortex.sock"}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, server.DiscoveryFile))
	if err != nil {
		t.Fatal(err)
	}
	cp := t.TempDir()
	if err := os.WriteFile(filepath.Join(cp, server.DiscoveryFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if d, err := server.ReadDiscovery(cp); !errors.Is(err, server.ErrNoServer) || !strings.Contains(err.Error(), "a copy") {
		t.Fatalf("ReadDiscovery of a copy = %+v, %v", d, err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, link} {
		if got, err := server.ReadDiscovery(d); err != nil || got.PID != os.Getpid() {
			t.Fatalf("ReadDiscovery(%s) = %+v, %v", d, got, err)
		}
	}
}

func TestDiscovery(t *testing.T) {
	dir := t.TempDir()
	if _, err := server.ReadDiscovery(dir); !errors.Is(err, server.ErrNoServer) {
		t.Fatalf("ReadDiscovery of an empty dir: %v", err)
	}
	me := server.Discovery{PID: os.Getpid(), Socket: dir + "/cortex.sock", Address: "127.0.0.1:7474"}
	if err := server.WriteDiscovery(dir, me); err != nil {
		t.Fatal(err)
	}
	got, err := server.ReadDiscovery(dir)
	if err != nil || got.PID != me.PID || got.Socket != me.Socket || got.Address != me.Address {
		t.Fatalf("ReadDiscovery = %+v, %v", got, err)
	}
	// Another pid's file is not removed; a dead pid's file is stale.
	if err := server.RemoveDiscovery(dir, me.PID+1); err != nil {
		t.Fatal(err)
	}
	if _, err := server.ReadDiscovery(dir); err != nil {
		t.Fatalf("after RemoveDiscovery of another pid: %v", err)
	}
	if err := server.WriteDiscovery(dir, server.Discovery{PID: deadPID(t)}); err != nil {
		t.Fatal(err)
	}
	if _, err := server.ReadDiscovery(dir); !errors.Is(err, server.ErrNoServer) || !strings.Contains(err.Error(), "stale") {
		t.Fatalf("ReadDiscovery of a stale file: %v", err)
	}
	if err := server.WriteDiscovery(dir, me); err != nil {
		t.Fatal(err)
	}
	if err := server.RemoveDiscovery(dir, me.PID); err != nil {
		t.Fatal(err)
	}
	if _, err := server.ReadDiscovery(dir); !errors.Is(err, server.ErrNoServer) {
		t.Fatalf("after RemoveDiscovery: %v", err)
	}
}

// deadPID returns the pid of a process that has exited (and been reaped):
// this test binary, run to do nothing.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestNew_ZeroOptions: server.New with Options{} (not DefaultOptions)
// serves as with the defaults. It used to serve with every limit zero:
// each request body too large (413), each query busy (no turn), no
// config, and a nil logger.
func TestNew_ZeroOptions(t *testing.T) {
	ts := serve(t, server.Options{})
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "t1", Name: "n", Members: []api.MemberConfig{{Agent: "alice", Role: "lead"}}}, nil)
	var team api.Team
	ts.ok("acme", "teams.get", map[string]string{"team": "t1"}, &team)
	if team.ID != "t1" || team.Strategy != "additive" {
		t.Fatalf("teams.get = %+v", team)
	}
	if resp, body := ts.do("PUT", "/ns/acme/data?graph=http%3A%2F%2Fex%2Fg", "application/n-triples", strings.NewReader("<http://ex/a> <http://ex/p> \"1\" .\n")); resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT: %d %s", resp.StatusCode, body)
	}
	resp, body := ts.do("GET", "/ns/acme/sparql?query="+url.QueryEscape(`SELECT ?o WHERE { GRAPH <http://ex/g> { ?s ?p ?o } }`), "", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"1"`) {
		t.Fatalf("query: %d %s", resp.StatusCode, body)
	}
	if resp, body := ts.do("GET", "/ns/acme/sparql?timeout=1h&query=ASK{}", "", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("query with a timeout: %d %s", resp.StatusCode, body)
	}
}

// metricValue returns the value of the sample named series (name and
// labels, as the text format writes them) in body, failing the test if
// there is none.
func metricValue(t *testing.T, body, series string) float64 {
	t.Helper()
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return f
		}
	}
	t.Fatalf("metrics lack %s", series)
	return 0
}

// TestDiscovery_ReusedPID: a discovery file whose pid now names another
// process than the one that wrote it (pid reuse: here a file written for
// this process and then given the pid of its parent, which is alive) is
// stale where the machine tells a process's start (Linux); a file without
// a start (an older server's) falls back to the pid being alive.
func TestDiscovery_ReusedPID(t *testing.T) {
	dir := t.TempDir()
	if err := server.WriteDiscovery(dir, server.Discovery{PID: os.Getpid()}); err != nil {
		t.Fatal(err)
	}
	me, err := server.ReadDiscovery(dir)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "linux" {
		t.Skip("only Linux tells a process's start")
	}
	if me.Start == "" {
		t.Fatal("WriteDiscovery recorded no start")
	}
	reused := me
	reused.PID = os.Getppid()
	if err := server.WriteDiscovery(dir, reused); err != nil {
		t.Fatal(err)
	}
	if _, err := server.ReadDiscovery(dir); !errors.Is(err, server.ErrNoServer) || !strings.Contains(err.Error(), "stale") {
		t.Fatalf("ReadDiscovery of a file whose pid was reused: %v", err)
	}
	reused.Start = "" // written by a server that did not record it
	data, err := json.Marshal(reused)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, server.DiscoveryFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := server.ReadDiscovery(dir); err != nil {
		t.Fatalf("ReadDiscovery of a file without a start, its pid alive: %v", err)
	}
}

// TestDiscovery_NamesPathsQuoted: ReadDiscovery's errors name a directory
// that is not plain text quoted (as pathtext.Quote does), the one asked
// about and the one a copied discovery file names.
func TestDiscovery_NamesPathsQuoted(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a\nno server running in x")
	cp := filepath.Join(root, "b\u202ec")
	for _, d := range []string{dir, cp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := server.ReadDiscovery(dir); err == nil || err.Error() != "no server running in "+strconv.Quote(dir) {
		t.Errorf("no discovery file: %v", err)
	}
	if err := server.WriteDiscovery(dir, server.Discovery{PID: os.Getpid(), Socket: dir + "/cortex.sock"}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, server.DiscoveryFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cp, server.DiscoveryFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = server.ReadDiscovery(cp)
	if want := "no server running in " + strconv.Quote(cp) + " (its discovery file is that of " + strconv.Quote(dir) + ","; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a copy: %v, want it to start with %s", err, want)
	}
}
