package engine

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/cortexgraph/cortex/cortex/internal/layout"

	"github.com/cayleygraph/cayley/graph/refs"
	"github.com/cayleygraph/quad"
	"github.com/dgraph-io/badger/v4"
	hkv "github.com/hidal-go/hidalgo/kv"
)

// A journaled delta references many existing terms (a merge: the findings,
// subjects and agents its provenance points to). Reading each term's id and
// reference count with a point read (Badger checks every level for it) cost
// ~14 µs per key on a 2-core machine; prefetchNodes reads them all in key
// order through iterators of the capture's snapshot instead (one per key
// range, GOMAXPROCS ranges at once when there are many), stepping over near
// keys, before the delta is applied. It also records each quad's nodes, so
// that applying the delta never looks a term up again.

// prefetchStep is how many keys prefetchNodes steps over (Next) before it
// seeks instead.
const prefetchStep = 16

// prefetched is what a journaled delta read ahead (prefetch): the values
// of the index keys (first index) of its quads whose terms all exist, nil
// for a quad that is not live; the log entries of the live quads it removes
// and of the existing terms of those quads (which it may free), and their
// pins.
type prefetched struct {
	index map[[4]uint64][]byte
	log   map[uint64][]byte // log entries: of live quads removed, of nodes that may be freed
	other map[string][]byte // other keys (escaped, without the namespace prefix), nil if absent
}

// prefetch reads ahead, from txn (the snapshot w's transaction reads), what
// applying remove and add will read: for every term, whether it exists and
// its id and reference count (as node and flushNodes read them); for every
// quad whose terms all exist, its key in the first index (as exists reads
// it); for every live quad removed, its log entry (as remove reads it).
func (w *deltaWriter) prefetch(ctx context.Context, txn *badger.Txn, prefix []byte, remove, add []quad.Quad) error {
	opts := badger.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.Prefix = prefix
	// (Iterators of a read-only transaction may be used at once.)
	it := func() (*badger.Iterator, error) { return newIterator(w.store, txn, opts) }
	if err := w.prefetchNodes(ctx, it, prefix, remove, add); err != nil {
		return err
	}
	// Index keys of the quads whose terms all exist.
	w.pre = &prefetched{index: map[[4]uint64][]byte{}, log: map[uint64][]byte{}, other: map[string][]byte{}}
	var ikeys []keyWant
	var iids [][4]uint64
	for _, all := range [2][][4]*deltaNode{w.rmNodes, w.addNodes} {
		for k := range all {
			ids, ok := existingIDs(&all[k])
			if !ok {
				continue
			}
			if _, dup := w.pre.index[ids]; dup {
				continue
			}
			w.pre.index[ids] = nil
			ikeys = append(ikeys, keyWant{key: layout.Escape(slices.Clip(prefix), layout.Index(0, ids)), slot: len(iids)})
			iids = append(iids, ids)
		}
	}
	ivals, err := readKeys(ctx, w.store, it, ikeys)
	if err != nil {
		return err
	}
	for k, v := range ivals {
		w.pre.index[iids[ikeys[k].slot]] = v
	}
	// Log entries of the live quads removed.
	var lkeys []keyWant
	var lids []uint64
	for k := range w.rmNodes {
		ids, ok := existingIDs(&w.rmNodes[k])
		if !ok {
			continue
		}
		live, err := decodeIDList(w.pre.index[ids])
		if err != nil {
			return err
		}
		for _, qid := range live {
			lkeys = append(lkeys, keyWant{key: layout.Escape(slices.Clip(prefix), layout.Log(qid)), slot: len(lids)})
			lids = append(lids, qid)
		}
	}
	lvals, err := readKeys(ctx, w.store, it, lkeys)
	if err != nil {
		return err
	}
	for k, v := range lvals {
		if v != nil {
			w.pre.log[lids[lkeys[k].slot]] = v
		}
	}
	// The log entries and pins of the existing terms of removed quads: the
	// terms the delta may free (flushNodes deletes both).
	var okeys []keyWant
	var onames [][]byte
	seen := map[uint64]bool{}
	for _, nds := range w.rmNodes {
		for _, nd := range nds {
			if nd == nil || !nd.present || seen[nd.id] {
				continue
			}
			seen[nd.id] = true
			for _, k := range []hkv.Key{layout.Log(nd.id), layout.Pin(nd.id)} {
				name := layout.Escape(nil, k)
				okeys = append(okeys, keyWant{key: append(slices.Clip(prefix), name...), slot: len(onames)})
				onames = append(onames, name)
			}
		}
	}
	ovals, err := readKeys(ctx, w.store, it, okeys)
	if err != nil {
		return err
	}
	for k, v := range ovals {
		w.pre.other[string(onames[okeys[k].slot])] = v
	}
	return nil
}

