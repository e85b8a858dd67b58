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
// written (a delta, a journaled delta, an import, a read-write Open), reads
// go on, a read-only Open works, and writes work again once there is room.
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

	free.Store(s.reserve - 1)
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
