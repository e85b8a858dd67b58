package results

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/cayleygraph/quad"
)

// EquivalenceOptions tune Equivalent. The zero value compares terms exactly
// (language tags case-insensitively).
type EquivalenceOptions struct {
	// NumbersByValue compares literals of the same XSD numeric datatype
	// (xsd:integer and its derived types, xsd:decimal, xsd:double, xsd:float)
	// by value, so "01"^^xsd:integer equals "1"^^xsd:integer and
	// "1.0E0"^^xsd:double equals "1e0"^^xsd:double. Literals of different
	// datatypes never compare equal; malformed lexical forms compare by term.
	NumbersByValue bool
	// MaxSteps bounds the work of the search for a blank node bijection
	// (see Equivalent), counted in steps: a step is one row the search
	// examines or tries to pair, or recolours in a round of refinement.
	// Zero means DefaultMaxSteps or, for
	// results of more than DefaultMaxSteps/64 rows, 64 steps per row (of
	// the larger result), whichever is more; a negative value means no
	// bound. Results that hold no blank node, or whose blank nodes are told
	// apart by colour refinement, take a few steps per row.
	MaxSteps int
}

// DefaultMaxSteps is the bound of the search for a blank node bijection
// when EquivalenceOptions.MaxSteps is zero (and the results are not
// larger than DefaultMaxSteps/64 rows): a few seconds of search on a
// common machine.
const DefaultMaxSteps = 1 << 24

// maxSteps returns the step bound for results of n rows; negative for none.
func (o EquivalenceOptions) maxSteps(n int) int {
	if o.MaxSteps != 0 {
		return o.MaxSteps
	}
	return max(DefaultMaxSteps, 64*n)
}

// Equivalent reports whether a and b are the same query result with the
// default options; see EquivalenceOptions.Equivalent.
func Equivalent(a, b *Result, ordered bool) bool {
	return EquivalenceOptions{}.Equivalent(a, b, ordered)
}

// Compare reports whether a and b are the same query result with the
// default options; see EquivalenceOptions.Compare.
func Compare(a, b *Result, ordered bool) (bool, error) {
	return EquivalenceOptions{}.Compare(a, b, ordered)
}

// Equivalent reports whether a and b are the same query result: both
// booleans with the same value, or the same set of variables (order
// ignored) and the same multiset of rows up to one consistent bijection
// between the blank node labels of a and those of b, across the whole
// result. When ordered is true the i-th row of a must match the i-th row of
// b; otherwise row order is ignored.
//
// Blank nodes are coloured by refinement of their neighbourhoods (at most
// 16 rounds of a pass over the rows each), and rows that hold blank nodes
// are split into parts: the connected components of the graph linking
// blank nodes that share a row, but for nodes of a colour that one node has
// on each side (a hub linked to all others does not make one part of all).
// A part of a is then paired with a part of b of the same colours by a
// backtracking search confined to the two parts, and only rows of the same
// colour are paired. When that search takes more than a few steps a row
// (parts that refinement cannot tell apart, such as two regular graphs of
// one degree), individualisation-refinement takes over: a blank node of a
// is given a colour of its own, and so in turn is each blank node of b of
// its colour, and refinement runs again, until every node has a colour of
// its own (a few nodes suffice for random regular graphs of hundreds of
// nodes). The answer is exact, but the search can still take exponential
// time on some highly symmetric structures, which query results rarely
// hold; it is therefore bounded (EquivalenceOptions.MaxSteps), and when it
// runs out of steps Equivalent reports false: a and b were not shown to be
// the same. Compare tells that case apart. Rows of the wrong length, or values that are not
// valid terms, compare by their Go value.
func (o EquivalenceOptions) Equivalent(a, b *Result, ordered bool) bool {
	ok, _ := o.Compare(a, b, ordered)
	return ok
}

