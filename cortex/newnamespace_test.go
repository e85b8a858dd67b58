package cortex_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/rdfio"
)

// badNT is N-Triples that fails to parse on its first line.
const badNT = "<http://ex/s> <http://ex/p> \"unterminated .\n"

func importNT(ctx context.Context, n *cortex.Namespace, nt string) error {
	_, err := n.ImportRDF(ctx, strings.NewReader(nt), cortex.RDFImportOptions{Format: rdfio.NTriples, File: "x.nt"})
	return err
}

// TestStore_DeleteNamespaceIfUnused: a namespace created for a write that
// failed before committing anything is deleted; one that something else
// obtained meanwhile, one the write committed to, and one that existed
// before are kept.
func TestStore_DeleteNamespaceIfUnused(t *testing.T) {
	ctx := context.Background()
	s := cortextest.NewStore(t)
	names := func() []string {
		t.Helper()
		ns, err := s.Namespaces(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return ns
	}

	t.Run("failed import", func(t *testing.T) {
		n, created, err := s.NamespaceCreated(ctx, "failed")
		if err != nil || !created {
			t.Fatalf("NamespaceCreated: %v, created %v", err, created)
		}
		if err := importNT(ctx, n, badNT); err == nil {
			t.Fatal("the bad import succeeded")
		}
		if deleted, err := s.DeleteNamespaceIfUnused(ctx, n); err != nil || !deleted {
			t.Fatalf("DeleteNamespaceIfUnused: %v, %v", deleted, err)
		}
		if _, err := s.OpenNamespace(ctx, "failed"); !errors.Is(err, cortex.ErrNoNamespace) {
			t.Fatalf("OpenNamespace after the deletion: %v", err)
		}
		// Created again, it works and starts empty.
		n, created, err = s.NamespaceCreated(ctx, "failed")
		if err != nil || !created {
			t.Fatalf("NamespaceCreated again: %v, created %v", err, created)
		}
		if size, err := n.Size(ctx); err != nil || size != 0 {
			t.Fatalf("size %d, %v", size, err)
		}
		if err := s.DeleteNamespace(ctx, "failed"); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("cancelled import", func(t *testing.T) {
		n, _, err := s.NamespaceCreated(ctx, "cancelled")
		if err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		// (An Update: ImportRDF with an ended context has a race of its own
		// under -race, its decoding goroutine outliving it.)
		err = n.Update(cctx, func(tx *cortex.Tx) error {
			tx.Add(quad.Make(quad.IRI("http://ex/s"), quad.IRI("http://ex/p"), "o", nil))
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("update: %v", err)
		}
		if deleted, err := s.DeleteNamespaceIfUnused(cctx, n); err != nil || !deleted {
			t.Fatalf("DeleteNamespaceIfUnused with an ended context: %v, %v", deleted, err)
		}
	})

	t.Run("obtained by another caller", func(t *testing.T) {
		n, _, err := s.NamespaceCreated(ctx, "shared")
		if err != nil {
			t.Fatal(err)
		}
		other, created, err := s.NamespaceCreated(ctx, "shared")
		if err != nil || created || other != n {
			t.Fatalf("second NamespaceCreated: %v, created %v, same %v", err, created, other == n)
		}
		if deleted, err := s.DeleteNamespaceIfUnused(ctx, n); err != nil || deleted {
			t.Fatalf("DeleteNamespaceIfUnused: %v, %v", deleted, err)
		}
		if err := importNT(ctx, other, "<http://ex/s> <http://ex/p> \"o\" .\n"); err != nil {
			t.Fatalf("the other caller's write: %v", err)
		}
	})

	t.Run("written to", func(t *testing.T) {
		n, _, err := s.NamespaceCreated(ctx, "written")
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Apply(ctx, cortex.Delta{Add: []quad.Quad{quad.Make(quad.IRI("http://ex/s"), quad.IRI("http://ex/p"), "o", nil)}}); err != nil {
			t.Fatal(err)
		}
		if deleted, err := s.DeleteNamespaceIfUnused(ctx, n); err != nil || deleted {
			t.Fatalf("DeleteNamespaceIfUnused: %v, %v", deleted, err)
		}
		if size, err := n.Size(ctx); err != nil || size != 1 {
			t.Fatalf("size %d, %v", size, err)
		}
	})

	t.Run("existed before", func(t *testing.T) {
		// Another Store value's NamespaceCreated, or one that found the
		// namespace: nothing to undo.
		if _, err := s.Namespace(ctx, "before"); err != nil {
			t.Fatal(err)
		}
		n, created, err := s.NamespaceCreated(ctx, "before")
		if err != nil || created {
			t.Fatalf("NamespaceCreated: %v, created %v", err, created)
		}
		if deleted, err := s.DeleteNamespaceIfUnused(ctx, n); err != nil || deleted {
			t.Fatalf("DeleteNamespaceIfUnused: %v, %v", deleted, err)
		}
	})

	if got := strings.Join(names(), " "); got != "before shared written" {
		t.Fatalf("namespaces %q", got)
	}
}

// TestStore_DeleteNamespaceIfUnused_ConcurrentWriters: for each of a
// number of new namespaces, a write that fails (it creates the namespace,
// fails, and deletes it if unused) races goroutines whose writes
// succeed (Namespace, then Apply), which start with them, or once the
// failed write has failed (racing its clean-up): none of the good
// writes fails or is lost. Run with -race.
func TestStore_DeleteNamespaceIfUnused_ConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	s := cortextest.NewStore(t)
	const rounds, writers = 40, 2
	var wg sync.WaitGroup
	errs := make(chan error, rounds*writers*2)
	var deletions atomic.Int64
	start := make(chan struct{})
	for r := range rounds {
		name := fmt.Sprintf("new-%d", r)
		failed := make(chan struct{})
		wg.Add(1 + writers)
		go func() { // a write that fails
			defer wg.Done()
			<-start
			n, created, err := s.NamespaceCreated(ctx, name)
			if err != nil {
				errs <- err
				return
			}
			if err := importNT(ctx, n, badNT); err == nil {
				errs <- errors.New("the bad import succeeded")
				return
			}
			close(failed)
			if created {
				deleted, err := s.DeleteNamespaceIfUnused(ctx, n)
				if err != nil {
					errs <- err
				} else if deleted {
					deletions.Add(1)
				}
			}
		}()
		for w := range writers {
			go func() { // a write that succeeds
				defer wg.Done()
				<-start
				if r%2 == 1 {
					<-failed
				}
				n, err := s.Namespace(ctx, name)
				if err != nil {
					errs <- err
					return
				}
				q := quad.Make(quad.IRI(fmt.Sprintf("http://ex/w%d", w)), quad.IRI("http://ex/p"), "o", nil)
				if err := n.Apply(ctx, cortex.Delta{Add: []quad.Quad{q}}); err != nil {
					errs <- fmt.Errorf("%s: writer %d: %w", name, w, err)
				}
			}()
		}
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("%d failed writes deleted the namespace they created", deletions.Load())
	for r := range rounds {
		name := fmt.Sprintf("new-%d", r)
		n, err := s.OpenNamespace(ctx, name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if size, err := n.Size(ctx); err != nil || size != writers {
			t.Errorf("%s holds %d quads (%v), want every one written: %d", name, size, err, writers)
		}
	}
}
