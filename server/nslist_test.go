package server_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/server"
)

// TestNamespacesList_BesideDeletes: namespaces.list while other
// namespaces are created and deleted lists those that exist and never
// fails; a namespace deleted between the listing of the names and the
// reading of its size failed the whole call (-32003, no such namespace).
func TestNamespacesList_BesideDeletes(t *testing.T) {
	store := cortextest.NewStore(t)
	ts := serveOn(t, store, server.DefaultOptions())
	ctx := context.Background()
	const pool = 40
	for _, name := range []string{"kept"} {
		if _, err := store.Namespace(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			for j := range pool {
				if _, err := store.Namespace(ctx, fmt.Sprintf("tmp-%d", j)); err != nil {
					t.Error(err)
					return
				}
			}
			for j := range pool {
				if err := store.DeleteNamespace(ctx, fmt.Sprintf("tmp-%d", j)); err != nil {
					t.Error(err)
					return
				}
			}
		}
	}()
	defer func() { close(stop); wg.Wait() }()
	for i := 0; i < 100; i++ {
		resp, body := ts.rpcAs("kept", "namespaces.list", `{}`)
		if resp.StatusCode != http.StatusOK || strings.Contains(body, `"error"`) || !strings.Contains(body, `"kept"`) {
			t.Fatalf("call %d: %d %s", i, resp.StatusCode, body)
		}
	}
}
