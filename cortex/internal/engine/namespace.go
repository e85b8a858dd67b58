package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/cortexgraph/cortex/cortex/internal/layout"

	"github.com/cayleygraph/cayley/graph"
	ckv "github.com/cayleygraph/cayley/graph/kv"
	"github.com/cayleygraph/quad"
	"github.com/dgraph-io/badger/v4"
	hkv "github.com/hidal-go/hidalgo/kv"
	"github.com/hidal-go/hidalgo/kv/flat"

	"github.com/cortexgraph/cortex/cortex/internal/badgerkv"
)

// Namespace is one isolated knowledge graph inside a Store: a default graph and
// any number of named graphs. Nothing of one namespace is visible from another;
// the same graph IRI in two namespaces names two separate graphs.
//
// A Namespace is safe for concurrent use. Writes to one namespace are
// serialised; reads run concurrently with them and see committed data only.
type Namespace struct {
	s    *Store
	name string
	base string       // IRI base recorded when the namespace was created
	kv   hkv.KV       // hierarchical view used by cayley's format
	view *badgerkv.DB // the same keys, flat (escaped), for key scans

	wmu writeLock // serialises writers: Apply, Update, Import chunks
	// waiting counts goroutines blocked in lockWrite: an import segment
	// that waits for its source ends early only when someone is waiting.
	waiting atomic.Int32

	// Write generations, guarded by wmu. writeGen counts write attempts
	// (cayley deltas and bulk-import chunks), removeGen those of deltas with
	// removals. A bulk import compares them between its chunks to tell
	// whether its in-memory knowledge of the namespace is still valid (see
	// bulk.go).
	writeGen, removeGen uint64

	// lastEntries is the number of keys the last delta written wrote or
	// deleted, set by writeDelta and writeDeltaJournaled; guarded by wmu.
	lastEntries int64
	writes      writeCounts // WriteStats

	nodes     nodeCache // the last delta's nodes (nodecache.go), guarded by wmu
	cache     valueCache
	statCache statsCache // planner statistics (stats.go)

	wrapOnce sync.Once
	wrapper  any // the public API's value for this namespace (Wrapper)

	// claims counts the calls of Namespace and OpenNamespace that returned
	// n (guarded by s.mu); pristine holds the keys and values its creation
	// wrote (nil if this Store did not create it). DeleteIfUnused reads
	// both.
	claims   int
	pristine map[string]string

	endOnce sync.Once
	done    chan struct{} // closed by end
	err     error         // why done is closed, set before
}

// Done returns a channel closed when n ends: DeleteNamespace deleted it,
// or the store was closed. Err then says which.
func (n *Namespace) Done() <-chan struct{} { return n.done }

// Err returns nil while Done is open, then an error matching
// ErrNoNamespace (n was deleted) or ErrClosed (the store was closed).
func (n *Namespace) Err() error {
	select {
	case <-n.done:
		return n.err
	default:
		return nil
	}
}

// end closes n's Done channel with err (the first call only).
func (n *Namespace) end(err error) {
	n.endOnce.Do(func() {
		n.err = err
		close(n.done)
	})
}

// Wrapper returns the value mk made for n on the first call: the public
// package's *cortex.Namespace, so that one engine namespace has one wrapper
// for as long as it is open. Safe for concurrent use.
func (n *Namespace) Wrapper(mk func() any) any {
	n.wrapOnce.Do(func() { n.wrapper = mk() })
	return n.wrapper
}

var qsOptions = graph.Options{ckv.OptNoBloom: true}

