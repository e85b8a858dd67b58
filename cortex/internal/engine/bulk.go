package engine

import (
	"github.com/cortexgraph/cortex/cortex/internal/sorted"

	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/cortexgraph/cortex/cortex/internal/layout"

	ckv "github.com/cayleygraph/cayley/graph/kv"
	"github.com/cayleygraph/cayley/graph/proto"
	"github.com/cayleygraph/cayley/graph/refs"
	"github.com/cayleygraph/quad"
	"github.com/dgraph-io/badger/v4"
	hkv "github.com/hidal-go/hidalgo/kv"

	"github.com/cortexgraph/cortex/cortex/internal/badgerkv"
)

// The bulk writer stores chunks of quads in exactly the on-disk format of
// cayley's graph/kv quadstore (graph/kv/indexing.go), so that cayley reads the
// data back and later cayley deltas (additions and removals) work on it, but
// without cayley's per-quad reads:
//
//	v<h0><h1>/<hash>     node id, uvarint                   (hash = refs.HashOf(term))
//	n<h0><h1>/<hash>     node reference count, uvarint      (one per quad direction using the node)
//	log/<id, 8 bytes BE> proto.Primitive: a node (ID, Value, Timestamp) or a quad
//	                     (ID, Subject, Predicate, Object, Label, Timestamp)
//	<dirs>/<ids BE>      index: appended uvarint quad ids, ascending (QuadIndex.KeyFor)
//	meta/horizon         last id allocated, int64 little-endian (nodes and quads share it)
//	meta/size            number of quads, int64 little-endian
//	pin/<id, 8 bytes BE> Cortex's own (cayley ignores it): a pinned node's log entry (ID, Value;
//	                     Delta.Pin), written by deltas, deleted with the node
//
// Keys are the namespace prefix followed by the key escaped as hidalgo's
// flat.Upgrade escapes it for cayley (escapeKey); they are written to Badger
// directly (bulkTxn), one transaction per chunk, so a chunk is atomic.
//
// # Pipeline
//
// Chunk k+1 is filled while chunk k commits (Badger's asynchronous commit).
// Namespace.wmu is held from the moment chunk k's state is read until its
// commit has completed, so other writers only ever see whole chunks. The fill
// of chunk k+1 is speculative: it assumes that no other writer gets the lock
// between k and k+1, reads through a snapshot taken just before k's commit and
// takes what k wrote from k's in-memory writes; if another writer did write,
// it is redone under the lock (see submit and fill).
//
// # Avoiding reads
//
// An import keeps bounded in-memory knowledge of what it wrote: the ids (and
// reference counts) of the nodes it created or looked up, hashes of the index
// keys it wrote and hashes of the quads it inserted. Something the import
// does not know about may still exist in the store unless
//
//   - the namespace was empty (horizon 0) when the import started and no
//     other writer has written since ("knownAll"), or
//   - it involves a node id above privateFrom: ids the import allocated after
//     the last write of any other writer, which nobody else can have used yet.
//
// In those cases no read is needed; otherwise the writer reads (batched) node
// ids, reference counts, index lists and, for quads whose nodes all existed,
// checks existence through the most selective index and the log, as cayley's
// hasPrimitive does. An index key the import has written before is always
// read and appended to; for an index covering all four positions (a key per
// quad) that cannot happen, so those keys are not remembered.
//
// Other writers interleave between chunks. Namespace.writeGen and removeGen
// tell the import about them: after any foreign write the import forgets the
// reference counts it knew and knownAll/privateFrom are recomputed; after a
// foreign removal (which may delete nodes) it forgets everything.

// The per-import maps are bounded by Tuning.ImportMaxNodes, ImportMaxKeys and
// ImportMaxQuads; when one is exceeded after a chunk, all are cleared and the
// import falls back to reads for what it wrote so far.

// bulkNode is what an import knows about a node.
type bulkNode struct {
	id    uint64
	refs  uint64 // reference count; valid only if epoch == bulkState.epoch
	epoch uint32
}

