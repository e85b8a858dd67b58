package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/server"
)

// The kill test runs a second process: this test binary re-executed with
// CORTEX_SERVER_CHILD set, which serves the store in a directory instead
// of running the tests.
func TestMain(m *testing.M) {
	if os.Getenv("CORTEX_SERVER_CHILD") == "serve" {
		if err := childServe(os.Getenv("CORTEX_SERVER_DIR")); err != nil {
			fmt.Println("error", err)
		}
		os.Exit(3)
	}
	os.Exit(m.Run())
}

// sseEvent is a message of an event stream as a client parses it.
type sseEvent struct {
	id, event, data string
}

// sseStream is an open event stream.
type sseStream struct {
	t        testing.TB
	resp     *http.Response
	r        *bufio.Reader
	comments []string
	// lastID is the stream's last event ID string as an EventSource keeps
	// it (WHATWG HTML, "Server-sent events"): set from the id field at
	// every dispatch (an empty line after fields), including one without
	// data, which fires no event; it is the Last-Event-ID of a reconnection.
	lastID string
}

// openEvents opens GET /ns/{ns}/events with the given query and headers
// (name, value pairs); it fails the test unless the answer is a 200 event
// stream.
func (ts *testServer) openEvents(ns, query string, header ...string) *sseStream {
	ts.t.Helper()
	req, err := http.NewRequest("GET", ts.url+"/ns/"+ns+"/events"+query, nil)
	if err != nil {
		ts.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		ts.t.Fatal(err)
	}
	ts.t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		ts.t.Fatalf("events: %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	return &sseStream{t: ts.t, resp: resp, r: bufio.NewReader(resp.Body)}
}

// next reads the next message with data (comments are kept in
// s.comments, and a message without data only sets s.lastID, as in an
// EventSource); io.EOF when the stream ends.
func (s *sseStream) next() (sseEvent, error) {
	var ev sseEvent
	seen, hasID := false, false
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			return ev, err
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if hasID {
				s.lastID = ev.id
			}
			if seen && ev.data != "" {
				return ev, nil
			}
			ev, seen, hasID = sseEvent{}, false, false
		case strings.HasPrefix(line, ":"):
			s.comments = append(s.comments, line)
		default:
			name, value, _ := strings.Cut(line, ": ")
			seen = true
			switch name {
			case "id":
				ev.id, hasID = value, true
			case "event":
				ev.event = value
			case "data":
				if ev.data != "" {
					s.t.Fatalf("an event with several data lines: %q and %q", ev.data, value)
				}
				ev.data = value
			default:
				s.t.Fatalf("unexpected field %q", line)
			}
		}
	}
}

