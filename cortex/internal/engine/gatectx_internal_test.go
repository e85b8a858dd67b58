package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	hkv "github.com/hidal-go/hidalgo/kv"

	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
)

// TestGate_EnterGivesUpWithContext: a read that waits at the gate while a
// streamed segment or a journaled delta holds the store gives up when its
// context is done, with the context's error, and counts nothing: it waited
// for the whole write (its context was never asked) before.
func TestGate_EnterGivesUpWithContext(t *testing.T) {
	t.Parallel()
	g := newGate(DefaultTuning())
	if err := g.holdNew(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	entered := make(chan error, 1)
	go func() { entered <- g.Enter(ctx) }()
	// Without the fix Enter waits for the holder: release it after a
	// while so that the test fails rather than hangs.
	fallback := time.AfterFunc(30*time.Second, g.release)
	err := <-entered
	if !fallback.Stop() {
		t.Fatalf("Enter (%v) waited for the holder to release the gate", err)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Enter while the gate is held, context cancelled: %v, want context.Canceled", err)
	}
	g.release()
	g.mu.Lock()
	n, starting := g.n, g.starting
	g.mu.Unlock()
	if n != 0 || starting != 0 {
		t.Fatalf("after the refused Enter the gate counts %d open, %d starting; want 0, 0", n, starting)
	}
	if err := g.exclusive(context.Background()); err != nil { // nothing left open
		t.Fatal(err)
	}
	g.release()
}

// TestRead_TimeoutWhileWriteHoldsStore: a query, a Match and Size whose
// context ends while a streamed segment or a journaled delta holds the
// store fail with the context's error before the write ends.
func TestRead_TimeoutWhileWriteHoldsStore(t *testing.T) {
	t.Parallel()
	reads := map[string]func(ctx context.Context, n *Namespace) error{
		"query": func(ctx context.Context, n *Namespace) error {
			res, err := n.Query(ctx, "SELECT * WHERE { ?s ?p ?o }", sparql.Options{})
			if err == nil {
				res.Close()
			}
			return err
		},
		"match": func(ctx context.Context, n *Namespace) error {
			it := n.Dataset().Match(ctx, eval.Pattern{Scope: eval.AllGraphs})
			for it.Next(ctx) {
			}
			err := it.Err()
			it.Close()
			return err
		},
		"size": func(ctx context.Context, n *Namespace) error {
			_, err := n.Size(ctx)
			return err
		},
	}
	for _, streamed := range []bool{false, true} {
		for name, read := range reads {
			mode := "journaled"
			if streamed {
				mode = "streamed"
			}
			t.Run(mode+"/"+name, func(t *testing.T) {
				t.Parallel()
				paused, resume := make(chan struct{}), make(chan struct{})
				pause := func() {
					select {
					case <-paused:
						return // once
					default:
					}
					close(paused)
					<-resume
				}
				o := DefaultOptions().WithSyncWrites(false).WithTuning(Tuning{MaxDeltaQuads: 50, JournalTxnEntries: 100})
				if streamed {
					o = WithStreamTuning(o, 1<<20, 100)
					o = WithStreamHook(o, func(stage string) {
						if stage == "prepared" {
							pause()
						}
					})
				} else {
					o = WithJournalHook(o, func(stage string) {
						if stage == "committed" {
							pause()
						}
					})
				}
				s, n := openFilled(t, t.TempDir(), o, 10, "base")
				defer s.Close()
				applied := make(chan error, 1)
				go func() { applied <- n.Apply(context.Background(), Delta{Add: uniqueQuads(3000, "big")}) }()
				<-paused
				ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
				defer cancel()
				done := make(chan error, 1)
				go func() { done <- read(ctx, n) }()
				// Without the fix the read waits for the write, which
				// waits for resume: let it go on after a while so that
				// the test fails rather than hangs.
				fallback := time.AfterFunc(30*time.Second, func() { close(resume) })
				err := <-done
				if fallback.Stop() {
					close(resume)
				} else {
					t.Error("the read waited for the write to end")
				}
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("read beside the write: %v, want context.DeadlineExceeded", err)
				}
				if err := <-applied; err != nil {
					t.Fatal(err)
				}
				if size, err := n.Size(context.Background()); err != nil || size != 3010 {
					t.Fatalf("size %d, %v after the write; want 3010", size, err)
				}
			})
		}
	}
}

// TestWrite_CancelWhileWriteHoldsStore: a write of another namespace through
// the cayley kv layer's transactions (a one-transaction delta, an import
// record, the check of a namespace being opened) whose context is cancelled
// while it waits for a journaled delta that holds the store fails at once with
// context.Canceled, and writes nothing: it waited at the gate for the whole
// journaled write (badgerkv's DB.Tx takes no context) before.
func TestWrite_CancelWhileWriteHoldsStore(t *testing.T) {
	t.Parallel()
	small := uniqueQuads(3, "small")
	for name, write := range map[string]func(ctx context.Context, s *Store, n2 *Namespace) error{
		"apply": func(ctx context.Context, _ *Store, n2 *Namespace) error {
			return n2.Apply(ctx, Delta{Add: small})
		},
		"import record": func(ctx context.Context, _ *Store, n2 *Namespace) error {
			return n2.updateKV(ctx, func(tx hkv.Tx) error { return tx.Put(importKey("src"), []byte("x")) })
		},
		"open namespace": func(ctx context.Context, s *Store, _ *Namespace) error {
			_, err := openNamespace(ctx, s, "other", "")
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			paused, resume := make(chan struct{}), make(chan struct{})
			o := DefaultOptions().WithSyncWrites(false).WithTuning(Tuning{MaxDeltaQuads: 50, JournalTxnEntries: 100})
			o = WithJournalHook(o, func(stage string) {
				if stage == "committed" {
					select {
					case <-paused:
						return // once
					default:
					}
					close(paused)
					<-resume
				}
			})
			s, n := openFilled(t, t.TempDir(), o, 10, "base")
			defer s.Close()
			n2, err := s.Namespace(context.Background(), "other")
			if err != nil {
				t.Fatal(err)
			}
			applied := make(chan error, 1)
			go func() { applied <- n.Apply(context.Background(), Delta{Add: uniqueQuads(3000, "big")}) }()
			<-paused
			// Cancelled once the write waits at the gate (or, on a slow
			// machine, before it gets there: it fails the same way).
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- write(ctx, s, n2) }()
			time.AfterFunc(100*time.Millisecond, cancel)
			// Without the fix the write waits for the journaled one, which
			// waits for resume: let it go on after a while so that the
			// test fails rather than hangs.
			fallback := time.AfterFunc(30*time.Second, func() { close(resume) })
			err = <-done
			if fallback.Stop() {
				close(resume)
			} else {
				t.Error("the write waited for the journaled write to end")
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("write beside the journaled write: %v, want context.Canceled", err)
			}
			if err := <-applied; err != nil {
				t.Fatal(err)
			}
			if size, err := n2.Size(context.Background()); err != nil || size != 0 {
				t.Fatalf("size of the other namespace %d, %v; want 0", size, err)
			}
			if _, found, err := n2.importRecord(context.Background(), "src"); err != nil || found {
				t.Fatalf("import record found %v, %v; want none", found, err)
			}
		})
	}
}
