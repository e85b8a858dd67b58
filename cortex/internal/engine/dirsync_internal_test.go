package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestJournalAndUndo_RemovalAfterAFailedDirSyncIsSynced: when making a
// delta's journal or a streamed segment's undo file durable fails after it
// was renamed into place (a failed sync of the directory), the file is
// removed, as one left behind would roll back every later write of the
// namespace at the next Open. The removal must itself be made durable (the
// directory synced again): a power loss could otherwise bring the file back.
// Should that sync fail too, the store refuses to go on.
func TestJournalAndUndo_RemovalAfterAFailedDirSyncIsSynced(t *testing.T) {
	t.Parallel()
	syncErr := errors.New("injected: sync of the directory failed")
	for _, tc := range []struct {
		name string
		file string
		opts func() Options
		// write runs the write whose file's first directory sync fails.
		write func(ctx context.Context, n *Namespace) error
	}{
		{
			name: "journal",
			file: journalFile,
			opts: func() Options {
				return DefaultOptions().WithSyncWrites(false).WithTuning(Tuning{MaxDeltaQuads: 50})
			},
			write: func(ctx context.Context, n *Namespace) error {
				return n.Apply(ctx, Delta{Add: uniqueQuads(200, "journaled")})
			},
		},
		{
			name: "undo",
			file: streamUndoFile,
			opts: func() Options {
				o := DefaultOptions().WithSyncWrites(false)
				segmentTuning(1<<62, 0)(&o)
				return o
			},
			write: func(ctx context.Context, n *Namespace) error {
				_, err := n.Import(ctx, &sliceSource{qs: uniqueQuads(2000, "seg")}, ImportOptions{})
				return err
			},
		},
	} {
		for _, resyncFails := range []bool{false, true} {
			name := tc.name
			if resyncFails {
				name += "/resync-fails"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				failResync := resyncFails
				ctx := context.Background()
				dir := t.TempDir()
				path := filepath.Join(dir, tc.file)
				// armed: the next sync with the file in place fails;
				// failed: it did; synced: a sync after that found the
				// file gone.
				var armed, failed, synced bool
				opts := tc.opts()
				opts.hooks.dirSync = func() error {
					_, err := os.Stat(path)
					present := err == nil
					switch {
					case armed && !failed && present:
						failed = true
						return syncErr
					case failed && failResync:
						return syncErr
					case failed && !present:
						synced = true
					}
					return nil
				}
				s := testStore(t, dir, opts)
				noStoreCheck.Store(t, true) // checked below, after the reopen
				n, err := s.Namespace(ctx, "ns")
				if err != nil {
					t.Fatal(err)
				}
				base := uniqueQuads(30, "base")
				if err := n.Apply(ctx, Delta{Add: base}); err != nil {
					t.Fatal(err)
				}
				armed = true
				if err := tc.write(ctx, n); !errors.Is(err, syncErr) {
					t.Fatalf("write: %v, want the injected failure", err)
				}
				if !failed {
					t.Fatal("the injected failure did not happen")
				}
				if _, err := os.Stat(path); err == nil {
					t.Errorf("%s of the write that failed is left behind", tc.file)
				}
				if !resyncFails && !synced {
					t.Errorf("%s was removed after a failed sync of the directory, and the directory was not synced again", tc.file)
				}
				// Another write: acknowledged only if the removal is durable.
				later := uniqueQuads(1, "later")
				werr := n.Apply(ctx, Delta{Add: later})
				if resyncFails && werr == nil {
					t.Errorf("the removal of %s could not be made durable, and the store took another write", tc.file)
				}
				if !resyncFails && werr != nil {
					t.Errorf("a write after the failed one: %v", werr)
				}
				failResync = false
				s = reopenHolds(t, s, dir, tc.opts(), base, later[0], werr)
				if err := s.Check(ctx); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}
