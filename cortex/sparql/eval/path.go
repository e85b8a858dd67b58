package eval

import (
	"context"
	"errors"
	"fmt"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
	"github.com/cortexgraph/cortex/internal/ctxcause"
)

// cpath is a compiled property path.
type cpath struct {
	kind        byte // 'l' link, 'i' inverse, 's' seq, 'a' alt, '*', '+', '?', '!'
	id          ID
	ids         map[ID]bool
	left, right *cpath
}

func (c *compiler) path(p algebra.PathExpr) *cpath {
	switch p := p.(type) {
	case algebra.Link:
		return &cpath{kind: 'l', id: c.constID(p.IRI)}
	case *algebra.Inverse:
		return &cpath{kind: 'i', left: c.path(p.Path)}
	case *algebra.Seq:
		return &cpath{kind: 's', left: c.path(p.Left), right: c.path(p.Right)}
	case *algebra.Alt:
		return &cpath{kind: 'a', left: c.path(p.Left), right: c.path(p.Right)}
	case *algebra.ZeroOrMore:
		return &cpath{kind: '*', left: c.path(p.Path)}
	case *algebra.OneOrMore:
		return &cpath{kind: '+', left: c.path(p.Path)}
	case *algebra.ZeroOrOne:
		return &cpath{kind: '?', left: c.path(p.Path)}
	case *algebra.NegatedPropertySet:
		ids := map[ID]bool{}
		for _, iri := range p.IRIs {
			ids[c.constID(iri)] = true
		}
		return &cpath{kind: '!', ids: ids}
	}
	c.fail(fmt.Errorf("%w: path %T", ErrNotSupported, p))
	return &cpath{kind: '!', ids: map[ID]bool{}}
}

type pathOp struct {
	ev   *evaluator
	s, o pos
	p    *cpath
}

func (c *compiler) pathNode(n *algebra.Path) op {
	return &pathOp{ev: c.ev, s: c.pos(n.Subject), o: c.pos(n.Object), p: c.path(n.Path)}
}

// run binds the ends of each pair in in itself and unbinds them before the next: a copy of the row per
// run and per pair (a row holds all the query's variables) made a chain of n paths with new variables
// copy n rows of n slots, time quadratic in n.
func (o *pathOp) run(ctx context.Context, g gctx, in row, out sink) error {
	s, ob := o.s.value(in), o.o.value(in)
	// A zero-length path from a constant always matches it; from a variable's binding only when the
	// term is in the graph (as when the pattern is evaluated on its own and joined).
	strict := (o.s.slot >= 0 && s != 0) || (o.o.slot >= 0 && ob != 0)
	return o.ev.evalPath(ctx, g, o.p, s, ob, strict, func(a, b ID) error {
		setS, setO := false, false
		if o.s.slot >= 0 && in[o.s.slot] == 0 {
			in[o.s.slot], setS = a, true
		}
		if o.o.slot >= 0 {
			switch in[o.o.slot] {
			case 0:
				in[o.o.slot], setO = b, true
			case b:
			default: // the subject's variable, bound to a
				if setS {
					in[o.s.slot] = 0
				}
				return nil
			}
		}
		err := out(in)
		if setS {
			in[o.s.slot] = 0
		}
		if setO {
			in[o.o.slot] = 0
		}
		return err
	})
}

// evalPath calls emit for the (subject, object) pairs connected by p in the active graph; s and o are
// the bound ends (0 = unbound).
func (ev *evaluator) evalPath(ctx context.Context, g gctx, p *cpath, s, o ID, strict bool, emit func(a, b ID) error) error {
	switch p.kind {
	case 'l':
		return ev.scan(ctx, g, s, p.id, o, func(q Quad) error { return emit(q.S, q.O) })
	case '!':
		// A negated property set is a set (SPARQL 1.1 §18.4, Evaluation of NegatedPropertySet:
		// { μ | ∃ triple(x, p, y), p ∉ S }): a pair linked by several predicates matches once.
		var (
			found bool
			ends  map[ID]bool
			pairs map[[2]ID]bool
		)
		return ev.scan(ctx, g, s, 0, o, func(q Quad) error {
			if p.ids[q.P] {
				return nil
			}
			switch {
			case s != 0 && o != 0:
				if found {
					return nil
				}
				found = true
			case s != 0 || o != 0:
				end := q.O
				if o != 0 {
					end = q.S
				}
				if ends == nil {
					ends = map[ID]bool{}
				}
				if ends[end] {
					return nil
				}
				ends[end] = true
			default:
				if pairs == nil {
					pairs = map[[2]ID]bool{}
				}
				k := [2]ID{q.S, q.O}
				if pairs[k] {
					return nil
				}
				pairs[k] = true
			}
			return emit(q.S, q.O)
		})
	case 'i':
		return ev.evalPath(ctx, g, p.left, o, s, strict, func(a, b ID) error { return emit(b, a) })
	case 'a':
		if err := ev.evalPath(ctx, g, p.left, s, o, strict, emit); err != nil {
			return err
		}
		return ev.evalPath(ctx, g, p.right, s, o, strict, emit)
	case 's':
		if s != 0 || o == 0 {
			return ev.evalPath(ctx, g, p.left, s, 0, strict, func(a, m ID) error {
				return ev.evalPath(ctx, g, p.right, m, o, strict, func(_, b ID) error { return emit(a, b) })
			})
		}
		return ev.evalPath(ctx, g, p.right, 0, o, strict, func(m, b ID) error {
			return ev.evalPath(ctx, g, p.left, 0, m, strict, func(a, _ ID) error { return emit(a, b) })
		})
	case '?', '*', '+':
		return ev.closure(ctx, g, p, s, o, strict, emit)
	}
	return fmt.Errorf("%w: path kind %c", ErrNotSupported, p.kind)
}

