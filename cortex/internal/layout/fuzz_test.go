package layout

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"

	hkv "github.com/hidal-go/hidalgo/kv"
)

// FuzzKeyFormat checks the key format on arbitrary parts and ids: escaped
// parts split at the unescaped separators and unescape to the parts,
// escaping keeps a part's prefixes, LogRank orders ids as their escaped
// log keys sort, AppendIndexKey is the escaped Index key, and an id list
// decodes to the ids it was encoded from.
func FuzzKeyFormat(f *testing.F) {
	f.Add([]byte("a/b\\c"), []byte{Sep, Esc}, uint64(0x2f5c2f5c2f5c2f5c), uint64(Sep))
	f.Add([]byte{}, []byte("x"), uint64(0), ^uint64(0))
	f.Add([]byte("\\"), []byte("/"), uint64(Esc)<<8, uint64(Sep-1))
	f.Fuzz(func(t *testing.T, a, b []byte, x, y uint64) {
		k := Escape(nil, hkv.Key{a, b})
		var parts [][]byte
		start := 0
		for i := 0; i < len(k); i++ {
			switch k[i] {
			case Esc:
				i++
			case Sep:
				parts = append(parts, k[start:i])
				start = i + 1
			}
		}
		parts = append(parts, k[start:])
		if len(parts) != 2 {
			t.Fatalf("Escape(%q, %q) = %q splits into %d parts", a, b, k, len(parts))
		}
		for i, want := range [][]byte{a, b} {
			got, ok := UnescapePart(parts[i])
			if !ok || got != string(want) {
				t.Fatalf("part %d of %q unescapes to %q, %v; want %q", i, k, got, ok, want)
			}
		}
		for n := range len(a) + 1 {
			if !bytes.HasPrefix(AppendEscaped(nil, a), AppendEscaped(nil, a[:n])) {
				t.Fatalf("escaped %q does not extend escaped %q", a, a[:n])
			}
		}
		kx, ky := Escape(nil, Log(x)), Escape(nil, Log(y))
		rx, ry := LogRank(x), LogRank(y)
		if c := bytes.Compare(kx, ky); c != cmpU64(rx, ry) {
			t.Fatalf("ids %x, %x: keys compare %d, ranks %x, %x", x, y, c, rx, ry)
		}
		if !bytes.Equal(AppendEscapedID(nil, x), kx[len(LogBucket)+1:]) {
			t.Fatalf("AppendEscapedID(%x) is not the log key's id", x)
		}
		ids := [4]uint64{x, y, x ^ y, binary.BigEndian.Uint64(append(slices.Clone(a), make([]byte, 8)...))}
		for i := range Indexes {
			if got, want := AppendIndexKey(slices.Clone(b), i, ids), Escape(slices.Clone(b), Index(i, ids)); !bytes.Equal(got, want) {
				t.Fatalf("index %d, ids %x: %q, want %q", i, ids, got, want)
			}
		}
		var list []byte
		for _, id := range ids {
			list = binary.AppendUvarint(list, id)
		}
		if got, err := DecodeIDList(list); err != nil || !slices.Equal(got, ids[:]) {
			t.Fatalf("DecodeIDList = %x, %v; want %x", got, err, ids)
		}
		if got, err := DecodeIDList(a); err == nil {
			var re []byte
			for _, id := range got {
				re = binary.AppendUvarint(re, id)
			}
			if len(re) > len(a) {
				t.Fatalf("DecodeIDList(%x) = %x: longer than its input", a, got)
			}
		}
	})
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
