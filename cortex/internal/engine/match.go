package engine

import (
	"context"
	"fmt"

	"github.com/cayleygraph/quad"
	hkv "github.com/hidal-go/hidalgo/kv"
	"github.com/hidal-go/hidalgo/kv/flat"

	"github.com/cortexgraph/cortex/cortex/internal/layout"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
)

// termID identifies a term within one namespace: the evaluator's eval.ID. Two
// terms are equal exactly when their ids are equal. 0 is never a term's id:
// it stands for "no term" (for a graph label: the default graph).
type termID = eval.ID

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

// idPattern selects quads by term ids (eval.Pattern); a zero S, P or O
// matches anything. G is used only with Scope OneGraph.
type idPattern = eval.Pattern

// idQuad is a quad as term ids (eval.Quad); G is 0 for the default graph.
type idQuad = eval.Quad

// termIDsOf returns the ids of terms; a term that does not occur in the namespace
// gets 0. Terms are normalised first (see normalizeStored): one that is not
// a term at all (a malformed IRI, an unsupported type) is an error matching
// ErrInvalidArgument and ErrInvalidQuad, as a quad holding it is for writes.
func (n *Namespace) termIDsOf(ctx context.Context, terms []quad.Value) ([]termID, error) {
	vals := make([]quad.Value, len(terms))
	for i, t := range terms {
		if t == nil {
			continue
		}
		nt, err := normalizeStored(t)
		if err != nil {
			return nil, fmt.Errorf("namespace %s: %w: pattern: %w: %s: %v", n.name, ErrInvalidArgument, ErrInvalidQuad, positionNames[i], err)
		}
		vals[i] = nt
	}
	out, err := n.lookupIDs(ctx, vals)
	if err != nil {
		return nil, fmt.Errorf("namespace %s: resolve terms: %w", n.name, err)
	}
	return out, nil
}

// termsOf returns the terms of ids (nil for 0 or an unknown id).
func (n *Namespace) termsOf(ctx context.Context, ids []termID) ([]quad.Value, error) {
	return n.termsIn(ctx, nil, ids)
}

// termsIn is termsOf reading the terms the cache misses through tx (a read
// transaction of n, whose snapshot the ids come from), or through a new
// transaction if tx is nil: ids read in one snapshot must be resolved in
// the same one, as a delta committed in between may have freed their terms.
func (n *Namespace) termsIn(ctx context.Context, tx flat.Tx, ids []termID) ([]quad.Value, error) {
	out := make([]quad.Value, len(ids))
	missing := false
	for i, id := range ids {
		if id == 0 {
			continue
		}
		if v, ok := n.cache.get(id); ok {
			out[i] = v
		} else {
			missing = true
		}
	}
	if !missing {
		return out, nil
	}
	var err error
	if tx != nil {
		err = readTerms(ctx, func(ctx context.Context, k hkv.Key) (hkv.Value, error) {
			return tx.Get(ctx, layout.Escape(nil, k))
		}, ids, out)
	} else {
		err = n.lookupTerms(ctx, ids, out)
	}
	if err != nil {
		return nil, fmt.Errorf("namespace %s: read terms: %w", n.name, err)
	}
	for i, id := range ids {
		if id != 0 && out[i] != nil {
			n.cache.put(id, out[i])
		}
	}
	return out, nil
}

// matchIDs returns an iterator over the quads matching p. It scans the one
// index whose leading positions p binds (longest prefix), reading index keys
// only. The iterator reads one consistent snapshot; it must be closed.
func (n *Namespace) matchIDs(ctx context.Context, p idPattern) *idIterator {
	bound, ok := boundOf(p)
	if !ok {
		return &idIterator{done: true}
	}
	if err := n.s.checkOpen(); err != nil {
		return &idIterator{err: err}
	}
	return &idIterator{p: p, sc: n.newKeyScanner(ctx, planScan(bound))}
}

// boundOf returns the positions p fixes (the graph with scopes OneGraph and
// DefaultGraph, where the default graph is 0); ok is false if p can match
// nothing.
func boundOf(p idPattern) (_ map[quad.Direction]uint64, ok bool) {
	bound := map[quad.Direction]uint64{}
	if p.S != 0 {
		bound[quad.Subject] = uint64(p.S)
	}
	if p.P != 0 {
		bound[quad.Predicate] = uint64(p.P)
	}
	if p.O != 0 {
		bound[quad.Object] = uint64(p.O)
	}
	switch p.Scope {
	case OneGraph:
		if p.G == 0 {
			return nil, false
		}
		bound[quad.Label] = uint64(p.G)
	case DefaultGraph:
		bound[quad.Label] = 0
	}
	return bound, true
}

// idIterator iterates over matching quads. It is not safe for concurrent use.
type idIterator struct {
	p    idPattern
	sc   *keyScanner
	cur  idQuad
	done bool
	err  error
}

// tx returns the read transaction the iterator scans, or nil.
func (it *idIterator) tx() flat.Tx {
	if it.sc == nil {
		return nil
	}
	return it.sc.tx
}

// Next advances to the next matching quad.
func (it *idIterator) Next(ctx context.Context) bool {
	if it.done || it.err != nil {
		return false
	}
	for {
		q, ok := it.sc.next(ctx)
		if !ok {
			break
		}
		if !patternMatches(it.p, q) {
			continue
		}
		it.cur = q
		return true
	}
	it.err = it.sc.err
	it.done = true
	return false
}

