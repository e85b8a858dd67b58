package engine

import (
	"context"
	"errors"

	"github.com/cayleygraph/cayley/graph/refs"
	hkv "github.com/hidal-go/hidalgo/kv"

	"github.com/cortexgraph/cortex/cortex/internal/badgerkv"
	"github.com/cortexgraph/cortex/cortex/internal/layout"
)

// The writer's node cache.
//
// A delta (writeDelta) reads the node of every term it touches: its id (the
// 'v' key) and its reference count (the 'n' key), two Badger reads a term.
// The terms a host touches write after write are mostly the same ones
// (predicates, graphs, members, the classes of its records, the subjects
// its agents work on), and the writers of a namespace are serialised (wmu):
// so the last delta knows those keys as it left them. nodeCache keeps them
// for the namespace's next delta, as long as nothing else has been
// committed to the store since.
//
// Validity rests on Badger's timestamps: every commit of the database takes
// the next one, and a transaction reads at the newest. After a delta whose
// transaction read at R commits, the cache holds what that delta left and is
// marked exact at R+1; the next delta uses it only if its transaction reads
// at exactly R+1, which holds only if that commit was the very next one and
// nothing (another namespace's write, an import, a journaled delta, a
// stream, a roll-back, a side-table write) committed since. Otherwise the
// cache is emptied. A delta that fails empties it too.
//
// Only nodes that existed before a delta are kept: a node the delta creates
// (a finding's own node, its timestamp) is rarely touched again. The cache
// holds at most nodeCacheMax nodes; past that it starts over. It is guarded
// by the namespace's wmu.
type nodeCache struct {
	ts uint64 // the read timestamp at which m is exact; 0: m is empty
	m  map[refs.ValueHash]cachedNode
}

// cachedNode is a node as the last delta left it.
type cachedNode struct {
	id    uint64
	refs  int64  // reference count, if known
	known bool   // refs is known
	vraw  []byte // the value of its 'v' key
}

// nodeCacheMax bounds the nodes of a cache (~150 bytes each with the map's
// overhead: ~2.5 MB at most per namespace written to). A host's working set
// of terms is smaller: in one run of cmd/hostload the cache held 2,055 nodes
// after the findings and 6,359 after the merges, and served 686 of 687 deltas.
const nodeCacheMax = 1 << 14

// at returns the cached nodes if they are exact for a transaction reading at
// ts, else nil (and the cache is emptied).
func (c *nodeCache) at(ts uint64) map[refs.ValueHash]cachedNode {
	if c.ts != 0 && c.ts == ts {
		return c.m
	}
	c.reset()
	return nil
}

// reset empties the cache.
func (c *nodeCache) reset() {
	c.ts = 0
	clear(c.m)
}

// committed records the nodes of w, a delta whose transaction read at ts
// and has committed.
func (c *nodeCache) committed(w *deltaWriter, ts uint64) {
	if c.ts != ts {
		clear(c.m) // w did not start from the cache: keep only what it read
	}
	if c.m == nil {
		c.m = make(map[refs.ValueHash]cachedNode, 1024)
	}
	for h, nd := range w.nodes {
		switch {
		case !nd.present || nd.isNew:
			// Absent, or created by w (see above): no entry to keep or
			// to forget.
		case nd.delta != 0 && nd.refs+nd.delta <= 0:
			delete(c.m, h) // freed
		default:
			cn := cachedNode{id: nd.id, vraw: nd.vraw, known: nd.known}
			if nd.known {
				cn.refs = nd.refs + nd.delta
			}
			c.m[h] = cn
		}
	}
	if len(c.m) > nodeCacheMax {
		clear(c.m)
	}
	c.ts = ts + 1
}

// deltaTx is the transaction of a delta: hidalgo's flat.Upgrade view of a
// badgerkv transaction (keys escaped with layout.Escape, as flat.Upgrade
// escapes them), kept here so that the delta knows its read timestamp (the
// node cache). It does not scan: a delta only reads and writes keys.
type deltaTx struct {
	tx  *badgerkv.Tx
	key []byte // scratch: badgerkv copies keys
	n   int    // keys written or deleted
}

var _ hkv.Tx = (*deltaTx)(nil)

func (tx *deltaTx) esc(k hkv.Key) []byte {
	tx.key = layout.Escape(tx.key[:0], k)
	return tx.key
}

func (tx *deltaTx) Get(ctx context.Context, k hkv.Key) (hkv.Value, error) {
	return tx.tx.Get(ctx, tx.esc(k))
}

func (tx *deltaTx) GetBatch(ctx context.Context, keys []hkv.Key) ([]hkv.Value, error) {
	return hkv.GetBatch(ctx, tx, keys)
}

func (tx *deltaTx) Put(k hkv.Key, v hkv.Value) error {
	tx.n++
	return tx.tx.Put(tx.esc(k), v)
}

// putIndex writes the key of quad ids in index i (layout.Index) = val,
// without building the key's parts; val is shared, not copied (the four
// index keys of a quad hold the same value), and must not change.
func (tx *deltaTx) putIndex(i int, ids [4]uint64, val []byte) error {
	tx.n++
	tx.key = layout.AppendIndexKey(tx.key[:0], i, ids)
	return tx.tx.PutShared(tx.key, val)
}

func (tx *deltaTx) Del(k hkv.Key) error {
	tx.n++
	return tx.tx.Del(tx.esc(k))
}

func (tx *deltaTx) Commit(ctx context.Context) error { return tx.tx.Commit(ctx) }
func (tx *deltaTx) Close() error                     { return tx.tx.Close() }

func (tx *deltaTx) Scan(hkv.Key) hkv.Iterator {
	return errIterator{errors.New("deltaTx: scan not supported")}
}
