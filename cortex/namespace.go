package cortex

import (
	"context"
	"fmt"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/internal/engine"
	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
)

// Namespace is one isolated knowledge graph inside a Store: a default graph and
// any number of named graphs. Nothing of one namespace is visible from another;
// the same graph IRI in two namespaces names two separate graphs.
//
// A Namespace is safe for concurrent use. Writes to one namespace are
// serialised; reads run concurrently with them and see committed data only.
type Namespace struct {
	s *Store
	e *engine.Namespace
}

// Name returns the namespace's name.
func (n *Namespace) Name() string { return n.e.Name() }

// Base returns the IRI base recorded when the namespace was created
// (namespace.DefaultBasePrefix+name for namespaces created without
// WithBase, or before bases were recorded).
func (n *Namespace) Base() string { return n.e.Base() }

// Done returns a channel closed when n ends: DeleteNamespace deleted the
// namespace, or the store was closed. Err then says which. A subscriber
// to the namespace's changes selects on it so as not to wait for writes
// that can no longer come.
func (n *Namespace) Done() <-chan struct{} { return n.e.Done() }

// Err returns nil while Done is open, then an error matching
// ErrNoNamespace (and ErrNotFound) if DeleteNamespace deleted the
// namespace, or ErrClosed if the store was closed.
func (n *Namespace) Err() error { return n.e.Err() }

// Size returns the number of quads in the namespace (all graphs). If ctx
// has ended when it is called, it returns an error wrapping ctx's error
// (context.Canceled or context.DeadlineExceeded) and reads nothing.
func (n *Namespace) Size(ctx context.Context) (int64, error) { return n.e.Size(ctx) }

// WriteStats are a namespace's write counters since its store opened it
// (Namespace.WriteStats). They are cumulative: the difference of two
// readings describes the writes between them. They show where a write
// waits: for the namespace's write lock (LockWait), and for Badger, whose
// one writer goroutine inserts every entry of every commit (Entries).
type WriteStats struct {
	// Deltas counts the deltas committed (Apply, Update, and every write
	// of the team manager), Journaled those of them written as journaled
	// deltas (larger than one Badger transaction: they hold the store's
	// other transactions back while they are written). Imports are not
	// deltas.
	Deltas, Journaled int64
	// Quads counts the quads those deltas added or removed, as given
	// (normalised, duplicates dropped; a quad added that was already there
	// counts), Entries the Badger keys they wrote or deleted: four index
	// keys and a log entry per quad, three keys for a new term, one for a
	// term whose reference count changes, meta keys and side-table rows.
	Quads, Entries int64
	// LockAcquired counts the times the namespace's write lock was taken
	// (by deltas, import chunks and segments, maintenance), LockWaited
	// those that had to wait for another writer; LockWait is the time they
	// waited, LockHeld the time the lock was held in all. A wait given up
	// because its context ended counts in neither.
	LockAcquired, LockWaited int64
	LockWait, LockHeld       time.Duration
	// LockWaiting is not a counter: the writers waiting for the lock at
	// the reading (its queue, which they leave in the order they came).
	LockWaiting int64
}

// WriteStats returns n's write counters. It is safe for concurrent use;
// the fields are read one by one, so a reading taken while writes run may
// count one of them in some fields and not yet in others.
func (n *Namespace) WriteStats() WriteStats { return WriteStats(n.e.WriteStats()) }

