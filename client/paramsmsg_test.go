package client_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/client"
)

// TestClient_ParamsMessage: the server's message of params of the wrong
// type, in JSON's terms and naming the value by its path, reaches the
// caller as the server wrote it, on the JSON-RPC stream and over plain
// HTTP, with its code and kind.
func TestClient_ParamsMessage(t *testing.T) {
	sock := startServer(t)
	const spo = `"subject":"<http://ex/s>","predicate":"<http://ex/p>","object":"\"o\""`
	for _, stream := range []bool{true, false} {
		c, err := client.New("unix://"+sock, client.DefaultOptions().WithNamespace("acme").WithRPCStream(stream))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Call(ctx, "teams.create", api.TeamConfig{Name: "n", Members: []api.MemberConfig{{Agent: "alice", Role: "lead"}}}, nil); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct{ method, params, msg string }{
			{"findings.add_batch", `{"team":"t","agent":"alice","findings":[{` + spo + `},{` + spo + `,"confidence":"high"}]}`,
				"usage: params: findings[1].confidence: want a number, got a string"},
			{"teams.create", `{"name":"n","members":[{"agent":"bob","role":5}]}`,
				"usage: params: members[0].role: want a string, got a number"},
		} {
			err := c.Call(ctx, tc.method, json.RawMessage(tc.params), nil)
			var e *client.Error
			if !errors.As(err, &e) || err.Error() != tc.msg || e.Message != tc.msg || e.Code != -32602 || e.Kind != api.KindUsage || !errors.Is(err, api.ErrUsage) {
				t.Errorf("stream %v: %s: %v (%+v); want %q, -32602, kind usage", stream, tc.method, err, e, tc.msg)
			}
		}
	}
}
