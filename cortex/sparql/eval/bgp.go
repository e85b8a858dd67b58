package eval

import (
	"context"
	"math"
	"slices"

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
// In the Cortex store a scan reads index keys only (0.6–0.8µs per quad), while a lookup seeks the
// index: every memtable and table of the LSM tree (6–7µs at 100k quads, 9–18µs at 1M, measured by
// cortex's BenchmarkSnapshotSeek).
const (
	costSeek  = 12   // opening an index lookup
	costProbe = 0.05 // one hash-table probe
)

type triple struct {
	s, p, o pos
	src     algebra.TriplePattern
	est     int64     // estimated matches with only the constants bound
	fan     float64   // estimated matches per input row at its place in the plan
	rows    float64   // estimated rows after this step
	cost    float64   // estimated cost of this step
	hash    bool      // hash join: scan the pattern once, probe per input row
	key     [3]bool   // hash key positions (bound by earlier patterns of the BGP)
	filters []cfilter // filters that can be evaluated once this step has bound its variables
	fsrc    []algebra.Expr
	fslot   []int  // per filter: its one variable's slot, or -1 when it reads several
	fself   []bool // per filter: it reads only variables of this pattern (applied while building a hash table)
	shared  bool   // the hash table may be shared with other steps (no filter applied while building it)
	table   *hashTable
}

// hashTable holds the quads of a scanned pattern grouped by their values in the key positions: the
// quads of group i are quads[off[i]:off[i+1]], in scan order. Keys of one position (the usual case) are
// looked up in one, keys of several positions in multi.
type hashTable struct {
	g      gctx
	one    int // the key position when there is one, else -1
	single *idMap
	multi  map[[3]ID]int32
	quads  []Quad
	off    []int32
}

// group returns the quads whose key positions hold k.
func (h *hashTable) group(k [3]ID) []Quad {
	var i int32
	var ok bool
	switch {
	case h.one >= 0:
		i, ok = h.single.get(k[h.one])
	default:
		i, ok = h.multi[k]
	}
	if !ok {
		return nil
	}
	return h.quads[h.off[i]:h.off[i+1]]
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

// fanout estimates the matches of t per lookup when the positions in bound are bound. With one bound
// position it samples up to 16 quads of the pattern and averages the matches of their values in that
// position (the fan-out of a value that occurs). With several it assumes the positions independent:
// each bound position keeps the fraction fanout(position)/est of the matches. (Sampling would only see
// combinations that occur, where a join mostly probes combinations that do not: the closing pattern of
// a cycle.)
func (c *compiler) fanout(t *triple, bound [3]bool) float64 {
	nb := 0
	for _, b := range bound {
		if b {
			nb++
		}
	}
	if nb == 0 {
		return float64(t.est)
	}
	base, ok := c.constPattern(t)
	if !ok || t.est == 0 {
		return 0
	}
	if nb > 1 {
		f := float64(t.est)
		for j, b := range bound {
			if b {
				var one [3]bool
				one[j] = true
				f *= c.fanout(t, one) / float64(t.est)
			}
		}
		return f
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

// maxDPPatterns is the size of the largest BGP ordered by dynamic programming over subsets of its
// triple patterns; larger BGPs are ordered greedily.
const maxDPPatterns = 10

// planState is a partial join order: the patterns of mask, in order, with their accumulated cost.
type planState struct {
	mask  uint32
	order []triple
	total float64 // sum of step costs and step output rows
	rows  float64 // estimated rows after the last step
	paid  []fanKey
	own   slotSet // variables bound by the patterns of mask
}

// slotSet is a set of variable slots.
type slotSet []uint64

func (b slotSet) set(s int)      { b[s/64] |= 1 << (s % 64) }
func (b slotSet) has(s int) bool { return s/64 < len(b) && b[s/64]&(1<<(s%64)) != 0 }

func (b slotSet) or(o slotSet) slotSet {
	out := make(slotSet, len(b))
	for i := range b {
		out[i] = b[i] | o[i]
	}
	return out
}

// within reports whether b is a subset of x ∪ y (y may be nil).
func (b slotSet) within(x, y slotSet) bool {
	for i, w := range b {
		u := x[i]
		if y != nil {
			u |= y[i]
		}
		if w&^u != 0 {
			return false
		}
	}
	return true
}

// bgp compiles a BGP with the filters that apply to it. It chooses the join order of the triple
// patterns that minimises the estimated cost (the sum over steps of the step's cost and its output
// rows), exactly by dynamic programming over subsets for up to maxDPPatterns patterns and greedily
// beyond, given the variables bound so far (entry variables count as bound); for each step it chooses
// an index lookup or a hash join. It returns the filters it could not place.
func (c *compiler) bgp(n *algebra.BGP, entry varSet, filters []algebra.Expr) (op, []algebra.Expr) {
	type pending struct {
		vars slotSet
		sel  float64
	}
	ts := make([]triple, len(n.Triples))
	for i, tp := range n.Triples {
		ts[i] = triple{s: c.pos(tp.Subject), p: c.pos(tp.Predicate), o: c.pos(tp.Object), src: tp}
		ts[i].est = c.estimate(&ts[i])
	}
	fvars := make([]varSet, len(filters))
	for i, f := range filters {
		fvars[i] = c.exprVars(f)
	}
	// Variable sets as bit sets over the slots known now (the planner's inner loop runs 2^n times).
	nw := (len(c.names) + 63) / 64
	toBits := func(vs varSet) slotSet {
		b := make(slotSet, nw)
		for v := range vs {
			b.set(v)
		}
		return b
	}
	entryBits := toBits(entry)
	var pend []pending
	for i, f := range filters {
		pend = append(pend, pending{vars: toBits(fvars[i]), sel: selectivity(f)})
	}
	tv := make([]slotSet, len(ts))
	for i := range ts {
		tv[i] = make(slotSet, nw)
		for _, x := range ts[i].positions() {
			if x.slot >= 0 {
				tv[i].set(x.slot)
			}
		}
	}
	// step evaluates pattern i as the next step after st; it returns the step and its score.
	step := func(st *planState, i int) (triple, float64) {
		own := st.own // bound by patterns of this BGP so far
		t := ts[i]
		var b, k [3]bool
		anyOwn, unbound := false, false
		for j, x := range t.positions() {
			if x.slot < 0 {
				continue
			}
			if entryBits.has(x.slot) || own.has(x.slot) {
				b[j] = true
			}
			if own.has(x.slot) {
				k[j] = true
				anyOwn = true
			} else if !entryBits.has(x.slot) {
				unbound = true
			}
		}
		t.fan = c.fanout(&t, b)
		sel, selfSel := 1.0, 1.0
		for _, p := range pend {
			if p.vars.within(own, tv[i]) && !p.vars.within(own, nil) {
				sel *= p.sel
				if p.vars.within(tv[i], nil) {
					selfSel *= p.sel
				}
			}
		}
		rows := st.rows
		t.rows = rows * t.fan * sel
		lookup := rows * (costSeek + t.fan)
		t.cost = lookup
		if anyOwn && st.mask != 0 {
			// Filters over the pattern's own variables are applied while building the table; a scan
			// skips runs of quads sharing a term that fails them, so it reads fewer quads.
			build := float64(t.est) * (0.3 + 0.7*selfSel)
			if cp, ok := c.constPattern(&t); ok && selfSel == 1 {
				for _, pk := range st.paid {
					if pk == (fanKey{cp, k}) {
						build = 0 // the same table is built by an earlier step
					}
				}
			}
			// A hash hit is an in-memory read; a lookup seeks the index for each input row.
			if h := build + rows*costProbe*(1+t.fan); h < lookup {
				t.cost, t.hash, t.key = h, true, k
			}
		}
		score := t.cost + t.rows
		if st.mask != 0 && !anyOwn && unbound && !b[0] && !b[1] && !b[2] {
			score *= 1e3 // a cartesian product: postpone
		}
		return t, score
	}
	extend := func(st *planState, t triple, i int, score float64) *planState {
		nst := &planState{mask: st.mask | 1<<i, total: st.total + score, rows: math.Max(t.rows, 1e-3), own: st.own.or(tv[i])}
		nst.order = append(append(make([]triple, 0, len(st.order)+1), st.order...), t)
		nst.paid = st.paid
		if t.hash {
			if cp, ok := c.constPattern(&t); ok {
				nst.paid = append(append([]fanKey(nil), st.paid...), fanKey{cp, t.key})
			}
		}
		return nst
	}
	var order []triple
	start := &planState{rows: 1, own: make(slotSet, nw)}
	if len(ts) <= maxDPPatterns {
		// best[mask] is the cheapest order found for the patterns of mask; masks grow by one pattern
		// per round, so every state is final when it is extended.
		best := map[uint32]*planState{0: start}
		frontier := []uint32{0}
		for round := 0; round < len(ts); round++ {
			var next []uint32
			for _, m := range frontier {
				st := best[m]
				for i := range ts {
					if m&(1<<i) != 0 {
						continue
					}
					t, score := step(st, i)
					nm := m | 1<<i
					if cur, ok := best[nm]; ok && cur.total <= st.total+score {
						continue
					} else if !ok {
						next = append(next, nm)
					}
					best[nm] = extend(st, t, i, score)
				}
			}
			slices.Sort(next)
			frontier = next
		}
		order = best[uint32(1)<<len(ts)-1].order
	} else {
		st := start
		for len(st.order) < len(ts) {
			bi, bestScore := -1, math.Inf(1)
			var bt triple
			for i := range ts {
				if st.mask&(1<<i) != 0 {
					continue
				}
				if t, score := step(st, i); bi < 0 || score < bestScore {
					bi, bestScore, bt = i, score, t
				}
			}
			st = extend(st, bt, bi, bestScore)
		}
		order = st.order
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
					t := &o.triples[i]
					t.filters = append(t.filters, c.filterOf(f))
					t.fsrc = append(t.fsrc, f)
					slot, self := -1, true
					if len(vars) == 1 && deterministic(f) {
						for v := range vars {
							slot = v
						}
					}
					for v := range vars {
						if t.posOf(v) < 0 {
							self = false
						}
					}
					t.fslot = append(t.fslot, slot)
					t.fself = append(t.fself, self)
					placed = true
					break
				}
			}
		}
		if !placed {
			rest = append(rest, f)
		}
	}
	for i := range o.triples {
		t := &o.triples[i]
		t.shared = !slices.Contains(t.fself, true)
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
		if !f(ctx, g, r) {
			return nil
		}
	}
	return o.step(ctx, g, i+1, r, out)
}

// posOf returns the position (0 subject, 1 predicate, 2 object) where t has the variable of slot s, or
// -1.
func (t *triple) posOf(s int) int {
	for j, x := range t.positions() {
		if x.slot == s {
			return j
		}
	}
	return -1
}

// skipFor returns the signal that lets the scan of t skip the quads sharing the term that made filter f
// fail, when f reads one variable that the current quad has just bound (set); nil otherwise.
func (t *triple) skipFor(f int, set []int) error {
	s := t.fslot[f]
	if s < 0 {
		return nil
	}
	for _, x := range set {
		if x == s {
			if j := t.posOf(s); j >= 0 {
				return skipPos[j]
			}
		}
	}
	return nil
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
		var err error
		pass := true
		for f, fn := range t.filters {
			if !fn(ctx, g, r) {
				pass = false
				err = t.skipFor(f, set[:n])
				break
			}
		}
		if pass {
			err = o.step(ctx, g, i+1, r, out)
		}
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
		if tb, ok := o.ev.tables[tk]; ok && t.shared {
			t.table = tb
		} else if err := o.build(ctx, g, t, cs, tk, len(r)); err != nil {
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
	for _, q := range t.table.group(k) {
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

func (o *bgpOp) build(ctx context.Context, g gctx, t *triple, cs [3]ID, tk tableKey, nvars int) error {
	h := &hashTable{g: g, one: -1}
	nkey := 0
	for j, k := range t.key {
		if k {
			h.one = j
			nkey++
		}
	}
	if nkey != 1 {
		h.one = -1
		h.multi = map[[3]ID]int32{}
	}
	// Pass 1: read the quads (leaving out those failing the filters that read this pattern's variables
	// only), number the groups in order of appearance and count their sizes.
	// The estimate is the table's size (up to the estimate's cap) unless filters drop quads.
	size := t.est
	if !t.shared {
		size /= 8
	}
	scanned := make([]Quad, 0, min(max(size, 16), 1<<20))
	var grp []int32 // group of each scanned quad
	var count []int32
	scratch := make(row, nvars)
	var set [3]int
	err := o.ev.scan(ctx, g, cs[0], cs[1], cs[2], func(q Quad) error {
		if !t.shared {
			n, ok := t.bindQuad(scratch, q, &set)
			if !ok {
				return nil
			}
			var skip error
			pass := true
			for f, fn := range t.filters {
				if t.fself[f] && !fn(ctx, g, scratch) {
					pass = false
					skip = t.skipFor(f, set[:n])
					break
				}
			}
			for j := 0; j < n; j++ {
				scratch[set[j]] = 0
			}
			if !pass {
				return skip
			}
		}
		vals := [3]ID{q.S, q.P, q.O}
		if h.one >= 0 {
			// Grouped after the scan, with a table sized for it.
			scanned = append(scanned, q)
			return nil
		}
		var i int32
		var ok bool
		{
			var k [3]ID
			for j := range k {
				if t.key[j] {
					k[j] = vals[j]
				}
			}
			if i, ok = h.multi[k]; !ok {
				i = int32(len(count))
				h.multi[k] = i
			}
		}
		if !ok {
			count = append(count, 0)
		}
		count[i]++
		scanned = append(scanned, q)
		grp = append(grp, i)
		return nil
	})
	if err != nil {
		return err
	}
	if h.one >= 0 && len(scanned) > 0 {
		h.single = newIDMap(len(scanned))
		groupOf := func(k ID) int32 {
			i, ok := h.single.get(k)
			if !ok {
				i = int32(len(count))
				h.single.put(k, i)
				count = append(count, 0)
			}
			return i
		}
		grp = make([]int32, len(scanned))
		for j, q := range scanned {
			i := groupOf([3]ID{q.S, q.P, q.O}[h.one])
			count[i]++
			grp[j] = i
		}
	} else if h.one >= 0 {
		h.single = newIDMap(0)
	}
	// Pass 2: place each group's quads together, keeping the scan order within a group.
	h.off = make([]int32, len(count)+1)
	for i, c := range count {
		h.off[i+1] = h.off[i] + c
	}
	next := count // reused as each group's next free position
	copy(next, h.off[:len(count)])
	h.quads = make([]Quad, len(scanned))
	for j, q := range scanned {
		i := grp[j]
		h.quads[next[i]] = q
		next[i]++
	}
	t.table = h
	if t.shared && len(o.ev.tables) < 64 {
		o.ev.tables[tk] = h
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
