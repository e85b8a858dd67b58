// Package rdftest holds helpers for testing code that produces RDF: dataset
// isomorphism (blank node bijection), readable diffs, and the check of the
// node tools that differential tests run (NodeTool), and RDF read by rdflib
// (RdflibRead), the third-party reader that differential tests compare with.
package rdftest

import (
	"encoding/binary"
	"hash/fnv"
	"sort"
	"strings"

	"github.com/cayleygraph/quad"
)

// Isomorphic reports whether a and b are the same RDF dataset up to a
// renaming of blank nodes (graph labels included). Duplicate quads are
// ignored (datasets are sets). Literals are compared exactly (lexical form
// preserved) except that language tags compare case-insensitively and a
// quad.TypedString with datatype xsd:string equals the quad.String with the
// same value.
//
// It uses colour refinement with backtracking, so it is fast for the graphs
// met in practice and exponential only for highly symmetric blank node
// structures.
func Isomorphic(a, b []quad.Quad) bool {
	sa, sb := newSide(a), newSide(b)
	if len(sa.ground) != len(sb.ground) || len(sa.quads) != len(sb.quads) || len(sa.labels) != len(sb.labels) {
		return false
	}
	for k := range sa.ground {
		if !sb.ground[k] {
			return false
		}
	}
	if len(sa.labels) == 0 {
		return true
	}
	ca := make([]uint64, len(sa.labels))
	cb := make([]uint64, len(sb.labels))
	return search(sa, sb, ca, cb, 1)
}

// Diff returns the quads only in a and only in b, formatted as N-Quads-like
// lines, for test failure messages. Blank node labels are shown as given; the
// lists are meaningful only when the datasets have no blank nodes.
func Diff(a, b []quad.Quad) (onlyA, onlyB []string) {
	ka, kb := map[string]bool{}, map[string]bool{}
	for _, q := range a {
		ka[quadKey(q)] = true
	}
	for _, q := range b {
		kb[quadKey(q)] = true
	}
	for k := range ka {
		if !kb[k] {
			onlyA = append(onlyA, k)
		}
	}
	for k := range kb {
		if !ka[k] {
			onlyB = append(onlyB, k)
		}
	}
	sort.Strings(onlyA)
	sort.Strings(onlyB)
	return onlyA, onlyB
}

func quadKey(q quad.Quad) string {
	return termKey(q.Subject) + " " + termKey(q.Predicate) + " " + termKey(q.Object) + " " + termKey(q.Label)
}

func termKey(v quad.Value) string {
	switch t := v.(type) {
	case nil:
		return "N"
	case quad.IRI:
		return "I<" + string(t) + ">"
	case quad.BNode:
		return "B_:" + string(t)
	case quad.String:
		return "S" + quadStr(string(t))
	case quad.LangString:
		return "L" + quadStr(string(t.Value)) + "@" + strings.ToLower(t.Lang)
	case quad.TypedString:
		if t.Type == "http://www.w3.org/2001/XMLSchema#string" {
			return "S" + quadStr(string(t.Value))
		}
		return "T" + quadStr(string(t.Value)) + "^^<" + string(t.Type) + ">"
	default:
		return "O" + v.String()
	}
}

func quadStr(s string) string { return quad.String(s).String() }

// term is a ground term key or a blank node index.
type term struct {
	bn  int // -1 when ground
	key string
}

type occ struct{ q, pos int }

type side struct {
	labels []string
	quads  [][4]term
	occs   [][]occ
	ground map[string]bool
	keys   map[string]bool // blank quads with labels, for verification
}

