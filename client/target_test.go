package client_test

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/client"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/server"
	"github.com/cortexgraph/cortex/teammanager"
)

func TestNew_Targets(t *testing.T) {
	for _, tc := range []struct {
		target string
		ok     bool
	}{
		{"unix:///run/cortex.sock", true},
		{"/run/cortex.sock", true},
		{"http://127.0.0.1:7474", true},
		{"https://cortex.example:443/", true},
		{"unix://", false},
		{"http://", false},
		{"http://127.0.0.1:7474?x=1", false},
		{"unix:///run/my cortex/cortex.sock", true},
		{"unix:///run/my%20cortex/cortex.sock", true},
		{"unix:///run/50%/cortex.sock", false}, // '%' is %25
		{"unix:///run/a%zz.sock", false},
		{"http://[::1]:7474", true},
		{"http://[::1]", true},
		{"http://127.0.0.1:7474/cortex/", true},
		// An empty query or fragment: the routes went after it ("/?/ns/
		// default/rpc", the server's root), and a port no TCP address
		// has was an unavailable server (exit 6) at the first call.
		{"http://127.0.0.1:7474?", false},
		{"http://127.0.0.1:7474/#", false},
		{"http://127.0.0.1:99999", false},
		{"http://127.0.0.1:0", false},
		{"http://[::1]:65536", false},
		// A scheme is case-insensitive.
		{"HTTP://127.0.0.1:7474", true},
		{"Https://cortex.example", true},
		{"UNIX:///run/cortex.sock", true},
		{"HTTP://", false},
		{"ftp://127.0.0.1", false},
		{"127.0.0.1:7474", false},
		{"cortex.sock", false},
		{"", false},
	} {
		_, err := client.New(tc.target, client.DefaultOptions())
		if tc.ok != (err == nil) || err != nil && (!errors.Is(err, client.ErrTarget) || api.ExitCode(err) != api.ExitInvalid) {
			t.Errorf("New(%q) = %v, want ok %v", tc.target, err, tc.ok)
		}
	}
	if _, err := client.New("/run/cortex.sock", client.DefaultOptions().WithNamespace("../x")); api.ExitCode(err) != api.ExitInvalid {
		t.Errorf("bad namespace: %v", err)
	}
}

