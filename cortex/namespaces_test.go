package cortex_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
)

// openStore opens the store in dir, checked and closed when the test ends
// (cortextest.OpenStore).
func openStore(t *testing.T, dir string, opts cortex.Options) *cortex.Store {
	t.Helper()
	return cortextest.OpenStore(t, dir, opts)
}

func readOnly() cortex.Options { return cortex.DefaultOptions().WithReadOnly(true) }

// TestStore_ReadOnlyOpenCreatesNothing: a read-only open of a missing
// directory, or of a directory without a store, fails with ErrNoStore
// (also ErrNotFound) and creates nothing; a real store opens read-only,
// twice at once, but not while a writer has it.
func TestStore_ReadOnlyOpenCreatesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	missing := filepath.Join(t.TempDir(), "missing")
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{missing, empty} {
		_, err := cortex.Open(ctx, dir, readOnly())
		if !errors.Is(err, cortex.ErrNoStore) || !errors.Is(err, cortex.ErrNotFound) {
			t.Fatalf("read-only open of %s: %v, want ErrNoStore", dir, err)
		}
		if want := "no store at " + dir; err.Error() != want {
			t.Fatalf("message %q, want %q", err, want)
		}
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("read-only open created %s (%v)", missing, err)
	}
	// A file, and a path under one: no store either (not an I/O error).
	file := filepath.Join(empty, "notes.txt")
	for _, dir := range []string{file, filepath.Join(file, "sub")} {
		_, err := cortex.Open(ctx, dir, readOnly())
		if !errors.Is(err, cortex.ErrNoStore) || err.Error() != "no store at "+dir+" (not a directory)" {
			t.Fatalf("read-only open of %s: %v, want ErrNoStore saying it is not a directory", dir, err)
		}
	}
	if ents, _ := os.ReadDir(empty); len(ents) != 1 {
		t.Fatalf("read-only open wrote into %s: %d entries", empty, len(ents))
	}

	dir := t.TempDir()
	w := openStore(t, dir, cortex.DefaultOptions())
	if _, err := w.Namespace(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	if _, err := cortex.Open(ctx, dir, readOnly()); !errors.Is(err, cortex.ErrLocked) {
		t.Fatalf("read-only open beside a writer: %v", err)
	}
	w.Close()
	r1 := openStore(t, dir, readOnly())
	r2 := openStore(t, dir, readOnly())
	for _, r := range []*cortex.Store{r1, r2} {
		if names, err := r.Namespaces(ctx); err != nil || !slices.Equal(names, []string{"acme"}) {
			t.Fatalf("namespaces %v (%v)", names, err)
		}
	}
	if _, err := cortex.Open(ctx, dir, cortex.DefaultOptions()); !errors.Is(err, cortex.ErrLocked) {
		t.Fatalf("read-write open beside readers: %v", err)
	}
}

// TestStore_MissingNamespaceIsNotCreated: OpenNamespace, and Namespace on a
// read-only store, report ErrNoNamespace and create nothing.
func TestStore_MissingNamespaceIsNotCreated(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s := openStore(t, dir, cortex.DefaultOptions())
	_, err := s.OpenNamespace(ctx, "typo")
	if !errors.Is(err, cortex.ErrNoNamespace) || !errors.Is(err, cortex.ErrNotFound) || err.Error() != `no such namespace "typo"` {
		t.Fatalf("OpenNamespace: %v", err)
	}
	if names, _ := s.Namespaces(ctx); len(names) != 0 {
		t.Fatalf("namespaces after a failed open: %v", names)
	}
	if _, err := s.Namespace(ctx, "real"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	r := openStore(t, dir, readOnly())
	if _, err := r.Namespace(ctx, "typo"); !errors.Is(err, cortex.ErrNoNamespace) {
		t.Fatalf("Namespace on a read-only store: %v", err)
	}
	if _, err := r.OpenNamespace(ctx, "real"); err != nil {
		t.Fatalf("OpenNamespace of an existing namespace: %v", err)
	}
}

// TestStore_NamespaceRecordsBase: the base given when a namespace is
// created is recorded; opening it with another is refused naming both.
func TestStore_NamespaceRecordsBase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s := openStore(t, dir, cortex.DefaultOptions())
	const base = "https://acme.example/kg"
	n, err := s.Namespace(ctx, "acme", cortex.WithBase(base))
	if err != nil {
		t.Fatal(err)
	}
	if n.Base() != base {
		t.Fatalf("base %q", n.Base())
	}
	d, err := s.Namespace(ctx, "plain")
	if err != nil || d.Base() != "urn:cortex:plain" {
		t.Fatalf("default base %q (%v)", d.Base(), err)
	}
	if _, err := s.Namespace(ctx, "bad", cortex.WithBase("relative/path")); err == nil {
		t.Fatal("a relative base was accepted")
	}
	if names, _ := s.Namespaces(ctx); slices.Contains(names, "bad") {
		t.Fatal("a namespace with a bad base was created")
	}
	s.Close()
	for _, opts := range []cortex.Options{cortex.DefaultOptions(), readOnly()} {
		s := openStore(t, dir, opts)
		n, err := s.OpenNamespace(ctx, "acme")
		if err != nil || n.Base() != base {
			t.Fatalf("reopened base %q (%v)", n.Base(), err)
		}
		if _, err := s.OpenNamespace(ctx, "acme", cortex.WithBase(base)); err != nil {
			t.Fatalf("same base: %v", err)
		}
		_, err = s.OpenNamespace(ctx, "acme", cortex.WithBase("urn:cortex:acme"))
		var be *cortex.BaseMismatchError
		if !errors.Is(err, cortex.ErrBaseMismatch) || !errors.As(err, &be) || be.Recorded != base || be.Requested != "urn:cortex:acme" {
			t.Fatalf("other base: %v", err)
		}
		if !strings.Contains(err.Error(), base) || !strings.Contains(err.Error(), "urn:cortex:acme") {
			t.Fatalf("message %q does not name both bases", err)
		}
		if _, err := s.Namespace(ctx, "plain", cortex.WithBase("https://other.example/")); !errors.Is(err, cortex.ErrBaseMismatch) {
			t.Fatalf("default-based namespace opened with another base: %v", err)
		}
		s.Close()
	}
}

