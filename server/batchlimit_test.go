package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/server"
)

// batchOf returns a batch of n calls of teams.create, each creating team
// "t<i>" (so that a call that ran leaves a team), ids 1..n.
func batchOf(n int) string {
	calls := make([]string, n)
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"teams.create","params":{"id":"t%d","name":"n","members":[{"agent":"a","role":"r"}]}}`, i+1, i+1)
	}
	return "[" + strings.Join(calls, ",") + "]"
}

// TestRPC_BatchLength: a batch of more calls than the limit of a batch
// (1,000 by default) is answered by one error object (413, id null, kind
// invalid, as a body too large) and runs none of its calls; one of the
// limit runs them all. The server ran a batch of any length within the
// body limit, answering each call in one response held in memory: a
// 2 MiB body of "[1,1,...]" took about 1 GB and a 166 MB answer, 8 MiB
// several GB.
func TestRPC_BatchLength(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  server.Options
		limit int
	}{
		{"default", server.DefaultOptions(), 1000},
		{"WithMaxBatch(3)", server.DefaultOptions().WithMaxBatch(3), 3},
		{"WithMaxBatch(0) keeps the default", server.DefaultOptions().WithMaxBatch(0), 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := serve(t, tc.opts)
			// Over the limit: one error, nothing run.
			resp, body := ts.rpcRaw("acme", batchOf(tc.limit+1))
			var r rpcResponse
			if err := json.Unmarshal([]byte(body), &r); err != nil || r.Error == nil {
				t.Fatalf("a batch of %d calls: %d %.300s, want one error object", tc.limit+1, resp.StatusCode, body)
			}
			if resp.StatusCode != http.StatusRequestEntityTooLarge || string(r.ID) != "null" || r.Error.Code != -32007 ||
				r.Error.Data.Kind != "invalid" || r.Error.Data.ExitCode != 7 || !strings.Contains(r.Error.Message, "too large") {
				t.Errorf("a batch of %d calls: %d %s, want 413, id null, -32007, kind invalid", tc.limit+1, resp.StatusCode, body)
			}
			if resp, body := ts.rpcRaw("acme", `{"jsonrpc":"2.0","id":1,"method":"teams.get","params":{"team":"t1"}}`); !strings.Contains(body, `"not_found"`) {
				t.Errorf("teams.get t1 after the batch refused: %d %s, want not_found (no call ran)", resp.StatusCode, body)
			}
			// Of the limit: every call runs.
			resp, body = ts.rpcRaw("acme", batchOf(tc.limit))
			var rs []rpcResponse
			if err := json.Unmarshal([]byte(body), &rs); err != nil || len(rs) != tc.limit || resp.StatusCode != http.StatusOK {
				t.Fatalf("a batch of %d calls: %d %.300s (%v), want %d answers", tc.limit, resp.StatusCode, body, err, tc.limit)
			}
			for _, r := range rs {
				if r.Error != nil {
					t.Fatalf("a batch of %d calls: %s: %s", tc.limit, r.ID, r.Error.Message)
				}
			}
		})
	}
}

// TestRPCStream_BatchLength: on a JSON-RPC stream, a line that is a batch
// of more calls than the limit is answered by one error (id null, kind
// invalid) and runs none of them; the stream goes on.
func TestRPCStream_BatchLength(t *testing.T) {
	ss := serveStreams(t, server.DefaultOptions().WithMaxBatch(2))
	st := ss.mustOpen("acme")
	st.send(batchOf(3))
	if r := st.answer(); r.Error == nil || string(r.ID) != "null" || r.Error.Code != -32007 || r.Error.Data.Kind != "invalid" {
		t.Fatalf("a batch of 3 calls with a limit of 2: %+v", r)
	}
	st.send(`{"jsonrpc":"2.0","id":"g","method":"teams.get","params":{"team":"t1"}}`)
	if r := st.answer(); r.Error == nil || r.Error.Data.Kind != "not_found" {
		t.Fatalf("teams.get t1 after the batch refused: %+v, want not_found (no call ran)", r)
	}
	st.send(batchOf(2))
	line, err := st.read()
	var rs []rpcResponse
	if err != nil || json.Unmarshal([]byte(line), &rs) != nil || len(rs) != 2 || rs[0].Error != nil || rs[1].Error != nil {
		t.Fatalf("a batch of 2 calls: %q %v", line, err)
	}
}