// TestClient_NoServer checks that a server that is not there is an error
// of the first call, exit code 6 (unavailable).
func TestClient_NoServer(t *testing.T) {
	c, err := client.New("unix://"+filepath.Join(t.TempDir(), "none.sock"), client.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.GetTeam(ctx, "t")
	if !errors.Is(err, api.ErrUnavailable) || api.ExitCode(err) != api.ExitLocked || !strings.Contains(err.Error(), "none.sock") {
		t.Fatalf("GetTeam without a server: %v (exit code %d)", err, api.ExitCode(err))
	}
}

// TestClient_TCPAndNamespaces runs a client over TCP: namespaces are
// separate, a namespace that does not exist is not found, and the server's
// lists come back.
func TestClient_TCPAndNamespaces(t *testing.T) {
	s := cortextest.NewStore(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: server.New(s, server.DefaultOptions()).Handler()}
	go hs.Serve(l) //nolint:errcheck // closed below
	t.Cleanup(func() { hs.Close() })
	acme, err := client.New("http://"+l.Addr().String(), client.DefaultOptions().WithNamespace("acme").WithHTTPClient(&http.Client{}))
	if err != nil {
		t.Fatal(err)
	}
	other, err := client.New("http://"+l.Addr().String()+"/", client.DefaultOptions().WithNamespace("other"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.GetTeam(ctx, "t"); !errors.Is(err, api.ErrNotFound) || !errors.Is(err, cortex.ErrNoNamespace) {
		t.Fatalf("team of a namespace that does not exist: %v", err)
	}
	if _, err := acme.CreateTeam(ctx, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a")}); err != nil {
		t.Fatal(err)
	}
	if _, err := acme.GetTeam(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	ns, err := acme.Namespaces(ctx)
	if err != nil || len(ns) != 1 || ns[0].Name != "acme" || ns[0].Quads == 0 {
		t.Fatalf("Namespaces = %+v, %v", ns, err)
	}
	st, err := other.Strategies(ctx)
	if err != nil || strings.Join(st, ",") != strings.Join(teammanager.DefaultConfig().Strategies(), ",") {
		t.Fatalf("Strategies = %v, %v", st, err)
	}
	if err := acme.Call(ctx, "teams.nope", nil, nil); api.ExitCode(err) != api.ExitUsage {
		t.Fatalf("unknown method: %v", err)
	}
	var ce *client.Error
	if err := acme.Call(ctx, "teams.get", map[string]any{"team": "t", "extra": 1}, nil); !errors.As(err, &ce) || ce.Code != -32602 || ce.Kind != api.KindUsage {
		t.Fatalf("unknown param: %v", err)
	}
}

// TestClient_Token checks that the client sends WithToken's token, and
// that a server's refusals (401 without one, 403 with too low a role)
// match api.ErrDenied with exit code 10.
func TestClient_Token(t *testing.T) {
	s := cortextest.NewStore(t)
	f := server.OpenTokens(filepath.Join(t.TempDir(), "tokens.json"))
	write, _, err := f.Create(ctx, "acme", server.RoleWrite, 0)
	if err != nil {
		t.Fatal(err)
	}
	read, _, err := f.Create(ctx, "acme", server.RoleRead, 0)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: server.New(s, server.DefaultOptions().WithTokens(f)).Handler()}
	go hs.Serve(l) //nolint:errcheck // closed below
	t.Cleanup(func() { hs.Close() })
	target := "http://" + l.Addr().String()
	with := func(tok string) *client.Client {
		c, err := client.New(target, client.DefaultOptions().WithNamespace("acme").WithToken(tok))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	var ce *client.Error
	if _, err := with("").ListTeams(ctx, teammanager.TeamFilter{}); !errors.Is(err, api.ErrDenied) || api.ExitCode(err) != api.ExitDenied || !errors.As(err, &ce) || ce.Code != -32010 {
		// The server's 401 on the rpc route is a JSON-RPC error object:
		// Code is its code (-32000 minus exit code 10), as for every
		// JSON-RPC error.
		t.Fatalf("no token: %v", err)
	}
	if _, err := with(read).CreateTeam(ctx, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a")}); !errors.Is(err, api.ErrDenied) || api.ExitCode(err) != api.ExitDenied {
		t.Fatalf("read token creates a team: %v", err)
	}
	if _, err := with(write).CreateTeam(ctx, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a")}); err != nil {
		t.Fatalf("write token: %v", err)
	}
	teams, err := with(read).ListTeams(ctx, teammanager.TeamFilter{})
	if err != nil || len(teams) != 1 {
		t.Fatalf("read token lists: %v, %v", teams, err)
	}
}

// TestNew_PasswordNotInMessages: the password of a target URL's user info
// is in no error a client returns (a bad target's, or an unreachable
// server's), since the CLI prints them.
func TestNew_PasswordNotInMessages(t *testing.T) {
	if _, err := client.New("http://op:s3cret@127.0.0.1:7474/?x=1", client.DefaultOptions()); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("bad target: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	c, err := client.New("http://op:s3cret@"+addr, client.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ListTeams(ctx, teammanager.TeamFilter{})
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), addr) {
		t.Errorf("unreachable server: %v", err)
	}
}

// TestNew_SocketIgnoresTransportProxy: a Unix socket target given an HTTP
// client whose transport has a proxy (http.DefaultTransport's clone, with
// HTTPS_PROXY or ALL_PROXY set) reaches the socket, not a proxy: the
// transport spoke SOCKS or TLS to the socket ("socks connect tcp:
// unexpected protocol version 72") or sent the proxy's credentials to it.
func TestNew_SocketIgnoresTransportProxy(t *testing.T) {
	sock := startServer(t)
	for _, proxy := range []string{"socks5://127.0.0.1:1", "https://127.0.0.1:1", "http://user:pw@127.0.0.1:1"} {
		t.Run(proxy, func(t *testing.T) {
			u, err := url.Parse(proxy)
			if err != nil {
				t.Fatal(err)
			}
			tr := http.DefaultTransport.(*http.Transport).Clone()
			tr.Proxy = http.ProxyURL(u)
			c, err := client.New("unix://"+sock, client.DefaultOptions().WithNamespace("acme").WithHTTPClient(&http.Client{Transport: tr}))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := c.CreateTeam(ctx, teammanager.TeamConfig{Name: "n", Members: members("a")}); err != nil {
				t.Fatalf("CreateTeam through a transport with proxy %s: %v", proxy, err)
			}
			if _, err := c.Query(ctx, "ASK {}", client.QueryOptions{}); err != nil {
				t.Fatalf("Query through a transport with proxy %s: %v", proxy, err)
			}
		})
	}
}

// TestClient_Redirects: a server (or a proxy before it) that redirects a
// call with 301, 302 or 303, which HTTP clients follow as a GET without
// the body, is an error of the target naming where it redirects (the call
// reached the server as a GET: "usage: method not allowed: GET
// /ns/acme/rpc", exit 2; a query, "no query"), and the server it
// redirects to gets nothing; 307 and 308, which keep the method and the
// body, are followed.
func TestClient_Redirects(t *testing.T) {
	s := cortextest.NewStore(t)
	var got atomic.Int32
	h := server.New(s, server.DefaultOptions()).Handler()
	real := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		h.ServeHTTP(w, r)
	}))
	defer real.Close()
	for _, code := range []int{301, 302, 303, 307, 308} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			red := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, real.URL+r.URL.Path, code)
			}))
			defer red.Close()
			for _, stream := range []bool{true, false} {
				c, err := client.New(red.URL, client.DefaultOptions().WithNamespace("acme").WithRPCStream(stream))
				if err != nil {
					t.Fatal(err)
				}
				got.Store(0)
				_, err = c.CreateTeam(ctx, teammanager.TeamConfig{Name: "n", Members: members("a")})
				_, qerr := c.Query(ctx, "ASK {}", client.QueryOptions{})
				if code == 307 || code == 308 {
					if err != nil || qerr != nil {
						t.Errorf("stream %v: through a redirect %d: %v, %v", stream, code, err, qerr)
					}
					continue
				}
				for _, err := range []error{err, qerr} {
					if !errors.Is(err, client.ErrTarget) || api.ExitCode(err) != api.ExitInvalid || !strings.Contains(err.Error(), real.URL) {
						t.Errorf("stream %v: through a redirect %d: %v (exit %d), want an error of the target naming %s", stream, code, err, api.ExitCode(err), real.URL)
					}
				}
				if n := got.Load(); n != 0 {
					t.Errorf("stream %v: through a redirect %d: the server it redirects to got %d requests", stream, code, n)
				}
			}
		})
	}
}

