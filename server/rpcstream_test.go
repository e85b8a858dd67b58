package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/server"
)

// The tests of JSON-RPC streams speak the protocol on a raw connection,
// as a client in another language would: the upgrade request, then one
// JSON-RPC message per line each way.

// streamServer is a server on 127.0.0.1 whose shutdown a test controls.
type streamServer struct {
	t    *testing.T
	srv  *server.Server
	addr string
	stop func() error // ends Serve and returns its error (once)
}

func serveStreams(t *testing.T, opts server.Options) *streamServer {
	t.Helper()
	srv := server.New(cortextest.NewStore(t), opts)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l) }()
	stop := sync.OnceValue(func() error {
		cancel()
		return <-done
	})
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return &streamServer{t: t, srv: srv, addr: l.Addr().String(), stop: stop}
}

// rpcStream is a client's end of a stream.
type rpcStream struct {
	t    *testing.T
	conn net.Conn
	br   *bufio.Reader
}

// open asks for a stream of namespace ns with the given headers and
// returns it, or the response that refused it.
func (ss *streamServer) open(ns string, header ...string) (*rpcStream, *http.Response) {
	ss.t.Helper()
	conn, err := net.Dial("tcp", ss.addr)
	if err != nil {
		ss.t.Fatal(err)
	}
	ss.t.Cleanup(func() { conn.Close() })
	req, _ := http.NewRequest("POST", "http://"+ss.addr+"/ns/"+ns+"/rpc", http.NoBody)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", server.RPCStreamProtocol)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if err := req.Write(conn); err != nil {
		ss.t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		ss.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		return nil, resp
	}
	if got := resp.Header.Get("Upgrade"); got != server.RPCStreamProtocol {
		ss.t.Fatalf("101 with Upgrade %q", got)
	}
	return &rpcStream{t: ss.t, conn: conn, br: br}, resp
}

func (ss *streamServer) mustOpen(ns string, header ...string) *rpcStream {
	ss.t.Helper()
	st, resp := ss.open(ns, header...)
	if st == nil {
		b, _ := io.ReadAll(resp.Body)
		ss.t.Fatalf("stream refused: %s %s", resp.Status, b)
	}
	return st
}

// send writes lines, each with its newline, in one write.
func (st *rpcStream) send(lines ...string) {
	st.t.Helper()
	if _, err := io.WriteString(st.conn, strings.Join(lines, "\n")+"\n"); err != nil {
		st.t.Fatal(err)
	}
}

// read reads the next line; io.EOF when the server has closed the
// stream.
func (st *rpcStream) read() (string, error) {
	line, err := st.br.ReadString('\n')
	if err != nil && line == "" {
		return "", err
	}
	return line, nil
}

// answer reads the next line as a response object.
func (st *rpcStream) answer() rpcResponse {
	st.t.Helper()
	line, err := st.read()
	if err != nil {
		st.t.Fatalf("read an answer: %v", err)
	}
	var r rpcResponse
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		st.t.Fatalf("answer %q: %v", line, err)
	}
	return r
}

// closingReason returns the reason of line if it is the server's
// "$/closing" notification.
func closingReason(line string) (string, bool) {
	var n struct {
		JSONRPC string           `json:"jsonrpc"`
		ID      *json.RawMessage `json:"id"`
		Method  string           `json:"method"`
		Params  struct {
			Reason string `json:"reason"`
		} `json:"params"`
	}
	if json.Unmarshal([]byte(line), &n) != nil || n.JSONRPC != "2.0" || n.ID != nil || n.Method != server.ClosingMethod {
		return "", false
	}
	return n.Params.Reason, true
}

// eof reads until the server closes the stream and returns what it read.
func (st *rpcStream) eof() []string {
	st.t.Helper()
	var lines []string
	for {
		line, err := st.read()
		if errors.Is(err, io.EOF) {
			return lines
		}
		if err != nil {
			st.t.Fatalf("read to the end: %v", err)
		}
		lines = append(lines, line)
	}
}

// createTeam creates team t1 of member ann on the stream and waits for
// it (calls on a stream run concurrently: later calls need it done).
func (st *rpcStream) createTeam() {
	st.t.Helper()
	st.send(request(0, "teams.create", `{"id":"t1","name":"n","members":[{"agent":"ann"}]}`))
	if r := st.answer(); r.Error != nil {
		st.t.Fatalf("teams.create: %+v", r.Error)
	}
}

// turnHeld serves streams with opts, one read-heavy call at a time (the
// queue wait is a backstop: a call whose cancel is lost fails busy after
// it instead of hanging the test), opens a stream of acme with its team
// (createTeam), and holds the server's turn (holdTurn) until the returned
// function is called, or the test ends.
func turnHeld(t *testing.T, opts server.Options) (*rpcStream, func()) {
	t.Helper()
	ss := serveStreams(t, opts.WithMaxQueries(1).WithQueueWait(10*time.Second))
	st := ss.mustOpen("acme")
	st.createTeam()
	release := ss.holdTurn()
	t.Cleanup(release)
	return st, release
}