// bulkState is the state of one import. It is used by one goroutine; the
// namespace state it reads is guarded by Namespace.wmu, held for each chunk.
type bulkState struct {
	n       *Namespace
	prefix  []byte // the namespace's key prefix in the Badger database
	inds    []ckv.QuadIndex
	buckets [][]byte // bucket (first key part) of each index
	exist   int      // index used for existence checks: the one with most directions
	// full[i]: index i covers all four directions, so its key is the quad's
	// identity. Such a key can exist only if the quad does (or did, and
	// was removed by cayley's delete path, which leaves the key with dead
	// ids): an import never writes one twice, so it need not remember them.
	full []bool

	// fitQuads is how many quads a piece of a chunk may hold (0: no chunk
	// of this import has been cut yet): set when a piece does not fit in a
	// Badger transaction, then estimated from each piece written (noteFit);
	// later chunks are cut to it before they are prepared (inPieces).
	fitQuads int

	started     bool
	knownAll    bool
	privateFrom uint64
	resync      bool // set privateFrom from the horizon at the next chunk
	writeGen    uint64
	removeGen   uint64
	epoch       uint32

	nodes map[refs.ValueHash]bulkNode
	keys  map[uint64]struct{}
	quads map[uint64]struct{}

	// Segment mode (segments.go, importSegments): chunks are computed
	// without writing, against the namespace as the segment found it, and
	// written together. exact holds the quads inserted by the current
	// segment (which the store does not show yet).
	accum bool
	exact map[[4]uint64]struct{}
	// Values the segment overwrites: the meta entries at its start and the
	// reference counts of the nodes it uses and did not create.
	segHorizon, segSize int64
	segOld              map[refs.ValueHash]int64

	// Pipelining: while a chunk commits (pending; n.wmu stays locked until
	// the commit completes), the next one is prepared speculatively in the
	// other chunkWork, assuming that no other writer writes in between; that
	// is checked under the lock and the chunk redone if it failed.
	works    [2]chunkWork
	cur      int // index of the chunkWork to fill next
	pending  *pendingCommit
	nextTx   *bulkTxn // for the speculative fill; started before pending's commit
	horizon  int64    // meta horizon and size after this import's last chunk
	size     int64
	progress func(committed int64)
}

// pendingCommit is a chunk whose commit is in flight.
type pendingCommit struct {
	done  chan struct{} // closed when the commit has completed
	err   error         // commit error, valid after done
	count int           // source quads the chunk accounts for
	ends  bool          // last part of a source chunk: report progress
}

func newBulkState(ctx context.Context, n *Namespace) (*bulkState, error) {
	inds, err := readIndexes(ctx, n.kvCtx(ctx))
	if err != nil {
		return nil, err
	}
	st := &bulkState{n: n, inds: inds, epoch: 1}
	for i, ind := range inds {
		st.buckets = append(st.buckets, ind.Key(nil)[0])
		var dirs uint8
		for _, d := range ind.Dirs {
			dirs |= 1 << layout.DirIndex(d)
		}
		st.full = append(st.full, dirs == 0b1111)
		if len(ind.Dirs) > len(inds[st.exist].Dirs) {
			st.exist = i
		}
	}
	st.prefix = []byte(dataPrefix + n.name + "/")
	st.works[0].puts.Prefix = st.prefix
	st.works[1].puts.Prefix = st.prefix
	st.clearMaps()
	return st, nil
}

