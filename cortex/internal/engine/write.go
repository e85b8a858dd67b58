package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/cortexgraph/cortex/cortex/internal/badgerkv"
	"github.com/cortexgraph/cortex/cortex/internal/layout"

	"github.com/cayleygraph/cayley/graph/proto"
	"github.com/cayleygraph/cayley/graph/refs"
	"github.com/cayleygraph/quad"
	"github.com/cayleygraph/quad/pquads"
	hkv "github.com/hidal-go/hidalgo/kv"
)

// The delta writer applies a bounded delta (Apply, Update) in one transaction,
// in cayley graph/kv's on-disk format (see bulk.go for the key layout), while
// keeping the index invariant index-only scans rely on: an index key exists
// exactly when its quad is live. Removing a quad deletes its index keys, marks
// its log entry dead, decrements its nodes' reference counts and deletes nodes
// that are no longer used. (Cayley's own delete path leaves dead ids in the
// index lists forever, which makes every later read slower and rules out
// index-only scans; Cortex never uses it.)

// deltaNode is what the writer knows about one term during a transaction.
type deltaNode struct {
	id      uint64
	refs    int64 // reference count as stored (or 0 for a new node)
	delta   int64 // change to apply
	isNew   bool
	val     quad.Value
	known   bool   // refs has been read
	present bool   // the node exists (or is created) in this transaction
	vraw    []byte // the stored value of the node's 'v' key (existing nodes)
	nraw    []byte // the stored value of its 'n' key (when read and present)
}

type deltaWriter struct {
	ctx   context.Context
	tx    hkv.Tx
	nodes map[refs.ValueHash]*deltaNode
	byVal map[quad.Value]*deltaNode // nodes by term: saves hashing a term again
	pins  map[quad.Value]bool       // terms to pin (Delta.Pin), normalised
	side  *sideOps                  // side-table writes (Tx.PutSide...), or nil
	pre   *prefetched               // keys read ahead (journaled deltas), or nil
	// cached holds the nodes as the namespace's previous delta left them,
	// when they are still exact (nodecache.go), else nil.
	cached map[refs.ValueHash]cachedNode
	store  *Store // the store, when pre is used (its tuning and counters)
	// The nodes of each quad removed and added, when prefetchNodes looked
	// them up (journaled deltas), else nil.
	rmNodes, addNodes [][4]*deltaNode
	horizon           int64
	size              int64
	now               int64
	freed             bool // some node was deleted
}

// writeDelta applies removals then additions (already normalised and
// de-duplicated, with no quad in both) in one transaction. It reports whether
// nodes were deleted. The caller holds n.wmu.
func (n *Namespace) writeDelta(ctx context.Context, remove, add []quad.Quad, pins map[quad.Value]bool, side *sideOps) (freed bool, err error) {
	ft, err := n.view.TxContext(ctx, true) // ctx bounds the wait at the gate
	if err != nil {
		return false, err
	}
	btx := ft.(*badgerkv.Tx)
	tx := &deltaTx{tx: btx}
	defer tx.Close()
	ts := btx.ReadTs()
	defer func() {
		if err != nil {
			n.nodes.reset()
		}
	}()
	w := &deltaWriter{ctx: ctx, tx: tx, nodes: map[refs.ValueHash]*deltaNode{}, cached: n.nodes.at(ts), pins: pins, side: side, now: time.Now().UnixNano()}
	if err := w.apply(remove, add); err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if h := n.s.opts.hooks.delta; h != nil {
		h()
	}
	if err := tx.Commit(ctx); err != nil {
		return false, n.s.checkCommit(err)
	}
	n.lastEntries = int64(tx.n)
	n.nodes.committed(w, ts)
	return w.freed, nil
}

// apply stages removals then additions in w's transaction, and the meta
// entries.
func (w *deltaWriter) apply(remove, add []quad.Quad) error {
	var err error
	if w.horizon, err = w.metaInt(layout.Horizon); err != nil {
		return err
	}
	if w.size, err = w.metaInt(layout.Size); err != nil {
		return err
	}
	h0, s0 := w.horizon, w.size
	for i, q := range remove {
		if err := w.remove(q, termsAt(w.rmNodes, i)); err != nil {
			return err
		}
		if i%4096 == 4095 {
			if err := w.ctx.Err(); err != nil {
				return err
			}
		}
	}
	for i, q := range add {
		if err := w.add(q, termsAt(w.addNodes, i)); err != nil {
			return err
		}
		if i%4096 == 4095 {
			if err := w.ctx.Err(); err != nil {
				return err
			}
		}
	}
	if err := w.flushNodes(); err != nil {
		return err
	}
	if err := w.flushPins(); err != nil {
		return err
	}
	if err := w.flushSide(h0, s0); err != nil {
		return err
	}
	if err := w.putMetaInt(layout.Horizon, w.horizon); err != nil {
		return err
	}
	return w.putMetaInt(layout.Size, w.size)
}

