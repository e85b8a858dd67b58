package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/server"
)

// TestEvents_MaxStreams: at most WithMaxEventStreams event streams are
// open at once, every namespace together; one more is refused at once,
// 503 with Retry-After, kind busy, and a stream that ends frees its
// place. There was no limit: every client could hold any number of
// streams, each a connection, goroutines and a store read per event.
func TestEvents_MaxStreams(t *testing.T) {
	ts := serve(t, server.DefaultOptions().WithMaxEventStreams(2))
	for _, ns := range []string{"acme", "other"} {
		ts.ok(ns, "teams.create", api.TeamConfig{ID: "t1", Name: "n", Members: []api.MemberConfig{{Agent: "a"}}}, nil)
	}
	first := ts.openEvents("acme", "")
	ts.openEvents("other", "")
	for _, method := range []string{"GET", "HEAD"} {
		// Its status before its body: an open stream's body never ends.
		req, err := http.NewRequest(method, ts.url+"/ns/other/events", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || resp.Header.Get("Cortex-Error-Kind") != "busy" {
			t.Fatalf("%s of a third stream: %d %v, want 503 busy with Retry-After", method, resp.StatusCode, resp.Header)
		}
	}
	// The message names the limit.
	if resp, body := ts.do("GET", "/ns/acme/events", "", nil); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "2 event streams are open") {
		t.Fatalf("a third stream: %d %s", resp.StatusCode, body)
	}
	// A stream's end frees its place, once the server sees its client gone.
	first.resp.Body.Close()
	for i := 0; ; i++ {
		resp, body := ts.do("HEAD", "/ns/acme/events", "", nil)
		if resp.StatusCode == http.StatusOK {
			break
		}
		if resp.StatusCode != http.StatusServiceUnavailable || i == 1000 {
			t.Fatalf("after a stream ended: %d %s", resp.StatusCode, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	ts.openEvents("acme", "")
}