// Check verifies the invariants of namespace n as Store.Check does (see
// there), in one read transaction: nil if it is consistent, a *CheckError
// (matching ErrCorrupt) if not, an error matching ErrNoNamespace if it was
// deleted, an error wrapping ctx's if ctx has ended when it is called. It
// never writes and is safe for concurrent use.
func (n *Namespace) Check(ctx context.Context) error { return n.e.Check(ctx) }

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
// 2.5 MB with the default 16 MiB memtables (a quad writes five entries, a
// new term three more). A larger one, or one that does not fit, is journaled:
// its writes are computed first, alongside readers, and held in memory (a
// few hundred bytes per quad); then new transactions of the store are held
// back while its keys are written (open ones go on with their older
// snapshots; a delta of ~200k Badger entries or more is streamed and waits
// for them to end first), and a crash in the middle is rolled back by the
// next Open. For bulk loads that need not be
// atomic, Import bounds its memory and lets readers in between segments.
// Writers of a namespace take turns; one waiting for its turn gives up when
// ctx ends, with ctx's error, having written nothing.
func (n *Namespace) Apply(ctx context.Context, d Delta) error {
	return n.e.Apply(ctx, engine.Delta(d))
}

// Update runs fn with exclusive write access to the namespace and then applies
// the delta fn staged in tx, atomically. Reads made by fn (through tx or the
// namespace) see the latest committed state and no other writer can change it
// before the delta is applied: Update is an atomic read-modify-write. If fn
// returns an error nothing is written and the error is returned as is. A
// delta of any size is all or nothing, as with Apply; fn must close what it
// reads (queries, iterators) before it returns, or a streamed delta (see
// Apply) waits for them and fails with ErrBusy. Like Apply, Update gives up
// waiting for its turn when ctx ends; if ctx has ended when its turn comes
// (or when it is called), fn is not run and the error wraps ctx's. On a
// store opened read-only fn runs (it may read) and a delta or side-table
// write it stages fails with ErrReadOnly; one that stages nothing returns
// fn's result. A nil fn is an error matching ErrInvalidArgument.
func (n *Namespace) Update(ctx context.Context, fn func(tx *Tx) error) error {
	if fn == nil {
		return n.nilArgument("update", "function")
	}
	return n.e.Update(ctx, func(t *engine.Tx) error { return fn(&Tx{n: n, t: t}) })
}

// TryUpdate is Update if the namespace's write lock is free at once: it
// reports false, without running fn, if another write holds it (or the
// caller does, inside an Update of its own). It never waits for the lock.
// With the lock free, it reports true whatever the error, as Update: a
// context that has ended, or a closed store, is an error and fn is not run.
// The result is thus whether the lock was free, not whether fn ran: check
// err first, as after Update; false with a nil error means another write
// held the lock. A nil fn is an error matching ErrInvalidArgument, reported
// with false (no lock is tried).
func (n *Namespace) TryUpdate(ctx context.Context, fn func(tx *Tx) error) (bool, error) {
	if fn == nil {
		return false, n.nilArgument("update", "function")
	}
	return n.e.TryUpdate(ctx, func(t *engine.Tx) error { return fn(&Tx{n: n, t: t}) })
}

// Tx stages a delta inside Update, and side-table writes (see "Storage" in
// the package documentation). It is valid only during the Update call and
// must not be used from other goroutines.
type Tx struct {
	n *Namespace
	t *engine.Tx
}

// Add stages quads to add.
func (tx *Tx) Add(qs ...quad.Quad) { tx.t.Add(qs...) }

// Remove stages quads to remove.
func (tx *Tx) Remove(qs ...quad.Quad) { tx.t.Remove(qs...) }

// Pin stages terms to pin (see Delta.Pin).
func (tx *Tx) Pin(vs ...quad.Value) { tx.t.Pin(vs...) }

// Namespace returns the namespace being updated, for reads.
func (tx *Tx) Namespace() *Namespace { return tx.n }

// Generation returns the namespace's write generation as this Update found
// it. Every write of the namespace's quads or side tables (Apply, Update,
// DropGraph, each chunk of an import) advances it by one, committed or
// failed; an Update that stages nothing leaves it as it was. So if an
// Update that staged a write found generation g and returned nil, and a
// later Update finds g+1, nothing else has written the namespace in
// between: a host may reuse what it read in the first (and did not change)
// without reading it again. Generations start at 0 when the namespace is
// opened and are not stored.
func (tx *Tx) Generation() uint64 { return tx.t.Generation() }

