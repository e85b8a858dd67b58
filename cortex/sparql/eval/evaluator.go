package eval

import (
	"context"
	"errors"
	"fmt"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/builtin"
	"github.com/cortexgraph/cortex/internal/ctxcause"
)

// localBit marks ids of terms computed by the evaluator that the dataset does not hold.
const localBit = ID(1) << 63

// row is one solution: row[slot] is the id bound to the variable of that slot, 0 when unbound.
type row []ID

func (r row) clone() row { return append(row(nil), r...) }

// sink receives solutions. The row is only valid during the call; returning errStop ends the evaluation
// early without error.
type sink func(r row) error

// errStop is returned by sinks that want no more solutions.
var errStop = errors.New("stop")

// skipSignal is returned by a scan callback to say that the following quads holding the current quad's
// term in position pos are of no interest (a filter on that term failed); the scan may skip them.
type skipSignal struct{ pos int }

func (*skipSignal) Error() string { return "skip group" }

var skipPos = [3]*skipSignal{{0}, {1}, {2}}

// gctx is the active graph: the query's default graph, or one named graph.
type gctx struct {
	named bool
	g     ID
}

// defaultGraph describes how the query's default graph is formed.
type defaultGraph struct {
	empty  bool
	scope  Scope // AllGraphs (union, deduplicated), DefaultGraph or OneGraph (graphs[0])
	graphs []ID  // with several entries: the RDF merge of these graphs
}

// evaluator holds the per-query state. It is used by one goroutine at a time.
type evaluator struct {
	ds       Dataset
	nvars    int
	cache    map[ID]quad.Value
	local    []quad.Value
	localIDs map[string]ID
	bctx     *builtin.Context
	dflt     defaultGraph
	named    []ID // nil with namedAll
	namedAll bool
	namedSet map[ID]bool
	fatal    error // a dataset failure met while evaluating an expression
	tables   map[tableKey]*hashTable
	ticks    uint32
	merges   bool // ds reports each triple of AllGraphs once (TripleMerger)
	// subst is the solution whose bindings an EXISTS being evaluated substitutes into its pattern
	// (nil outside EXISTS), substGen numbers it (0 outside EXISTS) and substSeq counts them.
	subst              row
	substGen, substSeq uint64
}

// tick checks for cancellation every few thousand calls; loops that read no quads call it.
func (ev *evaluator) tick(ctx context.Context) error {
	ev.ticks++
	if ev.ticks&4095 == 0 {
		return ctxcause.Err(ctx)
	}
	return nil
}

const maxCache = 1 << 18

// term returns the term of id (nil for 0).
func (ev *evaluator) term(ctx context.Context, id ID) quad.Value {
	if id == 0 {
		return nil
	}
	if id&localBit != 0 {
		return ev.local[id&^localBit-1]
	}
	if v, ok := ev.cache[id]; ok {
		return v
	}
	vs, err := ev.ds.Terms(ctx, []ID{id})
	if err != nil {
		if ev.fatal == nil {
			ev.fatal = err
		}
		return nil
	}
	if len(ev.cache) >= maxCache {
		clear(ev.cache)
	}
	ev.cache[id] = vs[0]
	return vs[0]
}

// terms fills out with the terms of ids, fetching cache misses in one batch.
func (ev *evaluator) terms(ctx context.Context, ids []ID, out []quad.Value) error {
	var miss []ID
	for i, id := range ids {
		switch {
		case id == 0:
			out[i] = nil
		case id&localBit != 0:
			out[i] = ev.local[id&^localBit-1]
		default:
			if v, ok := ev.cache[id]; ok {
				out[i] = v
			} else {
				out[i] = nil
				miss = append(miss, id)
			}
		}
	}
	if len(miss) == 0 {
		return nil
	}
	vs, err := ev.ds.Terms(ctx, miss)
	if err != nil {
		return err
	}
	if len(ev.cache)+len(miss) >= maxCache {
		clear(ev.cache)
	}
	for i, id := range miss {
		ev.cache[id] = vs[i]
	}
	for i, id := range ids {
		if id != 0 && id&localBit == 0 {
			out[i] = ev.cache[id]
		}
	}
	return nil
}

// intern returns the id of v: the dataset's id when it holds v, otherwise a local id.
func (ev *evaluator) intern(ctx context.Context, v quad.Value) ID {
	if v == nil {
		return 0
	}
	v = builtin.Normalize(v)
	k := termKey(v)
	if id, ok := ev.localIDs[k]; ok {
		return id
	}
	var id ID
	// Blank nodes made by BNODE() are fresh (never the dataset's); a blank node of the data that an
	// expression returned (BIND(?b AS ?c)) is looked up like any other term.
	if b, isB := v.(quad.BNode); !isB || !ev.bctx.BNodeScope.Minted(b) {
		ids, err := ev.ds.IDs(ctx, []quad.Value{v})
		if err != nil {
			if ev.fatal == nil {
				ev.fatal = err
			}
		} else {
			id = ids[0]
		}
	}
	if id == 0 {
		ev.local = append(ev.local, v)
		id = localBit | ID(len(ev.local))
	} else {
		if len(ev.cache) >= maxCache {
			clear(ev.cache)
		}
		ev.cache[id] = v
	}
	// A local id must be remembered for as long as the query runs: DISTINCT, GROUP BY and joins
	// compare ids, so the same computed term must get the same id every time. A dataset's id is only
	// cached (the dataset returns it again).
	if id&localBit != 0 || len(ev.localIDs) < maxCache {
		ev.localIDs[k] = id
	}
	return id
}