// read reads n events and checks each one's framing: its SSE id and event
// fields repeat its data's id and type.
func (s *sseStream) read(n int) []api.Event {
	s.t.Helper()
	var out []api.Event
	for range n {
		m, err := s.next()
		if err != nil {
			s.t.Fatalf("after %d events: %v", len(out), err)
		}
		var ev api.Event
		dec := json.NewDecoder(strings.NewReader(m.data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ev); err != nil {
			s.t.Fatalf("event data %s: %v", m.data, err)
		}
		if m.id != strconv.FormatUint(ev.ID, 10) || m.event != ev.Type {
			s.t.Fatalf("message id %q event %q carries event %d %s", m.id, m.event, ev.ID, ev.Type)
		}
		out = append(out, ev)
	}
	return out
}

// decodeStrict decodes b into out, refusing unknown fields.
func decodeStrict(t testing.TB, b []byte, out any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
}

// TestEvents_SSE runs a team's life over JSON-RPC with an event stream
// open: every event arrives once, in order, with ids 1..N, the data shape
// of its type equal to what the RPC methods return; a client reconnecting
// with Last-Event-ID gets exactly the events after it.
func TestEvents_SSE(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	var created api.Team
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "t1", Name: "review", Strategy: "conflict-flag",
		Members: []api.MemberConfig{{Agent: "alice", Role: "lead"}, {Agent: "bob", Role: "dev"}}}, &created)
	st := ts.openEvents("acme", "?after=0")

	type step struct {
		method string
		params any
	}
	var statuses []api.MemberStatus
	for _, s := range []step{
		{"teams.member_status", map[string]string{"team": "t1", "agent": "alice", "status": "running"}},
		{"teams.member_status", map[string]string{"team": "t1", "agent": "bob", "status": "running"}},
		{"findings.add", map[string]any{"team": "t1", "agent": "alice", "subject": "<http://ex/lib>", "predicate": "<http://ex/license>", "object": "MIT"}},
		{"findings.add_batch", map[string]any{"team": "t1", "agent": "bob", "findings": []map[string]any{
			{"subject": "<http://ex/lib>", "predicate": "<http://ex/license>", "object": "GPL", "confidence": 0.5},
			{"subject": "<http://ex/lib>", "predicate": "<http://ex/lang>", "object": `"Go"@en`},
		}}},
		{"teams.member_status", map[string]string{"team": "t1", "agent": "alice", "status": "completed"}},
		{"teams.member_status", map[string]string{"team": "t1", "agent": "bob", "status": "completed"}},
	} {
		if s.method == "teams.member_status" {
			var ms api.MemberStatus
			ts.ok("acme", s.method, s.params, &ms)
			statuses = append(statuses, ms)
		} else {
			ts.ok("acme", s.method, s.params, nil)
		}
	}
	var conflicts []api.Conflict
	ts.ok("acme", "conflicts.list", map[string]any{"team": "t1"}, &conflicts)
	if len(conflicts) != 1 {
		t.Fatalf("conflicts: %+v", conflicts)
	}
	var resolved api.Merge
	ts.ok("acme", "conflicts.resolve", map[string]any{"team": "t1", "conflict": conflicts[0].ID, "objects": []string{"MIT"}, "by": "lead"}, &resolved)
	var afterResolve []api.Conflict
	ts.ok("acme", "conflicts.list", map[string]any{"team": "t1"}, &afterResolve)
	var findings []api.Finding
	ts.ok("acme", "findings.list", map[string]any{"team": "t1"}, &findings)
	ts.ok("acme", "teams.delete", map[string]any{"team": "t1"}, nil)

	evs := st.read(14)
	var gotTypes []string
	for i, ev := range evs {
		if ev.ID != uint64(i+1) {
			t.Fatalf("event %d has id %d", i, ev.ID)
		}
		if ev.Team != "t1" || ev.Time == nil {
			t.Fatalf("event %d: team %q, time %v", ev.ID, ev.Team, ev.Time)
		}
		gotTypes = append(gotTypes, ev.Type)
	}
	want := []string{"team.created", "member.status", "team.status", "member.status", "findings.added", "findings.added",
		"member.status", "member.status", "team.status", "conflict.detected", "merge.completed",
		"conflict.resolved", "merge.completed", "team.deleted"}
	if !reflect.DeepEqual(gotTypes, want) {
		t.Fatalf("events %v, want %v", gotTypes, want)
	}
	// The data shapes, equal to the RPC results.
	var team api.Team
	decodeStrict(t, evs[0].Data, &team)
	if !reflect.DeepEqual(team, created) {
		t.Fatalf("team.created: %+v, want %+v", team, created)
	}
	for i, k := range []int{1, 3, 6} {
		var ms api.MemberStatus
		decodeStrict(t, evs[k].Data, &ms)
		if !reflect.DeepEqual(ms, statuses[i]) {
			t.Fatalf("member.status %d: %+v, want %+v", i, ms, statuses[i])
		}
	}
	var last api.MemberStatus
	decodeStrict(t, evs[7].Data, &last)
	wantLast := statuses[3]
	wantLast.Merge = nil // the merge is an event of its own
	if !reflect.DeepEqual(last, wantLast) {
		t.Fatalf("last member.status: %+v, want %+v", last, wantLast)
	}
	team = api.Team{}
	decodeStrict(t, evs[8].Data, &team)
	if team.Status != "completed" || team.Members != nil {
		t.Fatalf("team.status: %+v", team)
	}
	var added []api.Finding
	for _, k := range []int{4, 5} {
		var fa api.FindingsAdded
		decodeStrict(t, evs[k].Data, &fa)
		if fa.Team != "t1" {
			t.Fatalf("findings.added: %+v", fa)
		}
		added = append(added, fa.Findings...)
	}
	if len(added) != 3 || len(findings) != 3 {
		t.Fatalf("findings added %+v, listed %+v", added, findings)
	}
	for _, f := range findings {
		found := false
		for _, a := range added {
			found = found || reflect.DeepEqual(a, f)
		}
		if !found {
			t.Fatalf("listed finding %+v is in no findings.added event (%+v)", f, added)
		}
	}
	var cd api.ConflictsDetected
	decodeStrict(t, evs[9].Data, &cd)
	if !reflect.DeepEqual(cd.Conflicts, conflicts) || cd.MergeID != statuses[3].Merge.MergeID {
		t.Fatalf("conflict.detected: %+v, want %+v of merge %s", cd, conflicts, statuses[3].Merge.MergeID)
	}
	var mc api.Merge
	decodeStrict(t, evs[10].Data, &mc)
	wantMerge := *statuses[3].Merge
	wantMerge.Facts, wantMerge.OpenConflicts = []api.Fact{}, nil // conflict.detected carries them
	if !reflect.DeepEqual(mc, wantMerge) {
		t.Fatalf("merge.completed: %+v, want %+v", mc, wantMerge)
	}
	var cr api.Conflict
	decodeStrict(t, evs[11].Data, &cr)
	if !reflect.DeepEqual(cr, afterResolve[0]) {
		t.Fatalf("conflict.resolved: %+v, want %+v", cr, afterResolve[0])
	}
	decodeStrict(t, evs[12].Data, &mc)
	if mc.MergeID != resolved.MergeID || mc.Kept != resolved.Kept {
		t.Fatalf("merge.completed after the resolution: %+v, want %+v", mc, resolved)
	}
	var del api.TeamDeleted
	decodeStrict(t, evs[13].Data, &del)
	if del != (api.TeamDeleted{Team: "t1", Deleted: true}) {
		t.Fatalf("team.deleted: %+v", del)
	}

	// A reconnecting client: Last-Event-ID wins over ?after=, and the
	// events after it come again, the same.
	again := ts.openEvents("acme", "?after=0", "Last-Event-ID", "9").read(5)
	if !reflect.DeepEqual(again, evs[9:]) {
		t.Fatalf("after reconnecting at 9: %+v, want %+v", again, evs[9:])
	}
	// Without a position, only new events.
	fresh := ts.openEvents("acme", "")
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "t2", Name: "n", Members: []api.MemberConfig{{Agent: "a"}}}, nil)
	if got := fresh.read(1); got[0].ID != 15 || got[0].Type != "team.created" || got[0].Team != "t2" {
		t.Fatalf("new stream: %+v", got[0])
	}
	if got := st.read(1); got[0].ID != 15 {
		t.Fatalf("first stream: %+v", got[0])
	}
}