// Scope selects the graphs a pattern matches in (eval.Scope).
type Scope = eval.Scope

// Graph scopes.
const (
	// AllGraphs matches quads of every graph of the namespace (default and named).
	AllGraphs = eval.AllGraphs
	// DefaultGraph matches quads of the namespace's default graph only.
	DefaultGraph = eval.DefaultGraph
	// OneGraph matches quads of the graph named by the pattern's G.
	OneGraph = eval.OneGraph
	// NamedGraphs matches quads of every named graph (not the default graph).
	NamedGraphs = eval.NamedGraphs
)

// Pattern selects quads by terms; a nil Subject, Predicate or Object matches
// anything. Graph is used only with Scope OneGraph (nil: the default graph),
// and must then be a graph name as in a quad: an IRI or a blank node. Scope
// must be one of the four scopes above.
type Pattern struct {
	Subject, Predicate, Object, Graph quad.Value
	Scope                             Scope
}

// Quads returns the quads matching p, in index order. A pattern naming a term
// that does not occur matches nothing. A pattern no quad could match for its
// form is refused before anything is read, with an error matching
// ErrInvalidArgument: a Scope out of range, a Graph that is not a graph name
// (a literal, a malformed IRI), a malformed IRI in any position (these also
// match ErrInvalidQuad, as a write of a quad holding them does). If ctx has
// ended when it is called, the error wraps ctx's error (context.Canceled or
// context.DeadlineExceeded); if it ends during the scan, the scan stops with
// that error.
func (n *Namespace) Quads(ctx context.Context, p Pattern) ([]quad.Quad, error) {
	return n.e.Quads(ctx, engine.Pattern(p))
}

// EachQuad calls fn for every quad matching p; an error from fn stops the
// iteration and is returned. A nil fn, or a pattern Quads refuses, is an
// error matching ErrInvalidArgument; a context that has ended is an error
// wrapping its error, as with Quads.
func (n *Namespace) EachQuad(ctx context.Context, p Pattern, fn func(quad.Quad) error) error {
	if fn == nil {
		return n.nilArgument("each quad", "function")
	}
	return n.e.EachQuad(ctx, engine.Pattern(p), fn)
}

// GraphInfo describes one graph of a namespace.
type GraphInfo struct {
	Name  quad.Value // nil for the default graph
	Quads int64
}

// Graphs lists the graphs of the namespace that hold at least one quad, with
// their sizes: the default graph first (if not empty), then named graphs in
// term order. It reads every quad of the namespace once.
func (n *Namespace) Graphs(ctx context.Context) ([]GraphInfo, error) {
	gs, err := n.e.Graphs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]GraphInfo, len(gs))
	for i, g := range gs {
		out[i] = GraphInfo(g)
	}
	return out, nil
}

// Query runs a SPARQL 1.1 query over the namespace (see package sparql). The query sees this namespace
// only: its default graph and named graphs as chosen by opts.DefaultGraph (union of all graphs by
// default), FROM and FROM NAMED. It reads one consistent state of the namespace (a read transaction
// opened by Query and held until the result is closed): writes made meanwhile are not seen. The result
// streams from the store and must be closed: a result the program drops without closing it is closed
// by the garbage collector (which a large write that waits for it runs), and Store.Close reports the
// results still open, with where they were opened (ErrResultsOpen).
//
// Parameters: opts.Bindings (or opts.Bind) give variables values without writing them into the text,
// so that no value can change the query, whatever characters it holds (see sparql.Options.Bindings).
// Values are normalised as stored terms are (NormalizeTerm: quad.Int, quad.Float, quad.Bool and
// quad.Time become the typed literals the store writes for them); a value the store cannot hold, such as
// an IRI with a space or '>', fails with an error wrapping sparql.ErrInvalidBinding, and so do blank
// nodes. Prefer bindings to fmt: a quad.IRI prints with its own angle brackets, so
// fmt.Sprintf("<%s>", iri) yields "<<...>>", which the parser rejects, saying so.
//
// If ctx has ended when Query is called, it returns an error wrapping ctx's error (context.Canceled or
// context.DeadlineExceeded) and opens nothing.
func (n *Namespace) Query(ctx context.Context, text string, opts sparql.Options) (*sparql.Result, error) {
	return n.e.Query(ctx, text, opts)
}