// closure evaluates p? p* p+ with set semantics.
func (ev *evaluator) closure(ctx context.Context, g gctx, p *cpath, s, o ID, strict bool, emit func(a, b ID) error) error {
	zero := p.kind != '+'
	maxSteps := -1
	if p.kind == '?' {
		maxSteps = 1
	}
	switch {
	case s != 0:
		reach, err := ev.reach(ctx, g, p.left, s, zero, strict, maxSteps, false)
		if err != nil {
			return err
		}
		for _, n := range reach {
			if o == 0 || n == o {
				if err := emit(s, n); err != nil {
					return err
				}
			}
		}
		return nil
	case o != 0:
		reach, err := ev.reach(ctx, g, p.left, o, zero, strict, maxSteps, true)
		if err != nil {
			return err
		}
		for _, n := range reach {
			if err := emit(n, o); err != nil {
				return err
			}
		}
		return nil
	}
	nodes, err := ev.graphNodes(ctx, g)
	if err != nil {
		return err
	}
	for _, n := range nodes {
		reach, err := ev.reach(ctx, g, p.left, n, zero, false, maxSteps, false)
		if err != nil {
			return err
		}
		for _, m := range reach {
			if err := emit(n, m); err != nil {
				return err
			}
		}
	}
	return nil
}

// reach returns the distinct nodes reachable from start by repeating p (backwards when inverse),
// including start itself when zero, and at most maxSteps steps (-1: unbounded).
func (ev *evaluator) reach(ctx context.Context, g gctx, p *cpath, start ID, zero, strict bool, maxSteps int, inverse bool) ([]ID, error) {
	seen := map[ID]bool{}
	var out []ID
	if zero && strict {
		in, err := ev.inGraph(ctx, g, start)
		if err != nil {
			return nil, err
		}
		zero = in
	}
	if zero {
		seen[start] = true
		out = append(out, start)
	}
	frontier := []ID{start}
	visited := map[ID]bool{start: true}
	for step := 0; len(frontier) > 0 && (maxSteps < 0 || step < maxSteps); step++ {
		var next []ID
		for _, n := range frontier {
			var err error
			add := func(m ID) error {
				if !seen[m] {
					seen[m] = true
					out = append(out, m)
				}
				if !visited[m] {
					visited[m] = true
					next = append(next, m)
				}
				return nil
			}
			if inverse {
				err = ev.evalPath(ctx, g, p, 0, n, false, func(a, _ ID) error { return add(a) })
			} else {
				err = ev.evalPath(ctx, g, p, n, 0, false, func(_, b ID) error { return add(b) })
			}
			if err != nil {
				return nil, err
			}
		}
		frontier = next
		if err := ctxcause.Err(ctx); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// graphNodes returns the distinct subjects and objects of the active graph.
func (ev *evaluator) graphNodes(ctx context.Context, g gctx) ([]ID, error) {
	seen := map[ID]bool{}
	var out []ID
	err := ev.scan(ctx, g, 0, 0, 0, func(q Quad) error {
		for _, n := range []ID{q.S, q.O} {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
		return nil
	})
	return out, err
}

// inGraph reports whether id occurs as a subject or object in the active graph.
func (ev *evaluator) inGraph(ctx context.Context, g gctx, id ID) (bool, error) {
	if id == 0 || id&localBit != 0 {
		return false, nil
	}
	st := new(stopSignal)
	found := false
	hit := func(Quad) error { found = true; return st }
	for _, p := range [][3]ID{{id, 0, 0}, {0, 0, id}} {
		err := ev.scan(ctx, g, p[0], p[1], p[2], hit)
		if err != nil && !errors.Is(err, st) {
			return false, err
		}
		if found {
			return true, nil
		}
	}
	return false, nil
}