func (w *deltaWriter) metaInt(k hkv.Key) (int64, error) {
	v, err := w.tx.Get(w.ctx, k)
	if errors.Is(err, hkv.ErrNotFound) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("%w: meta value of %d bytes", ErrCorrupt, len(v))
	}
	return int64(binary.LittleEndian.Uint64(v)), nil
}

func (w *deltaWriter) putMetaInt(k hkv.Key, v int64) error {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(v))
	return w.tx.Put(k, b[:])
}

// node returns the writer's record of v, reading its id if it exists.
func (w *deltaWriter) node(v quad.Value) (*deltaNode, error) {
	if nd, ok := w.byVal[v]; ok {
		return nd, nil
	}
	if w.byVal == nil {
		w.byVal = make(map[quad.Value]*deltaNode)
	}
	h := refs.HashOf(v)
	if nd, ok := w.nodes[h]; ok {
		w.byVal[v] = nd
		return nd, nil
	}
	if cn, ok := w.cached[h]; ok {
		nd := &deltaNode{val: v, id: cn.id, present: true, vraw: cn.vraw, refs: cn.refs, known: cn.known}
		w.nodes[h] = nd
		w.byVal[v] = nd
		return nd, nil
	}
	nd := &deltaNode{val: v}
	b, err := w.tx.Get(w.ctx, layout.Node('v', h))
	if err == nil {
		id, n := binary.Uvarint(b)
		if n <= 0 || id == 0 {
			return nil, fmt.Errorf("%w: node id of %s", ErrCorrupt, v)
		}
		nd.id, nd.present, nd.vraw = id, true, b
	} else if !errors.Is(err, hkv.ErrNotFound) {
		return nil, err
	}
	w.nodes[h] = nd
	w.byVal[v] = nd
	return nd, nil
}

// termsAt returns &all[i], or nil if all is nil.
func termsAt(all [][4]*deltaNode, i int) *[4]*deltaNode {
	if all == nil {
		return nil
	}
	return &all[i]
}

// quadNodes returns the nodes of q's terms and their ids, creating missing
// terms if create (else reporting false). known, if not nil, holds the
// nodes as prefetchNodes looked them up.
func (w *deltaWriter) quadNodes(q quad.Quad, create bool, known *[4]*deltaNode) ([4]*deltaNode, [4]uint64, bool, error) {
	var (
		nds [4]*deltaNode
		ids [4]uint64
	)
	for i, v := range [4]quad.Value{q.Subject, q.Predicate, q.Object, q.Label} {
		if v == nil {
			continue
		}
		var nd *deltaNode
		if known != nil {
			nd = known[i]
		} else {
			var err error
			if nd, err = w.node(v); err != nil {
				return nds, ids, false, err
			}
		}
		if !nd.present {
			if !create {
				return nds, ids, false, nil
			}
			w.horizon++
			nd.id, nd.isNew, nd.present, nd.known = uint64(w.horizon), true, true, true
		}
		nds[i], ids[i] = nd, nd.id
	}
	return nds, ids, true, nil
}

func (w *deltaWriter) ref(nd *deltaNode, d int64) {
	if nd != nil {
		nd.delta += d
	}
}

// exists returns the ids listed under the quad's full key in the first index
// (nil if the quad is not live), and the key's value.
func (w *deltaWriter) exists(ids [4]uint64) ([]uint64, []byte, error) {
	if b, ok := w.pre.indexValue(ids); ok {
		if b == nil {
			return nil, nil, nil
		}
		l, err := decodeIDList(b)
		return l, b, err
	}
	b, err := w.tx.Get(w.ctx, layout.Index(0, ids))
	if errors.Is(err, hkv.ErrNotFound) {
		return nil, nil, nil
	} else if err != nil {
		return nil, nil, err
	}
	l, err := decodeIDList(b)
	return l, b, err
}

