package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/server"
)

// TestMailRetention_ConcurrentChangeKept: mail retention with one flag,
// through a server, while another client changes the other setting between
// the command's first request and its next: both changes hold. The server
// here serves one request at a time and makes the other change (a
// teams.chat.configure of the other setting) right after the command's
// first mailbox request. (The command read the retention, then wrote both
// settings back: the other change, made between, was undone.)
func TestMailRetention_ConcurrentChangeKept(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
		other map[string]any // the other client's change
		want  api.MailRetention
	}{
		{"max-age while per-agent changes", []string{"--max-age", "1h"}, map[string]any{"team": "crew", "perAgent": 7},
			api.MailRetention{Team: "crew", MaxAge: 3600, PerAgent: 7}},
		{"per-agent while max-age changes", []string{"--per-agent", "7"}, map[string]any{"team": "crew", "maxAge": 3600},
			api.MailRetention{Team: "crew", MaxAge: 3600, PerAgent: 7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			crewTeam(t, dir)
			h, stop := serveOneAtATime(t, dir)
			var once sync.Once
			h.after = func(r *http.Request, body []byte) {
				if !bytes.Contains(body, []byte(`"teams.chat.`)) {
					return
				}
				once.Do(func() {
					p, _ := json.Marshal(tc.other)
					req := httptest.NewRequest("POST", r.URL.Path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"teams.chat.configure","params":`+string(p)+`}`))
					req.Header.Set("Content-Type", "application/json")
					rec := httptest.NewRecorder()
					h.inner.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), `"error"`) {
						t.Errorf("the other change: %d %s", rec.Code, rec.Body)
					}
				})
			}
			var out, errb bytes.Buffer
			code := run(context.Background(), append([]string{"cortexctl", "--data", dir, "mail", "retention", "crew", "--json"}, tc.flags...), strings.NewReader(""), &out, &errb)
			if code != exitOK {
				t.Fatalf("mail retention %v: exit %d\n%s", tc.flags, code, errb.String())
			}
			var show bytes.Buffer
			errb.Reset()
			if code := run(context.Background(), []string{"cortexctl", "--data", dir, "mail", "retention", "crew", "--json"}, strings.NewReader(""), &show, &errb); code != exitOK {
				t.Fatalf("mail retention: exit %d\n%s", code, errb.String())
			}
			stop()
			var got api.MailRetention
			if err := json.Unmarshal(show.Bytes(), &got); err != nil {
				t.Fatalf("%v in %s", err, show.String())
			}
			if got != tc.want {
				t.Fatalf("retention after mail retention %v and the other change %v: %+v, want %+v", tc.flags, tc.other, got, tc.want)
			}
		})
	}
}

// oneAtATime serves one request at a time with inner, then calls after
// (if set) with the request and its body before the next. It opens no
// JSON-RPC stream.
type oneAtATime struct {
	mu    sync.Mutex
	inner http.Handler
	after func(r *http.Request, body []byte)
}

func (h *oneAtATime) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Upgrade") != "" {
		// No JSON-RPC stream: the client sends each call as a request.
		http.Error(w, "no JSON-RPC streams here", http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	h.inner.ServeHTTP(w, r)
	if h.after != nil {
		h.after(r, body)
	}
}

// serveOneAtATime serves the store in dir on a Unix socket its discovery
// file names (as serveForCLI does) through a oneAtATime handler; stop
// stops it and closes the store.
func serveOneAtATime(t *testing.T, dir string) (_ *oneAtATime, stop func()) {
	t.Helper()
	ctx := context.Background()
	s, err := cortex.Open(ctx, dir, cortex.DefaultOptions().WithCreate(false))
	if err != nil {
		t.Fatal(err)
	}
	l, sockDir := discoverableSocket(t, dir)
	h := &oneAtATime{inner: server.New(s, server.DefaultOptions()).Handler()}
	hs := &http.Server{Handler: h}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(l) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			if err := hs.Shutdown(ctx); err != nil {
				t.Errorf("serve: %v", err)
			}
			if err := <-done; !errors.Is(err, http.ErrServerClosed) {
				t.Errorf("serve: %v", err)
			}
			if err := server.RemoveDiscovery(dir, os.Getpid()); err != nil {
				t.Error(err)
			}
			if err := s.Close(); err != nil {
				t.Error(err)
			}
			os.RemoveAll(sockDir)
		})
	}
	t.Cleanup(stop)
	return h, stop
}