// holdTurn takes the server's turn among read-heavy calls (findings.list
// waits for one) until the returned function is called (once or more).
func (ss *streamServer) holdTurn() func() {
	ss.t.Helper()
	release, err := server.HoldTurn(ss.srv)
	if err != nil {
		ss.t.Fatal(err)
	}
	return release
}

func request(id any, method, params string) string {
	b, _ := json.Marshal(id)
	return `{"jsonrpc":"2.0","id":` + string(b) + `,"method":"` + method + `","params":` + params + `}`
}

// TestRPCStream_Messages: each line is answered as its POST would be: a
// request by its response, a batch by an array, a notification by
// nothing, a line that is not JSON by a parse error with id null; the
// answers come in any order, matched by id; and the same stream goes on.
func TestRPCStream_Messages(t *testing.T) {
	ss := serveStreams(t, server.DefaultOptions())
	st := ss.mustOpen("acme")
	// Calls run concurrently: the team exists before the calls that
	// read it are sent.
	st.send(request(1, "teams.create", `{"id":"t1","name":"n","members":[{"agent":"ann"}]}`))
	if r := st.answer(); r.Error != nil || !strings.Contains(string(r.Result), `"t1"`) {
		t.Errorf("teams.create: %+v", r)
	}
	st.send(
		`{"jsonrpc":"2.0","method":"strategies.list"}`, // a notification
		`[`+request("b1", "teams.get", `{"team":"t1"}`)+`,`+request("b2", "teams.get", `{"team":"zz"}`)+`]`,
		`{"jsonrpc":"2.0","id":3,"method"`, // not JSON
		request(4, "no.such.method", `{}`),
	)
	got := map[string]rpcResponse{}
	var batch string
	for range 3 {
		line, err := st.read()
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(line, "[") {
			batch = line
			continue
		}
		var r rpcResponse
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		got[string(r.ID)] = r
	}
	if r := got["null"]; r.Error == nil || r.Error.Code != -32700 {
		t.Errorf("a line that is not JSON: %+v", r)
	}
	if r := got["4"]; r.Error == nil || r.Error.Code != -32601 {
		t.Errorf("an unknown method: %+v", r)
	}
	var rs []rpcResponse
	if err := json.Unmarshal([]byte(batch), &rs); err != nil || len(rs) != 2 {
		t.Fatalf("batch answer %q: %v", batch, err)
	}
	if rs[0].Error != nil || rs[1].Error == nil || rs[1].Error.Data.Kind != string(api.KindNotFound) {
		t.Errorf("batch answers: %s", batch)
	}
	// The notification was run, and answered nothing: the next answer is
	// the next request's.
	st.send(request(5, "teams.list", `{}`))
	if r := st.answer(); string(r.ID) != "5" || r.Error != nil {
		t.Errorf("after the notification: %+v", r)
	}
}

// TestRPCStream_ConcurrentCalls: calls sent at once all run and are each
// answered once, whatever the order of the answers.
func TestRPCStream_ConcurrentCalls(t *testing.T) {
	ss := serveStreams(t, server.DefaultOptions())
	st := ss.mustOpen("acme")
	st.createTeam()
	st.send(request(0, "teams.member_status", `{"team":"t1","agent":"ann","status":"running"}`))
	st.answer()
	const n = 300 // more than a stream runs at once
	var lines []string
	for i := 1; i <= n; i++ {
		lines = append(lines, request(i, "findings.add", fmt.Sprintf(`{"team":"t1","agent":"ann","subject":"<http://ex/s%d>","predicate":"<http://ex/p>","object":"o"}`, i)))
	}
	st.send(lines...)
	seen := map[string]bool{}
	for range n {
		r := st.answer()
		if r.Error != nil {
			t.Fatalf("call %s: %+v", r.ID, r.Error)
		}
		if seen[string(r.ID)] {
			t.Fatalf("call %s answered twice", r.ID)
		}
		seen[string(r.ID)] = true
	}
	st.send(request("list", "findings.list", `{"team":"t1"}`))
	var fs []json.RawMessage
	if r := st.answer(); r.Error != nil || json.Unmarshal(r.Result, &fs) != nil || len(fs) != n {
		t.Fatalf("findings.list: %d findings, want %d (%+v)", len(fs), n, r.Error)
	}
}

