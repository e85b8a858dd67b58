package teammanager

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
)

// Group commit of task board and mailbox writes.
//
// A claim, a completion or a message is one small atomic read-modify-write,
// and a team of 32 members makes many of them at once. As findings do
// (commit.go), they are queued and written together: one store Update (one
// commit, one fsync) for every call queued while the previous batch
// committed. Each call runs on its own view of the board: the batch's
// earlier calls' changes over the store's committed state (an overlay), so
// the calls of a batch are serialised exactly as if each were an Update of
// its own; a call that fails leaves nothing in the batch. A call returns
// once its batch has committed, so an acknowledged claim survives a crash,
// and a batch is all or nothing on disk. The calls of a batch share their
// reads of the store (storeReads): the board, the team and the queues'
// first rows are read once per batch, not once per call.

// boardOp is one call waiting for its batch.
type boardOp struct {
	ctx  context.Context
	fn   func(b *boardTx) error
	done chan struct{}
	err  error
}

// boardCommitter queues board writes for the batch that runs next.
type boardCommitter struct {
	mu      sync.Mutex
	queue   []*boardOp
	running bool
}

// maxBoardBatch bounds the calls of one batch, so that a batch stays one
// store transaction in the common case.
const maxBoardBatch = 64

// boardWrite runs fn in the next batch and returns its error, or the
// batch's if the batch failed to commit. If ctx ends while the call is
// still queued, it is withdrawn and writes nothing.
func (m *Manager) boardWrite(ctx context.Context, fn func(b *boardTx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	op := &boardOp{ctx: ctx, fn: fn, done: make(chan struct{})}
	c := &m.board
	c.mu.Lock()
	c.queue = append(c.queue, op)
	if !c.running {
		c.running = true
		go m.runBoardBatches()
	}
	c.mu.Unlock()
	select {
	case <-op.done:
	case <-ctx.Done():
		c.mu.Lock()
		for i, q := range c.queue {
			if q == op {
				c.queue = append(c.queue[:i], c.queue[i+1:]...)
				c.mu.Unlock()
				return ctx.Err()
			}
		}
		c.mu.Unlock()
		<-op.done
	}
	return op.err
}

func (m *Manager) runBoardBatches() {
	c := &m.board
	for {
		c.mu.Lock()
		if len(c.queue) == 0 {
			c.running = false
			c.mu.Unlock()
			return
		}
		n := min(len(c.queue), maxBoardBatch)
		batch := slices.Clone(c.queue[:n])
		c.queue = append(c.queue[:0], c.queue[n:]...)
		c.mu.Unlock()
		m.writeBoardBatch(batch)
		for _, op := range batch {
			close(op.done)
		}
	}
}

// writeBoardBatch runs the calls of batch, each on the overlay of those
// before it, and writes what the successful ones staged in one Update.
func (m *Manager) writeBoardBatch(batch []*boardOp) {
	ctx := context.WithoutCancel(batch[0].ctx)
	ok := make([]bool, len(batch))
	err := m.commit(ctx, func(tx *cortex.Tx) error {
		root := &boardTx{m: m, ctx: ctx, n: tx.Namespace(), now: m.now(), reads: &storeReads{}}
		root.init()
		for i, op := range batch {
			ok[i] = false
			child := &boardTx{m: m, ctx: ctx, n: root.n, now: root.now, parent: root, reads: root.reads}
			child.init()
			if check := writeCheckOf(op.ctx); check != nil {
				// The call's fence (WithWriteCheck), in the batch's write.
				op.err = check(context.WithoutCancel(op.ctx), tx)
			}
			if op.err == nil {
				op.err = op.fn(child)
			}
			if op.err == nil {
				child.mergeInto(root)
				ok[i] = true
			}
		}
		return root.stage(tx)
	})
	if err != nil {
		for i, op := range batch {
			if ok[i] {
				op.err = err
			}
		}
	}
}

type sideKey struct{ table, key string }

// boardTx is a call's view of the board inside a batch: the rows and quads
// it changed over its parent's (the batch's), over the store.
type boardTx struct {
	m      *Manager
	ctx    context.Context
	n      *cortex.Namespace
	now    time.Time
	parent *boardTx

	rows   map[sideKey][]quad.Value // nil: deleted
	rowSeq []sideKey
	keys   map[string][]string // table → the keys of rows changed, in rowSeq order
	quads  map[quad.Quad]bool  // true: add, false: remove
	qSeq   []quad.Quad
	events []Event
	// boards holds the board states this call saved (saveBoard), decoded:
	// the rows of boardTable in rows, as structs.
	boards map[string]*boardState
	// reads memoises the reads of the store, shared by the calls of a
	// batch (nil: no memo).
	reads *storeReads
}

// storeReads memoises a batch's reads of the store. Inside the batch's
// Update no other write can change the committed state (cortex
// Namespace.Update), so a row or a page of rows read once serves every
// call of the batch: 32 members' claims read the board, the team and the
// head of the ready queue once, not 32 times. The memo holds the store's
// rows only; each call's view is still its overlay over them.
type storeReads struct {
	rows   map[sideKey]storeRow
	pages  map[pageKey][]cortex.SideRow
	boards map[string]*boardState // board rows of the store, decoded
	misses int                    // reads that went to the store
}

type storeRow struct {
	vals  []quad.Value
	found bool
}

type pageKey struct {
	table, after string
	limit        int
}

// sideRow reads the store's row at key of table (shared: not to be
// modified).
func (b *boardTx) sideRow(table, key string) ([]quad.Value, bool, error) {
	r := b.reads
	if r == nil {
		return b.n.SideRow(b.ctx, table, key)
	}
	k := sideKey{table, key}
	if v, ok := r.rows[k]; ok {
		return v.vals, v.found, nil
	}
	r.misses++
	vals, found, err := b.n.SideRow(b.ctx, table, key)
	if err != nil {
		return nil, false, err
	}
	if r.rows == nil {
		r.rows = map[sideKey]storeRow{}
	}
	r.rows[k] = storeRow{vals, found}
	return vals, found, nil
}

// sideRowsAfter reads up to limit of the store's rows of table after key
// after (shared: not to be modified).
func (b *boardTx) sideRowsAfter(table, after string, limit int) ([]cortex.SideRow, error) {
	r := b.reads
	if r == nil {
		return b.n.SideRowsAfter(b.ctx, table, after, limit)
	}
	k := pageKey{table, after, limit}
	if rows, ok := r.pages[k]; ok {
		return rows, nil
	}
	r.misses++
	rows, err := b.n.SideRowsAfter(b.ctx, table, after, limit)
	if err != nil {
		return nil, err
	}
	if r.pages == nil {
		r.pages = map[pageKey][]cortex.SideRow{}
	}
	r.pages[k] = rows
	return rows, nil
}

func (b *boardTx) init() {
	b.rows = map[sideKey][]quad.Value{}
	b.quads = map[quad.Quad]bool{}
}

func (b *boardTx) put(table, key string, vals []quad.Value) {
	if vals == nil {
		vals = []quad.Value{}
	}
	b.set(sideKey{table, key}, vals)
}

func (b *boardTx) del(table, key string) { b.set(sideKey{table, key}, nil) }

func (b *boardTx) set(k sideKey, vals []quad.Value) {
	if _, ok := b.rows[k]; !ok {
		b.rowSeq = append(b.rowSeq, k)
		if b.keys == nil {
			b.keys = map[string][]string{}
		}
		b.keys[k.table] = append(b.keys[k.table], k.key)
	}
	b.rows[k] = vals
	if k.table == boardTable {
		delete(b.boards, k.key) // saveBoard sets it again
	}
}

func (b *boardTx) addQuads(qs ...quad.Quad) {
	for _, q := range qs {
		if _, ok := b.quads[q]; !ok {
			b.qSeq = append(b.qSeq, q)
		}
		b.quads[q] = true
	}
}

func (b *boardTx) removeQuads(qs ...quad.Quad) {
	for _, q := range qs {
		if _, ok := b.quads[q]; !ok {
			b.qSeq = append(b.qSeq, q)
		}
		b.quads[q] = false
	}
}

// replaceQuads stages the change from old to new: the quads of old not in
// new are removed, those of new not in old added.
func (b *boardTx) replaceQuads(old, new []quad.Quad) {
	had := make(map[quad.Quad]bool, len(old))
	for _, q := range old {
		had[q] = true
	}
	keep := make(map[quad.Quad]bool, len(new))
	for _, q := range new {
		keep[q] = true
		if !had[q] {
			b.addQuads(q)
		}
	}
	for _, q := range old {
		if !keep[q] {
			b.removeQuads(q)
		}
	}
}

func (b *boardTx) event(ev Event) { b.events = append(b.events, ev) }

// row reads the row at key of table as this call sees it.
func (b *boardTx) row(table, key string) ([]quad.Value, bool, error) {
	k := sideKey{table, key}
	for x := b; x != nil; x = x.parent {
		if v, ok := x.rows[k]; ok {
			return v, v != nil, nil
		}
	}
	return b.sideRow(table, key)
}

// overlay returns the rows of table under prefix that this call or its
// parent changed, the call's own winning: key → row (nil: deleted).
func (b *boardTx) overlay(table, prefix string) map[string][]quad.Value {
	out := map[string][]quad.Value{}
	var chain []*boardTx
	for x := b; x != nil; x = x.parent {
		chain = append(chain, x)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		x := chain[i]
		for _, k := range x.keys[table] {
			if strings.HasPrefix(k, prefix) {
				out[k] = x.rows[sideKey{table, k}]
			}
		}
	}
	return out
}

// scan calls fn with the rows of table whose keys start with prefix, in key
// order, as this call sees them, until fn returns false. The store is read
// in pages, so a scan that stops early reads little. A queue (queuehead.go)
// is read from its head, and its head moves to the first row fn is given.
func (b *boardTx) scan(table, prefix string, fn func(key string, vals []quad.Value) bool) error {
	ov := b.overlay(table, prefix)
	okeys := make([]string, 0, len(ov))
	for k := range ov {
		okeys = append(okeys, k)
	}
	slices.Sort(okeys)
	h, queued := headOfPrefix(table, prefix)
	after := prefix
	var rows []cortex.SideRow // the store's row at the head, if any
	if queued {
		q, found, err := b.head(h)
		if err != nil {
			return err
		}
		if found && q.low > prefix {
			// Rows of the overlay before the head are still emitted below.
			after = q.low
			vals, ok, err := b.sideRow(table, q.low)
			if err != nil {
				return err
			}
			if ok {
				rows = append(rows, cortex.SideRow{Key: q.low, Vals: vals})
			}
		}
	}
	first := ""
	give := func(k string, v []quad.Value) bool {
		if first == "" {
			first = k
		}
		return fn(k, v)
	}
	err := b.scanRows(table, prefix, after, rows, okeys, ov, give)
	if err == nil && queued && first != "" {
		err = b.advanceHead(h, prefix, first)
	}
	return err
}

// scanRows merges the store's rows of table under prefix (head, then
// the rows after after) with the overlay ov (its keys okeys, sorted),
// calling fn with the live ones until it returns false.
func (b *boardTx) scanRows(table, prefix, after string, head []cortex.SideRow, okeys []string, ov map[string][]quad.Value, fn func(string, []quad.Value) bool) error {
	oi := 0
	// emit yields the overlay's rows before limit (all: every one left).
	emit := func(limit string, all bool) bool {
		for oi < len(okeys) && (all || okeys[oi] < limit) {
			k := okeys[oi]
			oi++
			if v := ov[k]; v != nil && !fn(k, v) {
				return false
			}
		}
		return true
	}
	// Most scans stop at their first live row (a claim, a retention
	// check): the first page is small, the next ones grow.
	page := 4
	for {
		rows, err := b.sideRowsAfter(table, after, page)
		if err != nil {
			return err
		}
		full := len(rows) == page
		if head != nil {
			rows = append(head, rows...)
			head = nil
		}
		for _, r := range rows {
			if !strings.HasPrefix(r.Key, prefix) {
				emit("", true)
				return nil
			}
			if !emit(r.Key, false) {
				return nil
			}
			if v, changed := ov[r.Key]; changed {
				oi++ // okeys[oi] == r.Key: emit stopped right before it
				if v != nil && !fn(r.Key, v) {
					return nil
				}
				continue
			}
			if !fn(r.Key, r.Vals) {
				return nil
			}
		}
		if !full {
			emit("", true)
			return nil
		}
		after = rows[len(rows)-1].Key
		page = min(page*4, 4096)
	}
}

// mergeInto adds what b staged to p, after what p staged.
func (b *boardTx) mergeInto(p *boardTx) {
	for _, k := range b.rowSeq {
		if v := b.rows[k]; v == nil {
			p.del(k.table, k.key)
		} else {
			p.put(k.table, k.key, v)
		}
	}
	for _, q := range b.qSeq {
		if b.quads[q] {
			p.addQuads(q)
		} else {
			p.removeQuads(q)
		}
	}
	p.events = append(p.events, b.events...)
	for team, st := range b.boards {
		p.keepBoard(team, st)
	}
}

// stage writes what the batch staged into tx.
func (b *boardTx) stage(tx *cortex.Tx) error {
	if err := b.stageWrites(tx); err != nil {
		return err
	}
	return b.m.stageEvents(b.ctx, tx, b.now, b.events)
}

// stageWrites writes what b staged into tx, but its events.
func (b *boardTx) stageWrites(tx *cortex.Tx) error {
	if err := b.stageHeads(); err != nil {
		return err
	}
	var add, rm []quad.Quad
	for _, q := range b.qSeq {
		if b.quads[q] {
			add = append(add, q)
		} else {
			rm = append(rm, q)
		}
	}
	tx.Remove(rm...)
	tx.Add(add...)
	if len(add)+len(rm) > 0 {
		// Task and mail quads are outside every team's listed fields.
		tx.KeepSide(teamTable)
	}
	for _, k := range b.rowSeq {
		if v := b.rows[k]; v == nil {
			tx.DeleteSide(k.table, k.key)
		} else {
			tx.PutSide(k.table, k.key, v)
		}
	}
	return nil
}