func TestEvents_BadRequests(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "t1", Name: "n", Members: []api.MemberConfig{{Agent: "a"}}}, nil)
	for _, tc := range []struct {
		name, path string
		header     []string
		status     int
		kind, msg  string
	}{
		{"a Last-Event-ID that is no number", "/ns/acme/events", []string{"Last-Event-ID", "x7"}, 400, "invalid", `Last-Event-ID "x7"`},
		{"an after that is no number", "/ns/acme/events?after=-1", nil, 400, "invalid", `after "-1"`},
		{"an id past the last event", "/ns/acme/events?after=2", nil, 400, "invalid", "the last event is 1"},
		{"after given twice", "/ns/acme/events?after=1&after=0", nil, 400, "usage", "after given 2 times"},
		{"an unknown namespace", "/ns/ghost/events", nil, 404, "not_found", "ghost"},
		{"a bad namespace", "/ns/a%2Fb/events", nil, 400, "invalid", "namespace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := ts.do("GET", tc.path, "", nil, tc.header...)
			if resp.StatusCode != tc.status || resp.Header.Get("Cortex-Error-Kind") != tc.kind || !strings.Contains(body, tc.msg) {
				t.Fatalf("%d %s: %s", resp.StatusCode, resp.Header.Get("Cortex-Error-Kind"), body)
			}
		})
	}
	// Two Last-Event-ID headers: a proxy may read the one, the server the
	// other.
	req, _ := http.NewRequest("GET", ts.url+"/ns/acme/events", nil)
	req.Header.Add("Last-Event-ID", "1")
	req.Header.Add("Last-Event-ID", "0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 || resp.Header.Get("Cortex-Error-Kind") != "usage" {
		t.Fatalf("two Last-Event-ID headers: %d %s", resp.StatusCode, resp.Header.Get("Cortex-Error-Kind"))
	}
}

