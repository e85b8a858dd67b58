package engine

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/cayleygraph/quad"
)

// freeSpaceFrom makes the free-space guard see what free returns (an
// injected full disk).
func freeSpaceFrom(free func() int64) func(*Options) {
	return func(o *Options) { o.hooks.freeSpace = func(string) (int64, error) { return free(), nil } }
}

func checkNoSpace(t *testing.T, err error, what string) {
	t.Helper()
	var ne *NoSpaceError
	if !errors.Is(err, syscall.ENOSPC) || !errors.As(err, &ne) || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("%s: got %v, want a *NoSpaceError matching ENOSPC", what, err)
	}
}

// TestDiskSpace_RefusesWritesNotReads: with less free space than a write
// needs, every kind of write is refused with ENOSPC before anything is
// written (a delta, a journaled delta, an import; a read-write Open without
// room for a deletion), reads go on, a read-only Open works, and writes work again once there is room.
func TestDiskSpace_RefusesWritesNotReads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	var free atomic.Int64
	free.Store(1 << 50)
	opts := DefaultOptions()
	freeSpaceFrom(free.Load)(&opts)
	s, err := Open(ctx, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.Namespace(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	base := bulkMixed(300, 1)
	if err := n.Apply(ctx, Delta{Add: base}); err != nil {
		t.Fatal(err)
	}
	want := distinct(base)
	free.Store(s.reserve - 1)

	small := []quad.Quad{{Subject: quad.IRI("http://e/new"), Predicate: quad.IRI("http://e/p"), Object: quad.String("x")}}
	checkNoSpace(t, n.Apply(ctx, Delta{Add: small}), "a small delta")
	large := uniqueQuads(MaxDeltaQuads+500, "l")
	checkNoSpace(t, n.Apply(ctx, Delta{Add: large}), "a journaled delta")
	_, err = n.Import(ctx, &sliceSource{qs: bulkMixed(5000, 3)}, ImportOptions{})
	checkNoSpace(t, err, "an import")
	checkSegmentContents(t, n, want) // reads go on; nothing was written

	// Room for a small write but not for the journaled one's data.
	free.Store(s.reserve + 10_000)
	if err := n.Apply(ctx, Delta{Add: small}); err != nil {
		t.Fatalf("a small delta with room for it: %v", err)
	}
	want[small[0]] = true
	checkNoSpace(t, n.Apply(ctx, Delta{Add: large}), "a journaled delta larger than the room")
	checkSegmentContents(t, n, want)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	free.Store(s.dropSpace - 1) // (a deletion's room opens it: TestDiskSpace_DeleteNamespace)
	_, err = Open(ctx, dir, opts)
	checkNoSpace(t, err, "a read-write Open")
	ro, err := Open(ctx, dir, opts.WithReadOnly(true))
	if err != nil {
		t.Fatalf("a read-only Open on a full disk: %v", err)
	}
	rn, err := ro.OpenNamespace(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	checkSegmentContents(t, rn, want)
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}

	free.Store(1 << 50)
	s = testStore(t, dir, opts)
	n, err = s.Namespace(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Apply(ctx, Delta{Add: large}); err != nil {
		t.Fatalf("a journaled delta with room again: %v", err)
	}
	for _, q := range large {
		want[q] = true
	}
	checkSegmentContents(t, n, want)
}

// TestDiskSpace_ImportStopsBetweenSegments: an import whose later segment
// does not fit is refused at that segment: the earlier segments stay, the
// refused one leaves nothing (no run file, no half-written stream), and the
// error says what was committed.
func TestDiskSpace_ImportStopsBetweenSegments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var free atomic.Int64
	free.Store(1 << 50)
	// Segments of 2,000 quads, spilled every 24 kB.
	n := bulkTestNS(t, 100, segmentTuning(1<<62, 0), spillTuning(24<<10, 2000), freeSpaceFrom(free.Load))
	qs := uniqueQuads(6000, "i")
	src := &sliceSource{qs: qs}
	var committed []int64
	_, err := n.Import(ctx, src, ImportOptions{Progress: func(c int64) {
		committed = append(committed, c)
		free.Store(n.s.reserve - 1) // the disk fills after the first segment
	}})
	checkNoSpace(t, err, "the second segment")
	var ie *ImportError
	if !errors.As(err, &ie) || ie.Committed == 0 || ie.Committed >= int64(len(qs)) {
		t.Fatalf("got %v, want an *ImportError with the first segment committed", err)
	}
	if len(runFilesIn(t, n.s.dir)) != 0 {
		t.Fatal("run files left behind")
	}
	want := distinct(qs[:ie.Committed])
	checkSegmentContents(t, n, want)
}

// uniqueQuads returns n distinct quads with subjects named after tag.
func uniqueQuads(n int, tag string) []quad.Quad {
	qs := make([]quad.Quad, n)
	for i := range qs {
		qs[i] = quad.Quad{Subject: quad.IRI("http://e/" + tag + strconv.Itoa(i)), Predicate: quad.IRI("http://e/p"), Object: quad.String(strconv.Itoa(i % 97))}
	}
	return qs
}

// TestDiskSpace_DeleteNamespace: on a disk too full for writes, deleting a
// namespace, which is how a user frees space, was refused as a write (and
// so was the read-write Open it needs). It is allowed while the free space
// covers what its DropPrefix writes (dropSpace, the reserve less the rest
// of the memtable log); below that it is refused whole, with ENOSPC,
// before anything is deleted. If the disk fills between its two steps,
// the namespace is gone and its keys are left to the next read-write Open.
// Check passes throughout.
func TestDiskSpace_DeleteNamespace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	var free atomic.Int64
	free.Store(1 << 50)
	var calls atomic.Int64 // free-space checks
	opts := DefaultOptions()
	opts.hooks.freeSpace = func(string) (int64, error) { calls.Add(1); return free.Load(), nil }
	s, err := Open(ctx, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	fill := map[string][]quad.Quad{}
	for _, name := range []string{"keep", "gone", "stays", "half"} {
		n, err := s.Namespace(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		fill[name] = uniqueQuads(200, name)
		if err := n.Apply(ctx, Delta{Add: fill[name]}); err != nil {
			t.Fatal(err)
		}
	}
	keep, err := s.OpenNamespace(ctx, "keep")
	if err != nil {
		t.Fatal(err)
	}
	if s.dropSpace <= 0 || s.dropSpace >= s.reserve {
		t.Fatalf("dropSpace %d, reserve %d: want 0 < dropSpace < reserve", s.dropSpace, s.reserve)
	}

	// Writes refused: the guard's reserve is not there in full.
	free.Store(s.reserve - 1)
	checkNoSpace(t, keep.Apply(ctx, Delta{Add: uniqueQuads(3, "late")}), "a delta at the guard")
	if err := s.DeleteNamespace(ctx, "gone"); err != nil {
		t.Fatalf("DeleteNamespace on a disk too full for writes: %v", err)
	}
	if _, err := s.OpenNamespace(ctx, "gone"); !errors.Is(err, ErrNoNamespace) {
		t.Fatalf("the deleted namespace: %v, want ErrNoNamespace", err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}

	// Not even room for a deletion: refused whole.
	free.Store(s.dropSpace - 1)
	checkNoSpace(t, s.DeleteNamespace(ctx, "stays"), "a deletion without room for its DropPrefix")
	stays, err := s.OpenNamespace(ctx, "stays")
	if err != nil {
		t.Fatalf("the namespace whose deletion was refused: %v", err)
	}
	checkSegmentContents(t, stays, distinct(fill["stays"]))

	// The disk fills between the two steps: the namespace is gone, its keys
	// are left (Check accepts them) and dropped by the next Open.
	free.Store(s.dropSpace)
	at := calls.Load()
	s.opts.hooks.freeSpace = func(string) (int64, error) {
		if calls.Add(1) > at+1 {
			return s.dropSpace - 1, nil
		}
		return free.Load(), nil
	}
	err = s.DeleteNamespace(ctx, "half")
	checkNoSpace(t, err, "the drop after the registry entry's deletion")
	if !strings.Contains(err.Error(), "the namespace is gone") {
		t.Fatalf("error %q does not say the namespace is gone", err)
	}
	if _, err := s.OpenNamespace(ctx, "half"); !errors.Is(err, ErrNoNamespace) {
		t.Fatalf("the half-deleted namespace: %v, want ErrNoNamespace", err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
	checkSegmentContents(t, keep, distinct(fill["keep"]))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// A read-write Open needs only a deletion's room, and drops the
	// leftovers.
	free.Store(s.reserve - 1)
	opts.hooks.freeSpace = func(string) (int64, error) { return free.Load(), nil }
	s = testStore(t, dir, opts)
	if keys, err := s.prefixKeys(ctx, []byte(dataPrefix+"half/"), nil); err != nil || len(keys) != 0 {
		t.Fatalf("%d keys of the half-deleted namespace after Open (%v), want none", len(keys), err)
	}
	names, err := s.Namespaces(ctx)
	if err != nil || strings.Join(names, " ") != "keep stays" {
		t.Fatalf("namespaces %v, %v; want keep stays", names, err)
	}
}