// Compare is Equivalent, but when the search for a blank node bijection
// runs out of steps (EquivalenceOptions.MaxSteps) before it can decide, it
// returns false and an error wrapping ErrSearchBudget instead of a mere
// false. The error is the only one it returns.
func (o EquivalenceOptions) Compare(a, b *Result, ordered bool) (bool, error) {
	n := 0
	if a != nil && b != nil {
		n = max(len(a.Rows), len(b.Rows))
	}
	bud := &budget{max: o.maxSteps(n)}
	ok := o.equivalent(a, b, ordered, bud)
	if bud.exceeded() {
		return false, fmt.Errorf("compare results of %d rows: %w: more than %d steps (EquivalenceOptions.MaxSteps) in pairing blank nodes that colour refinement cannot tell apart", n, ErrSearchBudget, bud.max)
	}
	return ok, nil
}

// budget counts the steps of the search for a blank node bijection: one
// per row the search examines (as the most constrained, or as a candidate)
// and one per call of bnodeSearch.search. max < 0 means no bound.
type budget struct {
	used, max int
	// refineOnly (for tests) pairs every part of more than one row by
	// individualisation-refinement, without the row-by-row search first.
	refineOnly bool
}

// spend adds n steps and reports whether the budget still holds.
func (b *budget) spend(n int) bool {
	b.used += n
	return !b.exceeded()
}

// exceeded reports whether more steps were spent than the budget allows.
func (b *budget) exceeded() bool { return b.max >= 0 && b.used > b.max }

// equivalent is Equivalent; it spends in bud the steps of the search for a
// blank node bijection and stops, reporting false, when bud is exceeded.
func (o EquivalenceOptions) equivalent(a, b *Result, ordered bool, bud *budget) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Boolean != nil || b.Boolean != nil {
		return a.Boolean != nil && b.Boolean != nil && *a.Boolean == *b.Boolean
	}
	if len(a.Vars) != len(b.Vars) || len(a.Rows) != len(b.Rows) {
		return false
	}
	bIndex := make(map[string]int, len(b.Vars))
	for i, v := range b.Vars {
		bIndex[v] = i
	}
	if len(bIndex) != len(b.Vars) {
		return false
	}
	perm := make([]int, len(a.Vars))
	seen := make(map[string]bool, len(a.Vars))
	for i, v := range a.Vars {
		j, ok := bIndex[v]
		if !ok || seen[v] {
			return false
		}
		seen[v] = true
		perm[i] = j
	}
	ar, ok1 := o.keyRows(a.Rows, nil)
	br, ok2 := o.keyRows(b.Rows, perm)
	if !ok1 || !ok2 {
		return false
	}
	m := newBijection()
	if ordered {
		for i := range ar {
			if ar[i].sig != br[i].sig || !m.extend(ar[i], br[i]) {
				return false
			}
		}
		return true
	}
	return matchUnordered(ar, br, m, bud)
}

// tkey is a term reduced for comparison: a blank node label, or a key equal
// for equal terms.
type tkey struct {
	bnode string
	isB   bool
	key   string
}

type keyRow struct {
	terms []tkey
	hasB  bool
	sig   string // key of the row with every blank node replaced by a placeholder
}

// keyRows converts rows to keyRows, reordering columns by perm (perm[i] is
// the column of the i-th output term) when perm is non-nil.
func (o EquivalenceOptions) keyRows(rows []Row, perm []int) ([]keyRow, bool) {
	out := make([]keyRow, len(rows))
	var sb strings.Builder
	for i, row := range rows {
		n := len(row)
		if perm != nil {
			if len(row) != len(perm) {
				return nil, false
			}
			n = len(perm)
		}
		kr := keyRow{terms: make([]tkey, n)}
		sb.Reset()
		for j := 0; j < n; j++ {
			v := row[j]
			if perm != nil {
				v = row[perm[j]]
			}
			tk := o.termKey(v)
			kr.terms[j] = tk
			if tk.isB {
				kr.hasB = true
				sb.WriteString("1:B")
				continue
			}
			sb.WriteString(strconv.Itoa(len(tk.key)))
			sb.WriteByte(':')
			sb.WriteString(tk.key)
		}
		kr.sig = sb.String()
		out[i] = kr
	}
	return out, true
}

