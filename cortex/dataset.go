package cortex

import (
	"context"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/eval"
)

// Dataset returns the namespace as a SPARQL evaluation dataset (eval.Dataset): term ids are the
// namespace's own ids, graphs its default and named graphs. It reads committed data at the time of each
// call; it is safe for concurrent use.
func (n *Namespace) Dataset() eval.Dataset { return &nsDataset{n: n} }

type nsDataset struct{ n *Namespace }

var (
	_ eval.Dataset     = (*nsDataset)(nil)
	_ eval.StatsCacher = (*nsDataset)(nil)
)

// StatsCache implements eval.StatsCacher: statistics are kept until the namespace is next written.
func (d *nsDataset) StatsCache() *eval.StatsCache { return d.n.planStats() }

func (d *nsDataset) IDs(ctx context.Context, terms []quad.Value) ([]eval.ID, error) {
	vals := make([]quad.Value, len(terms))
	for i, t := range terms {
		if t == nil {
			continue
		}
		if _, err := NormalizeTerm(t); err != nil {
			continue // not storable, hence not stored
		}
		vals[i] = t
	}
	ids, err := d.n.IDs(ctx, vals)
	if err != nil {
		return nil, err
	}
	out := make([]eval.ID, len(ids))
	for i, id := range ids {
		out[i] = eval.ID(id)
	}
	return out, nil
}

func (d *nsDataset) Terms(ctx context.Context, ids []eval.ID) ([]quad.Value, error) {
	in := make([]ID, len(ids))
	for i, id := range ids {
		in[i] = ID(id)
	}
	return d.n.Terms(ctx, in)
}

func toIDPattern(p eval.Pattern) IDPattern {
	return IDPattern{S: ID(p.S), P: ID(p.P), O: ID(p.O), G: ID(p.G), Scope: Scope(p.Scope)}
}

func (d *nsDataset) Match(ctx context.Context, p eval.Pattern) eval.QuadIterator {
	return &idIter{it: d.n.MatchIDs(ctx, toIDPattern(p))}
}

func (d *nsDataset) NamedGraphs(ctx context.Context) ([]eval.ID, error) {
	gs, err := d.n.namedGraphIDs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]eval.ID, len(gs))
	for i, g := range gs {
		out[i] = eval.ID(g)
	}
	return out, nil
}

func (d *nsDataset) Estimate(ctx context.Context, p eval.Pattern) (int64, error) {
	return d.n.Estimate(ctx, toIDPattern(p))
}

type idIter struct{ it *IDIterator }

func (i *idIter) Next(ctx context.Context) bool { return i.it.Next(ctx) }
func (i *idIter) Quad() eval.Quad {
	q := i.it.Quad()
	return eval.Quad{S: eval.ID(q.S), P: eval.ID(q.P), O: eval.ID(q.O), G: eval.ID(q.G)}
}
func (i *idIter) Err() error   { return i.it.Err() }
func (i *idIter) Close() error { return i.it.Close() }
