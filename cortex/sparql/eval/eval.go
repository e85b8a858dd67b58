package eval

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
	"github.com/cortexgraph/cortex/cortex/sparql/builtin"
)

// Default graph modes for Options.DefaultGraph; any other value is the IRI of the graph to use.
const (
	// UnionGraph makes the default graph the RDF merge of every graph of the dataset (its own default
	// graph and all named graphs): a triple held in several graphs is seen once.
	UnionGraph = "union"
	// OwnDefaultGraph makes the default graph the dataset's own default graph only.
	OwnDefaultGraph = "default"
)

// Options configure an evaluation. The zero value uses the union default graph.
type Options struct {
	// DefaultGraph is UnionGraph (also ""), OwnDefaultGraph or the IRI of a named graph. FROM clauses of
	// the query override it.
	DefaultGraph string
	// Base is the base IRI for IRI() / URI() (the query's BASE wins).
	Base string
	// Now is the value of NOW(); the zero time means the time of the call.
	Now time.Time
}

// Result is the result of a query: Rows for SELECT, Boolean for ASK, Quads for CONSTRUCT and DESCRIBE.
type Result struct {
	Form    algebra.Form
	Rows    *Rows
	Boolean bool
	Quads   *Quads
}

// Close releases the result's iterator, if any.
func (r *Result) Close() error {
	switch {
	case r.Rows != nil:
		return r.Rows.Close()
	case r.Quads != nil:
		return r.Quads.Close()
	}
	return nil
}

// prepared is a compiled query.
type prepared struct {
	ev   *evaluator
	root op
	vars []int
	c    *compiler
	q    *algebra.Query
}

func prepare(ctx context.Context, ds Dataset, q *algebra.Query, opts Options) (*prepared, error) {
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	base := opts.Base
	if q.Base != "" {
		base = string(q.Base)
	}
	ev := &evaluator{
		ds: ds, cache: map[ID]quad.Value{}, localIDs: map[string]ID{}, tables: map[tableKey]*hashTable{},
		bctx: &builtin.Context{Base: base, Now: now, BNodeScope: builtin.NewBNodeScope("")},
	}
	if m, ok := ds.(TripleMerger); ok {
		ev.merges = m.MergesTriples()
	}
	if err := ev.setDataset(ctx, q.Dataset, opts.DefaultGraph); err != nil {
		return nil, err
	}
	c := newCompiler(ctx, ev)
	// Give every variable of the query a slot before compiling (EXISTS patterns see all of them).
	for _, v := range allQueryVars(q) {
		c.slot(v)
	}
	root := c.node(q.Pattern, varSet{})
	if c.err != nil {
		return nil, c.err
	}
	p := &prepared{ev: ev, root: root, c: c, q: q}
	for _, v := range q.Vars {
		p.vars = append(p.vars, c.slot(v))
	}
	ev.nvars = len(c.names)
	return p, nil
}

func (ev *evaluator) setDataset(ctx context.Context, ds *algebra.Dataset, mode string) error {
	if ds != nil && (len(ds.Default) > 0 || len(ds.Named) > 0) {
		ids := func(iris []quad.IRI) ([]ID, error) {
			vals := make([]quad.Value, len(iris))
			for i, iri := range iris {
				vals[i] = iri
			}
			got, err := ev.ds.IDs(ctx, vals)
			if err != nil {
				return nil, err
			}
			var out []ID
			seen := map[ID]bool{}
			for _, id := range got {
				if id != 0 && !seen[id] {
					seen[id] = true
					out = append(out, id)
				}
			}
			return out, nil
		}
		def, err := ids(ds.Default)
		if err != nil {
			return err
		}
		switch len(def) {
		case 0:
			ev.dflt = defaultGraph{empty: true}
		case 1:
			ev.dflt = defaultGraph{scope: OneGraph, graphs: def}
		default:
			ev.dflt = defaultGraph{graphs: def}
		}
		named, err := ids(ds.Named)
		if err != nil {
			return err
		}
		ev.named = named
		if ev.named == nil {
			ev.named = []ID{}
		}
		ev.namedSet = map[ID]bool{}
		for _, id := range named {
			ev.namedSet[id] = true
		}
		return nil
	}
	ev.namedAll = true
	switch mode {
	case "", UnionGraph:
		ev.dflt = defaultGraph{scope: AllGraphs}
	case OwnDefaultGraph:
		ev.dflt = defaultGraph{scope: DefaultGraph}
	default:
		ids, err := ev.ds.IDs(ctx, []quad.Value{quad.IRI(mode)})
		if err != nil {
			return err
		}
		if ids[0] == 0 {
			ev.dflt = defaultGraph{empty: true}
		} else {
			ev.dflt = defaultGraph{scope: OneGraph, graphs: ids}
		}
	}
	return nil
}

