package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/dgraph-io/badger/v4"
)

// TestStore_MemtableLost makes Badger fail to create a memtable (a
// directory stands where its file goes, as a file Badger cannot create or
// extend would: too many open files, a file size limit, a file system
// remounted read-only), when the flush before a streamed segment needs one
// and when a write fills the current one. Badger is then left without a
// memtable, and any transaction would panic in Badger (Apply panicked in
// the roll-back of its journaled delta). The write fails with the error,
// every later operation fails with an error instead of crashing the
// process, Close works, and the store reopens with what was committed
// before: all of each delta or none.
func TestStore_MemtableLost(t *testing.T) {
	t.Parallel()
	small := withBadger(func(b badger.Options) badger.Options {
		return b.WithMemTableSize(2 << 20).WithValueThreshold(64 << 10)
	})
	for _, tc := range []struct {
		name  string
		with  []func(*Options)
		write func(n *Namespace, i int) ([]quad.Quad, error) // the quads it wrote if it succeeded
	}{
		{"streamed segment", []func(*Options){segmentTuning(1<<20, 1)}, func(n *Namespace, i int) ([]quad.Quad, error) {
			qs := bulkMixed(500, i)
			_, err := n.Import(context.Background(), &sliceSource{qs: qs}, ImportOptions{})
			return qs, err
		}},
		{"chunked import", []func(*Options){small, segmentTuning(1<<20, 1<<30)}, func(n *Namespace, i int) ([]quad.Quad, error) {
			qs := uniqueQuads(3000, fmt.Sprint("i", i, "-"))
			_, err := n.Import(context.Background(), &sliceSource{qs: qs}, ImportOptions{})
			return qs, err
		}},
		{"delta", []func(*Options){small}, func(n *Namespace, i int) ([]quad.Quad, error) {
			qs := uniqueQuads(300, fmt.Sprint("d", i, "-"))
			return qs, n.Apply(context.Background(), Delta{Add: qs})
		}},
		{"journaled delta", []func(*Options){small}, func(n *Namespace, i int) ([]quad.Quad, error) {
			qs := uniqueQuads(20_000, fmt.Sprint("j", i, "-"))
			return qs, n.Apply(context.Background(), Delta{Add: qs})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dir := t.TempDir()
			o := DefaultOptions().WithChunkQuads(500)
			for _, w := range tc.with {
				w(&o)
			}
			s, err := Open(ctx, dir, o)
			if err != nil {
				t.Fatal(err)
			}
			n, err := s.Namespace(ctx, "ns")
			if err != nil {
				t.Fatal(err)
			}
			base := bulkMixed(40, 1)
			if err := n.Apply(ctx, Delta{Add: base}); err != nil {
				t.Fatal(err)
			}
			want := distinct(base)
			var blocks []string
			for i := 1; i < 200; i++ {
				p := filepath.Join(dir, fmt.Sprintf("%05d.mem", i))
				if _, err := os.Stat(p); err == nil {
					continue
				}
				if err := os.Mkdir(p, 0o755); err != nil {
					t.Fatal(err)
				}
				blocks = append(blocks, p)
			}
			failed := false
			for i := range 100 {
				qs, err := tc.write(n, i+2)
				if err != nil {
					failed = true
					break
				}
				for _, q := range qs {
					want[q] = true
				}
			}
			if !failed {
				t.Fatal("every write succeeded without a new memtable")
			}
			wantAllFail(t, map[string]func() error{
				"size":   func() error { _, err := n.Size(ctx); return err },
				"quads":  func() error { return n.EachQuad(ctx, Pattern{}, func(quad.Quad) error { return nil }) },
				"apply":  func() error { return n.Apply(ctx, Delta{Add: bulkMixed(3, 3)}) },
				"import": func() error { _, err := n.Import(ctx, &sliceSource{qs: bulkMixed(5, 4)}, ImportOptions{}); return err },
				"check":  func() error { return s.Check(ctx) },
			})
			s = reopenLost(t, s, dir, blocks)
			n, err = s.OpenNamespace(ctx, "ns")
			if err != nil {
				t.Fatal(err)
			}
			if tc.name == "chunked import" {
				// Chunks of the failed import may be committed (what a
				// chunked import promises); each whole.
				bulkCheckFormat(t, n)
				return
			}
			checkSegmentContents(t, n, want)
			if size, err := n.Size(ctx); err != nil || size != int64(len(want)) {
				t.Fatalf("size %d, %v; want %d: the failed write left part of itself", size, err, len(want))
			}
		})
	}
}