// readIndexes reads the quad indexes of a namespace as cayley does
// (readIndexesMeta): a namespace without the meta entry uses cayley's legacy
// indexes.
func readIndexes(ctx context.Context, db hkv.KV) ([]ckv.QuadIndex, error) {
	var inds []ckv.QuadIndex
	var raw []byte
	err := hkv.View(db, func(tx hkv.Tx) error {
		v, err := tx.Get(ctx, layout.IndexList)
		if errors.Is(err, hkv.ErrNotFound) {
			return nil
		}
		raw = v
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read indexes: %w", err) // (not the data's fault)
	}
	if raw != nil {
		if err := json.Unmarshal(raw, &inds); err != nil {
			return nil, fmt.Errorf("%w: read indexes: %v", ErrCorrupt, err)
		}
	}
	if len(inds) == 0 {
		inds = []ckv.QuadIndex{{Dirs: []quad.Direction{quad.Subject}}, {Dirs: []quad.Direction{quad.Object}}}
	}
	for _, ind := range inds {
		if len(ind.Dirs) == 0 || len(ind.Dirs) > 4 {
			return nil, fmt.Errorf("%w: index %v", ErrCorrupt, ind.Dirs)
		}
	}
	return inds, nil
}

func (st *bulkState) clearMaps() {
	st.nodes = make(map[refs.ValueHash]bulkNode)
	st.keys = make(map[uint64]struct{})
	st.quads = make(map[uint64]struct{})
}

// forget drops everything the import knows; the next chunk reads what it needs.
func (st *bulkState) forget() {
	st.clearMaps()
	st.knownAll = false
	st.resync = true
}

// sync updates the import's knowledge at the start of a chunk, given the
// horizon in the chunk's transaction. n.wmu is held.
func (st *bulkState) sync(horizon uint64) {
	n := st.n
	if !st.started {
		st.started = true
		st.knownAll = horizon == 0
		st.privateFrom = horizon
		st.writeGen, st.removeGen = n.writeGen, n.removeGen
		return
	}
	if n.removeGen != st.removeGen {
		st.forget() // nodes may have been deleted
	} else if n.writeGen != st.writeGen {
		st.epoch++ // reference counts may have changed
		st.knownAll = false
		st.resync = true
	}
	st.writeGen, st.removeGen = n.writeGen, n.removeGen
	if st.resync {
		st.resync = false
		st.privateFrom = horizon
	}
}

// private reports whether a key or quad over ids cannot exist unless this
// import wrote it.
func (st *bulkState) private(ids []uint64) bool {
	if st.knownAll {
		return true
	}
	for _, id := range ids {
		if id > st.privateFrom {
			return true
		}
	}
	return false
}

// errChunkTooBig means a chunk does not fit in one Badger transaction; nothing
// was written. It wraps badger.ErrTxnTooBig.
var errChunkTooBig = fmt.Errorf("bulk chunk: %w", badger.ErrTxnTooBig)

// chunkWork holds the per-chunk scratch data of the writer.
type chunkWork struct {
	used      []bool
	ids       []uint64
	isNew     []bool
	refsKnown []bool
	refs      []uint64 // current count (if known)
	inc       []uint64 // increment from this chunk's inserted quads

	horizon, size int64      // meta values after the chunk
	qs            []prepQuad // the chunk's quads (w.ins indexes them)

	ins    []int // indexes (into the chunk's quads) of quads to insert
	insIDs []uint64
	groups map[groupKey]int // keys of partial indexes (a full index has a key per quad)
	glist  []keyGroup
	insSet map[[4]uint64]struct{} // ids of the inserted quads, built by inserted

	puts sorted.PutBuf
}

// groupKey identifies an index key: the index and the ids of its directions.
type groupKey struct {
	ind int
	ids [4]uint64
}

// keyGroup is an index key of a chunk and the quad ids appended to it.
type keyGroup struct {
	key   groupKey
	first uint64
	more  []uint64
	read  bool   // existing list must be read
	old   []byte // existing list
	ent   int    // index of the key's entry in puts
}

// quadIDsOf returns the node ids of a quad in quad.Directions order.
func (w *chunkWork) quadIDsOf(q prepQuad) [4]uint64 {
	var ids [4]uint64
	for d, ni := range q {
		if ni >= 0 {
			ids[d] = w.ids[ni]
		}
	}
	return ids
}

func (st *bulkState) indexKey(k groupKey) hkv.Key {
	nd := len(st.inds[k.ind].Dirs)
	b := make([]byte, 8*nd)
	for i := 0; i < nd; i++ {
		binary.BigEndian.PutUint64(b[8*i:], k.ids[i])
	}
	return hkv.Key{st.buckets[k.ind], b}
}

// mix64 is a 64-bit finaliser (splitmix64); hashKey and hashQuad feed the
// membership sets, where a collision costs only an extra read.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func hashIDs(seed uint64, ids [4]uint64) uint64 {
	h := mix64(seed + 0x9e3779b97f4a7c15)
	for _, id := range ids {
		h = mix64(h ^ id)
	}
	return h
}

func hashQuad(ids [4]uint64) uint64 { return hashIDs(0xfeed, ids) }

func hashKey(k groupKey) uint64 { return hashIDs(uint64(k.ind), k.ids) }

// submit writes the quads qs of chunk c (a subset of c.quads, accounting for
// count source quads) in one transaction whose commit completes
// asynchronously; n.wmu is held from the moment the chunk's state is read
// until its commit has completed. It first waits for the previous chunk's
// commit, reporting it in res. It returns errChunkTooBig, having written
// nothing, if the quads do not fit in one Badger transaction.
func (st *bulkState) submit(ctx context.Context, c *prepChunk, qs []prepQuad, count int, ends bool, res *ImportResult) error {
	n := st.n
	w := &st.works[st.cur]
	var tx *bulkTxn
	if st.pending != nil && st.nextTx != nil && !st.resync {
		// A transaction started now would wait for the pending commit
		// (Badger's read timestamps), so use the one started before it: its
		// snapshot lacks only what the pending chunk wrote.
		tx, st.nextTx = st.nextTx, nil
		err := st.fill(ctx, tx, w, c, qs, &st.works[1-st.cur])
		if err != nil {
			tx.end()
			return err // errChunkTooBig or a failure of the chunk itself
		}
	}
	if err := st.flush(res); err != nil {
		if tx != nil {
			tx.end()
		}
		return err
	}
	if !n.wmu.TryLock() {
		// Never wait for the lock holding a transaction: the holder may be
		// a streamed import waiting for every transaction to end.
		if tx != nil {
			tx.end()
			tx = nil
			st.n.s.counters.redo.Add(1)
		}
		if err := n.lockWriteCtx(ctx); err != nil {
			return err
		}
	}
	unlock := true
	defer func() {
		if unlock {
			n.wmu.Unlock()
		}
	}()
	err := ctx.Err()
	if err == nil {
		err = n.s.checkOpen()
	}
	if err == nil && n.s.opts.readOnly {
		err = fmt.Errorf("namespace %s: %w", n.name, ErrReadOnly)
	}
	if tx != nil && (err != nil || n.writeGen != st.writeGen || n.removeGen != st.removeGen) {
		tx.end() // another writer wrote: redo the chunk with reads
		tx = nil
		st.n.s.counters.redo.Add(1)
	} else if tx != nil {
		st.n.s.counters.spec.Add(1)
	}
	if err != nil {
		return err
	}
	if tx == nil {
		if tx, err = st.newTxn(ctx); err != nil {
			return err
		}
		if err := st.fill(ctx, tx, w, c, qs, nil); err != nil {
			tx.end()
			if !errors.Is(err, errChunkTooBig) {
				st.forget()
			}
			return err
		}
	}
	// The chunk is committed (or fails) before anyone else takes the lock.
	n.writeGen++
	st.writeGen = n.writeGen
	st.horizon, st.size = w.horizon, w.size
	st.merge(w, c, qs) // undone by forget if the commit fails
	p := &pendingCommit{done: make(chan struct{}), count: count, ends: ends}
	st.pending = p
	st.cur = 1 - st.cur
	st.discardNext()
	st.nextTx, _ = st.newTxn(ctx) // nil if the store is closing: the next chunk then fails to start
	unlock = false
	tx.txn.CommitWith(func(err error) {
		p.err = n.s.checkCommit(err)
		close(p.done)
		n.wmu.Unlock()
	})
	return nil
}

