package cortex

import (
	"context"
	"fmt"
	"testing"

	"github.com/cayleygraph/quad"
	hkv "github.com/hidal-go/hidalgo/kv"
)

// TestPinnedTermsBatch_ReadsPins overwrites pins with another term (the
// store never does that) to see which table each read uses: PinnedTermsBatch
// the pins, for large and small batches; TermsBatch the log.
func TestPinnedTermsBatch_ReadsPins(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func() (*Store, *Namespace) {
		t.Helper()
		s, err := Open(ctx, dir, DefaultOptions().WithSyncWrites(false))
		if err != nil {
			t.Fatal(err)
		}
		n, err := s.Namespace(ctx, "p")
		if err != nil {
			t.Fatal(err)
		}
		return s, n
	}
	s, n := open()
	var add []quad.Quad
	var pin []quad.Value
	for i := range 100 {
		o := quad.String(fmt.Sprint("value ", i))
		add = append(add, quad.Quad{Subject: quad.IRI("urn:s"), Predicate: quad.IRI("urn:p"), Object: o})
		pin = append(pin, o)
	}
	if err := n.Apply(ctx, Delta{Add: add, Pin: pin}); err != nil {
		t.Fatal(err)
	}
	ids, err := n.IDs(ctx, pin)
	if err != nil {
		t.Fatal(err)
	}
	fake := quad.String("fake")
	err = hkv.Update(ctx, n.kv, func(tx hkv.Tx) error {
		for _, id := range ids {
			b, err := pinValue(uint64(id), fake)
			if err != nil {
				return err
			}
			if err := tx.Put(pinKey(uint64(id)), b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		ids    []ID
		pinned bool
		want   func(i int) quad.Value
	}{
		{"pinned, large batch", ids, true, func(int) quad.Value { return fake }},
		{"pinned, small batch", ids[:3], true, func(int) quad.Value { return fake }},
		{"log", ids, false, func(i int) quad.Value { return pin[i] }},
	} {
		if err := s.Close(); err != nil { // a fresh term cache
			t.Fatal(err)
		}
		s, n = open()
		got, err := n.termsBatch(ctx, tc.ids, tc.pinned)
		if err != nil {
			t.Fatal(err)
		}
		for i := range tc.ids {
			if got[i] != tc.want(i) {
				t.Fatalf("%s: id %d: %v, want %v", tc.name, tc.ids[i], got[i], tc.want(i))
			}
		}
	}
	s.Close()
}
