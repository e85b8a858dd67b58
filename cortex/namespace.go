package cortex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/cayleygraph/cayley/graph"
	ckv "github.com/cayleygraph/cayley/graph/kv"
	"github.com/cayleygraph/quad"
	"github.com/dgraph-io/badger/v4"
	hkv "github.com/hidal-go/hidalgo/kv"
	"github.com/hidal-go/hidalgo/kv/flat"
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
	kv   hkv.KV

	wmu sync.Mutex // serialises writers: Apply, Update, Import chunks

	// Write generations, guarded by wmu. writeGen counts write attempts
	// (cayley deltas and bulk-import chunks), removeGen those of deltas with
	// removals. A bulk import compares them between its chunks to tell
	// whether its in-memory knowledge of the namespace is still valid (see
	// bulk.go).
	writeGen, removeGen uint64

	qmu sync.RWMutex
	qs  *ckv.QuadStore // replaced after a failed write (its caches may be stale)

	cache valueCache
}

// indexes are the quad indexes of every Cortex namespace: subject-predicate
// and object-predicate-subject (cayley's defaults), predicate-object-subject
// (patterns with only a predicate bound) and graph-subject-predicate (graph
// scans and listing).
var indexes = []ckv.QuadIndex{
	{Dirs: []quad.Direction{quad.Subject, quad.Predicate}},
	{Dirs: []quad.Direction{quad.Object, quad.Predicate, quad.Subject}},
	{Dirs: []quad.Direction{quad.Predicate, quad.Object, quad.Subject}},
	{Dirs: []quad.Direction{quad.Label, quad.Subject, quad.Predicate}},
}

var qsOptions = graph.Options{ckv.OptNoBloom: true}

