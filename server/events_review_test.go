package server_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/config"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/server"
)

// TestEvents_EndCommentKeepsFraming: the comment that ends a stream whose
// token is gone quotes the token file's path; a CR in it (which ends an
// SSE line as LF does) must not end the comment line and inject fields:
// here a data line, which an EventSource would fire as an event.
func TestEvents_EndCommentKeepsFraming(t *testing.T) {
	defer server.SetEventTokenCheck(5 * time.Millisecond)()
	dir := filepath.Join(t.TempDir(), "x\rdata: {\"injected\":1}\r")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Skipf("a directory name with CR: %v", err)
	}
	path := filepath.Join(dir, "tokens.json")
	f := server.OpenTokens(path)
	ts := serve(t, server.DefaultOptions().WithTokens(f))
	writer, _ := mint(t, f, "acme", server.RoleWrite, 0)
	if resp, body := ts.rpcAs("acme", "teams.create", `{"id":"t1","name":"n","members":[{"agent":"a"}]}`, bearer(writer)...); strings.Contains(body, `"error"`) {
		t.Fatalf("teams.create: %d %s", resp.StatusCode, body)
	}
	st := ts.openEvents("acme", "?after=0", bearer(writer)...)
	st.read(1)
	// Another token file at the path, without the stream's token.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	mint(t, server.OpenTokens(path), "acme", server.RoleRead, 0)
	time.AfterFunc(hangGuard, func() { st.resp.Body.Close() })
	rest, err := io.ReadAll(st.r)
	if err != nil && err != context.Canceled {
		t.Logf("reading the rest: %v", err)
	}
	for _, line := range regexp.MustCompile("\r\n|\r|\n").Split(string(rest), -1) {
		if line != "" && !strings.HasPrefix(line, ":") {
			t.Fatalf("a field line %q after the token went (the rest: %q)", line, rest)
		}
	}
	if !strings.Contains(string(rest), "the stream ends") {
		t.Fatalf("the rest of the stream: %q", rest)
	}
}

// TestEvents_EmbedderDeletedNamespace: a namespace that an embedder
// deletes with cortex.Store.DeleteNamespace (not namespaces.delete) ends
// its streams as namespaces.delete does, and the server then serves the
// namespace created again under its name: the reconnection (Last-Event-ID
// 0, as the ending stream set it) gets its events. (The server kept the
// team manager of the deleted namespace: every call in it failed, and
// every new stream ended at once saying it was deleted, which an
// EventSource reconnects to for ever.)
func TestEvents_EmbedderDeletedNamespace(t *testing.T) {
	store := cortextest.NewStore(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.New(store, server.DefaultOptions()).Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	ts := &testServer{t: t, url: "http://" + l.Addr().String()}
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "old", Name: "n", Members: []api.MemberConfig{{Agent: "a"}}}, nil)
	st := ts.openEvents("acme", "?after=0")
	st.read(1)
	if err := store.DeleteNamespace(context.Background(), "acme"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.next(); err != io.EOF || st.lastID != "0" {
		t.Fatalf("the stream of the deleted namespace: %v, last event id %q; want its end, with id 0", err, st.lastID)
	}
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "new", Name: "n", Members: []api.MemberConfig{{Agent: "a"}}}, nil)
	back := ts.openEvents("acme", "", "Last-Event-ID", st.lastID)
	time.AfterFunc(hangGuard, func() { back.resp.Body.Close() })
	if evs := back.read(1); evs[0].ID != 1 || evs[0].Team != "new" {
		t.Fatalf("the reconnection: %+v", evs[0])
	}
}

// TestEvents_LastEventIDZeroReportsLoss: Last-Event-ID 0 is a client's
// position before event 1 (the resume point of a stream opened on an
// empty event log, or the id 0 a stream sets when its namespace is
// deleted): the events that retention removed since are lost to it, and
// it gets an events.lost event first, as a client at any later id does.
// (Only ?after=0 means "from the oldest event kept".)
func TestEvents_LastEventIDZeroReportsLoss(t *testing.T) {
	cfg := config.Default()
	cfg.Teams.EventMax = 2
	ts := serve(t, server.DefaultOptions().WithConfig(cfg))
	for i := range 5 {
		ts.ok("acme", "teams.create", api.TeamConfig{ID: fmt.Sprint("t", i), Name: "n", Members: []api.MemberConfig{{Agent: "a"}}}, nil)
	}
	evs := ts.openEvents("acme", "", "Last-Event-ID", "0").read(2)
	var lost api.EventsLost
	if evs[0].Type == "events.lost" {
		decodeStrict(t, evs[0].Data, &lost)
	}
	if evs[0].Type != "events.lost" || evs[0].ID != 3 || lost != (api.EventsLost{After: 0, First: 4}) || evs[1].ID != 4 {
		t.Fatalf("after Last-Event-ID 0, events 1 to 3 removed: %d %s, %d %s (lost %+v)", evs[0].ID, evs[0].Type, evs[1].ID, evs[1].Type, lost)
	}
	// ?after=0 starts with the oldest event kept.
	if evs := ts.openEvents("acme", "?after=0").read(1); evs[0].ID != 4 {
		t.Fatalf("?after=0: %+v", evs[0])
	}
}
