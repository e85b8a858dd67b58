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

	"github.com/cortexgraph/cortex/cortex/sparql"
)

// TestRead_MemtableLostMidway: a read already inside a transaction (an
// EachQuad between two batches of its scan, a query between two rows) when
// another goroutine's write loses Badger's memtable (as in
// TestStore_MemtableLost) read on, and its next lookup panicked the process
// in Badger (getMemTables on a nil memtable). It fails with the store's
// lost error, as every later operation does, and the store reopens whole.
func TestRead_MemtableLostMidway(t *testing.T) {
	t.Parallel()
	// Each read calls inside once it is under way and then goes on.
	reads := map[string]func(ctx context.Context, n *Namespace, inside func()) error{
		"each quad": func(ctx context.Context, n *Namespace, inside func()) error {
			first := true
			return n.EachQuad(ctx, Pattern{}, func(quad.Quad) error {
				if first {
					first = false
					inside()
				}
				return nil
			})
		},
		"query": func(ctx context.Context, n *Namespace, inside func()) error {
			res, err := n.Query(ctx, "SELECT ?s ?o WHERE { ?s <http://e/p> ?o . ?s ?p ?o }", sparql.Options{})
			if err != nil {
				return err
			}
			defer res.Close()
			if !res.Next(ctx) {
				return fmt.Errorf("no first row: %v", res.Err())
			}
			inside()
			for res.Next(ctx) {
			}
			return res.Err()
		},
	}
	for name, read := range reads {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dir := t.TempDir()
			o := DefaultOptions().WithSyncWrites(false)
			withBadger(func(b badger.Options) badger.Options {
				return b.WithMemTableSize(2 << 20).WithValueThreshold(64 << 10)
			})(&o)
			s, a := openFilled(t, dir, o, 2000, "a")
			if _, err := s.Namespace(ctx, "b"); err != nil {
				t.Fatal(err)
			}
			// Reopened: no term of a is cached, the read looks them up.
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s, err := Open(ctx, dir, o)
			if err != nil {
				t.Fatal(err)
			}
			a, _ = s.OpenNamespace(ctx, "ns")
			b, err := s.OpenNamespace(ctx, "b")
			if err != nil {
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
			inside, lost := make(chan struct{}), make(chan struct{})
			done := make(chan error, 1)
			go func() {
				done <- read(ctx, a, func() {
					close(inside)
					<-lost
				})
			}()
			<-inside
			var werr error
			for i := range 100 {
				if werr = b.Apply(ctx, Delta{Add: uniqueQuads(300, fmt.Sprint("d", i, "-"))}); werr != nil {
					break
				}
			}
			close(lost)
			if werr == nil || !s.lost() {
				t.Fatalf("every write succeeded without a new memtable (%v)", werr)
			}
			err = <-done
			if s.checkOpen() == nil || !errors.Is(err, s.checkOpen()) {
				t.Fatalf("the read: %v; want the store's lost error (%v)", err, s.checkOpen())
			}
			s = reopenLost(t, s, dir, blocks)
			if n, err := s.OpenNamespace(ctx, "ns"); err != nil {
				t.Fatal(err)
			} else if size, err := n.Size(ctx); err != nil || size != 2000 {
				t.Fatalf("size %d, %v after reopening; want 2000", size, err)
			}
		})
	}
}
