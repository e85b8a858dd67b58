package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/cortexgraph/cortex/cortex/internal/layout"

	"github.com/cayleygraph/quad"
	"github.com/dgraph-io/badger/v4"
	hkv "github.com/hidal-go/hidalgo/kv"
)

// TestPinnedTermsBatch_ReadsPins overwrites pins with another term (the
// store never does that) to see which table each read uses: PinnedTermsBatch
// the pins, for large and small batches; TermsBatch the log.
func TestPinnedTermsBatch_ReadsPins(t *testing.T) {
	t.Parallel()
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
	ids, err := n.termIDsOf(ctx, pin)
	if err != nil {
		t.Fatal(err)
	}
	fake := quad.String("fake")
	err = hkv.Update(ctx, n.kv, func(tx hkv.Tx) error {
		for _, id := range ids {
			b, err := layout.PinValue(uint64(id), fake)
			if err != nil {
				return err
			}
			if err := tx.Put(layout.Pin(uint64(id)), b); err != nil {
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
		ids    []termID
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

// TestPins_NoMarkersForUnpinnedTerms frees many terms that were never
// pinned, in one-transaction and journaled deltas: the pin table must not
// fill with deletion markers (readers step over them until a compaction),
// only the pinned term's entry and its deletion may be there.
func TestPins_NoMarkersForUnpinnedTerms(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir(), DefaultOptions().WithSyncWrites(false))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n, err := s.Namespace(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	quads := func(k int) []quad.Quad {
		var qs []quad.Quad
		for i := range k {
			qs = append(qs, quad.Quad{Subject: quad.IRI(fmt.Sprint("urn:s", i)), Predicate: quad.IRI("urn:p"), Object: quad.String(fmt.Sprint("v", i))})
		}
		return qs
	}
	pinned := quad.String("pinned")
	pq := quad.Quad{Subject: quad.IRI("urn:x"), Predicate: quad.IRI("urn:p"), Object: pinned}
	for _, k := range []int{100, MaxDeltaQuads + 50} { // one transaction, journaled
		qs := quads(k)
		if err := n.Apply(ctx, Delta{Add: append(qs, pq), Pin: []quad.Value{pinned}}); err != nil {
			t.Fatal(err)
		}
		if err := n.Apply(ctx, Delta{Remove: append(qs, pq)}); err != nil {
			t.Fatal(err)
		}
		// Every version under the pin bucket, deletion markers included.
		pref := layout.Escape(n.view.Prefix(), hkv.Key{layout.PinBucket, nil})
		var entries int
		err := s.db.View(func(txn *badger.Txn) error {
			opts := badger.DefaultIteratorOptions
			opts.AllVersions, opts.PrefetchValues, opts.Prefix = true, false, pref
			it := txn.NewIterator(opts)
			defer it.Close()
			for it.Rewind(); it.Valid(); it.Next() {
				entries++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if entries > 2*2 { // the pinned term's pin and its deletion, per round
			t.Fatalf("%d quads freed: %d entries in the pin table", k, entries)
		}
		CheckFormat(t, n)
	}
}
