package results

import (
	"fmt"
	"math"
	"math/big"
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
}

// Equivalent reports whether a and b are the same query result with the
// default options; see EquivalenceOptions.Equivalent.
func Equivalent(a, b *Result, ordered bool) bool {
	return EquivalenceOptions{}.Equivalent(a, b, ordered)
}

// Equivalent reports whether a and b are the same query result: both
// booleans with the same value, or the same set of variables (order
// ignored) and the same multiset of rows up to one consistent bijection
// between the blank node labels of a and those of b, across the whole
// result. When ordered is true the i-th row of a must match the i-th row of
// b; otherwise row order is ignored.
//
// Matching rows that hold blank nodes uses a backtracking search, exponential
// in the worst case: it is meant for test-sized results. Rows of the wrong
// length, or values that are not valid terms, compare by their Go value.
func (o EquivalenceOptions) Equivalent(a, b *Result, ordered bool) bool {
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
	return matchUnordered(ar, br, m)
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
// as multisets of signatures; rows with blank nodes must have the same number of rows per signature,
// and are then paired by a backtracking search.
func matchUnordered(ar, br []keyRow, m *bijection) bool {
	aB, bBySig, ok := matchGround(ar, br)
	if !ok || !sameSigCounts(aB, bBySig) {
		return false
	}
	return newBnodeSearch(aB, br, bBySig, m).search()
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
// with at most one, else the first with the fewest), and its candidates. remaining is not empty.
func (s *bnodeSearch) mostConstrained() (int, []int) {
	pick, pickCands := -1, []int(nil)
	for i, ai := range s.remaining {
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
// reports false, used, remaining and m are as they were on entry.
func (s *bnodeSearch) search() bool {
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
	}
	s.remaining = append(s.remaining, ai)
	s.remaining[pick], s.remaining[last] = s.remaining[last], s.remaining[pick]
	return false
}
