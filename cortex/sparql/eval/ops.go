package eval

import (
	"context"
	"encoding/binary"
	"errors"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
)

// stopSignal is an error private to one operator instance, used to end its own input early.
type stopSignal struct{}

func (*stopSignal) Error() string { return "stop" }

func compatible(a, b row) bool {
	for i, v := range b {
		if v != 0 && a[i] != 0 && a[i] != v {
			return false
		}
	}
	return true
}

// mergeInto writes a ∪ b into dst (a and b compatible).
func mergeInto(dst, a, b row) {
	for i := range dst {
		if a[i] != 0 {
			dst[i] = a[i]
		} else {
			dst[i] = b[i]
		}
	}
}

func rowKey(buf []byte, r row, slots []int) []byte {
	buf = buf[:0]
	if slots == nil {
		for _, v := range r {
			buf = binary.LittleEndian.AppendUint64(buf, uint64(v))
		}
		return buf
	}
	for _, s := range slots {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(r[s]))
	}
	return buf
}

type joinOp struct{ left, right op }

func (o *joinOp) run(ctx context.Context, g gctx, in row, out sink) error {
	return o.left.run(ctx, g, in, func(l row) error { return o.right.run(ctx, g, l, out) })
}

type leftJoinOp struct {
	left, right op
	expr        cexpr
}

func (o *leftJoinOp) run(ctx context.Context, g gctx, in row, out sink) error {
	return o.left.run(ctx, g, in, func(l row) error {
		found := false
		err := o.right.run(ctx, g, l, func(r row) error {
			if o.expr != nil {
				v, err := o.expr(ctx, g, r)
				if !ebvTrue(v, err) {
					return nil
				}
			}
			found = true
			return out(r)
		})
		if err != nil || found {
			return err
		}
		return out(l)
	})
}

type filterOp struct {
	input op
	exprs []cfilter
	ev    *evaluator
	src   []algebra.Expr
}

func (o *filterOp) run(ctx context.Context, g gctx, in row, out sink) error {
	return o.input.run(ctx, g, in, func(r row) error {
		for _, f := range o.exprs {
			if !f(ctx, g, r) {
				return nil
			}
		}
		return out(r)
	})
}

type unionOp struct{ left, right op }

func (o *unionOp) run(ctx context.Context, g gctx, in row, out sink) error {
	if err := o.left.run(ctx, g, in, out); err != nil {
		return err
	}
	return o.right.run(ctx, g, in, out)
}

// materialized caches the solutions of an independent operator for one active graph.
type materialized struct {
	valid bool
	g     gctx
	gen   uint64
	rows  []row
	index map[string][]int
}

// load evaluates child once per active graph and per base row: base (nil for none) is the solution
// an enclosing EXISTS substitutes into its pattern, gen its number (0 for none).
func (m *materialized) load(ctx context.Context, child op, g gctx, base row, gen uint64, nvars int, keys []int) error {
	if m.valid && m.g == g && m.gen == gen {
		return nil
	}
	m.valid, m.rows, m.index = false, nil, nil
	start := make(row, nvars)
	copy(start, base)
	err := child.run(ctx, g, start, func(r row) error {
		m.rows = append(m.rows, r.clone())
		return nil
	})
	if err != nil {
		return err
	}
	if len(keys) > 0 {
		m.index = map[string][]int{}
		var buf []byte
		for i, r := range m.rows {
			buf = rowKey(buf, r, keys)
			m.index[string(buf)] = append(m.index[string(buf)], i)
		}
	}
	m.valid, m.g, m.gen = true, g, gen
	return nil
}

