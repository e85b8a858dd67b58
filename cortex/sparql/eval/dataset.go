package eval

import (
	"context"
	"sync"

	"github.com/cayleygraph/quad"
)

// ID identifies an RDF term of a Dataset. Two terms are the same exactly when their ids are equal. 0 is
// never a term's id: it means "no term" (an unknown term, an unbound variable, or — as a graph label —
// the default graph). Ids with the top bit set are reserved for terms the evaluator computes itself.
type ID uint64

// Scope selects the graphs a Pattern matches in; the values mirror cortex.Scope.
type Scope uint8

// Graph scopes.
const (
	// AllGraphs matches quads of every graph (default and named).
	AllGraphs Scope = iota
	// DefaultGraph matches quads of the dataset's own default graph only.
	DefaultGraph
	// OneGraph matches quads of the graph named by Pattern.G.
	OneGraph
	// NamedGraphs matches quads of every named graph.
	NamedGraphs
)

// Pattern selects quads by term ids; a zero S, P or O matches anything. G is used only with Scope
// OneGraph.
type Pattern struct {
	S, P, O, G ID
	Scope      Scope
}

// Quad is a quad of term ids; G is 0 for the default graph.
type Quad struct{ S, P, O, G ID }

// QuadIterator iterates over quads matching a Pattern, with the cayley iterator contract: call Next until
// it returns false, then check Err; always Close.
type QuadIterator interface {
	Next(ctx context.Context) bool
	Quad() Quad
	Err() error
	Close() error
}

// GroupSkipper is implemented by quad iterators that can pass over a run of quads sharing a value:
// after Next returned a quad, SkipGroup(pos) asks that the following quads holding the same term in
// position pos (0 subject, 1 predicate, 2 object) be skipped, when the iterator reads them together.
// It is a hint: an iterator may ignore it, and must not skip any other quad.
type GroupSkipper interface {
	SkipGroup(pos int)
}

// Dataset is what the evaluator needs from a store: interning and externing terms, matching quads by a
// pattern of ids, listing named graphs, and estimating the size of a match. Implementations must be safe
// for concurrent use by one query's goroutines (the evaluator uses one goroutine per Rows).
type Dataset interface {
	// IDs returns the ids of terms; a term that does not occur gets 0.
	IDs(ctx context.Context, terms []quad.Value) ([]ID, error)
	// Terms returns the terms of ids (nil for 0 or an unknown id).
	Terms(ctx context.Context, ids []ID) ([]quad.Value, error)
	// Match returns the quads matching p.
	Match(ctx context.Context, p Pattern) QuadIterator
	// NamedGraphs returns the ids of the named graphs that hold at least one quad.
	NamedGraphs(ctx context.Context) ([]ID, error)
	// Estimate returns an estimate (an upper bound is fine) of the number of quads matching p.
	Estimate(ctx context.Context, p Pattern) (int64, error)
}

// TripleMerger is implemented by datasets whose Match with Scope AllGraphs reports each triple (S, P, O)
// once, with one of the graphs holding it, when MergesTriples returns true; the evaluator then needs no
// set of its own to form the union default graph.
type TripleMerger interface {
	MergesTriples() bool
}

// StatsCacher is implemented by datasets that keep planner statistics between queries. The returned
// cache must be replaced by a fresh one whenever the dataset's data changes.
type StatsCacher interface {
	StatsCache() *StatsCache
}

// StatsCache holds planner statistics (sampled join fan-outs) of one state of a dataset. The zero
// value is ready to use; it is safe for concurrent use.
type StatsCache struct {
	mu  sync.Mutex
	fan map[fanKey]float64
}

func (s *StatsCache) get(k fanKey) (float64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.fan[k]
	return f, ok
}

func (s *StatsCache) put(k fanKey, f float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fan == nil {
		s.fan = map[fanKey]float64{}
	}
	if len(s.fan) < 1<<16 {
		s.fan[k] = f
	}
}
