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

func matchUnordered(ar, br []keyRow, m *bijection) bool {
	// Ground rows must match as multisets.
	ground := map[string]int{}
	var aB []keyRow
	bBySig := map[string][]int{}
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
			return false
		}
		ground[r.sig]--
	}
	for _, n := range ground {
		if n != 0 {
			return false
		}
	}
	// Rows with blank nodes: same count per signature, then search.
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
	if len(count) != 0 {
		return false
	}
	// Index the blank node rows of b by (column, label) so that once a blank
	// node of a is mapped, candidate rows are found directly.
	type colLabel struct {
		col   int
		label string
	}
	byLabel := map[colLabel][]int{}
	for _, js := range bBySig {
		for _, j := range js {
			for c, tk := range br[j].terms {
				if tk.isB {
					k := colLabel{c, tk.bnode}
					byLabel[k] = append(byLabel[k], j)
				}
			}
		}
	}
	// candidates returns a superset of the b rows x can still match: those
	// with the image of an already mapped blank node in the same column, or
	// all rows of x's signature.
	candidates := func(x keyRow) []int {
		best := bBySig[x.sig]
		for c, tk := range x.terms {
			if !tk.isB {
				continue
			}
			if img, ok := m.fwd[tk.bnode]; ok {
				if js := byLabel[colLabel{c, img}]; len(js) < len(best) {
					best = js
				}
			}
		}
		return best
	}
	used := make([]bool, len(br))
	remaining := make([]int, len(aB))
	for i := range remaining {
		remaining[i] = i
	}
	var search func() bool
	search = func() bool {
		if len(remaining) == 0 {
			return true
		}
		// Most constrained row first.
		pick, pickCands := -1, []int(nil)
		for i, ai := range remaining {
			cands := candidates(aB[ai])
			if pick < 0 || len(cands) < len(pickCands) {
				pick, pickCands = i, cands
				if len(cands) <= 1 {
					break
				}
			}
		}
		ai := remaining[pick]
		x := aB[ai]
		last := len(remaining) - 1
		remaining[pick] = remaining[last]
		remaining = remaining[:last]
		for _, j := range pickCands {
			if used[j] || br[j].sig != x.sig {
				continue
			}
			mark := len(m.log)
			if !m.extend(x, br[j]) {
				continue
			}
			used[j] = true
			if search() {
				return true
			}
			used[j] = false
			m.undo(mark)
		}
		remaining = append(remaining, ai)
		remaining[pick], remaining[last] = remaining[last], remaining[pick]
		return false
	}
	return search()
}
