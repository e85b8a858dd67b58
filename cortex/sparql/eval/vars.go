package eval

import (
	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
)

// varSet is a set of variable slots.
type varSet map[int]bool

func (s varSet) with(o varSet) varSet {
	out := make(varSet, len(s)+len(o))
	for k := range s {
		out[k] = true
	}
	for k := range o {
		out[k] = true
	}
	return out
}

func (s varSet) intersect(o varSet) varSet {
	out := varSet{}
	for k := range s {
		if o[k] {
			out[k] = true
		}
	}
	return out
}

// maybeVars returns the slots of the variables that solutions of n may bind (algebra.InScope). The
// returned set must not be modified.
//
// Sets are kept per node, so that a chain of n OPTIONALs or UNIONs, whose every LeftJoin or Union asks
// for the variables of its whole left operand, costs time linear in n rather than quadratic (a chain of
// 20,000 took minutes). The set of a left operand of a Join, LeftJoin, Union or Minus is dropped once
// its parent's is known, so that a chain keeps one set per link only while it is compiled.
func (c *compiler) maybeVars(n algebra.Node) varSet {
	if s, ok := c.scope[n]; ok {
		return s
	}
	c.scopeSteps++
	var out varSet
	// grow builds the set from the left operand's, which it drops (were it asked for again, it would be
	// computed again: right, only slower), and the right operand's.
	grow := func(l, r algebra.Node) {
		out = c.maybeVars(l)
		delete(c.scope, l)
		if r != nil {
			rs := c.maybeVars(r)
			if len(rs) > 0 {
				out = out.with(rs)
			}
		}
	}
	switch n := n.(type) {
	case *algebra.Join:
		grow(n.Left, n.Right)
	case *algebra.LeftJoin:
		grow(n.Left, n.Right)
	case *algebra.Union:
		grow(n.Left, n.Right)
	case *algebra.Minus:
		grow(n.Left, nil)
	case *algebra.Filter:
		out = c.maybeVars(n.Input)
	case *algebra.OrderBy:
		out = c.maybeVars(n.Input)
	case *algebra.Distinct:
		out = c.maybeVars(n.Input)
	case *algebra.Reduced:
		out = c.maybeVars(n.Input)
	case *algebra.Slice:
		out = c.maybeVars(n.Input)
	case *algebra.Graph:
		out = c.maybeVars(n.Input)
		if n.Name.IsVar() && !out[c.slot(n.Name.Var)] {
			out = out.with(varSet{c.slot(n.Name.Var): true})
		}
	case *algebra.Extend:
		out = c.maybeVars(n.Input)
		if !out[c.slot(n.Var)] {
			out = out.with(varSet{c.slot(n.Var): true})
		}
	default:
		out = varSet{}
		for _, v := range algebra.InScope(n) {
			out[c.slot(v)] = true
		}
	}
	c.scope[n] = out
	return out
}

// certainVars returns the slots of the variables every solution of n binds. The returned set must not
// be modified. Sets are kept per node, as maybeVars does, for chains of operators that each ask for
// their operand's.
func (c *compiler) certainVars(n algebra.Node) varSet {
	if s, ok := c.certain[n]; ok {
		return s
	}
	s := c.certainVarsOf(n)
	c.certain[n] = s
	return s
}

