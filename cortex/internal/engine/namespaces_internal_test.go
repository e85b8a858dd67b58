package engine

import (
	"context"
	"errors"
	"log"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/dgraph-io/badger/v4"

	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
	"github.com/cortexgraph/cortex/namespace"
)

// hasKeys reports whether the store holds a key starting with prefix.
// openIn opens the store in dir with the default options, failing the
// test if it cannot.
func openIn(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(context.Background(), dir, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func hasKeys(t *testing.T, s *Store, prefix string) bool {
	t.Helper()
	var found bool
	err := s.view(context.Background(), func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.Prefix = []byte(prefix)
		it := txn.NewIterator(opts)
		defer it.Close()
		it.Rewind()
		found = it.Valid()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// TestDeleteNamespace_CutShort: a deletion that stops after removing the
// registry entry (a crash before the keys are dropped) leaves a namespace
// that does not exist, and creating it again starts empty: the old data
// never comes back.
func TestDeleteNamespace_CutShort(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s := openIn(t, dir)
	old := quad.Quad{Subject: quad.IRI("http://ex/s"), Predicate: quad.IRI("http://ex/p"), Object: quad.String("old")}
	for _, name := range []string{"gone", "kept"} {
		n, err := s.Namespace(ctx, name, WithBase("https://"+name+".example/"))
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Apply(ctx, Delta{Add: []quad.Quad{old}}); err != nil {
			t.Fatal(err)
		}
	}
	crash := errors.New("crash")
	s.opts.hooks.deleteNamespace = func() error { return crash }
	err := s.DeleteNamespace(ctx, "gone")
	s.opts.hooks.deleteNamespace = nil
	if !errors.Is(err, crash) {
		t.Fatalf("delete: %v", err)
	}
	if !hasKeys(t, s, dataPrefix+"gone/") {
		t.Fatal("the cut-short deletion dropped the keys: the test does not test anything")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = testStore(t, dir, DefaultOptions())
	if names, _ := s.Namespaces(ctx); len(names) != 1 || names[0] != "kept" {
		t.Fatalf("namespaces %v", names)
	}
	if _, err := s.OpenNamespace(ctx, "gone"); !errors.Is(err, ErrNoNamespace) {
		t.Fatalf("open: %v", err)
	}
	n, err := s.Namespace(ctx, "gone")
	if err != nil {
		t.Fatal(err)
	}
	if n.Base() != "urn:cortex:gone" {
		t.Fatalf("re-created namespace has the old base %q", n.Base())
	}
	if size, _ := n.Size(ctx); size != 0 {
		t.Fatalf("re-created namespace has %d quads", size)
	}
	if qs, err := n.Quads(ctx, Pattern{}); err != nil || len(qs) != 0 {
		t.Fatalf("re-created namespace has quads %v (%v)", qs, err)
	}
	kept, err := s.OpenNamespace(ctx, "kept")
	if err != nil {
		t.Fatal(err)
	}
	if qs, err := kept.Quads(ctx, Pattern{}); err != nil || len(qs) != 1 {
		t.Fatalf("other namespace: %v (%v)", qs, err)
	}
}

// TestNamespace_LegacyRegistryEntry: a registry entry with an empty value
// (stores written before bases were recorded) means the default base.
func TestNamespace_LegacyRegistryEntry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s := openIn(t, dir)
	for _, name := range []string{"old", "acme"} {
		if _, err := s.Namespace(ctx, name); err != nil {
			t.Fatal(err)
		}
		// As written before bases were recorded: an empty entry.
		if err := s.update(context.Background(), func(txn *badger.Txn) error { return txn.Set([]byte(registryPrefix+name), nil) }); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	const custom = "https://acme.example/kb/"
	// Read-only: the base is unknown, so the caller's is taken (the default
	// when none is given); nothing is recorded.
	ro, err := Open(ctx, dir, DefaultOptions().WithReadOnly(true))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := ro.OpenNamespace(ctx, "old"); err != nil || n.Base() != "urn:cortex:old" {
		t.Fatalf("legacy entry, no base given: %v (%v)", n, err)
	}
	if n, err := ro.OpenNamespace(ctx, "acme", WithBase(custom)); err != nil || n.Base() != custom {
		t.Fatalf("legacy entry, read-only with a base: %v (%v)", n, err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	// Read-write with a base: recorded; afterwards it is the namespace's.
	s = testStore(t, dir, DefaultOptions())
	if n, err := s.Namespace(ctx, "acme", WithBase(custom)); err != nil || n.Base() != custom {
		t.Fatalf("legacy entry, read-write with a base: %v (%v)", n, err)
	}
	if r, _, err := s.registryEntry(context.Background(), "acme"); err != nil || r.Base != custom {
		t.Fatalf("recorded %+v (%v), want the base", r, err)
	}
	if _, err := s.Namespace(ctx, "acme", WithBase("urn:cortex:acme")); !errors.Is(err, ErrBaseMismatch) {
		t.Fatalf("another base after it was recorded: %v, want ErrBaseMismatch", err)
	}
}

// TestDeleteNamespace_DoesNotBlockOthers: a deletion waits for the store's
// transactions to end before it drops the namespace's keys; meanwhile other
// namespaces open and are created as usual (a goroutine that holds a query
// result and opens a namespace is not deadlocked against the deletion).
func TestDeleteNamespace_DoesNotBlockOthers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testStore(t, t.TempDir(), DefaultOptions())
	a, err := s.Namespace(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	q := quad.Quad{Subject: quad.IRI("http://ex/s"), Predicate: quad.IRI("http://ex/p"), Object: quad.String("x")}
	for _, n := range []string{"a", "b"} {
		ns, err := s.Namespace(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		if err := ns.Apply(ctx, Delta{Add: []quad.Quad{q}}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := a.Query(ctx, "SELECT * WHERE { ?s ?p ?o }", sparql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dropping := make(chan struct{})
	s.opts.hooks.deleteNamespace = func() error { close(dropping); return nil } // before the goroutine below starts
	deleted := make(chan error, 1)
	go func() { deleted <- s.DeleteNamespace(ctx, "b") }()
	<-dropping // the deletion now waits for res to be closed
	opened := make(chan error, 1)
	go func() {
		_, err := s.Namespace(ctx, "c")
		if err == nil {
			_, err = s.Namespace(ctx, "a")
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second): // a hang is the failure, not a timing assertion
		t.Fatal("opening other namespaces waited for the deletion")
	}
	if err := res.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-deleted; err != nil {
		t.Fatal(err)
	}
	if _, err := s.OpenNamespace(ctx, "b"); !errors.Is(err, ErrNoNamespace) {
		t.Fatalf("b after its deletion: %v", err)
	}
}

// TestDeleteNamespace_DropsKeys: a deletion that completes leaves no key of
// the namespace behind, and no registry entry.
func TestDeleteNamespace_DropsKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testStore(t, t.TempDir(), DefaultOptions())
	n, err := s.Namespace(ctx, "gone")
	if err != nil {
		t.Fatal(err)
	}
	q := quad.Quad{Subject: quad.IRI("http://ex/s"), Predicate: quad.IRI("http://ex/p"), Object: quad.String("x")}
	if err := n.Apply(ctx, Delta{Add: []quad.Quad{q}}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteNamespace(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	if hasKeys(t, s, dataPrefix+"gone/") || hasKeys(t, s, registryPrefix+"gone") {
		t.Fatal("keys of the deleted namespace remain")
	}
}

// TestNamespace_NewBaseChecked: a namespace is not created with a base
// whose IRIs would not be RFC 3987 IRIs (namespace.CheckNewBase: here no
// path after the authority), and nothing is created; one recorded with
// such a base before the check still opens, with its base.
func TestNamespace_NewBaseChecked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s := testStore(t, dir, DefaultOptions())
	if _, err := s.Namespace(ctx, "a", WithBase("http://example.org")); !errors.Is(err, namespace.ErrInvalidBase) {
		t.Fatalf("a new namespace with base http://example.org: %v, want ErrInvalidBase", err)
	}
	if names, err := s.Namespaces(ctx); err != nil || len(names) != 0 {
		t.Fatalf("namespaces %v, %v after the refusal, want none", names, err)
	}
	// Recorded before the check.
	if _, err := createNamespace(ctx, s, "b", "http://example.org"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = testStore(t, dir, DefaultOptions())
	n, err := s.OpenNamespace(ctx, "b", WithBase("http://example.org"))
	if err != nil || n.Base() != "http://example.org" {
		t.Fatalf("the namespace recorded with base http://example.org: %v, %v", n, err)
	}
}

// TestDeleteIfUnused_CutShort: DeleteIfUnused deletes as DeleteNamespace
// does, the registry entry first: cut short after it (a crash before the
// keys are dropped), the namespace does not exist, and creating it again
// starts as a new one.
func TestDeleteIfUnused_CutShort(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s := openIn(t, dir)
	n, created, err := s.NamespaceCreated(ctx, "gone")
	if err != nil || !created {
		t.Fatalf("NamespaceCreated: %v, %v", err, created)
	}
	crash := errors.New("crash")
	s.opts.hooks.deleteNamespace = func() error { return crash }
	deleted, err := s.DeleteIfUnused(ctx, n)
	s.opts.hooks.deleteNamespace = nil
	if !deleted || !errors.Is(err, crash) {
		t.Fatalf("DeleteIfUnused: %v, %v", deleted, err)
	}
	if !hasKeys(t, s, dataPrefix+"gone/") {
		t.Fatal("the cut-short deletion dropped the keys: the test does not test anything")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = testStore(t, dir, DefaultOptions())
	if names, _ := s.Namespaces(ctx); len(names) != 0 {
		t.Fatalf("namespaces %v", names)
	}
	n, created, err = s.NamespaceCreated(ctx, "gone")
	if err != nil || !created {
		t.Fatalf("NamespaceCreated again: %v, %v", err, created)
	}
	if deleted, err := s.DeleteIfUnused(ctx, n); !deleted || err != nil {
		t.Fatalf("DeleteIfUnused of the re-created namespace: %v, %v", deleted, err)
	}
	if hasKeys(t, s, dataPrefix+"gone/") || hasKeys(t, s, registryPrefix+"gone") {
		t.Fatal("keys left after the deletion")
	}
}

// TestDeleteNamespace_UnregisterFails: a deletion whose registry entry
// could not be deleted (its commit failed) deleted nothing: the namespace
// still exists, and the handles obtained before neither report it deleted
// nor fail; they are still the namespace's. Both DeleteNamespace and
// DeleteIfUnused.
func TestDeleteNamespace_UnregisterFails(t *testing.T) {
	t.Parallel()
	q := quad.Quad{Subject: quad.IRI("http://ex/s"), Predicate: quad.IRI("http://ex/p"), Object: quad.String("o")}
	failure := errors.New("injected commit failure")
	for _, tc := range []struct {
		name   string
		delete func(t *testing.T, s *Store, n *Namespace) error
	}{
		{"DeleteNamespace", func(t *testing.T, s *Store, n *Namespace) error {
			return s.DeleteNamespace(context.Background(), n.Name())
		}},
		{"DeleteIfUnused", func(t *testing.T, s *Store, n *Namespace) error {
			deleted, err := s.DeleteIfUnused(context.Background(), n)
			if deleted {
				t.Error("DeleteIfUnused reported the namespace deleted")
			}
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s := testStore(t, t.TempDir(), DefaultOptions())
			n, created, err := s.NamespaceCreated(ctx, "ns")
			if err != nil || !created {
				t.Fatalf("NamespaceCreated: %v, %v", err, created)
			}
			s.opts.hooks.unregister = func() error { return failure }
			err = tc.delete(t, s, n)
			s.opts.hooks.unregister = nil
			if !errors.Is(err, failure) {
				t.Fatalf("delete: %v, want the injected failure", err)
			}
			select {
			case <-n.Done():
				t.Fatalf("the handle says it ended: %v", n.Err())
			default:
			}
			if names, err := s.Namespaces(ctx); err != nil || len(names) != 1 {
				t.Fatalf("namespaces %v, %v", names, err)
			}
			if err := n.Apply(ctx, Delta{Add: []quad.Quad{q}}); err != nil {
				t.Fatalf("write through the handle: %v", err)
			}
			if size, err := n.Size(ctx); err != nil || size != 1 {
				t.Fatalf("size through the handle: %d, %v", size, err)
			}
			again, err := s.OpenNamespace(ctx, "ns")
			if err != nil {
				t.Fatal(err)
			}
			if again != n {
				t.Error("OpenNamespace returned another handle than the kept one")
			}
			if err := s.DeleteNamespace(ctx, "ns"); err != nil {
				t.Fatal(err)
			}
			if err := n.Err(); !errors.Is(err, ErrNoNamespace) {
				t.Errorf("the handle after the deletion: %v, want ErrNoNamespace", err)
			}
		})
	}
}

// TestNamespace_InvalidArgumentsMatch: a malformed namespace name or base
// is an argument other than a quad that is malformed: the error matches
// ErrInvalidArgument, and still the namespace package's error, with its
// message unchanged. Nothing is created.
func TestNamespace_InvalidArgumentsMatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testStore(t, t.TempDir(), DefaultOptions())
	for _, tc := range []struct {
		name string
		call func() error
		want error
	}{
		{"Namespace name", func() error { _, err := s.Namespace(ctx, "Bad Name"); return err }, namespace.ErrInvalidName},
		{"OpenNamespace name", func() error { _, err := s.OpenNamespace(ctx, "Bad Name"); return err }, namespace.ErrInvalidName},
		{"DeleteNamespace name", func() error { return s.DeleteNamespace(ctx, "Bad Name") }, namespace.ErrInvalidName},
		{"Namespace base", func() error { _, err := s.Namespace(ctx, "a", WithBase("not a base")); return err }, namespace.ErrInvalidBase},
		{"new namespace's base", func() error { _, err := s.Namespace(ctx, "a", WithBase("http://example.org")); return err }, namespace.ErrInvalidBase},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if !errors.Is(err, ErrInvalidArgument) || !errors.Is(err, tc.want) {
				t.Errorf("%v: want an error matching ErrInvalidArgument and %v", err, tc.want)
			}
			if err != nil && strings.HasPrefix(err.Error(), ErrInvalidArgument.Error()) {
				t.Errorf("message %q changed", err)
			}
		})
	}
	if names, err := s.Namespaces(ctx); err != nil || len(names) != 0 {
		t.Errorf("namespaces %v, %v", names, err)
	}
}

// TestDeleteIfUnused_AfterBaseMismatch: a call of Namespace with another
// base than the namespace's fails and returns no handle, so it is no use
// of the namespace: DeleteIfUnused still deletes it. The failed call
// counted as one, and the namespace was kept.
func TestDeleteIfUnused_AfterBaseMismatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openIn(t, t.TempDir())
	n, created, err := s.NamespaceCreated(ctx, "gone", WithBase("http://ex.org/a/"))
	if err != nil || !created {
		t.Fatalf("NamespaceCreated: %v, %v", err, created)
	}
	var mismatch *BaseMismatchError
	if _, err := s.Namespace(ctx, "gone", WithBase("http://ex.org/b/")); !errors.As(err, &mismatch) {
		t.Fatalf("Namespace with another base: %v, want a BaseMismatchError", err)
	}
	if deleted, err := s.DeleteIfUnused(ctx, n); !deleted || err != nil {
		t.Fatalf("DeleteIfUnused: %v, %v; want deleted", deleted, err)
	}
}

// TestDeleteNamespace_LeakedReaderBounded: beside a reader that its program
// keeps and never closes (a query result, a Dataset.Match iterator),
// DeleteNamespace and the creation of a namespace over the leftovers of a
// deletion cut short, called with a context that never ends, waited for
// ever for the store's transactions. They wait Tuning.DropGateWait and fail
// with an error matching ErrBusy that names what was open.
func TestDeleteNamespace_LeakedReaderBounded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		open func(t *testing.T, n *Namespace) func() // returns the reader's Close
		want string                                  // in the error
	}{
		{"query result", func(t *testing.T, n *Namespace) func() {
			res, err := n.Query(context.Background(), "SELECT * WHERE { ?s ?p ?o }", sparql.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return func() { res.Close() }
		}, `1 query result not closed: "SELECT * WHERE { ?s ?p ?o }" on namespace a, opened`},
		{"Match iterator", func(t *testing.T, n *Namespace) func() {
			it := n.Dataset().Match(context.Background(), eval.Pattern{Scope: eval.AllGraphs})
			return func() { it.Close() }
		}, "1 other (a Dataset.Match iterator or a Tx not closed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s := testStore(t, t.TempDir(), DefaultOptions().WithSyncWrites(false).WithTuning(Tuning{DropGateWait: 300 * time.Millisecond}))
			var a *Namespace
			for _, name := range []string{"a", "b", "c"} {
				n, err := s.Namespace(ctx, name)
				if err != nil {
					t.Fatal(err)
				}
				if err := n.Apply(ctx, Delta{Add: uniqueQuads(10, name)}); err != nil {
					t.Fatal(err)
				}
				if name == "a" {
					a = n
				}
			}
			// c's deletion is cut short: its keys are left.
			s.opts.hooks.deleteNamespace = func() error { return errors.New("cut short") }
			if err := s.DeleteNamespace(ctx, "c"); err == nil {
				t.Fatal("the cut-short deletion succeeded")
			}
			s.opts.hooks.deleteNamespace = nil

			closeReader := tc.open(t, a)
			err := s.DeleteNamespace(ctx, "b")
			if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("DeleteNamespace beside a reader left open: %v, want ErrBusy naming %q", err, tc.want)
			}
			_, err = s.Namespace(ctx, "c")
			if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Namespace over leftovers beside a reader left open: %v, want ErrBusy naming %q", err, tc.want)
			}
			if names, err := s.Namespaces(ctx); err != nil || strings.Join(names, " ") != "a" {
				t.Errorf("namespaces %v (%v), want [a]", names, err)
			}
			closeReader()
			if err := s.DeleteNamespace(ctx, "a"); err != nil {
				t.Errorf("DeleteNamespace once the reader is closed: %v", err)
			}
			if _, err := s.Namespace(ctx, "c"); err != nil {
				t.Errorf("Namespace over leftovers once the reader is closed: %v", err)
			}
		})
	}
}

// TestOpen_DropsDeletedNamespaceLeftovers: the keys a deletion cut short
// left (a crash between its two steps) stayed on disk until a namespace of
// that name was created again; a read-write Open drops them, and keeps
// every key of the namespaces that exist (whose names sort around it).
func TestOpen_DropsDeletedNamespaceLeftovers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s := openIn(t, dir)
	q := quad.Quad{Subject: quad.IRI("http://ex/s"), Predicate: quad.IRI("http://ex/p"), Object: quad.String("o")}
	for _, name := range []string{"a", "a-b", "gone", "gone0", "z"} {
		n, err := s.Namespace(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Apply(ctx, Delta{Add: []quad.Quad{q}}); err != nil {
			t.Fatal(err)
		}
	}
	crash := errors.New("crash")
	s.opts.hooks.deleteNamespace = func() error { return crash }
	for _, name := range []string{"a", "gone"} {
		if err := s.DeleteNamespace(ctx, name); !errors.Is(err, crash) {
			t.Fatalf("delete %s: %v", name, err)
		}
	}
	s.opts.hooks.deleteNamespace = nil
	if !hasKeys(t, s, dataPrefix+"gone/") {
		t.Fatal("the cut-short deletion dropped the keys: the test does not test anything")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = testStore(t, dir, DefaultOptions())
	for _, name := range []string{"a", "gone"} {
		if hasKeys(t, s, dataPrefix+name+"/") {
			t.Errorf("the leftovers of deleted namespace %s are still there after Open", name)
		}
	}
	for _, name := range []string{"a-b", "gone0", "z"} {
		n, err := s.OpenNamespace(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if size, err := n.Size(ctx); err != nil || size != 1 {
			t.Errorf("namespace %s: size %d, %v after Open; want 1", name, size, err)
		}
	}
}

// A failure to drop the leftovers (a full disk) does not keep the store
// from opening: they are invisible, and the next read-write Open drops them.
func TestOpen_LeftoversDropFailureStillOpens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s := openIn(t, dir)
	n, err := s.Namespace(ctx, "gone")
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Apply(ctx, Delta{Add: []quad.Quad{{Subject: quad.IRI("http://ex/s"), Predicate: quad.IRI("http://ex/p"), Object: quad.String("o")}}}); err != nil {
		t.Fatal(err)
	}
	crash := errors.New("crash")
	s.opts.hooks.deleteNamespace = func() error { return crash }
	if err := s.DeleteNamespace(ctx, "gone"); !errors.Is(err, crash) {
		t.Fatalf("delete: %v", err)
	}
	s.opts.hooks.deleteNamespace = nil
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var logged strings.Builder
	o := DefaultOptions().WithLogger(log.New(&logged, "", 0))
	o.hooks.dropLeftovers = func() error { return errors.New("no space left on device") }
	s = testStore(t, dir, o)
	if !hasKeys(t, s, dataPrefix+"gone/") {
		t.Fatal("the leftovers went although their drop failed: the test does not test anything")
	}
	if !strings.Contains(logged.String(), "no space left on device") {
		t.Errorf("the failed drop was not logged: %q", logged.String())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = testStore(t, dir, DefaultOptions())
	if hasKeys(t, s, dataPrefix+"gone/") {
		t.Error("the next Open did not drop the leftovers")
	}
}
