package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cayleygraph/cayley/graph/refs"
	"github.com/dgraph-io/badger/v4"
	hkv "github.com/hidal-go/hidalgo/kv"

	"github.com/cortexgraph/cortex/cortex/internal/badgerkv"
	"github.com/cortexgraph/cortex/cortex/internal/layout"
)

// Pipelined updates (UpdateAsync).
//
// A host that writes small deltas back to back (the team manager's findings
// batches) spends each write's time in two phases: computing the delta's
// keys (its function, the node and existence reads) and Badger's commit
// (its one writer goroutine putting every entry in the memtable and the
// log, then the fsync). With Update the two alternate under the
// namespace's write lock, and a core idles in each. UpdateAsync overlaps
// them: it hands its transaction to Badger (CommitWith) and releases the
// lock at once, and the next UpdateAsync computes its delta while that
// commit runs.
//
// The obstacle is that a Badger transaction started while a commit is in
// flight waits for it (its read timestamp covers every commit handed to
// Badger). So before handing its transaction over, an UpdateAsync opens
// the next one's transaction, which reads at the snapshot before it, and
// keeps the keys it wrote (flight.writes). The next delta reads through
// its own writes, then those, then that snapshot (deltaTx): exactly the
// namespace after the commit in flight. That rests on one invariant: every
// writer of a namespace's keys holds its write lock (wmu) until its commit
// has completed, except the one commit in flight, which every other writer
// settles first (lockWrite). So no commit but the one in flight can change
// the namespace's keys between that snapshot and the next delta's commit
// (another namespace's commits may come in between: they do not touch its
// keys). Before a delta is handed over it waits for the commit in flight;
// if that failed, nothing is written: the delta is computed again from the
// start, its function run again, on a fresh transaction. So a delta is
// committed only after the one it was computed on has committed, and each
// is one Badger transaction, all or nothing across kill -9 as with Update.
//
// Every other writer of the namespace settles the commit in flight first
// (lockWrite): it waits for it and, if it failed, forgets the caches built
// on it (the node cache, and the write generation goes up by one more, so
// caches keyed by it are dropped too).

// flight is a pipelined commit, from the UpdateAsync that handed it to
// Badger until a later writer of the namespace settles it.
type flight struct {
	done   chan struct{} // closed when the commit has completed
	err    error         // its outcome, set before done is closed
	writes overlay       // the keys it writes, for the next UpdateAsync

	mu   sync.Mutex
	next *badgerkv.Tx // opened before the commit, for the next UpdateAsync; nil once claimed or closed
}

// overlay holds keys a delta writes (escaped, without the namespace's
// prefix), as the transaction's reads must see them.
type overlay map[string]overlayValue

type overlayValue struct {
	v   []byte // shared: never changed
	del bool
}

// claim hands the transaction opened for the next UpdateAsync to its
// caller, or returns nil if the commit has completed (the transaction is
// closed then).
func (f *flight) claim() *badgerkv.Tx {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.next
	f.next = nil
	return t
}

// finish records the commit's outcome (Badger's callback).
func (f *flight) finish(err error) {
	f.err = err
	if t := f.claim(); t != nil {
		t.Close()
	}
	close(f.done)
}

// settle waits for the namespace's pipelined commit in flight, if any, and
// forgets it. If it failed, the caches built on it go: the node cache, and
// the write generation goes up once more. The caller holds n.wmu.
func (n *Namespace) settle() {
	f := n.flight
	if f == nil {
		return
	}
	<-f.done
	n.flight = nil
	if f.err != nil {
		n.nodes.reset()
		n.writeGen++
	}
}

// UpdateAsync is Update whose commit completes after it returns. It returns
// once the delta fn staged has been handed to the store (or nothing was
// staged); wait then reports the commit's outcome: nil when it is durable
// (for a durable store), else the error, and nothing of the delta was
// written. Until wait returns nil the delta must be treated as not written;
// readers of the namespace see all of it or none of it, as with Update.
//
// A second UpdateAsync of the namespace runs its fn, and computes its
// delta, while the first one's commit is in flight, and is handed to the
// store only once that commit has succeeded. fn sees the namespace as it
// will be after every delta handed over before it (see the comment at the
// top of pipeline.go). fn may therefore be called more than once: when the
// commit it was computed on fails, its staging is discarded and fn runs
// again on a fresh view. It
// must stage from scratch each time and keep its effects on the caller's
// own state to what its last run decides. Its errors and an ended ctx
// return as with Update, with nothing written.
//
// Every other write of the namespace (Apply, Update, an import, a
// deletion) waits for the commit in flight first. A delta too large for
// one Badger transaction is written as Update writes it (journaled), and
// wait then returns nil at once. Safe for concurrent use; the deltas of
// concurrent calls are serialised as with Update.
func (n *Namespace) UpdateAsync(ctx context.Context, fn func(tx *Tx) error) (wait func() error, err error) {
	// (A priority waiter: see writeLock.)
	if err := n.acquireCtx(ctx, true); err != nil {
		return nil, err
	}
	defer n.wmu.Unlock()
	for {
		wait, err, again := n.updateAsyncOnce(ctx, fn)
		if !again {
			return wait, err
		}
		n.s.counters.pipelineRedo.Add(1)
	}
}

// noWait is the wait of an UpdateAsync that committed nothing in flight.
func noWait() error { return nil }