// scan calls fn for every quad matching (s, p, o) (0 = any) in the active graph. Triples of a default
// graph merged from several graphs are reported once. Local ids match nothing.
func (ev *evaluator) scan(ctx context.Context, g gctx, s, p, o ID, fn func(q Quad) error) error {
	if (s|p|o)&localBit != 0 {
		return nil
	}
	if g.named {
		if g.g == 0 || g.g&localBit != 0 {
			return nil
		}
		return ev.scanOne(ctx, Pattern{S: s, P: p, O: o, G: g.g, Scope: OneGraph}, nil, fn)
	}
	d := ev.dflt
	switch {
	case d.empty:
		return nil
	case len(d.graphs) > 1:
		seen := map[[3]ID]struct{}{}
		for _, gid := range d.graphs {
			if err := ev.scanOne(ctx, Pattern{S: s, P: p, O: o, G: gid, Scope: OneGraph}, seen, fn); err != nil {
				return err
			}
		}
		return nil
	case d.scope == OneGraph:
		return ev.scanOne(ctx, Pattern{S: s, P: p, O: o, G: d.graphs[0], Scope: OneGraph}, nil, fn)
	case d.scope == AllGraphs:
		var seen map[[3]ID]struct{}
		if s == 0 || p == 0 || o == 0 {
			if !ev.merges {
				seen = map[[3]ID]struct{}{}
			}
		} else {
			// Fully bound: one match is enough.
			found := false
			err := ev.scanOne(ctx, Pattern{S: s, P: p, O: o, Scope: AllGraphs}, nil, func(q Quad) error {
				found = true
				return errStop
			})
			if err != nil && !errors.Is(err, errStop) {
				return err
			}
			if found {
				return fn(Quad{S: s, P: p, O: o})
			}
			return nil
		}
		return ev.scanOne(ctx, Pattern{S: s, P: p, O: o, Scope: AllGraphs}, seen, fn)
	default:
		return ev.scanOne(ctx, Pattern{S: s, P: p, O: o, Scope: d.scope}, nil, fn)
	}
}

func (ev *evaluator) scanOne(ctx context.Context, pat Pattern, seen map[[3]ID]struct{}, fn func(q Quad) error) error {
	// A chain of operators descends one scan per link with a solution in hand, and a scan looks at
	// the context every 1,024 quads and when it ends: look before each scan too, or a chain of
	// 20,000 links runs to its bottom (seconds) after the context has ended.
	if err := ctxcause.Err(ctx); err != nil {
		return err
	}
	it := ev.ds.Match(ctx, pat)
	n := 0
	for it.Next(ctx) {
		q := it.Quad()
		if seen != nil {
			k := [3]ID{q.S, q.P, q.O}
			if _, dup := seen[k]; dup {
				continue
			}
			seen[k] = struct{}{}
		}
		if n++; n&1023 == 0 {
			if err := ctxcause.Err(ctx); err != nil {
				it.Close()
				return err
			}
		}
		if err := fn(q); err != nil {
			if sk, ok := err.(*skipSignal); ok {
				if gs, ok := it.(GroupSkipper); ok {
					gs.SkipGroup(sk.pos)
				}
				continue
			}
			it.Close()
			return err
		}
	}
	err := it.Err()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("match quads: %w", err)
	}
	return ctxcause.Err(ctx)
}

// namedGraphs returns the named graphs visible to the query.
func (ev *evaluator) namedGraphs(ctx context.Context) ([]ID, error) {
	if !ev.namedAll {
		return ev.named, nil
	}
	if ev.named == nil {
		gs, err := ev.ds.NamedGraphs(ctx)
		if err != nil {
			return nil, err
		}
		if gs == nil {
			gs = []ID{}
		}
		ev.named = gs
	}
	return ev.named, nil
}

// isNamed reports whether g is a named graph visible to the query.
func (ev *evaluator) isNamed(ctx context.Context, g ID) (bool, error) {
	if g == 0 || g&localBit != 0 {
		return false, nil
	}
	if !ev.namedAll {
		return ev.namedSet[g], nil
	}
	// Any graph holding a quad.
	found := false
	err := ev.scanOne(ctx, Pattern{G: g, Scope: OneGraph}, nil, func(Quad) error {
		found = true
		return errStop
	})
	if err != nil && !errors.Is(err, errStop) {
		return false, err
	}
	return found, nil
}
