package algebra

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/internal/iri"
)

// Bind returns a copy of q in which the variables of b have the given values: initial bindings
// (parameters), with the substitution semantics of SHACL's pre-binding and Jena's substitution, done on
// the algebra, never on the query text.
//
// A bound variable ?v denotes its value everywhere in the query's scope:
//   - triple patterns, property-path ends and GRAPH names holding ?v match the value only (they are
//     rewritten with the constant, so the planner sees a constant);
//   - expressions read the value: FILTER, BIND, OPTIONAL conditions, EXISTS patterns, ORDER BY, GROUP BY
//     and aggregate arguments; BOUND(?v) is true;
//   - every solution binds ?v to the value: SELECT ?v shows it, CONSTRUCT templates and DESCRIBE use it;
//   - MINUS still compares ?v: when both sides mention it, both keep it bound to the value.
//
// A sub-select that does not project ?v has its own ?v (SPARQL scoping) and is left alone; one that
// projects ?v is bound like the rest.
//
// Names are variable names without '?' (a leading '?' or '$' is dropped). Values are IRIs or literals
// (quad.IRI, quad.String, quad.LangString, quad.TypedString); a language tag or datatype that makes the
// literal a simple one (empty tag, xsd:string) is normalised away. Errors: a name that is not a
// variable of the query's scope wraps ErrUnknownVariable (a misspelt name would otherwise bind
// nothing); a variable the query assigns itself (BIND(... AS ?v), SELECT (... AS ?v), GROUP BY (... AS
// ?v), VALUES ?v) wraps ErrBindingConflict; nil values, blank nodes (in a query, blank nodes are
// variables), relative IRIs (as IRIs or datatypes), a quad.TypedString of datatype rdf:langString
// (no RDF literal: it has no language tag) and other value types wrap ErrInvalidBinding. q is not modified; with b empty, Bind
// returns q.
func Bind(q *Query, b map[string]quad.Value) (*Query, error) {
	if len(b) == 0 {
		return q, nil
	}
	vals := make(map[Var]quad.Value, len(b))
	for name, v := range b {
		bv, err := bindingValue(name, v)
		if err != nil {
			return nil, err
		}
		vn := Var(name)
		if strings.HasPrefix(name, "?") || strings.HasPrefix(name, "$") {
			vn = Var(name[1:])
		}
		if vn == "" || !vn.Projectable() {
			return nil, fmt.Errorf("%w: %q is not a variable name", ErrInvalidBinding, name)
		}
		if _, dup := vals[vn]; dup {
			return nil, fmt.Errorf("%w: %s bound twice", ErrInvalidBinding, vn)
		}
		vals[vn] = bv
	}
	bd := &binder{vals: vals, used: map[Var]bool{}}
	out := *q
	out.Pattern = bd.node(q.Pattern, q.Form == Select)
	for _, v := range q.Vars {
		bd.use(v)
	}
	for _, t := range q.Template {
		bd.use(t.Subject.Var)
		bd.use(t.Predicate.Var)
		bd.use(t.Object.Var)
	}
	for _, t := range q.Describe {
		bd.use(t.Var)
	}
	if bd.err != nil {
		return nil, bd.err
	}
	names := bd.sorted(vals)
	for _, v := range names {
		if !bd.used[v] {
			return nil, fmt.Errorf("%w: %s is not a variable of the query", ErrUnknownVariable, v)
		}
	}
	if q.Form != Select {
		// CONSTRUCT templates and DESCRIBE read the variable from the solutions.
		out.Pattern = bd.extend(out.Pattern, names)
	}
	return &out, nil
}

// bindingValue checks and normalises the value bound to name.
func bindingValue(name string, v quad.Value) (quad.Value, error) {
	bad := func(format string, a ...any) (quad.Value, error) {
		return nil, fmt.Errorf("%w: %s: %s", ErrInvalidBinding, name, fmt.Sprintf(format, a...))
	}
	switch t := v.(type) {
	case nil:
		return bad("no value")
	case quad.IRI:
		if t == "" {
			return bad("empty IRI")
		}
		if !iri.HasScheme(string(t)) {
			return bad("relative IRI <%s>: an RDF term is an absolute IRI", string(t))
		}
		return t, nil
	case quad.String:
		return t, nil
	case quad.LangString:
		if t.Lang == "" {
			return t.Value, nil
		}
		return t, nil
	case quad.TypedString:
		if t.Type == "" || t.Type == XSDString {
			return t.Value, nil
		}
		if !iri.HasScheme(string(t.Type)) {
			return bad("relative datatype IRI <%s>: an RDF term is an absolute IRI", string(t.Type))
		}
		if t.Type == RDFLangString {
			return bad("rdf:langString literal without a language tag: bind a quad.LangString")
		}
		return t, nil
	case quad.BNode:
		return bad("blank node %s cannot be bound (blank nodes in a query are variables); bind an IRI or a literal", FormatTerm(t))
	}
	return bad("unsupported value type %T (want quad.IRI, quad.String, quad.LangString or quad.TypedString)", v)
}

