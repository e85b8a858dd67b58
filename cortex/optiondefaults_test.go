package cortex_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
)

// countSource yields n distinct quads.
type countSource struct{ i, n int }

func (s *countSource) Next() (quad.Quad, error) {
	if s.i == s.n {
		return quad.Quad{}, io.EOF
	}
	s.i++
	return q(fmt.Sprint("s", s.i), "p", quad.Int(s.i), nil), nil
}

// TestOptions_WithChunkQuads: WithChunkQuads sets the import's chunk
// size: an in-memory store writes chunk by chunk, so one quad more than a
// chunk takes one more transaction. (The default, DefaultChunkQuads, is
// not imported here: 16k quads cost ~40 s under the race detector.)
func TestOptions_WithChunkQuads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		opts  cortex.Options
		chunk int
	}{
		{"WithChunkQuads(100)", cortex.DefaultOptions().WithChunkQuads(100), 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := cortex.Open(ctx, "", tc.opts.WithInMemory(true))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ns, err := s.Namespace(ctx, "team")
			if err != nil {
				t.Fatal(err)
			}
			var chunks [2]int
			for i, n := range []int{tc.chunk, tc.chunk + 1} {
				res, err := ns.Import(ctx, &countSource{n: n}, cortex.ImportOptions{Graph: iri(fmt.Sprint("g", n))})
				if err != nil || res.Committed != int64(n) {
					t.Fatalf("import of %d quads: %+v, %v", n, res, err)
				}
				chunks[i] = res.Chunks
			}
			// A chunk too large for one Badger transaction (the default's
			// 8192 quads of new terms are) is cut into pieces, each counted.
			if chunks[1] != chunks[0]+1 || (tc.chunk == 100 && chunks[0] != 1) {
				t.Errorf("imports of %d and %d quads took %d and %d transactions; want one more for the quad past the chunk",
					tc.chunk, tc.chunk+1, chunks[0], chunks[1])
			}
		})
	}
}

// TestOpen_ContextDone: Open with a context that has ended returns its
// error and creates nothing.
func TestOpen_ContextDone(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := filepath.Join(t.TempDir(), "store")
	if s, err := cortex.Open(ctx, dir, cortex.DefaultOptions()); !errors.Is(err, context.Canceled) {
		if s != nil {
			s.Close()
		}
		t.Fatalf("Open: %v, want context.Canceled", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open with an ended context left %s behind: %v", dir, err)
	}
}
