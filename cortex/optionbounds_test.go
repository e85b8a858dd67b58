package cortex_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/cortex"
)

// TestOpen_OptionBounds: each documented bound of Options is where Open
// draws the line: the value at the bound opens a store, one past it is
// refused with an error matching ErrInvalidArgument that names the option,
// and the refused Open creates nothing (not even the directory).
func TestOpen_OptionBounds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := cortex.DefaultOptions().WithSyncWrites(false)
	for _, tc := range []struct {
		name     string
		ok, bad  cortex.Options
		mentions string
	}{
		{"chunk quads minimum 1", d.WithChunkQuads(1), d.WithChunkQuads(0), "chunk size"},
		{"chunk quads maximum 65536", d.WithChunkQuads(65536), d.WithChunkQuads(65537), "chunk size"},
		{"memory budget minimum 256 MiB", d.WithMemoryBudget(256 << 20), d.WithMemoryBudget(256<<20 - 1), "memory budget"},
		{"import segment bytes minimum 1 MiB", d.WithImportSegmentBytes(1 << 20), d.WithImportSegmentBytes(1<<20 - 1), "below 1 MiB"},
		{"MaxDeltaQuads maximum", d.WithTuning(cortex.Tuning{MaxDeltaQuads: cortex.MaxDeltaQuads}),
			d.WithTuning(cortex.Tuning{MaxDeltaQuads: cortex.MaxDeltaQuads + 1}), "MaxDeltaQuads"},
		{"in-memory needs read-write", d.WithInMemory(true), d.WithInMemory(true).WithReadOnly(true), "read-only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "store")
			s, err := cortex.Open(ctx, dir, tc.bad)
			if err == nil {
				s.Close()
				t.Fatalf("Open accepted the value past the bound")
			}
			if !errors.Is(err, cortex.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.mentions) {
				t.Errorf("Open past the bound: %v, want ErrInvalidArgument naming %q", err, tc.mentions)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused Open left %s behind: %v", dir, err)
			}
			s, err = cortex.Open(ctx, dir, tc.ok)
			if err != nil {
				t.Fatalf("Open at the bound: %v", err)
			}
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
}
