package eval

import (
	"container/heap"
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
	"github.com/cortexgraph/cortex/cortex/sparql/builtin"
)

type aggSpec struct {
	slot     int
	name     string
	distinct bool
	sep      string
	arg      cexpr // nil for COUNT(*)
	// countSlot is the slot of ?x in COUNT(?x) and COUNT(DISTINCT ?x), -1 otherwise: such counts need
	// ids only (equal terms have equal ids), never the terms.
	countSlot int
}

type groupOp struct {
	ev     *evaluator
	input  op
	by     []cexpr
	bySlot []int // slot for plain-variable keys, -1 otherwise
	aggs   []aggSpec
}

func (c *compiler) group(n *algebra.Group) op {
	o := &groupOp{ev: c.ev, input: c.node(n.Input, varSet{})}
	for _, e := range n.By {
		o.by = append(o.by, c.expr(e))
		if v, ok := e.(algebra.Var); ok {
			o.bySlot = append(o.bySlot, c.slot(v))
		} else {
			o.bySlot = append(o.bySlot, -1)
		}
	}
	for _, a := range n.Aggregates {
		s := aggSpec{slot: c.slot(a.Var), name: strings.ToUpper(a.Agg.Op), distinct: a.Agg.Distinct, sep: a.Agg.Separator, countSlot: -1}
		if a.Agg.Arg != nil {
			s.arg = c.expr(a.Agg.Arg)
			if v, ok := a.Agg.Arg.(algebra.Var); ok && s.name == "COUNT" {
				s.countSlot = c.slot(v)
			}
		}
		if _, err := builtin.NewAggregate(s.name, s.distinct, s.sep); err != nil {
			c.fail(fmt.Errorf("%w: aggregate %s", ErrNotSupported, a.Agg.Op))
		}
		o.aggs = append(o.aggs, s)
	}
	return o
}

type groupState struct {
	key  []ID
	accs []builtin.Aggregate
	seen []map[string]bool // per COUNT(DISTINCT *) aggregate
	ids  []map[ID]struct{} // per COUNT(DISTINCT ?x) aggregate
}

func (o *groupOp) newState(key []ID) *groupState {
	st := &groupState{key: key, accs: make([]builtin.Aggregate, len(o.aggs)), seen: make([]map[string]bool, len(o.aggs)),
		ids: make([]map[ID]struct{}, len(o.aggs))}
	for i, a := range o.aggs {
		switch {
		case a.countSlot >= 0:
			st.accs[i], _ = builtin.NewAggregate(a.name, false, a.sep)
			if a.distinct {
				st.ids[i] = map[ID]struct{}{}
			}
		default:
			st.accs[i], _ = builtin.NewAggregate(a.name, a.distinct && a.arg != nil, a.sep)
			if a.distinct && a.arg == nil {
				st.seen[i] = map[string]bool{}
			}
		}
	}
	return st
}