func newSide(qs []quad.Quad) *side {
	s := &side{ground: map[string]bool{}, keys: map[string]bool{}}
	idx := map[string]int{}
	seen := map[string]bool{}
	for _, q := range qs {
		vals := [4]quad.Value{q.Subject, q.Predicate, q.Object, q.Label}
		var t [4]term
		hasB := false
		for i, v := range vals {
			if bn, ok := v.(quad.BNode); ok {
				hasB = true
				j, ok := idx[string(bn)]
				if !ok {
					j = len(s.labels)
					idx[string(bn)] = j
					s.labels = append(s.labels, string(bn))
					s.occs = append(s.occs, nil)
				}
				t[i] = term{bn: j}
			} else {
				t[i] = term{bn: -1, key: termKey(v)}
			}
		}
		k := quadKey(q)
		if !hasB {
			s.ground[k] = true
			continue
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		s.keys[k] = true
		for i, tt := range t {
			if tt.bn >= 0 {
				s.occs[tt.bn] = append(s.occs[tt.bn], occ{len(s.quads), i})
			}
		}
		s.quads = append(s.quads, t)
	}
	return s
}

func hashStr(h uint64, s string) uint64 {
	f := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], h)
	f.Write(b[:])
	f.Write([]byte(s))
	return f.Sum64()
}

func hashU(h, v uint64) uint64 {
	f := fnv.New64a()
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], h)
	binary.LittleEndian.PutUint64(b[8:], v)
	f.Write(b[:])
	return f.Sum64()
}

func (s *side) refine(col []uint64) []uint64 {
	out := make([]uint64, len(col))
	hs := []uint64{}
	for i := range s.labels {
		hs = hs[:0]
		for _, o := range s.occs[i] {
			h := uint64(o.pos + 1)
			for p, t := range s.quads[o.q] {
				h = hashU(h, uint64(p))
				switch {
				case t.bn < 0:
					h = hashStr(h, t.key)
				case t.bn == i:
					h = hashStr(h, "\x00self")
				default:
					h = hashU(h, col[t.bn])
				}
			}
			hs = append(hs, h)
		}
		sort.Slice(hs, func(a, b int) bool { return hs[a] < hs[b] })
		h := col[i]
		for _, x := range hs {
			h = hashU(h, x)
		}
		out[i] = h
	}
	return out
}

func distinct(a, b []uint64) int {
	m := map[uint64]bool{}
	for _, x := range a {
		m[x] = true
	}
	for _, x := range b {
		m[x] = true
	}
	return len(m)
}

func sameMultiset(a, b []uint64) bool {
	x := append([]uint64(nil), a...)
	y := append([]uint64(nil), b...)
	sort.Slice(x, func(i, j int) bool { return x[i] < x[j] })
	sort.Slice(y, func(i, j int) bool { return y[i] < y[j] })
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

func search(a, b *side, ca, cb []uint64, depth uint64) bool {
	n := distinct(ca, cb)
	for {
		ca, cb = a.refine(ca), b.refine(cb)
		m := distinct(ca, cb)
		if !sameMultiset(ca, cb) {
			return false
		}
		if m <= n {
			break
		}
		n = m
	}
	classes := map[uint64][]int{}
	for i, c := range ca {
		classes[c] = append(classes[c], i)
	}
	var pick uint64
	best := 0
	for c, members := range classes {
		if len(members) > 1 && (best == 0 || len(members) < best || len(members) == best && c < pick) {
			pick, best = c, len(members)
		}
	}
	if best == 0 {
		byColor := map[uint64]int{}
		for j, c := range cb {
			byColor[c] = j
		}
		m := make([]int, len(ca))
		for i, c := range ca {
			m[i] = byColor[c]
		}
		return verify(a, b, m)
	}
	x := classes[pick][0]
	mark := hashU(pick, depth<<32|0xfeed)
	for j, c := range cb {
		if c != pick {
			continue
		}
		ca2 := append([]uint64(nil), ca...)
		cb2 := append([]uint64(nil), cb...)
		ca2[x], cb2[j] = mark, mark
		if search(a, b, ca2, cb2, depth+1) {
			return true
		}
	}
	return false
}

func verify(a, b *side, m []int) bool {
	for _, q := range a.quads {
		parts := make([]string, 4)
		for i, t := range q {
			if t.bn >= 0 {
				parts[i] = "B_:" + b.labels[m[t.bn]]
			} else {
				parts[i] = t.key
			}
		}
		if !b.keys[strings.Join(parts, " ")] {
			return false
		}
	}
	return true
}
