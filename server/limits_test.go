package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/server"
)

// unixServer is a server of store on a Unix socket (small socket buffers:
// a client that does not read holds the server's writes back early).
type unixServer struct {
	t      *testing.T
	sock   string
	client *http.Client
}

func serveUnix(t *testing.T, store *cortex.Store, opts server.Options) *unixServer {
	t.Helper()
	dir, err := os.MkdirTemp("", "cortex-srv-") // short: a socket path is at most 107 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.New(store, opts).Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &unixServer{t: t, sock: sock, client: &http.Client{Transport: tr}}
}

// do sends a request; the caller closes the response's body.
func (us *unixServer) do(method, path, contentType string, body io.Reader, header ...string) *http.Response {
	us.t.Helper()
	req, err := http.NewRequest(method, "http://cortex"+path, body)
	if err != nil {
		us.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := us.client.Do(req)
	if err != nil {
		us.t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

// triples returns n N-Triples lines of subject prefix s.
func triples(s string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "<http://ex/%s%d> <http://ex/p> \"a literal long enough to fill a socket buffer soon %d\" .\n", s, i, i)
	}
	return b.String()
}

// A client that reads a large result slowly holds no read transaction of
// the store open: a journaled write (a Graph Store POST of more than
// cortex.MaxDeltaQuads triples, which waits for every transaction of the
// store to end) commits while the client has read one byte, and the
// client then reads the whole result as it was when the query ran.
func TestLimits_SlowReaderDoesNotHoldWriterBack(t *testing.T) {
	store := cortextest.NewStore(t, cortex.DefaultOptions().WithSyncWrites(false).
		WithTuning(cortex.Tuning{JournalGateWait: 2 * time.Second}))
	us := serveUnix(t, store, server.DefaultOptions())
	const rows = 20000
	resp := us.do("POST", "/ns/acme/data?default", "application/n-triples", strings.NewReader(triples("a", rows)))
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("seed: %d", resp.StatusCode)
	}

	for _, tc := range []struct{ name, path string }{
		{"sparql", "/ns/acme/sparql?query=" + url.QueryEscape(`SELECT * WHERE { ?s ?p ?o }`)},
		{"graph store", "/ns/acme/data?default"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			slow := us.do("GET", tc.path, "", nil, "Accept", "application/n-triples, application/sparql-results+json")
			defer slow.Body.Close()
			if slow.StatusCode != http.StatusOK {
				t.Fatalf("GET: %d", slow.StatusCode)
			}
			one := make([]byte, 1)
			if _, err := io.ReadFull(slow.Body, one); err != nil {
				t.Fatal(err)
			}
			// The slow client reads nothing more until the write is done.
			big := triples("w"+tc.name[:1], cortex.MaxDeltaQuads+100)
			w := us.do("POST", "/ns/acme/data?graph="+url.QueryEscape("http://ex/"+tc.name[:1]), "application/n-triples", strings.NewReader(big))
			msg, _ := io.ReadAll(w.Body)
			w.Body.Close()
			if w.StatusCode != http.StatusCreated {
				t.Fatalf("a journaled write while a client reads slowly: %d %s", w.StatusCode, msg)
			}
			rest, err := io.ReadAll(slow.Body)
			if err != nil {
				t.Fatalf("the slow client's result: %v", err)
			}
			body := append(one, rest...)
			if n := bytes.Count(body, []byte("a literal long enough")); n != rows {
				t.Fatalf("the slow client read %d rows, want the %d of when it asked", n, rows)
			}
		})
	}
}

// serveServer serves srv (of store) on 127.0.0.1 until the test ends.
func serveServer(t *testing.T, srv *server.Server) *testServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return &testServer{t: t, url: "http://" + l.Addr().String()}
}

// Over the limit of results per response, a request fails before any
// result is sent, with kind invalid; at the limit it is answered in full.
func TestLimits_MaxResults(t *testing.T) {
	ts := serve(t, server.DefaultOptions().WithMaxResults(2))
	seed(t, ts) // 3 triples in 2 graphs
	g1 := "/ns/acme/data?graph=" + url.QueryEscape("http://ex/g1")
	sparqlGet := func(q string) string { return "/ns/acme/sparql?query=" + url.QueryEscape(q) }
	for _, tc := range []struct {
		name, path, accept string
		ok                 bool
	}{
		{"select over", sparqlGet(`SELECT * WHERE { ?s ?p ?o }`), "", false},
		{"select at", sparqlGet(`SELECT * WHERE { ?s ?p ?o } LIMIT 2`), "", true},
		{"select as csv", sparqlGet(`SELECT * WHERE { ?s ?p ?o }`), "text/csv", false},
		{"construct over", sparqlGet(`CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }`), "", false},
		{"construct at", sparqlGet(`CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <http://ex/g1> { ?s ?p ?o } }`), "", true},
		{"ask", sparqlGet(`ASK { ?s ?p ?o }`), "", true},
		{"graph store at", g1, "application/n-triples", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := ts.do("GET", tc.path, "", nil, "Accept", tc.accept)
			if tc.ok {
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("%d %s", resp.StatusCode, body)
				}
				return
			}
			if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Cortex-Error-Kind") != "invalid" ||
				!strings.Contains(body, "more than 2") || strings.Contains(body, "http://ex/a") {
				t.Fatalf("%d %s %q", resp.StatusCode, resp.Header.Get("Cortex-Error-Kind"), body)
			}
		})
	}
	resp, _ := ts.do("POST", g1, "application/n-triples", strings.NewReader("<http://ex/z> <http://ex/p> \"9\" .\n"))
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("POST: %d", resp.StatusCode)
	}
	if resp, body := ts.do("GET", g1, "", nil, "Accept", "application/n-triples"); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "more than 2 triples") {
		t.Fatalf("graph store over the limit: %d %s", resp.StatusCode, body)
	}

	for _, name := range []string{"t1", "t2", "t3"} {
		ts.ok("acme", "teams.create", map[string]any{"id": name, "name": "n", "members": []map[string]any{{"agent": "a"}}}, nil)
	}
	r := ts.call("acme", "teams.list", map[string]any{})
	if r.Error == nil || r.Error.Data.Kind != "invalid" || !strings.Contains(r.Error.Message, "more than 2 teams") {
		t.Fatalf("teams.list over the limit: %+v %s", r.Error, r.Result)
	}
}