// TestStore_DeleteNamespace: the namespace and its data go, the others
// stay; a new namespace of that name starts empty.
func TestStore_DeleteNamespace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s := openStore(t, dir, cortex.DefaultOptions())
	quads := []quad.Quad{q("a", "p", quad.String("x"), nil), q("b", "p", quad.String("y"), iri("g"))}
	for _, name := range []string{"gone", "kept"} {
		n, err := s.Namespace(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Apply(ctx, cortex.Delta{Add: quads}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteNamespace(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	if names, _ := s.Namespaces(ctx); !slices.Equal(names, []string{"kept"}) {
		t.Fatalf("namespaces %v", names)
	}
	if _, err := s.OpenNamespace(ctx, "gone"); !errors.Is(err, cortex.ErrNoNamespace) {
		t.Fatalf("open deleted: %v", err)
	}
	if err := s.DeleteNamespace(ctx, "gone"); !errors.Is(err, cortex.ErrNoNamespace) {
		t.Fatalf("delete twice: %v", err)
	}
	kept, err := s.OpenNamespace(ctx, "kept")
	if err != nil {
		t.Fatal(err)
	}
	if size, _ := kept.Size(ctx); size != 2 {
		t.Fatalf("kept namespace has %d quads", size)
	}
	n, err := s.Namespace(ctx, "gone")
	if err != nil {
		t.Fatal(err)
	}
	if size, _ := n.Size(ctx); size != 0 {
		t.Fatalf("re-created namespace has %d quads", size)
	}
	if qs, err := n.Quads(ctx, cortex.Pattern{}); err != nil || len(qs) != 0 {
		t.Fatalf("re-created namespace quads %v (%v)", qs, err)
	}
	s.Close()
	r := openStore(t, dir, readOnly())
	if err := r.DeleteNamespace(ctx, "kept"); !errors.Is(err, cortex.ErrReadOnly) {
		t.Fatalf("a read-only store deleting a namespace: %v", err)
	}
	kept, err = r.OpenNamespace(ctx, "kept")
	if err != nil {
		t.Fatal(err)
	}
	if err := kept.Apply(ctx, cortex.Delta{Add: quads[:1]}); !errors.Is(err, cortex.ErrReadOnly) {
		t.Fatalf("a write to a read-only store: %v", err)
	}
	if names, _ := r.Namespaces(ctx); !slices.Equal(names, []string{"gone", "kept"}) {
		t.Fatalf("namespaces %v", names)
	}
}

// TestStore_WithCreateFalse: a read-write open that must not create fails
// with ErrNoStore on a directory without a store, and opens a real one.
func TestStore_WithCreateFalse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	missing := filepath.Join(t.TempDir(), "missing")
	opts := cortex.DefaultOptions().WithCreate(false)
	if _, err := cortex.Open(ctx, missing, opts); !errors.Is(err, cortex.ErrNoStore) {
		t.Fatalf("open: %v", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("created %s (%v)", missing, err)
	}
	dir := t.TempDir()
	openStore(t, dir, cortex.DefaultOptions()).Close()
	s := openStore(t, dir, opts)
	if _, err := s.Namespace(ctx, "x"); err != nil {
		t.Fatalf("write to a store opened without create: %v", err)
	}
}

// TestStore_NamespaceIsOneValue: every Namespace or OpenNamespace call for
// a name returns the same *Namespace, which is also what Tx.Namespace
// gives inside its Update; after DeleteNamespace the name's new namespace
// is another value, which does not see the old data.
func TestStore_NamespaceIsOneValue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := cortextest.NewStore(t)
	n1, err := s.Namespace(ctx, "one")
	if err != nil {
		t.Fatal(err)
	}
	n2, err := s.Namespace(ctx, "one")
	if err != nil {
		t.Fatal(err)
	}
	n3, err := s.OpenNamespace(ctx, "one")
	if err != nil {
		t.Fatal(err)
	}
	if n1 != n2 || n1 != n3 {
		t.Fatalf("Namespace, Namespace, OpenNamespace gave %p, %p, %p; want one value", n1, n2, n3)
	}
	q := quad.Quad{Subject: quad.IRI("http://ex/s"), Predicate: quad.IRI("http://ex/p"), Object: quad.String("o")}
	err = n1.Update(ctx, func(tx *cortex.Tx) error {
		if tx.Namespace() != n1 {
			t.Errorf("Tx.Namespace() = %p; want the updated namespace %p", tx.Namespace(), n1)
		}
		tx.Add(q)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteNamespace(ctx, "one"); err != nil {
		t.Fatal(err)
	}
	n4, err := s.Namespace(ctx, "one")
	if err != nil {
		t.Fatal(err)
	}
	if n4 == n1 {
		t.Fatal("the namespace created after DeleteNamespace is the deleted one's value")
	}
	if size, err := n4.Size(ctx); err != nil || size != 0 {
		t.Fatalf("new namespace: size %d, %v; want 0", size, err)
	}
}

// TestWrite_WaitForTheLockEndsWithTheContext: an Apply or Update waiting
// for the namespace's write lock, held by a long Update, gives up when its
// context ends (with its error, writing nothing) instead of waiting for the
// holder; the holder's write is not disturbed.
func TestWrite_WaitForTheLockEndsWithTheContext(t *testing.T) {
	t.Parallel()
	s := cortextest.NewStore(t, cortex.DefaultOptions().WithSyncWrites(false))
	ns, err := s.Namespace(context.Background(), "default")
	if err != nil {
		t.Fatal(err)
	}
	inside, release := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- ns.Update(context.Background(), func(tx *cortex.Tx) error {
			close(inside)
			<-release
			tx.Add(q("held", "p", quad.String("1"), nil))
			return nil
		})
	}()
	<-inside
	for _, way := range []string{"apply", "update"} {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			d := cortex.Delta{Add: []quad.Quad{q(way, "p", quad.String("2"), nil)}}
			if way == "apply" {
				done <- ns.Apply(ctx, d)
				return
			}
			done <- ns.Update(ctx, func(tx *cortex.Tx) error { tx.Add(d.Add...); return nil })
		}()
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s: %v, want context.Canceled", way, err)
			}
		case <-time.After(10 * time.Second): // a guard against a hang, not a timing
			close(release)
			t.Fatalf("%s waited for the write lock after its context ended", way)
		}
	}
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	checkContent(t, ns, []quad.Quad{q("held", "p", quad.String("1"), nil)})
}