// existingIDs returns the ids of a quad's terms (nds, as prefetchNodes
// recorded them) if they all exist.
func existingIDs(nds *[4]*deltaNode) ([4]uint64, bool) {
	var ids [4]uint64
	for i, nd := range nds {
		if nd == nil {
			continue
		}
		if !nd.present {
			return ids, false
		}
		ids[i] = nd.id
	}
	return ids, true
}

// keyWant is a key to read ahead; slot is the caller's index for it.
type keyWant struct {
	key  []byte
	slot int
	head uint64 // sortKeyWants: 8 bytes of key after the common prefix
}

// sortKeyWants sorts wants by key. The keys share a long prefix (the
// namespace's, a bucket's); comparing the next 8 bytes as one integer first
// makes the sort about three times faster than comparing keys.
func sortKeyWants(wants []keyWant) {
	if len(wants) < 2 {
		return
	}
	common := wants[0].key
	for _, wt := range wants[1:] {
		n := 0
		for n < len(common) && n < len(wt.key) && common[n] == wt.key[n] {
			n++
		}
		common = common[:n]
	}
	for i := range wants {
		wants[i].head = keyHead(wants[i].key[len(common):])
	}
	slices.SortFunc(wants, func(a, b keyWant) int {
		if a.head != b.head {
			return cmp.Compare(a.head, b.head)
		}
		return bytes.Compare(a.key, b.key)
	})
}

// keyHead returns the first 8 bytes of b as a big-endian integer, padded
// with zeros: a < b whenever keyHead(a) < keyHead(b).
func keyHead(b []byte) uint64 {
	if len(b) >= 8 {
		return binary.BigEndian.Uint64(b)
	}
	var pad [8]byte
	copy(pad[:], b)
	return binary.BigEndian.Uint64(pad[:])
}

// readKeys sorts wants by key and returns the value of each (nil if absent),
// in the sorted order, reading them in key order through iterators that
// newIt returns: stepping over near keys, seeking across larger gaps. Many
// keys are read in up to GOMAXPROCS ranges at once, an iterator each, each
// range of at least s's Tuning.ParallelReadMin keys.
func readKeys(ctx context.Context, s *Store, newIt func() (*badger.Iterator, error), wants []keyWant) ([][]byte, error) {
	sortKeyWants(wants)
	vals := make([][]byte, len(wants))
	parts := min(runtime.GOMAXPROCS(0), len(wants)/s.tune.ParallelReadMin)
	if parts <= 1 {
		it, err := newIt()
		if err != nil {
			return nil, err
		}
		defer it.Close()
		return vals, readRange(ctx, it, wants, vals)
	}
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*len(wants)/parts, (p+1)*len(wants)/parts
		it, err := newIt()
		if err != nil {
			errs[p] = err
			break
		}
		s.counters.parallelReads.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer it.Close()
			errs[p] = readRange(ctx, it, wants[lo:hi], vals[lo:hi])
		}()
	}
	wg.Wait()
	return vals, errors.Join(errs...)
}

// readRange reads the values of wants (sorted by key) into vals through it.
func readRange(ctx context.Context, it *badger.Iterator, wants []keyWant, vals [][]byte) error {
	positioned := false
	for k, wt := range wants {
		if k%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if k > 0 && bytes.Equal(wt.key, wants[k-1].key) {
			vals[k] = vals[k-1]
			continue
		}
		if positioned {
			for steps := 0; it.Valid() && bytes.Compare(it.Item().Key(), wt.key) < 0; steps++ {
				if steps == prefetchStep {
					it.Seek(wt.key)
					break
				}
				it.Next()
			}
		} else {
			it.Seek(wt.key)
			positioned = true
		}
		if !it.Valid() || !bytes.Equal(it.Item().Key(), wt.key) {
			continue // no such key
		}
		b, err := it.Item().ValueCopy(nil)
		if err != nil {
			return err
		}
		vals[k] = b
	}
	return nil
}

