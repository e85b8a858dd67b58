package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cayleygraph/quad"
)

// TestStream_UndoFileNotLeftByAFailedWrite: when writing a streamed
// segment's undo file fails after it was renamed into place (a failed sync
// of the directory), the segment is not written and the undo file must not
// stay behind: the next Open would roll back every later write of the
// namespace as if it were the segment's.
func TestStream_UndoFileNotLeftByAFailedWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	syncErr := errors.New("injected: sync of the directory failed")
	fail := true
	opts := DefaultOptions().WithSyncWrites(false)
	segmentTuning(1<<62, 0)(&opts)
	opts.hooks.undoRenamed = func() error {
		if fail {
			return syncErr
		}
		return nil
	}
	s, err := Open(ctx, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.Namespace(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	base := uniqueQuads(300, "base")
	if err := n.Apply(ctx, Delta{Add: base}); err != nil {
		t.Fatal(err)
	}
	_, err = n.Import(ctx, &sliceSource{qs: uniqueQuads(2000, "seg")}, ImportOptions{})
	if !errors.Is(err, syncErr) {
		t.Fatalf("import: %v, want the injected failure", err)
	}
	if _, serr := os.Stat(filepath.Join(dir, streamUndoFile)); serr == nil {
		t.Errorf("the undo file of the segment that was not written is left behind")
	}
	// The store goes on (or refuses to): a write it acknowledges must survive
	// the next Open.
	fail = false
	later := []quad.Quad{{Subject: quad.IRI("http://e/later"), Predicate: quad.IRI("http://e/p"), Object: quad.String("x")}}
	werr := n.Apply(ctx, Delta{Add: later})
	reopenHolds(t, s, dir, opts, base, later[0], werr)
}

// reopenHolds closes s (an error counts only if the write after the
// failure, whose error is werr, was acknowledged), opens the store in dir
// again with opts and checks that namespace "ns" holds base, and later if
// its write was acknowledged; it returns the store opened again.
func reopenHolds(t *testing.T, s *Store, dir string, opts Options, base []quad.Quad, later quad.Quad, werr error) *Store {
	t.Helper()
	if err := s.Close(); err != nil && werr == nil {
		t.Fatal(err)
	}
	s = testStore(t, dir, opts)
	n, err := s.OpenNamespace(context.Background(), "ns")
	if err != nil {
		t.Fatal(err)
	}
	want := distinct(base)
	if werr == nil {
		want[later] = true
	}
	checkSegmentContents(t, n, want)
	return s
}

// TestOpen_RemovesUnrenamedUndoFile: a process killed while it wrote a
// segment's undo file, before renaming it into place, leaves the temporary
// file (as large as the values the segment would overwrite); nothing was
// written, and a read-write Open removes it, as it removes a journal's
// (recoverJournal). A read-only Open leaves it.
func TestOpen_RemovesUnrenamedUndoFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s := openIn(t, dir)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, streamUndoFile+".tmp")
	if err := os.WriteFile(tmp, (&undoRecord{version: 1 << 40, prefix: []byte("n:ns/")}).marshal()[:10], 0o644); err != nil {
		t.Fatal(err)
	}
	ro, err := Open(ctx, dir, DefaultOptions().WithReadOnly(true))
	if err != nil {
		t.Fatal(err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Fatalf("a read-only Open removed the temporary undo file: %v", err)
	}
	testStore(t, dir, DefaultOptions())
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temporary undo file left by a crash is still there after a read-write Open (%v)", err)
	}
}
