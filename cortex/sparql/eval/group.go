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
		s := aggSpec{slot: c.slot(a.Var), name: strings.ToUpper(a.Agg.Op), distinct: a.Agg.Distinct, sep: a.Agg.Separator}
		if a.Agg.Arg != nil {
			s.arg = c.expr(a.Agg.Arg)
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
}

func (o *groupOp) newState(key []ID) *groupState {
	st := &groupState{key: key, accs: make([]builtin.Aggregate, len(o.aggs)), seen: make([]map[string]bool, len(o.aggs))}
	for i, a := range o.aggs {
		st.accs[i], _ = builtin.NewAggregate(a.name, a.distinct && a.arg != nil, a.sep)
		if a.distinct && a.arg == nil {
			st.seen[i] = map[string]bool{}
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
			v, err := e(ctx, g, r)
			if err != nil || v == nil {
				key[i] = 0
			} else if o.bySlot[i] >= 0 {
				key[i] = r[o.bySlot[i]]
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
}

// orderOp sorts its input; with keep >= 0 it keeps only the first keep rows (a bounded heap).
type orderOp struct {
	ev    *evaluator
	input op
	keys  []orderKey
	keep  int64
}

func (c *compiler) orderBy(n *algebra.OrderBy, entry varSet, keep int64) op {
	o := &orderOp{ev: c.ev, input: c.node(n.Input, entry), keep: keep}
	for _, k := range n.Conds {
		o.keys = append(o.keys, orderKey{expr: c.expr(k.Expr), desc: k.Desc})
	}
	return o
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