// TestRPCStream_Auth: the request that opens a stream is authenticated
// as any other; each call needs its method's role; a token revoked while
// the stream runs ends it, after its next line's error.
func TestRPCStream_Auth(t *testing.T) {
	f := tokenFile(t)
	ss := serveStreams(t, server.DefaultOptions().WithTokens(f))
	write, _ := mint(t, f, "a", server.RoleWrite, 0)
	read, rec := mint(t, f, "a", server.RoleRead, 0)
	other, _ := mint(t, f, "b", server.RoleAdmin, 0)
	ws := ss.mustOpen("a", bearer(write)...)
	ws.send(request(1, "teams.create", `{"id":"t1","name":"n","members":[{"agent":"x"}]}`))
	if r := ws.answer(); r.Error != nil {
		t.Fatalf("teams.create with a write token: %+v", r.Error)
	}
	for _, tc := range []struct {
		name   string
		header []string
		status int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"malformed token", bearer("nope"), http.StatusUnauthorized},
		{"another namespace's token", bearer(other), http.StatusForbidden},
	} {
		if st, resp := ss.open("a", tc.header...); st != nil || resp.StatusCode != tc.status {
			t.Errorf("%s: stream %v, status %v; want %d", tc.name, st != nil, resp, tc.status)
		}
	}
	rs := ss.mustOpen("a", bearer(read)...)
	rs.send(request(1, "teams.list", `{}`), request(2, "teams.create", `{"id":"t2","name":"n","members":[{"agent":"x"}]}`))
	answers := map[string]rpcResponse{}
	for range 2 {
		r := rs.answer()
		answers[string(r.ID)] = r
	}
	if r := answers["1"]; r.Error != nil {
		t.Errorf("teams.list with a read token: %+v", r.Error)
	}
	if r := answers["2"]; r.Error == nil || r.Error.Data.Kind != string(api.KindDenied) {
		t.Errorf("teams.create with a read token: %+v", r)
	}
	if _, err := f.Revoke(context.Background(), "", rec.ID); err != nil {
		t.Fatal(err)
	}
	rs.send(request(3, "teams.list", `{}`))
	if r := rs.answer(); string(r.ID) != "3" || r.Error == nil || r.Error.Data.Kind != string(api.KindDenied) {
		t.Errorf("a call after the token was revoked: %+v", r)
	}
	if rest := rs.eof(); len(rest) != 0 {
		t.Errorf("after the revoked token's answer: %q", rest)
	}
}

// TestRPCStream_LineTooLong: a line over the body limit is answered by an
// error with id null and ends the stream; the calls read before it are
// answered.
func TestRPCStream_LineTooLong(t *testing.T) {
	ss := serveStreams(t, server.DefaultOptions().WithMaxBodyBytes(4096))
	st := ss.mustOpen("acme")
	st.send(request(1, "strategies.list", `{}`), request(2, "strategies.list", `{"pad":"`+strings.Repeat("x", 5000)+`"}`))
	lines := st.eof()
	var ids []string
	for _, l := range lines {
		var r rpcResponse
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		ids = append(ids, string(r.ID))
		if string(r.ID) == "null" && (r.Error == nil || r.Error.Data.Kind != string(api.KindInvalid) || !strings.Contains(r.Error.Message, "4096")) {
			t.Errorf("the too long line's answer: %+v", r.Error)
		}
	}
	if strings.Join(ids, " ") != "1 null" && strings.Join(ids, " ") != "null 1" {
		t.Errorf("answers %q, want call 1's and one with id null", lines)
	}
}

