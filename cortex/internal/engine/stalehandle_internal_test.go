package engine

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/cortexgraph/cortex/cortex/sparql"
)

// TestDeleteNamespace_StaleHandleWritesNothing: a *Namespace obtained
// before DeleteNamespace, used after the namespace was deleted and created
// again, fails its writes and reads with ErrNoNamespace (DeleteNamespace:
// "its later operations fail or see an empty namespace"): a
// one-transaction delta, a journaled one and a streamed one (which wrote
// into the new namespace), an import, and the rest of an import that
// started before the deletion (whose chunks, computed against the old
// namespace, left the new one failing Check) leave the new namespace as it
// is; queries fail instead of reading the new namespace.
func TestDeleteNamespace_StaleHandleWritesNothing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		write func(ctx context.Context, n *Namespace) error
	}{
		{"delta", func(ctx context.Context, n *Namespace) error {
			return n.Apply(ctx, Delta{Add: uniqueQuads(10, "stale")})
		}},
		{"journaled", func(ctx context.Context, n *Namespace) error {
			return n.Apply(ctx, Delta{Add: uniqueQuads(300, "stale")})
		}},
		{"streamed", func(ctx context.Context, n *Namespace) error {
			return n.Apply(ctx, Delta{Add: uniqueQuads(3000, "stale")})
		}},
		{"import", func(ctx context.Context, n *Namespace) error {
			_, err := n.Import(ctx, &sliceSource{qs: uniqueQuads(3000, "stale")}, ImportOptions{})
			return err
		}},
		{"import in flight", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			o := DefaultOptions().WithSyncWrites(false).WithTuning(Tuning{MaxDeltaQuads: 50, JournalTxnEntries: 100})
			if tc.name == "streamed" {
				o = WithStreamTuning(o, 1<<20, 100)
			}
			s := testStore(t, t.TempDir(), o.WithChunkQuads(100))
			old, err := s.Namespace(ctx, "ns")
			if err != nil {
				t.Fatal(err)
			}
			if err := old.Apply(ctx, Delta{Add: uniqueQuads(5, "old")}); err != nil {
				t.Fatal(err)
			}
			write := tc.write
			if write == nil {
				// An import that started before the deletion goes on after
				// the namespace was deleted and created again.
				src := &sliceSource{qs: uniqueQuads(3000, "stale")}
				started, resume := make(chan struct{}), make(chan struct{})
				src.at = func(i int) {
					if i == 1000 {
						close(started)
						<-resume
					}
				}
				imported := make(chan error, 1)
				go func() {
					_, err := old.Import(ctx, src, ImportOptions{})
					imported <- err
				}()
				<-started
				var once sync.Once
				goOn := func() { once.Do(func() { close(resume) }) }
				defer goOn()
				write = func(context.Context, *Namespace) error {
					goOn()
					return <-imported
				}
			}
			if err := s.DeleteNamespace(ctx, "ns"); err != nil {
				t.Fatal(err)
			}
			n, err := s.Namespace(ctx, "ns")
			if err != nil {
				t.Fatal(err)
			}
			want := uniqueQuads(7, "new")
			if err := n.Apply(ctx, Delta{Add: want}); err != nil {
				t.Fatal(err)
			}
			if err := write(ctx, old); !errors.Is(err, ErrNoNamespace) {
				t.Errorf("a write through the deleted namespace's handle: %v, want ErrNoNamespace", err)
			}
			// Its reads fail too, rather than read the new namespace
			// (with the old one's term cache).
			if qs, err := old.Quads(ctx, Pattern{}); !errors.Is(err, ErrNoNamespace) {
				t.Errorf("a read through the deleted namespace's handle: %d quads, %v; want ErrNoNamespace", len(qs), err)
			}
			if res, err := old.Query(ctx, "SELECT * WHERE { ?s ?p ?o }", sparql.Options{}); !errors.Is(err, ErrNoNamespace) {
				if err == nil {
					res.Close()
				}
				t.Errorf("a query through the deleted namespace's handle: %v; want ErrNoNamespace", err)
			}
			if err := old.Check(ctx); !errors.Is(err, ErrNoNamespace) {
				t.Errorf("Check through the deleted namespace's handle: %v; want ErrNoNamespace", err)
			}
			if size, err := n.Size(ctx); err != nil || size != int64(len(want)) {
				t.Errorf("new namespace: size %d, %v; want %d", size, err, len(want))
			}
			if err := s.Check(ctx); err != nil {
				t.Errorf("check: %v", err)
			}
		})
	}
}