// Quad returns the current quad.
func (it *idIterator) Quad() idQuad { return it.cur }

// Err returns the error that stopped the iteration, if any.
func (it *idIterator) Err() error { return it.err }

// Close releases the iterator.
func (it *idIterator) Close() error {
	it.done = true
	if it.sc == nil {
		return nil
	}
	return it.sc.close()
}

// Pattern selects quads by terms; a nil Subject, Predicate or Object matches
// anything. Graph is used only with Scope OneGraph.
type Pattern struct {
	Subject, Predicate, Object, Graph quad.Value
	Scope                             Scope
}

// Quads returns the quads matching p, in index order. A pattern naming a term
// that does not occur matches nothing.
func (n *Namespace) Quads(ctx context.Context, p Pattern) ([]quad.Quad, error) {
	var out []quad.Quad
	err := n.EachQuad(ctx, p, func(q quad.Quad) error {
		out = append(out, q)
		return nil
	})
	return out, err
}

// EachQuad calls fn for every quad matching p; an error from fn stops the
// iteration and is returned. A pattern that no quad could match for its
// form (see checkPattern) is an error matching ErrInvalidArgument, and one
// naming a malformed IRI in any position matches ErrInvalidQuad too; if ctx
// has ended, the error wraps ctx's. Either way nothing is read. Cut off
// by Store.Close (fn took longer than Tuning.CloseWait), it fails with an
// error matching ErrClosed.
func (n *Namespace) EachQuad(ctx context.Context, p Pattern, fn func(quad.Quad) error) error {
	return n.s.closedErr(n.eachQuad(ctx, p, fn))
}

func (n *Namespace) eachQuad(ctx context.Context, p Pattern, fn func(quad.Quad) error) error {
	if err := n.s.checkOpen(); err != nil {
		return err
	}
	if err := n.checkPattern(&p); err != nil {
		return err
	}
	if err := n.ctxErr(ctx); err != nil {
		return err
	}
	terms := []quad.Value{p.Subject, p.Predicate, p.Object, nil}
	if p.Scope == OneGraph {
		if p.Graph == nil {
			p.Scope = DefaultGraph
		} else {
			terms[3] = p.Graph
		}
	}
	ids, err := n.termIDsOf(ctx, terms)
	if err != nil {
		return err
	}
	for i, t := range terms {
		if t != nil && ids[i] == 0 {
			return nil // an unknown term matches nothing
		}
	}
	it := n.matchIDs(ctx, idPattern{S: ids[0], P: ids[1], O: ids[2], G: ids[3], Scope: p.Scope})
	defer it.Close()
	const batch = 256
	buf := make([]idQuad, 0, batch)
	flush := func() error {
		idl := make([]termID, 0, 4*len(buf))
		for _, q := range buf {
			idl = append(idl, q.S, q.P, q.O, q.G)
		}
		vals, err := n.termsIn(ctx, it.tx(), idl) // the scan's snapshot
		if err != nil {
			return err
		}
		for i := range buf {
			q := quad.Quad{Subject: vals[4*i], Predicate: vals[4*i+1], Object: vals[4*i+2], Label: vals[4*i+3]}
			if err := fn(q); err != nil {
				return err
			}
		}
		buf = buf[:0]
		return nil
	}
	for it.Next(ctx) {
		buf = append(buf, it.Quad())
		if len(buf) == batch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("namespace %s: scan: %w", n.name, err)
	}
	return flush()
}

// checkScope returns an error matching ErrInvalidArgument if s is not one
// of the four graph scopes.
func checkScope(s Scope) error {
	if s > NamedGraphs {
		return fmt.Errorf("%w: graph scope %d: want AllGraphs, DefaultGraph, OneGraph or NamedGraphs", ErrInvalidArgument, s)
	}
	return nil
}

// checkPattern checks the scope of p and, with scope OneGraph, its graph,
// which must be a graph name as in a quad (an IRI or a blank node, see
// NormalizeQuad), and normalises it: an error matching ErrInvalidArgument,
// and ErrInvalidQuad for a graph that is not a graph name, as a write of a
// quad in that graph fails.
func (n *Namespace) checkPattern(p *Pattern) error {
	if err := checkScope(p.Scope); err != nil {
		return fmt.Errorf("namespace %s: pattern: %w", n.name, err)
	}
	if p.Scope != OneGraph || p.Graph == nil {
		return nil
	}
	g, err := normalizeNode(p.Graph, "graph", false)
	if err != nil {
		return fmt.Errorf("namespace %s: %w: pattern: %w", n.name, ErrInvalidArgument, err)
	}
	p.Graph = g
	return nil
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
	if err := n.s.checkOpen(); err != nil {
		return nil, err
	}
	counts := map[termID]int64{}
	var order []termID
	it := n.matchIDs(ctx, idPattern{Scope: AllGraphs})
	defer it.Close()
	for it.Next(ctx) {
		g := it.Quad().G
		if _, ok := counts[g]; !ok {
			order = append(order, g)
		}
		counts[g]++
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("namespace %s: list graphs: %w", n.name, err)
	}
	names, err := n.termsIn(ctx, it.tx(), order) // the scan's snapshot (it is still open)
	if err != nil {
		return nil, err
	}
	out := make([]GraphInfo, 0, len(order))
	for i, g := range order {
		out = append(out, GraphInfo{Name: names[i], Quads: counts[g]})
	}
	sortGraphs(out)
	return out, nil
}