func (o EquivalenceOptions) termKey(v quad.Value) tkey {
	if v == nil {
		return tkey{key: "U"}
	}
	n, msg := normTerm(v)
	if msg != "" {
		return tkey{key: fmt.Sprintf("X%T:%#v", v, v)}
	}
	switch t := n.(type) {
	case quad.BNode:
		return tkey{isB: true, bnode: string(t)}
	case quad.IRI:
		return tkey{key: "I" + string(t)}
	case quad.String:
		return tkey{key: "S" + string(t)}
	case quad.LangString:
		return tkey{key: "G" + strings.ToLower(t.Lang) + "\x00" + string(t.Value)}
	case quad.TypedString:
		if o.NumbersByValue {
			if c, ok := numericValueKey(t); ok {
				return tkey{key: "N" + string(t.Type) + "\x00" + c}
			}
		}
		return tkey{key: "T" + string(t.Type) + "\x00" + string(t.Value)}
	}
	return tkey{key: fmt.Sprintf("X%T:%#v", v, v)}
}

// xsdIntegerTypes holds xsd:integer and the XSD types derived from it.
var xsdIntegerTypes = map[quad.IRI]bool{
	xsdNS + "integer": true, xsdNS + "int": true, xsdNS + "long": true, xsdNS + "short": true,
	xsdNS + "byte": true, xsdNS + "nonNegativeInteger": true, xsdNS + "positiveInteger": true,
	xsdNS + "negativeInteger": true, xsdNS + "nonPositiveInteger": true, xsdNS + "unsignedLong": true,
	xsdNS + "unsignedInt": true, xsdNS + "unsignedShort": true, xsdNS + "unsignedByte": true,
}

// numericValueKey returns a canonical key for the value of an XSD numeric
// literal, or false when t is not numeric or its lexical form is malformed.
func numericValueKey(t quad.TypedString) (string, bool) {
	lex := strings.TrimSpace(string(t.Value))
	switch {
	case xsdIntegerTypes[t.Type]:
		if numberType(lex) != xsdInteger {
			return "", false
		}
		var n big.Int
		if _, ok := n.SetString(strings.TrimPrefix(lex, "+"), 10); !ok {
			return "", false
		}
		return n.String(), true
	case t.Type == xsdDecimal:
		if nt := numberType(lex); nt != xsdInteger && nt != xsdDecimal {
			return "", false
		}
		var r big.Rat
		if _, ok := r.SetString(strings.TrimPrefix(lex, "+")); !ok {
			return "", false
		}
		return r.RatString(), true
	case t.Type == xsdDouble || t.Type == quad.IRI(xsdNS+"float"):
		bits := 64
		if t.Type != xsdDouble {
			bits = 32
		}
		var f float64
		switch lex {
		case "INF", "+INF":
			f = math.Inf(1)
		case "-INF":
			f = math.Inf(-1)
		case "NaN":
			return "NaN", true
		default:
			if numberType(lex) == "" {
				return "", false
			}
			var err error
			if f, err = strconv.ParseFloat(lex, bits); err != nil {
				return "", false
			}
		}
		return strconv.FormatFloat(f, 'g', -1, bits), true
	}
	return "", false
}

// bijection maps blank node labels of a to those of b, one to one.
type bijection struct {
	fwd, bwd map[string]string
	log      []string // labels of a added, in order, for undo
}

func newBijection() *bijection {
	return &bijection{fwd: map[string]string{}, bwd: map[string]string{}}
}

// extend adds the pairs needed to map row x onto row y (same signature),
// returning false, with the mapping unchanged, if they conflict.
func (m *bijection) extend(x, y keyRow) bool {
	mark := len(m.log)
	for i, tx := range x.terms {
		if !tx.isB {
			continue
		}
		ty := y.terms[i]
		fb, okF := m.fwd[tx.bnode]
		_, okB := m.bwd[ty.bnode]
		switch {
		case okF && fb == ty.bnode:
			continue
		case okF || okB:
			m.undo(mark)
			return false
		}
		m.fwd[tx.bnode] = ty.bnode
		m.bwd[ty.bnode] = tx.bnode
		m.log = append(m.log, tx.bnode)
	}
	return true
}

