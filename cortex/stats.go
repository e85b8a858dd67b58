package cortex

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"weak"

	"github.com/cortexgraph/cortex/cortex/sparql/eval"
)

// estimateCap bounds the work of Estimate: counts above it are reported as the cap.
const estimateCap = 1 << 14

// statsCache remembers estimates and the named-graph list per namespace, invalidated by writes.
type statsCache struct {
	mu     sync.Mutex
	gen    uint64
	est    map[IDPattern]int64
	graphs []ID
	plan   *eval.StatsCache
}

// nsStats maps weak.Pointer[Namespace] → *statsCache. It lives outside Namespace because this file may
// not change namespace.go; entries are removed when their namespace is garbage collected.
var nsStats sync.Map

func (n *Namespace) stats() (*statsCache, uint64) {
	key := weak.Make(n)
	v, loaded := nsStats.LoadOrStore(key, &statsCache{})
	if !loaded {
		runtime.AddCleanup(n, func(k weak.Pointer[Namespace]) { nsStats.Delete(k) }, key)
	}
	sc := v.(*statsCache)
	n.wmu.Lock()
	gen := n.writeGen
	n.wmu.Unlock()
	sc.mu.Lock()
	if sc.gen != gen || sc.est == nil {
		sc.gen, sc.est, sc.graphs, sc.plan = gen, map[IDPattern]int64{}, nil, &eval.StatsCache{}
	}
	sc.mu.Unlock()
	return sc, gen
}

// Estimate returns an estimate of the number of quads matching p: the exact count up to 16384, that
// value for anything larger. Results are cached until the namespace is next written.
func (n *Namespace) Estimate(ctx context.Context, p IDPattern) (int64, error) {
	sc, _ := n.stats()
	sc.mu.Lock()
	if v, ok := sc.est[p]; ok {
		sc.mu.Unlock()
		return v, nil
	}
	sc.mu.Unlock()
	it := n.MatchIDs(ctx, p)
	var c int64
	for c < estimateCap && it.Next(ctx) {
		c++
	}
	err := it.Err()
	it.Close()
	if err != nil {
		return 0, fmt.Errorf("namespace %s: estimate: %w", n.name, err)
	}
	sc.mu.Lock()
	sc.est[p] = c
	sc.mu.Unlock()
	return c, nil
}

// namedGraphIDs returns the ids of the namespace's named graphs that hold quads.
func (n *Namespace) namedGraphIDs(ctx context.Context) ([]ID, error) {
	sc, _ := n.stats()
	sc.mu.Lock()
	if sc.graphs != nil {
		g := append([]ID(nil), sc.graphs...)
		sc.mu.Unlock()
		return g, nil
	}
	sc.mu.Unlock()
	seen := map[ID]bool{}
	out := []ID{}
	it := n.MatchIDs(ctx, IDPattern{Scope: NamedGraphs})
	defer it.Close()
	for it.Next(ctx) {
		if g := it.Quad().G; !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("namespace %s: list graphs: %w", n.name, err)
	}
	sc.mu.Lock()
	sc.graphs = out
	sc.mu.Unlock()
	return append([]ID(nil), out...), nil
}

// planStats returns the planner statistics cache of the namespace's current state.
func (n *Namespace) planStats() *eval.StatsCache {
	sc, _ := n.stats()
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.plan
}
