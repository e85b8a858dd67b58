package eval

import (
	"context"
	"fmt"
	"math"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
)

// op is a compiled pattern operator. run streams to out the solutions of the operator's pattern that
// are compatible with the entry row in, merged with it. Operators never keep the rows they pass to out.
type op interface {
	run(ctx context.Context, g gctx, in row, out sink) error
}

type compiler struct {
	ctx   context.Context
	ev    *evaluator
	slots map[algebra.Var]int
	names []algebra.Var
	err   error
	est   map[Pattern]int64
	fan   map[fanKey]float64
	stats *StatsCache
	// scope holds maybeVars per node; scopeSteps counts the sets it computed.
	scope      map[algebra.Node]varSet
	scopeSteps int
	certain    map[algebra.Node]varSet // certainVars per node
	all        varSet                  // allVars: the slots from 0 to all.len()-1
}

func newCompiler(ctx context.Context, ev *evaluator) *compiler {
	c := &compiler{ctx: ctx, ev: ev, slots: map[algebra.Var]int{}, est: map[Pattern]int64{}, fan: map[fanKey]float64{}, scope: map[algebra.Node]varSet{}, certain: map[algebra.Node]varSet{}}
	if sc, ok := ev.ds.(StatsCacher); ok {
		c.stats = sc.StatsCache()
	}
	return c
}

func (c *compiler) slot(v algebra.Var) int {
	if s, ok := c.slots[v]; ok {
		return s
	}
	s := len(c.names)
	c.slots[v] = s
	c.names = append(c.names, v)
	return s
}

func (c *compiler) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// constID returns the id of a constant term, interning it locally when the dataset lacks it.
func (c *compiler) constID(v quad.Value) ID {
	id := c.ev.intern(c.ctx, v)
	if id&localBit != 0 {
		for _, alt := range langVariants(v) {
			ids, err := c.ev.ds.IDs(c.ctx, []quad.Value{alt})
			if err == nil && ids[0] != 0 {
				return ids[0]
			}
		}
	}
	return id
}

// fits reports whether n can be evaluated by injecting the bindings of an entry row that binds at most
// the variables of entry (see op.run) without changing its meaning. A FILTER or BIND that makes fresh
// values (makesFresh) does not fit: evaluated once per entry row, it would make a value (or a RAND()
// decision) per row joined where the group makes one per solution of its own.
func (c *compiler) fits(n algebra.Node, entry varSet) bool {
	switch n := n.(type) {
	case *algebra.BGP, *algebra.Path, *algebra.Table, *algebra.Join, *algebra.Union, *algebra.Graph:
		return true
	case *algebra.Filter:
		cert := c.certainVars(n.Input)
		for _, e := range n.Exprs {
			if !c.exprFits(e, cert, entry) || makesFresh(e) {
				return false
			}
		}
		return true
	case *algebra.Extend:
		return !entry.has(c.slot(n.Var)) && c.exprFits(n.Expr, c.certainVars(n.Input), entry) && !makesFresh(n.Expr)
	case *algebra.LeftJoin:
		certL := c.certainVars(n.Left)
		for v := range c.maybeVars(n.Right).all {
			if entry.has(v) && !certL.has(v) {
				return false
			}
		}
		return n.Expr == nil || c.exprFits(n.Expr, certL.with(c.certainVars(n.Right)), entry)
	case *algebra.Minus:
		certL := c.certainVars(n.Left)
		for v := range c.maybeVars(n.Right).all {
			if entry.has(v) && !certL.has(v) {
				return false
			}
		}
		return true
	}
	return false
}

