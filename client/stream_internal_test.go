package client

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/server"
)

// TestStream_IdleCloses: a stream without calls for the client's idle
// time is closed; the next call opens another.
func TestStream_IdleCloses(t *testing.T) {
	dir, err := os.MkdirTemp("", "cortex-cl-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.New(cortextest.NewStore(t), server.DefaultOptions()).Serve(ctx, l) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	c, err := New("unix://"+sock, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.idle = 10 * time.Millisecond
	if _, err := c.Strategies(ctx); err != nil {
		t.Fatal(err)
	}
	c.smu.Lock()
	first := c.st
	c.smu.Unlock()
	<-first.done // closed by the idle timer
	if _, err := c.Strategies(ctx); err != nil {
		t.Fatalf("a call after the stream was closed idle: %v", err)
	}
	c.smu.Lock()
	second := c.st
	c.smu.Unlock()
	if second == first || !second.usable() {
		t.Errorf("the call after did not open a new stream")
	}
}