// TestEvents_Heartbeat: an idle stream gets comment lines.
func TestEvents_Heartbeat(t *testing.T) {
	defer server.SetEventHeartbeat(time.Millisecond)()
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "t1", Name: "n", Members: []api.MemberConfig{{Agent: "a"}}}, nil)
	st := ts.openEvents("acme", "")
	for len(st.comments) < 3 {
		line, err := st.r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if line == ": ping\n" {
			st.comments = append(st.comments, line)
		}
	}
}

// TestEvents_Shutdown: open event streams do not hold the graceful
// shutdown back (the shutdown timeout here is an hour): they are ended,
// and the client sees the stream end.
func TestEvents_Shutdown(t *testing.T) {
	store := cortextest.NewStore(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- server.New(store, server.DefaultOptions().WithShutdownTimeout(time.Hour)).Serve(ctx, l)
	}()
	ts := &testServer{t: t, url: "http://" + l.Addr().String()}
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "t1", Name: "n", Members: []api.MemberConfig{{Agent: "a"}}}, nil)
	streams := []*sseStream{ts.openEvents("acme", "?after=0"), ts.openEvents("acme", "")}
	streams[0].read(1)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	for i, st := range streams {
		if _, err := st.next(); err != io.EOF && err != io.ErrUnexpectedEOF {
			t.Fatalf("stream %d after the shutdown: %v", i, err)
		}
	}
}

// childServe serves the store in dir on 127.0.0.1 and prints the address
// it listens on, until it is killed.
func childServe(dir string) error {
	s, err := cortex.Open(context.Background(), dir, cortex.DefaultOptions())
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println("listening", l.Addr())
	return server.New(s, server.DefaultOptions()).Serve(context.Background(), l)
}

