package eval

import (
	"context"
	"math"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
)

// pos is one position of a compiled triple pattern: a variable slot (slot >= 0) or a constant id.
type pos struct {
	slot int
	id   ID
}

func (p pos) value(r row) ID {
	if p.slot >= 0 {
		return r[p.slot]
	}
	return p.id
}

// Planner cost constants, in units of "one quad read during a scan".
// In the Cortex store a quad read costs about one random key-value read, and opening an index lookup
// about 1.3 of them (measured: 6µs per quad scanned, 14µs per one-quad lookup).
const (
	costSeek  = 1.3  // opening an index lookup
	costProbe = 0.05 // one hash-table probe
)

type triple struct {
	s, p, o pos
	src     algebra.TriplePattern
	est     int64   // estimated matches with only the constants bound
	fan     float64 // estimated matches per input row at its place in the plan
	rows    float64 // estimated rows after this step
	cost    float64 // estimated cost of this step
	hash    bool    // hash join: scan the pattern once, probe per input row
	key     [3]bool // hash key positions (bound by earlier patterns of the BGP)
	filters []cexpr // filters that can be evaluated once this step has bound its variables
	fsrc    []algebra.Expr
	table   *hashTable
}

type hashTable struct {
	g gctx
	m map[[3]ID][]Quad
}

// tableKey identifies a hash table shared by the steps of a query that scan the same pattern with the
// same key positions in the same graph.
type tableKey struct {
	consts [3]ID
	key    [3]bool
	g      gctx
}

// bgpOp evaluates a basic graph pattern as a pipeline of steps in the order chosen by the planner: index
// lookups with the bindings so far (nested-loop join), or probes into a hash table built by scanning the
// pattern once (hash join). Filters run as soon as their variables are bound.
type bgpOp struct {
	ev      *evaluator
	triples []triple
}

func (c *compiler) pos(t algebra.Term) pos {
	if t.IsVar() {
		return pos{slot: c.slot(t.Var)}
	}
	return pos{slot: -1, id: c.constID(t.Value)}
}

func (t *triple) positions() [3]pos { return [3]pos{t.s, t.p, t.o} }

func (c *compiler) constPattern(t *triple) (Pattern, bool) {
	p := Pattern{Scope: AllGraphs}
	for i, x := range t.positions() {
		if x.slot >= 0 {
			continue
		}
		if x.id&localBit != 0 {
			return p, false
		}
		switch i {
		case 0:
			p.S = x.id
		case 1:
			p.P = x.id
		case 2:
			p.O = x.id
		}
	}
	return p, true
}

func (c *compiler) estimatePattern(p Pattern) int64 {
	if n, ok := c.est[p]; ok {
		return n
	}
	n, err := c.ev.ds.Estimate(c.ctx, p)
	if err != nil {
		c.fail(err)
	}
	c.est[p] = n
	return n
}

func (c *compiler) estimate(t *triple) int64 {
	p, ok := c.constPattern(t)
	if !ok {
		return 0
	}
	return c.estimatePattern(p)
}

// fanout estimates the matches of t per lookup when the positions in bound are bound, by sampling up to
// 16 quads of the pattern and counting the matches with their values in the bound positions.
func (c *compiler) fanout(t *triple, bound [3]bool) float64 {
	if !bound[0] && !bound[1] && !bound[2] {
		return float64(t.est)
	}
	base, ok := c.constPattern(t)
	if !ok || t.est == 0 {
		return 0
	}
	key := fanKey{base, bound}
	if f, ok := c.fan[key]; ok {
		return f
	}
	if c.stats != nil {
		if f, ok := c.stats.get(key); ok {
			c.fan[key] = f
			return f
		}
	}
	const samples = 16
	var qs []Quad
	it := c.ev.ds.Match(c.ctx, base)
	for len(qs) < samples && it.Next(c.ctx) {
		qs = append(qs, it.Quad())
	}
	if err := it.Err(); err != nil {
		c.fail(err)
	}
	it.Close()
	total := 0.0
	for _, q := range qs {
		p := base
		if bound[0] {
			p.S = q.S
		}
		if bound[1] {
			p.P = q.P
		}
		if bound[2] {
			p.O = q.O
		}
		total += float64(c.estimatePattern(p))
	}
	f := 1.0
	if len(qs) > 0 {
		f = math.Max(1, total/float64(len(qs)))
	}
	c.fan[key] = f
	if c.stats != nil {
		c.stats.put(key, f)
	}
	return f
}

type fanKey struct {
	p     Pattern
	bound [3]bool
}