func (m *bijection) undo(mark int) {
	for _, a := range m.log[mark:] {
		delete(m.bwd, m.fwd[a])
		delete(m.fwd, a)
	}
	m.log = m.log[:mark]
}

// matchUnordered reports whether the rows ar and br are the same multiset up to one bijection between
// blank node labels, extending m (a found bijection is left in m). Rows without blank nodes must match
// as multisets of signatures. The blank nodes are coloured by refinement (colourParts), jointly on
// both sides, and rows with blank nodes are split into parts, the connected components of the graph
// in which two blank nodes are linked when they share a row, leaving out the nodes whose colour only
// one node has on each side (they can only be paired with each other): no bijection maps a row of one
// part to rows of two parts, so each part of a must match a part of b on its own. Only parts of the
// same colours are compared, and only rows of the same colour paired; the backtracking search that
// pairs rows runs within one pair of parts at a time, and a part that cannot match anything fails
// alone, without retrying the ways every other part matched.
//
// It stops, reporting false, as soon as bud is exceeded.
func matchUnordered(ar, br []keyRow, m *bijection, bud *budget) bool {
	aB, bBySig, ok := matchGround(ar, br)
	if !ok || !sameSigCounts(aB, bBySig) {
		return false
	}
	var bB []keyRow
	for _, r := range br {
		if r.hasB {
			bB = append(bB, r)
		}
	}
	if len(aB) == 0 {
		return true
	}
	pa, pb := newParts(aB), newParts(bB)
	colourParts(pa, pb)
	// The parts of b by their key (the sorted colours of their rows).
	byKey := map[string][]int{}
	for c, key := range pb.keys {
		byKey[key] = append(byKey[key], c)
	}
	for c, key := range pa.keys {
		matched := false
		for n, d := range byKey[key] {
			mark := len(m.log)
			if pairParts(pa.rowsOf[c], pb.rowsOf[d], m, bud) {
				last := len(byKey[key]) - 1
				byKey[key][n] = byKey[key][last]
				byKey[key] = byKey[key][:last]
				matched = true
				break
			}
			m.undo(mark)
			if bud.exceeded() {
				return false
			}
		}
		if !matched {
			return false
		}
	}
	return true
}

// pairParts pairs each row of x with a distinct row of y of the same colour (the rows' sig), extending
// m consistently, by a backtracking search, or after trialSteps of it by individualisation-refinement
// (pairPartsRefined); it spends its steps in bud (and fails when bud is exceeded).
func pairParts(x, y []keyRow, m *bijection, bud *budget) bool {
	if len(x) != len(y) {
		return false
	}
	if len(x) == 1 { // the common part: one row
		return bud.spend(1) && x[0].sig == y[0].sig && m.extend(x[0], y[0])
	}
	bBySig := map[string][]int{}
	for j, r := range y {
		bBySig[r.sig] = append(bBySig[r.sig], j)
	}
	// The row-by-row search decides most parts in a few steps a row; on
	// parts that refinement cannot tell apart it can take exponential
	// time, and after trialSteps individualisation-refinement takes over.
	if bud.refineOnly {
		return pairPartsRefined(x, y, m, bud)
	}
	trial := &budget{max: trialSteps(len(x))}
	if bud.max >= 0 {
		trial.max = min(trial.max, bud.max-bud.used)
	}
	s := newBnodeSearch(x, y, bBySig, m)
	s.bud = trial
	ok := s.search()
	bud.used += trial.used
	if !trial.exceeded() || bud.exceeded() {
		return ok
	}
	return pairPartsRefined(x, y, m, bud)
}

// maxRefinements bounds the rounds of colour refinement: each round costs a pass over the rows, and
// colours after any number of rounds are a sound invariant (the search stays exact), only a coarser
// one.
const maxRefinements = 16