func (c *compiler) certainVarsOf(n algebra.Node) varSet {
	out := varSet{}
	addTerm := func(t algebra.Term) {
		if t.IsVar() {
			out[c.slot(t.Var)] = true
		}
	}
	switch n := n.(type) {
	case *algebra.BGP:
		for _, t := range n.Triples {
			addTerm(t.Subject)
			addTerm(t.Predicate)
			addTerm(t.Object)
		}
	case *algebra.Path:
		addTerm(n.Subject)
		addTerm(n.Object)
	case *algebra.Join:
		return c.certainVars(n.Left).with(c.certainVars(n.Right))
	case *algebra.LeftJoin:
		return c.certainVars(n.Left)
	case *algebra.Minus:
		return c.certainVars(n.Left)
	case *algebra.Filter:
		return c.certainVars(n.Input)
	case *algebra.Union:
		return c.certainVars(n.Left).intersect(c.certainVars(n.Right))
	case *algebra.Graph:
		out = c.certainVars(n.Input).with(nil)
		addTerm(n.Name)
	case *algebra.Extend:
		return c.certainVars(n.Input)
	case *algebra.Table:
		for i, v := range n.Vars {
			all := true
			for _, r := range n.Rows {
				if r[i] == nil {
					all = false
					break
				}
			}
			if all {
				out[c.slot(v)] = true
			}
		}
	case *algebra.Group:
		in := c.certainVars(n.Input)
		for _, e := range n.By {
			if v, ok := e.(algebra.Var); ok && in[c.slot(v)] {
				out[c.slot(v)] = true
			}
		}
	case *algebra.Project:
		in := c.certainVars(n.Input)
		for _, v := range n.Vars {
			if s := c.slot(v); in[s] {
				out[s] = true
			}
		}
	case *algebra.OrderBy:
		return c.certainVars(n.Input)
	case *algebra.Distinct:
		return c.certainVars(n.Input)
	case *algebra.Reduced:
		return c.certainVars(n.Input)
	case *algebra.Slice:
		return c.certainVars(n.Input)
	}
	return out
}

// exprVars returns the slots of the variables an expression reads (including those of EXISTS patterns).
func (c *compiler) exprVars(e algebra.Expr) varSet {
	out := varSet{}
	var walk func(e algebra.Expr)
	walk = func(e algebra.Expr) {
		switch e := e.(type) {
		case algebra.Var:
			out[c.slot(e)] = true
		case *algebra.Call:
			for _, a := range e.Args {
				walk(a)
			}
		case *algebra.Exists:
			for s := range c.maybeVars(e.Pattern) {
				out[s] = true
			}
		case *algebra.Aggregate:
			if e.Arg != nil {
				walk(e.Arg)
			}
		}
	}
	walk(e)
	return out
}

// exprFits reports whether evaluating e on a solution of an input (binding certain for sure) merged with
// an entry row (binding at most entry) gives the same value as on the input solution alone.
func (c *compiler) exprFits(e algebra.Expr, certain, entry varSet) bool {
	for v := range c.exprVars(e) {
		if entry[v] && !certain[v] {
			return false
		}
	}
	return true
}

// mentionedVars returns the sorted slots of the variables n mentions anywhere (patterns, expressions,
// graph names), or nil when n holds a form it does not look into (read as: any variable).
func (c *compiler) mentionedVars(n algebra.Node) []int {
	set := varSet{}
	ok := true
	var walk func(n algebra.Node)
	var expr func(e algebra.Expr)
	expr = func(e algebra.Expr) {
		switch e := e.(type) {
		case algebra.Var:
			set[c.slot(e)] = true
		case *algebra.Call:
			for _, a := range e.Args {
				expr(a)
			}
		case *algebra.Exists:
			walk(e.Pattern)
		case *algebra.Aggregate:
			if e.Arg != nil {
				expr(e.Arg)
			}
		}
	}
	walk = func(n algebra.Node) {
		if !ok {
			return
		}
		switch n := n.(type) {
		case *algebra.BGP, *algebra.Path, *algebra.Table:
			set = set.with(c.maybeVars(n))
		case *algebra.Join:
			walk(n.Left)
			walk(n.Right)
		case *algebra.LeftJoin:
			walk(n.Left)
			walk(n.Right)
			if n.Expr != nil {
				expr(n.Expr)
			}
		case *algebra.Filter:
			walk(n.Input)
			for _, e := range n.Exprs {
				expr(e)
			}
		case *algebra.Union:
			walk(n.Left)
			walk(n.Right)
		case *algebra.Minus:
			walk(n.Left)
			walk(n.Right)
		case *algebra.Graph:
			walk(n.Input)
			if n.Name.IsVar() {
				set[c.slot(n.Name.Var)] = true
			}
		case *algebra.Extend:
			walk(n.Input)
			set[c.slot(n.Var)] = true
			expr(n.Expr)
		case *algebra.Project:
			// A sub-select sees no outer binding (projectOp); only its projected variables meet them.
			for _, v := range n.Vars {
				set[c.slot(v)] = true
			}
		default:
			ok = false
		}
	}
	walk(n)
	if !ok {
		return nil
	}
	out := make([]int, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sortInts(out)
	return out
}
