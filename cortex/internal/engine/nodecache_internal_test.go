package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cayleygraph/quad"
	hkv "github.com/hidal-go/hidalgo/kv"

	"github.com/cortexgraph/cortex/cortex/internal/badgerkv"
	"github.com/cortexgraph/cortex/cortex/internal/layout"
)

// checkNodeCache fails the test unless every node the namespace's cache
// holds is what the store holds now (a cache that is not exact for the next
// delta is allowed: at empties it). The caller holds no write lock; the test
// writes from one goroutine.
func checkNodeCache(t *testing.T, n *Namespace, when string) {
	t.Helper()
	ctx := context.Background()
	tx, err := n.view.Tx(false)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	if n.nodes.ts == 0 {
		return
	}
	if ts := tx.(interface{ ReadTs() uint64 }).ReadTs(); ts != n.nodes.ts {
		return // stale, and the next delta will not use it
	}
	var key []byte
	for h, cn := range n.nodes.m {
		key = layout.Escape(key[:0], layout.Node('v', h))
		b, err := tx.Get(ctx, key)
		if err != nil {
			t.Fatalf("%s: cached node %x: 'v' key: %v", when, h[:4], err)
		}
		if id, _ := binary.Uvarint(b); id != cn.id {
			t.Fatalf("%s: cached node %x: id %d, stored %d", when, h[:4], cn.id, id)
		}
		if !cn.known {
			continue
		}
		key = layout.Escape(key[:0], layout.Node('n', h))
		b, err = tx.Get(ctx, key)
		var c uint64
		if err == nil {
			c, _ = binary.Uvarint(b)
		} else if !errors.Is(err, hkv.ErrNotFound) {
			t.Fatal(err)
		}
		if int64(c) != cn.refs {
			t.Fatalf("%s: cached node %x (id %d): %d references, stored %d", when, h[:4], cn.id, cn.refs, c)
		}
	}
}

// TestNodeCache_ExactAcrossOtherWrites: deltas that share terms, free them
// and create them again keep the namespace's reference counts exact (Check)
// while the node cache serves them, and so do deltas that follow a write the
// cache did not see: an import, a journaled delta and a side-table write of
// the same namespace, and a write of another namespace. Without the
// timestamp check in nodeCache.at, the deltas after the import and the
// journaled delta would write reference counts from before them.
func TestNodeCache_ExactAcrossOtherWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := testNamespace(t, DefaultOptions().WithSyncWrites(false).WithTuning(Tuning{MaxDeltaQuads: 64}))
	other, err := n.s.Namespace(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	// A small pool of terms, so that deltas share them, drop their last
	// use and bring them back.
	q := func() quad.Quad {
		return quad.Quad{
			Subject:   quad.IRI(fmt.Sprint("http://x/s", rng.IntN(6))),
			Predicate: quad.IRI(fmt.Sprint("http://x/p", rng.IntN(3))),
			Object:    quad.String(fmt.Sprint("o", rng.IntN(8))),
			Label:     quad.IRI(fmt.Sprint("http://x/g", rng.IntN(2))),
		}
	}
	live := map[quad.Quad]bool{}
	var hits int
	for step := range 120 {
		var d Delta
		if step%10 == 9 { // drop every quad of one object: its node is freed
			o := quad.String(fmt.Sprint("o", rng.IntN(8)))
			for x := range live {
				if x.Object == o {
					d.Remove = append(d.Remove, x)
					delete(live, x)
				}
			}
		}
		for range 1 + rng.IntN(6) {
			x := q()
			if live[x] && rng.IntN(3) > 0 {
				d.Remove = append(d.Remove, x)
				delete(live, x)
			} else if !live[x] {
				d.Add = append(d.Add, x)
				live[x] = true
			}
		}
		if n.nodes.ts != 0 {
			hits++
		}
		if err := n.Apply(ctx, d); err != nil {
			t.Fatal(err)
		}
		checkNodeCache(t, n, fmt.Sprint("step ", step))
		switch step % 10 {
		case 3: // an import of the same namespace, sharing the terms
			var qs []quad.Quad
			for range 5 {
				if x := q(); !live[x] {
					qs = append(qs, x)
					live[x] = true
				}
			}
			if _, err := n.Import(ctx, &sliceSource{qs: qs}, ImportOptions{}); err != nil {
				t.Fatal(err)
			}
		case 5: // a journaled delta (over MaxDeltaQuads) sharing the terms
			var big Delta
			for i := range 70 {
				x := q()
				x.Label = quad.IRI(fmt.Sprint("http://x/big", step, "-", i))
				big.Add = append(big.Add, x)
				live[x] = true
			}
			if err := n.Apply(ctx, big); err != nil {
				t.Fatal(err)
			}
		case 7: // a side-table write, and another namespace's delta
			err := n.Update(ctx, func(tx *Tx) error {
				tx.PutSide("t", fmt.Sprint("row", step), []quad.Value{quad.String("x")})
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := other.Apply(ctx, Delta{Add: []quad.Quad{q()}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := n.Check(ctx); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
	}
	if hits < 50 {
		t.Fatalf("the cache served %d of 120 deltas: it is not used", hits)
	}
}

// TestDeltaTx_KeysAsFlatUpgrade: a delta's transaction (deltaTx) escapes
// keys exactly as hidalgo's flat.Upgrade, which cayley's readers and the
// engine's other paths use: a key written through one is read through the
// other, for keys of every kind and parts holding the separator and escape
// bytes.
func TestDeltaTx_KeysAsFlatUpgrade(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := testNamespace(t, DefaultOptions().WithSyncWrites(false))
	noStoreCheck.Store(t, true) // the keys below belong to no quad
	var h [20]byte
	for i := range h {
		h[i] = byte(i * 47) // includes '/' (47) and '\\' (92)
	}
	keys := []hkv.Key{
		layout.Node('v', h), layout.Node('n', h), layout.Log(0x2f5c2f5c), layout.Pin(92),
		layout.Index(2, [4]uint64{47, 92, 0x5c2f, 1 << 40}), {[]byte("meta"), []byte(`a/b\c`)},
	}
	for i, k := range keys {
		ft, err := n.view.Tx(true)
		if err != nil {
			t.Fatal(err)
		}
		dt := &deltaTx{tx: ft.(*badgerkv.Tx)}
		if err := dt.Put(k, []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
		if err := dt.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		err = hkv.View(n.kv, func(tx hkv.Tx) error {
			v, err := tx.Get(ctx, k)
			if err != nil || len(v) != 1 || v[0] != byte(i) {
				t.Errorf("key %d %q: read through flat.Upgrade: %v %v", i, k, v, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