func (w *deltaWriter) add(q quad.Quad, known *[4]*deltaNode) error {
	nds, ids, _, err := w.quadNodes(q, true, known)
	if err != nil {
		return err
	}
	// A quad with a node created by this delta does not exist yet (the
	// delta's additions are distinct).
	fresh := false
	for _, nd := range nds {
		fresh = fresh || nd != nil && nd.isNew
	}
	if !fresh {
		live, _, err := w.exists(ids)
		if err != nil || len(live) > 0 {
			return err
		}
	}
	w.horizon++
	prim := proto.Primitive{ID: uint64(w.horizon), Subject: ids[0], Predicate: ids[1], Object: ids[2], Label: ids[3], Timestamp: w.now}
	if err := w.putPrim(&prim, true); err != nil {
		return err
	}
	if ct, ok := w.tx.(*captureTx); ok {
		// (A captured delta copies keys and values into its buffers.)
		var vb [binary.MaxVarintLen64]byte
		val := binary.AppendUvarint(vb[:0], prim.ID)
		for i := range layout.Indexes {
			o := layout.IndexIDs(layout.Indexes[i], ids)
			ct.buf().AddIndex(layout.IndexBuckets[i], o[:len(layout.Indexes[i].Dirs)], val)
		}
	} else if dt, ok := w.tx.(*deltaTx); ok {
		// (The common case: a delta of one transaction. Its four index
		// keys share one value, and are escaped as they are built.)
		val := binary.AppendUvarint(nil, prim.ID)
		for i := range layout.Indexes {
			if err := dt.putIndex(i, ids, val); err != nil {
				return err
			}
		}
	} else {
		val := binary.AppendUvarint(nil, prim.ID)
		for i := range layout.Indexes {
			if err := w.putFresh(layout.Index(i, ids), val); err != nil {
				return err
			}
		}
	}
	for _, nd := range nds {
		w.ref(nd, +1)
	}
	w.size++
	return nil
}

func (w *deltaWriter) remove(q quad.Quad, known *[4]*deltaNode) error {
	nds, ids, ok, err := w.quadNodes(q, false, known)
	if err != nil || !ok {
		return err
	}
	live, ival, err := w.exists(ids)
	if err != nil || len(live) == 0 {
		return err
	}
	for _, qid := range live {
		b, err := w.pre.logEntry(w.ctx, w.tx, qid)
		if errors.Is(err, hkv.ErrNotFound) {
			continue
		} else if err != nil {
			return err
		}
		var prim proto.Primitive
		if err := prim.Unmarshal(b); err != nil {
			return fmt.Errorf("%w: log entry %d: %v", ErrCorrupt, qid, err)
		}
		if prim.Deleted {
			continue
		}
		prim.Deleted = true
		nb, err := prim.Marshal()
		if err != nil {
			return err
		}
		if err := w.writeKnown(layout.Log(qid), nb, false, b); err != nil {
			return err
		}
	}
	// Every index holds the same value for a quad (Check checks).
	for i := range layout.Indexes {
		if err := w.writeKnown(layout.Index(i, ids), nil, true, ival); err != nil {
			return err
		}
	}
	for _, nd := range nds {
		w.ref(nd, -1)
	}
	w.size--
	return nil
}

// putPrim writes a log entry; fresh says it is a new one (see putFresh).
func (w *deltaWriter) putPrim(p *proto.Primitive, fresh bool) error {
	b, err := p.Marshal()
	if err != nil {
		return err
	}
	if fresh {
		return w.putFresh(layout.Log(p.ID), b)
	}
	return w.tx.Put(layout.Log(p.ID), b)
}

// writeKnown writes k = v (or deletes k) whose current value old the writer
// has read: a journaled delta records it without reading it again.
func (w *deltaWriter) writeKnown(k hkv.Key, v []byte, del bool, old []byte) error {
	if kt, ok := w.tx.(interface {
		writeKnown(k hkv.Key, v []byte, del bool, old []byte) error
	}); ok {
		return kt.writeKnown(k, v, del, old)
	}
	if del {
		return w.tx.Del(k)
	}
	return w.tx.Put(k, v)
}

// delete deletes k, which may not exist. A journaled delta that read k
// ahead (prefetch) records its previous value without reading it again, and
// writes nothing if it does not exist.
func (w *deltaWriter) delete(k hkv.Key) error {
	if old, ok := w.pre.value(k); ok {
		if old == nil {
			return nil
		}
		return w.writeKnown(k, nil, true, old)
	}
	return w.tx.Del(k)
}

