package server_test

import (
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