// TestOpen_CreatesPrivateDirectory: a store's new directory (and the
// missing ones above it) is 0700: its files are every namespace's data,
// which nothing else guards from other users of the machine. An existing
// directory keeps its mode.
func TestOpen_CreatesPrivateDirectory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	base := t.TempDir()
	dir := filepath.Join(base, "a", "store")
	s := openStore(t, dir, cortex.DefaultOptions())
	if _, err := s.Namespace(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v, %v; want mode 0700", d, fi.Mode(), err)
		}
	}
	shared := filepath.Join(base, "shared")
	if err := os.Mkdir(shared, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o750); err != nil { // whatever the umask
		t.Fatal(err)
	}
	openStore(t, shared, cortex.DefaultOptions())
	if fi, err := os.Stat(shared); err != nil || fi.Mode().Perm() != 0o750 {
		t.Fatalf("existing directory: %v, %v; want its mode kept (0750)", fi.Mode(), err)
	}
}

// TestStore_DeleteNamespaceEndedContext: DeleteNamespace with a context
// that has ended, or that ends while it waits for a write in progress on
// the namespace, fails with the context's error and deletes nothing. It
// deleted the namespace and its data, and returned nil.
func TestStore_DeleteNamespaceEndedContext(t *testing.T) {
	t.Parallel()
	s := cortextest.NewStore(t)
	bg := context.Background()
	ns, err := s.Namespace(bg, "kept")
	if err != nil {
		t.Fatal(err)
	}
	base := []quad.Quad{q("a", "p", quad.String("x"), iri("g"))}
	if err := ns.Apply(bg, cortex.Delta{Add: base}); err != nil {
		t.Fatal(err)
	}
	ended, cancel := context.WithCancel(bg)
	cancel()
	if err := s.DeleteNamespace(ended, "kept"); !errors.Is(err, context.Canceled) {
		t.Fatalf("delete with an ended context: %v, want context.Canceled", err)
	}
	if names, _ := s.Namespaces(bg); !slices.Equal(names, []string{"kept"}) {
		t.Fatalf("namespaces after a refused delete: %v", names)
	}
	checkContent(t, ns, base)

	// Cancelled while it waits for an Update in progress.
	inside, release := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- ns.Update(bg, func(tx *cortex.Tx) error {
			close(inside)
			<-release
			tx.Add(q("held", "p", quad.String("1"), nil))
			return nil
		})
	}()
	<-inside
	ctx, cancel := context.WithCancel(bg)
	done := make(chan error, 1)
	go func() { done <- s.DeleteNamespace(ctx, "kept") }()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("delete cancelled while waiting: %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second): // a guard against a hang, not a timing
		close(release)
		t.Fatal("DeleteNamespace waited for the write lock after its context ended")
	}
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if names, _ := s.Namespaces(bg); !slices.Equal(names, []string{"kept"}) {
		t.Fatalf("namespaces after a cancelled delete: %v", names)
	}
	checkContent(t, ns, append(base, q("held", "p", quad.String("1"), nil)))
}

