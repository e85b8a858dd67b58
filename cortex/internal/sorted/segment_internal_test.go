package sorted

import (
	"fmt"
	"testing"
)

// testPuts returns a chunk's writes of keys and values kvs (alternating),
// one key part each, under prefix.
func testPuts(prefix []byte, kvs ...string) *PutBuf {
	p := &PutBuf{Prefix: prefix}
	for i := 0; i < len(kvs); i += 2 {
		p.Add([][]byte{[]byte(kvs[i])}, []byte(kvs[i+1]))
	}
	return p
}

// The sort puts equal keys together and keeps the one of the latest chunk.
func TestSortSegmentKeepsLatest(t *testing.T) {
	t.Parallel()
	prefix := []byte("n:t/")
	mk := func(kvs ...string) *PutBuf { return testPuts(prefix, kvs...) }
	sg := &Segment{}
	sg.Add(mk("meta", "1", "x-long-key-beyond-twenty-four-bytes-a", "a1", "b", "1"), 3, 3)
	sg.Add(mk("meta", "2", "x-long-key-beyond-twenty-four-bytes-a", "a2", "x-long-key-beyond-twenty-four-bytes-0", "z"), 3, 3)
	ss := sortSegment(sg, len(prefix))
	var got []string
	for b := range ss.Groups {
		for _, r := range ss.Groups[b] {
			got = append(got, fmt.Sprintf("%s=%s", ss.Key(r)[len(prefix):], ss.Val(r)))
		}
	}
	want := []string{"b=1", "meta=2", "x-long-key-beyond-twenty-four-bytes-0=z", "x-long-key-beyond-twenty-four-bytes-a=a2"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// A key that is only its group byte shares no prefix with the others of its
// group (the group's words then start right after the group byte).
func TestSortSegmentGroupByteOnlyKey(t *testing.T) {
	t.Parallel()
	prefix := []byte("n:t/")
	sg := &Segment{}
	sg.Add(testPuts(prefix, "mabc", "1", "mabd", "2", "m", "3"), 3, 3)
	ss := sortSegment(sg, len(prefix))
	var got []string
	for _, r := range ss.Groups['m'] {
		got = append(got, fmt.Sprintf("%s=%s", ss.Key(r)[len(prefix):], ss.Val(r)))
	}
	if want := []string{"m=3", "mabc=1", "mabd=2"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// sortSegment sorts every group of a segment (concurrently), as
// writeStreams does group by group.
func sortSegment(sg *Segment, prefixLen int) *SortedSegment {
	ss := NewSortedSegment(sg, prefixLen)
	ParallelGroups(ss.Order(), func(b int) error {
		ss.SortGroup(byte(b))
		return nil
	})
	return ss
}