// flush waits for the pending commit, if any, and reports it in res.
func (st *bulkState) flush(res *ImportResult) error {
	p := st.pending
	if p == nil {
		return nil
	}
	<-p.done
	st.pending = nil
	if p.err != nil {
		st.forget()
		return fmt.Errorf("commit: %w", p.err)
	}
	res.Committed += int64(p.count)
	res.Chunks++
	if p.ends && st.progress != nil {
		st.progress(res.Committed)
	}
	return nil
}

// discardNext releases the transaction kept for a speculative fill. An
// import must call it when it ends.
func (st *bulkState) discardNext() {
	if st.nextTx != nil {
		st.nextTx.end()
		st.nextTx = nil
	}
}

func (st *bulkState) newTxn(ctx context.Context) (*bulkTxn, error) {
	t, err := st.n.view.NewGatedTxn(ctx, true)
	if err != nil {
		return nil, err
	}
	return &bulkTxn{txn: t, end: t.End, prefix: st.prefix}, nil
}

// fill computes the chunk's writes into w and puts them into tx.
//
// With prev == nil, n.wmu is held and no commit is pending: fill reads the
// meta entries and whatever else it needs. With prev != nil, fill is
// speculative: it runs while the chunk in prev commits, assumes that no other
// writer intervenes (submit checks that under the lock), and reads through a
// snapshot taken just before prev's commit. What prev wrote is taken from
// prev instead: the meta values, the index lists and its quads (existence
// checks). Node ids and counts prev wrote are in st.nodes, so the snapshot is
// only read for nodes prev did not write.
func (st *bulkState) fill(ctx context.Context, tx *bulkTxn, w *chunkWork, c *prepChunk, qs []prepQuad, prev *chunkWork) error {
	horizon, size := st.horizon, st.size
	if prev == nil && !st.accum {
		var err error
		if horizon, size, err = st.readMeta(ctx, tx); err != nil {
			return err
		}
	}
	w.reset(len(c.nodes))
	w.qs = qs
	for _, q := range qs {
		for _, ni := range q {
			if ni >= 0 {
				w.used[ni] = true
			}
		}
	}
	if err := st.resolveNodes(ctx, tx, w, c); err != nil {
		return err
	}
	if err := st.chooseInserts(ctx, tx, w, qs, prev); err != nil {
		return err
	}
	next, err := allocateIDs(w, c, qs, uint64(horizon)+1)
	if err != nil {
		return err
	}
	if err := st.readRefs(ctx, tx, w, c); err != nil {
		return err
	}
	st.planIndexKeys(w, qs)
	if err := st.readIndexLists(ctx, tx, w, prev); err != nil {
		return err
	}
	if err := st.buildWrites(w, c, qs, horizon, size, next); err != nil {
		return err
	}
	return st.stageWrites(tx, w)
}

// readMeta reads the namespace's horizon and size, and brings the import's
// knowledge of other writers up to date (sync).
func (st *bulkState) readMeta(ctx context.Context, tx *bulkTxn) (horizon, size int64, err error) {
	meta, err := tx.GetBatch(ctx, []hkv.Key{layout.Horizon, layout.Size})
	if err != nil {
		return 0, 0, err
	}
	if horizon, err = metaInt(meta[0]); err != nil {
		return 0, 0, err
	}
	if size, err = metaInt(meta[1]); err != nil {
		return 0, 0, err
	}
	st.sync(uint64(horizon))
	return horizon, size, nil
}