// TestDeleteNamespace_MemtableLost: DeleteNamespace's DropPrefix found
// Badger unable to create its next memtable (as TestStore_MemtableLost
// reproduces it) and returned the error, leaving Badger without a
// memtable: the next read (Size, a query, Check) panicked the process.
// The store is lost as at the other commit sites: every later operation
// fails with an error, Close works, and the store reopens without the
// deleted namespace and with the other one whole.
func TestDeleteNamespace_MemtableLost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.Namespace(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Apply(ctx, Delta{Add: uniqueQuads(40, "keep")}); err != nil {
		t.Fatal(err)
	}
	gone, err := s.Namespace(ctx, "gone")
	if err != nil {
		t.Fatal(err)
	}
	if err := gone.Apply(ctx, Delta{Add: uniqueQuads(40, "gone")}); err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for i := 1; i < 200; i++ {
		p := filepath.Join(dir, fmt.Sprintf("%05d.mem", i))
		if _, err := os.Stat(p); err == nil {
			continue
		}
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, p)
	}
	if err := s.DeleteNamespace(ctx, "gone"); err == nil {
		t.Fatal("DeleteNamespace succeeded without a new memtable")
	}
	wantAllFail(t, map[string]func() error{
		"size":   func() error { _, err := n.Size(ctx); return err },
		"quads":  func() error { return n.EachQuad(ctx, Pattern{}, func(quad.Quad) error { return nil }) },
		"apply":  func() error { return n.Apply(ctx, Delta{Add: uniqueQuads(3, "late")}) },
		"check":  func() error { return s.Check(ctx) },
		"create": func() error { _, err := s.Namespace(ctx, "other"); return err },
	})
	s = reopenLost(t, s, dir, blocks)
	if _, err := s.OpenNamespace(ctx, "gone"); !errors.Is(err, ErrNoNamespace) {
		t.Errorf("the deleted namespace after reopening: %v, want ErrNoNamespace", err)
	}
	n, err = s.OpenNamespace(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	if size, err := n.Size(ctx); err != nil || size != 40 {
		t.Fatalf("size %d, %v after reopening; want 40", size, err)
	}
}

// wantAllFail reports each of ops that does not fail on a store whose
// memtable was lost.
func wantAllFail(t *testing.T, ops map[string]func() error) {
	t.Helper()
	for name, op := range ops {
		if err := op(); err == nil {
			t.Errorf("%s after the memtable was lost: no error", name)
		}
	}
}

// reopenLost closes s, whose memtable was lost, removes the blocks that
// made Badger fail to create its next one, and opens the store in dir
// again.
func reopenLost(t *testing.T, s *Store, dir string, blocks []string) *Store {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	for _, p := range blocks {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	return testStore(t, dir, DefaultOptions())
}

// TestDeleteNamespace_FlushFailed: DeleteNamespace's DropPrefix failed to
// flush Badger's memtable (a directory stands where the table file goes, as
// a file Badger cannot create would: too many open files, a file system
// remounted read-only). Badger then keeps that memtable both as its
// current one and in its list of those to flush, and the next flush of it
// releases a memtable still listed (the next DropPrefix or read panicked
// the process). The store is lost as when no memtable could be created:
// every later operation fails with an error, Close works, and the store
// reopens without the deleted namespace and with the other one whole.
func TestDeleteNamespace_FlushFailed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.Namespace(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Apply(ctx, Delta{Add: uniqueQuads(40, "keep")}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"gone", "later"} {
		g, err := s.Namespace(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Apply(ctx, Delta{Add: uniqueQuads(40, name)}); err != nil {
			t.Fatal(err)
		}
	}
	last := 0
	tables, err := filepath.Glob(filepath.Join(dir, "*.sst"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range tables {
		var id int
		if _, err := fmt.Sscanf(filepath.Base(p), "%06d.sst", &id); err == nil && id > last {
			last = id
		}
	}
	var blocks []string
	for id := last + 1; id < last+200; id++ {
		p := filepath.Join(dir, fmt.Sprintf("%06d.sst", id))
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, p)
	}
	if err := s.DeleteNamespace(ctx, "gone"); err == nil {
		t.Fatal("DeleteNamespace succeeded without flushing the memtable")
	}
	// With the blocks gone, Badger could flush again; the store stays lost.
	for _, p := range blocks {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	wantAllFail(t, map[string]func() error{
		"size":   func() error { _, err := n.Size(ctx); return err },
		"quads":  func() error { return n.EachQuad(ctx, Pattern{}, func(quad.Quad) error { return nil }) },
		"apply":  func() error { return n.Apply(ctx, Delta{Add: uniqueQuads(3, "late")}) },
		"check":  func() error { return s.Check(ctx) },
		"delete": func() error { return s.DeleteNamespace(ctx, "later") },
		"create": func() error { _, err := s.Namespace(ctx, "other"); return err },
	})
	s = reopenLost(t, s, dir, nil)
	if _, err := s.OpenNamespace(ctx, "gone"); !errors.Is(err, ErrNoNamespace) {
		t.Errorf("the deleted namespace after reopening: %v, want ErrNoNamespace", err)
	}
	for name, want := range map[string]int64{"ns": 40, "later": 40} {
		n, err := s.OpenNamespace(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if size, err := n.Size(ctx); err != nil || size != want {
			t.Fatalf("namespace %s: size %d, %v after reopening; want %d", name, size, err, want)
		}
	}
}
