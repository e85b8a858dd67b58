package engine

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
)

func testJournalEntries() []undoEntry {
	return []undoEntry{
		{key: []byte("d/ns/n/a"), val: []byte{1}, present: true},
		{key: []byte("d/ns/meta/size"), val: []byte{}, present: true},
		{key: []byte("d/ns/l/\x00\x01"), val: bytes.Repeat([]byte{7}, 300), present: true},
	}
}

// writeTestJournal writes a journal as a delta would, with entries split in
// two records.
func writeTestJournal(t *testing.T, dir string, old []undoEntry) []byte {
	t.Helper()
	s := &Store{dir: dir, opts: DefaultOptions()}
	j := &journal{s: s, prefix: []byte("d/ns/"), v0: 42}
	f, err := os.Create(filepath.Join(dir, journalFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(journalHeader(j.v0, j.prefix)); err != nil {
		t.Fatal(err)
	}
	j.f = f
	if err := j.record(old[:1]); err != nil {
		t.Fatal(err)
	}
	if err := j.record(old[1:]); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, journalFile))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestJournal_RoundTripAndTornTail(t *testing.T) {
	t.Parallel()
	old := testJournalEntries()
	b := writeTestJournal(t, t.TempDir(), old)
	prefix, v0, got, clean, err := parseJournal(b)
	if err != nil || !clean || string(prefix) != "d/ns/" || v0 != 42 || len(got) != len(old) {
		t.Fatalf("parse: %q %d %d entries, clean %v, %v", prefix, v0, len(got), clean, err)
	}
	for i := range old {
		if !bytes.Equal(got[i].key, old[i].key) || !bytes.Equal(got[i].val, old[i].val) || !got[i].present {
			t.Fatalf("entry %d: %+v, want %+v", i, got[i], old[i])
		}
	}
	hdr := len(journalHeader(42, []byte("d/ns/")))
	first := len(b) // end of the first record
	for n := hdr; n <= len(b); n++ {
		if _, _, got, _, err := parseJournal(b[:n]); err == nil && len(got) == 1 {
			first = n
			break
		}
	}
	// Every truncation of the records is a torn tail: the records before it count.
	for n := hdr; n < len(b); n++ {
		_, _, got, clean, err := parseJournal(b[:n])
		want := 0
		if n >= first {
			want = 1
		}
		if err != nil || len(got) != want || clean != (n == hdr || n == first) {
			t.Fatalf("truncated at %d: %d entries, clean %v, %v; want %d", n, len(got), clean, err, want)
		}
	}
	// A damaged or truncated header is an error, never a silent empty journal.
	for n := 0; n < hdr; n++ {
		if _, _, _, _, err := parseJournal(b[:n]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("header truncated at %d: %v", n, err)
		}
		c := bytes.Clone(b)
		c[n] ^= 0x10
		if _, _, _, _, err := parseJournal(c); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("header byte %d flipped: %v", n, err)
		}
	}
}

func FuzzParseJournal(f *testing.F) {
	dir := f.TempDir()
	f.Add(writeTestJournal(&testing.T{}, dir, testJournalEntries()))
	f.Add(journalHeader(1, []byte("p")))
	f.Fuzz(func(t *testing.T, b []byte) {
		prefix, v0, old, _, err := parseJournal(b)
		if err != nil {
			return
		}
		if v0 == 0 || len(prefix) == 0 {
			t.Fatalf("accepted v0 %d prefix %q", v0, prefix)
		}
		for _, e := range old {
			if !e.present {
				t.Fatal("entry without a value")
			}
		}
	})
}