// allQueryVars lists the variables of the whole query in order of first appearance.
func allQueryVars(q *algebra.Query) []algebra.Var {
	var out []algebra.Var
	seen := map[algebra.Var]bool{}
	add := func(v algebra.Var) {
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	// node adds the variables of n, starting with those in scope of n unless its parent's, which hold
	// them, were added (scoped): calling InScope at every node of a chain of n OPTIONALs took time
	// quadratic in n.
	var node func(n algebra.Node, scoped bool)
	var expr func(e algebra.Expr)
	expr = func(e algebra.Expr) {
		switch e := e.(type) {
		case algebra.Var:
			add(e)
		case *algebra.Call:
			for _, a := range e.Args {
				expr(a)
			}
		case *algebra.Exists:
			node(e.Pattern, false)
		case *algebra.Aggregate:
			if e.Arg != nil {
				expr(e.Arg)
			}
		}
	}
	node = func(n algebra.Node, scoped bool) {
		if !scoped {
			for _, v := range algebra.InScope(n) {
				add(v)
			}
		}
		switch n := n.(type) {
		case *algebra.Join:
			node(n.Left, true)
			node(n.Right, true)
		case *algebra.LeftJoin:
			node(n.Left, true)
			node(n.Right, true)
			if n.Expr != nil {
				expr(n.Expr)
			}
		case *algebra.Union:
			node(n.Left, true)
			node(n.Right, true)
		case *algebra.Minus:
			node(n.Left, true)
			node(n.Right, false)
		case *algebra.Filter:
			node(n.Input, true)
			for _, e := range n.Exprs {
				expr(e)
			}
		case *algebra.Graph:
			node(n.Input, true)
		case *algebra.Extend:
			node(n.Input, true)
			expr(n.Expr)
		case *algebra.Group:
			node(n.Input, false)
			for _, e := range n.By {
				expr(e)
			}
			for _, a := range n.Aggregates {
				expr(a.Agg)
			}
		case *algebra.OrderBy:
			node(n.Input, true)
			for _, c := range n.Conds {
				expr(c.Expr)
			}
		case *algebra.Project:
			node(n.Input, false)
		case *algebra.Distinct:
			node(n.Input, true)
		case *algebra.Reduced:
			node(n.Input, true)
		case *algebra.Slice:
			node(n.Input, true)
		}
	}
	node(q.Pattern, false)
	for _, v := range q.Vars {
		add(v)
	}
	for _, t := range q.Template {
		add(t.Subject.Var)
		add(t.Predicate.Var)
		add(t.Object.Var)
	}
	for _, t := range q.Describe {
		add(t.Var)
	}
	return out
}

// Eval evaluates q over ds. SELECT results stream through Result.Rows and CONSTRUCT / DESCRIBE results
// through Result.Quads; both must be closed. ASK is evaluated before Eval returns. Unsupported
// constructs yield an error wrapping ErrNotSupported before any evaluation. Evaluation stops when ctx is
// done.
func Eval(ctx context.Context, ds Dataset, q *algebra.Query, opts Options) (*Result, error) {
	p, err := prepare(ctx, ds, q, opts)
	if err != nil {
		return nil, err
	}
	res := &Result{Form: q.Form}
	switch q.Form {
	case algebra.Select:
		res.Rows = p.rows(ctx)
	case algebra.Ask:
		st := new(stopSignal)
		found := false
		err := p.root.run(ctx, gctx{}, make(row, p.ev.nvars), func(row) error {
			found = true
			return st
		})
		if err != nil && !errors.Is(err, st) {
			return nil, err
		}
		if p.ev.fatal != nil {
			return nil, p.ev.fatal
		}
		res.Boolean = found
	case algebra.Construct:
		res.Quads = p.construct(ctx)
	case algebra.Describe:
		res.Quads = p.describe(ctx)
	default:
		return nil, fmt.Errorf("%w: query form %v", ErrNotSupported, q.Form)
	}
	return res, nil
}
