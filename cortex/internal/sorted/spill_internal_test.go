package sorted

import (
	"fmt"
	"testing"
)

// The merge of runs and memory yields each key once, in order, the newest
// source's entry winning.
func TestGroupMergerNewestWins(t *testing.T) {
	t.Parallel()
	prefix := []byte("n:t/")
	mk := func(kvs ...string) *PutBuf { return testPuts(prefix, kvs...) }
	dir := t.TempDir()
	sg := &Segment{}
	defer sg.Reset()
	sg.Add(mk("xa", "1", "xb", "1", "xe", "1", "y", "1"), 1, 1)
	sg.Add(mk("xa", "2"), 1, 1) // the later chunk of the same run wins
	if err := sg.spill(dir, len(prefix)); err != nil {
		t.Fatal(err)
	}
	sg.Add(mk("xb", "3", "xc", "3", "xe", "3"), 1, 1)
	if err := sg.spill(dir, len(prefix)); err != nil {
		t.Fatal(err)
	}
	sg.Add(mk("xc", "4", "xd", "4"), 1, 1)
	if len(sg.Runs) != 2 || sg.inMem != 2 || sg.Entries != 10 {
		t.Fatalf("runs %d, in memory %d, entries %d", len(sg.Runs), sg.inMem, sg.Entries)
	}
	ss := NewSortedSegment(sg, len(prefix))
	var got []string
	for _, b := range ss.Order() {
		m, err := ss.Merged(byte(b), ss.SortGroup(byte(b)))
		if err != nil {
			t.Fatal(err)
		}
		for {
			ok, err := m.Next()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			got = append(got, fmt.Sprintf("%s=%s", m.Key[len(prefix):], m.Val))
		}
	}
	want := []string{"xa=2", "xb=3", "xc=4", "xd=4", "xe=3", "y=1"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
