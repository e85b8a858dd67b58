package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cayleygraph/quad"
)

// TestStream_MemtableLost makes Badger fail to create the memtable that
// the flush before a streamed segment needs (a directory stands where its
// file goes, as a file Badger cannot create or extend — too many open
// files, a file size limit, a file system remounted read-only — would):
// Badger is then left without a memtable, and any transaction would panic
// in Badger. The import fails with the error, nothing is written, every
// later operation fails with an error instead of crashing the process,
// Close works, and the store reopens intact.
func TestStream_MemtableLost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	o := DefaultOptions().WithChunkQuads(50)
	segmentTuning(1<<20, 1)(&o)
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
	var blocks []string
	for i := 1; i < 20; i++ {
		p := filepath.Join(dir, fmt.Sprintf("%05d.mem", i))
		if _, err := os.Stat(p); err == nil {
			continue
		}
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, p)
	}
	_, err = n.Import(ctx, &sliceSource{qs: bulkMixed(500, 2)}, ImportOptions{})
	if err == nil {
		t.Fatal("import succeeded without a memtable")
	}
	// No later operation reaches Badger's lost memtable.
	for name, op := range map[string]func() error{
		"size":   func() error { _, err := n.Size(ctx); return err },
		"quads":  func() error { return n.EachQuad(ctx, Pattern{}, func(quad.Quad) error { return nil }) },
		"apply":  func() error { return n.Apply(ctx, Delta{Add: bulkMixed(3, 3)}) },
		"import": func() error { _, err := n.Import(ctx, &sliceSource{qs: bulkMixed(5, 4)}, ImportOptions{}); return err },
		"check":  func() error { return s.Check(ctx) },
	} {
		if err := op(); err == nil {
			t.Errorf("%s after the memtable was lost: no error", name)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	for _, p := range blocks {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	s = testStore(t, dir, DefaultOptions())
	n, err = s.OpenNamespace(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	checkSegmentContents(t, n, distinct(base))
	if size, err := n.Size(ctx); err != nil || size != int64(len(distinct(base))) {
		t.Fatalf("size %d, %v; want %d: the failed import wrote something", size, err, len(distinct(base)))
	}
}