// deletePin deletes the pin of node id if it has one. Most freed terms have
// none: a blind delete would leave a deletion marker in the pin table for
// each, which readers of the table step over until a compaction drops it.
func (w *deltaWriter) deletePin(id uint64) error {
	k := layout.Pin(id)
	if _, ok := w.pre.value(k); ok {
		return w.delete(k)
	}
	if _, err := w.tx.Get(w.ctx, k); errors.Is(err, hkv.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	return w.tx.Del(k)
}

// putFresh writes a key that did not exist when the delta began: a new
// quad's log entry and index keys (ids only grow; removals come first and no
// quad is both removed and added), a new node's keys. A journaled delta
// (journal.go) need not record its previous value.
func (w *deltaWriter) putFresh(k hkv.Key, v []byte) error {
	if ft, ok := w.tx.(interface{ putFresh(hkv.Key, []byte) error }); ok {
		return ft.putFresh(k, v)
	}
	return w.tx.Put(k, v)
}

// flushNodes writes the reference counts of touched nodes, creates new ones and
// deletes those no longer used.
func (w *deltaWriter) flushNodes() error {
	if ct, ok := w.tx.(*captureTx); ok {
		// Room for the previous counts it records (~10^5 in a big merge).
		n := 0
		for _, nd := range w.nodes {
			if nd.delta != 0 && nd.present && !nd.isNew {
				n++
			}
		}
		ct.old = slices.Grow(ct.old, n)
	}
	for h, nd := range w.nodes {
		if nd.delta == 0 || !nd.present {
			continue
		}
		if !nd.known {
			b, err := w.tx.Get(w.ctx, layout.Node('n', h))
			if err == nil {
				c, n := binary.Uvarint(b)
				if n <= 0 {
					return fmt.Errorf("%w: reference count of %s", ErrCorrupt, nd.val)
				}
				nd.refs, nd.nraw = int64(c), b
			} else if !errors.Is(err, hkv.ErrNotFound) {
				return err
			}
			nd.known = true
		}
		c := nd.refs + nd.delta
		if c <= 0 {
			if nd.isNew {
				continue // created and dropped in this transaction
			}
			w.freed = true
			err := w.writeKnown(layout.Node('v', h), nil, true, nd.vraw)
			if err == nil && nd.nraw != nil {
				err = w.writeKnown(layout.Node('n', h), nil, true, nd.nraw)
			} else if err == nil && w.pre == nil {
				err = w.tx.Del(layout.Node('n', h)) // (read ahead: known to be absent)
			}
			if err == nil {
				err = w.delete(layout.Log(nd.id))
			}
			if err == nil {
				err = w.deletePin(nd.id) // a freed term's pin goes with it (Delta.Pin)
			}
			if err != nil {
				return err
			}
			continue
		}
		if nd.isNew {
			if err := w.putFresh(layout.Node('n', h), binary.AppendUvarint(nil, uint64(c))); err != nil {
				return err
			}
		} else if nd.nraw != nil {
			if err := w.writeKnown(layout.Node('n', h), binary.AppendUvarint(nil, uint64(c)), false, nd.nraw); err != nil {
				return err
			}
		} else if w.pre != nil {
			// Read ahead and absent: nothing to record.
			if err := w.putFresh(layout.Node('n', h), binary.AppendUvarint(nil, uint64(c))); err != nil {
				return err
			}
		} else if err := w.tx.Put(layout.Node('n', h), binary.AppendUvarint(nil, uint64(c))); err != nil {
			return err
		}
		if nd.isNew {
			b, err := pquads.MarshalValue(nd.val)
			if err != nil {
				return err
			}
			if err := w.putFresh(layout.Node('v', h), binary.AppendUvarint(nil, nd.id)); err != nil {
				return err
			}
			if err := w.putPrim(&proto.Primitive{ID: nd.id, Value: b, Timestamp: w.now}, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// flushPins writes the pins of the pinned terms the delta creates (see
// Delta.Pin); flushNodes deletes the pin of every term it frees.
func (w *deltaWriter) flushPins() error {
	for v := range w.pins {
		nd := w.byVal[v]
		if nd == nil || !nd.isNew || nd.delta <= 0 {
			continue // not created by the delta (or created and dropped)
		}
		b, err := layout.PinValue(nd.id, nd.val)
		if err != nil {
			return err
		}
		if err := w.putFresh(layout.Pin(nd.id), b); err != nil {
			return err
		}
	}
	return nil
}

// decodeIDList is layout.DecodeIDList, its errors matching ErrCorrupt.
func decodeIDList(b []byte) ([]uint64, error) {
	ids, err := layout.DecodeIDList(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return ids, nil
}