// candidates calls fn with the cached rows that may be compatible with in.
func (m *materialized) candidates(in row, keys []int, fn func(r row) error) error {
	if m.index != nil {
		all := true
		for _, k := range keys {
			if in[k] == 0 {
				all = false
				break
			}
		}
		if all {
			for _, i := range m.index[string(rowKey(nil, in, keys))] {
				if err := fn(m.rows[i]); err != nil {
					return err
				}
			}
			return nil
		}
	}
	for _, r := range m.rows {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// isolateOp evaluates a pattern that cannot take injected bindings on its own (once per active graph)
// and joins its solutions with each entry row through a hash index on keys.
//
// Inside an EXISTS, the pattern is evaluated with the bindings of the solution the EXISTS tests that it
// mentions (SPARQL 1.1 §18.6, substitute): a FILTER or OPTIONAL there sees the outer values.
type isolateOp struct {
	ev    *evaluator
	child op
	keys  []int
	label string
	// mentions are the slots of the variables the pattern mentions anywhere (nil: any).
	mentions []int
	m        materialized
}

func (o *isolateOp) run(ctx context.Context, g gctx, in row, out sink) error {
	base, gen := o.substitution()
	if err := o.m.load(ctx, o.child, g, base, gen, len(in), o.keys); err != nil {
		return err
	}
	buf := make(row, len(in))
	return o.m.candidates(in, o.keys, func(r row) error {
		if err := o.ev.tick(ctx); err != nil {
			return err
		}
		if !compatible(in, r) {
			return nil
		}
		mergeInto(buf, in, r)
		return out(buf)
	})
}

// substitution returns the bindings of the solution an enclosing EXISTS substitutes into the pattern
// and their number, or (nil, 0) when there is none or the pattern mentions none of its variables.
func (o *isolateOp) substitution() (row, uint64) {
	sub := o.ev.subst
	if sub == nil {
		return nil, 0
	}
	if o.mentions == nil {
		return sub, o.ev.substGen
	}
	base := make(row, len(sub))
	any := false
	for _, s := range o.mentions {
		if s < len(sub) && sub[s] != 0 {
			base[s], any = sub[s], true
		}
	}
	if !any {
		return nil, 0
	}
	return base, o.ev.substGen
}

type minusOp struct {
	left, right op
	shared      []int
	m           materialized
}

func (o *minusOp) run(ctx context.Context, g gctx, in row, out sink) error {
	if len(o.shared) == 0 {
		return o.left.run(ctx, g, in, out)
	}
	if err := o.m.load(ctx, o.right, g, nil, 0, len(in), nil); err != nil {
		return err
	}
	return o.left.run(ctx, g, in, func(l row) error {
		for _, r := range o.m.rows {
			share := false
			for _, s := range o.shared {
				if l[s] != 0 && r[s] != 0 {
					share = true
					break
				}
			}
			if share && compatible(l, r) {
				return nil
			}
		}
		return out(l)
	})
}

type graphOp struct {
	input op
	slot  int
	id    ID
	ev    *evaluator
}

func (o *graphOp) run(ctx context.Context, g gctx, in row, out sink) error {
	if o.slot < 0 {
		ok, err := o.ev.isNamed(ctx, o.id)
		if err != nil || !ok {
			return err
		}
		return o.input.run(ctx, gctx{named: true, g: o.id}, in, out)
	}
	if id := in[o.slot]; id != 0 {
		ok, err := o.ev.isNamed(ctx, id)
		if err != nil || !ok {
			return err
		}
		return o.input.run(ctx, gctx{named: true, g: id}, in, out)
	}
	gs, err := o.ev.namedGraphs(ctx)
	if err != nil {
		return err
	}
	// The graph's name is bound in in itself and unbound before run returns: a copy of the row (all
	// the query's variables) per run made a chain of n GRAPH ?g copy n rows of n slots.
	defer func() { in[o.slot] = 0 }()
	for _, id := range gs {
		in[o.slot] = id
		if err := o.input.run(ctx, gctx{named: true, g: id}, in, out); err != nil {
			return err
		}
	}
	return nil
}

type extendOp struct {
	input op
	slot  int
	expr  cexpr
	ev    *evaluator
	src   *algebra.Extend
}

func (o *extendOp) run(ctx context.Context, g gctx, in row, out sink) error {
	return o.input.run(ctx, g, in, func(r row) error {
		if r[o.slot] != 0 {
			// Only possible for an entry binding (bind of an in-scope variable is a syntax error).
			return out(r)
		}
		if _, chained := o.input.(*extendOp); !chained && o.ev.bctx.BNodeScope != nil {
			o.ev.bctx.BNodeScope.NextSolution()
		}
		v, err := o.expr(ctx, g, r)
		if err == nil && v != nil {
			r[o.slot] = o.ev.intern(ctx, v)
		}
		err = out(r)
		r[o.slot] = 0
		return err
	})
}

type tableOp struct {
	slots []int
	rows  [][]ID
}

func (o *tableOp) run(ctx context.Context, g gctx, in row, out sink) error {
	buf := in.clone()
	for _, tr := range o.rows {
		copy(buf, in)
		ok := true
		for i, s := range o.slots {
			v := tr[i]
			if v == 0 {
				continue
			}
			if buf[s] != 0 && buf[s] != v {
				ok = false
				break
			}
			buf[s] = v
		}
		if !ok {
			continue
		}
		if err := out(buf); err != nil {
			return err
		}
	}
	return nil
}

type projectOp struct {
	input op
	slots []int
}

// run evaluates the sub-select on its own: its variables are its own (SPARQL 1.1 §18.2.1), so it sees
// none of the entry row's bindings, and its solutions are joined with the entry row. (Outside an
// EXISTS the entry row of a projection is always empty: the compiler isolates sub-selects.)
func (o *projectOp) run(ctx context.Context, g gctx, in row, out sink) error {
	buf := make(row, len(in))
	return o.input.run(ctx, g, make(row, len(in)), func(r row) error {
		copy(buf, in)
		for _, s := range o.slots {
			switch v := r[s]; {
			case v == 0:
			case buf[s] == 0:
				buf[s] = v
			case buf[s] != v:
				return nil
			}
		}
		return out(buf)
	})
}

type distinctOp struct {
	input   op
	reduced bool
}

func (o *distinctOp) run(ctx context.Context, g gctx, in row, out sink) error {
	seen := map[string]struct{}{}
	var buf []byte
	return o.input.run(ctx, g, in, func(r row) error {
		buf = rowKey(buf, r, nil)
		if _, dup := seen[string(buf)]; dup {
			return nil
		}
		seen[string(buf)] = struct{}{}
		return out(r)
	})
}

type sliceOp struct {
	input         op
	offset, limit int64
}

func (o *sliceOp) run(ctx context.Context, g gctx, in row, out sink) error {
	if o.limit == 0 {
		return nil
	}
	st := new(stopSignal)
	var n int64
	err := o.input.run(ctx, g, in, func(r row) error {
		n++
		if n <= o.offset {
			return nil
		}
		if err := out(r); err != nil {
			return err
		}
		if o.limit >= 0 && n-o.offset >= o.limit { // n > offset: no overflow, unlike offset+limit
			return st
		}
		return nil
	})
	if errors.Is(err, st) {
		return nil
	}
	return err
}