// resolveNodes sets the ids of the chunk's used nodes that exist: from
// what the import knows, else read (batched). A node left at id 0 does not
// exist yet.
func (st *bulkState) resolveNodes(ctx context.Context, tx *bulkTxn, w *chunkWork, c *prepChunk) error {
	var (
		readAt   []int
		readKeys []hkv.Key
	)
	for i := range c.nodes {
		if !w.used[i] {
			continue
		}
		if nd, ok := st.nodes[c.nodes[i].hash]; ok {
			w.ids[i] = nd.id
			if nd.epoch == st.epoch {
				w.refsKnown[i], w.refs[i] = true, nd.refs
			}
			continue
		}
		if st.knownAll {
			continue // does not exist
		}
		// Also when speculative: a node the pending chunk created is in
		// st.nodes, so the snapshot is current for this key.
		readAt = append(readAt, i)
		readKeys = append(readKeys, layout.Node('v', c.nodes[i].hash))
	}
	if len(readKeys) == 0 {
		return nil
	}
	vals, err := tx.GetBatch(ctx, readKeys)
	if err != nil {
		return fmt.Errorf("read node ids: %w", err)
	}
	for j, v := range vals {
		if len(v) == 0 {
			continue
		}
		id, k := binary.Uvarint(v)
		if k <= 0 {
			return fmt.Errorf("%w: node id of %x", ErrCorrupt, c.nodes[readAt[j]].hash)
		}
		w.ids[readAt[j]] = id
	}
	return nil
}

// chooseInserts sets w.ins, in input order, to the quads of qs that are
// not in the store: those with a new node, and those whose existence the
// import knows or reads.
func (st *bulkState) chooseInserts(ctx context.Context, tx *bulkTxn, w *chunkWork, qs []prepQuad, prev *chunkWork) error {
	var check []int // quads whose existence must be read
	for qi, q := range qs {
		ids := w.quadIDsOf(q)
		missing := false
		for d, ni := range q {
			if ni >= 0 && ids[d] == 0 {
				missing = true
			}
		}
		if st.accum && !missing {
			if _, ok := st.exact[ids]; ok {
				continue // inserted by an earlier chunk of the segment
			}
		}
		switch {
		case missing:
			w.ins = append(w.ins, qi)
		case st.private(ids[:]):
			if _, ok := st.quads[hashQuad(ids)]; ok {
				check = append(check, qi)
			} else {
				w.ins = append(w.ins, qi)
			}
		default:
			check = append(check, qi)
		}
	}
	if len(check) == 0 {
		return nil
	}
	exists, err := st.existing(ctx, tx, w, qs, check, prev)
	if err != nil {
		return err
	}
	for j, qi := range check {
		if !exists[j] {
			w.ins = append(w.ins, qi)
		}
	}
	slices.Sort(w.ins) // input order
	return nil
}

// allocateIDs gives ids from next on to the new nodes first, then to the
// inserted quads, as cayley does, counts the references each node gains and
// returns the next free id.
func allocateIDs(w *chunkWork, c *prepChunk, qs []prepQuad, next uint64) (uint64, error) {
	for i := range c.nodes {
		if w.used[i] && w.ids[i] == 0 {
			if len(c.nodes[i].enc) == 0 {
				return 0, fmt.Errorf("%w: cannot encode term", ErrInvalidQuad)
			}
			w.ids[i] = next
			w.isNew[i] = true
			w.refsKnown[i] = true
			next++
		}
	}
	for _, qi := range w.ins {
		w.insIDs = append(w.insIDs, next)
		next++
		for _, ni := range qs[qi] {
			if ni >= 0 {
				w.inc[ni]++
			}
		}
	}
	return next, nil
}

// readRefs reads the reference counts of the existing nodes that gain
// references and whose counts the import does not know.
func (st *bulkState) readRefs(ctx context.Context, tx *bulkTxn, w *chunkWork, c *prepChunk) error {
	var (
		readAt   []int
		readKeys []hkv.Key
	)
	for i := range c.nodes {
		if w.inc[i] > 0 && !w.refsKnown[i] {
			readAt = append(readAt, i)
			readKeys = append(readKeys, layout.Node('n', c.nodes[i].hash))
		}
	}
	if len(readKeys) == 0 {
		return nil
	}
	vals, err := tx.GetBatch(ctx, readKeys)
	if err != nil {
		return fmt.Errorf("read node counts: %w", err)
	}
	for j, v := range vals {
		i := readAt[j]
		if len(v) > 0 {
			r, k := binary.Uvarint(v)
			if k <= 0 {
				return fmt.Errorf("%w: node count of %x", ErrCorrupt, c.nodes[i].hash)
			}
			w.refs[i] = r
		}
		w.refsKnown[i] = true
	}
	return nil
}

