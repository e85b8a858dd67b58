//go:build unix

package cortex_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
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

// TestOpen_LockedNamesWriter: an Open refused because a process has the
// store open read-write names that process (the pid it wrote into
// cortex.lock; here this process, through another handle), read-write or
// read-only; one refused because processes read it names none.
func TestOpen_LockedNamesWriter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ro := cortex.DefaultOptions().WithReadOnly(true)
	for _, tc := range []struct {
		name         string
		holder, open cortex.Options
		pid          int
	}{
		{"writer, then a writer", cortex.DefaultOptions(), cortex.DefaultOptions(), os.Getpid()},
		{"writer, then a reader", cortex.DefaultOptions(), ro, os.Getpid()},
		{"reader, then a writer", ro, cortex.DefaultOptions(), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := cortex.Open(ctx, dir, cortex.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			held, err := cortex.Open(ctx, dir, tc.holder)
			if err != nil {
				t.Fatal(err)
			}
			defer held.Close()
			_, err = cortex.Open(ctx, dir, tc.open)
			var le *cortex.LockedError
			if !errors.As(err, &le) || le.PID != tc.pid {
				t.Fatalf("open: %v (%+v), want a LockedError with PID %d", err, le, tc.pid)
			}
			if says := fmt.Sprintf("(pid %d)", tc.pid); (tc.pid != 0) != strings.Contains(err.Error(), says) || (tc.pid == 0 && strings.Contains(err.Error(), "pid")) {
				t.Errorf("message %q, want it to name pid %d (0: none)", err, tc.pid)
			}
		})
	}
}
