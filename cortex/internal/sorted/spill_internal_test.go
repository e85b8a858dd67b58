package sorted

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
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

// TestMerged_CorruptRun: an entry of a spilled run that cannot be read (the
// file cut short, or a header that no spill writes) fails the merge with
// an error that names the run file and the entry's offset in it (it said
// "read spilled run: unexpected EOF"), and wraps the cause.
func TestMerged_CorruptRun(t *testing.T) {
	t.Parallel()
	prefix := []byte("n:t/")
	cases := []struct {
		name    string
		corrupt func(f *os.File, sec runSection, size int64) error
		entry   int // the entry whose offset the error names
		want    error
	}{
		{"cut short", func(f *os.File, sec runSection, size int64) error {
			return f.Truncate(sec.off + sec.n - 1)
		}, 2, io.ErrUnexpectedEOF},
		{"bad header", func(f *os.File, sec runSection, size int64) error {
			_, err := f.WriteAt(bytes.Repeat([]byte{0xff}, 9), sec.off+size)
			return err
		}, 1, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sg := &Segment{}
			defer sg.Reset()
			sg.Add(testPuts(prefix, "xa", "1", "xb", "2", "xc", "3"), 1, 1)
			if err := sg.spill(t.TempDir(), len(prefix)); err != nil {
				t.Fatal(err)
			}
			run := sg.Runs[0]
			sec := run.sec['x']
			size := sec.n / int64(sec.count) // the entries are of one size
			if err := c.corrupt(run.f, sec, size); err != nil {
				t.Fatal(err)
			}
			ss := NewSortedSegment(sg, len(prefix))
			m, err := ss.Merged('x', nil)
			for err == nil {
				var ok bool
				if ok, err = m.Next(); !ok && err == nil {
					t.Fatal("the corrupt run was read to its end")
				}
			}
			at := fmt.Sprintf("entry at offset %d", sec.off+int64(c.entry)*size)
			if !strings.Contains(err.Error(), run.name) || !strings.Contains(err.Error(), at) {
				t.Errorf("err = %v, want the run file %s and %q", err, run.name, at)
			}
			if c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("err = %v, want it to wrap %v", err, c.want)
			}
		})
	}
}
