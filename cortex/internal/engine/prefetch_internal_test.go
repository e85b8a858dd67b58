package engine

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortKeyWants checks that sortKeyWants orders keys as bytes.Compare
// does: keys sharing long prefixes, keys shorter than 8 bytes past the
// common prefix, keys that are prefixes of others, zero bytes, duplicates.
func TestSortKeyWants(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		prefix := []byte("ns\x00team/")[:r.IntN(9)]
		n := 1 + r.IntN(300)
		var wants []keyWant
		for i := range n {
			k := slices.Clone(prefix)
			for range r.IntN(14) {
				k = append(k, []byte{0, 1, '/', '\\', 0xff, 'v'}[r.IntN(6)])
			}
			if i > 0 && r.IntN(8) == 0 {
				k = slices.Clone(wants[r.IntN(i)].key) // a duplicate
			}
			wants = append(wants, keyWant{key: k, slot: i})
		}
		want := slices.Clone(wants)
		slices.SortStableFunc(want, func(a, b keyWant) int { return bytes.Compare(a.key, b.key) })
		sortKeyWants(wants)
		for i := range wants {
			if !bytes.Equal(wants[i].key, want[i].key) {
				t.Fatalf("round %d: position %d: %q, want %q", round, i, wants[i].key, want[i].key)
			}
		}
	}
}

// FuzzKeyHead checks keyHead's contract: keyHead(a) < keyHead(b) implies
// a < b, so sorting by it first and by bytes next is sorting by bytes.
func FuzzKeyHead(f *testing.F) {
	f.Add([]byte("a"), []byte("a\x00"))
	f.Add([]byte("abcdefgh1"), []byte("abcdefgh0"))
	f.Add([]byte{}, []byte{0})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ha, hb := keyHead(a), keyHead(b)
		c := bytes.Compare(a, b)
		if ha < hb && c >= 0 || ha > hb && c <= 0 {
			t.Fatalf("keyHead(%q)=%x, keyHead(%q)=%x, but bytes.Compare=%d", a, ha, b, hb, c)
		}
	})
}