// planIndexKeys lists in w.glist the index keys of the inserted quads,
// grouping the quads that share a key, and marks those whose existing list
// must be read.
func (st *bulkState) planIndexKeys(w *chunkWork, qs []prepQuad) {
	for j, qi := range w.ins {
		qids := w.quadIDsOf(qs[qi])
		id := w.insIDs[j]
		for ii, ind := range st.inds {
			k := groupKey{ind: ii, ids: layout.IndexIDs(ind, qids)}
			if st.full[ii] {
				// A key per quad, and the chunk's quads are distinct: no
				// other quad of this chunk or of the previous one (see
				// existing) has it.
				read := !st.private(k.ids[:len(ind.Dirs)])
				w.glist = append(w.glist, keyGroup{key: k, first: id, read: read})
				continue
			}
			if gi, ok := w.groups[k]; ok {
				w.glist[gi].more = append(w.glist[gi].more, id)
				continue
			}
			w.groups[k] = len(w.glist)
			read := !st.private(k.ids[:len(ind.Dirs)])
			if !read && !st.full[ii] {
				_, read = st.keys[hashKey(k)]
			}
			w.glist = append(w.glist, keyGroup{key: k, first: id, read: read})
		}
	}
}

// readIndexLists reads the existing lists of the index keys that need
// them: from prev when it wrote them (speculative fill), else from tx.
func (st *bulkState) readIndexLists(ctx context.Context, tx *bulkTxn, w *chunkWork, prev *chunkWork) error {
	var (
		readAt   []int
		readKeys []hkv.Key
	)
	for gi := range w.glist {
		g := &w.glist[gi]
		if !g.read {
			continue
		}
		if prev != nil {
			if pi, ok := prev.groups[g.key]; ok {
				e := prev.puts.Entries[prev.glist[pi].ent]
				g.old = prev.puts.Data[e.V0:e.V1:e.V1] // read-only
				continue
			}
		}
		readAt = append(readAt, gi)
		readKeys = append(readKeys, st.indexKey(w.glist[gi].key))
	}
	if len(readKeys) == 0 {
		return nil
	}
	vals, err := tx.GetBatch(ctx, readKeys)
	if err != nil {
		return fmt.Errorf("read index: %w", err)
	}
	for j, v := range vals {
		w.glist[readAt[j]].old = v
	}
	return nil
}

// buildWrites encodes the chunk's writes in w.puts: new nodes, reference
// counts, quad log entries, index lists and the meta entries (horizon and
// size from horizon, size and next, the next free id). It returns
// errChunkTooBig if they do not fit in one Badger transaction.
func (st *bulkState) buildWrites(w *chunkWork, c *prepChunk, qs []prepQuad, horizon, size int64, next uint64) error {
	now := time.Now().UnixNano()
	p := &w.puts
	p.Reset()
	var vb [binary.MaxVarintLen64]byte
	for i := range c.nodes {
		if !w.used[i] {
			continue
		}
		h := c.nodes[i].hash
		if w.isNew[i] {
			p.Add(layout.Node('v', h), vb[:binary.PutUvarint(vb[:], w.ids[i])])
			prim := proto.Primitive{ID: w.ids[i], Value: c.nodes[i].enc, Timestamp: now}
			if err := p.AddPrim(layout.Log(w.ids[i]), &prim); err != nil {
				return err
			}
		}
		if w.inc[i] > 0 {
			if st.accum && w.ids[i] <= uint64(st.segHorizon) {
				// The count before the segment of a node it did not
				// create (ids above its starting horizon), for its undo
				// record.
				if _, ok := st.segOld[h]; !ok {
					st.segOld[h] = int64(w.refs[i])
				}
			}
			w.refs[i] += w.inc[i]
			p.Add(layout.Node('n', h), vb[:binary.PutUvarint(vb[:], w.refs[i])])
		}
	}
	for j, qi := range w.ins {
		prim := layout.Primitive(w.quadIDsOf(qs[qi]))
		prim.ID = w.insIDs[j]
		prim.Timestamp = now
		if err := p.AddPrim(layout.Log(prim.ID), &prim); err != nil {
			return err
		}
	}
	for gi := range w.glist {
		g := &w.glist[gi]
		v := append(p.Scratch[:0], g.old...)
		v = binary.AppendUvarint(v, g.first)
		for _, id := range g.more {
			v = binary.AppendUvarint(v, id)
		}
		p.Scratch = v
		g.ent = len(p.Entries)
		p.AddIndex(st.buckets[g.key.ind], g.key.ids[:len(st.inds[g.key.ind].Dirs)], v)
	}
	var hb [8]byte
	if allocated := next - 1 - uint64(horizon); allocated > 0 {
		binary.LittleEndian.PutUint64(hb[:], next-1)
		p.Add(layout.Horizon, hb[:])
	}
	if len(w.ins) > 0 {
		binary.LittleEndian.PutUint64(hb[:], uint64(size+int64(len(w.ins))))
		p.Add(layout.Size, hb[:])
	}
	w.horizon, w.size = int64(next-1), size+int64(len(w.ins))
	if !st.n.s.txnFits(p) {
		return errChunkTooBig
	}
	st.noteFit(len(qs), p)
	return nil
}

