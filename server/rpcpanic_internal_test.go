package server

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/cortex/cortextest"
)

// TestRPC_PanickingCallIsInternalError: a method that panics answers an
// internal error (-32603, kind internal), alone or in a batch, whose
// other calls are answered; the server goes on. The panic closed the
// connection without an answer (and, on a JSON-RPC stream, whose calls
// run on goroutines of their own, ended the process).
func TestRPC_PanickingCallIsInternalError(t *testing.T) {
	methods["test.panic"] = method{noTeams: true, run: func(context.Context, *rpcCtx, json.RawMessage) (any, error) {
		panic("a bug")
	}}
	t.Cleanup(func() { delete(methods, "test.panic") }) // after the server's shutdown
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- New(cortextest.NewStore(t), DefaultOptions()).Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	post := func(body string) (int, string) {
		t.Helper()
		resp, err := http.Post("http://"+l.Addr().String()+"/ns/acme/rpc", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(b)
	}
	code, body := post(`{"jsonrpc":"2.0","id":1,"method":"test.panic"}`)
	if code != http.StatusOK || !strings.Contains(body, `"code":-32603`) || !strings.Contains(body, `"kind":"internal"`) {
		t.Fatalf("a call that panics: %d %s, want an internal error (-32603)", code, body)
	}
	code, body = post(`[{"jsonrpc":"2.0","id":1,"method":"test.panic"},{"jsonrpc":"2.0","id":2,"method":"strategies.list"}]`)
	var out []struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &out); code != http.StatusOK || err != nil || len(out) != 2 ||
		out[0].Error == nil || out[0].Error.Code != rpcInternalError || out[1].Error != nil || len(out[1].Result) == 0 {
		t.Fatalf("a batch with a call that panics: %d %s", code, body)
	}
}