func (o *groupOp) run(ctx context.Context, g gctx, in row, out sink) error {
	groups := map[string]*groupState{}
	var order []*groupState
	var kb []byte
	key := make([]ID, len(o.by))
	err := o.input.run(ctx, g, make(row, len(in)), func(r row) error {
		for i, e := range o.by {
			if s := o.bySlot[i]; s >= 0 {
				key[i] = r[s] // 0 when unbound
				continue
			}
			v, err := e(ctx, g, r)
			if err != nil || v == nil {
				key[i] = 0
			} else {
				key[i] = o.ev.intern(ctx, v)
			}
		}
		kb = rowKey(kb, key, nil)
		st, ok := groups[string(kb)]
		if !ok {
			st = o.newState(append([]ID(nil), key...))
			groups[string(kb)] = st
			order = append(order, st)
		}
		for i, a := range o.aggs {
			if a.countSlot >= 0 {
				id := r[a.countSlot]
				if id == 0 {
					continue // unbound: an error, not counted
				}
				if m := st.ids[i]; m != nil {
					if _, dup := m[id]; dup {
						continue
					}
					m[id] = struct{}{}
				}
				st.accs[i].Add(nil, nil)
				continue
			}
			if a.arg == nil {
				if st.seen[i] != nil {
					k := string(rowKey(nil, r, nil))
					if st.seen[i][k] {
						continue
					}
					st.seen[i][k] = true
				}
				st.accs[i].Add(nil, nil)
				continue
			}
			v, err := a.arg(ctx, g, r)
			st.accs[i].Add(v, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(order) == 0 && len(o.by) == 0 {
		order = append(order, o.newState(nil))
	}
	buf := make(row, len(in))
	for _, st := range order {
		copy(buf, in)
		ok := true
		for i, s := range o.bySlot {
			if s >= 0 && st.key[i] != 0 {
				if buf[s] != 0 && buf[s] != st.key[i] {
					ok = false
				}
				buf[s] = st.key[i]
			}
		}
		for i, a := range o.aggs {
			v, err := st.accs[i].Result()
			if l, ok := v.(quad.LangString); ok && a.name == "GROUP_CONCAT" {
				v = l.Value // the W3C tests expect a simple literal
			}
			if err == nil && v != nil {
				buf[a.slot] = o.ev.intern(ctx, v)
			}
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

type orderKey struct {
	expr cexpr
	desc bool
	slot int // the variable's slot when the key is a plain variable, else -1
}

// orderOp sorts its input; with keep >= 0 it keeps only the first keep rows (a bounded heap).
type orderOp struct {
	ev    *evaluator
	input op
	keys  []orderKey
	keep  int64
}

func (c *compiler) orderBy(n *algebra.OrderBy, entry varSet, keep int64) op {
	return c.orderOver(n, c.node(n.Input, entry), keep)
}

// orderOver sorts the solutions of input by the conditions of n.
func (c *compiler) orderOver(n *algebra.OrderBy, input op, keep int64) op {
	o := &orderOp{ev: c.ev, input: input, keep: keep}
	for _, k := range n.Conds {
		key := orderKey{expr: c.expr(k.Expr), desc: k.Desc, slot: -1}
		if v, ok := k.Expr.(algebra.Var); ok {
			key.slot = c.slot(v)
		}
		o.keys = append(o.keys, key)
	}
	return o
}

// orderReadsOnly reports whether the conditions of n are deterministic and read only variables of vars.
func (c *compiler) orderReadsOnly(n *algebra.OrderBy, vars []algebra.Var) bool {
	var in varSet
	for _, v := range vars {
		in = in.add(c.slot(v))
	}
	for _, k := range n.Conds {
		if !deterministic(k.Expr) {
			return false
		}
		for s := range c.exprVars(k.Expr).all {
			if !in.has(s) {
				return false
			}
		}
	}
	return true
}

type sortRow struct {
	r    row
	vals []quad.Value
	seq  int
}

type sortRows struct {
	rows []*sortRow
	keys []orderKey
	max  bool // heap of the largest on top
}

func (s *sortRows) less(a, b *sortRow) bool {
	for i, k := range s.keys {
		c := builtin.OrderCompare(a.vals[i], b.vals[i])
		if c != 0 {
			if k.desc {
				return c > 0
			}
			return c < 0
		}
	}
	return a.seq < b.seq
}

func (s *sortRows) Len() int { return len(s.rows) }
func (s *sortRows) Less(i, j int) bool {
	if s.max {
		return s.less(s.rows[j], s.rows[i])
	}
	return s.less(s.rows[i], s.rows[j])
}
func (s *sortRows) Swap(i, j int) { s.rows[i], s.rows[j] = s.rows[j], s.rows[i] }
func (s *sortRows) Push(x any)    { s.rows = append(s.rows, x.(*sortRow)) }
func (s *sortRows) Pop() any {
	x := s.rows[len(s.rows)-1]
	s.rows = s.rows[:len(s.rows)-1]
	return x
}

func (o *orderOp) run(ctx context.Context, g gctx, in row, out sink) error {
	if o.keep < 0 && o.byVars() {
		return o.runByRank(ctx, g, in, out)
	}
	s := &sortRows{keys: o.keys, max: o.keep >= 0}
	seq := 0
	err := o.input.run(ctx, g, in, func(r row) error {
		sr := &sortRow{seq: seq, vals: make([]quad.Value, len(o.keys))}
		seq++
		for i, k := range o.keys {
			v, err := k.expr(ctx, g, r)
			if err == nil {
				sr.vals[i] = v
			}
		}
		if o.keep >= 0 {
			if int64(len(s.rows)) < o.keep {
				sr.r = r.clone()
				heap.Push(s, sr)
			} else if len(s.rows) > 0 && s.less(sr, s.rows[0]) {
				sr.r = r.clone()
				s.rows[0] = sr
				heap.Fix(s, 0)
			}
			return nil
		}
		sr.r = r.clone()
		s.rows = append(s.rows, sr)
		return nil
	})
	if err != nil {
		return err
	}
	s.max = false
	sort.Sort(s)
	for _, sr := range s.rows {
		if err := out(sr.r); err != nil {
			return err
		}
	}
	return nil
}

// byVars reports whether every key is a plain variable.
func (o *orderOp) byVars() bool {
	for _, k := range o.keys {
		if k.slot < 0 {
			return false
		}
	}
	return true
}

// runByRank sorts by plain-variable keys without comparing terms per row pair: it ranks the distinct
// ids of each key once (terms that compare equal share a rank), then sorts the rows by their ranks,
// stably. The rows are kept in one flat slice.
func (o *orderOp) runByRank(ctx context.Context, g gctx, in row, out sink) error {
	nv := len(in)
	var flat []ID
	err := o.input.run(ctx, g, in, func(r row) error {
		flat = append(flat, r...)
		return nil
	})
	if err != nil {
		return err
	}
	n := 0
	if nv > 0 {
		n = len(flat) / nv
	}
	nk := len(o.keys)
	ranks := make([]int32, n*nk)
	for j, k := range o.keys {
		idx := newIDMap(64)
		var ids []ID
		for i := 0; i < n; i++ {
			id := flat[i*nv+k.slot]
			if id == 0 {
				continue
			}
			if _, ok := idx.get(id); !ok {
				idx.put(id, int32(len(ids)))
				ids = append(ids, id)
			}
		}
		vals := make([]quad.Value, len(ids))
		if err := o.ev.terms(ctx, ids, vals); err != nil {
			return err
		}
		perm := make([]int, len(ids))
		for i := range perm {
			perm[i] = i
		}
		sort.SliceStable(perm, func(a, b int) bool { return builtin.OrderCompare(vals[perm[a]], vals[perm[b]]) < 0 })
		// Unbound sorts before everything (rank 0).
		rank := make([]int32, len(ids))
		r := int32(1)
		for i, p := range perm {
			if i > 0 && builtin.OrderCompare(vals[perm[i-1]], vals[p]) != 0 {
				r++
			}
			rank[p] = r
		}
		for i := 0; i < n; i++ {
			var rk int32
			if id := flat[i*nv+k.slot]; id != 0 {
				x, _ := idx.get(id)
				rk = rank[x]
			}
			if k.desc {
				rk = -rk
			}
			ranks[i*nk+j] = rk
		}
	}
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	sort.SliceStable(order, func(a, b int) bool {
		ra, rb := ranks[int(order[a])*nk:int(order[a])*nk+nk], ranks[int(order[b])*nk:int(order[b])*nk+nk]
		for j := range ra {
			if ra[j] != rb[j] {
				return ra[j] < rb[j]
			}
		}
		return false
	})
	for _, i := range order {
		if err := o.ev.tick(ctx); err != nil {
			return err
		}
		a := int(i) * nv
		if err := out(row(flat[a : a+nv : a+nv])); err != nil {
			return err
		}
	}
	return nil
}