// noteFit adjusts st.fitQuads, once a chunk has been cut (inPieces), from
// the writes p of n quads that fit in one transaction: as many quads as
// would fill nine tenths of a transaction at their entries and bytes per
// quad. Later chunks are thus cut to what fits, and grow back after a
// piece of unusually large quads (long literals) instead of being cut to
// its size for the rest of the import.
func (st *bulkState) noteFit(n int, p *sorted.PutBuf) {
	if st.fitQuads == 0 || n == 0 {
		return
	}
	db := st.n.s.db
	room := min(float64(db.MaxBatchCount())/float64(max(p.Count, 1)), float64(db.MaxBatchSize())/float64(max(p.Size, 1)))
	st.fitQuads = max(1, int(min(float64(n)*room*0.9, 1<<20)))
}

// txnFits reports whether the writes of p fit in one Badger transaction as
// Badger counts them: a value at or above Badger's value threshold goes to
// the value log and counts as a pointer (except in memory, where every
// value stays in the tree). p.Size counts every value whole, the memory
// the writes hold: a chunk under the limit by it is under by Badger's
// count too, and only a larger one is counted again.
func (s *Store) txnFits(p *sorted.PutBuf) bool {
	db := s.db
	if p.Count >= db.MaxBatchCount() {
		return false
	}
	if p.Size < db.MaxBatchSize() || s.opts.inMemory {
		return p.Size < db.MaxBatchSize()
	}
	threshold := db.Opts().ValueThreshold
	var size int64
	for _, e := range p.Entries {
		v := int64(e.V1 - e.V0)
		if v >= threshold {
			v = 12 // a value pointer
		}
		size += int64(e.K1-e.K0) + v + 12 // as PutBuf counts: 2 meta and 10 version bytes
	}
	return size < db.MaxBatchSize()
}

// stageWrites sets the writes of w in tx, unless the import accumulates a
// segment (they are written with it).
func (st *bulkState) stageWrites(tx *bulkTxn, w *chunkWork) error {
	if st.accum {
		return nil
	}
	p := &w.puts
	for _, e := range p.Entries {
		if err := tx.txn.Set(p.Data[e.K0:e.K1:e.K1], p.Data[e.V0:e.V1:e.V1]); err != nil {
			if errors.Is(err, badger.ErrTxnTooBig) {
				return errChunkTooBig
			}
			return fmt.Errorf("write: %w", err)
		}
	}
	return nil
}