// TestNamespace_Done: a *Namespace's Done channel is open while it is,
// and closed when DeleteNamespace deletes it (Err matching ErrNoNamespace
// and ErrNotFound) or when the store closes (Err matching ErrClosed); a
// namespace created again under the name is a new one, with Done open.
func TestNamespace_Done(t *testing.T) {
	ctx := context.Background()
	s, err := cortex.Open(ctx, t.TempDir(), cortex.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.Namespace(ctx, "gone")
	if err != nil {
		t.Fatal(err)
	}
	kept, err := s.Namespace(ctx, "kept")
	if err != nil {
		t.Fatal(err)
	}
	ended := func(n *cortex.Namespace) bool {
		select {
		case <-n.Done():
			return true
		default:
			return false
		}
	}
	if ended(n) || n.Err() != nil {
		t.Fatalf("open namespace: ended %v, Err %v", ended(n), n.Err())
	}
	if err := s.DeleteNamespace(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	if !ended(n) || !errors.Is(n.Err(), cortex.ErrNoNamespace) || !errors.Is(n.Err(), cortex.ErrNotFound) {
		t.Fatalf("deleted namespace: ended %v, Err %v", ended(n), n.Err())
	}
	again, err := s.Namespace(ctx, "gone")
	if err != nil {
		t.Fatal(err)
	}
	if ended(again) || ended(kept) {
		t.Fatal("a namespace created again, or another one, has ended")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, n := range []*cortex.Namespace{again, kept} {
		if !ended(n) || !errors.Is(n.Err(), cortex.ErrClosed) {
			t.Fatalf("namespace %s after Close: ended %v, Err %v", n.Name(), ended(n), n.Err())
		}
	}
}

// TestStore_NoStoreNamesPathQuoted: the message of ErrNoStore names a
// directory that is not plain text quoted (as pathtext.Quote does), so a
// newline, a quote or a bidi control in it can neither garble nor forge it.
func TestStore_NoStoreNamesPathQuoted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	for _, name := range []string{"a\nno store at x", `a"b`, "a\u202eb", "a ", "my store"} {
		dir := filepath.Join(root, name)
		want := "no store at " + strconv.Quote(dir)
		if name == "my store" {
			want = "no store at " + dir // plain text: as it is
		}
		if _, err := cortex.Open(ctx, dir, readOnly()); !errors.Is(err, cortex.ErrNoStore) || err.Error() != want {
			t.Errorf("read-only open of %q: %v, want %s", dir, err, want)
		}
		if err := os.WriteFile(dir, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := cortex.Open(ctx, dir, readOnly()); !errors.Is(err, cortex.ErrNoStore) || err.Error() != want+" (not a directory)" {
			t.Errorf("read-only open of file %q: %v, want %s (not a directory)", dir, err, want)
		}
	}
}