// updateAsyncOnce is one attempt of UpdateAsync, holding n.wmu. again
// reports that the attempt was discarded and must be made again.
func (n *Namespace) updateAsyncOnce(ctx context.Context, fn func(tx *Tx) error) (wait func() error, err error, again bool) {
	// fail returns err once the commit in flight (which fn's view
	// included) has completed: if it failed, the attempt is made again.
	fail := func(err error) (func() error, error, bool) {
		if f := n.flight; f != nil {
			n.settle()
			if f.err != nil {
				return nil, nil, true
			}
		}
		return nil, err, false
	}
	if err := n.s.checkOpen(); err != nil {
		return fail(err)
	}
	tx := &Tx{n: n}
	if err := fn(tx); err != nil {
		return fail(err)
	}
	if tx.d.Len() == 0 && tx.s.len() == 0 {
		if w, err, again := fail(nil); again || err != nil {
			return w, err, again
		}
		return noWait, nil, false
	}
	if tx.s != nil && tx.s.err != nil {
		return fail(fmt.Errorf("namespace %s: %w", n.name, tx.s.err))
	}
	remove, add, err := normalizeDelta(tx.d)
	if err != nil {
		return fail(fmt.Errorf("namespace %s: %w", n.name, err))
	}
	if err := n.checkWrite(ctx, add, tx.s); err != nil {
		return fail(err)
	}
	pins := pinSet(tx.d.Pin)
	if len(remove)+len(add)+tx.s.len() > n.s.tune.MaxDeltaQuads {
		// A journaled delta: written as Update writes it, once the
		// commit in flight is done.
		if w, err, again := fail(nil); again || err != nil {
			return w, err, again
		}
		return noWait, n.applyLocked(ctx, remove, add, pins, tx.s), false
	}

	// The transaction the commit in flight opened for this delta, if it
	// is still in flight (claimed only now, so that nothing leaks if fn
	// panics; fn's own reads of the namespace waited for that commit).
	f := n.flight
	var btx *badgerkv.Tx
	if f != nil {
		if btx = f.claim(); btx == nil {
			// It has completed (while fn ran, which assumed it).
			n.settle()
			if f.err != nil {
				return nil, nil, true
			}
			f = nil
		}
	}
	overlaid := btx != nil
	if !overlaid {
		ft, err := n.view.Tx(true)
		if err != nil {
			return nil, fmt.Errorf("namespace %s: write: %w", n.name, err), false
		}
		btx = ft.(*badgerkv.Tx)
	}
	// The timestamp the delta's view is exact at: its snapshot's, and one
	// more with f's writes over it (f commits right after the snapshot).
	eff := btx.ReadTs()
	dt := &deltaTx{tx: btx, own: overlay{}}
	if overlaid {
		eff++
		dt.prev = f.writes
	}
	n.writeGen++
	if len(remove) > 0 {
		n.removeGen++
	}
	w := &deltaWriter{ctx: ctx, tx: dt, nodes: map[refs.ValueHash]*deltaNode{}, cached: n.nodes.at(eff), pins: pins, side: tx.s, now: time.Now().UnixNano()}
	err = w.apply(remove, add)
	if err == nil {
		err = ctx.Err()
	}
	if overlaid {
		<-f.done
		n.settle()
		if f.err != nil {
			btx.Close()
			return nil, nil, true
		}
	}
	if err != nil {
		btx.Close()
		n.nodes.reset()
		if errors.Is(err, badger.ErrTxnTooBig) {
			// Few quads, large values: journaled, as applyLocked does.
			_, err = n.writeDeltaJournaled(ctx, remove, add, pins, tx.s)
		}
		if err != nil {
			return nil, fmt.Errorf("namespace %s: write: %w", n.name, err), false
		}
		return noWait, nil, false
	}
	// The transaction for the next UpdateAsync, reading at the snapshot
	// before this delta's commit (none if the gate would make it wait).
	next, _, _ := n.view.TryTx(true)
	if overlaid {
		n.s.counters.pipelined.Add(1)
	}
	nf := &flight{done: make(chan struct{}), writes: dt.own, next: next}
	n.nodes.committed(w, eff)
	n.flight = nf
	if h := n.s.opts.hooks.handOver; h != nil {
		h(func() { btx.CommitWith(nf.finish) }, func() { btx.Close() }, nf.finish)
	} else {
		btx.CommitWith(nf.finish)
	}
	return func() error {
		<-nf.done
		if nf.err != nil {
			return fmt.Errorf("namespace %s: write: %w", n.name, nf.err)
		}
		return nil
	}, nil, false
}

// errUnrecordedIndex is the error of a pipelined delta's read that its
// overlay would not answer right (unrecordedIndex).
var errUnrecordedIndex = errors.New("deltaTx: a pipelined delta reads only the first index")

// unrecordedIndex reports whether key (escaped) is a key of an index other
// than the first. A delta reads only the first index (exists) and
// writes the others, so a pipelined delta's overlay records only the first
// index's keys: half the keys of a quad. deltaTx refuses to read the
// others, so that a read added one day cannot miss the commit in flight.
func unrecordedIndex(key []byte) bool {
	for _, b := range layout.IndexBuckets[1:] {
		if len(key) > len(b) && key[len(b)] == layout.Sep && bytes.HasPrefix(key, b) {
			return true
		}
	}
	return false
}

// get returns the overlay's value of key, and whether it has one.
func (o overlay) get(key []byte) (hkv.Value, bool, error) {
	e, ok := o[string(key)]
	if !ok {
		return nil, false, nil
	}
	if e.del {
		return nil, true, hkv.ErrNotFound
	}
	return e.v, true, nil
}
