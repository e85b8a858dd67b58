package sorted

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// FuzzSegmentMerge writes the entries the input describes into a segment in
// chunks, spilling some of them to run files, and checks that the sorted
// and merged segment yields every key once, in byte order within disjoint
// groups, with the value (or deletion) of the last write: the radix sort,
// the spill files and their merge against a map.
func FuzzSegmentMerge(f *testing.F) {
	f.Add([]byte("a1b2\x00c3\x01a4\x02zz\x00aaaa/aaaa5"))
	f.Add([]byte("\\/\\/x\x00/\\y\x01\\\\z\x02\xff\x00\x00\x00"))
	f.Add(bytes.Repeat([]byte("key-shared-prefix-beyond-24-bytes-"), 4))
	f.Fuzz(func(t *testing.T, in []byte) {
		prefix := []byte("n:t/")
		dir := t.TempDir()
		type want struct {
			val string
			del bool
		}
		ref := map[string]want{}
		sg := &Segment{}
		defer sg.Reset()
		cur := &PutBuf{Prefix: prefix}
		endChunk := func() {
			if len(cur.Entries) > 0 {
				sg.Add(cur, 1, len(cur.Entries))
			}
			cur = &PutBuf{Prefix: prefix}
		}
		// Each write is a key of 1 to 8 bytes of the input (a byte of the
		// key's length sets its tail: a repeated byte makes long keys
		// that share long prefixes) and a value of the next byte; control
		// bytes end the chunk (0), spill (1) or delete (2).
		for i := 0; i < len(in); {
			switch c := in[i]; c {
			case 0:
				endChunk()
				i++
				continue
			case 1:
				endChunk()
				if err := sg.spill(dir, len(prefix)); err != nil {
					t.Fatal(err)
				}
				i++
				continue
			}
			del := in[i] == 2
			if del {
				i++
			}
			n := min(1+int(in[min(i, len(in)-1)]%8), len(in)-i)
			if n <= 0 {
				break
			}
			k := slices.Clone(in[i : i+n])
			if k[0]%5 == 0 {
				k = append(k, bytes.Repeat(k[:1], 30)...)
			}
			i += n
			var v []byte
			if i < len(in) {
				v = []byte(fmt.Sprint(in[i]))
				i++
			}
			if del {
				cur.AddDel([][]byte{k})
			} else {
				cur.Add([][]byte{k}, v)
			}
			ek := string(cur.Data[cur.Entries[len(cur.Entries)-1].K0:cur.Entries[len(cur.Entries)-1].K1])
			ref[ek] = want{string(v), del}
			if del {
				ref[ek] = want{"", true}
			}
		}
		endChunk()
		ss := NewSortedSegment(sg, len(prefix))
		got := map[string]want{}
		var last []byte
		for b := range 256 {
			if ss.total[b] == 0 {
				continue
			}
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
				if last != nil && bytes.Compare(m.Key, last) <= 0 {
					t.Fatalf("key %q after %q", m.Key, last)
				}
				if m.Key[len(prefix)] != byte(b) {
					t.Fatalf("key %q in group %d", m.Key, b)
				}
				last = slices.Clone(m.Key)
				w := want{string(m.Val), m.Del}
				if m.Del {
					w.val = ""
				}
				got[string(m.Key)] = w
			}
		}
		if len(got) != len(ref) {
			t.Fatalf("%d keys merged, want %d", len(got), len(ref))
		}
		for k, w := range ref {
			if got[k] != w {
				t.Fatalf("key %q: got %+v, want %+v", k, got[k], w)
			}
		}
	})
}
