package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/server"
)

// testServer is a server of a fresh store, serving on 127.0.0.1.
type testServer struct {
	t   *testing.T
	url string // http://127.0.0.1:port
}

// serve starts a server with opts on a real store and a real TCP listener;
// it is shut down when the test ends (the shutdown must succeed).
func serve(t *testing.T, opts server.Options) *testServer {
	t.Helper()
	return serveOn(t, cortextest.NewStore(t), opts)
}

// serveOn is serve over store, which the caller may have filled.
func serveOn(t *testing.T, store *cortex.Store, opts server.Options) *testServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
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
	return &testServer{t: t, url: "http://" + l.Addr().String()}
}

// do sends a request and returns the response with its body read.
func (ts *testServer) do(method, path, contentType string, body io.Reader, header ...string) (*http.Response, string) {
	ts.t.Helper()
	req, err := http.NewRequest(method, ts.url+path, body)
	if err != nil {
		ts.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		ts.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		ts.t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return resp, string(b)
}

// rpcResponse is a JSON-RPC response as a client reads it.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			ExitCode int    `json:"exitCode"`
			Kind     string `json:"kind"`
		} `json:"data"`
	} `json:"error"`
	ID json.RawMessage `json:"id"`
}

// rpcRaw posts body to namespace ns's rpc route.
func (ts *testServer) rpcRaw(ns, body string) (*http.Response, string) {
	ts.t.Helper()
	return ts.do("POST", "/ns/"+ns+"/rpc", "application/json", strings.NewReader(body))
}

// call calls method with params in namespace ns and returns the response.
func (ts *testServer) call(ns, method string, params any) rpcResponse {
	ts.t.Helper()
	p, err := json.Marshal(params)
	if err != nil {
		ts.t.Fatal(err)
	}
	resp, body := ts.rpcRaw(ns, `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+string(p)+`}`)
	if resp.StatusCode != http.StatusOK {
		ts.t.Fatalf("%s: status %d: %s", method, resp.StatusCode, body)
	}
	var r rpcResponse
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		ts.t.Fatalf("%s: %v in %s", method, err, body)
	}
	return r
}

// ok calls method and decodes its result into out (nil: ignored); an
// error response fails the test.
func (ts *testServer) ok(ns, method string, params, out any) {
	ts.t.Helper()
	r := ts.call(ns, method, params)
	if r.Error != nil {
		ts.t.Fatalf("%s: error %d %s (%+v)", method, r.Error.Code, r.Error.Message, r.Error.Data)
	}
	if out != nil {
		dec := json.NewDecoder(bytes.NewReader(r.Result))
		dec.DisallowUnknownFields()
		if err := dec.Decode(out); err != nil {
			ts.t.Fatalf("%s: decode %s: %v", method, r.Result, err)
		}
	}
}

// answer is a response's status and body, or 0 and the request's error.
type answer struct {
	code int
	body string
}

// goDo sends req in a goroutine; the channel receives its answer.
func goDo(req *http.Request) <-chan answer {
	got := make(chan answer, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			got <- answer{0, err.Error()}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		got <- answer{resp.StatusCode, string(b)}
	}()
	return got
}