// parts holds the rows with blank nodes of one side of a comparison, split into parts (connected
// components), and the colours of its blank nodes.
type parts struct {
	rows   []keyRow
	node   [][]int // node[i][c]: the blank node in column c of row i, or -1
	occ    [][]occurrence
	colour []int // per blank node
	comp   []int // per row, its part
	nparts int
	keys   []string   // per part: the sorted colours of its rows, once coloured
	rowsOf [][]keyRow // per part: its rows, each with its colour as sig, once coloured
}

// occurrence is a blank node in column col of row row.
type occurrence struct{ row, col int }

// newParts numbers the blank nodes of rows.
func newParts(rows []keyRow) *parts {
	p := &parts{rows: rows, node: make([][]int, len(rows)), comp: make([]int, len(rows))}
	ids := map[string]int{}
	flat := make([]int, 0, len(rows)*len(rows[0].terms))
	for i, r := range rows {
		flat = flat[len(flat):]
		for range r.terms {
			flat = append(flat, -1)
		}
		p.node[i] = flat
		for c, tk := range r.terms {
			if !tk.isB {
				continue
			}
			id, ok := ids[tk.bnode]
			if !ok {
				id = len(ids)
				ids[tk.bnode] = id
				p.occ = append(p.occ, nil)
			}
			p.node[i][c] = id
			p.occ[id] = append(p.occ[id], occurrence{i, c})
		}
	}
	p.colour = make([]int, len(ids))
	return p
}