// TestJournal_OpenHandling: a read-only open refuses a store with a journal,
// a damaged journal is an error naming the file, and a read-write open rolls
// the journal back and removes it.
func TestJournal_OpenHandling(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s := openIn(t, dir)
	ns, err := s.Namespace(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	prefix := ns.view.Prefix()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, journalFile)
	if err := os.WriteFile(path, journalHeader(1<<40, prefix), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, dir, DefaultOptions().WithReadOnly(true)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("read-only open: %v", err)
	}
	if err := os.WriteFile(path, []byte("cortex-journal1 garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, dir, DefaultOptions()); !errors.Is(err, ErrCorrupt) || !bytes.Contains([]byte(err.Error()), []byte(journalFile)) {
		t.Fatalf("damaged journal: %v", err)
	}
	if err := os.WriteFile(path, journalHeader(1<<40, prefix), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, dir, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("journal not removed: %v", err)
	}
	ns, err = s.Namespace(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	bulkCheckFormat(t, ns)

	// A damaged record: harmless if nothing of the write reached the
	// database (the journal is dropped), an error if something did.
	if err := ns.Apply(ctx, Delta{Add: []quad.Quad{
		{Subject: quad.IRI("http://x/s"), Predicate: quad.IRI("http://x/p"), Object: quad.String("1")},
		{Subject: quad.IRI("http://x/s"), Predicate: quad.IRI("http://x/p"), Object: quad.String("2")},
		{Subject: quad.IRI("http://x/s"), Predicate: quad.IRI("http://x/p"), Object: quad.String("3")},
	}}); err != nil {
		t.Fatal(err)
	}
	v0 := s.db.MaxVersion() + 1
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	damaged := append(journalHeader(v0, prefix), 5, 1, 2, 3, 4, 5, 0, 0, 0, 0)
	if err := os.WriteFile(path, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, dir, DefaultOptions())
	if err != nil {
		t.Fatalf("damaged record, nothing written: %v", err)
	}
	ns, _ = s.Namespace(ctx, "default")
	if n, err := ns.Size(ctx); err != nil || n != 3 {
		t.Fatalf("size %d, %v", n, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("journal not removed: %v", err)
	}
	if err := os.WriteFile(path, append(journalHeader(v0-1, prefix), 5, 1, 2, 3, 4, 5, 0, 0, 0, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, dir, DefaultOptions()); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("damaged record, write reached the database: %v", err)
	}
}

// TestGate_ExclusiveUnderContinuousLoad: readers that open transactions back
// to back do not starve an exclusive holder; a goroutine holding one
// transaction while opening another is not deadlocked by it. (One that did
// so without pause would keep the holder waiting until its context ends:
// then a large delta fails with ErrBusy, see TestApply_LargeDeltaBusy.)
func TestGate_ExclusiveUnderContinuousLoad(t *testing.T) {
	t.Parallel()
	g := newGate(DefaultTuning())
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var nested atomic.Int64
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				g.Enter(context.Background())
				time.Sleep(time.Millisecond)
				if i == 0 { // nested: a second transaction while holding one
					g.Enter(context.Background())
					nested.Add(1)
					g.Leave()
				}
				g.Leave()
				if i == 0 {
					time.Sleep(2 * time.Millisecond)
				}
			}
		}()
	}
	for range 5 {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		err := g.exclusive(ctx)
		cancel()
		if err != nil {
			close(stop)
			wg.Wait()
			t.Fatalf("exclusive under load: %v", err)
		}
		g.mu.Lock()
		n := g.n
		g.mu.Unlock()
		if n != 0 {
			t.Errorf("exclusive with %d transactions open", n)
		}
		time.Sleep(5 * time.Millisecond)
		g.release()
	}
	close(stop)
	wg.Wait()
	if nested.Load() == 0 {
		t.Fatal("the nested reader never ran")
	}
}

// exclusiveWait bounds only the wait for open transactions: waiting for
// another exclusive holder longer than the bound is no failure, an open
// transaction that outlives it is.
func TestGate_ExclusiveWaitBoundsOnlyTheDrain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := newGate(DefaultTuning())
	if err := g.exclusive(ctx); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		g.release()
	}()
	if err := g.exclusiveWait(ctx, 50*time.Millisecond); err != nil {
		t.Fatalf("behind another holder: %v", err)
	}
	g.release()

	if err := g.Enter(context.Background()); err != nil { // an open transaction that does not end
		t.Fatal(err)
	}
	if err := g.exclusiveWait(ctx, 100*time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("with a transaction open: %v", err)
	}
	g.Leave()
	if err := g.exclusiveWait(ctx, 100*time.Millisecond); err != nil {
		t.Fatalf("with none open: %v", err)
	}
	g.release()
}