// prefetchNodes records in w, for every term of remove and add, whether it
// exists and, if so, its id and reference count, and each quad's nodes
// (w.rmNodes, w.addNodes), so that nothing after it looks a term up again.
func (w *deltaWriter) prefetchNodes(ctx context.Context, it func() (*badger.Iterator, error), prefix []byte, remove, add []quad.Quad) error {
	// Sized for about one new term per quad (a merge's records); a
	// delta's terms repeat a lot, so the maps rarely grow.
	est := len(remove) + len(add)
	if w.byVal == nil {
		w.byVal = make(map[quad.Value]*deltaNode, est)
	}
	if len(w.nodes) == 0 {
		w.nodes = make(map[refs.ValueHash]*deltaNode, est)
	}
	var (
		wants = make([]keyWant, 0, 2*est)
		nds   = make([]*deltaNode, 0, est)
	)
	visit := func(v quad.Value) *deltaNode {
		if nd, ok := w.byVal[v]; ok {
			return nd
		}
		h := refs.HashOf(v)
		nd, ok := w.nodes[h]
		if !ok {
			nd = &deltaNode{val: v}
			w.nodes[h] = nd
		}
		w.byVal[v] = nd
		if ok {
			return nd
		}
		// slot 2i: node i's id ('v' key), 2i+1: its reference count.
		wants = append(wants,
			keyWant{key: layout.Escape(slices.Clip(prefix), layout.Node('v', h)), slot: 2 * len(nds)},
			keyWant{key: layout.Escape(slices.Clip(prefix), layout.Node('n', h)), slot: 2*len(nds) + 1})
		nds = append(nds, nd)
		return nd
	}
	// Consecutive quads often share a term in a position (a record's
	// subject, the graph): the last term of each position is compared
	// before the map is asked.
	var (
		last   [4]quad.Value
		lastND [4]*deltaNode
	)
	nodesOf := func(qs []quad.Quad) [][4]*deltaNode {
		all := make([][4]*deltaNode, len(qs))
		for k, q := range qs {
			for i, v := range [4]quad.Value{q.Subject, q.Predicate, q.Object, q.Label} {
				if v == nil {
					continue
				}
				if v != last[i] {
					last[i], lastND[i] = v, visit(v)
				}
				all[k][i] = lastND[i]
			}
		}
		return all
	}
	w.rmNodes, w.addNodes = nodesOf(remove), nodesOf(add)
	vals, err := readKeys(ctx, w.store, it, wants)
	if err != nil {
		return err
	}
	for k, b := range vals {
		if b == nil {
			continue
		}
		nd := nds[wants[k].slot/2]
		x, n := binary.Uvarint(b)
		if wants[k].slot%2 == 1 {
			if n <= 0 {
				return fmt.Errorf("%w: reference count of %s", ErrCorrupt, nd.val)
			}
			nd.refs, nd.nraw = int64(x), b
			continue
		}
		if n <= 0 || x == 0 {
			return fmt.Errorf("%w: node id of %s", ErrCorrupt, nd.val)
		}
		nd.id, nd.present, nd.vraw = x, true, b
	}
	// What node and flushNodes would have read: an existing node's count
	// is known (0 and absent if it has no 'n' key); a missing term stays
	// unknown until the delta creates it.
	for _, nd := range nds {
		if nd.present {
			nd.known = true
		} else {
			nd.refs, nd.nraw = 0, nil
		}
	}
	return nil
}

// indexValue returns the prefetched value of the first index key of ids
// (nil: not live) and whether it was prefetched. Nodes created by the delta
// are never prefetched: their quads are new.
func (p *prefetched) indexValue(ids [4]uint64) ([]byte, bool) {
	if p == nil {
		return nil, false
	}
	b, ok := p.index[ids]
	return b, ok
}

// logEntry returns log entry qid, prefetched or read through tx.
func (p *prefetched) logEntry(ctx context.Context, tx hkv.Tx, qid uint64) ([]byte, error) {
	if p != nil {
		if b, ok := p.log[qid]; ok {
			return b, nil
		}
	}
	return tx.Get(ctx, layout.Log(qid))
}

// value returns the prefetched value of key k of a term the delta may free
// (nil: absent) and whether it was prefetched.
func (p *prefetched) value(k hkv.Key) ([]byte, bool) {
	if p == nil {
		return nil, false
	}
	b, ok := p.other[string(layout.Escape(nil, k))]
	return b, ok
}
