package algebra

import "github.com/cayleygraph/quad"

// Node is a graph pattern or solution modifier of the algebra: *BGP, *Path, *Join, *LeftJoin, *Filter,
// *Union, *Minus, *Graph, *Extend, *Table, *Group, *OrderBy, *Project, *Distinct, *Reduced or *Slice.
type Node interface {
	String() string
	isNode()
}

// BGP is a basic graph pattern. An empty BGP is the empty group: one solution with no bindings (the
// identity of Join).
type BGP struct {
	Triples []TriplePattern
}

// Path is a triple pattern whose predicate is a property path that does not reduce to triples.
type Path struct {
	Subject Term
	Path    PathExpr
	Object  Term
}

// Join is the join of two patterns.
type Join struct {
	Left, Right Node
}

// LeftJoin is OPTIONAL: Left solutions extended by compatible Right solutions for which Expr is true
// (Expr nil means true).
type LeftJoin struct {
	Left, Right Node
	Expr        Expr
}

// Filter keeps the Input solutions for which every expression of Exprs has effective boolean value true.
type Filter struct {
	Exprs []Expr
	Input Node
}

// Union is the bag union of two patterns.
type Union struct {
	Left, Right Node
}

// Minus removes the Left solutions compatible with some Right solution sharing a variable.
type Minus struct {
	Left, Right Node
}

// Graph evaluates Input in the named graph Name (an IRI or a variable ranging over named graphs).
type Graph struct {
	Name  Term
	Input Node
}

// Extend binds Var to the value of Expr (left unbound when Expr is an error) in each Input solution.
type Extend struct {
	Input Node
	Var   Var
	Expr  Expr
}

// Table is inline data (VALUES). Rows hold one value per variable of Vars; a nil value is UNDEF. A Table
// with no Vars and one empty row is the unit table.
type Table struct {
	Vars []Var
	Rows [][]quad.Value
}

// Group partitions Input by the values of By and computes Aggregates per group. Its solutions bind the
// By entries that are plain variables and the aggregate variables. With By empty the whole input is one
// group (one solution even when the input is empty).
type Group struct {
	Input      Node
	By         []Expr
	Aggregates []AggBinding
}

// OrderBy sorts Input by Conds.
type OrderBy struct {
	Input Node
	Conds []OrderCond
}

// Project keeps only Vars of each Input solution.
type Project struct {
	Input Node
	Vars  []Var
}

// Distinct removes duplicate solutions.
type Distinct struct {
	Input Node
}

// Reduced may remove duplicate solutions.
type Reduced struct {
	Input Node
}

// Slice skips Offset solutions and returns at most Limit (Limit < 0: no limit).
type Slice struct {
	Input  Node
	Offset int64
	Limit  int64
}

func (n *BGP) String() string      { return nodeString(n) }
func (n *Path) String() string     { return nodeString(n) }
func (n *Join) String() string     { return nodeString(n) }
func (n *LeftJoin) String() string { return nodeString(n) }
func (n *Filter) String() string   { return nodeString(n) }
func (n *Union) String() string    { return nodeString(n) }
func (n *Minus) String() string    { return nodeString(n) }
func (n *Graph) String() string    { return nodeString(n) }
func (n *Extend) String() string   { return nodeString(n) }
func (n *Table) String() string    { return nodeString(n) }
func (n *Group) String() string    { return nodeString(n) }
func (n *OrderBy) String() string  { return nodeString(n) }
func (n *Project) String() string  { return nodeString(n) }
func (n *Distinct) String() string { return nodeString(n) }
func (n *Reduced) String() string  { return nodeString(n) }
func (n *Slice) String() string    { return nodeString(n) }

func (*BGP) isNode()      {}
func (*Path) isNode()     {}
func (*Join) isNode()     {}
func (*LeftJoin) isNode() {}
func (*Filter) isNode()   {}
func (*Union) isNode()    {}
func (*Minus) isNode()    {}
func (*Graph) isNode()    {}
func (*Extend) isNode()   {}
func (*Table) isNode()    {}
func (*Group) isNode()    {}
func (*OrderBy) isNode()  {}
func (*Project) isNode()  {}
func (*Distinct) isNode() {}
func (*Reduced) isNode()  {}
func (*Slice) isNode()    {}

// InScope returns the variables in scope of n (SPARQL 1.1 §18.2.1) in order of first appearance,
// including non-projectable ones.
func InScope(n Node) []Var {
	var out []Var
	seen := map[Var]bool{}
	add := func(v Var) {
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	var walk func(Node)
	walk = func(n Node) {
		switch n := n.(type) {
		case *BGP:
			for _, t := range n.Triples {
				add(t.Subject.Var)
				add(t.Predicate.Var)
				add(t.Object.Var)
			}
		case *Path:
			add(n.Subject.Var)
			add(n.Object.Var)
		case *Join:
			walk(n.Left)
			walk(n.Right)
		case *LeftJoin:
			walk(n.Left)
			walk(n.Right)
		case *Union:
			walk(n.Left)
			walk(n.Right)
		case *Minus:
			walk(n.Left)
		case *Filter:
			walk(n.Input)
		case *Graph:
			add(n.Name.Var)
			walk(n.Input)
		case *Extend:
			walk(n.Input)
			add(n.Var)
		case *Table:
			for _, v := range n.Vars {
				add(v)
			}
		case *Group:
			for _, e := range n.By {
				if v, ok := e.(Var); ok {
					add(v)
				}
			}
			for _, a := range n.Aggregates {
				add(a.Var)
			}
		case *OrderBy:
			walk(n.Input)
		case *Project:
			for _, v := range n.Vars {
				add(v)
			}
		case *Distinct:
			walk(n.Input)
		case *Reduced:
			walk(n.Input)
		case *Slice:
			walk(n.Input)
		}
	}
	walk(n)
	return out
}