// split splits the rows into parts: the connected components of the graph in which two blank nodes
// are linked when they share a row, leaving out the fixed ones (fixed[colour]). A row whose blank
// nodes are all fixed is a part of its own.
func (p *parts) split(fixed map[int]bool) {
	parent := make([]int, len(p.occ))
	for i := range parent {
		parent[i] = i
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, r := range p.node {
		first := -1
		for _, id := range r {
			if id < 0 || fixed[p.colour[id]] {
				continue
			}
			if first < 0 {
				first = id
			} else if a, b := find(first), find(id); a != b {
				parent[b] = a
			}
		}
	}
	compOf := map[int]int{}
	for i, r := range p.node {
		p.comp[i] = -1
		for _, id := range r {
			if id >= 0 && !fixed[p.colour[id]] {
				root := find(id)
				c, ok := compOf[root]
				if !ok {
					c = len(compOf)
					compOf[root] = c
				}
				p.comp[i] = c
				break
			}
		}
	}
	p.nparts = len(compOf)
	for i := range p.comp {
		if p.comp[i] < 0 {
			p.comp[i] = p.nparts
			p.nparts++
		}
	}
}

// colourParts refines the colours of the blank nodes of x and y jointly (one colour space), as colour
// refinement (1-dimensional Weisfeiler-Leman) does: a row's colour is its signature and the colours of
// the blank nodes in its columns; a blank node's next colour is its colour and the multiset of the
// colours of the rows it occurs in, with its columns. Isomorphic results get the same colours, so a
// bijection maps each row to a row of the same colour. Rounds stop when no colour splits (or after
// maxRefinements). It then splits the rows into parts (split), leaving out the blank nodes whose
// colour only one node has on each side, and sets each row's sig to its colour, and each part's key
// and rows.
func colourParts(x, y *parts) {
	sides := []*parts{x, y}
	rowColour := [2][]int{make([]int, len(x.rows)), make([]int, len(y.rows))}
	colourRows := func() {
		ids := map[string]int{}
		var key []byte
		for s, p := range sides {
			for i, r := range p.rows {
				key = append(key[:0], r.sig...)
				for _, id := range p.node[i] {
					if id >= 0 {
						key = strconv.AppendInt(append(key, ','), int64(p.colour[id]), 10)
					}
				}
				rowColour[s][i] = internID(ids, key)
			}
		}
	}
	distinct := 1
	for range maxRefinements {
		colourRows()
		ids := map[string]int{}
		var key []byte
		var occ []occurrence
		next := [2][]int{make([]int, len(x.colour)), make([]int, len(y.colour))}
		for s, p := range sides {
			for id, os := range p.occ {
				occ = append(occ[:0], os...)
				rc := rowColour[s]
				if len(occ) > 1 {
					sort.Slice(occ, func(i, j int) bool {
						if a, b := rc[occ[i].row], rc[occ[j].row]; a != b {
							return a < b
						}
						return occ[i].col < occ[j].col
					})
				}
				key = strconv.AppendInt(key[:0], int64(p.colour[id]), 10)
				for _, o := range occ {
					key = strconv.AppendInt(append(key, ';'), int64(rc[o.row]), 10)
					key = strconv.AppendInt(append(key, '@'), int64(o.col), 10)
				}
				next[s][id] = internID(ids, key)
			}
		}
		x.colour, y.colour = next[0], next[1]
		if len(ids) == distinct {
			break
		}
		distinct = len(ids)
	}
	colourRows()
	// A colour held by one blank node on each side is a fixed point of
	// every bijection: those nodes are paired already and do not link
	// parts (so that a node shared by many parts, a hub, does not make
	// them one).
	count := map[int][2]int{}
	for s, p := range sides {
		for _, c := range p.colour {
			n := count[c]
			n[s]++
			count[c] = n
		}
	}
	fixed := map[int]bool{}
	for c, n := range count {
		if n[0] == 1 && n[1] == 1 {
			fixed[c] = true
		}
	}
	for s, p := range sides {
		p.split(fixed)
		// The rows of each part, contiguous in one slice (a counting sort
		// by part), and their colours alike.
		start := make([]int, p.nparts+1)
		for _, c := range p.comp {
			start[c+1]++
		}
		for c := range p.nparts {
			start[c+1] += start[c]
		}
		sorted, colours := make([]keyRow, len(p.rows)), make([]int, len(p.rows))
		fill := append([]int(nil), start[:p.nparts]...)
		for i := range p.rows {
			p.rows[i].sig = strconv.Itoa(rowColour[s][i])
			c := p.comp[i]
			sorted[fill[c]], colours[fill[c]] = p.rows[i], rowColour[s][i]
			fill[c]++
		}
		p.rowsOf, p.keys = make([][]keyRow, p.nparts), make([]string, p.nparts)
		var key []byte
		for c := range p.nparts {
			p.rowsOf[c] = sorted[start[c]:start[c+1]]
			cs := colours[start[c]:start[c+1]]
			sort.Ints(cs)
			key = key[:0]
			for _, rc := range cs {
				key = strconv.AppendInt(append(key, ','), int64(rc), 10)
			}
			p.keys[c] = string(key)
		}
	}
}

// internID returns the number of key in ids, adding it with the next number if it is new.
func internID(ids map[string]int, key []byte) int {
	if id, ok := ids[string(key)]; ok {
		return id
	}
	id := len(ids)
	ids[string(key)] = id
	return id
}

// matchGround reports whether the rows of ar and br that hold no blank node are the same multiset. It
// also returns the rows of ar that hold blank nodes, in order, and the indexes in br of the rows that
// hold blank nodes, by signature (both meaningful only when it reports true).
func matchGround(ar, br []keyRow) (aB []keyRow, bBySig map[string][]int, ok bool) {
	ground := map[string]int{}
	bBySig = map[string][]int{}
	for _, r := range ar {
		if r.hasB {
			aB = append(aB, r)
		} else {
			ground[r.sig]++
		}
	}
	for j, r := range br {
		if r.hasB {
			bBySig[r.sig] = append(bBySig[r.sig], j)
			continue
		}
		if ground[r.sig] == 0 {
			return nil, nil, false
		}
		ground[r.sig]--
	}
	for _, n := range ground {
		if n != 0 {
			return nil, nil, false
		}
	}
	return aB, bBySig, true
}

// sameSigCounts reports whether the rows aB have, per signature, as many rows as bBySig lists, and no
// signature bBySig lacks.
func sameSigCounts(aB []keyRow, bBySig map[string][]int) bool {
	count := map[string]int{}
	for _, r := range aB {
		count[r.sig]++
	}
	for sig, js := range bBySig {
		if count[sig] != len(js) {
			return false
		}
		delete(count, sig)
	}
	return len(count) == 0
}

// colLabel is a blank node label in a column.
type colLabel struct {
	col   int
	label string
}

// bnodeSearch pairs each row of aB with a distinct row of br of the same signature, extending the
// bijection m consistently. While it runs, used marks the rows of br taken and remaining lists the
// indexes in aB of the rows not yet paired.
type bnodeSearch struct {
	aB        []keyRow
	br        []keyRow
	bBySig    map[string][]int   // indexes in br of the rows with blank nodes, by signature
	byLabel   map[colLabel][]int // indexes in br of those rows, by a blank node they hold and its column
	m         *bijection
	used      []bool
	remaining []int
	bud       *budget // the steps of the search
}

// newBnodeSearch prepares the search for the rows aB among the rows of br listed in bBySig: it indexes
// those rows by (column, label) so that once a blank node of a row of aB is mapped, the rows that can
// match it are found directly.
func newBnodeSearch(aB, br []keyRow, bBySig map[string][]int, m *bijection) *bnodeSearch {
	s := &bnodeSearch{aB: aB, br: br, bBySig: bBySig, byLabel: map[colLabel][]int{}, m: m}
	for _, js := range bBySig {
		for _, j := range js {
			for c, tk := range br[j].terms {
				if tk.isB {
					k := colLabel{c, tk.bnode}
					s.byLabel[k] = append(s.byLabel[k], j)
				}
			}
		}
	}
	s.used = make([]bool, len(br))
	s.remaining = make([]int, len(aB))
	for i := range s.remaining {
		s.remaining[i] = i
	}
	return s
}

// candidates returns a superset of the b rows x can still match: those with the image of an already
// mapped blank node in the same column, or all rows of x's signature (the shortest such list).
func (s *bnodeSearch) candidates(x keyRow) []int {
	best := s.bBySig[x.sig]
	for c, tk := range x.terms {
		if !tk.isB {
			continue
		}
		if img, ok := s.m.fwd[tk.bnode]; ok {
			if js := s.byLabel[colLabel{c, img}]; len(js) < len(best) {
				best = js
			}
		}
	}
	return best
}

// mostConstrained returns the position in remaining of the row with the fewest candidates (the first
// with at most one, else the first with the fewest), and its candidates. remaining is not empty. It
// spends a step per row it examines.
func (s *bnodeSearch) mostConstrained() (int, []int) {
	pick, pickCands := -1, []int(nil)
	for i, ai := range s.remaining {
		s.bud.used++
		cands := s.candidates(s.aB[ai])
		if pick < 0 || len(cands) < len(pickCands) {
			pick, pickCands = i, cands
			if len(cands) <= 1 {
				break
			}
		}
	}
	return pick, pickCands
}

// search pairs the remaining rows, most constrained first, trying each candidate in turn and undoing
// its pairs in m when the rest cannot be paired. It reports whether every row was paired; when it
// reports false, used, remaining and m are as they were on entry. It spends a step per call and per
// row it examines or tries, and reports false as soon as the budget is exceeded.
func (s *bnodeSearch) search() bool {
	if !s.bud.spend(1) {
		return false
	}
	if len(s.remaining) == 0 {
		return true
	}
	pick, pickCands := s.mostConstrained()
	ai := s.remaining[pick]
	x := s.aB[ai]
	last := len(s.remaining) - 1
	s.remaining[pick] = s.remaining[last]
	s.remaining = s.remaining[:last]
	for _, j := range pickCands {
		if !s.bud.spend(1) {
			break
		}
		if s.used[j] || s.br[j].sig != x.sig {
			continue
		}
		mark := len(s.m.log)
		if !s.m.extend(x, s.br[j]) {
			continue
		}
		s.used[j] = true
		if s.search() {
			return true
		}
		s.used[j] = false
		s.m.undo(mark)
		if s.bud.exceeded() {
			break
		}
	}
	s.remaining = append(s.remaining, ai)
	s.remaining[pick], s.remaining[last] = s.remaining[last], s.remaining[pick]
	return false
}