// TestRPCStream_CancelAndShutdown: "$/cancelRequest" cancels a call in
// flight; a shutdown lets the calls in flight finish and answers them,
// then says "$/closing" (reason shutdown) and closes the stream, and
// Serve returns nil.
func TestRPCStream_CancelAndShutdown(t *testing.T) {
	ss := serveStreams(t, server.DefaultOptions().WithMaxQueries(1).WithQueueWait(time.Hour))
	st := ss.mustOpen("acme")
	st.createTeam()
	release := ss.holdTurn()
	// findings.list waits for a turn among the read-heavy calls; the
	// answer of the call after each proves it has been read.
	st.send(request("a", "findings.list", `{"team":"t1"}`), request("a-read", "strategies.list", `{}`))
	if r := st.answer(); string(r.ID) != `"a-read"` {
		t.Fatalf("want a-read's answer, got %+v", r)
	}
	st.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"a"}}`)
	if r := st.answer(); string(r.ID) != `"a"` || r.Error == nil || r.Error.Data.Kind != string(api.KindTimeout) {
		t.Fatalf("the cancelled call: %+v", r)
	}
	st.send(request("b", "findings.list", `{"team":"t1"}`), request("b-read", "strategies.list", `{}`))
	if r := st.answer(); string(r.ID) != `"b-read"` {
		t.Fatalf("want b-read's answer, got %+v", r)
	}
	stopped := make(chan error, 1)
	go func() { stopped <- ss.stop() }()
	// The server stops accepting before it waits for the stream.
	for {
		c, err := net.Dial("tcp", ss.addr)
		if err != nil {
			break
		}
		c.Close()
		time.Sleep(time.Millisecond)
	}
	select {
	case err := <-stopped:
		t.Fatalf("Serve returned (%v) while a call on a stream was in flight", err)
	default:
	}
	release()
	lines := st.eof()
	if len(lines) != 2 || !strings.Contains(lines[0], `"id":"b"`) || strings.Contains(lines[0], `"error"`) {
		t.Fatalf("after the shutdown: %q, want call b's result and $/closing", lines)
	}
	if reason, ok := closingReason(lines[1]); !ok || reason != server.ClosingShutdown {
		t.Errorf("the last line after the shutdown: %q, want $/closing with reason %q", lines[1], server.ClosingShutdown)
	}
	if err := <-stopped; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestRPCStream_SlowReader: a client that sends calls and reads none of
// their answers has its stream closed once a write waits past the write
// timeout (the idle timeout is an hour: only that closes it), with the
// answers not written dropped; the server goes on serving others.
func TestRPCStream_SlowReader(t *testing.T) {
	ss := serveStreams(t, server.DefaultOptions().WithWriteTimeout(200*time.Millisecond).WithIdleTimeout(time.Hour).
		WithMaxQueries(64).WithQueueWait(time.Hour))
	st := ss.mustOpen("acme")
	st.createTeam()
	st.send(request(0, "teams.member_status", `{"team":"t1","agent":"ann","status":"running"}`))
	st.answer()
	var fs []string
	for i := range 500 {
		fs = append(fs, fmt.Sprintf(`{"subject":"<http://example.org/a/long/subject/%d>","predicate":"<http://example.org/p>","object":"o"}`, i))
	}
	st.send(request(0, "findings.add_batch", `{"team":"t1","agent":"ann","findings":[`+strings.Join(fs, ",")+`]}`))
	if r := st.answer(); r.Error != nil {
		t.Fatal(r.Error)
	}
	// Each answer is ~100 KB: 200 of them are more than the sockets
	// hold, and fewer than a stream runs at once (so that the server
	// waits to read the next line when its write times out).
	const calls = 200
	sent := 0
	for ; sent < calls; sent++ {
		if _, err := io.WriteString(st.conn, request(sent, "findings.list", `{"team":"t1"}`)+"\n"); err != nil {
			break // the server closed the stream: what the test wants
		}
	}
	other := ss.mustOpen("acme")
	other.send(request(1, "strategies.list", `{}`))
	if r := other.answer(); r.Error != nil {
		t.Fatalf("another stream while one does not read: %+v", r.Error)
	}
	// The slow stream ends without the test reading from it: its end is
	// counted in the metrics.
	for !strings.Contains(ss.metrics(), `cortex_http_requests_total{code="101",route="rpc"} 1`) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := len(st.eof()); got >= calls {
		t.Errorf("the slow stream answered all of its %d calls: it was not closed", got)
	}
}

// TestRPCStream_Idle: a stream that sends nothing for the idle timeout
// is closed, after a last line "$/closing" with reason idle.
func TestRPCStream_Idle(t *testing.T) {
	ss := serveStreams(t, server.DefaultOptions().WithIdleTimeout(50*time.Millisecond))
	st := ss.mustOpen("acme")
	st.send(request(1, "strategies.list", `{}`))
	lines := st.eof()
	if len(lines) != 2 || !strings.Contains(lines[0], `"id":1`) {
		t.Fatalf("before the idle close: %q, want call 1's answer and $/closing", lines)
	}
	if reason, ok := closingReason(lines[1]); !ok || reason != server.ClosingIdle {
		t.Errorf("the last line: %q, want $/closing with reason %q", lines[1], server.ClosingIdle)
	}
}

// TestRPCStream_Refused: a request to open a stream that has a body is
// refused, and so is one the route refuses (another method); a server's
// metrics count the streams it opened as status 101.
func TestRPCStream_Refused(t *testing.T) {
	ss := serveStreams(t, server.DefaultOptions())
	conn, err := net.Dial("tcp", ss.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "POST /ns/acme/rpc HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: "+server.RPCStreamProtocol+"\r\nContent-Length: 2\r\n\r\n{}")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Errorf("an opening request with a body: %v %v", resp, err)
	}
	st := ss.mustOpen("acme")
	st.send(request(1, "strategies.list", `{}`))
	st.answer()
	st.conn.Close()
	// Counted when the stream ends, which the server sees at its next
	// read.
	m := ss.metrics()
	for !strings.Contains(m, `cortex_http_requests_total{code="101",route="rpc"} 1`) {
		time.Sleep(5 * time.Millisecond)
		m = ss.metrics()
	}
	// Its life is not a request's latency (the one counted is the refused
	// request's); the call on it is a call.
	if !strings.Contains(m, `cortex_http_request_duration_seconds_count{route="rpc"} 1`+"\n") ||
		!strings.Contains(m, `cortex_rpc_calls_total{method="strategies.list",outcome="ok"} 1`) {
		t.Errorf("metrics of the stream:\n%s", m)
	}
}

// metrics returns the server's /metrics.
func (ss *streamServer) metrics() string {
	ss.t.Helper()
	resp, err := http.Get("http://" + ss.addr + "/metrics")
	if err != nil {
		ss.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		ss.t.Fatal(err)
	}
	return string(body)
}

// TestRPCStream_IdleWithCallsInFlight: the idle timeout is of a stream
// with nothing to do: while a call runs, the stream goes on reading, and
// a call sent after the idle timeout (but before the first one ends) is
// run and answered too.
func TestRPCStream_IdleWithCallsInFlight(t *testing.T) {
	const idle = 50 * time.Millisecond
	ss := serveStreams(t, server.DefaultOptions().WithIdleTimeout(idle).WithMaxQueries(1).WithQueueWait(time.Hour))
	st := ss.mustOpen("acme")
	st.createTeam()
	release := ss.holdTurn()
	defer release()
	st.send(request("held", "findings.list", `{"team":"t1"}`), request("read", "strategies.list", `{}`))
	if r := st.answer(); string(r.ID) != `"read"` {
		t.Fatalf("want the answer of read, got %+v", r)
	}
	// Nothing is sent for longer than the idle timeout while "held" runs.
	time.Sleep(4 * idle)
	st.send(request("late", "strategies.list", `{}`))
	release()
	got := map[string]bool{}
	lines := st.eof() // the stream is idle after both answers
	if len(lines) == 0 {
		t.Fatal("no answer")
	}
	if _, ok := closingReason(lines[len(lines)-1]); !ok {
		t.Errorf("the last line %q, want $/closing", lines[len(lines)-1])
	}
	for _, l := range lines[:len(lines)-1] {
		var r rpcResponse
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Error != nil {
			t.Fatalf("answer %q: %v", l, err)
		}
		got[string(r.ID)] = true
	}
	if !got[`"held"`] || !got[`"late"`] || len(got) != 2 {
		t.Errorf("answers %v, want held's and late's (a call sent while another ran past the idle timeout)", got)
	}
}

// TestRPCStream_CancelRightAfterCall: a "$/cancelRequest" sent right
// after its call (in the same write) cancels it: the cancel is not run
// before the call is known to the stream.
func TestRPCStream_CancelRightAfterCall(t *testing.T) {
	st, _ := turnHeld(t, server.DefaultOptions())
	const n = 50
	var lines []string
	for i := range n {
		lines = append(lines, request(i, "findings.list", `{"team":"t1"}`), fmt.Sprintf(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":%d}}`, i))
	}
	st.send(lines...)
	for range n {
		if r := st.answer(); r.Error == nil || r.Error.Data.Kind != string(api.KindTimeout) {
			t.Errorf("call %s cancelled right after it was sent: %+v", r.ID, r.Error)
		}
	}
}