// Explain returns the evaluation plan of a SPARQL query over the namespace without running it, with
// opts.Bindings applied as Query applies them. If ctx has ended when it is called, it returns an error
// wrapping ctx's error.
func (n *Namespace) Explain(ctx context.Context, text string, opts sparql.Options) (string, error) {
	return n.e.Explain(ctx, text, opts)
}

// Dataset is the id-level view of a namespace: the SPARQL evaluator's dataset (term ids are the
// namespace's own ids, graphs its default and named graphs), with the batch reads of a host that keeps
// structures of its own in the graph (Cortex's team manager). Ids, patterns, quads and scopes are the
// evaluator's types (package eval); an id is stable for as long as a quad uses its term.
type Dataset interface {
	eval.Dataset
	// TermsBatch is Terms built for thousands of ids at once: each distinct id is read once, and the
	// misses of the term cache are read in key order through one Badger iterator of one snapshot,
	// stepping to near neighbours (ids written by the same write are adjacent in the log) and seeking
	// across larger gaps, instead of one point lookup per id; large batches are split into key ranges
	// read concurrently. Resolved terms enter the term cache.
	TermsBatch(ctx context.Context, ids []eval.ID) ([]quad.Value, error)
	// PinnedTermsBatch is TermsBatch for ids that are mostly pinned (see Delta.Pin): the misses of
	// the term cache are read from the pins first, a small table read in key order, and only those
	// still missing from the log. For ids that are not pinned it costs up to a seek each more than
	// TermsBatch.
	PinnedTermsBatch(ctx context.Context, ids []eval.ID) ([]quad.Value, error)
}

// Dataset returns the namespace's id-level view. Each call of its methods reads the committed data at
// the time of the call (a scan reads one consistent state); it is safe for concurrent use. Inside
// Update, the dataset of Tx.Namespace sees the state the update is based on. A scan of all graphs
// (eval.AllGraphs) reports each triple once (eval.TripleMerger). Match and Estimate refuse a pattern
// whose Scope is none of the four scopes with an error matching ErrInvalidArgument (Match's iterator
// reports it from Err). A call (Match: its iterator) with a context that has already ended fails with an
// error wrapping the context's error and reads nothing. IDs gives 0 for a term no quad can hold (a malformed IRI), as for any term
// that does not occur: it is the evaluator's lookup of a query's constants.
//
// An iterator of Match holds a read transaction until its Close, which the caller must call (reading
// it to the end is not enough). Unlike a query result, an iterator left open is not closed by the
// garbage collector: Store.Close waits for it the full Tuning.CloseWait (30 seconds by default), and
// after Close its Next returns false and its Err matches ErrClosed.
func (n *Namespace) Dataset() Dataset { return n.e.Dataset() }

// PinnedTerms returns the terms pinned in the namespace (see Delta.Pin), in
// the order of their ids. It is for diagnostics and tests; it reads the
// whole pin table. Store.Check verifies that every pin holds its term's
// current id.
func (n *Namespace) PinnedTerms(ctx context.Context) ([]quad.Value, error) {
	return n.e.PinnedTerms(ctx)
}

// nilArgument is the error of a call of op given a nil what (a function,
// a reader, a writer, a source): it matches ErrInvalidArgument.
func (n *Namespace) nilArgument(op, what string) error {
	return fmt.Errorf("namespace %s: %s: %w: nil %s", n.Name(), op, ErrInvalidArgument, what)
}