// TestEvents_KillDuringWrites kills (SIGKILL) a server process while
// clients write through it, then serves the store again: the events of
// every acknowledged write are there, with ids 1..N, each of a team that
// exists.
func TestEvents_KillDuringWrites(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CORTEX_SERVER_CHILD=serve", "CORTEX_SERVER_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if err != nil || !ok {
		t.Fatalf("child: %q, %v", line, err)
	}
	child := &testServer{t: t, url: "http://" + addr}

	// Writers: each creates teams until the server dies; a creation is
	// acknowledged when its answer arrives.
	const writers = 4
	acked := make(chan string, 1000)
	stopped := make(chan struct{}, writers)
	for w := range writers {
		go func() {
			defer func() { stopped <- struct{}{} }()
			for k := 0; ; k++ {
				id := fmt.Sprintf("w%dt%d", w, k)
				body := `{"jsonrpc":"2.0","id":1,"method":"teams.create","params":{"id":"` + id + `","name":"n","members":[{"agent":"a"}]}}`
				resp, err := http.Post(child.url+"/ns/acme/rpc", "application/json", strings.NewReader(body))
				if err != nil {
					return // the server is gone
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || !strings.Contains(string(b), `"result"`) {
					return
				}
				acked <- id
			}
		}()
	}
	got := map[string]bool{}
	for len(got) < 40 {
		got[<-acked] = true
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL, writes in flight
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for range writers {
		<-stopped
	}
	close(acked)
	for id := range acked {
		got[id] = true
	}

	// Serve the store again, here, and read every event.
	s, err := cortex.Open(context.Background(), dir, cortex.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.New(s, server.DefaultOptions()).Serve(ctx, l) }()
	defer func() { cancel(); <-done }()
	again := &testServer{t: t, url: "http://" + l.Addr().String()}
	var teams []api.Team
	again.ok("acme", "teams.list", map[string]any{}, &teams)
	evs := again.openEvents("acme", "?after=0").read(len(teams))
	created := map[string]bool{}
	for i, ev := range evs {
		if ev.ID != uint64(i+1) || ev.Type != "team.created" || created[ev.Team] {
			t.Fatalf("event %d: %d %s %s", i, ev.ID, ev.Type, ev.Team)
		}
		created[ev.Team] = true
	}
	for _, tm := range teams {
		if !created[tm.ID] {
			t.Fatalf("team %s has no event", tm.ID)
		}
	}
	for id := range got {
		if !created[id] {
			t.Fatalf("acknowledged team %s has no event", id)
		}
	}
	// And no event beyond them: the last id is the number of teams.
	if resp, body := again.do("GET", fmt.Sprintf("/ns/acme/events?after=%d", len(teams)+1), "", nil); resp.StatusCode != 400 ||
		!strings.Contains(body, fmt.Sprintf("the last event is %d", len(teams))) {
		t.Fatalf("after the last team: %d %s", resp.StatusCode, body)
	}
}

// TestEvents_HeadEnds: HEAD of an event stream answers the stream's
// headers and ends, so that the next request on the connection is
// served; it used to hold the connection as an open stream does, and the
// next request waited forever.
func TestEvents_HeadEnds(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "t1", Name: "n", Members: []api.MemberConfig{{Agent: "a"}}}, nil)
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A guard against a hang, not a measure: the test fails instead of
	// waiting for the test binary's timeout.
	if err := conn.SetDeadline(time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(conn, "HEAD /ns/acme/events?after=0 HTTP/1.1\r\nHost: localhost\r\n\r\nGET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	head, err := http.ReadResponse(br, &http.Request{Method: "HEAD"})
	if err != nil {
		t.Fatal(err)
	}
	head.Body.Close()
	if head.StatusCode != http.StatusOK || head.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("HEAD: %d %s", head.StatusCode, head.Header.Get("Content-Type"))
	}
	next, err := http.ReadResponse(br, &http.Request{Method: "GET"})
	if err != nil {
		t.Fatalf("the request after HEAD of the stream: %v", err)
	}
	defer next.Body.Close()
	body, err := io.ReadAll(next.Body)
	if err != nil || next.StatusCode != http.StatusOK || string(body) != "ok\n" {
		t.Fatalf("the request after HEAD of the stream: %d %q %v", next.StatusCode, body, err)
	}
}

// TestEvents_NamespaceDeletedEndsStream: a stream of a namespace that
// namespaces.delete deletes ends, with a comment saying why, instead of
// staying open with nothing more to come (a namespace created again
// under the name numbers its own events from 1, on another log). The
// heartbeat is fast so that a stream left open shows as pings: it must
// end before many of them.
func TestEvents_NamespaceDeletedEndsStream(t *testing.T) {
	defer server.SetEventHeartbeat(time.Millisecond)()
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "t1", Name: "n", Members: []api.MemberConfig{{Agent: "a"}}}, nil)
	st := ts.openEvents("acme", "?after=0")
	st.read(1)
	ts.ok("acme", "namespaces.delete", map[string]any{"name": "acme"}, nil)
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "t2", Name: "n", Members: []api.MemberConfig{{Agent: "a"}}}, nil)
	var last string
	for pings := 0; ; {
		line, err := st.r.ReadString('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if line == ": ping\n" {
			if pings++; pings == 500 {
				t.Fatalf("the stream of the deleted namespace is still open after %d heartbeats", pings)
			}
			continue
		}
		if line != "\n" {
			last = line
		}
	}
	if !strings.Contains(last, "namespace acme was deleted") {
		t.Fatalf("the stream ended with %q, want a comment saying the namespace was deleted", last)
	}
	// A new stream follows the new namespace.
	if evs := ts.openEvents("acme", "?after=0").read(1); evs[0].ID != 1 || evs[0].Team != "t2" {
		t.Fatalf("new stream: %+v", evs[0])
	}
}

