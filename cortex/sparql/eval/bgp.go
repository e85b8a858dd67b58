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
// cortex/internal/engine's BenchmarkSnapshotSeek).
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
	mask  uint32 // the patterns placed, for orderDP (up to maxDPPatterns, so 32 bits suffice)
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

// with returns a copy of b with the bits of t that are not -1 (a pattern's variables: tb).
func (b slotSet) with(t [3]int) slotSet {
	out := slices.Clone(b)
	out.setAll(t)
	return out
}

// setAll sets the bits of t that are not -1.
func (b slotSet) setAll(t [3]int) {
	for _, s := range t {
		if s >= 0 {
			b.set(s)
		}
	}
}

// within reports whether b is a subset of x (nil: the empty set) plus the bits of t that are not -1.
func (b slotSet) within(x slotSet, t [3]int) bool {
	for i, w := range b {
		var u uint64
		if x != nil {
			u = x[i]
		}
		for _, s := range t {
			if s >= 0 && s/64 == i {
				u |= 1 << (s % 64)
			}
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
	p := c.newBGPPlanner(c.bgpTriples(n), entry, filters)
	o := &bgpOp{ev: c.ev, triples: p.order()}
	rest := c.placeFilters(o.triples, filters)
	return o, rest
}

// bgpTriples compiles the triple patterns of n, in query order, each with its estimated number of
// matches with only its constants bound (0 when a constant is unknown to the dataset). It allocates
// the slots of the patterns' variables; estimation errors are recorded on c.
func (c *compiler) bgpTriples(n *algebra.BGP) []triple {
	ts := make([]triple, len(n.Triples))
	for i, tp := range n.Triples {
		ts[i] = triple{s: c.pos(tp.Subject), p: c.pos(tp.Predicate), o: c.pos(tp.Object), src: tp}
		ts[i].est = c.estimate(&ts[i])
	}
	return ts
}

// pendingFilter is a filter of a BGP as the planner sees it: the variables it reads and the fraction
// of rows it is guessed to keep.
type pendingFilter struct {
	vars slotSet
	sel  float64
}

// bgpPlanner chooses the join order of one BGP. Its variable sets are bit sets (the search's inner
// loop runs 2^n times) over the variables of the BGP and its filters, numbered from 0 in the order
// met (bit), so that their width is that of the BGP, not of the whole query; it is not modified by
// the search.
type bgpPlanner struct {
	c     *compiler
	ts    []triple        // the patterns, in query order
	tb    [][3]int        // tb[i][j]: the bit of position j of ts[i] (its variables), -1 for a constant
	entry slotSet         // the variables bound before the BGP
	pend  []pendingFilter // the filters, in the order given
	nw    int             // words of every slotSet
}

// newBGPPlanner makes the planner of the patterns ts given the entry variables and the filters that
// apply to the BGP. It numbers the variables of the patterns and filters (their bits), so its work
// grows with the BGP, not with the query's variables.
func (c *compiler) newBGPPlanner(ts []triple, entry varSet, filters []algebra.Expr) *bgpPlanner {
	fvars := make([]varSet, len(filters))
	for i, f := range filters {
		fvars[i] = c.exprVars(f)
	}
	p := &bgpPlanner{c: c, ts: ts, tb: make([][3]int, len(ts))}
	// Only the entry variables that the patterns or filters read matter: they are looked up, as
	// the entry may hold every variable of a long query (the entry of an EXISTS does).
	bit := map[int]int{}
	var bound []int
	number := func(slot int) int {
		b, ok := bit[slot]
		if !ok {
			b = len(bit)
			bit[slot] = b
			if entry.has(slot) {
				bound = append(bound, b)
			}
		}
		return b
	}
	for i := range ts {
		for j, x := range ts[i].positions() {
			p.tb[i][j] = -1
			if x.slot >= 0 {
				p.tb[i][j] = number(x.slot)
			}
		}
	}
	fbits := make([][]int, len(filters))
	for i := range filters {
		for v := range fvars[i].all {
			fbits[i] = append(fbits[i], number(v))
		}
	}
	p.nw = (len(bit) + 63) / 64
	p.entry = p.bits(bound)
	for i, f := range filters {
		p.pend = append(p.pend, pendingFilter{vars: p.bits(fbits[i]), sel: selectivity(f)})
	}
	return p
}

// bits returns the set of the given bits, of the planner's width.
func (p *bgpPlanner) bits(bs []int) slotSet {
	out := make(slotSet, p.nw)
	for _, b := range bs {
		out.set(b)
	}
	return out
}

// order returns the patterns in the chosen join order, each with its estimates and its choice of
// lookup or hash join set: the cheapest order for up to maxDPPatterns patterns, a greedy one beyond.
func (p *bgpPlanner) order() []triple {
	start := &planState{rows: 1, own: make(slotSet, p.nw)}
	if len(p.ts) <= maxDPPatterns {
		return p.orderDP(start)
	}
	return p.orderGreedy(start)
}

// orderDP returns the cheapest order by dynamic programming over the subsets of the patterns, from
// start. best[mask] is the cheapest order found for the patterns of mask; masks grow by one pattern per
// round, so every state is final when it is extended. Among equal costs the first order found (by
// increasing mask, then pattern index) wins.
func (p *bgpPlanner) orderDP(start *planState) []triple {
	best := map[uint32]*planState{0: start}
	frontier := []uint32{0}
	for round := 0; round < len(p.ts); round++ {
		var next []uint32
		for _, m := range frontier {
			st := best[m]
			for i := range p.ts {
				if m&(1<<i) != 0 {
					continue
				}
				t, score := p.step(st, i)
				nm := m | 1<<i
				if cur, ok := best[nm]; ok && cur.total <= st.total+score {
					continue
				} else if !ok {
					next = append(next, nm)
				}
				best[nm] = p.extend(st, t, i, score)
			}
		}
		slices.Sort(next)
		frontier = next
	}
	return best[uint32(1)<<len(p.ts)-1].order
}

// orderGreedy returns an order built from start by appending, at each step, the pattern with the
// lowest score (the first one among equals). Its patterns may be more than planState.mask holds, so
// it marks those placed itself. The search takes time cubic in the patterns: when the compiler's
// context ends during it, it records the error on the compiler and places the rest in query order.
func (p *bgpPlanner) orderGreedy(start *planState) []triple {
	st := start
	placed := make([]bool, len(p.ts))
	for len(st.order) < len(p.ts) {
		if err := p.c.ctx.Err(); err != nil {
			p.c.fail(err)
			for i, t := range p.ts {
				if !placed[i] {
					st.order = append(st.order, t)
				}
			}
			break
		}
		bi, bestScore := -1, math.Inf(1)
		var bt triple
		for i := range p.ts {
			if placed[i] {
				continue
			}
			if t, score := p.step(st, i); bi < 0 || score < bestScore {
				bi, bestScore, bt = i, score, t
			}
		}
		placed[bi] = true
		p.advance(st, bt, bi, bestScore)
	}
	return st.order
}

// stepBinding says how the variables of a pattern stand when it is evaluated after a partial order.
type stepBinding struct {
	bound   [3]bool // positions bound (by the entry row or an earlier pattern of the BGP)
	key     [3]bool // positions bound by an earlier pattern of the BGP: a hash join's key
	anyOwn  bool    // some position is bound by an earlier pattern of the BGP
	unbound bool    // some variable position is bound by nothing yet
}

// binding returns how the positions of pattern i stand after the patterns of st.
func (p *bgpPlanner) binding(st *planState, i int) stepBinding {
	var sb stepBinding
	for j, b := range p.tb[i] {
		if b < 0 {
			continue
		}
		if p.entry.has(b) || st.own.has(b) {
			sb.bound[j] = true
		}
		if st.own.has(b) {
			sb.key[j] = true
			sb.anyOwn = true
		} else if !p.entry.has(b) {
			sb.unbound = true
		}
	}
	return sb
}

// none is no bits, for slotSet.within.
var none = [3]int{-1, -1, -1}

// filterSel returns the guessed fraction of rows kept by the filters that pattern i completes after
// the patterns of st (sel), and by those among them that read only variables of pattern i (selfSel).
func (p *bgpPlanner) filterSel(st *planState, i int) (sel, selfSel float64) {
	sel, selfSel = 1.0, 1.0
	for _, f := range p.pend {
		if f.vars.within(st.own, p.tb[i]) && !f.vars.within(st.own, none) {
			sel *= f.sel
			if f.vars.within(nil, p.tb[i]) {
				selfSel *= f.sel
			}
		}
	}
	return sel, selfSel
}

// step evaluates pattern i as the next step after st: it returns a copy of the pattern with the
// step's fan-out, output rows, cost and join method (lookup, or hash join when cheaper) set, and the
// step's score (cost plus output rows, scaled up for a cartesian product so that it comes last).
func (p *bgpPlanner) step(st *planState, i int) (triple, float64) {
	c := p.c
	t := p.ts[i]
	sb := p.binding(st, i)
	t.fan = c.fanout(&t, sb.bound)
	sel, selfSel := p.filterSel(st, i)
	rows := st.rows
	t.rows = rows * t.fan * sel
	lookup := rows * (costSeek + t.fan)
	t.cost = lookup
	if sb.anyOwn && len(st.order) > 0 {
		// Filters over the pattern's own variables are applied while building the table; a scan
		// skips runs of quads sharing a term that fails them, so it reads fewer quads.
		build := float64(t.est) * (0.3 + 0.7*selfSel)
		if cp, ok := c.constPattern(&t); ok && selfSel == 1 {
			for _, pk := range st.paid {
				if pk == (fanKey{cp, sb.key}) {
					build = 0 // the same table is built by an earlier step
				}
			}
		}
		// A hash hit is an in-memory read; a lookup seeks the index for each input row.
		if h := build + rows*costProbe*(1+t.fan); h < lookup {
			t.cost, t.hash, t.key = h, true, sb.key
		}
	}
	score := t.cost + t.rows
	if len(st.order) > 0 && !sb.anyOwn && sb.unbound && !sb.bound[0] && !sb.bound[1] && !sb.bound[2] {
		score *= 1e3 // a cartesian product: postpone
	}
	return t, score
}

// extend returns a new state: st followed by step t (pattern i) with its score. st is not modified;
// the new state shares no slice it may append to with st.
func (p *bgpPlanner) extend(st *planState, t triple, i int, score float64) *planState {
	nst := &planState{mask: st.mask | 1<<i, total: st.total + score, rows: math.Max(t.rows, 1e-3), own: st.own.with(p.tb[i])}
	nst.order = append(append(make([]triple, 0, len(st.order)+1), st.order...), t)
	nst.paid = st.paid
	if t.hash {
		if cp, ok := p.c.constPattern(&t); ok {
			nst.paid = append(append([]fanKey(nil), st.paid...), fanKey{cp, t.key})
		}
	}
	return nst
}

// advance appends step t (pattern i) with its score to st, as extend does but in place: the greedy
// search keeps one state, and a copy of its order per step took time quadratic in the patterns.
func (p *bgpPlanner) advance(st *planState, t triple, i int, score float64) {
	st.total += score
	st.rows = math.Max(t.rows, 1e-3)
	st.own.setAll(p.tb[i])
	st.order = append(st.order, t)
	if t.hash {
		if cp, ok := p.c.constPattern(&t); ok {
			st.paid = append(st.paid, fanKey{cp, t.key})
		}
	}
}

// placeFilters attaches each filter to the first step of order that binds all its variables (a
// filter with EXISTS or a function that makes fresh values, such as RAND(), is never placed), then marks the steps whose hash table may be shared (those
// with no filter over their own variables only). It returns the filters it did not place, in the
// order given.
func (c *compiler) placeFilters(order []triple, filters []algebra.Expr) []algebra.Expr {
	var rest []algebra.Expr
	for _, f := range filters {
		if !c.placeFilter(order, f) {
			rest = append(rest, f)
		}
	}
	for i := range order {
		t := &order[i]
		t.shared = !slices.Contains(t.fself, true)
	}
	return rest
}

// placeFilter attaches f to the first step of order after which all the variables of f are bound,
// and reports whether it did; f is not placed when it has EXISTS, when it is not deterministic (a
// step's filter decides once for every solution extending the step's row, or once per quad of a hash
// table, where SPARQL evaluates it for each solution of the group) or when no step binds them all.
func (c *compiler) placeFilter(order []triple, f algebra.Expr) bool {
	vars := c.exprVars(f)
	if hasExists(f) || !deterministic(f) {
		return false
	}
	have := map[int]bool{}
	for i := range order {
		for _, x := range order[i].positions() {
			if x.slot >= 0 {
				have[x.slot] = true
			}
		}
		all := true
		for v := range vars.all {
			if !have[v] {
				all = false
				break
			}
		}
		if all {
			order[i].addFilter(c, f, vars)
			return true
		}
	}
	return false
}

// addFilter attaches filter f, reading the variables vars (all bound once t has run), to step t, with
// what the scan needs to apply it: its one variable's slot when it is deterministic and reads one
// variable (else -1), and whether it reads only variables of t.
func (t *triple) addFilter(c *compiler, f algebra.Expr, vars varSet) {
	t.filters = append(t.filters, c.filterOf(f))
	t.fsrc = append(t.fsrc, f)
	slot, self := -1, true
	if vars.len() == 1 && deterministic(f) {
		slot = vars.sorted()[0]
	}
	for v := range vars.all {
		if t.posOf(v) < 0 {
			self = false
		}
	}
	t.fslot = append(t.fslot, slot)
	t.fself = append(t.fself, self)
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

// splitAnd splits top-level conjunctions, in order, into one slice (a chain of n && is parsed
// left-deep: appending each operand's conjuncts to its parent's copied them at every level, time
// quadratic in n).
func splitAnd(es []algebra.Expr) []algebra.Expr {
	var out []algebra.Expr
	var split func(e algebra.Expr)
	split = func(e algebra.Expr) {
		if c, ok := e.(*algebra.Call); ok && c.Op == algebra.OpAnd && len(c.Args) == 2 {
			split(c.Args[0])
			split(c.Args[1])
			return
		}
		out = append(out, e)
	}
	for _, e := range es {
		split(e)
	}
	return out
}

// run binds the variables of the patterns in in itself, and unbinds them before it returns: a copy of
// the row per run made a chain of n OPTIONALs (each running its BGP with the row of the chain below)
// copy n rows of all the query's variables, time quadratic in n.
func (o *bgpOp) run(ctx context.Context, g gctx, in row, out sink) error {
	return o.step(ctx, g, 0, in, out)
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

// build scans pattern t (with its constants cs, in graph g) into a new hash table grouped by the key
// positions t.key, and makes it t's table. When t.shared, the table is also registered under tk for
// the other steps of the evaluation (at most 64 tables are kept). nvars is the width of a row. A table
// of a step that is not shared leaves out the quads failing the filters that read only t's variables.
// On a scan error t is left unchanged.
func (o *bgpOp) build(ctx context.Context, g gctx, t *triple, cs [3]ID, tk tableKey, nvars int) error {
	b := newTableBuilder(g, t)
	if err := o.scanForTable(ctx, g, t, cs, b, nvars); err != nil {
		return err
	}
	if b.h.one >= 0 {
		b.groupByOne()
	}
	b.place()
	t.table = b.h
	if t.shared && len(o.ev.tables) < 64 {
		o.ev.tables[tk] = b.h
	}
	return nil
}

// tableBuilder is a hash table under construction: the quads read by the scan and, once grouped, the
// group of each and the size of each group (groups numbered in order of first appearance).
type tableBuilder struct {
	h       *hashTable
	key     [3]bool
	scanned []Quad
	grp     []int32 // group of each scanned quad
	count   []int32 // size of each group
}

// newTableBuilder starts the table of t in graph g: keyed by one position when t.key has exactly one
// (grouped after the scan), else by the key positions together (grouped during the scan). Its quads
// slice is sized from t's estimate (an eighth of it when filters may drop quads), within [16, 2^20].
func newTableBuilder(g gctx, t *triple) *tableBuilder {
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
	size := t.est
	if !t.shared {
		size /= 8
	}
	return &tableBuilder{h: h, key: t.key, scanned: make([]Quad, 0, min(max(size, 16), 1<<20))}
}

// scanForTable is the first pass of build: it reads the quads of t's constants cs in graph g into b,
// leaving out, when t is not shared, those failing the filters that read only t's variables (skipping
// the runs of quads that share the failing term). A table keyed by several positions groups each quad
// as it is read. nvars is the width of a row.
func (o *bgpOp) scanForTable(ctx context.Context, g gctx, t *triple, cs [3]ID, b *tableBuilder, nvars int) error {
	scratch := make(row, nvars)
	var set [3]int
	return o.ev.scan(ctx, g, cs[0], cs[1], cs[2], func(q Quad) error {
		if !t.shared {
			if pass, skip := t.passOwnFilters(ctx, g, scratch, q, &set); !pass {
				return skip
			}
		}
		if b.h.one >= 0 {
			// Grouped after the scan, with a table sized for it.
			b.scanned = append(b.scanned, q)
			return nil
		}
		b.addMulti(q)
		return nil
	})
}

// passOwnFilters binds q in the scratch row r (all zero before and after the call) and applies the
// filters of t that read only t's variables. It reports whether q passes them, and when it fails one
// the signal that lets the scan skip the quads sharing the failing term (nil when there is none). A q
// that does not fit the pattern (a variable repeated with different terms) fails with no skip.
func (t *triple) passOwnFilters(ctx context.Context, g gctx, r row, q Quad, set *[3]int) (bool, error) {
	n, ok := t.bindQuad(r, q, set)
	if !ok {
		return false, nil
	}
	var skip error
	pass := true
	for f, fn := range t.filters {
		if t.fself[f] && !fn(ctx, g, r) {
			pass = false
			skip = t.skipFor(f, set[:n])
			break
		}
	}
	for j := 0; j < n; j++ {
		r[set[j]] = 0
	}
	return pass, skip
}

// addMulti adds q to a table keyed by several positions (or none): it finds or numbers the group of
// q's values in the key positions and counts q in it.
func (b *tableBuilder) addMulti(q Quad) {
	vals := [3]ID{q.S, q.P, q.O}
	var k [3]ID
	for j := range k {
		if b.key[j] {
			k[j] = vals[j]
		}
	}
	i, ok := b.h.multi[k]
	if !ok {
		i = int32(len(b.count))
		b.h.multi[k] = i
		b.count = append(b.count, 0)
	}
	b.count[i]++
	b.scanned = append(b.scanned, q)
	b.grp = append(b.grp, i)
}

// groupByOne groups the scanned quads of a table keyed by one position, in scan order, into an idMap
// sized for them.
func (b *tableBuilder) groupByOne() {
	h := b.h
	h.single = newIDMap(len(b.scanned))
	b.grp = make([]int32, len(b.scanned))
	for j, q := range b.scanned {
		k := [3]ID{q.S, q.P, q.O}[h.one]
		i, ok := h.single.get(k)
		if !ok {
			i = int32(len(b.count))
			h.single.put(k, i)
			b.count = append(b.count, 0)
		}
		b.count[i]++
		b.grp[j] = i
	}
}

// place is the second pass of build: it lays out the quads of each group together in the table,
// keeping the scan order within a group, and sets the groups' offsets. It consumes b.count.
func (b *tableBuilder) place() {
	h := b.h
	h.off = make([]int32, len(b.count)+1)
	for i, c := range b.count {
		h.off[i+1] = h.off[i] + c
	}
	next := b.count // reused as each group's next free position
	copy(next, h.off[:len(b.count)])
	h.quads = make([]Quad, len(b.scanned))
	for j, q := range b.scanned {
		i := b.grp[j]
		h.quads[next[i]] = q
		next[i]++
	}
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