// bgp compiles a BGP with the filters that apply to it. It orders the triple patterns greedily: at each
// step the pattern that adds the least estimated cost plus output rows, given the variables bound so far
// (entry variables count as bound), and for each step it chooses an index lookup or a hash join. It
// returns the filters it could not place.
func (c *compiler) bgp(n *algebra.BGP, entry varSet, filters []algebra.Expr) (op, []algebra.Expr) {
	type pending struct {
		vars varSet
		sel  float64
		done bool
	}
	var pend []*pending
	for _, f := range filters {
		pend = append(pend, &pending{vars: c.exprVars(f), sel: selectivity(f)})
	}
	// filterSel is the selectivity of the filters that become evaluable once have is bound.
	filterSel := func(have varSet) float64 {
		sel := 1.0
		for _, p := range pend {
			if p.done {
				continue
			}
			all := true
			for v := range p.vars {
				if !have[v] {
					all = false
					break
				}
			}
			if all {
				sel *= p.sel
			}
		}
		return sel
	}
	ts := make([]triple, len(n.Triples))
	for i, tp := range n.Triples {
		ts[i] = triple{s: c.pos(tp.Subject), p: c.pos(tp.Predicate), o: c.pos(tp.Object), src: tp}
		ts[i].est = c.estimate(&ts[i])
	}
	bound := varSet{}
	for k := range entry {
		bound[k] = true
	}
	own := varSet{} // bound by patterns of this BGP so far
	paid := map[fanKey]bool{}
	var order []triple
	used := make([]bool, len(ts))
	rows := 1.0
	for len(order) < len(ts) {
		best := -1
		var bt triple
		bestScore := math.Inf(1)
		for i := range ts {
			if used[i] {
				continue
			}
			t := ts[i]
			var b, k [3]bool
			anyOwn, unbound := false, false
			for j, x := range t.positions() {
				if x.slot < 0 {
					continue
				}
				if bound[x.slot] {
					b[j] = true
				}
				if own[x.slot] {
					k[j] = true
					anyOwn = true
				} else if !bound[x.slot] {
					unbound = true
				}
			}
			t.fan = c.fanout(&t, b)
			have := own.with(nil)
			for _, x := range t.positions() {
				if x.slot >= 0 {
					have[x.slot] = true
				}
			}
			t.rows = rows * t.fan * filterSel(have)
			lookup := rows * (costSeek + t.fan)
			t.cost = lookup
			if anyOwn && len(order) > 0 {
				build := float64(t.est)
				if cp, ok := c.constPattern(&t); ok && paid[fanKey{cp, k}] {
					build = 0 // the same table is built by an earlier step
				}
				// A hash hit is an in-memory read; a lookup reads each matching quad from the store.
				if h := build + rows*costProbe*(1+t.fan); h < lookup {
					t.cost, t.hash, t.key = h, true, k
				}
			}
			score := t.cost + t.rows
			if len(order) > 0 && !anyOwn && unbound && !b[0] && !b[1] && !b[2] {
				score *= 1e3 // a cartesian product: postpone
			}
			if best < 0 || score < bestScore {
				best, bestScore, bt = i, score, t
			}
		}
		used[best] = true
		if bt.hash {
			if cp, ok := c.constPattern(&bt); ok {
				paid[fanKey{cp, bt.key}] = true
			}
		}
		order = append(order, bt)
		rows = math.Max(bt.rows, 1e-3)
		for _, x := range bt.positions() {
			if x.slot >= 0 {
				bound[x.slot] = true
				own[x.slot] = true
			}
		}
		for _, p := range pend {
			all := true
			for v := range p.vars {
				if !own[v] {
					all = false
				}
			}
			p.done = p.done || all
		}
	}
	o := &bgpOp{ev: c.ev, triples: order}
	// Place each filter after the first step that binds all its variables.
	var rest []algebra.Expr
	for _, f := range filters {
		vars := c.exprVars(f)
		placed := false
		if !hasExists(f) {
			have := varSet{}
			for i := range o.triples {
				for _, x := range o.triples[i].positions() {
					if x.slot >= 0 {
						have[x.slot] = true
					}
				}
				all := true
				for v := range vars {
					if !have[v] {
						all = false
						break
					}
				}
				if all {
					o.triples[i].filters = append(o.triples[i].filters, c.expr(f))
					o.triples[i].fsrc = append(o.triples[i].fsrc, f)
					placed = true
					break
				}
			}
		}
		if !placed {
			rest = append(rest, f)
		}
	}
	return o, rest
}

func hasExists(e algebra.Expr) bool {
	switch e := e.(type) {
	case *algebra.Exists:
		return true
	case *algebra.Call:
		for _, a := range e.Args {
			if hasExists(a) {
				return true
			}
		}
	}
	return false
}

