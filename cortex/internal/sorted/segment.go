package sorted

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"slices"
	"sync"
)

// Segment is the writes of consecutive import chunks, in order; each chunk's
// writes are consistent on their own (they are what a chunked import would
// commit in one transaction). Chunks spilled to sorted run files (spill.go)
// are in runs, oldest first; chunks holds those written since.
type Segment struct {
	Chunks  []*PutBuf
	Counts  []int // source quads accounted for by each chunk, spilled ones included
	Quads   int64 // quads inserted
	Entries int   // all entries, spilled ones included
	inMem   int   // entries in chunks
	Bytes   int64 // arena bytes of chunks
	Runs    []*segRun
	Spilled int64     // bytes in runs
	pending *spillJob // a spill in flight (its run is not in runs yet)
}

func (sg *Segment) Add(p *PutBuf, count int, inserted int) {
	sg.Chunks = append(sg.Chunks, p)
	sg.Counts = append(sg.Counts, count)
	sg.Quads += int64(inserted)
	sg.Entries += len(p.Entries)
	sg.inMem += len(p.Entries)
	sg.Bytes += int64(len(p.Data))
}

// Memory estimates the bytes held in memory for the segment, including the
// sort.
func (sg *Segment) Memory() int64 {
	return sg.Bytes + int64(sg.inMem)*(32+40)
}

// Reset empties the segment and removes its run files, after waiting for a
// spill in flight.
func (sg *Segment) Reset() {
	if job := sg.pending; job != nil {
		<-job.done
		if job.run != nil {
			sg.Runs = append(sg.Runs, job.run)
		}
	}
	for _, r := range sg.Runs {
		_ = r.close() // temporary; Open removes what is left
	}
	*sg = Segment{}
}

// Ref is one entry of a segment in the sort: the first 24 bytes of its key
// after the namespace prefix and bucket byte (a fast path for the comparison)
// and where it is.
type Ref struct {
	w0, w1, w2 uint64
	c          uint32 // chunk
	k0         uint32 // key offset in the chunk's data (value follows the key)
	klen       uint16
	vlen       uint32
	Del        bool // a deletion
}

// SortedSegment is a segment's entries grouped by the first byte of their
// key after the namespace prefix (groups are disjoint key ranges, written as
// separate streams), each group sorted by key, without duplicate keys (the
// entry of the latest chunk wins).
type SortedSegment struct {
	Seg    *Segment
	prefix int      // length of the namespace prefix
	counts [256]int // in-memory entries of each group
	total  [256]int // with the spilled ones
	Groups [256][]Ref
}

func (ss *SortedSegment) Key(r Ref) []byte {
	k1 := r.k0 + uint32(r.klen)
	return ss.Seg.Chunks[r.c].Data[r.k0:k1:k1]
}

func (ss *SortedSegment) Val(r Ref) []byte {
	v0 := r.k0 + uint32(r.klen)
	v1 := v0 + r.vlen
	return ss.Seg.Chunks[r.c].Data[v0:v1:v1]
}

// NewSortedSegment builds the refs of every group in two passes over the
// entries (the first counts them and finds each group's shared prefix);
// sortGroup then sorts one group.
func NewSortedSegment(sg *Segment, prefixLen int) *SortedSegment {
	ss := &SortedSegment{Seg: sg, prefix: prefixLen}
	var first [256][]byte
	var skip [256]int
	for _, p := range sg.Chunks {
		for _, e := range p.Entries {
			b := p.Data[e.K0+prefixLen]
			k := p.Data[e.K0+prefixLen+1 : e.K1]
			if ss.counts[b] == 0 {
				first[b], skip[b] = k, len(k)
			} else {
				n, f := min(skip[b], len(k)), first[b]
				i := 0
				for i < n && k[i] == f[i] {
					i++
				}
				skip[b] = i
			}
			ss.counts[b]++
		}
	}
	for b, n := range ss.counts {
		if n > 0 {
			ss.Groups[b] = make([]Ref, 0, n)
		}
	}
	for ci, p := range sg.Chunks {
		for _, e := range p.Entries {
			b := p.Data[e.K0+prefixLen]
			k := p.Data[e.K0+prefixLen+1+skip[b] : e.K1]
			ss.Groups[b] = append(ss.Groups[b], Ref{w0: word(k, 0), w1: word(k, 8), w2: word(k, 16), c: uint32(ci),
				k0: uint32(e.K0), klen: uint16(e.K1 - e.K0), vlen: uint32(e.V1 - e.V0), Del: e.Del})
		}
	}
	ss.total = ss.counts
	for _, r := range sg.Runs {
		for b := range ss.total {
			ss.total[b] += r.sec[b].count
		}
	}
	return ss
}

// Order returns the non-empty groups, largest first.
func (ss *SortedSegment) Order() []int {
	order := make([]int, 0, 256)
	for b, n := range ss.total {
		if n > 0 {
			order = append(order, b)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return ss.total[b] - ss.total[a] })
	return order
}

func word(k []byte, i int) uint64 {
	if i >= len(k) {
		return 0
	}
	if i+8 <= len(k) {
		return binary.BigEndian.Uint64(k[i:])
	}
	var b [8]byte
	copy(b[:], k[i:])
	return binary.BigEndian.Uint64(b[:])
}

// SortGroup sorts the refs of group b by key, keeping the entry of the
// latest chunk among equal keys, and stores them in ss.groups[b]. The words
// start after the prefix the keys of the group share (e.g. an index's bucket
// name and the high zero bytes of the first id), so that they decide most
// comparisons. Different groups may be sorted concurrently.
func (ss *SortedSegment) SortGroup(b byte) []Ref {
	g := ss.Groups[b]
	sortRefs(g, func(x, y Ref) int {
		if x.w0 != y.w0 {
			return cmpU64(x.w0, y.w0)
		}
		if x.w1 != y.w1 {
			return cmpU64(x.w1, y.w1)
		}
		if x.w2 != y.w2 {
			return cmpU64(x.w2, y.w2)
		}
		if c := bytes.Compare(ss.Key(x), ss.Key(y)); c != 0 {
			return c
		}
		if x.c != y.c {
			return cmpU64(uint64(x.c), uint64(y.c))
		}
		return cmpU64(uint64(x.k0), uint64(y.k0)) // entry order within a chunk
	})
	out := g[:0]
	for i, r := range g {
		if i+1 < len(g) && sameWords(r, g[i+1]) && bytes.Equal(ss.Key(r), ss.Key(g[i+1])) {
			continue
		}
		out = append(out, r)
	}
	ss.Groups[b] = out
	return out
}

// ParallelGroups runs fn for each group on GOMAXPROCS goroutines, in order of
// the list (largest first), and returns the errors.
func ParallelGroups(order []int, fn func(b int) error) error {
	work := make(chan int, len(order))
	for _, b := range order {
		work <- b
	}
	close(work)
	errs := make([]error, len(order))
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(order)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				if err := fn(b); err != nil {
					errs[slices.Index(order, b)] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func sameWords(a, b Ref) bool { return a.w0 == b.w0 && a.w1 == b.w1 && a.w2 == b.w2 }

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
