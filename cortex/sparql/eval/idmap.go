package eval

import "math/bits"

// idMap maps term ids to int32 values: open addressing with linear probing, keys multiplied by a
// Fibonacci constant. It is several times faster than a Go map on the hash-join and grouping paths,
// where lookups dominate. The zero id is never a key (it is the empty slot).
type idMap struct {
	keys  []ID
	vals  []int32
	n     int
	shift uint
}

func newIDMap(hint int) *idMap {
	m := &idMap{}
	m.alloc(max(16, 1<<bits.Len(uint(hint*4/3+1))))
	return m
}

func (m *idMap) alloc(size int) {
	m.keys = make([]ID, size)
	m.vals = make([]int32, size)
	m.shift = uint(64 - bits.TrailingZeros(uint(size)))
}

func (m *idMap) slot(k ID) int {
	return int((uint64(k) * 0x9E3779B97F4A7C15) >> m.shift)
}

// get returns the value of k.
func (m *idMap) get(k ID) (int32, bool) {
	mask := len(m.keys) - 1
	for i := m.slot(k); ; i = (i + 1) & mask {
		switch m.keys[i] {
		case k:
			return m.vals[i], true
		case 0:
			return 0, false
		}
	}
}

// put sets the value of k (k != 0).
func (m *idMap) put(k ID, v int32) {
	if (m.n+1)*4 > len(m.keys)*3 {
		keys, vals := m.keys, m.vals
		m.alloc(len(keys) * 2)
		m.n = 0
		for i, k := range keys {
			if k != 0 {
				m.put(k, vals[i])
			}
		}
	}
	mask := len(m.keys) - 1
	for i := m.slot(k); ; i = (i + 1) & mask {
		switch m.keys[i] {
		case k:
			m.vals[i] = v
			return
		case 0:
			m.keys[i], m.vals[i] = k, v
			m.n++
			return
		}
	}
}