// TestEvents_ResumePointAtConnect: a stream gives its client a resume
// point as soon as it opens, before any event: a message with only an id
// field, the id the stream starts after, which sets an EventSource's last
// event id without firing an event. A client that goes before the first
// event and comes back with it misses nothing that was written meanwhile,
// and does not get the history before it either.
func TestEvents_ResumePointAtConnect(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	for i := range 3 {
		ts.ok("acme", "teams.create", api.TeamConfig{ID: fmt.Sprint("t", i), Name: "n", Members: []api.MemberConfig{{Agent: "a"}}}, nil)
	}
	for _, tc := range []struct {
		name, query, want string
	}{{"new events only", "", "3"}, {"after 1", "?after=1", "1"}, {"from the oldest", "?after=0", "0"}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := firstLines(t, ts, "acme", tc.query); got != tc.want {
				t.Fatalf("resume point %q, want %q", got, tc.want)
			}
		})
	}
	// A client that leaves before any event and comes back with its
	// resume point gets exactly the events written while it was away.
	lastID := firstLines(t, ts, "acme", "")
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "away", Name: "n", Members: []api.MemberConfig{{Agent: "a"}}}, nil)
	back := ts.openEvents("acme", "", "Last-Event-ID", lastID)
	time.AfterFunc(10*time.Second, func() { back.resp.Body.Close() }) // a missed event: fail, not hang
	if evs := back.read(1); evs[0].ID != 4 || evs[0].Team != "away" {
		t.Fatalf("after coming back at %q: %+v", lastID, evs[0])
	}
}

// firstLines opens a stream of ns with query and reads it up to its first
// dispatch (with data or not), for a second at most, and closes it,
// returning the last event ID string that dispatch set ("" if none).
func firstLines(t *testing.T, ts *testServer, ns, query string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", ts.url+"/ns/"+ns+"/events"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	id, fields := "", false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return "" // the timeout, before any dispatch
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "" && fields:
			return id
		case strings.HasPrefix(line, "id: "):
			id, fields = strings.TrimPrefix(line, "id: "), true
		case line != "" && !strings.HasPrefix(line, ":"):
			fields = true
		}
	}
}

// TestEvents_NamespaceRecreated: event ids start at 1 again in a
// namespace deleted and created again under its name. A client connected
// at the deletion is moved back to 0 (a message with id 0 before the
// stream ends), so that its reconnection gets every event of the new
// namespace; a client that comes back with an id past the last event (it
// was away at the deletion) gets an events.lost event and then every
// event of the new namespace, instead of a 400 that an EventSource takes
// as final.
func TestEvents_NamespaceRecreated(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	team := func(id string) {
		ts.ok("acme", "teams.create", api.TeamConfig{ID: id, Name: "n", Members: []api.MemberConfig{{Agent: "a"}}}, nil)
	}
	for i := range 5 {
		team(fmt.Sprint("old", i))
	}
	st := ts.openEvents("acme", "?after=0")
	st.read(5)
	ts.ok("acme", "namespaces.delete", map[string]any{"name": "acme"}, nil)
	if _, err := st.next(); err != io.EOF {
		t.Fatalf("the stream of the deleted namespace: %v, want its end", err)
	}
	for i := range 3 {
		team(fmt.Sprint("new", i))
	}
	if st.lastID != "0" {
		t.Fatalf("last event id %q after the deletion, want 0", st.lastID)
	}
	evs := ts.openEvents("acme", "", "Last-Event-ID", st.lastID).read(3)
	if evs[0].ID != 1 || evs[0].Team != "new0" || evs[2].ID != 3 {
		t.Fatalf("reconnected: %+v", evs)
	}

	// Away at the deletion: its id 5 is past the new namespace's last, 3.
	away := ts.openEvents("acme", "", "Last-Event-ID", "5")
	evs = away.read(4)
	var lost api.EventsLost
	decodeStrict(t, evs[0].Data, &lost)
	if evs[0].Type != "events.lost" || evs[0].ID != 0 || lost != (api.EventsLost{After: 5, First: 1}) {
		t.Fatalf("first event after 5: %+v %+v", evs[0], lost)
	}
	if evs[1].ID != 1 || evs[1].Team != "new0" || evs[3].ID != 3 {
		t.Fatalf("after events.lost: %+v", evs[1:])
	}
	// ?after= past the last event stays an error: it is no reconnection.
	if resp, body := ts.do("GET", "/ns/acme/events?after=5", "", nil); resp.StatusCode != 400 {
		t.Fatalf("?after=5: %d %s", resp.StatusCode, body)
	}
}
