package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/eval"
)

// estimateCap bounds the work of Estimate: counts above it are reported as the cap. A key-only count
// reads about 1.5 million keys per second, so the cap costs up to ~90ms once per pattern and namespace
// state; it is large enough for the planner to tell 20k from 100k matches.
const estimateCap = 1 << 17

// statsCache remembers estimates and the named-graph list per namespace, invalidated by writes.
type statsCache struct {
	mu     sync.Mutex
	gen    uint64
	est    map[idPattern]int64
	graphs []termID
	plan   *eval.StatsCache
	ids    map[quad.Value]termID // term ids looked up by queries (constants of their patterns)
}

// maxCachedIDs bounds statsCache.ids; the map is emptied when full.
const maxCachedIDs = 1 << 14

// noGen is the generation of caches and snapshots made while a write was in progress: nothing read
// then is shared with later queries.
const noGen = ^uint64(0)

// currentGen returns the namespace's write generation, or false while a writer holds the write lock
// (waiting for it would stall a query behind a whole import chunk).
func (n *Namespace) currentGen() (uint64, bool) {
	if !n.wmu.peek() { // a reader: not counted in WriteStats
		return noGen, false
	}
	g := n.writeGen
	n.wmu.unpeek()
	return g, true
}

func (n *Namespace) stats() (*statsCache, uint64) {
	gen, ok := n.currentGen()
	if !ok {
		// A write is in progress: plan from a private cache rather than wait for the writer.
		return &statsCache{gen: noGen, est: map[idPattern]int64{}, plan: &eval.StatsCache{}, ids: map[quad.Value]termID{}}, noGen
	}
	sc := &n.statCache
	sc.mu.Lock()
	if sc.gen != gen || sc.est == nil {
		sc.gen, sc.est, sc.graphs, sc.plan, sc.ids = gen, map[idPattern]int64{}, nil, &eval.StatsCache{}, map[quad.Value]termID{}
	}
	sc.mu.Unlock()
	return sc, gen
}

// estimate returns an estimate of the number of quads matching p within snapshot s: the exact count up
// to estimateCap, that value for anything larger (with Scope AllGraphs: of triples, a triple held in
// several graphs counted once, as the union default graph sees them). Results are cached until the
// namespace is next written. It is a key-only count.
func (n *Namespace) estimate(ctx context.Context, s *snapshot, p idPattern) (int64, error) {
	sc, gen := n.stats()
	sc.mu.Lock()
	if v, ok := sc.est[p]; ok {
		sc.mu.Unlock()
		return v, nil
	}
	sc.mu.Unlock()
	c, err := s.count(ctx, p, true, estimateCap)
	if err != nil {
		return 0, fmt.Errorf("namespace %s: estimate: %w", n.name, err)
	}
	sc.mu.Lock()
	if sc.gen == gen && s.gen == gen {
		sc.est[p] = c
	}
	sc.mu.Unlock()
	return c, nil
}

// termIDs returns the ids of normalised terms read in s (0 for nil or absent terms), through a cache
// kept until the namespace is next written: queries look up the same constants again and again, and a
// lookup reads the term's hash key from every level of the store.
func (n *Namespace) termIDs(ctx context.Context, s *snapshot, vals []quad.Value) ([]termID, error) {
	sc, gen := n.stats()
	out := make([]termID, len(vals))
	var miss []int
	sc.mu.Lock()
	for i, v := range vals {
		if v == nil {
			continue
		}
		if id, ok := sc.ids[v]; ok {
			out[i] = id
		} else {
			miss = append(miss, i)
		}
	}
	sc.mu.Unlock()
	if len(miss) == 0 {
		return out, nil
	}
	mv := make([]quad.Value, len(miss))
	for j, i := range miss {
		mv[j] = vals[i]
	}
	got, err := s.ids(ctx, mv)
	if err != nil {
		return nil, err
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	cache := sc.gen == gen && s.gen == gen
	if cache && len(sc.ids)+len(miss) > maxCachedIDs {
		clear(sc.ids)
	}
	for j, i := range miss {
		out[i] = got[j]
		if cache {
			sc.ids[mv[j]] = got[j]
		}
	}
	return out, nil
}

// namedGraphIDs returns the ids of the namespace's named graphs that hold quads, read in s.
func (n *Namespace) namedGraphIDs(ctx context.Context, s *snapshot) ([]termID, error) {
	sc, gen := n.stats()
	sc.mu.Lock()
	if sc.graphs != nil {
		g := append([]termID(nil), sc.graphs...)
		sc.mu.Unlock()
		return g, nil
	}
	sc.mu.Unlock()
	all, err := s.graphs(ctx)
	if err != nil {
		return nil, fmt.Errorf("namespace %s: list graphs: %w", n.name, err)
	}
	out := make([]termID, 0, len(all))
	for _, g := range all {
		if g != 0 {
			out = append(out, g)
		}
	}
	sc.mu.Lock()
	if sc.gen == gen && s.gen == gen {
		sc.graphs = out
	}
	sc.mu.Unlock()
	return append([]termID(nil), out...), nil
}

// planStats returns the planner statistics cache of the namespace's current state.
func (n *Namespace) planStats() *eval.StatsCache {
	sc, _ := n.stats()
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.plan
}
