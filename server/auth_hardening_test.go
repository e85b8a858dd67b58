package server_test

import (
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/server"
)

// TestAuth_SeveralAuthorizationHeaders checks that a request with more
// than one Authorization header is 401, even when one of them holds a
// valid token: which one counts would depend on who reads them (a proxy
// may check the last, the server take the first).
func TestAuth_SeveralAuthorizationHeaders(t *testing.T) {
	f := tokenFile(t)
	ts := serve(t, server.DefaultOptions().WithTokens(f))
	good, _ := mint(t, f, "a", server.RoleAdmin, 0)
	for _, tc := range []struct {
		name    string
		headers []string
	}{
		{"valid then junk", []string{"Bearer " + good, "Bearer junk"}},
		{"junk then valid", []string{"Bearer junk", "Bearer " + good}},
		{"valid twice", []string{"Bearer " + good, "Bearer " + good}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest("POST", ts.url+"/ns/a/rpc", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"teams.list","params":{}}`))
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range tc.headers {
				req.Header.Add("Authorization", h)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401", resp.StatusCode)
			}
		})
	}
	if resp, body := ts.rpcAs("a", "teams.list", `{}`, bearer(good)...); resp.StatusCode != http.StatusOK {
		t.Fatalf("one header: status %d %s", resp.StatusCode, body)
	}
}

// TestAuth_CorruptTokenFile checks that a token file edited into invalid
// JSON refuses every TCP request that may need a token, with or without
// one, as the server's fault (500, kind internal, no WWW-Authenticate),
// not as a syntax error of the request (400); /healthz still answers,
// and the server works again once the file is fixed.
func TestAuth_CorruptTokenFile(t *testing.T) {
	f := tokenFile(t)
	ts := serve(t, server.DefaultOptions().WithTokens(f))
	tok, _ := mint(t, f, "a", server.RoleAdmin, 0)
	good, err := os.ReadFile(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.Path(), []byte(`[{"id": `), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		header []string
	}{{"with a token", bearer(tok)}, {"without a token", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := ts.do("GET", "/ns/a/sparql?query=ASK%7B%7D", "", nil, tc.header...)
			if resp.StatusCode != http.StatusInternalServerError {
				t.Fatalf("status %d, want 500: %s", resp.StatusCode, body)
			}
			if k := resp.Header.Get("Cortex-Error-Kind"); k != string(api.KindInternal) {
				t.Errorf("kind %q, want internal", k)
			}
			if h := resp.Header.Get("WWW-Authenticate"); h != "" {
				t.Errorf("WWW-Authenticate %q: a token would not help", h)
			}
			if !strings.Contains(body, f.Path()) || !strings.Contains(body, "token file") {
				t.Errorf("the message does not name the token file: %s", body)
			}
		})
	}
	if resp, body := ts.do("GET", "/healthz", "", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("healthz: %d %s", resp.StatusCode, body)
	}
	if err := os.WriteFile(f.Path(), good, 0o600); err != nil {
		t.Fatal(err)
	}
	if resp, body := ts.rpcAs("a", "teams.list", `{}`, bearer(tok)...); resp.StatusCode != http.StatusOK {
		t.Fatalf("the file fixed: status %d %s", resp.StatusCode, body)
	}
}

// TestTokenFile_ExpiryNotShorter checks that a token made valid for a
// duration is valid for at least that long: its expiry, in whole seconds
// as its creation time, is rounded up, not down.
func TestTokenFile_ExpiryNotShorter(t *testing.T) {
	f := tokenFile(t)
	for _, ttl := range []time.Duration{time.Nanosecond, 500 * time.Millisecond, 1500 * time.Millisecond, time.Hour} {
		before := time.Now()
		tok, rec := mint(t, f, "a", server.RoleRead, ttl)
		if rec.Expires == nil {
			t.Fatalf("ttl %s: no expiry", ttl)
		}
		if rec.Expires.Before(before.Add(ttl)) {
			t.Errorf("ttl %s: created at or after %s, expires %s: shorter than asked", ttl, before.Format(time.RFC3339Nano), rec.Expires.Format(time.RFC3339Nano))
		}
		if rec.Expires.Nanosecond() != 0 {
			t.Errorf("ttl %s: expiry %s is not a whole second", ttl, rec.Expires.Format(time.RFC3339Nano))
		}
		if _, err := f.Authenticate(tok, before); err != nil {
			t.Errorf("ttl %s: at its creation: %v", ttl, err)
		}
	}
}

// TestParseExpiry_TooLong checks that a duration too long to be one says
// so, not only "want a positive duration" of a positive one.
func TestParseExpiry_TooLong(t *testing.T) {
	_, err := server.ParseExpiry("100000000h")
	if !errors.Is(err, api.ErrInvalid) || !strings.Contains(err.Error(), "invalid duration") {
		t.Fatalf("ParseExpiry(100000000h) = %v, want invalid value saying invalid duration", err)
	}
}

// TestEvents_FirstTokenEndsAnonymousStream checks that an event stream
// opened over TCP without a token, while none existed, ends once a token
// is created (by another process: another TokenFile of the file): from
// then on every request needs one, a stream already open too.
func TestEvents_FirstTokenEndsAnonymousStream(t *testing.T) {
	defer server.SetEventTokenCheck(5 * time.Millisecond)()
	f := tokenFile(t)
	ts := serve(t, server.DefaultOptions().WithTokens(f))
	if resp, body := ts.rpcAs("acme", "teams.create", `{"id":"t1","name":"n","members":[{"agent":"a"}]}`); strings.Contains(body, `"error"`) {
		t.Fatalf("teams.create: %d %s", resp.StatusCode, body)
	}
	st := ts.openEvents("acme", "?after=0")
	st.read(1)
	mint(t, server.OpenTokens(f.Path()), "acme", server.RoleRead, 0)
	comments := ends(t, st)
	if last := comments[len(comments)-1]; !strings.Contains(last, "token now exists") {
		t.Errorf("the last comment of the ended stream: %q", last)
	}
}
