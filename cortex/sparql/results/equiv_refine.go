package results

import (
	"slices"
	"strconv"
)

// trialSteps is the number of steps pairParts lets the row-by-row search
// take on a pair of parts of n rows each before it turns to
// individualisation-refinement: enough for the parts that colour refinement
// tells apart, and for small symmetric ones.
func trialSteps(n int) int { return 64 + 32*n }

// irSearch pairs two parts that colour refinement cannot tell apart (such
// as two regular graphs) by individualisation-refinement, as graph
// isomorphism tools do: it gives a blank node u of x, of the smallest
// colour class that holds more than one node, a colour of its own, and the
// same colour to each node v of y of u's colour in turn, refines the
// colours again and goes on until every blank node has a colour of its
// own on each side; a bijection that maps u to v keeps the refined colours,
// so a branch whose colour counts differ between the sides fails at once.
// On random regular graphs refinement after one or two individualised
// nodes tells every node apart. The search is exact: it tries every v.
type irSearch struct {
	side [2]irSide
	m    *bijection
	bud  *budget
}

// irSide is one side of an irSearch: rows, their blank nodes numbered
// locally (node[i][c] is the node in column c of row i, or -1) and the
// occurrences of each node.
type irSide struct {
	rows []keyRow
	node [][]int
	occ  [][]occurrence
}

func newIRSide(rows []keyRow) irSide {
	s := irSide{rows: rows, node: make([][]int, len(rows))}
	ids := map[string]int{}
	for i, r := range rows {
		s.node[i] = make([]int, len(r.terms))
		for c, tk := range r.terms {
			s.node[i][c] = -1
			if !tk.isB {
				continue
			}
			id, ok := ids[tk.bnode]
			if !ok {
				id = len(ids)
				ids[tk.bnode] = id
				s.occ = append(s.occ, nil)
			}
			s.node[i][c] = id
			s.occ[id] = append(s.occ[id], occurrence{i, c})
		}
	}
	return s
}

// pairPartsRefined pairs x and y (the rows of two parts of as many rows,
// with their colours as sig) by individualisation-refinement, extending m.
// It spends a step per row per round of refinement, and fails when bud is
// exceeded.
func pairPartsRefined(x, y []keyRow, m *bijection, bud *budget) bool {
	s := &irSearch{side: [2]irSide{newIRSide(x), newIRSide(y)}, m: m, bud: bud}
	if len(s.side[0].occ) != len(s.side[1].occ) {
		return false
	}
	col := [2][]int{make([]int, len(s.side[0].occ)), make([]int, len(s.side[1].occ))}
	rows, ok := s.refine(col)
	return ok && s.search(col, rows)
}

// refine refines the node colours col in place, jointly on both sides, as
// colourParts does, until no colour splits. It returns the rows' colours,
// and false when a colour is held by more nodes or rows on one side than
// on the other (no bijection keeps the colours) or the budget ran out.
func (s *irSearch) refine(col [2][]int) ([2][]int, bool) {
	var rowCol [2][]int
	distinct := len(distinctColours(col))
	var key []byte
	var occ []occurrence
	for {
		if !s.bud.spend(len(s.side[0].rows) + len(s.side[1].rows)) {
			return rowCol, false
		}
		ids := map[string]int{}
		for k, sd := range s.side {
			rowCol[k] = make([]int, len(sd.rows))
			for i, r := range sd.rows {
				key = append(key[:0], r.sig...)
				for _, id := range sd.node[i] {
					if id >= 0 {
						key = strconv.AppendInt(append(key, ','), int64(col[k][id]), 10)
					}
				}
				rowCol[k][i] = internID(ids, key)
			}
		}
		if !sameCounts(rowCol, len(ids)) {
			return rowCol, false
		}
		ids = map[string]int{}
		for k, sd := range s.side {
			rc := rowCol[k]
			for id, os := range sd.occ {
				occ = append(occ[:0], os...)
				slices.SortFunc(occ, func(a, b occurrence) int {
					if rc[a.row] != rc[b.row] {
						return rc[a.row] - rc[b.row]
					}
					return a.col - b.col
				})
				key = strconv.AppendInt(key[:0], int64(col[k][id]), 10)
				for _, o := range occ {
					key = strconv.AppendInt(append(key, ';'), int64(rc[o.row]), 10)
					key = strconv.AppendInt(append(key, '@'), int64(o.col), 10)
				}
				col[k][id] = internID(ids, key)
			}
		}
		if !sameCounts(col, len(ids)) {
			return rowCol, false
		}
		// Each node's new colour keeps its old one, so colours only
		// split: when none did, the rows' colours stay as they are.
		if len(ids) == distinct {
			return rowCol, true
		}
		distinct = len(ids)
	}
}

// distinctColours returns the colours held on either side of col.
func distinctColours(col [2][]int) map[int]bool {
	seen := map[int]bool{}
	for _, cs := range col {
		for _, c := range cs {
			seen[c] = true
		}
	}
	return seen
}

// sameCounts reports whether each of the n colours is held as often in
// c[0] as in c[1].
func sameCounts(c [2][]int, n int) bool {
	if len(c[0]) != len(c[1]) {
		return false
	}
	count := make([]int, n)
	for _, x := range c[0] {
		count[x]++
	}
	for _, x := range c[1] {
		count[x]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}

// search goes on from refined colours col (rows: the rows' colours): when
// every node has a colour of its own it pairs the rows by their colours,
// else it individualises a node of x of the smallest class against each
// node of y of that class.
func (s *irSearch) search(col, rows [2][]int) bool {
	count := map[int]int{}
	for _, c := range col[0] {
		count[c]++
	}
	pick, size := -1, 0
	for c, n := range count {
		if n > 1 && (pick < 0 || n < size || n == size && c < pick) {
			pick, size = c, n
		}
	}
	if pick < 0 {
		// Every node has a colour of its own: rows of a colour are the
		// same row, and the row-by-row search pairs them without
		// backtracking.
		x, y := s.colouredRows(0, rows[0]), s.colouredRows(1, rows[1])
		bBySig := map[string][]int{}
		for j, r := range y {
			bBySig[r.sig] = append(bBySig[r.sig], j)
		}
		bs := newBnodeSearch(x, y, bBySig, s.m)
		bs.bud = s.bud
		return bs.search()
	}
	u := slices.Index(col[0], pick)
	fresh := len(distinctColours(col))
	for v, c := range col[1] {
		if c != pick {
			continue
		}
		next := [2][]int{slices.Clone(col[0]), slices.Clone(col[1])}
		next[0][u], next[1][v] = fresh, fresh
		if r, ok := s.refine(next); ok && s.search(next, r) {
			return true
		}
		if s.bud.exceeded() {
			return false
		}
	}
	return false
}

// colouredRows returns the rows of side k with their colours as sig.
func (s *irSearch) colouredRows(k int, colours []int) []keyRow {
	out := make([]keyRow, len(s.side[k].rows))
	for i, r := range s.side[k].rows {
		r.sig = strconv.Itoa(colours[i])
		out[i] = r
	}
	return out
}
