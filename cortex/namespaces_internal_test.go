package cortex

import (
	"context"
	"errors"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/dgraph-io/badger/v4"
)

// hasKeys reports whether the store holds a key starting with prefix.
func hasKeys(t *testing.T, s *Store, prefix string) bool {
	t.Helper()
	var found bool
	err := s.view(func(txn *badger.Txn) error {
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
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
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
	namespaceDeleteHook = func() error { return crash }
	err = s.DeleteNamespace(ctx, "gone")
	namespaceDeleteHook = func() error { return nil }
	if !errors.Is(err, crash) {
		t.Fatalf("delete: %v", err)
	}
	if !hasKeys(t, s, dataPrefix+"gone/") {
		t.Fatal("the cut-short deletion dropped the keys: the test does not test anything")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(ctx, dir, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
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
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Namespace(ctx, "old"); err != nil {
		t.Fatal(err)
	}
	if err := s.update(func(txn *badger.Txn) error { return txn.Set([]byte(registryPrefix+"old"), nil) }); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, dir, DefaultOptions().WithReadOnly(true))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n, err := s.OpenNamespace(ctx, "old", WithBase("urn:cortex:old"))
	if err != nil || n.Base() != "urn:cortex:old" {
		t.Fatalf("legacy entry: base %q (%v)", n.Base(), err)
	}
}

// TestDeleteNamespace_DropsKeys: a deletion that completes leaves no key of
// the namespace behind, and no registry entry.
func TestDeleteNamespace_DropsKeys(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir(), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
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