// existing reports, for each quad qs[check[j]] (whose nodes all exist), whether
// it is in the store: a live quad primitive with the same directions listed in
// the index with the most directions.
//
// When speculative (prev != nil), tx's snapshot lacks the quads of the pending
// chunk prev; those are looked up in prev.
func (st *bulkState) existing(ctx context.Context, tx *bulkTxn, w *chunkWork, qs []prepQuad, check []int, prev *chunkWork) ([]bool, error) {
	ind := st.inds[st.exist]
	keys := make([]hkv.Key, len(check))
	prims := make([]proto.Primitive, len(check))
	out := make([]bool, len(check))
	for j, qi := range check {
		ids := w.quadIDsOf(qs[qi])
		prims[j] = layout.Primitive(ids)
		keys[j] = ind.KeyFor(&prims[j])
		if prev != nil && prev.inserted(ids) {
			out[j] = true
			keys[j] = nil // no read
		}
	}
	lists, err := tx.GetBatch(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	var (
		owner   []int
		logKeys []hkv.Key
	)
	for j, l := range lists {
		for len(l) > 0 {
			id, k := binary.Uvarint(l)
			if k <= 0 {
				return nil, fmt.Errorf("%w: index list", ErrCorrupt)
			}
			l = l[k:]
			owner = append(owner, j)
			logKeys = append(logKeys, layout.Log(id))
		}
	}
	if len(logKeys) == 0 {
		return out, nil
	}
	logs, err := tx.GetBatch(ctx, logKeys)
	if err != nil {
		return nil, fmt.Errorf("read log: %w", err)
	}
	for i, v := range logs {
		j := owner[i]
		if out[j] || len(v) == 0 {
			continue
		}
		var p proto.Primitive
		if err := p.Unmarshal(v); err != nil {
			return nil, fmt.Errorf("%w: log entry: %v", ErrCorrupt, err)
		}
		if !p.Deleted && !p.IsNode() && p.IsSameLink(&prims[j]) {
			out[j] = true
		}
	}
	return out, nil
}

// merge records what a committed chunk wrote.
func (st *bulkState) merge(w *chunkWork, c *prepChunk, qs []prepQuad) {
	for i := range c.nodes {
		if !w.used[i] {
			continue
		}
		h := c.nodes[i].hash
		switch {
		case w.isNew[i] || w.inc[i] > 0:
			st.nodes[h] = bulkNode{id: w.ids[i], refs: w.refs[i], epoch: st.epoch}
		default:
			if _, ok := st.nodes[h]; !ok {
				st.nodes[h] = bulkNode{id: w.ids[i]}
			}
		}
	}
	// Only what would otherwise skip a read needs recording.
	for _, g := range w.glist {
		if !st.full[g.key.ind] && st.private(g.key.ids[:len(st.inds[g.key.ind].Dirs)]) {
			st.keys[hashKey(g.key)] = struct{}{}
		}
	}
	for _, qi := range w.ins {
		ids := w.quadIDsOf(qs[qi])
		if st.accum {
			// The segment's own quads are in exact; after the segment,
			// privateFrom moves past its ids (endSegment), so st.quads
			// is not needed.
			st.exact[ids] = struct{}{}
		} else if st.private(ids[:]) {
			st.quads[hashQuad(ids)] = struct{}{}
		}
	}
	if st.accum {
		return // the segment loop checks the bounds between segments
	}
	if t := &st.n.s.tune; len(st.nodes) > t.ImportMaxNodes || len(st.keys) > t.ImportMaxKeys || len(st.quads) > t.ImportMaxQuads {
		st.forget()
	}
}

func (w *chunkWork) reset(nodes int) {
	w.used = resetSlice(w.used, nodes)
	w.ids = resetSlice(w.ids, nodes)
	w.isNew = resetSlice(w.isNew, nodes)
	w.refsKnown = resetSlice(w.refsKnown, nodes)
	w.refs = resetSlice(w.refs, nodes)
	w.inc = resetSlice(w.inc, nodes)
	w.ins = w.ins[:0]
	w.insIDs = w.insIDs[:0]
	if w.groups == nil {
		w.groups = make(map[groupKey]int)
	} else {
		clear(w.groups)
	}
	w.insSet = nil
	clear(w.glist) // drop references to old lists
	w.glist = w.glist[:0]
}

func resetSlice[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// metaInt is layout.MetaInt, its errors matching ErrCorrupt.
func metaInt(v []byte) (int64, error) {
	n, err := layout.MetaInt(v)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return n, nil
}

// storeCounters count, for tests, what a store's writes did: chunks
// committed from a speculative fill, speculative fills redone under the
// lock, segments streamed, runs spilled, chunks added to segments,
// roll-backs streamed by Open (recover.go) and key ranges a journaled delta
// read on their own goroutine (prefetch.go), and pieces of import chunks
// that did not fit in one Badger transaction (bulkState.inPieces).
type storeCounters struct {
	spec, redo, streamed, spilled, accumulated, rollbacks, parallelReads, tooBig atomic.Int64
}

// bulkTxn is a Badger read-write transaction seen through the namespace's key
// layout: the namespace prefix followed by the key escaped as hidalgo's
// flat.Upgrade does (escapeKey; TestEscapeKeyMatchesHidalgo checks that the
// bytes are identical). The bulk writer uses Badger directly rather than
// through hidalgo to avoid several allocations and two copies per key.
type bulkTxn struct {
	txn    *badgerkv.GatedTxn
	end    func() // discards txn (if not committed) and leaves the store's gate
	prefix []byte
	key    []byte // scratch
}

// GetBatch returns the values of keys (nil for a missing key), copied.
func (tx *bulkTxn) GetBatch(ctx context.Context, keys []hkv.Key) ([][]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]byte, len(keys))
	for i, k := range keys {
		if k == nil {
			continue
		}
		tx.key = layout.Escape(append(tx.key[:0], tx.prefix...), k)
		item, err := tx.txn.Get(tx.key)
		if errors.Is(err, badger.ErrKeyNotFound) {
			continue
		} else if err != nil {
			return nil, fmt.Errorf("read: %w", err)
		}
		if out[i], err = item.ValueCopy(nil); err != nil {
			return nil, fmt.Errorf("read: %w", err)
		}
	}
	return out, nil
}

// inserted reports whether w, a filled chunk, inserts the quad with the given
// node ids.
func (w *chunkWork) inserted(ids [4]uint64) bool {
	if w.insSet == nil {
		w.insSet = make(map[[4]uint64]struct{}, len(w.ins))
		for _, qi := range w.ins {
			w.insSet[w.quadIDsOf(w.qs[qi])] = struct{}{}
		}
	}
	_, ok := w.insSet[ids]
	return ok
}