func openNamespace(ctx context.Context, s *Store, name string) (*Namespace, error) {
	n := &Namespace{s: s, name: name, kv: flat.Upgrade(s.nsView(name))}
	n.cache.init(s.opts.valueCache)
	qs, err := ckv.New(n.kv, qsOptions)
	if errors.Is(err, graph.ErrNotInitialized) {
		if s.opts.readOnly {
			return nil, fmt.Errorf("%w: namespace does not exist (store opened read-only)", ErrNotFound)
		}
		if err := initNamespace(ctx, s, n.kv, name); err != nil {
			return nil, err
		}
		qs, err = ckv.New(n.kv, qsOptions)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	n.qs = qs.(*ckv.QuadStore)
	return n, nil
}

func initNamespace(ctx context.Context, s *Store, db hkv.KV, name string) error {
	if err := ckv.Init(db, qsOptions); err != nil && !errors.Is(err, graph.ErrDatabaseExists) {
		return fmt.Errorf("init: %w", err)
	}
	meta, err := json.Marshal(indexes)
	if err != nil {
		return err
	}
	err = hkv.Update(ctx, db, func(tx hkv.Tx) error {
		return tx.Put(hkv.Key{[]byte("meta"), []byte("indexes")}, meta)
	})
	if err != nil {
		return fmt.Errorf("init indexes: %w", err)
	}
	return s.db.Update(func(txn *badger.Txn) error {
		return txn.Set([]byte(registryPrefix+name), nil)
	})
}

// Name returns the namespace's name.
func (n *Namespace) Name() string { return n.name }

func (n *Namespace) quadStore() *ckv.QuadStore {
	n.qmu.RLock()
	defer n.qmu.RUnlock()
	return n.qs
}

// resetQuadStore replaces the cayley quadstore after a failed write: cayley
// caches term ids in memory before commit, so a rolled-back transaction can
// leave ids in its cache that were never written.
func (n *Namespace) resetQuadStore() error {
	qs, err := ckv.New(n.kv, qsOptions)
	if err != nil {
		return fmt.Errorf("reopen quadstore: %w", err)
	}
	n.qmu.Lock()
	n.qs = qs.(*ckv.QuadStore)
	n.qmu.Unlock()
	return nil
}

func (n *Namespace) close() error {
	return n.kv.Close()
}

// Size returns the number of quads in the namespace (all graphs).
func (n *Namespace) Size(ctx context.Context) (int64, error) {
	if err := n.s.checkOpen(); err != nil {
		return 0, err
	}
	st, err := n.quadStore().Stats(ctx, false)
	if err != nil {
		return 0, fmt.Errorf("namespace %s: size: %w", n.name, err)
	}
	return st.Quads.Value, nil
}

// Delta is a set of quads to remove and quads to add. Quads are a set: adding a
// quad that exists or removing one that does not is not an error. A quad in
// both lists ends up present.
type Delta struct {
	Remove []quad.Quad
	Add    []quad.Quad
}

// Len returns the number of quads in the delta.
func (d Delta) Len() int { return len(d.Add) + len(d.Remove) }

// Apply writes d atomically: either every change is made or none. A delta of
// more than MaxDeltaQuads quads is refused with ErrDeltaTooLarge (use Import).
func (n *Namespace) Apply(ctx context.Context, d Delta) error {
	if d.Len() > MaxDeltaQuads {
		return fmt.Errorf("namespace %s: %w: %d quads (limit %d)", n.name, ErrDeltaTooLarge, d.Len(), MaxDeltaQuads)
	}
	deltas, err := toDeltas(d)
	if err != nil {
		return fmt.Errorf("namespace %s: %w", n.name, err)
	}
	n.wmu.Lock()
	defer n.wmu.Unlock()
	return n.applyLocked(ctx, deltas)
}

// Update runs fn with exclusive write access to the namespace and then applies
// the delta fn staged in tx, atomically. Reads made by fn (through tx or the
// namespace) see the latest committed state and no other writer can change it
// before the delta is applied: Update is an atomic read-modify-write. If fn
// returns an error nothing is written and the error is returned as is.
func (n *Namespace) Update(ctx context.Context, fn func(tx *Tx) error) error {
	n.wmu.Lock()
	defer n.wmu.Unlock()
	if err := n.s.checkOpen(); err != nil {
		return err
	}
	tx := &Tx{n: n}
	if err := fn(tx); err != nil {
		return err
	}
	if tx.d.Len() == 0 {
		return nil
	}
	if tx.d.Len() > MaxDeltaQuads {
		return fmt.Errorf("namespace %s: %w: %d quads (limit %d)", n.name, ErrDeltaTooLarge, tx.d.Len(), MaxDeltaQuads)
	}
	deltas, err := toDeltas(tx.d)
	if err != nil {
		return fmt.Errorf("namespace %s: %w", n.name, err)
	}
	return n.applyLocked(ctx, deltas)
}

// Tx stages a delta inside Update. It is valid only during the Update call and
// must not be used from other goroutines.
type Tx struct {
	n *Namespace
	d Delta
}

// Add stages quads to add.
func (tx *Tx) Add(qs ...quad.Quad) { tx.d.Add = append(tx.d.Add, qs...) }

// Remove stages quads to remove.
func (tx *Tx) Remove(qs ...quad.Quad) { tx.d.Remove = append(tx.d.Remove, qs...) }

// Namespace returns the namespace being updated, for reads.
func (tx *Tx) Namespace() *Namespace { return tx.n }

func (n *Namespace) applyLocked(ctx context.Context, deltas []graph.Delta) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := n.s.checkOpen(); err != nil {
		return err
	}
	if n.s.opts.readOnly {
		return fmt.Errorf("namespace %s: store is read-only", n.name)
	}
	n.writeGen++
	if hasRemovals(deltas) {
		n.removeGen++
	}
	err := n.quadStore().ApplyDeltas(deltas, graph.IgnoreOpts{IgnoreDup: true, IgnoreMissing: true})
	if err != nil {
		if rerr := n.resetQuadStore(); rerr != nil {
			return errors.Join(fmt.Errorf("namespace %s: write: %w", n.name, err), rerr)
		}
		return fmt.Errorf("namespace %s: write: %w", n.name, err)
	}
	if hasRemovals(deltas) {
		n.cache.clear()
	}
	return nil
}

func hasRemovals(ds []graph.Delta) bool {
	for _, d := range ds {
		if d.Action == graph.Delete {
			return true
		}
	}
	return false
}

// toDeltas validates and normalises d and converts it to cayley deltas,
// removals first, dropping removals of quads that are also added.
func toDeltas(d Delta) ([]graph.Delta, error) {
	out := make([]graph.Delta, 0, d.Len())
	added := make(map[quad.Quad]struct{}, len(d.Add))
	adds := make([]quad.Quad, 0, len(d.Add))
	for _, q := range d.Add {
		nq, err := NormalizeQuad(q)
		if err != nil {
			return nil, err
		}
		if _, dup := added[nq]; dup {
			continue
		}
		added[nq] = struct{}{}
		adds = append(adds, nq)
	}
	removed := make(map[quad.Quad]struct{}, len(d.Remove))
	for _, q := range d.Remove {
		nq, err := NormalizeQuad(q)
		if err != nil {
			return nil, err
		}
		if _, ok := added[nq]; ok {
			continue
		}
		if _, dup := removed[nq]; dup {
			continue
		}
		removed[nq] = struct{}{}
		out = append(out, graph.Delta{Quad: nq, Action: graph.Delete})
	}
	for _, q := range adds {
		out = append(out, graph.Delta{Quad: q, Action: graph.Add})
	}
	return out, nil
}
