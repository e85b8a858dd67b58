package eval

import (
	"math/rand"
	"testing"
)

func TestIDMap_MatchesGoMap(t *testing.T) {
	for _, hint := range []int{0, 1, 100} {
		m := newIDMap(hint)
		want := map[ID]int32{}
		rng := rand.New(rand.NewSource(int64(hint)))
		for i := 0; i < 5000; i++ {
			k := ID(rng.Intn(3000) + 1)
			if i%3 == 0 {
				k |= localBit
			}
			m.put(k, int32(i))
			want[k] = int32(i)
		}
		if m.n != len(want) {
			t.Fatalf("hint %d: %d keys, want %d", hint, m.n, len(want))
		}
		for k, v := range want {
			if got, ok := m.get(k); !ok || got != v {
				t.Fatalf("hint %d: get(%d) = %d, %v; want %d", hint, k, got, ok, v)
			}
		}
		for k := ID(3001); k < 3100; k++ {
			if _, ok := m.get(k); ok {
				t.Fatalf("hint %d: get(%d) found a missing key", hint, k)
			}
		}
	}
}
