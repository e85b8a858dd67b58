package sorted

import (
	"math/bits"
	"slices"
)

// sortRefs sorts g by cmp, which must order refs by their words (w0, w1, w2)
// first, as unsigned big-endian 24-byte strings, and only then by anything
// else (the whole key, the entry's position). It is a most-significant-digit
// radix sort over the 24 bytes of the words: per byte, one counting pass and
// one pass moving refs to their buckets (through a scratch array as long as g
// for buckets over radixInPlaceMax refs, in place below that), bytes that all
// refs of a bucket share skipped at once. Buckets smaller than radixCutoff
// are insertion-sorted (words, then cmp); refs whose 24 bytes are all equal
// are sorted by cmp. The scratch array is the sort's only allocation.
//
// An import sorts millions of refs whose keys are node ids: a comparison sort
// spends ~17 levels of 40-byte swaps and three-word comparisons on them; the
// radix sort needs two or three significant bytes before buckets are small
// (see PERFORMANCE.md, "Session 7").
func sortRefs(g []Ref, cmp func(x, y Ref) int) {
	var scratch []Ref
	if len(g) > radixInPlaceMax {
		scratch = make([]Ref, len(g))
	}
	radixSort(g, scratch, 0, cmp)
}

const (
	// radixCutoff is the bucket size below which sortRefs uses cmp.
	radixCutoff = 32
	// radixInPlaceMax is the largest bucket permuted in place. Larger ones
	// are scattered into scratch and copied back: the in-place permutation
	// reads refs at random, a cache miss per ref once a bucket outgrows the
	// caches, while a scatter reads in order and writes 256 sequential
	// streams.
	radixInPlaceMax = 4096
)

// refByte returns byte d (0..23) of r's words.
func refByte(r *Ref, d int) byte {
	shift := 56 - 8*uint(d&7)
	switch d >> 3 {
	case 0:
		return byte(r.w0 >> shift)
	case 1:
		return byte(r.w1 >> shift)
	}
	return byte(r.w2 >> shift)
}

func radixSort(g, scratch []Ref, d int, cmp func(x, y Ref) int) {
	for {
		if d >= 24 {
			slices.SortFunc(g, cmp) // the words are equal: cmp decides
			return
		}
		if len(g) < radixCutoff {
			insertionSortRefs(g, cmp)
			return
		}
		var count [256]int
		countBytes(g, d, &count)
		if count[refByte(&g[0], d)] == len(g) {
			// Every ref shares this byte: skip to the first that differs.
			if d = firstDifference(g, d); d >= 24 {
				continue
			}
			count = [256]int{}
			countBytes(g, d, &count)
		}
		// Bucket b ends at end[b]; next[b] is where its next ref goes.
		var next, end [256]int
		sum := 0
		for b, c := range count {
			next[b] = sum
			sum += c
			end[b] = sum
		}
		if len(g) > radixInPlaceMax {
			scatter(g, scratch[:len(g)], d, &next)
		} else {
			permute(g, d, &next, &end)
		}
		start := 0
		for b := range 256 {
			if e := end[b]; e-start > 1 {
				radixSort(g[start:e], scratch, d+1, cmp)
			}
			start = end[b]
		}
		return
	}
}

// scatter moves the refs of g to their buckets by byte d (bucket b starts at
// next[b]), through scratch, which must be as long as g.
func scatter(g, scratch []Ref, d int, next *[256]int) {
	for i := range g {
		b := refByte(&g[i], d)
		scratch[next[b]] = g[i]
		next[b]++
	}
	copy(g, scratch)
}

// permute moves the refs of g to their buckets by byte d in place (bucket b
// is g[next[b]:end[b]]).
func permute(g []Ref, d int, next, end *[256]int) {
	for b := range 256 {
		for next[b] < end[b] {
			r := g[next[b]]
			for {
				rb := refByte(&r, d)
				if int(rb) == b {
					break
				}
				g[next[rb]], r = r, g[next[rb]]
				next[rb]++
			}
			g[next[b]] = r
			next[b]++
		}
	}
}

// insertionSortRefs sorts a small g by its words, then by cmp.
func insertionSortRefs(g []Ref, cmp func(x, y Ref) int) {
	for i := 1; i < len(g); i++ {
		for j := i; j > 0 && refLess(&g[j], &g[j-1], cmp); j-- {
			g[j], g[j-1] = g[j-1], g[j]
		}
	}
}

func refLess(x, y *Ref, cmp func(x, y Ref) int) bool {
	switch {
	case x.w0 != y.w0:
		return x.w0 < y.w0
	case x.w1 != y.w1:
		return x.w1 < y.w1
	case x.w2 != y.w2:
		return x.w2 < y.w2
	}
	return cmp(*x, *y) < 0
}

// firstDifference returns the first byte at or after d in which refs of g
// differ, or 24 if their words are equal.
func firstDifference(g []Ref, d int) int {
	var x0, x1, x2 uint64
	f := &g[0]
	for i := range g {
		x0 |= g[i].w0 ^ f.w0
		x1 |= g[i].w1 ^ f.w1
		x2 |= g[i].w2 ^ f.w2
	}
	// The refs of a bucket at depth d share their bytes before d.
	for w, x := range [3]uint64{x0, x1, x2} {
		if x != 0 {
			return max(d, 8*w+bits.LeadingZeros64(x)/8)
		}
	}
	return 24
}

// countBytes counts byte d of every ref of g.
func countBytes(g []Ref, d int, count *[256]int) {
	shift := 56 - 8*uint(d&7)
	switch d >> 3 {
	case 0:
		for i := range g {
			count[byte(g[i].w0>>shift)]++
		}
	case 1:
		for i := range g {
			count[byte(g[i].w1>>shift)]++
		}
	default:
		for i := range g {
			count[byte(g[i].w2>>shift)]++
		}
	}
}
