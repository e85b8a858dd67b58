package server_test

import (
	"context"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/server"
	"github.com/cortexgraph/cortex/teammanager"
)

// ends reads st until it ends and returns its comments; it fails the test
// if the stream has not ended after hangGuard (no threshold of the
// behaviour tested: a guard against a hang).
func ends(t *testing.T, st *sseStream) []string {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		for {
			if _, err := st.next(); err != nil {
				done <- err
				return
			}
		}
	}()
	select {
	case err := <-done:
		if err != io.EOF && err != io.ErrUnexpectedEOF {
			t.Fatalf("the stream ended with %v", err)
		}
	case <-time.After(hangGuard):
		st.resp.Body.Close()
		<-done
		t.Fatalf("the stream did not end")
	}
	return st.comments
}

// A token revoked while its event stream is open (by another process:
// another TokenFile of the same file, as cortexctl tokens revoke) ends
// the stream; a stream of another token goes on.
func TestEvents_RevokedTokenEndsStream(t *testing.T) {
	defer server.SetEventTokenCheck(5 * time.Millisecond)()
	f := tokenFile(t)
	ts := serve(t, server.DefaultOptions().WithTokens(f))
	writer, _ := mint(t, f, "acme", server.RoleWrite, 0)
	doomed, rec := mint(t, f, "acme", server.RoleRead, 0)
	kept, _ := mint(t, f, "acme", server.RoleRead, 0)
	if resp, body := ts.rpcAs("acme", "teams.create", `{"id":"t1","name":"n","members":[{"agent":"a"}]}`, bearer(writer)...); strings.Contains(body, `"error"`) {
		t.Fatalf("teams.create: %d %s", resp.StatusCode, body)
	}
	a := ts.openEvents("acme", "?after=0", bearer(doomed)...)
	b := ts.openEvents("acme", "?after=0", bearer(kept)...)
	a.read(1)
	b.read(1)
	if _, err := server.OpenTokens(f.Path()).Revoke(context.Background(), "acme", rec.ID); err != nil {
		t.Fatal(err)
	}
	comments := ends(t, a)
	if last := comments[len(comments)-1]; !strings.Contains(last, "revoked") {
		t.Errorf("the last comment of the ended stream: %q", last)
	}
	if resp, body := ts.rpcAs("acme", "teams.create", `{"id":"t2","name":"n","members":[{"agent":"a"}]}`, bearer(writer)...); strings.Contains(body, `"error"`) {
		t.Fatalf("teams.create: %d %s", resp.StatusCode, body)
	}
	if evs := b.read(1); evs[0].Team != "t2" {
		t.Fatalf("the other stream: %+v", evs)
	}
	// The revoked token opens no new stream.
	if resp, _ := ts.do("GET", "/ns/acme/events", "", nil, bearer(doomed)...); resp.StatusCode != 401 {
		t.Fatalf("a new stream with the revoked token: %d", resp.StatusCode)
	}
}

// A token that expires while its event stream is open ends the stream.
func TestEvents_ExpiredTokenEndsStream(t *testing.T) {
	defer server.SetEventTokenCheck(5 * time.Millisecond)()
	f := tokenFile(t)
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	ts := serve(t, server.WithClock(server.DefaultOptions().WithTokens(f), clock))
	writer, _ := mint(t, f, "acme", server.RoleWrite, 0)
	expiring, _ := mint(t, f, "acme", server.RoleRead, time.Hour)
	ts.rpcAs("acme", "teams.create", `{"id":"t1","name":"n","members":[{"agent":"a"}]}`, bearer(writer)...)
	st := ts.openEvents("acme", "?after=0", bearer(expiring)...)
	if evs := st.read(1); evs[0].Type != string(teammanager.EventTeamCreated) {
		t.Fatalf("%+v", evs)
	}
	now.Add(int64(2 * time.Hour))
	comments := ends(t, st)
	if last := comments[len(comments)-1]; !strings.Contains(last, "expired") {
		t.Errorf("the last comment of the ended stream: %q", last)
	}
}
