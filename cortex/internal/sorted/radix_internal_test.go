package sorted

import (
	"cmp"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

// refCmp orders refs as sortGroup's comparison does, with the position
// (c, k0) standing in for the rest of the key.
func refCmp(x, y Ref) int {
	switch {
	case x.w0 != y.w0:
		return cmpU64(x.w0, y.w0)
	case x.w1 != y.w1:
		return cmpU64(x.w1, y.w1)
	case x.w2 != y.w2:
		return cmpU64(x.w2, y.w2)
	case x.c != y.c:
		return cmp.Compare(x.c, y.c)
	}
	return cmp.Compare(x.k0, y.k0)
}

// idKeyRefs returns n refs whose words are the first 24 bytes of keys made of
// four big-endian 8-byte ids below maxID, after skip leading bytes, as the
// index groups of an import hold them; dup of them repeat an earlier key.
func idKeyRefs(r *rand.Rand, n int, maxID uint64, skip int, dup float64) []Ref {
	return indexRefs(r, n, [4]uint64{maxID, maxID, maxID, maxID}, skip, dup)
}

// indexRefs is idKeyRefs with a bound per id.
func indexRefs(r *rand.Rand, n int, maxID [4]uint64, skip int, dup float64) []Ref {
	g := make([]Ref, n)
	var k [32]byte
	for i := range g {
		if i > 0 && r.Float64() < dup {
			g[i] = g[r.IntN(i)]
		} else {
			for j := range 4 {
				binary.BigEndian.PutUint64(k[8*j:], r.Uint64N(maxID[j]))
			}
			g[i] = Ref{w0: word(k[skip:], 0), w1: word(k[skip:], 8), w2: word(k[skip:], 16)}
		}
		g[i].c, g[i].k0 = uint32(i%7), uint32(i)
	}
	return g
}

func TestSortRefs_MatchesComparisonSort(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		name string
		g    []Ref
	}{
		{"empty", nil},
		{"one", idKeyRefs(r, 1, 10, 0, 0)},
		{"below cutoff", idKeyRefs(r, radixCutoff-1, 1000, 5, 0.2)},
		{"at cutoff", idKeyRefs(r, radixCutoff, 1000, 5, 0.2)},
		{"index keys", idKeyRefs(r, 50_000, 3_000_000, 5, 0.01)},
		{"few distinct first ids", idKeyRefs(r, 20_000, 20, 5, 0)},
		{"all equal words", idKeyRefs(r, 5_000, 1, 0, 0)},
		{"many duplicates", idKeyRefs(r, 20_000, 50, 0, 0.5)},
		{"random words", func() []Ref {
			g := make([]Ref, 30_000)
			for i := range g {
				g[i] = Ref{w0: r.Uint64(), w1: r.Uint64N(3), w2: r.Uint64(), c: uint32(r.IntN(4)), k0: uint32(i)}
			}
			return g
		}()},
		{"sorted", func() []Ref {
			g := idKeyRefs(r, 10_000, 1<<20, 5, 0)
			slices.SortFunc(g, refCmp)
			return g
		}()},
		{"reversed", func() []Ref {
			g := idKeyRefs(r, 10_000, 1<<20, 5, 0)
			slices.SortFunc(g, refCmp)
			slices.Reverse(g)
			return g
		}()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := slices.Clone(tc.g)
			slices.SortFunc(want, refCmp)
			got := slices.Clone(tc.g)
			sortRefs(got, refCmp)
			if !slices.Equal(got, want) {
				i := 0
				for got[i] == want[i] {
					i++
				}
				t.Fatalf("%d refs: first difference at %d: got %+v, want %+v", len(got), i, got[i], want[i])
			}
		})
	}
}

func TestRefByte(t *testing.T) {
	t.Parallel()
	r := Ref{w0: 0x0102030405060708, w1: 0x1112131415161718, w2: 0x2122232425262728}
	var got []byte
	for d := range 24 {
		got = append(got, refByte(&r, d))
	}
	want := []byte{1, 2, 3, 4, 5, 6, 7, 8, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18,
		0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28}
	if !slices.Equal(got, want) {
		t.Fatalf("bytes %x, want %x", got, want)
	}
}

// BenchmarkSortRefs sorts 190k index refs, an index group's share of a
// spilled run of a 1M-triple import, by radix and by comparison: keys led by
// a subject (of ~2.5M node ids) and by a predicate (of 20).
func BenchmarkSortRefs(b *testing.B) {
	const nodes, preds, graphs = 2_500_000, 20, 1000
	for _, shape := range []struct {
		name  string
		maxID [4]uint64
	}{
		{"spog", [4]uint64{nodes, preds, nodes, graphs}},
		{"posg", [4]uint64{preds, nodes, nodes, graphs}},
	} {
		src := indexRefs(rand.New(rand.NewPCG(3, 4)), 190_000, shape.maxID, 5, 0.001)
		g := make([]Ref, len(src))
		for _, s := range []struct {
			name string
			sort func([]Ref, func(x, y Ref) int)
		}{{"radix", sortRefs}, {"pdq", slices.SortFunc[[]Ref]}} {
			b.Run(s.name+"/"+shape.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					copy(g, src)
					s.sort(g, refCmp)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(g)), "ns/ref")
			})
		}
	}
}