// TestRPCStream_EndWithUnreadInput: a stream the server ends while the
// client is still sending (a line too long, here of several megabytes)
// delivers the answers written before its end: the server closes its
// side without a reset (which would drop them) and the client reads them
// and then the end of the stream, not an error.
func TestRPCStream_EndWithUnreadInput(t *testing.T) {
	ss := serveStreams(t, server.DefaultOptions().WithMaxBodyBytes(4096))
	st := ss.mustOpen("acme")
	sent := make(chan error, 1)
	go func() {
		_, err := io.WriteString(st.conn, request(1, "strategies.list", `{}`)+"\n"+request(2, "strategies.list", `{"pad":"`+strings.Repeat("x", 8<<20)+`"}`)+"\n")
		sent <- err
	}()
	var lines []string
	for {
		line, err := st.read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("read after %q: %v", lines, err)
		}
		lines = append(lines, line)
	}
	if len(lines) != 2 {
		t.Errorf("answers %q, want call 1's and the too long line's", lines)
	}
	st.conn.Close()
	<-sent // the server need not read the rest of the long line
}

// TestRPCStream_BytesInFlight: the lines of the calls in flight on a
// stream hold at most the body limit: a line that would pass it waits for
// the calls before it, where a POST's body is bounded by it too.
func TestRPCStream_BytesInFlight(t *testing.T) {
	ss := serveStreams(t, server.DefaultOptions().WithMaxBodyBytes(4096).WithMaxQueries(1).WithQueueWait(time.Hour))
	st := ss.mustOpen("acme")
	st.createTeam()
	release := ss.holdTurn()
	defer release()
	// Two lines of ~3,000 bytes (white space is JSON): the first waits
	// for a turn, the second is a quick call, which must wait for the
	// first's bytes.
	pad := strings.Repeat(" ", 3000)
	st.send(`{"jsonrpc":"2.0","id":"slow","method":"findings.list","params":{"team":"t1"}`+pad+`}`,
		`{"jsonrpc":"2.0","id":"quick","method":"strategies.list","params":{}`+pad+`}`)
	// Without the bound the quick call is answered within a millisecond,
	// before the slow one, which gets its turn only after 50 ms; with it,
	// it runs after the slow one, however long that takes.
	go func() {
		time.Sleep(50 * time.Millisecond)
		release()
	}()
	first := st.answer()
	if string(first.ID) != `"slow"` {
		t.Errorf("first answer %s, want the slow call's: the quick call's line ran beside it", first.ID)
	}
	if second := st.answer(); string(second.ID) != `"quick"` || second.Error != nil {
		t.Errorf("second answer: %+v", second)
	}
}

