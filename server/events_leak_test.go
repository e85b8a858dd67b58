package server_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/server"
)

// TestEvents_NoWatchKeptForMissingNamespaces: a request for the events of
// a namespace that does not exist (404) leaves nothing behind in the
// server: a long-running server asked for the events of many names (a
// client's typos, a scan) does not grow a deletion watch per name.
func TestEvents_NoWatchKeptForMissingNamespaces(t *testing.T) {
	srv := server.New(cortextest.NewStore(t), server.DefaultOptions())
	ts := serveServer(t, srv)
	for i := range 50 {
		for _, h := range [][]string{nil, {"Last-Event-ID", "3"}} {
			resp, body := ts.do("GET", fmt.Sprintf("/ns/nope-%d/events", i), "", nil, h...)
			if resp.StatusCode != http.StatusNotFound {
				t.Fatalf("status %d, want 404: %s", resp.StatusCode, body)
			}
		}
	}
	if n := server.DeletionWatches(srv); n != 0 {
		t.Errorf("%d deletion watches kept after 100 requests for the events of 50 namespaces that do not exist, want 0", n)
	}
}