// node compiles n for entry rows binding at most the variables of entry. It stops (c.err) when the
// compiler's context ends: a query's timeout bounds its compilation too.
func (c *compiler) node(n algebra.Node, entry varSet) op {
	if c.err != nil {
		return &tableOp{}
	}
	if err := c.ctx.Err(); err != nil {
		c.fail(err)
		return &tableOp{}
	}
	if entry.len() > 0 && !c.fits(n, entry) {
		child := c.node(n, varSet{})
		keys := c.certainVars(n).intersect(entry).sorted()
		return &isolateOp{ev: c.ev, child: child, keys: keys, label: nodeLabel(n), mentions: c.mentionedVars(n)}
	}
	switch n := n.(type) {
	case *algebra.BGP:
		o, _ := c.bgp(n, entry, nil)
		return o
	case *algebra.Path:
		return c.pathNode(n)
	case *algebra.Join:
		l := c.node(n.Left, entry)
		if c.err != nil {
			return l // stopped: not even the variables of a long left operand
		}
		r := c.node(n.Right, entry.with(c.maybeVars(n.Left)))
		return &joinOp{left: l, right: r}
	case *algebra.LeftJoin:
		l := c.node(n.Left, entry)
		if c.err != nil {
			return l // stopped: not even the variables of a long left operand
		}
		r := c.node(n.Right, entry.with(c.maybeVars(n.Left)))
		var e cexpr
		if n.Expr != nil {
			e = c.expr(n.Expr)
		}
		return &leftJoinOp{left: l, right: r, expr: e}
	case *algebra.Filter:
		exprs := n.Exprs
		var in op
		if b, ok := n.Input.(*algebra.BGP); ok && len(b.Triples) > 0 {
			in, exprs = c.bgp(b, entry, splitAnd(n.Exprs))
		} else {
			in = c.node(n.Input, entry)
		}
		if len(exprs) == 0 {
			return in
		}
		es := make([]cfilter, len(exprs))
		for i, e := range exprs {
			es[i] = c.filterOf(e)
		}
		return &filterOp{input: in, exprs: es, ev: c.ev, src: exprs}
	case *algebra.Union:
		return &unionOp{left: c.node(n.Left, entry), right: c.node(n.Right, entry)}
	case *algebra.Minus:
		l := c.node(n.Left, entry)
		if c.err != nil {
			return l
		}
		r := c.node(n.Right, varSet{})
		shared := c.maybeVars(n.Left).intersect(c.maybeVars(n.Right)).sorted()
		return &minusOp{left: l, right: r, shared: shared}
	case *algebra.Graph:
		if n.Name.IsVar() {
			s := c.slot(n.Name.Var)
			in := c.node(n.Input, entry.add(s))
			return &graphOp{input: in, slot: s, ev: c.ev}
		}
		in := c.node(n.Input, entry)
		return &graphOp{input: in, slot: -1, id: c.constID(n.Name.Value), ev: c.ev}
	case *algebra.Extend:
		return &extendOp{input: c.node(n.Input, entry), slot: c.slot(n.Var), expr: c.expr(n.Expr), ev: c.ev, src: n}
	case *algebra.Table:
		t := &tableOp{}
		for _, v := range n.Vars {
			t.slots = append(t.slots, c.slot(v))
		}
		for _, r := range n.Rows {
			ids := make([]ID, len(r))
			for i, v := range r {
				if v != nil {
					ids[i] = c.constID(v)
				}
			}
			t.rows = append(t.rows, ids)
		}
		return t
	case *algebra.Group:
		return c.group(n)
	case *algebra.OrderBy:
		return c.orderBy(n, entry, -1)
	case *algebra.Project:
		p := &projectOp{input: c.node(n.Input, varSet{})}
		for _, v := range n.Vars {
			p.slots = append(p.slots, c.slot(v))
		}
		return p
	case *algebra.Distinct:
		if pr, ok := n.Input.(*algebra.Project); ok {
			if ob, ok := pr.Input.(*algebra.OrderBy); ok && c.orderReadsOnly(ob, pr.Vars) {
				// The order reads projected variables only, so duplicates have equal keys: removing
				// them before sorting gives the same solutions in the same order, with fewer rows to sort.
				p := &projectOp{input: c.node(ob.Input, varSet{})}
				for _, v := range pr.Vars {
					p.slots = append(p.slots, c.slot(v))
				}
				return c.orderOver(ob, &distinctOp{input: p}, -1)
			}
		}
		return &distinctOp{input: c.node(n.Input, entry)}
	case *algebra.Reduced:
		return &distinctOp{input: c.node(n.Input, entry), reduced: true}
	case *algebra.Slice:
		if ob, ok := n.Input.(*algebra.OrderBy); ok && n.Limit >= 0 {
			return &sliceOp{input: c.orderBy(ob, entry, satAdd(n.Offset, n.Limit)), offset: n.Offset, limit: n.Limit}
		}
		if pr, ok := n.Input.(*algebra.Project); ok && n.Limit >= 0 {
			if ob, ok := pr.Input.(*algebra.OrderBy); ok {
				p := &projectOp{input: c.orderBy(ob, varSet{}, satAdd(n.Offset, n.Limit))}
				for _, v := range pr.Vars {
					p.slots = append(p.slots, c.slot(v))
				}
				return &sliceOp{input: p, offset: n.Offset, limit: n.Limit}
			}
		}
		return &sliceOp{input: c.node(n.Input, entry), offset: n.Offset, limit: n.Limit}
	case nil:
		c.fail(fmt.Errorf("%w: empty pattern", ErrNotSupported))
		return &tableOp{rows: [][]ID{{}}}
	}
	c.fail(fmt.Errorf("%w: pattern %T", ErrNotSupported, n))
	return &tableOp{}
}

func nodeLabel(n algebra.Node) string {
	switch n.(type) {
	case *algebra.Filter:
		return "filter"
	case *algebra.Extend:
		return "extend"
	case *algebra.LeftJoin:
		return "leftjoin"
	case *algebra.Minus:
		return "minus"
	case *algebra.Group:
		return "group"
	case *algebra.Project:
		return "project"
	case *algebra.Distinct:
		return "distinct"
	case *algebra.Reduced:
		return "reduced"
	case *algebra.Slice:
		return "slice"
	case *algebra.OrderBy:
		return "order"
	}
	return fmt.Sprintf("%T", n)
}

// satAdd returns a+b for non-negative a and b, or the largest int64 when the sum does not fit.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