// TestRPCStream_CancelByIDValue: a cancel finds its call by the id's value
// (a string however escaped), and cancels every call in flight with that
// id (JSON-RPC wants ids unique; a client that repeats one cancels all).
func TestRPCStream_CancelByIDValue(t *testing.T) {
	st, _ := turnHeld(t, server.DefaultOptions())
	st.send(request("d", "findings.list", `{"team":"t1"}`), request("d", "findings.list", `{"team":"t1"}`),
		request("ab", "findings.list", `{"team":"t1"}`), request("sync", "strategies.list", `{}`))
	if r := st.answer(); string(r.ID) != `"sync"` {
		t.Fatalf("want sync's answer, got %+v", r)
	}
	st.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"d"}}`,
		`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"a\u0062"}}`)
	got := map[string]int{}
	for range 3 {
		r := st.answer()
		if r.Error == nil || r.Error.Data.Kind != string(api.KindTimeout) {
			t.Fatalf("call %s: %+v, want it cancelled", r.ID, r.Error)
		}
		got[string(r.ID)]++
	}
	if got[`"d"`] != 2 || got[`"ab"`] != 1 {
		t.Errorf("cancelled %v, want both d and ab", got)
	}
}

// cancelLine is a "$/cancelRequest" notification of the call with id.
func cancelLine(id any) string {
	b, _ := json.Marshal(id)
	return `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":` + string(b) + `}}`
}

// TestRPCStream_CancelAtLimit: at the limit of a stream (its calls in
// flight, or the bytes of their lines), the call read next waits, and the
// cancels sent after it are read and applied meanwhile: one of a call in
// flight, and one of the waiting call itself (cancelled as it starts).
func TestRPCStream_CancelAtLimit(t *testing.T) {
	t.Run("calls", func(t *testing.T) {
		// The queue wait is a backstop: a call whose cancel is not read
		// fails busy after it, instead of hanging the test.
		st, release := turnHeld(t, server.DefaultOptions())
		const limit = 256 // a stream's calls in flight
		var lines []string
		for i := range limit + 1 { // calls 0 to 255 run, waiting for a turn; call 256 waits for a slot
			lines = append(lines, request(i, "findings.list", `{"team":"t1"}`))
		}
		st.send(append(lines, cancelLine(limit), cancelLine(0))...)
		got := map[string]bool{}
		for range 2 {
			r := st.answer()
			if r.Error == nil || r.Error.Data.Kind != string(api.KindTimeout) {
				t.Fatalf("call %s: %+v, want it cancelled", r.ID, r.Error)
			}
			got[string(r.ID)] = true
		}
		if !got["0"] || !got["256"] {
			t.Errorf("cancelled %v, want calls 0 (in flight) and 256 (waiting for a slot)", got)
		}
		release()
		for range limit - 1 {
			if r := st.answer(); r.Error != nil {
				t.Errorf("call %s: %+v", r.ID, r.Error)
			}
		}
	})
	t.Run("bytes", func(t *testing.T) {
		st, _ := turnHeld(t, server.DefaultOptions().WithMaxBodyBytes(4096))
		// The quick call's line waits for the slow call's bytes (see
		// TestRPCStream_BytesInFlight); the cancel after it gets through.
		pad := strings.Repeat(" ", 3000)
		st.send(`{"jsonrpc":"2.0","id":"slow","method":"findings.list","params":{"team":"t1"}`+pad+`}`,
			`{"jsonrpc":"2.0","id":"quick","method":"strategies.list","params":{}`+pad+`}`,
			cancelLine("slow"))
		if r := st.answer(); string(r.ID) != `"slow"` || r.Error == nil || r.Error.Data.Kind != string(api.KindTimeout) {
			t.Fatalf("first answer %s %+v, want the slow call cancelled", r.ID, r.Error)
		}
		if r := st.answer(); string(r.ID) != `"quick"` || r.Error != nil {
			t.Errorf("second answer: %+v", r)
		}
	})
}

// TestRPCStream_CancelInBatch: a cancel finds a call of a batch in
// flight by its id's value, whether the call has started (it ends
// cancelled) or waits for the calls before it in the batch (it fails
// cancelled when its turn comes); the batch's other calls run.
func TestRPCStream_CancelInBatch(t *testing.T) {
	st, _ := turnHeld(t, server.DefaultOptions())
	st.send(`[`+request("bx", "findings.list", `{"team":"t1"}`)+`,`+request(7, "findings.list", `{"team":"t1"}`)+`,`+
		request("by", "strategies.list", `{}`)+`]`,
		`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"b\u0078"}}`, cancelLine(7))
	line, err := st.read()
	if err != nil {
		t.Fatal(err)
	}
	var rs []rpcResponse
	if err := json.Unmarshal([]byte(line), &rs); err != nil || len(rs) != 3 {
		t.Fatalf("the batch's answer %q: %v", line, err)
	}
	for _, r := range rs[:2] {
		if r.Error == nil || r.Error.Data.Kind != string(api.KindTimeout) {
			t.Errorf("call %s of the batch: %+v, want it cancelled", r.ID, r.Error)
		}
	}
	if string(rs[0].ID) != `"bx"` || string(rs[1].ID) != "7" || string(rs[2].ID) != `"by"` || rs[2].Error != nil {
		t.Errorf("the batch's answer: %s", line)
	}
}