// binder rewrites one scope of a query.
type binder struct {
	vals map[Var]quad.Value
	used map[Var]bool // shared by nested scopes
	err  error
	// scope holds boundInScope per node; scopeVisits counts the nodes it was computed for.
	scope       map[Node][]Var
	scopeVisits int
}

func (b *binder) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

func (b *binder) use(v Var) {
	if _, ok := b.vals[v]; ok {
		b.used[v] = true
	}
}

func (b *binder) sorted(m map[Var]quad.Value) []Var {
	out := make([]Var, 0, len(m))
	for v := range m {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// extend binds vars (bound variables, sorted) to their values in every solution of n.
func (b *binder) extend(n Node, vars []Var) Node {
	for _, v := range vars {
		n = &Extend{Input: n, Var: v, Expr: Const{Value: b.vals[v]}}
	}
	return n
}

func (b *binder) term(t Term) Term {
	if t.Var == "" {
		return t
	}
	if v, ok := b.vals[t.Var]; ok {
		b.used[t.Var] = true
		return ValueTerm(v)
	}
	return t
}

func (b *binder) triples(ts []TriplePattern) []TriplePattern {
	out := make([]TriplePattern, len(ts))
	for i, t := range ts {
		out[i] = TriplePattern{Subject: b.term(t.Subject), Predicate: b.term(t.Predicate), Object: b.term(t.Object)}
	}
	return out
}

// assigned fails when the query assigns a bound variable itself.
func (b *binder) assigned(v Var, how string) {
	if _, ok := b.vals[v]; ok {
		b.used[v] = true
		b.fail(fmt.Errorf("%w: %s is assigned by %s in the query", ErrBindingConflict, v, how))
	}
}

// node rewrites n. top is true for the query's own SELECT projection (reached from the root through
// Slice, Distinct and Reduced only).
func (b *binder) node(n Node, top bool) Node {
	switch n := n.(type) {
	case *BGP:
		return &BGP{Triples: b.triples(n.Triples)}
	case *Path:
		return &Path{Subject: b.term(n.Subject), Path: n.Path, Object: b.term(n.Object)}
	case *Join:
		return &Join{Left: b.node(n.Left, false), Right: b.node(n.Right, false)}
	case *LeftJoin:
		return &LeftJoin{Left: b.node(n.Left, false), Right: b.node(n.Right, false), Expr: b.expr(n.Expr)}
	case *Filter:
		exprs := make([]Expr, len(n.Exprs))
		for i, e := range n.Exprs {
			exprs[i] = b.expr(e)
		}
		return &Filter{Exprs: exprs, Input: b.node(n.Input, false)}
	case *Union:
		return &Union{Left: b.node(n.Left, false), Right: b.node(n.Right, false)}
	case *Minus:
		// Substitution removes ?v from both sides, and MINUS only removes solutions that share a
		// variable: keep ?v bound on both sides when both mention it, so that it is still compared.
		var shared []Var
		inRight := b.boundInScope(n.Right)
		for _, v := range b.boundInScope(n.Left) {
			if slices.Contains(inRight, v) {
				shared = append(shared, v)
			}
		}
		slices.Sort(shared)
		return &Minus{Left: b.extend(b.node(n.Left, false), shared), Right: b.extend(b.node(n.Right, false), shared)}
	case *Graph:
		return &Graph{Name: b.term(n.Name), Input: b.node(n.Input, false)}
	case *Extend:
		b.assigned(n.Var, "BIND or AS")
		return &Extend{Input: b.node(n.Input, false), Var: n.Var, Expr: b.expr(n.Expr)}
	case *Table:
		for _, v := range n.Vars {
			b.assigned(v, "VALUES")
		}
		return n
	case *Group:
		by := make([]Expr, len(n.By))
		for i, e := range n.By {
			by[i] = b.expr(e)
		}
		aggs := make([]AggBinding, len(n.Aggregates))
		for i, a := range n.Aggregates {
			agg := *a.Agg
			if agg.Arg != nil {
				agg.Arg = b.expr(agg.Arg)
			}
			aggs[i] = AggBinding{Var: a.Var, Agg: &agg}
		}
		return &Group{Input: b.node(n.Input, false), By: by, Aggregates: aggs}
	case *OrderBy:
		conds := make([]OrderCond, len(n.Conds))
		for i, c := range n.Conds {
			conds[i] = OrderCond{Expr: b.expr(c.Expr), Desc: c.Desc}
		}
		return &OrderBy{Input: b.node(n.Input, false), Conds: conds}
	case *Project:
		inner := b
		var projected []Var
		for _, v := range n.Vars {
			if _, ok := b.vals[v]; ok {
				b.used[v] = true
				projected = append(projected, v)
			}
		}
		if !top {
			// A sub-select: only the variables it projects are the outer query's.
			if len(projected) == 0 {
				return n
			}
			inner = &binder{vals: map[Var]quad.Value{}, used: b.used}
			for _, v := range projected {
				inner.vals[v] = b.vals[v]
			}
		}
		in := inner.node(n.Input, false)
		slices.Sort(projected)
		if ob, ok := in.(*OrderBy); ok {
			// Under the ORDER BY, so that LIMIT over ORDER BY keeps its plan.
			in = &OrderBy{Input: inner.extend(ob.Input, projected), Conds: ob.Conds}
		} else {
			in = inner.extend(in, projected)
		}
		if inner.err != nil {
			b.fail(inner.err)
		}
		return &Project{Input: in, Vars: n.Vars}
	case *Distinct:
		return &Distinct{Input: b.node(n.Input, top)}
	case *Reduced:
		return &Reduced{Input: b.node(n.Input, top)}
	case *Slice:
		return &Slice{Input: b.node(n.Input, top), Offset: n.Offset, Limit: n.Limit}
	}
	return n
}

// boundInScope returns the variables of b.vals in scope of n (those of InScope(n)). They are kept per
// node: each MINUS of a chain asks for those of its left operand, which holds the rest of the chain,
// and InScope walked it again each time (time quadratic in the chain).
func (b *binder) boundInScope(n Node) []Var {
	if s, ok := b.scope[n]; ok {
		return s
	}
	b.scopeVisits++
	var out []Var
	add := func(v Var) {
		if _, ok := b.vals[v]; ok && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	addAll := func(m Node) {
		for _, v := range b.boundInScope(m) {
			add(v)
		}
	}
	switch n := n.(type) {
	case *Join:
		addAll(n.Left)
		addAll(n.Right)
	case *LeftJoin:
		addAll(n.Left)
		addAll(n.Right)
	case *Union:
		addAll(n.Left)
		addAll(n.Right)
	case *Minus:
		addAll(n.Left)
	case *Filter:
		addAll(n.Input)
	case *Graph:
		add(n.Name.Var)
		addAll(n.Input)
	case *Extend:
		addAll(n.Input)
		add(n.Var)
	case *OrderBy:
		addAll(n.Input)
	case *Distinct:
		addAll(n.Input)
	case *Reduced:
		addAll(n.Input)
	case *Slice:
		addAll(n.Input)
	default:
		// BGP, Path, Table, Group, Project: InScope does not walk into them.
		for _, v := range InScope(n) {
			add(v)
		}
	}
	if b.scope == nil {
		b.scope = map[Node][]Var{}
	}
	b.scope[n] = out
	return out
}

var trueConst = Const{Value: quad.TypedString{Value: "true", Type: XSDBoolean}}

func (b *binder) expr(e Expr) Expr {
	switch e := e.(type) {
	case Var:
		if v, ok := b.vals[e]; ok {
			b.used[e] = true
			return Const{Value: v}
		}
		return e
	case *Call:
		if e.Op == OpBound && len(e.Args) == 1 {
			if v, ok := e.Args[0].(Var); ok {
				if _, bound := b.vals[v]; bound {
					b.used[v] = true
					return trueConst
				}
			}
		}
		args := make([]Expr, len(e.Args))
		for i, a := range e.Args {
			args[i] = b.expr(a)
		}
		return &Call{Op: e.Op, IRI: e.IRI, Args: args}
	case *Exists:
		return &Exists{Pattern: b.node(e.Pattern, false), Not: e.Not}
	case *Aggregate:
		agg := *e
		if agg.Arg != nil {
			agg.Arg = b.expr(agg.Arg)
		}
		return &agg
	}
	return e
}