// TestNew_TokenNotHeaderSafe: a token that no HTTP header carries as it
// is (a space, a control character, a byte that is not ASCII: a token
// read from a file with its newline) is an invalid value at New, whose
// message does not repeat it: it was sent on a JSON-RPC stream with the
// newline made a space, and refused by the HTTP client of the other
// requests as an unavailable server (exit 6).
func TestNew_TokenNotHeaderSafe(t *testing.T) {
	for _, tok := range []string{"s3cret\n", "s3cret tok", "s3cret\x00", "s3crét", "s3cret\r\nX-Role: admin"} {
		for _, target := range []string{"http://127.0.0.1:7474", "unix:///run/cortex.sock"} {
			_, err := client.New(target, client.DefaultOptions().WithToken(tok))
			if !errors.Is(err, api.ErrInvalid) || api.ExitCode(err) != api.ExitInvalid || strings.Contains(err.Error(), "s3cr") {
				t.Errorf("New(%s) with token %q: %v, want an invalid value that does not name the token", target, tok, err)
			}
		}
	}
	if _, err := client.New("http://127.0.0.1:7474", client.DefaultOptions().WithToken("cx_Ab-9.~+/=")); err != nil {
		t.Errorf("a token of header characters: %v", err)
	}
}

// TestNew_SocketURLPercentDecoded: a unix:// URL's path is percent-encoded
// as any URL's: unix:///dir/a%20b%25c/s.sock reaches the socket in
// "a b%c" (it was dialled as "a%20b%25c", a socket that does not exist,
// exit 6); the path given as it is still works.
func TestNew_SocketURLPercentDecoded(t *testing.T) {
	dir := filepath.Join(filepath.Dir(shortSocket(t)), "a b%c")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: server.New(cortextest.NewStore(t), server.DefaultOptions()).Handler()}
	go hs.Serve(l) //nolint:errcheck // closed below
	t.Cleanup(func() { hs.Close() })
	escaped := (&url.URL{Scheme: "unix", Path: sock}).String()
	if !strings.Contains(escaped, "a%20b%25c") {
		t.Fatalf("test setup: %s", escaped)
	}
	for _, target := range []string{escaped, strings.ToUpper("unix") + escaped[len("unix"):], sock} {
		for _, stream := range []bool{true, false} {
			c, err := client.New(target, client.DefaultOptions().WithRPCStream(stream))
			if err != nil {
				t.Fatalf("New(%q): %v", target, err)
			}
			if _, err := c.Strategies(ctx); err != nil {
				t.Errorf("%s (stream %v): %v", target, stream, err)
			}
			c.Close()
		}
	}
}