// TestRPCStream_IdleCloseRace: a call sent as the stream goes idle is
// either answered, before the server's last line "$/closing", or comes
// after that line and is not run: its team is not created. The trials
// send it around the end of the idle timeout, racing the close; the last sends
// it after the client has read "$/closing".
func TestRPCStream_IdleCloseRace(t *testing.T) {
	const idle = 20 * time.Millisecond
	ss := serveStreams(t, server.DefaultOptions().WithIdleTimeout(idle))
	// opened returns a stream on which call was sent and answered, and
	// the answer. The stream idles out 20 ms after it opens: a client
	// slower than that (a loaded machine) gets $/closing instead, and
	// opens another.
	opened := func(call string) (*rpcStream, rpcResponse) {
		t.Helper()
		for range 100 {
			st := ss.mustOpen("acme")
			st.send(call)
			line, err := st.read()
			if err != nil {
				t.Fatalf("the answer to %s: %v", call, err)
			}
			if _, closing := closingReason(line); closing {
				st.conn.Close()
				continue
			}
			var r rpcResponse
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("the answer to %s: %q: %v", call, line, err)
			}
			return st, r
		}
		t.Fatalf("%s: 100 streams idled out before their first call was read", call)
		return nil, rpcResponse{}
	}
	exists := func(team string) bool {
		t.Helper()
		check, r := opened(request(1, "teams.get", `{"team":"`+team+`"}`))
		defer check.conn.Close()
		if r.Error != nil && r.Error.Data.Kind != string(api.KindNotFound) {
			t.Fatalf("teams.get %s: %+v", team, r.Error)
		}
		return r.Error == nil
	}
	const trials = 20
	answered := 0
	for trial := range trials + 1 {
		st, r := opened(request("sync", "strategies.list", `{}`))
		if r.Error != nil {
			t.Fatal(r.Error)
		}
		var lines []string
		if trial < trials {
			time.Sleep(idle * time.Duration(3+trial%5) / 5) // the server closes the stream about then
		} else {
			line, err := st.read() // the server has closed the stream
			if err != nil {
				t.Fatalf("the stream idle: %v, want $/closing", err)
			}
			lines = append(lines, line)
		}
		team := fmt.Sprintf("race%d", trial)
		// A write to a stream the server has closed may fail: the call
		// is then not sent either.
		_, _ = io.WriteString(st.conn, request(team, "teams.create", `{"id":"`+team+`","name":"n","members":[{"agent":"ann"}]}`)+"\n")
		lines = append(lines, st.eof()...)
		st.conn.Close()
		if len(lines) == 0 {
			t.Fatalf("trial %d: the stream ended without $/closing", trial)
		}
		if reason, ok := closingReason(lines[len(lines)-1]); !ok || reason != server.ClosingIdle {
			t.Fatalf("trial %d: the last line %q, want $/closing with reason idle (all: %q)", trial, lines[len(lines)-1], lines)
		}
		switch rest := lines[:len(lines)-1]; {
		case len(rest) == 0:
			if exists(team) {
				t.Errorf("trial %d: the call after $/closing was run: team %s exists", trial, team)
			}
		case len(rest) == 1 && strings.Contains(rest[0], `"id":"`+team+`"`) && !strings.Contains(rest[0], `"error"`):
			answered++
			if !exists(team) {
				t.Errorf("trial %d: the call was answered but team %s does not exist", trial, team)
			}
		default:
			t.Errorf("trial %d: lines before $/closing %q, want none or the call's answer", trial, rest)
		}
	}
	t.Logf("%d of %d racing calls answered before the idle close", answered, trials)
}

// TestRPCStream_CancelNullID: a cancel of id null names no call (no call
// in flight has id null): the call with id "" goes on and succeeds.
func TestRPCStream_CancelNullID(t *testing.T) {
	st, release := turnHeld(t, server.DefaultOptions())
	st.send(request("", "findings.list", `{"team":"t1"}`),
		`{"jsonrpc":"2.0","id":"c","method":"$/cancelRequest","params":{"id":null}}`)
	if r := st.answer(); string(r.ID) != `"c"` || r.Error != nil || string(r.Result) != "null" {
		t.Fatalf("the cancel's answer: %+v, want null", r)
	}
	release()
	if r := st.answer(); string(r.ID) != `""` || r.Error != nil {
		t.Errorf("the call with id \"\": %+v, want it run", r)
	}
}

