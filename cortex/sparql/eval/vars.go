package eval

import (
	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
)

// varSet is an immutable set of variable slots; the zero value is the empty set. Sets share their
// nodes: adding a slot to a set of n allocates O(log n) nodes and leaves the set unchanged, so a chain
// of n operators, each of whose variables is its operand's plus a few (n OPTIONALs with new
// variables, n GRAPH ?g), costs O(n log n) rather than a copy of a growing set per operator (O(n²):
// 20,000 such links ran past any timeout).
type varSet struct {
	root *varNode
	n    int
}

// varNode is a node of a treap ordered by slot whose priorities are a hash of the slot, so a set has
// one shape whatever order its slots were added in, of expected depth O(log n).
type varNode struct {
	slot        int
	left, right *varNode
}

// varPrio is the treap priority of slot s (SplitMix64's finalizer: distinct slots, distinct priorities).
func varPrio(s int) uint64 {
	x := uint64(s) + 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// varSetOf returns the set of the given slots.
func varSetOf(slots ...int) varSet {
	var s varSet
	for _, v := range slots {
		s = s.add(v)
	}
	return s
}

// len returns the number of slots in s.
func (s varSet) len() int { return s.n }

// has reports whether slot v is in s.
func (s varSet) has(v int) bool {
	for t := s.root; t != nil; {
		switch {
		case v < t.slot:
			t = t.left
		case v > t.slot:
			t = t.right
		default:
			return true
		}
	}
	return false
}

// add returns s with slot v; s is not modified.
func (s varSet) add(v int) varSet {
	if s.has(v) {
		return s
	}
	return varSet{root: varInsert(s.root, v), n: s.n + 1}
}

// varInsert returns t with v (not in t), copying the nodes on v's path only.
func varInsert(t *varNode, v int) *varNode {
	if t == nil {
		return &varNode{slot: v}
	}
	if varPrio(v) > varPrio(t.slot) {
		l, r := varSplit(t, v)
		return &varNode{slot: v, left: l, right: r}
	}
	c := *t
	if v < t.slot {
		c.left = varInsert(t.left, v)
	} else {
		c.right = varInsert(t.right, v)
	}
	return &c
}

// varSplit returns the slots of t below v and those above v (v not in t), sharing the subtrees that
// lie wholly on one side.
func varSplit(t *varNode, v int) (*varNode, *varNode) {
	if t == nil {
		return nil, nil
	}
	if t.slot < v {
		l, r := varSplit(t.right, v)
		return &varNode{slot: t.slot, left: t.left, right: l}, r
	}
	l, r := varSplit(t.left, v)
	return l, &varNode{slot: t.slot, left: r, right: t.right}
}

// all yields the slots of s in increasing order.
func (s varSet) all(yield func(int) bool) {
	var walk func(t *varNode) bool
	walk = func(t *varNode) bool {
		return t == nil || walk(t.left) && yield(t.slot) && walk(t.right)
	}
	walk(s.root)
}

// sorted returns the slots of s in increasing order.
func (s varSet) sorted() []int {
	out := make([]int, 0, s.n)
	for v := range s.all {
		out = append(out, v)
	}
	return out
}

// with returns the union of s and o, made by adding the slots of the smaller to the larger.
func (s varSet) with(o varSet) varSet {
	if o.n > s.n {
		s, o = o, s
	}
	for v := range o.all {
		s = s.add(v)
	}
	return s
}

// intersect returns the slots of both s and o, looking up those of the smaller in the larger.
func (s varSet) intersect(o varSet) varSet {
	if o.n < s.n {
		s, o = o, s
	}
	var out varSet
	for v := range s.all {
		if o.has(v) {
			out = out.add(v)
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
			out = out.with(rs)
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
		if n.Name.IsVar() {
			out = out.add(c.slot(n.Name.Var))
		}
	case *algebra.Extend:
		out = c.maybeVars(n.Input)
		out = out.add(c.slot(n.Var))
	default:
		for _, v := range algebra.InScope(n) {
			out = out.add(c.slot(v))
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
	var out varSet
	addTerm := func(t algebra.Term) {
		if t.IsVar() {
			out = out.add(c.slot(t.Var))
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
		out = c.certainVars(n.Input)
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
				out = out.add(c.slot(v))
			}
		}
	case *algebra.Group:
		in := c.certainVars(n.Input)
		for _, e := range n.By {
			if v, ok := e.(algebra.Var); ok && in.has(c.slot(v)) {
				out = out.add(c.slot(v))
			}
		}
	case *algebra.Project:
		in := c.certainVars(n.Input)
		for _, v := range n.Vars {
			if s := c.slot(v); in.has(s) {
				out = out.add(s)
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
	var out varSet
	var walk func(e algebra.Expr)
	walk = func(e algebra.Expr) {
		switch e := e.(type) {
		case algebra.Var:
			out = out.add(c.slot(e))
		case *algebra.Call:
			for _, a := range e.Args {
				walk(a)
			}
		case *algebra.Exists:
			out = out.with(c.maybeVars(e.Pattern))
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
	for v := range c.exprVars(e).all {
		if entry.has(v) && !certain.has(v) {
			return false
		}
	}
	return true
}

// mentionedVars returns the sorted slots of the variables n mentions anywhere (patterns, expressions,
// graph names), or nil when n holds a form it does not look into (read as: any variable).
func (c *compiler) mentionedVars(n algebra.Node) []int {
	var set varSet
	ok := true
	var walk func(n algebra.Node)
	var expr func(e algebra.Expr)
	expr = func(e algebra.Expr) {
		switch e := e.(type) {
		case algebra.Var:
			set = set.add(c.slot(e))
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
				set = set.add(c.slot(n.Name.Var))
			}
		case *algebra.Extend:
			walk(n.Input)
			set = set.add(c.slot(n.Var))
			expr(n.Expr)
		case *algebra.Project:
			// A sub-select sees no outer binding (projectOp); only its projected variables meet them.
			for _, v := range n.Vars {
				set = set.add(c.slot(v))
			}
		default:
			ok = false
		}
	}
	walk(n)
	if !ok {
		return nil
	}
	return set.sorted()
}