// splitAnd splits top-level conjunctions.
func splitAnd(es []algebra.Expr) []algebra.Expr {
	var out []algebra.Expr
	for _, e := range es {
		if c, ok := e.(*algebra.Call); ok && c.Op == algebra.OpAnd && len(c.Args) == 2 {
			out = append(out, splitAnd(c.Args)...)
			continue
		}
		out = append(out, e)
	}
	return out
}

func (o *bgpOp) run(ctx context.Context, g gctx, in row, out sink) error {
	if len(o.triples) == 0 {
		return out(in)
	}
	r := in.clone()
	return o.step(ctx, g, 0, r, out)
}

// bindQuad binds the variable positions of t to q in r; it returns the slots it set (n of them) and
// false when q conflicts with bindings already in r.
func (t *triple) bindQuad(r row, q Quad, set *[3]int) (int, bool) {
	n := 0
	vals := [3]ID{q.S, q.P, q.O}
	for j, x := range t.positions() {
		if x.slot < 0 {
			continue
		}
		switch r[x.slot] {
		case 0:
			r[x.slot] = vals[j]
			set[n] = x.slot
			n++
		case vals[j]:
		default:
			for k := 0; k < n; k++ {
				r[set[k]] = 0
			}
			return 0, false
		}
	}
	return n, true
}

func (o *bgpOp) next(ctx context.Context, g gctx, i int, r row, out sink) error {
	for _, f := range o.triples[i].filters {
		v, err := f(ctx, g, r)
		if !ebvTrue(v, err) {
			return nil
		}
	}
	return o.step(ctx, g, i+1, r, out)
}

func (o *bgpOp) step(ctx context.Context, g gctx, i int, r row, out sink) error {
	if i == len(o.triples) {
		return out(r)
	}
	t := &o.triples[i]
	if t.hash {
		return o.probe(ctx, g, i, r, out)
	}
	s, p, ob := t.s.value(r), t.p.value(r), t.o.value(r)
	var set [3]int
	return o.ev.scan(ctx, g, s, p, ob, func(q Quad) error {
		n, ok := t.bindQuad(r, q, &set)
		if !ok {
			return nil
		}
		err := o.next(ctx, g, i, r, out)
		for j := 0; j < n; j++ {
			r[set[j]] = 0
		}
		return err
	})
}

func (o *bgpOp) probe(ctx context.Context, g gctx, i int, r row, out sink) error {
	t := &o.triples[i]
	if t.table == nil || t.table.g != g {
		var cs [3]ID
		for j, x := range t.positions() {
			if x.slot < 0 {
				cs[j] = x.id
			}
		}
		tk := tableKey{consts: cs, key: t.key, g: g}
		if tb, ok := o.ev.tables[tk]; ok {
			t.table = tb
		} else if err := o.build(ctx, g, t, cs, tk); err != nil {
			return err
		}
	}
	var k [3]ID
	for j, x := range t.positions() {
		if t.key[j] {
			k[j] = r[x.slot]
		}
	}
	var set [3]int
	for _, q := range t.table.m[k] {
		if err := o.ev.tick(ctx); err != nil {
			return err
		}
		n, ok := t.bindQuad(r, q, &set)
		if !ok {
			continue
		}
		err := o.next(ctx, g, i, r, out)
		for j := 0; j < n; j++ {
			r[set[j]] = 0
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (o *bgpOp) build(ctx context.Context, g gctx, t *triple, cs [3]ID, tk tableKey) error {
	{
		m := map[[3]ID][]Quad{}
		err := o.ev.scan(ctx, g, cs[0], cs[1], cs[2], func(q Quad) error {
			var k [3]ID
			vals := [3]ID{q.S, q.P, q.O}
			for j := range k {
				if t.key[j] {
					k[j] = vals[j]
				}
			}
			m[k] = append(m[k], q)
			return nil
		})
		if err != nil {
			return err
		}
		t.table = &hashTable{g: g, m: m}
		if len(o.ev.tables) < 64 {
			o.ev.tables[tk] = t.table
		}
	}
	return nil
}

// selectivity guesses the fraction of rows a filter keeps.
func selectivity(e algebra.Expr) float64 {
	c, ok := e.(*algebra.Call)
	if !ok {
		return 0.5
	}
	switch c.Op {
	case algebra.OpEq, algebra.OpSameTerm, algebra.OpIn:
		return 0.05
	case algebra.OpNe, algebra.OpNotIn:
		return 0.9
	case algebra.OpRegex, algebra.OpContains, algebra.OpStrStarts, algebra.OpStrEnds:
		return 0.1
	case algebra.OpLt, algebra.OpGt, algebra.OpLe, algebra.OpGe:
		return 0.3
	case algebra.OpAnd:
		return selectivity(c.Args[0]) * selectivity(c.Args[1])
	case algebra.OpOr:
		return math.Min(1, selectivity(c.Args[0])+selectivity(c.Args[1]))
	}
	return 0.5
}
