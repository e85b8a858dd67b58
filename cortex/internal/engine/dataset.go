package engine

import (
	"context"
	"fmt"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/eval"
)

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
// (eval.AllGraphs) reports each triple once (eval.TripleMerger).
func (n *Namespace) Dataset() Dataset { return &nsDataset{n: n} }

// nsDataset adapts a namespace to eval.Dataset. With snap set (a query's dataset, see Query) every read
// goes through that one snapshot; without, each call opens its own.
type nsDataset struct {
	n    *Namespace
	snap *snapshot
}

var (
	_ Dataset           = (*nsDataset)(nil)
	_ eval.StatsCacher  = (*nsDataset)(nil)
	_ eval.TripleMerger = (*nsDataset)(nil)
	_ eval.GroupSkipper = (*idIter)(nil)
)

// StatsCache implements eval.StatsCacher: statistics are kept until the namespace is next written.
func (d *nsDataset) StatsCache() *eval.StatsCache { return d.n.planStats() }

// MergesTriples implements eval.TripleMerger.
func (d *nsDataset) MergesTriples() bool { return true }

// with runs fn with the dataset's snapshot, or a snapshot of its own. A
// call of its own (no snapshot: a host's, not a query's) first checks ctx:
// the evaluator checks a query's.
func (d *nsDataset) with(ctx context.Context, fn func(s *snapshot) error) error {
	if d.snap != nil {
		return d.n.s.closedErr(fn(d.snap))
	}
	if err := d.n.ctxErr(ctx); err != nil {
		return err
	}
	s, err := d.n.openSnapshot(ctx)
	if err != nil {
		return err
	}
	err = fn(s)
	if cerr := s.close(); err == nil {
		err = cerr
	}
	return d.n.s.closedErr(err)
}

func (d *nsDataset) IDs(ctx context.Context, terms []quad.Value) ([]eval.ID, error) {
	vals := make([]quad.Value, len(terms))
	for i, t := range terms {
		if t == nil {
			continue
		}
		nt, err := normalizeStored(t)
		if err != nil {
			continue // not a term a quad can hold, hence not stored
		}
		vals[i] = nt
	}
	var ids []termID
	err := d.with(ctx, func(s *snapshot) error {
		var err error
		ids, err = d.n.termIDs(ctx, s, vals)
		return err
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

func (d *nsDataset) Terms(ctx context.Context, ids []eval.ID) ([]quad.Value, error) {
	out := make([]quad.Value, len(ids))
	err := d.with(ctx, func(s *snapshot) error { return s.terms(ctx, ids, out) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (d *nsDataset) TermsBatch(ctx context.Context, ids []eval.ID) ([]quad.Value, error) {
	if err := d.n.ctxErr(ctx); err != nil {
		return nil, err
	}
	vals, err := d.n.termsBatch(ctx, ids, false)
	return vals, d.n.s.closedErr(err)
}

func (d *nsDataset) PinnedTermsBatch(ctx context.Context, ids []eval.ID) ([]quad.Value, error) {
	if err := d.n.ctxErr(ctx); err != nil {
		return nil, err
	}
	vals, err := d.n.termsBatch(ctx, ids, true)
	return vals, d.n.s.closedErr(err)
}

func (d *nsDataset) Match(ctx context.Context, p eval.Pattern) eval.QuadIterator {
	if err := checkScope(p.Scope); err != nil {
		return &idIter{it: &snapIter{done: true, err: fmt.Errorf("namespace %s: match: %w", d.n.name, err)}}
	}
	if d.snap != nil {
		return &idIter{it: d.snap.match(p, true)}
	}
	if err := d.n.ctxErr(ctx); err != nil {
		return &idIter{it: &snapIter{done: true, err: err}}
	}
	if p.Scope != eval.AllGraphs {
		// A scan of its own: an iterator bounded by the pattern's key
		// prefix, which Badger prunes tables and memtable ranges with
		// (the snapshot's iterators span a whole index, to be reused by a
		// query's scans). Triples need no merging outside AllGraphs. A
		// team update's reads of its team went 4× faster this way.
		return d.n.matchIDs(ctx, p)
	}
	s, err := d.n.openSnapshot(ctx)
	if err != nil {
		return &idIter{it: &snapIter{done: true, err: err}}
	}
	return &idIter{it: s.match(p, true), own: s}
}

func (d *nsDataset) NamedGraphs(ctx context.Context) ([]eval.ID, error) {
	var gs []termID
	err := d.with(ctx, func(s *snapshot) error {
		var err error
		gs, err = d.n.namedGraphIDs(ctx, s)
		return err
	})
	if err != nil {
		return nil, err
	}
	return gs, nil
}

func (d *nsDataset) Estimate(ctx context.Context, p eval.Pattern) (int64, error) {
	if err := checkScope(p.Scope); err != nil {
		return 0, fmt.Errorf("namespace %s: estimate: %w", d.n.name, err)
	}
	var c int64
	err := d.with(ctx, func(s *snapshot) error {
		var err error
		c, err = d.n.estimate(ctx, s, p)
		return err
	})
	return c, err
}

// ctxErr returns an error wrapping ctx's if it has ended: a read of the
// dataset checks it once, when it is called.
func (n *Namespace) ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("namespace %s: %w", n.name, err)
	}
	return nil
}

// idIter adapts a snapIter to eval.QuadIterator; own, when set, is a snapshot opened for this
// iterator alone and closed with it.
type idIter struct {
	it  *snapIter
	own *snapshot
}

func (i *idIter) Next(ctx context.Context) bool { return i.it.Next(ctx) }
func (i *idIter) Quad() eval.Quad {
	return i.it.cur
}
func (i *idIter) Err() error {
	if i.it.s == nil {
		return i.it.Err()
	}
	return i.it.s.n.s.closedErr(i.it.Err())
}

// SkipGroup implements eval.GroupSkipper.
func (i *idIter) SkipGroup(pos int) {
	switch pos {
	case 0:
		i.it.SkipGroup(quad.Subject)
	case 1:
		i.it.SkipGroup(quad.Predicate)
	case 2:
		i.it.SkipGroup(quad.Object)
	}
}
func (i *idIter) Close() error {
	err := i.it.Close()
	if i.own != nil {
		if cerr := i.own.close(); err == nil {
			err = cerr
		}
		i.own = nil
	}
	return err
}