// TestClient_RedirectToAnotherPortKeepsToken: a 307 or 308 to the same
// host on another port (another listener, whoever runs it) is not
// followed by a client with a token: the call fails naming where it
// redirects (exit 7), and the other listener gets no request, so never
// the token (net/http sends the Authorization header again to the same
// host, whatever the port). A redirect within the origin is still
// followed, with the token.
func TestClient_RedirectToAnotherPortKeepsToken(t *testing.T) {
	h := server.New(cortextest.NewStore(t), server.DefaultOptions()).Handler()
	var otherGot atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherGot.Add(1)
		h.ServeHTTP(w, r)
	}))
	defer other.Close()
	for _, code := range []int{307, 308} {
		for _, stream := range []bool{true, false} {
			t.Run(fmt.Sprintf("%d/stream=%v", code, stream), func(t *testing.T) {
				var tokenKept atomic.Int32
				red := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if rest, ok := strings.CutPrefix(r.URL.Path, "/moved"); ok {
						// Redirected here, within the origin.
						if r.Header.Get("Authorization") == "Bearer s3cret" {
							tokenKept.Add(1)
						}
						r.Header.Del("Authorization") // (h has no tokens)
						r.URL.Path = rest
						h.ServeHTTP(w, r)
						return
					}
					to := other.URL + r.URL.Path
					if strings.HasPrefix(r.URL.Path, "/ns/same/") {
						to = "/moved" + r.URL.Path
					}
					if r.URL.RawQuery != "" {
						to += "?" + r.URL.RawQuery
					}
					http.Redirect(w, r, to, code)
				}))
				defer red.Close()
				otherGot.Store(0)
				opts := client.DefaultOptions().WithToken("s3cret").WithRPCStream(stream)
				c, err := client.New(red.URL, opts.WithNamespace("acme"))
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				_, err = c.CreateTeam(ctx, teammanager.TeamConfig{Name: "n", Members: members("a")})
				_, qerr := c.Query(ctx, "ASK {}", client.QueryOptions{})
				for _, err := range []error{err, qerr} {
					if !errors.Is(err, client.ErrTarget) || api.ExitCode(err) != api.ExitInvalid || !strings.Contains(err.Error(), other.URL) || !strings.Contains(err.Error(), "another origin") {
						t.Errorf("redirected to another port: %v (exit %d), want an error of the target naming %s", err, api.ExitCode(err), other.URL)
					}
				}
				if n := otherGot.Load(); n != 0 {
					t.Errorf("the listener on the other port got %d requests", n)
				}
				same, err := client.New(red.URL, opts.WithNamespace("same"))
				if err != nil {
					t.Fatal(err)
				}
				defer same.Close()
				if _, err := same.CreateTeam(ctx, teammanager.TeamConfig{Name: "n", Members: members("a")}); err != nil {
					t.Errorf("redirected within the origin: %v", err)
				}
				if tokenKept.Load() == 0 {
					t.Errorf("redirected within the origin: the token was not sent")
				}
			})
		}
	}
}

// TestClient_NotSent: a call whose connection fails (no socket, nothing
// listening on the port) is an error matching ErrNotSent (and
// api.ErrUnavailable, exit 6) and leaves Sent false; a call that got
// through, answered or cut (a listener that closes each connection it
// accepts), does not match ErrNotSent and makes Sent true (unless only
// the opening of its stream was cut).
func TestClient_NotSent(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	freePort := closed.Addr().String()
	closed.Close()
	cutter, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer cutter.Close()
	go func() {
		for {
			c, err := cutter.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	for _, tc := range []struct {
		name, target string
		notSent      bool
	}{
		{"no socket", "unix://" + filepath.Join(t.TempDir(), "none.sock"), true},
		{"port closed", "http://" + freePort, true},
		{"connection cut", "http://" + cutter.Addr().String(), false},
		{"answered", "unix://" + startServer(t), false},
	} {
		for _, stream := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/stream=%v", tc.name, stream), func(t *testing.T) {
				c, err := client.New(tc.target, client.DefaultOptions().WithRPCStream(stream))
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				_, err = c.Strategies(ctx)
				// (A stream cut while it opens carried no call yet.)
				wantSent := !tc.notSent && !(stream && tc.name == "connection cut")
				if tc.notSent != errors.Is(err, client.ErrNotSent) || tc.notSent && api.ExitCode(err) != api.ExitLocked || c.Sent() != wantSent {
					t.Errorf("Strategies: %v (exit %d), Sent %v; want not sent %v", err, api.ExitCode(err), c.Sent(), tc.notSent)
				}
			})
		}
	}
}
