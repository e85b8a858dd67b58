//go:build linux

package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// journalOpen reports whether the process holds the journal file of the
// store in dir open (from /proc/self/fd).
func journalOpen(t *testing.T, dir string) bool {
	t.Helper()
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, journalFile)
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		l, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && (l == want || l == want+" (deleted)") {
			return true
		}
	}
	return false
}

// TestJournal_FileClosedWhenStoreUnusable: a journaled delta that leaves
// the store unusable (its roll-back failed, or Close cut its stream off)
// keeps its journal for the next Open but closes the file, and its error
// still says what went wrong first.
func TestJournal_FileClosedWhenStoreUnusable(t *testing.T) {
	t.Parallel()
	errRollback := errors.New("injected roll-back failure")
	for _, tc := range []struct {
		name     string
		streamed bool
		want     []error
	}{
		{name: "rollback fails", want: []error{context.Canceled, errRollback}},
		{name: "stream cut off by Close", streamed: true, want: []error{ErrClosed}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dir := t.TempDir()
			o := DefaultOptions().WithSyncWrites(false).WithTuning(Tuning{MaxDeltaQuads: 50, JournalTxnEntries: 100, CloseWait: 100 * time.Millisecond})
			paused, resume := make(chan struct{}), make(chan struct{})
			var once sync.Once
			pause := func() { once.Do(func() { close(paused); <-resume }) }
			dctx, cancel := context.WithCancel(ctx)
			defer cancel()
			if tc.streamed {
				o = WithStreamHook(WithStreamTuning(o, 1<<20, 100), func(stage string) {
					if stage == "prepared" {
						pause()
					}
				})
			} else {
				// The delta's context ends after its first transaction, and
				// its roll-back fails.
				o = WithJournalHook(o, func(stage string) {
					if stage == "committed" {
						cancel()
					}
				})
				o.hooks.rollback = func() error { return errRollback }
			}
			s, n := openFilled(t, dir, o, 10, "base")
			applied := make(chan error, 1)
			go func() { applied <- n.Apply(dctx, Delta{Add: uniqueQuads(3000, "big")}) }()
			closed := make(chan error, 1)
			if tc.streamed {
				<-paused
				go func() { closed <- s.Close() }()
				for !s.cutOff.Load() {
					time.Sleep(10 * time.Millisecond)
				}
				close(resume)
			}
			err := <-applied
			for _, want := range tc.want {
				if !errors.Is(err, want) {
					t.Errorf("the delta: %v, want an error matching %v", err, want)
				}
			}
			if journalOpen(t, dir) {
				t.Error("the journal file is still open")
			}
			if _, err := os.Stat(filepath.Join(dir, journalFile)); err != nil {
				t.Errorf("the journal the next Open rolls back from: %v", err)
			}
			if tc.streamed {
				if err := <-closed; !errors.Is(err, ErrCutOff) {
					t.Errorf("Close: %v, want ErrCutOff (it cut the stream off)", err)
				}
			} else {
				if err := s.checkOpen(); err == nil {
					t.Error("the store is usable after a failed roll-back")
				}
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			}
			if size := sizeReopened(t, dir); size != 10 {
				t.Fatalf("size %d after reopening; want 10 (the delta rolled back)", size)
			}
		})
	}
}
