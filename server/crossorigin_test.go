package server_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/server"
)

// TestCrossOrigin_BrowserWritesRefused: a page of another site can make
// the operator's browser POST a text/plain body to 127.0.0.1 without a
// CORS preflight; with no tokens, loopback trusts every request. Such a
// request (Sec-Fetch-Site cross-site or same-site, or an Origin that is
// not the Host) is 403 and writes nothing; same-origin requests, requests
// without those headers (every client that is not a browser) and reads
// are served.
func TestCrossOrigin_BrowserWritesRefused(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	create := `{"jsonrpc":"2.0","id":1,"method":"teams.create","params":{"id":"ID","name":"n","members":[{"agent":"a","role":"r"}]}}`
	const g = "/ns/acme/data?graph=http%3A%2F%2Fex%2Fg"
	for _, tc := range []struct {
		name, method, path, ctype, body string
		header                          []string
	}{
		{"rpc, Sec-Fetch-Site cross-site", "POST", "/ns/acme/rpc", "text/plain", strings.ReplaceAll(create, "ID", "x1"), []string{"Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"}},
		{"rpc, Sec-Fetch-Site same-site", "POST", "/ns/acme/rpc", "application/x-www-form-urlencoded", strings.ReplaceAll(create, "ID", "x2"), []string{"Sec-Fetch-Site", "same-site"}},
		{"rpc, foreign Origin", "POST", "/ns/acme/rpc", "text/plain", strings.ReplaceAll(create, "ID", "x3"), []string{"Origin", "http://evil.example:7474"}},
		{"graph store PUT", "PUT", g, "text/turtle", `<http://ex/a> <http://ex/p> "1" .`, []string{"Origin", "null"}},
		{"import", "POST", "/ns/acme/import?format=nt", "text/plain", `<http://ex/a> <http://ex/p> "1" .`, []string{"Sec-Fetch-Site", "cross-site"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := ts.do(tc.method, tc.path, tc.ctype, strings.NewReader(tc.body), tc.header...)
			if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Cortex-Error-Kind") != "denied" || !strings.Contains(body, "cross-origin") {
				t.Errorf("%d %s %q, want 403 denied, cross-origin", resp.StatusCode, resp.Header.Get("Cortex-Error-Kind"), body)
			}
		})
	}
	// Nothing was written: the namespace was never created.
	if resp, body := ts.do("GET", "/ns/acme/sparql?query=ASK{}", "", nil); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("namespace after refused writes: %d %s", resp.StatusCode, body)
	}

	// Same-origin and non-browser requests are served.
	for i, h := range [][]string{
		nil,
		{"Sec-Fetch-Site", "same-origin", "Origin", ts.url},
		{"Sec-Fetch-Site", "none"},
		{"Origin", ts.url},
	} {
		id := "ok" + string(rune('a'+i))
		resp, body := ts.do("POST", "/ns/acme/rpc", "application/json", strings.NewReader(strings.ReplaceAll(create, "ID", id)), h...)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"result"`) {
			t.Errorf("headers %q: %d %s, want the team created", h, resp.StatusCode, body)
		}
	}
	// A cross-site read is served (its response is not the page's to read).
	if resp, body := ts.do("GET", "/ns/acme/sparql?query=ASK{}", "", nil, "Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"); resp.StatusCode != http.StatusOK {
		t.Errorf("cross-site GET: %d %s", resp.StatusCode, body)
	}
}

// TestAuth_RebindingHostRefused: a web page whose own name an attacker
// made resolve to 127.0.0.1 (DNS rebinding) reaches a loopback server as
// a same-origin page, which the cross-origin check lets by; without
// tokens, nothing else stops it. A request let in without a token by a
// Host that is not localhost's or an IP address is 403 and writes
// nothing; a token lets any Host in.
func TestAuth_RebindingHostRefused(t *testing.T) {
	f := tokenFile(t)
	ts := serve(t, server.DefaultOptions().WithTokens(f))
	create := func(host, id string, header ...string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest("POST", ts.url+"/ns/acme/rpc", strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"teams.create","params":{"id":"`+id+`","name":"n","members":[{"agent":"a","role":"r"}]}}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, string(b)
	}
	port := ts.url[strings.LastIndex(ts.url, ":")+1:]
	for i, host := range []string{"evil.example:" + port, "evil.example", "localhost.evil.example:" + port, "127.0.0.1.nip.io:" + port} {
		resp, body := create(host, fmt.Sprintf("r%d", i), "Origin", "http://"+host, "Sec-Fetch-Site", "same-origin")
		if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Cortex-Error-Kind") != "denied" || !strings.Contains(body, "DNS rebinding") {
			t.Errorf("Host %s: %d %s %q, want 403 denied", host, resp.StatusCode, resp.Header.Get("Cortex-Error-Kind"), body)
		}
	}
	if resp, body := ts.do("GET", "/ns/acme/sparql?query=ASK{}", "", nil); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("namespace after refused requests: %d %s", resp.StatusCode, body)
	}
	for i, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LocalHost.:" + port, "cortex.localhost:" + port, "localhost"} {
		if resp, body := create(host, fmt.Sprintf("ok%d", i)); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"result"`) {
			t.Errorf("Host %s: %d %s, want the team created", host, resp.StatusCode, body)
		}
	}
	// Once a token is needed, it is what lets a request in, by any name.
	tok, _ := mint(t, f, "acme", server.RoleWrite, 0)
	if resp, body := create("cortex.example.org", "tok", bearer(tok)...); resp.StatusCode != http.StatusOK {
		t.Errorf("a token by another name: %d %s, want 200", resp.StatusCode, body)
	}
}
