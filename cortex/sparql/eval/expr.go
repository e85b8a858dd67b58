package eval

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
	"github.com/cortexgraph/cortex/cortex/sparql/builtin"
)

// cexpr is a compiled expression evaluated on one solution. A nil value with a nil error does not occur:
// unbound variables are errors wrapping builtin.ErrUnbound.
type cexpr func(ctx context.Context, g gctx, r row) (quad.Value, error)

var errUnbound = fmt.Errorf("variable: %w", builtin.ErrUnbound)

func ebvTrue(v quad.Value, err error) bool {
	if err != nil {
		return false
	}
	b, err := builtin.EBV(v)
	return err == nil && b
}

func (c *compiler) exprs(es []algebra.Expr) []cexpr {
	out := make([]cexpr, len(es))
	for i, e := range es {
		out[i] = c.expr(e)
	}
	return out
}

func (c *compiler) expr(e algebra.Expr) cexpr {
	ev := c.ev
	switch e := e.(type) {
	case algebra.Var:
		s := c.slot(e)
		return func(ctx context.Context, g gctx, r row) (quad.Value, error) {
			if r[s] == 0 {
				return nil, errUnbound
			}
			v := ev.term(ctx, r[s])
			if v == nil {
				return nil, errUnbound
			}
			return v, nil
		}
	case algebra.Const:
		v := builtin.Normalize(e.Value)
		return func(context.Context, gctx, row) (quad.Value, error) { return v, nil }
	case *algebra.Exists:
		o := c.node(e.Pattern, c.allVars())
		not := e.Not
		var mu row // μ while the pattern runs on r
		return func(ctx context.Context, g gctx, r row) (quad.Value, error) {
			st := new(stopSignal)
			found := false
			// SPARQL 1.1 §18.6: exists(P) is eval(substitute(P, μ)) non-empty. The entry row r carries μ into
			// the operators that take injected bindings; isolated ones start from ev.subst (isolateOp), a
			// copy, as operators bind their variables in the row they are given while they run (bgpOp).
			prevRow, prevGen := ev.subst, ev.substGen
			ev.substSeq++
			mu = append(mu[:0], r...)
			ev.subst, ev.substGen = mu, ev.substSeq
			err := o.run(ctx, g, r, func(row) error {
				found = true
				return st
			})
			ev.subst, ev.substGen = prevRow, prevGen
			if err != nil && !errors.Is(err, st) {
				if ev.fatal == nil {
					ev.fatal = err
				}
				return nil, err
			}
			return builtin.Boolean(found != not), nil
		}
	case *algebra.Aggregate:
		c.fail(fmt.Errorf("%w: aggregate outside of a group", ErrNotSupported))
		return func(context.Context, gctx, row) (quad.Value, error) { return nil, builtin.ErrType }
	case *algebra.Call:
		return c.call(e)
	}
	c.fail(fmt.Errorf("%w: expression %T", ErrNotSupported, e))
	return func(context.Context, gctx, row) (quad.Value, error) { return nil, builtin.ErrType }
}

// allVars returns every variable slot known so far plus those of the whole query (used as the entry of
// EXISTS patterns, which may see any binding).
func (c *compiler) allVars() varSet {
	// Kept: each EXISTS asks for it, and a query of n EXISTS and n variables took time quadratic in n.
	// Slots are numbered from 0: those added since the last call are c.all.len() and up.
	for s := c.all.len(); s < len(c.names); s++ {
		c.all = c.all.add(s)
	}
	return c.all
}

