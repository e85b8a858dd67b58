package engine

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
)

// segmentTuning sets small segments: about segBytes each, streamed from
// minEntries entries (whatever the LSM tree's size; 0 streams every
// segment).
func segmentTuning(segBytes int64, minEntries int) func(*Options) {
	return func(o *Options) {
		o.hooks.segmentBytes = segBytes
		o.tuning.StreamMinEntries, o.tuning.StreamFlattenRatio = max(minEntries, 1), 1<<40
	}
}

func distinct(qs []quad.Quad) map[quad.Quad]bool {
	m := map[quad.Quad]bool{}
	for _, q := range qs {
		m[q] = true
	}
	return m
}

func checkSegmentContents(t *testing.T, n *Namespace, want map[quad.Quad]bool) {
	t.Helper()
	bulkCheckFormat(t, n)
	got := map[quad.Quad]bool{}
	if err := n.EachQuad(context.Background(), Pattern{}, func(q quad.Quad) error {
		got[q] = true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for q := range want {
		if !got[q] {
			t.Fatalf("missing %v (have %d, want %d)", q, len(got), len(want))
		}
	}
	if len(got) != len(want) {
		t.Fatalf("have %d quads, want %d", len(got), len(want))
	}
	if sz, err := n.Size(context.Background()); err != nil || sz != int64(len(want)) {
		t.Fatalf("size %d, %v; want %d", sz, err, len(want))
	}
}

// Both ways of writing a segment, over many small segments, with duplicates
// inside chunks, across chunks of a segment and across segments.
func TestSegments_ManySegmentsWithRepeats(t *testing.T) {
	t.Parallel()
	for _, mode := range []struct {
		name       string
		minEntries int
	}{{"streamed", 0}, {"chunks", 1 << 30}} {
		t.Run(mode.name, func(t *testing.T) {
			ctx := context.Background()
			n := bulkTestNS(t, 7, segmentTuning(16<<10, mode.minEntries))
			streamed := n.s.counters.streamed.Load()
			qs := append(bulkMixed(400, 0), bulkMixed(400, 0)...)
			res, err := n.Import(ctx, &sliceSource{qs: qs}, ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Read != int64(len(qs)) || res.Committed != int64(len(qs)) || res.Chunks < 2 {
				t.Fatalf("result %+v", res)
			}
			checkSegmentContents(t, n, distinct(qs))
			got := n.s.counters.streamed.Load() - streamed
			if mode.minEntries == 0 && got < 2 {
				t.Fatalf("%d segments streamed, want several", got)
			} else if mode.minEntries > 0 && got != 0 {
				t.Fatalf("%d segments streamed, want none", got)
			}
			// A second import of the same data changes nothing.
			if _, err := n.Import(ctx, &sliceSource{qs: qs}, ImportOptions{}); err != nil {
				t.Fatal(err)
			}
			checkSegmentContents(t, n, distinct(qs))
		})
	}
}

// A streamed segment over existing data: existing nodes' reference counts
// and the meta entries are overwritten, existing quads are not repeated.
func TestSegments_IntoNonEmptyNamespace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := bulkTestNS(t, 9, segmentTuning(1<<30, 0))
	old := bulkMixed(200, 1)
	if err := n.Apply(ctx, Delta{Add: old}); err != nil {
		t.Fatal(err)
	}
	// Remove some, so that the namespace has freed ids and nodes.
	if err := n.Apply(ctx, Delta{Remove: old[:50]}); err != nil {
		t.Fatal(err)
	}
	want := distinct(old[50:])
	in := append(bulkMixed(300, 2), old[40:80]...)
	streamed := n.s.counters.streamed.Load()
	if _, err := n.Import(ctx, &sliceSource{qs: in}, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if n.s.counters.streamed.Load() == streamed {
		t.Fatal("the import was not streamed")
	}
	for q := range distinct(in) {
		want[q] = true
	}
	checkSegmentContents(t, n, want)
	// Deltas work on the streamed data.
	if err := n.Apply(ctx, Delta{Remove: in[:100]}); err != nil {
		t.Fatal(err)
	}
	for _, q := range in[:100] {
		delete(want, q)
	}
	checkSegmentContents(t, n, want)
}

// Other writers run between segments: a slow source ends the open segment,
// so an Apply issued while the import waits for input is not blocked by it.
func TestSegments_WritersBetweenSegments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := bulkTestNS(t, 10, segmentTuning(1<<30, 0))
	base := bulkMixed(120, 0)
	other := bulkMixed(90, 3)
	in := append(append([]quad.Quad(nil), base...), base...)
	at := func(i int) {
		switch i {
		case 60:
			if err := n.Apply(ctx, Delta{Remove: base[:30]}); err != nil {
				t.Error(err)
			}
		case 150:
			if err := n.Apply(ctx, Delta{Add: other}); err != nil {
				t.Error(err)
			}
		}
	}
	res, err := n.Import(ctx, &sliceSource{qs: in, at: at}, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Chunks < 3 {
		t.Fatalf("result %+v: want the segments cut by the slow source", res)
	}
	// The removed quads come back with the second copy of base.
	want := distinct(base)
	for q := range distinct(other) {
		want[q] = true
	}
	checkSegmentContents(t, n, want)
}

// A source error after some chunks: the chunks before it are written (and
// reported), the failing chunk is not.
func TestSegments_SourceErrorWritesEarlierChunks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := bulkTestNS(t, 10, segmentTuning(1<<30, 0))
	qs := bulkMixed(95, 4)
	boom := errors.New("boom")
	_, err := n.Import(ctx, &errSource{qs: qs, err: boom}, ImportOptions{})
	var ie *ImportError
	if !errors.As(err, &ie) || !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
	if ie.Committed != 90 {
		t.Fatalf("committed %d, want 90", ie.Committed)
	}
	checkSegmentContents(t, n, distinct(qs[:90]))
}

type errSource struct {
	qs  []quad.Quad
	i   int
	err error
}

func (s *errSource) Next() (quad.Quad, error) {
	if s.i >= len(s.qs) {
		return quad.Quad{}, s.err
	}
	s.i++
	return s.qs[s.i-1], nil
}

// The import's maps overflow: segments end early and later ones read.
func TestSegments_MapCaps(t *testing.T) {
	t.Parallel()
	n := bulkTestNS(t, 7, segmentTuning(1<<30, 0), tuned(func(t *Tuning) { t.ImportMaxNodes, t.ImportMaxKeys, t.ImportMaxQuads = 20, 20, 20 }))
	qs := append(bulkMixed(200, 0), bulkMixed(200, 5)...)
	qs = append(qs, qs...)
	if _, err := n.Import(context.Background(), &sliceSource{qs: qs}, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	checkSegmentContents(t, n, distinct(qs))
}

func TestUndoRecordRoundTripAndDamage(t *testing.T) {
	t.Parallel()
	r := &undoRecord{version: 77, prefix: []byte("n:default/"), old: []undoEntry{
		{key: []byte("n:default/meta/size"), val: []byte{1, 2, 3, 4, 5, 6, 7, 8}, present: true},
		{key: []byte("n:default/n\x00\x01/h"), present: false},
		{key: []byte("n:default/n\x00\x02/h"), val: []byte{}, present: true},
	}}
	b := r.marshal()
	got, err := parseUndo(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.version != r.version || !bytes.Equal(got.prefix, r.prefix) || len(got.old) != len(r.old) {
		t.Fatalf("got %+v", got)
	}
	for i, e := range r.old {
		g := got.old[i]
		if !bytes.Equal(g.key, e.key) || !bytes.Equal(g.val, e.val) || g.present != e.present {
			t.Fatalf("entry %d: %+v, want %+v", i, g, e)
		}
	}
	for i := range b {
		for _, d := range []byte{1, 0x80} {
			m := bytes.Clone(b)
			m[i] ^= d
			if _, err := parseUndo(m); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("flipping byte %d: %v", i, err)
			}
		}
		if _, err := parseUndo(b[:i]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated to %d: %v", i, err)
		}
	}
}

func FuzzParseUndo(f *testing.F) {
	f.Add((&undoRecord{version: 1, prefix: []byte("n:x/"), old: []undoEntry{{key: []byte("k"), val: []byte("v"), present: true}}}).marshal())
	f.Add([]byte("cortex-undo1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseUndo(b)
		if err != nil {
			return
		}
		if again, err := parseUndo(r.marshal()); err != nil || again.version != r.version || len(again.old) != len(r.old) {
			t.Fatalf("re-marshalled record does not parse back: %v", err)
		}
	})
}

// Streamed segments while other goroutines read and write the same store:
// writers of the same and of another namespace, and readers. Nothing
// deadlocks, every write lands, and both namespaces stay exact.
func TestSegments_ConcurrentUse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := bulkTestNS(t, 16, segmentTuning(128<<10, 0))
	other, err := n.s.Namespace(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	in := bulkMixed(1500, 7)
	streamed := n.s.counters.streamed.Load()
	done := make(chan struct{})
	errs := make(chan error, 8)
	go func() {
		defer close(done)
		if _, err := n.Import(ctx, &sliceSource{qs: in}, ImportOptions{}); err != nil {
			errs <- err
		}
	}()
	var sameAdds, otherAdds []quad.Quad
	for i := 0; i < 40; i++ {
		sameAdds = append(sameAdds, bulkTQ(10_000+i, 1, quad.String("same"), nil))
		otherAdds = append(otherAdds, bulkTQ(20_000+i, 2, quad.String("other"), quad.IRI("http://e/g")))
	}
	finished := make(chan struct{}, 3)
	go func() { // writer, same namespace
		defer func() { finished <- struct{}{} }()
		for _, q := range sameAdds {
			if err := n.Apply(ctx, Delta{Add: []quad.Quad{q}}); err != nil {
				errs <- err
				return
			}
		}
	}()
	go func() { // writer, other namespace, with removals
		defer func() { finished <- struct{}{} }()
		for i, q := range otherAdds {
			if err := other.Apply(ctx, Delta{Add: []quad.Quad{q}}); err != nil {
				errs <- err
				return
			}
			if i%2 == 1 {
				if err := other.Apply(ctx, Delta{Remove: []quad.Quad{otherAdds[i-1]}}); err != nil {
					errs <- err
					return
				}
			}
		}
	}()
	go func() { // reader
		defer func() { finished <- struct{}{} }()
		for {
			select {
			case <-done:
				return
			default:
			}
			if err := n.EachQuad(ctx, Pattern{}, func(quad.Quad) error { return nil }); err != nil {
				errs <- err
				return
			}
			if _, err := other.Size(ctx); err != nil {
				errs <- err
				return
			}
		}
	}()
	<-done
	for range 3 {
		<-finished
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n.s.counters.streamed.Load() == streamed {
		t.Fatal("nothing was streamed")
	}
	want := distinct(in)
	for _, q := range sameAdds {
		want[q] = true
	}
	checkSegmentContents(t, n, want)
	wantOther := map[quad.Quad]bool{}
	for i, q := range otherAdds {
		if i%2 == 1 {
			wantOther[q] = true
		}
	}
	checkSegmentContents(t, other, wantOther)
}

// A goroutine that holds a query open and then writes to the namespace a
// large import is writing: the import's stream cannot get the store to
// itself, so after a bounded wait it commits its segment chunk by chunk and
// releases the namespace; nothing deadlocks.
func TestSegments_OpenQueryWriterDoesNotDeadlock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := bulkTestNS(t, 10, segmentTuning(1<<30, 0), tuned(func(t *Tuning) { t.StreamGateWait = 50 * time.Millisecond }))
	seed := bulkTQ(1, 1, quad.String("seed"), nil)
	if err := n.Apply(ctx, Delta{Add: []quad.Quad{seed}}); err != nil {
		t.Fatal(err)
	}
	in := bulkMixed(400, 8)
	running := make(chan struct{})
	var once sync.Once
	importDone := make(chan error, 1)
	go func() {
		_, err := n.Import(ctx, &sliceSource{qs: in, at: func(i int) {
			if i == 100 {
				once.Do(func() { close(running) })
			}
		}}, ImportOptions{})
		importDone <- err
	}()
	extra := bulkTQ(2, 2, quad.String("written while a query was open"), nil)
	queryDone := make(chan error, 1)
	go func() {
		queryDone <- n.EachQuad(ctx, Pattern{}, func(quad.Quad) error {
			<-running // the import holds the namespace now
			return n.Apply(ctx, Delta{Add: []quad.Quad{extra}})
		})
	}()
	for _, ch := range []chan error{importDone, queryDone} {
		select {
		case err := <-ch:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(2 * time.Minute): // a hang is the failure, not a timing assertion
			t.Fatal("deadlock: import and query writer never finished")
		}
	}
	want := distinct(in)
	want[seed], want[extra] = true, true
	checkSegmentContents(t, n, want)
}

// An undo file left by a crash: a read-only open refuses the store with a
// clear error (the roll-back needs a write), a damaged file is reported, and
// a read-write open rolls back and removes it.
func TestOpen_UndoFileHandling(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s := openIn(t, dir)
	n, err := s.Namespace(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Apply(ctx, Delta{Add: bulkMixed(20, 1)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	undo := &undoRecord{version: 1 << 40, prefix: []byte("n:default/")}
	if err := (&Store{dir: dir}).writeUndo(undo); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, dir, DefaultOptions().WithReadOnly(true)); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "read-write") {
		t.Fatalf("read-only open: %v", err)
	}
	path := filepath.Join(dir, streamUndoFile)
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, b[:len(b)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, dir, DefaultOptions()); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), streamUndoFile) {
		t.Fatalf("damaged undo file: %v", err)
	}
	if err := (&Store{dir: dir}).writeUndo(undo); err != nil {
		t.Fatal(err)
	}
	s = testStore(t, dir, DefaultOptions())
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("undo file not removed: %v", err)
	}
	n, err = s.Namespace(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	checkSegmentContents(t, n, distinct(bulkMixed(20, 1)))
}

// The segment budget is an Open option: a small one cuts an import into
// several segments; a budget under 1 MB is refused.
func TestOptions_ImportSegmentBytes(t *testing.T) {
	t.Parallel()
	if _, err := Open(context.Background(), t.TempDir(), DefaultOptions().WithImportSegmentBytes(1000)); err == nil || !strings.Contains(err.Error(), "below 1 MiB") {
		t.Fatalf("got %v", err)
	}
	ctx := context.Background()
	o := DefaultOptions().WithSyncWrites(false).WithChunkQuads(500).WithImportSegmentBytes(1 << 20)
	segmentTuning(1<<62, 0)(&o) // stream every segment; the spill budget comes from the option
	s := testStore(t, t.TempDir(), o)
	n, err := s.Namespace(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	var qs []quad.Quad
	for i := 0; i < 20_000; i++ {
		qs = append(qs, bulkTQ(i, i%7, quad.String("o"), nil))
	}
	streamed, spilled := n.s.counters.streamed.Load(), n.s.counters.spilled.Load()
	res, err := n.Import(ctx, &sliceSource{qs: qs}, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// One segment, spilled to runs of the budget's size.
	if got := n.s.counters.streamed.Load() - streamed; got != 1 || res.Chunks != 1 {
		t.Fatalf("%d segments streamed, result %+v: want 1", got, res)
	}
	if runs := n.s.counters.spilled.Load() - spilled; runs < 2 {
		t.Fatalf("%d runs spilled, want several", runs)
	}
	checkSegmentContents(t, n, distinct(qs))
}
