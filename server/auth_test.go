package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/server"
)

// tokenFile returns a token file in a fresh directory.
func tokenFile(t *testing.T) *server.TokenFile {
	t.Helper()
	return server.OpenTokens(filepath.Join(t.TempDir(), "tokens.json"))
}

// mint creates a token of ns with role r (and ttl) or fails the test.
func mint(t *testing.T, f *server.TokenFile, ns string, r server.Role, ttl time.Duration) (string, server.Token) {
	t.Helper()
	tok, rec, err := f.Create(context.Background(), ns, r, ttl)
	if err != nil {
		t.Fatalf("Create(%s, %s): %v", ns, r, err)
	}
	return tok, rec
}

func bearer(tok string) []string { return []string{"Authorization", "Bearer " + tok} }

// rpcAs posts a single JSON-RPC request of method in ns with the headers.
func (ts *testServer) rpcAs(ns, method, params string, header ...string) (*http.Response, string) {
	ts.t.Helper()
	return ts.do("POST", "/ns/"+ns+"/rpc", "application/json",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`), header...)
}

// TestAuth_Tokens runs every kind of request against a server whose token
// file holds tokens: without a token, with malformed, unknown, revoked
// and expired ones (401), with another namespace's or too low a role
// (403), and with the right one.
func TestAuth_Tokens(t *testing.T) {
	f := tokenFile(t)
	now := time.Now()
	clock := func() time.Time { return now }
	ts := serve(t, server.WithClock(server.DefaultOptions().WithTokens(f), clock))

	readA, _ := mint(t, f, "a", server.RoleRead, 0)
	writeA, _ := mint(t, f, "a", server.RoleWrite, 0)
	adminA, _ := mint(t, f, "a", server.RoleAdmin, 0)
	adminB, _ := mint(t, f, "b", server.RoleAdmin, 0)
	revoked, rec := mint(t, f, "a", server.RoleAdmin, 0)
	if _, err := f.Revoke(context.Background(), "", rec.ID); err != nil {
		t.Fatal(err)
	}
	expiring, _ := mint(t, f, "a", server.RoleAdmin, time.Hour)
	now = now.Add(2 * time.Hour) // the server's clock: expiring has expired
	unknown := "ctk_0123456789ab_" + strings.Repeat("A", 43)
	forged := strings.TrimSuffix(readA, readA[len(readA)-1:]) + "x" // a known id, another secret
	if forged == readA {
		forged = strings.TrimSuffix(readA, readA[len(readA)-1:]) + "y"
	}

	// The namespace exists, so that allowed requests succeed.
	if resp, body := ts.rpcAs("a", "teams.create", `{"id":"t1","name":"n","members":[{"agent":"x"}]}`, bearer(writeA)...); resp.StatusCode != http.StatusOK || strings.Contains(body, `"error"`) {
		t.Fatalf("teams.create with a write token: %d %s", resp.StatusCode, body)
	}

	type req struct{ method, path, ctype, body string }
	rpc := func(method, params string) req {
		return req{"POST", "/ns/a/rpc", "application/json", `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`}
	}
	teamsList := rpc("teams.list", `{}`)
	for _, tc := range []struct {
		name   string
		r      req
		header []string
		status int
	}{
		{"no header", teamsList, nil, 401},
		{"basic scheme", teamsList, []string{"Authorization", "Basic dXNlcjpwYXNz"}, 401},
		{"bearer without token", teamsList, []string{"Authorization", "Bearer "}, 401},
		{"malformed token", teamsList, bearer("not-a-token"), 401},
		{"truncated token", teamsList, bearer(readA[:len(readA)-1]), 401},
		{"unknown token", teamsList, bearer(unknown), 401},
		{"forged secret", teamsList, bearer(forged), 401},
		{"revoked token", teamsList, bearer(revoked), 401},
		{"expired token", teamsList, bearer(expiring), 401},
		{"metrics without token", req{"GET", "/metrics", "", ""}, nil, 401},
		{"unknown route without token", req{"GET", "/nope", "", ""}, nil, 401},

		{"other namespace rpc", teamsList, bearer(adminB), 403},
		{"other namespace sparql", req{"GET", "/ns/a/sparql?query=ASK%7B%7D", "", ""}, bearer(adminB), 403},
		{"other namespace data", req{"GET", "/ns/a/data?default", "", ""}, bearer(adminB), 403},
		{"other namespace events", req{"GET", "/ns/a/events", "", ""}, bearer(adminB), 403},
		{"read creates a team", rpc("teams.create", `{"id":"t2","name":"n","members":[{"agent":"x"}]}`), bearer(readA), 403},
		{"read adds a finding", rpc("findings.add", `{"team":"t1","agent":"x","subject":"<http://s>","predicate":"<http://p>","object":"1"}`), bearer(readA), 403},
		{"read imports a graph", req{"PUT", "/ns/a/data?graph=http://g", "application/n-triples", "<http://s> <http://p> <http://o> .\n"}, bearer(readA), 403},
		{"read posts to a graph", req{"POST", "/ns/a/data?graph=http://g", "application/n-triples", "<http://s> <http://p> <http://o> .\n"}, bearer(readA), 403},
		{"write deletes a team", rpc("teams.delete", `{"team":"t1"}`), bearer(writeA), 403},
		{"write deletes a graph", req{"DELETE", "/ns/a/data?graph=http://g", "", ""}, bearer(writeA), 403},
		{"write lists namespaces", rpc("namespaces.list", `{}`), bearer(writeA), 403},
		{"write creates a token", rpc("tokens.create", `{"role":"read"}`), bearer(writeA), 403},
		// A driver's call (workflows.as_driver) needs the role of the call
		// it holds, not the wrapper's.
		{"read adds a finding as a driver", rpc("workflows.as_driver", `{"run":"r","driver":"d","method":"findings.add","params":{"team":"t1","agent":"x","subject":"<http://s>","predicate":"<http://p>","object":"1"}}`), bearer(readA), 403},
		{"write deletes a team as a driver", rpc("workflows.as_driver", `{"run":"r","driver":"d","method":"teams.delete","params":{"team":"t1"}}`), bearer(writeA), 403},

		{"read lists teams", teamsList, bearer(readA), 200},
		{"read lists teams as a driver", rpc("workflows.as_driver", `{"run":"r","driver":"d","method":"teams.list","params":{}}`), bearer(readA), 200},
		{"lower-case scheme", teamsList, []string{"Authorization", "bearer " + readA}, 200},
		{"read queries", req{"GET", "/ns/a/sparql?query=ASK%7B%7D", "", ""}, bearer(readA), 200},
		{"read follows events", req{"GET", "/ns/a/events", "", ""}, bearer(readA), 200},
		{"read exports", req{"GET", "/ns/a/data?default", "", ""}, bearer(readA), 200},
		// HEAD is GET without the body: the same role (the export route's
		// HEAD needed admin, a role of no entry of the table).
		{"read heads a graph", req{"HEAD", "/ns/a/data?default", "", ""}, bearer(readA), 200},
		{"read heads a query", req{"HEAD", "/ns/a/sparql?query=ASK%7B%7D", "", ""}, bearer(readA), 200},
		{"read heads the export", req{"HEAD", "/ns/a/export", "", ""}, bearer(readA), 200},
		{"read gets the export", req{"GET", "/ns/a/export", "", ""}, bearer(readA), 200},
		{"write imports a graph", req{"PUT", "/ns/a/data?graph=http://g", "application/n-triples", "<http://s> <http://p> <http://o> .\n"}, bearer(writeA), 201},
		{"admin deletes a graph", req{"DELETE", "/ns/a/data?graph=http://g", "", ""}, bearer(adminA), 204},
		{"metrics with any token", req{"GET", "/metrics", "", ""}, bearer(readA), 200},
		{"healthz without token", req{"GET", "/healthz", "", ""}, nil, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body *strings.Reader
			if tc.r.body != "" {
				body = strings.NewReader(tc.r.body)
			}
			var resp *http.Response
			var out string
			if strings.HasSuffix(tc.r.path, "/events") {
				// A stream allowed would not end: read the status only.
				req, _ := http.NewRequest(tc.r.method, ts.url+tc.r.path, nil)
				for i := 0; i+1 < len(tc.header); i += 2 {
					req.Header.Set(tc.header[i], tc.header[i+1])
				}
				var err error
				if resp, err = http.DefaultClient.Do(req); err != nil {
					t.Fatal(err)
				}
				if resp.StatusCode == http.StatusOK {
					resp.Body.Close()
				} else {
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					out = string(b)
				}
			} else if body != nil {
				resp, out = ts.do(tc.r.method, tc.r.path, tc.r.ctype, body, tc.header...)
			} else {
				resp, out = ts.do(tc.r.method, tc.r.path, tc.r.ctype, nil, tc.header...)
			}
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, out)
			}
			switch tc.status {
			case 401:
				if got := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
					t.Errorf("WWW-Authenticate = %q", got)
				}
				fallthrough
			case 403:
				exit := resp.Header.Get("Cortex-Exit-Code")
				if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") { // a JSON-RPC error object
					var r rpcResponse
					if err := json.Unmarshal([]byte(out), &r); err != nil || r.Error == nil {
						t.Fatalf("want a JSON-RPC error, got %s", out)
					}
					exit, out = fmt.Sprint(r.Error.Data.ExitCode), r.Error.Data.Kind+" "+r.Error.Message
				}
				if exit != fmt.Sprint(api.ExitDenied) || !strings.Contains(out, "denied") {
					t.Errorf("exit code %s, message %q; want %d, permission denied", exit, out, api.ExitDenied)
				}
			}
		})
	}
}

// TestAuth_BatchChecksEachMethod checks that a batch runs the methods its
// token allows and refuses the others, each in its own response.
func TestAuth_BatchChecksEachMethod(t *testing.T) {
	f := tokenFile(t)
	ts := serve(t, server.DefaultOptions().WithTokens(f))
	write, _ := mint(t, f, "a", server.RoleWrite, 0)
	read, _ := mint(t, f, "a", server.RoleRead, 0)
	ts.rpcAs("a", "teams.create", `{"id":"t1","name":"n","members":[{"agent":"x"}]}`, bearer(write)...)
	resp, body := ts.do("POST", "/ns/a/rpc", "application/json", strings.NewReader(`[
		{"jsonrpc":"2.0","id":1,"method":"teams.list","params":{}},
		{"jsonrpc":"2.0","id":2,"method":"teams.create","params":{"id":"t2","name":"n","members":[{"agent":"x"}]}}]`), bearer(read)...)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	var out []rpcResponse
	if err := json.Unmarshal([]byte(body), &out); err != nil || len(out) != 2 {
		t.Fatalf("want 2 responses: %v %s", err, body)
	}
	if out[0].Error != nil || !strings.Contains(string(out[0].Result), "t1") {
		t.Errorf("teams.list: %s", body)
	}
	if out[1].Error == nil || out[1].Error.Data.Kind != "denied" {
		t.Errorf("teams.create with a read token: %s", body)
	}
	var teams []json.RawMessage
	_, list := ts.rpcAs("a", "teams.list", `{}`, bearer(read)...)
	var r rpcResponse
	if err := json.Unmarshal([]byte(list), &r); err != nil || json.Unmarshal(r.Result, &teams) != nil || len(teams) != 1 {
		t.Errorf("after the batch, teams: %s (t2 must not exist)", list)
	}
}

// TestAuth_FirstTokenClosesLoopback checks that a loopback server is open
// while no token exists, and needs one from the request after the first
// token is created, by another TokenFile of the same file (as cortexctl
// tokens create does while a server runs).
func TestAuth_FirstTokenClosesLoopback(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.json")
	ts := serve(t, server.DefaultOptions().WithTokens(server.OpenTokens(path)))
	if resp, body := ts.rpcAs("a", "teams.list", `{}`); resp.StatusCode != 200 {
		t.Fatalf("no token yet: status %d %s", resp.StatusCode, body)
	}
	tok, rec := mint(t, server.OpenTokens(path), "a", server.RoleRead, 0)
	if resp, body := ts.rpcAs("a", "teams.list", `{}`); resp.StatusCode != 401 {
		t.Fatalf("a token exists: status %d %s, want 401", resp.StatusCode, body)
	}
	if resp, body := ts.rpcAs("a", "teams.list", `{}`, bearer(tok)...); resp.StatusCode != 200 {
		t.Fatalf("with the new token: status %d %s", resp.StatusCode, body)
	}
	// Revoking the only token does not open the server again.
	if _, err := server.OpenTokens(path).Revoke(context.Background(), "a", rec.ID); err != nil {
		t.Fatal(err)
	}
	if resp, body := ts.rpcAs("a", "teams.list", `{}`, bearer(tok)...); resp.StatusCode != 401 {
		t.Fatalf("revoked: status %d %s, want 401", resp.StatusCode, body)
	}
	if resp, body := ts.rpcAs("a", "teams.list", `{}`); resp.StatusCode != 401 {
		t.Fatalf("no token after the only one was revoked: status %d %s, want 401", resp.StatusCode, body)
	}
}

// serveListener serves a fresh store on l until the test ends.
func serveListener(t *testing.T, opts server.Options, l net.Listener) {
	t.Helper()
	store := cortextest.NewStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.New(store, opts).Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
}

// TestAuth_NotLoopbackNeedsTokens checks that a listener on every
// interface needs a token even when none exists, unless WithInsecure.
func TestAuth_NotLoopbackNeedsTokens(t *testing.T) {
	for _, tc := range []struct {
		name     string
		insecure bool
		status   int
	}{{"secure", false, 401}, {"insecure", true, 200}} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := net.Listen("tcp4", "0.0.0.0:0")
			if err != nil {
				t.Fatal(err)
			}
			_, port, _ := net.SplitHostPort(l.Addr().String())
			serveListener(t, server.DefaultOptions().WithTokens(tokenFile(t)).WithInsecure(tc.insecure), l)
			ts := &testServer{t: t, url: "http://127.0.0.1:" + port}
			if resp, body := ts.rpcAs("a", "teams.list", `{}`); resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
		})
	}
}

// TestAuth_SocketIsTrusted checks that requests on a Unix socket need no
// token, while the same server's TCP listener does.
func TestAuth_SocketIsTrusted(t *testing.T) {
	f := tokenFile(t)
	mint(t, f, "a", server.RoleRead, 0)
	sock := filepath.Join(t.TempDir(), "s.sock")
	ul, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	store := cortextest.NewStore(t)
	srv := server.New(store, server.DefaultOptions().WithTokens(f))
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, l := range []net.Listener{ul, tl} {
		wg.Add(1)
		go func() { defer wg.Done(); srv.Serve(ctx, l) }()
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}}
	body := `{"jsonrpc":"2.0","id":1,"method":"namespaces.list","params":{}}`
	resp, err := hc.Post("http://cortex/ns/a/rpc", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("socket: status %d, want 200", resp.StatusCode)
	}
	resp, err = http.Post("http://"+tl.Addr().String()+"/ns/a/rpc", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("tcp: status %d, want 401", resp.StatusCode)
	}
}

// TestAuth_TokensRPC manages tokens over JSON-RPC with an admin token:
// create (shown once), list (its namespace only), revoke.
func TestAuth_TokensRPC(t *testing.T) {
	f := tokenFile(t)
	ts := serve(t, server.DefaultOptions().WithTokens(f))
	admin, _ := mint(t, f, "a", server.RoleAdmin, 0)
	mint(t, f, "b", server.RoleAdmin, 0)
	decode := func(body string, out any) {
		t.Helper()
		var r rpcResponse
		if err := json.Unmarshal([]byte(body), &r); err != nil || r.Error != nil {
			t.Fatalf("%v %s", err, body)
		}
		if err := json.Unmarshal(r.Result, out); err != nil {
			t.Fatal(err)
		}
	}
	_, body := ts.rpcAs("a", "tokens.create", `{"role":"write","expires":"24h"}`, bearer(admin)...)
	var created struct {
		server.Token
		Secret string `json:"token"`
	}
	decode(body, &created)
	if created.Namespace != "a" || created.Role != server.RoleWrite || created.Expires == nil || !strings.HasPrefix(created.Secret, "ctk_"+created.ID+"_") {
		t.Fatalf("created %+v", created)
	}
	if resp, out := ts.rpcAs("a", "teams.create", `{"id":"t","name":"n","members":[{"agent":"x"}]}`, bearer(created.Secret)...); resp.StatusCode != 200 || strings.Contains(out, `"error"`) {
		t.Fatalf("the new token: %d %s", resp.StatusCode, out)
	}
	_, body = ts.rpcAs("a", "tokens.list", `{}`, bearer(admin)...)
	var list []map[string]any
	decode(body, &list)
	if len(list) != 2 || strings.Contains(body, "ctk_") || strings.Contains(body, "hash") {
		t.Fatalf("list: %s", body)
	}
	for _, bad := range []struct{ params, kind string }{
		{`{"role":"root"}`, "invalid"},
		{`{"role":"read","expires":"-1h"}`, "invalid"},
		{`{}`, "usage"},
	} {
		_, out := ts.rpcAs("a", "tokens.create", bad.params, bearer(admin)...)
		if !strings.Contains(out, `"kind":"`+bad.kind+`"`) {
			t.Errorf("tokens.create %s: %s, want kind %s", bad.params, out, bad.kind)
		}
	}
	_, body = ts.rpcAs("a", "tokens.revoke", `{"id":"`+created.ID+`"}`, bearer(admin)...)
	var rev server.Token
	decode(body, &rev)
	if rev.Revoked == nil {
		t.Fatalf("revoke: %s", body)
	}
	if resp, out := ts.rpcAs("a", "teams.list", `{}`, bearer(created.Secret)...); resp.StatusCode != 401 {
		t.Fatalf("revoked token: %d %s", resp.StatusCode, out)
	}
	list = nil
	_, body = ts.rpcAs("a", "tokens.list", `{}`, bearer(admin)...)
	decode(body, &list)
	if len(list) != 2 || !strings.Contains(body, `"revoked":`) { // revoked, still listed
		t.Fatalf("list after revoke: %s", body)
	}
	bTokens, _ := f.List(context.Background(), "b")
	if _, out := ts.rpcAs("a", "tokens.revoke", `{"id":"`+bTokens[0].ID+`"}`, bearer(admin)...); !strings.Contains(out, `"kind":"not_found"`) {
		t.Errorf("revoking another namespace's token: %s", out)
	}
}

func TestTokenFile(t *testing.T) {
	ctx := context.Background()
	f := tokenFile(t)
	tok, rec, err := f.Create(ctx, "a", server.RoleRead, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(f.Path())
	if strings.Contains(string(b), tok[len("ctk_")+13:]) {
		t.Errorf("the file holds the token's secret: %s", b)
	}
	if got, err := f.Authenticate(tok, time.Now()); err != nil || got.ID != rec.ID {
		t.Errorf("Authenticate = %+v, %v", got, err)
	}
	for _, tc := range []struct {
		name string
		err  error
		run  func() error
	}{
		{"bad role", server.ErrInvalidRole, func() error { _, _, err := f.Create(ctx, "a", "root", 0); return err }},
		{"bad namespace", namespace.ErrInvalidName, func() error { _, _, err := f.Create(ctx, "../x", server.RoleRead, 0); return err }},
		{"negative ttl", api.ErrInvalid, func() error { _, _, err := f.Create(ctx, "a", server.RoleRead, -time.Hour); return err }},
		{"unknown id", server.ErrUnknownToken, func() error { _, err := f.Revoke(ctx, "", "000000000000"); return err }},
		{"other namespace", server.ErrUnknownToken, func() error { _, err := f.Revoke(ctx, "b", rec.ID); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.run(); !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if list, _ := f.List(ctx, ""); len(list) != 1 || list[0].Revoked != nil {
				t.Errorf("wrote something: %+v", list)
			}
		})
	}
	if _, err := server.ParseRole("owner"); !errors.Is(err, api.ErrInvalid) {
		t.Errorf("ParseRole(owner) = %v", err)
	}
}

// TestTokenFile_RevokeWithoutFile: revoking in a store that never had a
// token is an unknown token, and creates nothing: it made the directory
// (a --data that did not exist) and the file's lock file.
func TestTokenFile_RevokeWithoutFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "none")
	_, err := server.OpenTokens(filepath.Join(dir, "tokens.json")).Revoke(context.Background(), "", "000000000000")
	if !errors.Is(err, server.ErrUnknownToken) {
		t.Fatalf("revoke without a token file: %v, want ErrUnknownToken", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("revoke without a token file created %s (%v)", dir, err)
	}
}

// TestTokenFile_ConcurrentCreates creates tokens from several TokenFiles
// of one file at once (as several processes would): none is lost.
func TestTokenFile_ConcurrentCreates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.json")
	const n = 16
	var wg sync.WaitGroup
	toks := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok, _, err := server.OpenTokens(path).Create(context.Background(), "a", server.RoleRead, 0)
			if err != nil {
				t.Error(err)
			}
			toks[i] = tok
		}()
	}
	wg.Wait()
	f := server.OpenTokens(path)
	for _, tok := range toks {
		if _, err := f.Authenticate(tok, time.Now()); err != nil {
			t.Errorf("token lost: %v", err)
		}
	}
}

// TestAuth_PutThatRemovesNeedsAdmin: a Graph Store PUT replaces a graph,
// so it deletes what the graph held that the body does not: with a write
// token, an empty PUT of a team's state graph deleted the team, which
// teams.delete (admin) refuses to that token. A PUT that removes quads
// needs admin, as DELETE does, and writes nothing without it; one that
// only adds (a new graph, the same triples again, more) needs write.
func TestAuth_PutThatRemovesNeedsAdmin(t *testing.T) {
	f := tokenFile(t)
	ts := serve(t, server.DefaultOptions().WithTokens(f))
	writeA, _ := mint(t, f, "a", server.RoleWrite, 0)
	adminA, _ := mint(t, f, "a", server.RoleAdmin, 0)
	if resp, body := ts.rpcAs("a", "teams.create", `{"id":"t1","name":"n","members":[{"agent":"x"}]}`, bearer(writeA)...); resp.StatusCode != http.StatusOK || strings.Contains(body, `"error"`) {
		t.Fatalf("teams.create: %d %s", resp.StatusCode, body)
	}
	put := func(graph, body, tok string) (*http.Response, string) {
		t.Helper()
		return ts.do("PUT", "/ns/a/data?graph="+url.QueryEscape(graph), "application/n-triples", strings.NewReader(body), bearer(tok)...)
	}
	get := func(graph string) string {
		t.Helper()
		_, body := ts.do("GET", "/ns/a/data?graph="+url.QueryEscape(graph), "", nil, append(bearer(adminA), "Accept", "application/n-triples")...)
		return lines(body)
	}
	const a, b = "<http://ex/a> <http://ex/p> \"1\" .\n", "<http://ex/b> <http://ex/p> \"2\" .\n"
	for _, tc := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"a new graph", a, http.StatusCreated, lines(a)},
		{"the same triples again", a, http.StatusNoContent, lines(a)},
		{"more triples", a + b, http.StatusNoContent, lines(a + b)},
		{"fewer triples", a, http.StatusForbidden, lines(a + b)},
		{"other triples", "<http://ex/c> <http://ex/p> \"3\" .\n", http.StatusForbidden, lines(a + b)},
		{"nothing", "", http.StatusForbidden, lines(a + b)},
	} {
		resp, body := put("http://ex/g", tc.body, writeA)
		if resp.StatusCode != tc.status || tc.status == http.StatusForbidden && (resp.Header.Get("Cortex-Error-Kind") != "denied" || !strings.Contains(body, "needs role admin")) {
			t.Errorf("write PUT %s: %d %s %q, want %d", tc.name, resp.StatusCode, resp.Header.Get("Cortex-Error-Kind"), body, tc.status)
		}
		if got := get("http://ex/g"); got != tc.want {
			t.Errorf("after write PUT %s: graph %q, want %q", tc.name, got, tc.want)
		}
	}
	// The team's state graph: a write token cannot empty it, admin can.
	state := "urn:cortex:a:team:t1:graph:state"
	if resp, body := put(state, "", writeA); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("write PUT of nothing to the team's state: %d %s", resp.StatusCode, body)
	}
	if resp, body := ts.rpcAs("a", "teams.get", `{"team":"t1"}`, bearer(writeA)...); strings.Contains(body, `"error"`) {
		t.Fatalf("teams.get after the refused PUT: %d %s", resp.StatusCode, body)
	}
	if resp, body := put("http://ex/g", "", adminA); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("admin PUT of nothing: %d %s", resp.StatusCode, body)
	}
	if resp, body := ts.do("GET", "/ns/a/data?graph="+url.QueryEscape("http://ex/g"), "", nil, bearer(adminA)...); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("GET after admin PUT of nothing: %d %s, want 404 (no quads: no graph)", resp.StatusCode, body)
	}
}

// TestMetrics_ScopedToTheTokensNamespace: /metrics shows a namespace's
// token the series of its own namespace only, beside the server's own;
// a request let in without a token sees every namespace's.
func TestMetrics_ScopedToTheTokensNamespace(t *testing.T) {
	f := tokenFile(t)
	ts := serve(t, server.DefaultOptions().WithTokens(f))
	for _, ns := range []string{"alpha", "beta"} {
		// No token exists yet: the server is open on loopback.
		if resp, body := ts.rpcAs(ns, "teams.create", `{"id":"t1","name":"n","members":[{"agent":"x"}]}`); resp.StatusCode != http.StatusOK || strings.Contains(body, `"error"`) {
			t.Fatalf("teams.create in %s: %d %s", ns, resp.StatusCode, body)
		}
	}
	quads := func(ns string) string { return `cortex_namespace_quads{namespace="` + ns + `"} ` }
	metrics := func(header ...string) string {
		t.Helper()
		resp, body := ts.do("GET", "/metrics", "", nil, header...)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("metrics: %d %s", resp.StatusCode, body)
		}
		return body
	}
	if body := metrics(); !strings.Contains(body, quads("alpha")) || !strings.Contains(body, quads("beta")) {
		t.Fatalf("without tokens, metrics lack a namespace:\n%s", body)
	}
	readAlpha, _ := mint(t, f, "alpha", server.RoleRead, 0)
	adminBeta, _ := mint(t, f, "beta", server.RoleAdmin, 0)
	for _, tc := range []struct {
		tok, own, other string
	}{{readAlpha, "alpha", "beta"}, {adminBeta, "beta", "alpha"}} {
		body := metrics(bearer(tc.tok)...)
		if !strings.Contains(body, quads(tc.own)) {
			t.Errorf("a token of %s: metrics lack its namespace's quads:\n%s", tc.own, body)
		}
		if strings.Contains(body, `namespace="`+tc.other+`"`) {
			t.Errorf("a token of %s: metrics show namespace %s:\n%s", tc.own, tc.other, body)
		}
		if !strings.Contains(body, `cortex_http_requests_total{code="200",route="rpc"} 2`) || !strings.Contains(body, "# TYPE cortex_store_disk_bytes gauge") {
			t.Errorf("a token of %s: metrics lack the server's own series:\n%s", tc.own, body)
		}
	}
}

// TestAuth_MailRetentionNeedsAdmin: a mailbox's retention decides which
// messages the sends delete, so setting it (teams.chat.configure) needs
// admin, as the other deletes do; reading it (teams.chat.retention) needs
// read. (A write token set it: perAgent 1 had every later send delete all
// but one message of each inbox.) A refused call changes nothing.
func TestAuth_MailRetentionNeedsAdmin(t *testing.T) {
	f := tokenFile(t)
	ts := serve(t, server.DefaultOptions().WithTokens(f))
	readA, _ := mint(t, f, "a", server.RoleRead, 0)
	writeA, _ := mint(t, f, "a", server.RoleWrite, 0)
	adminA, _ := mint(t, f, "a", server.RoleAdmin, 0)
	if resp, body := ts.rpcAs("a", "teams.create", `{"id":"t1","name":"n","members":[{"agent":"x"},{"agent":"y"}]}`, bearer(writeA)...); resp.StatusCode != http.StatusOK || strings.Contains(body, `"error"`) {
		t.Fatalf("teams.create: %d %s", resp.StatusCode, body)
	}
	retention := func() string {
		t.Helper()
		resp, body := ts.rpcAs("a", "teams.chat.retention", `{"team":"t1"}`, bearer(readA)...)
		if resp.StatusCode != http.StatusOK || strings.Contains(body, `"error"`) {
			t.Fatalf("teams.chat.retention with a read token: %d %s", resp.StatusCode, body)
		}
		return body
	}
	before := retention()
	const configure = `{"team":"t1","maxAge":60,"perAgent":1}`
	for _, tc := range []struct {
		name string
		tok  string
	}{{"read", readA}, {"write", writeA}} {
		resp, body := ts.rpcAs("a", "teams.chat.configure", configure, bearer(tc.tok)...)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, `"kind":"denied"`) || !strings.Contains(body, "needs role admin") {
			t.Errorf("teams.chat.configure with a %s token: %d %s, want 403, denied, needs role admin", tc.name, resp.StatusCode, body)
		}
		if got := retention(); got != before {
			t.Fatalf("a refused teams.chat.configure (%s) changed the retention: %s → %s", tc.name, before, got)
		}
	}
	if resp, body := ts.rpcAs("a", "teams.chat.configure", configure, bearer(adminA)...); resp.StatusCode != http.StatusOK || strings.Contains(body, `"error"`) {
		t.Fatalf("teams.chat.configure with an admin token: %d %s", resp.StatusCode, body)
	}
	if got := retention(); !strings.Contains(got, `"maxAge":60`) || !strings.Contains(got, `"perAgent":1`) {
		t.Fatalf("retention after the admin's teams.chat.configure: %s", got)
	}
}