// Over the limit of concurrent queries, a request waits for a turn; one
// that gets none within the queue wait is answered 503 busy with
// Retry-After, on every route that takes turns.
func TestLimits_MaxQueries(t *testing.T) {
	store := cortextest.NewStore(t)
	srv := server.New(store, server.DefaultOptions().WithMaxQueries(1).WithQueueWait(50*time.Millisecond))
	ts := serveServer(t, srv)
	seed(t, ts)
	q := "/ns/acme/sparql?query=" + url.QueryEscape(`SELECT * WHERE { ?s ?p ?o }`)
	release, err := server.HoldTurn(srv)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, method, path, body string }{
		{"sparql", "GET", q, ""},
		{"graph store", "GET", "/ns/acme/data?graph=" + url.QueryEscape("http://ex/g1"), ""},
		{"rpc", "POST", "/ns/acme/rpc", `{"jsonrpc":"2.0","id":1,"method":"teams.list","params":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct := ""
			if tc.body != "" {
				ct = "application/json"
			}
			resp, body := ts.do(tc.method, tc.path, ct, strings.NewReader(tc.body))
			if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
				t.Fatalf("%d Retry-After %q: %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
			}
			if tc.name == "rpc" {
				if !strings.Contains(body, `"kind":"busy"`) || !strings.Contains(body, `"exitCode":11`) {
					t.Fatalf("rpc: %s", body)
				}
				return
			}
			if resp.Header.Get("Cortex-Error-Kind") != "busy" || resp.Header.Get("Cortex-Exit-Code") != "11" {
				t.Fatalf("%v: %s", resp.Header, body)
			}
		})
	}
	// A call that takes no turn is answered meanwhile.
	ts.ok("acme", "strategies.list", nil, nil)
	release()
	if resp, body := ts.do("GET", q, "", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("after the turn was released: %d %s", resp.StatusCode, body)
	}
}

// A request over the limit waits for a turn: it is answered once the
// running query ends.
func TestLimits_MaxQueries_Waits(t *testing.T) {
	store := cortextest.NewStore(t)
	srv := server.New(store, server.DefaultOptions().WithMaxQueries(1).WithQueueWait(time.Hour))
	ts := serveServer(t, srv)
	seed(t, ts)
	release, err := server.HoldTurn(srv)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", ts.url+"/ns/acme/sparql?query="+url.QueryEscape(`ASK { ?s ?p ?o }`), nil)
	got := goDo(req)
	select {
	case a := <-got:
		t.Fatalf("answered while the only turn was held: %d %s", a.code, a.body)
	case <-time.After(100 * time.Millisecond):
	}
	release()
	if a := <-got; a.code != http.StatusOK || !strings.Contains(a.body, "true") {
		t.Fatalf("after the turn was released: %d %s", a.code, a.body)
	}
}

// The calls of a JSON-RPC batch answer in one response: their listings
// share the limit of results per response. Each listing that fits takes
// its share; the one that would pass the limit fails with its own error
// (kind invalid, no result), the others of the batch are answered.
func TestLimits_MaxResults_Batch(t *testing.T) {
	ts := serve(t, server.DefaultOptions().WithMaxResults(3))
	for _, name := range []string{"t1", "t2"} {
		ts.ok("acme", "teams.create", map[string]any{"id": name, "name": "n", "members": []map[string]any{{"agent": "a"}}}, nil)
	}
	list := `{"jsonrpc":"2.0","id":%d,"method":"teams.list","params":{}}`
	get := `{"jsonrpc":"2.0","id":%d,"method":"teams.get","params":{"team":"t1"}}`
	resp, body := ts.rpcRaw("acme", "["+fmt.Sprintf(list, 1)+","+fmt.Sprintf(list, 2)+","+fmt.Sprintf(get, 3)+","+fmt.Sprintf(list, 4)+"]")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	var out []rpcResponse
	if err := json.Unmarshal([]byte(body), &out); err != nil || len(out) != 4 {
		t.Fatalf("%v: %s", err, body)
	}
	var teams []json.RawMessage
	if out[0].Error != nil || json.Unmarshal(out[0].Result, &teams) != nil || len(teams) != 2 {
		t.Errorf("the first listing (2 of 3): %+v %s", out[0].Error, out[0].Result)
	}
	for _, i := range []int{1, 3} {
		if r := out[i]; r.Error == nil || r.Error.Data.Kind != "invalid" || !strings.Contains(r.Error.Message, "more than 3 teams") || r.Result != nil {
			t.Errorf("listing %d, over what the batch left: %+v %s", i+1, r.Error, r.Result)
		}
	}
	if out[2].Error != nil {
		t.Errorf("teams.get, no listing: %+v", out[2].Error)
	}
	// One listing alone, or one per batch, is answered.
	resp, body = ts.rpcRaw("acme", "["+fmt.Sprintf(list, 1)+"]")
	if err := json.Unmarshal([]byte(body), &out); resp.StatusCode != http.StatusOK || err != nil || len(out) != 1 || out[0].Error != nil {
		t.Fatalf("a batch of one listing: %d %s", resp.StatusCode, body)
	}
}