// openNamespace opens the quadstore of an existing namespace (one with a
// registry entry).
func openNamespace(ctx context.Context, s *Store, name, base string) (*Namespace, error) {
	view := s.nsView(name)
	n := &Namespace{s: s, name: name, base: base, kv: flat.Upgrade(view), view: view, wmu: newWriteLock(), done: make(chan struct{})}
	n.cache.init(s.opts.valueCache)
	// Cortex reads and writes the format itself; cayley's own quadstore is
	// opened only to check that the namespace is one of its stores (and
	// not closed: that would close the view).
	if _, err := ckv.New(n.kvCtx(ctx), qsOptions); err != nil {
		if ctx.Err() != nil {
			return nil, err // ctx ended while it waited at the gate: not a corruption
		}
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return n, nil
}

// createNamespace creates namespace name with IRI base base. Keys left
// under its prefix by an earlier namespace of that name whose deletion was
// cut short are dropped first. The registry entry is written last: until
// it is, the namespace does not exist, and a crash before leaves keys that
// the next creation drops.
func createNamespace(ctx context.Context, s *Store, name, base string) (*Namespace, error) {
	if err := s.dropKeys(ctx, []byte(dataPrefix+name+"/")); err != nil {
		return nil, fmt.Errorf("drop the leftovers of a deleted namespace: %w", err)
	}
	view := s.nsView(name)
	kv := flat.Upgrade(view.WithContext(ctx)) // ctx bounds the waits at the gate
	if err := initNamespace(ctx, s, kv, name, base); err != nil {
		return nil, err
	}
	n, err := openNamespace(ctx, s, name, base)
	if err != nil {
		return nil, err
	}
	if n.pristine, err = s.prefixKeys(ctx, []byte(dataPrefix+name+"/"), nil); err != nil {
		return nil, err
	}
	if n.pristine == nil {
		n.pristine = map[string]string{}
	}
	return n, nil
}

// prefixKeys returns the keys under prefix with their values. With want,
// it stops at the first key or value that differs from want's and
// returns nil, errChanged.
func (s *Store) prefixKeys(ctx context.Context, prefix []byte, want map[string]string) (map[string]string, error) {
	keys := map[string]string{}
	err := s.view(ctx, func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.Prefix = prefix
		it, err := newIterator(s, txn, opts)
		if err != nil {
			return err
		}
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := string(it.Item().Key())
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			if want != nil {
				if w, ok := want[k]; !ok || w != string(v) {
					return errChanged
				}
			}
			keys[k] = string(v)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if want != nil && len(keys) != len(want) {
		return nil, errChanged
	}
	return keys, nil
}

// errChanged is prefixKeys's: the keys are not those wanted.
var errChanged = errors.New("namespace changed since it was created")

func initNamespace(ctx context.Context, s *Store, db hkv.KV, name, base string) error {
	if err := ckv.Init(db, qsOptions); err != nil && !errors.Is(err, graph.ErrDatabaseExists) {
		return fmt.Errorf("init: %w", err)
	}
	meta, err := json.Marshal(layout.Indexes)
	if err != nil {
		return err
	}
	err = hkv.Update(ctx, db, func(tx hkv.Tx) error {
		return tx.Put(layout.IndexList, meta)
	})
	if err != nil {
		return fmt.Errorf("init indexes: %w", err)
	}
	entry, err := json.Marshal(registryValue{Base: base})
	if err != nil {
		return err
	}
	return s.update(ctx, func(txn *badger.Txn) error {
		return txn.Set([]byte(registryPrefix+name), entry)
	})
}

// lockWriteCtx takes the namespace's write lock, counted in waiting while
// it waits, or gives up when ctx ends, with an error wrapping ctx's.
func (n *Namespace) lockWriteCtx(ctx context.Context) error {
	if n.wmu.TryLock() {
		return nil
	}
	n.waiting.Add(1)
	defer n.waiting.Add(-1)
	if err := n.wmu.LockCtx(ctx); err != nil {
		return fmt.Errorf("namespace %s: waiting for another write to end: %w", n.name, err)
	}
	return nil
}

// Name returns the namespace's name.
func (n *Namespace) Name() string { return n.name }

// Base returns the IRI base recorded when the namespace was created
// (namespace.DefaultBasePrefix+name for namespaces created without
// WithBase, or before bases were recorded).
func (n *Namespace) Base() string { return n.base }

// close closes n for Store.Close: a transaction that passed checkOpen
// before Close and starts after it fails with an error matching ErrClosed,
// not badgerkv's own.
func (n *Namespace) close() error {
	_ = n.view.CloseWith(fmt.Errorf("namespace %s: %w", n.name, ErrClosed))
	return n.kv.Close()
}

// closeDeleted closes n for DeleteNamespace: its later reads and writes
// fail with errDeleted (matching ErrNoNamespace).
func (n *Namespace) closeDeleted() error {
	_ = n.view.CloseWith(errDeleted(n.name))
	return n.kv.Close()
}

// errDeleted is the error of the operations of a deleted namespace's
// handle (see DeleteNamespace).
func errDeleted(name string) error {
	return fmt.Errorf("%w %q: it was deleted", ErrNoNamespace, name)
}

// kvCtx is n.kv with ctx bounding each transaction's wait to be admitted
// by the store's gate (while a streamed or journaled write holds it).
func (n *Namespace) kvCtx(ctx context.Context) hkv.KV { return flat.Upgrade(n.view.WithContext(ctx)) }

// Size returns the number of quads in the namespace (all graphs).
func (n *Namespace) Size(ctx context.Context) (int64, error) {
	if err := n.s.checkOpen(); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("namespace %s: size: %w", n.name, err)
	}
	var size int64
	err := hkv.View(n.kvCtx(ctx), func(tx hkv.Tx) error {
		w := deltaWriter{ctx: ctx, tx: tx}
		var err error
		size, err = w.metaInt(layout.Size)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("namespace %s: size: %w", n.name, err)
	}
	return size, nil
}

// Delta is a set of quads to remove and quads to add. Quads are a set: adding a
// quad that exists or removing one that does not is not an error. A quad in
// both lists ends up present.
//
// Pin lists terms whose id → term mapping the store keeps in a small side
// table, the pins, so that PinnedTermsBatch resolves them without reading
// the quad log (where a term sits among all the quads written with it). A
// pinned term that the delta creates gets its pin. A term that already
// exists is left as it is: pinned if it was pinned when created, else read
// from the log as any other. A term's pin is deleted with the term, by
// whichever delta frees it, so a pin always holds its node's term (ids of
// committed writes are never reused; a rolled-back write's pins go with
// it). Pins are for terms a host resolves often (Cortex pins its teams'
// listed fields and its finding nodes); each costs one key.
type Delta struct {
	Remove []quad.Quad
	Add    []quad.Quad
	Pin    []quad.Value
}

// Len returns the number of quads in the delta.
func (d Delta) Len() int { return len(d.Add) + len(d.Remove) }

// Apply writes d atomically: either every change is made or none, and readers
// see all of it or nothing of it. A delta of up to MaxDeltaQuads quads (after
// removing duplicates) is one Badger transaction if it fits in one: Badger
// bounds a transaction at about 15% of a memtable, ~26,000 entries or
// 2.5 MB with the default 16 MiB memtables (sizeBadger). A larger one, or
// one that does not fit, is journaled
// (journal.go): its writes are computed first, alongside readers, and held
// in memory (a few hundred bytes per quad); then new transactions of the
// store are held back while its keys are written (open ones go on with
// their older snapshots; a streamed delta waits for them to end first), and
// a crash in the middle is rolled back by the next Open. For
// bulk loads that need not be atomic, Import bounds its memory and lets
// readers in between segments.
func (n *Namespace) Apply(ctx context.Context, d Delta) error {
	remove, add, err := normalizeDelta(d)
	if err != nil {
		return fmt.Errorf("namespace %s: %w", n.name, err)
	}
	if len(remove) == 0 && len(add) == 0 && len(d.Pin) == 0 {
		return n.s.checkOpen() // nothing to write: no commit (as Update)
	}
	if err := n.lockWriteCtx(ctx); err != nil {
		return err
	}
	defer n.wmu.Unlock()
	return n.applyLocked(ctx, remove, add, pinSet(d.Pin), nil)
}

// Update runs fn with exclusive write access to the namespace and then applies
// the delta fn staged in tx, atomically. Reads made by fn (through tx or the
// namespace) see the latest committed state and no other writer can change it
// before the delta is applied: Update is an atomic read-modify-write. If fn
// returns an error nothing is written and the error is returned as is. A
// delta of any size is all or nothing, as with Apply; fn must close what it
// reads (queries, iterators) before it returns, or a streamed delta (see
// Apply) waits for them and fails with ErrBusy.
func (n *Namespace) Update(ctx context.Context, fn func(tx *Tx) error) error {
	if err := n.lockWriteCtx(ctx); err != nil {
		return err
	}
	defer n.wmu.Unlock()
	return n.updateLocked(ctx, fn)
}

// TryUpdate is Update if the namespace's write lock is free at once: it
// reports false, without running fn, if another write holds it (or the
// caller does, inside an Update of its own). It never waits for the lock.
func (n *Namespace) TryUpdate(ctx context.Context, fn func(tx *Tx) error) (bool, error) {
	if !n.wmu.TryLock() {
		return false, nil
	}
	defer n.wmu.Unlock()
	return true, n.updateLocked(ctx, fn)
}

func (n *Namespace) updateLocked(ctx context.Context, fn func(tx *Tx) error) error {
	if err := n.s.checkOpen(); err != nil {
		return err
	}
	// A context that has ended runs nothing: fn's work (and anything it
	// does besides staging the delta) would be thrown away.
	if err := n.ctxErr(ctx); err != nil {
		return err
	}
	tx := &Tx{n: n}
	if err := fn(tx); err != nil {
		return err
	}
	if tx.d.Len() == 0 && tx.s.len() == 0 {
		return nil
	}
	if tx.s != nil && tx.s.err != nil {
		return fmt.Errorf("namespace %s: %w", n.name, tx.s.err)
	}
	remove, add, err := normalizeDelta(tx.d)
	if err != nil {
		return fmt.Errorf("namespace %s: %w", n.name, err)
	}
	return n.applyLocked(ctx, remove, add, pinSet(tx.d.Pin), tx.s)
}

// Tx stages a delta inside Update, and side-table writes (side.go). It is
// valid only during the Update call and must not be used from other
// goroutines.
type Tx struct {
	n *Namespace
	d Delta
	s *sideOps
}

// Add stages quads to add.
func (tx *Tx) Add(qs ...quad.Quad) { tx.d.Add = append(tx.d.Add, qs...) }

// Remove stages quads to remove.
func (tx *Tx) Remove(qs ...quad.Quad) { tx.d.Remove = append(tx.d.Remove, qs...) }

// Pin stages terms to pin (see Delta.Pin).
func (tx *Tx) Pin(vs ...quad.Value) { tx.d.Pin = append(tx.d.Pin, vs...) }

// Namespace returns the namespace being updated, for reads.
func (tx *Tx) Namespace() *Namespace { return tx.n }

// Generation returns the namespace's write generation as the Update found
// it (writeGen). Every write of the namespace advances it by one, whether
// it commits or fails: a delta or side-table write (Apply, Update, DropGraph,
// a journaled delta) and each chunk or segment of an import. An Update
// whose fn stages nothing writes nothing and leaves it as it was.
func (tx *Tx) Generation() uint64 { return tx.n.writeGen }

// pinSet returns the normalised terms of pin as a set (nil if none). A term
// that is not valid in a quad cannot be used by one, and is left out.
func pinSet(pin []quad.Value) map[quad.Value]bool {
	if len(pin) == 0 {
		return nil
	}
	set := make(map[quad.Value]bool, len(pin))
	for _, v := range pin {
		if v == nil {
			continue
		}
		if nv, err := NormalizeTerm(v); err == nil {
			set[nv] = true
		}
	}
	return set
}

func (n *Namespace) applyLocked(ctx context.Context, remove, add []quad.Quad, pins map[quad.Value]bool, side *sideOps) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := n.s.checkOpen(); err != nil {
		return err
	}
	if n.s.opts.readOnly {
		return fmt.Errorf("namespace %s: %w", n.name, ErrReadOnly)
	}
	if max := n.s.maxTerm(); max > 0 {
		err := checkTermSizes(add, max)
		if err == nil {
			err = side.checkRowSizes(max)
		}
		if err != nil {
			return fmt.Errorf("namespace %s: %w", n.name, err)
		}
	}
	n.writeGen++
	if len(remove) > 0 {
		n.removeGen++
	}
	var err error
	journaled := false
	// A side-table row costs a key or two, a quad about seven: counting a
	// row as a quad keeps a transaction within Badger's limits for rows of
	// up to ~2 KB.
	if len(remove)+len(add)+side.len() <= n.s.tune.MaxDeltaQuads {
		_, err = n.writeDelta(ctx, remove, add, pins, side)
		if errors.Is(err, badger.ErrTxnTooBig) {
			// More entries (many new terms) or bytes (long literals, wide
			// side-table rows) than one Badger transaction holds. Nothing
			// was written; journal it like a delta of many quads.
			journaled = true
			_, err = n.writeDeltaJournaled(ctx, remove, add, pins, side)
		}
	} else {
		journaled = true
		_, err = n.writeDeltaJournaled(ctx, remove, add, pins, side)
	}
	if err != nil {
		return fmt.Errorf("namespace %s: write: %w", n.name, n.s.closedErr(err))
	}
	n.writes.add(len(remove)+len(add), n.lastEntries, journaled)
	return nil
}

// normalizeDelta validates and normalises d, drops duplicates and the
// removals of quads that are also added.
func normalizeDelta(d Delta) (remove, add []quad.Quad, err error) {
	var z quadNormalizer
	added := make(map[quad.Quad]struct{}, len(d.Add))
	add = make([]quad.Quad, 0, len(d.Add))
	for _, q := range d.Add {
		nq, err := z.normalize(q)
		if err != nil {
			return nil, nil, err
		}
		if _, dup := added[nq]; dup {
			continue
		}
		added[nq] = struct{}{}
		add = append(add, nq)
	}
	removed := make(map[quad.Quad]struct{}, len(d.Remove))
	rz := quadNormalizer{stored: true}
	for _, q := range d.Remove {
		nq, err := rz.normalize(q)
		if err != nil {
			return nil, nil, err
		}
		if _, ok := added[nq]; ok {
			continue
		}
		if _, dup := removed[nq]; dup {
			continue
		}
		removed[nq] = struct{}{}
		remove = append(remove, nq)
	}
	return remove, add, nil
}