// TestGate_HoldNewWaitsOnlyForStarting: holdNew does not wait for a
// transaction that has taken its read timestamp (Started), however long it
// stays open; it waits for one admitted but not yet started (its snapshot
// would otherwise be taken in the middle of the holder's commits), and
// keeps new ones out until release.
func TestGate_HoldNewWaitsOnlyForStarting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := newGate(DefaultTuning())
	if err := g.Enter(context.Background()); err != nil { // open, started, never ends during the test
		t.Fatal(err)
	}
	g.Started()
	if err := g.Enter(context.Background()); err != nil { // admitted, not started yet
		t.Fatal(err)
	}
	held := make(chan error, 1)
	go func() { held <- g.holdNew(ctx) }()
	select {
	case err := <-held:
		t.Fatalf("holdNew returned (%v) while a transaction had not taken its read timestamp", err)
	case <-time.After(100 * time.Millisecond):
	}
	g.Started()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	entered := make(chan struct{})
	go func() {
		if err := g.Enter(context.Background()); err == nil {
			g.Started()
			g.Leave()
		}
		close(entered)
	}()
	select {
	case <-entered:
		t.Fatal("a new transaction was admitted while holdNew held the gate")
	case <-time.After(100 * time.Millisecond):
	}
	g.release()
	<-entered
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := g.Enter(context.Background()); err != nil { // admitted, not started: holdNew gives up with ctx
		t.Fatal(err)
	}
	if err := g.holdNew(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("holdNew beside a transaction that never starts: %v, want the context's error", err)
	}
	g.Started()
	if err := g.holdNew(ctx); err != nil { // the failed holdNew released what it took
		t.Fatal(err)
	}
	g.release()
	for range 3 {
		g.Leave()
	}
}

// TestGate_CloseWaitsForHolder: closeUnless gives up early on open
// transactions (giveUp: Close's query results nobody closed), never on an
// exclusive holder: a journaled delta under holdNew is written by
// transactions the gate does not count, beside open ones that do not hold
// it back, and the store must not close under it. Here giveUp would give
// up at once; closeUnless still returns only after the holder releases.
func TestGate_CloseWaitsForHolder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := newGate(DefaultTuning())
	if err := g.Enter(context.Background()); err != nil { // a read left open (a result nobody closed)
		t.Fatal(err)
	}
	g.Started()
	if err := g.holdNew(ctx); err != nil {
		t.Fatal(err)
	}
	var released atomic.Bool
	go func() {
		time.Sleep(300 * time.Millisecond)
		released.Store(true)
		g.release()
	}()
	drained := g.closeUnless(10*time.Second, func(open int, _ time.Duration) bool { return open > 0 })
	if !released.Load() {
		t.Fatal("closeUnless returned while a holdNew holder was still writing")
	}
	if drained {
		t.Fatal("closeUnless reported a drain with a transaction still open")
	}
	if err := g.Enter(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Enter after closeUnless: %v, want ErrClosed", err)
	}
	g.Leave()
}

// TestApply_JournaledBesideOtherWriters: journaled deltas (held new
// transactions back, open ones not drained) while another namespace commits
// all along. The journal's first version must be newer than every commit,
// including those in flight when it starts (nextVersion: a new
// transaction's read timestamp, which waits for them; Badger's MaxVersion
// read the memtable under the writer, a data race that -race reports), and
// the other namespace's commits are neither lost nor rolled back.
func TestApply_JournaledBesideOtherWriters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testStore(t, t.TempDir(), DefaultOptions().WithSyncWrites(false).WithTuning(Tuning{MaxDeltaQuads: 50}))
	a, err := s.Namespace(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Namespace(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	written := make(chan int)
	go func() {
		i := 0
		for ; ; i++ {
			select {
			case <-stop:
				written <- i
				return
			default:
			}
			if err := b.Apply(ctx, Delta{Add: uniqueQuads(1, "b"+strconv.Itoa(i))}); err != nil {
				t.Error(err)
				written <- i
				return
			}
		}
	}()
	const deltas = 8
	for i := range deltas {
		if err := a.Apply(ctx, Delta{Add: uniqueQuads(200, "a"+strconv.Itoa(i))}); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	nb := <-written
	if got := a.WriteStats().Journaled; got != deltas {
		t.Fatalf("%d deltas journaled, want %d", got, deltas)
	}
	if size, err := a.Size(ctx); err != nil || size != 200*deltas {
		t.Fatalf("namespace a: %d quads, %v; want %d", size, err, 200*deltas)
	}
	if size, err := b.Size(ctx); err != nil || size != int64(nb) {
		t.Fatalf("namespace b: %d quads, %v; want the %d committed beside the journaled deltas", size, err, nb)
	}
}