func (c *compiler) call(e *algebra.Call) cexpr {
	args := c.exprs(e.Args)
	ev := c.ev
	evalArgs := func(ctx context.Context, g gctx, r row) ([]quad.Value, error) {
		vs := make([]quad.Value, len(args))
		for i, a := range args {
			v, err := a(ctx, g, r)
			if err != nil {
				return nil, err
			}
			vs[i] = v
		}
		return vs, nil
	}
	bin := func(f func(a, b quad.Value) (quad.Value, error)) cexpr {
		a, b := args[0], args[1]
		return func(ctx context.Context, g gctx, r row) (quad.Value, error) {
			x, err := a(ctx, g, r)
			if err != nil {
				return nil, err
			}
			y, err := b(ctx, g, r)
			if err != nil {
				return nil, err
			}
			return f(x, y)
		}
	}
	if e.Op == "" {
		fn := e.IRI
		if !builtin.IsCast(fn) {
			c.fail(fmt.Errorf("%w: function <%s>", ErrNotSupported, fn))
			return func(context.Context, gctx, row) (quad.Value, error) {
				return nil, fmt.Errorf("call <%s>: unknown function: %w", fn, builtin.ErrType)
			}
		}
		return func(ctx context.Context, g gctx, r row) (quad.Value, error) {
			vs, err := evalArgs(ctx, g, r)
			if err != nil {
				return nil, err
			}
			if len(vs) != 1 {
				return nil, fmt.Errorf("cast: %w", builtin.ErrType)
			}
			return builtin.Cast(fn, vs[0])
		}
	}
	switch e.Op {
	case algebra.OpOr, algebra.OpAnd:
		a, b := args[0], args[1]
		isOr := e.Op == algebra.OpOr
		return func(ctx context.Context, g gctx, r row) (quad.Value, error) {
			x, errA := ebvOf(a(ctx, g, r))
			if errA == nil && x == isOr {
				return builtin.Boolean(isOr), nil
			}
			y, errB := ebvOf(b(ctx, g, r))
			if errB == nil && y == isOr {
				return builtin.Boolean(isOr), nil
			}
			if errA != nil {
				return nil, errA
			}
			if errB != nil {
				return nil, errB
			}
			return builtin.Boolean(!isOr), nil
		}
	case algebra.OpNot:
		a := args[0]
		return func(ctx context.Context, g gctx, r row) (quad.Value, error) {
			x, err := ebvOf(a(ctx, g, r))
			if err != nil {
				return nil, err
			}
			return builtin.Boolean(!x), nil
		}
	case algebra.OpEq, algebra.OpNe:
		ne := e.Op == algebra.OpNe
		va, okA := e.Args[0].(algebra.Var)
		vb, okB := e.Args[1].(algebra.Var)
		if okA && okB {
			return c.equalVars(c.slot(va), c.slot(vb), ne)
		}
		return bin(func(x, y quad.Value) (quad.Value, error) {
			eq, err := equalTerms(x, y)
			if err != nil {
				return nil, err
			}
			return builtin.Boolean(eq != ne), nil
		})
	case algebra.OpLt, algebra.OpGt, algebra.OpLe, algebra.OpGe:
		op := e.Op
		return bin(func(x, y quad.Value) (quad.Value, error) {
			c, err := compareTerms(x, y)
			if err != nil {
				if builtin.Unordered(x, y) {
					return builtin.Boolean(false), nil // NaN: op:numeric-less-than etc. are false
				}
				return nil, err
			}
			var b bool
			switch op {
			case algebra.OpLt:
				b = c < 0
			case algebra.OpGt:
				b = c > 0
			case algebra.OpLe:
				b = c <= 0
			default:
				b = c >= 0
			}
			return builtin.Boolean(b), nil
		})
	case algebra.OpAdd:
		return bin(builtin.Add)
	case algebra.OpSub:
		return bin(builtin.Sub)
	case algebra.OpMul:
		return bin(builtin.Mul)
	case algebra.OpDiv:
		return bin(builtin.Div)
	case algebra.OpUMinus, algebra.OpUPlus:
		a := args[0]
		f := builtin.Neg
		if e.Op == algebra.OpUPlus {
			f = builtin.Plus
		}
		return func(ctx context.Context, g gctx, r row) (quad.Value, error) {
			x, err := a(ctx, g, r)
			if err != nil {
				return nil, err
			}
			return f(x)
		}
	case algebra.OpIn, algebra.OpNotIn:
		not := e.Op == algebra.OpNotIn
		return func(ctx context.Context, g gctx, r row) (quad.Value, error) {
			x, err := args[0](ctx, g, r)
			if err != nil {
				return nil, err
			}
			var firstErr error
			for _, a := range args[1:] {
				y, err := a(ctx, g, r)
				if err == nil {
					var eq bool
					eq, err = equalTerms(x, y)
					if err == nil && eq {
						return builtin.Boolean(!not), nil
					}
				}
				if err != nil && firstErr == nil {
					firstErr = err
				}
			}
			if firstErr != nil {
				return nil, firstErr
			}
			return builtin.Boolean(not), nil
		}
	case algebra.OpBound:
		v, ok := e.Args[0].(algebra.Var)
		if !ok {
			c.fail(fmt.Errorf("%w: BOUND of a non-variable", ErrNotSupported))
			return func(context.Context, gctx, row) (quad.Value, error) { return nil, builtin.ErrType }
		}
		s := c.slot(v)
		return func(ctx context.Context, g gctx, r row) (quad.Value, error) {
			return builtin.Boolean(r[s] != 0), nil
		}
	case algebra.OpIf:
		return func(ctx context.Context, g gctx, r row) (quad.Value, error) {
			b, err := ebvOf(args[0](ctx, g, r))
			if err != nil {
				return nil, err
			}
			if b {
				return args[1](ctx, g, r)
			}
			return args[2](ctx, g, r)
		}
	case algebra.OpCoalesce:
		return func(ctx context.Context, g gctx, r row) (quad.Value, error) {
			for _, a := range args {
				if v, err := a(ctx, g, r); err == nil && v != nil {
					return v, nil
				}
			}
			return nil, fmt.Errorf("coalesce: no bound argument: %w", builtin.ErrUnbound)
		}
	case algebra.OpSameTerm:
		return bin(func(x, y quad.Value) (quad.Value, error) { return builtin.Boolean(builtin.SameTerm(x, y)), nil })
	}
	name := strings.ToUpper(e.Op)
	if !builtin.IsFunction(name) {
		c.fail(fmt.Errorf("%w: function %s", ErrNotSupported, e.Op))
		return func(context.Context, gctx, row) (quad.Value, error) { return nil, builtin.ErrType }
	}
	return func(ctx context.Context, g gctx, r row) (quad.Value, error) {
		vs, err := evalArgs(ctx, g, r)
		if err != nil {
			return nil, err
		}
		return builtin.CallWithContext(ev.bctx, name, vs)
	}
}

// equalVars compiles ?a = ?b (or ?a != ?b with ne). Two IRIs or blank nodes of the dataset are equal
// exactly when their ids are, which spares comparing the strings of IRIs that differ only at the end.
func (c *compiler) equalVars(sa, sb int, ne bool) cexpr {
	ev := c.ev
	return func(ctx context.Context, g gctx, r row) (quad.Value, error) {
		a, b := r[sa], r[sb]
		if a == 0 || b == 0 {
			return nil, errUnbound
		}
		x, y := ev.term(ctx, a), ev.term(ctx, b)
		if x == nil || y == nil {
			return nil, errUnbound
		}
		var eq bool
		if isNode(x) && isNode(y) && (a|b)&localBit == 0 {
			eq = a == b
		} else {
			var err error
			if eq, err = equalTerms(x, y); err != nil {
				return nil, err
			}
		}
		return builtin.Boolean(eq != ne), nil
	}
}

func isNode(v quad.Value) bool {
	switch v.(type) {
	case quad.IRI, quad.BNode:
		return true
	}
	return false
}

func ebvOf(v quad.Value, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	return builtin.EBV(v)
}