// TestRPCStream_CancelNotStarted: a call cancelled before it starts is
// not run, whether its method heeds its context or not (strategies.list
// does not): a batch's call waiting for the calls before it, and the call
// held at the limit of a stream, fail cancelled when their turn comes.
// The cancels are requests: their answers show they were applied before
// the turn is released.
func TestRPCStream_CancelNotStarted(t *testing.T) {
	cancelled := func(t *testing.T, r rpcResponse) {
		t.Helper()
		if r.Error == nil || r.Error.Data.Kind != string(api.KindTimeout) {
			t.Errorf("call %s cancelled before it started: %+v %s, want it cancelled", r.ID, r.Error, r.Result)
		}
	}
	applied := func(t *testing.T, st *rpcStream) {
		t.Helper()
		if r := st.answer(); string(r.ID) != `"c"` || r.Error != nil || string(r.Result) != "null" {
			t.Fatalf("the cancel's answer: %+v, want null", r)
		}
	}
	cancelReq := func(id string) string {
		return `{"jsonrpc":"2.0","id":"c","method":"$/cancelRequest","params":{"id":"` + id + `"}}`
	}
	t.Run("batch", func(t *testing.T) {
		st, release := turnHeld(t, server.DefaultOptions())
		st.send(`[`+request("a", "findings.list", `{"team":"t1"}`)+`,`+request("b", "strategies.list", `{}`)+`]`, cancelReq("b"))
		applied(t, st)
		release()
		line, err := st.read()
		if err != nil {
			t.Fatal(err)
		}
		var rs []rpcResponse
		if err := json.Unmarshal([]byte(line), &rs); err != nil || len(rs) != 2 {
			t.Fatalf("the batch's answer %q: %v", line, err)
		}
		if string(rs[0].ID) != `"a"` || rs[0].Error != nil {
			t.Errorf("call a: %+v", rs[0])
		}
		cancelled(t, rs[1])
	})
	t.Run("held", func(t *testing.T) {
		st, release := turnHeld(t, server.DefaultOptions().WithMaxBodyBytes(4096))
		// The quick call waits for the slow call's bytes (see
		// TestRPCStream_BytesInFlight); the cancel after it is read.
		pad := strings.Repeat(" ", 3000)
		st.send(`{"jsonrpc":"2.0","id":"slow","method":"findings.list","params":{"team":"t1"}`+pad+`}`,
			`{"jsonrpc":"2.0","id":"quick","method":"strategies.list","params":{}`+pad+`}`, cancelReq("quick"))
		applied(t, st)
		release()
		if r := st.answer(); string(r.ID) != `"slow"` || r.Error != nil {
			t.Fatalf("first answer: %+v, want the slow call's result", r)
		}
		r := st.answer()
		if string(r.ID) != `"quick"` {
			t.Fatalf("second answer: %+v, want the quick call's", r)
		}
		cancelled(t, r)
	})
}

// TestRPCStream_MaxStreams: at most WithMaxRPCStreams JSON-RPC streams are
// open at once, every namespace together; one more is refused at once,
// 503 with Retry-After and a JSON-RPC error object of kind busy, its
// connection left an HTTP one; a stream that ends frees its place. There
// was no limit: every client could hold any number of streams, each a
// connection, goroutines and up to 256 calls in flight.
func TestRPCStream_MaxStreams(t *testing.T) {
	ss := serveStreams(t, server.DefaultOptions().WithMaxRPCStreams(2))
	first := ss.mustOpen("acme")
	ss.mustOpen("other")
	st, resp := ss.open("acme")
	if st != nil {
		t.Fatal("a third stream was opened")
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, resp.ContentLength))
	if err != nil {
		t.Fatal(err)
	}
	var r rpcResponse
	if err := json.Unmarshal(body, &r); err != nil || r.Error == nil || string(r.ID) != "null" {
		t.Fatalf("a third stream: %d %s: want a JSON-RPC error object (%v)", resp.StatusCode, body, err)
	}
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || resp.Header.Get("Content-Type") != "application/json" ||
		r.Error.Data.Kind != string(api.KindBusy) || r.Error.Data.ExitCode != 11 || !strings.Contains(r.Error.Message, "2 JSON-RPC streams are open") {
		t.Fatalf("a third stream: %d %v %s: want 503 busy with Retry-After", resp.StatusCode, resp.Header, body)
	}
	// Refused, its connection serves plain requests.
	conn, err := net.Dial("tcp", ss.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	call := request(1, "strategies.list", `{}`)
	for _, req := range []string{
		"POST /ns/acme/rpc HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: " + server.RPCStreamProtocol + "\r\n\r\n",
		fmt.Sprintf("POST /ns/acme/rpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(call), call),
	} {
		if _, err := io.WriteString(conn, req); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := map[bool]int{true: 503, false: 200}[strings.Contains(req, "Upgrade")]; resp.StatusCode != want || want == 200 && !strings.Contains(string(body), `"result":[`) {
			t.Fatalf("%q: %s %s, want %d", req, resp.Status, body, want)
		}
	}
	// A stream's end frees its place, once the server sees its client
	// gone.
	first.conn.Close()
	for i := 0; ; i++ {
		st, resp := ss.open("acme")
		if st != nil {
			break
		}
		if resp.StatusCode != http.StatusServiceUnavailable || i == 1000 {
			t.Fatalf("after a stream ended: %s", resp.Status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
