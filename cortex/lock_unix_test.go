//go:build unix

package cortex_test

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/cortex"
)

// TestOpen_BadgerDirLockHeldForAnInstant: Badger's directory lock is a
// flock released only when its file is closed, so a child that another
// goroutine forks while a store is closed holds it until the child's exec.
// An Open in that instant (the store's own lock free) waits for it instead
// of failing with ErrLocked. The test holds the directory's flock as such
// a child would, and lets it go shortly after Open starts.
func TestOpen_BadgerDirLockHeldForAnInstant(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := cortex.Open(context.Background(), dir, cortex.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	go func() {
		defer close(released)
		time.Sleep(100 * time.Millisecond) // Open meets the lock taken, whatever the machine's speed
		f.Close()
	}()
	s, err = cortex.Open(context.Background(), dir, cortex.DefaultOptions())
	<-released
	if err != nil {
		t.Fatalf("open while the directory's flock was held for an instant: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
