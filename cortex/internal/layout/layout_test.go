package layout

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cayleygraph/cayley/graph/proto"
	"github.com/cayleygraph/quad"
	"github.com/cayleygraph/quad/pquads"
	"github.com/cayleygraph/quad/voc/xsd"
	hkv "github.com/hidal-go/hidalgo/kv"
)

// FuzzDecodeTerm checks DecodeTerm's direct path against cayley's generic
// one (proto.Primitive + pquads): the same term for every entry both
// accept, and never a panic on malformed input.
func FuzzDecodeTerm(f *testing.F) {
	for _, v := range []quad.Value{
		quad.IRI("urn:x:a"), quad.BNode("b1"), quad.String(""), quad.String("plain ü"),
		quad.LangString{Value: "hallo", Lang: "de-CH"},
		quad.TypedString{Value: "2025-03-01T09:00:00Z", Type: xsd.NS + "dateTime"},
		quad.TypedString{Value: "01", Type: xsd.NS + "integer"},
		quad.TypedString{Value: "x", Type: "http://example.org/dt"},
		quad.Int(7), quad.Bool(true), quad.Float(1.5),
	} {
		e, err := PinValue(12, v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(e)
	}
	q := proto.Primitive{ID: 13, Subject: 1, Predicate: 2, Object: 3, Label: 4, Timestamp: 5, Deleted: true}
	e, _ := q.Marshal()
	f.Add(e)
	f.Add([]byte{0x42, 0x02, 0x38, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := DecodeTerm(b)
		var p proto.Primitive
		if p.Unmarshal(b) != nil {
			return // malformed: an error or a lenient read, but no panic
		}
		if !p.IsNode() {
			if got != nil {
				t.Fatalf("quad entry decoded as %#v", got)
			}
			return
		}
		want, werr := safeUnmarshalValue(p.Value)
		if werr != nil {
			return
		}
		if err != nil {
			t.Fatalf("DecodeTerm: %v; pquads read %#v", err, want)
		}
		if got != want {
			t.Fatalf("DecodeTerm = %#v, pquads = %#v", got, want)
		}
	})
}

// safeUnmarshalValue is pquads.UnmarshalValue, which panics on a value
// without a known type, with the panic turned into an error.
func safeUnmarshalValue(b []byte) (v quad.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errors.New("pquads panicked")
		}
	}()
	return pquads.UnmarshalValue(b)
}

// ids returns n random ids, with bytes '/' and '\' and their neighbours
// over-represented.
func ids(n int) []uint64 {
	r := rand.New(rand.NewPCG(1, 2))
	special := []byte{0, Sep - 1, Sep, Sep + 1, Esc - 1, Esc, Esc + 1, 0xff}
	out := make([]uint64, n)
	for i := range out {
		var id uint64
		for range 8 {
			b := byte(r.UintN(256))
			if r.IntN(2) == 0 {
				b = special[r.IntN(len(special))]
			}
			id = id<<8 | uint64(b)
		}
		out[i] = id
	}
	return out
}

// LogRank orders ids exactly as their escaped log keys sort, and is a
// bijection.
func TestLogRank_OrdersAsEscapedKeys(t *testing.T) {
	all := ids(20_000)
	byKey := slices.Clone(all)
	slices.SortFunc(byKey, func(a, b uint64) int {
		return bytes.Compare(Escape(nil, Log(a)), Escape(nil, Log(b)))
	})
	byRank := slices.Clone(all)
	slices.SortFunc(byRank, func(a, b uint64) int {
		ra, rb := LogRank(a), LogRank(b)
		switch {
		case ra < rb:
			return -1
		case ra > rb:
			return 1
		}
		return 0
	})
	if !slices.Equal(byKey, byRank) {
		t.Fatal("LogRank orders ids differently from their escaped log keys")
	}
	seen := map[uint64]uint64{}
	for _, id := range all {
		if other, ok := seen[LogRank(id)]; ok && other != id {
			t.Fatalf("ids %x and %x have the same rank", id, other)
		}
		seen[LogRank(id)] = id
	}
}

// Escaping preserves prefixes: a key of ids extends the escaped form of any
// prefix of its ids. (Not order: LogRank gives the order of escaped keys.)
func TestEscape_Prefixes(t *testing.T) {
	all := ids(2_000)
	for i := 0; i+1 < len(all); i += 2 {
		a := [4]uint64{all[i], all[i+1], 7, 0}
		ka := Escape(nil, Index(0, a))
		for n := 1; n <= 4; n++ {
			prefix := Escape(nil, hkv.Key{IndexBuckets[0], Index(0, a)[1][:8*n]})
			if !bytes.HasPrefix(ka, prefix) {
				t.Fatalf("key %q does not extend the escaped prefix %q", ka, prefix)
			}
		}
		if got := AppendEscapedID(nil, all[i]); !bytes.Equal(got, Escape(nil, Log(all[i]))[len(LogBucket)+1:]) {
			t.Fatalf("AppendEscapedID(%x) = %q", all[i], got)
		}
	}
}

// Index keys list a quad's ids in each index's direction order.
func TestIndex_DirectionOrder(t *testing.T) {
	q := [4]uint64{1, 2, 3, 4} // subject, predicate, object, graph
	want := [][4]uint64{{1, 2, 3, 4}, {2, 3, 1, 4}, {3, 1, 2, 4}, {4, 1, 2, 3}}
	for i := range Indexes {
		if got := IndexIDs(Indexes[i], q); got != want[i] {
			t.Errorf("index %d: ids %v, want %v", i, got, want[i])
		}
		k := Index(i, q)
		for j, id := range want[i] {
			if got := Index(i, q)[1][8*j+7]; uint64(got) != id {
				t.Errorf("index %d key %x: position %d holds %d, want %d", i, k[1], j, got, id)
			}
		}
	}
}

func TestMetaIntAndIDList(t *testing.T) {
	for _, v := range []int64{0, 1, 1 << 40, -1} {
		got, err := MetaInt(PutMetaInt(v))
		if err != nil || got != v {
			t.Errorf("MetaInt(PutMetaInt(%d)) = %d, %v", v, got, err)
		}
	}
	if _, err := MetaInt([]byte{1, 2, 3}); !errors.Is(err, ErrFormat) {
		t.Errorf("3-byte meta value: %v, want ErrFormat", err)
	}
	if got, err := DecodeIDList([]byte{1, 0x80, 0x01}); err != nil || !slices.Equal(got, []uint64{1, 128}) {
		t.Errorf("DecodeIDList = %v, %v", got, err)
	}
	if _, err := DecodeIDList([]byte{0x80}); !errors.Is(err, ErrFormat) {
		t.Errorf("truncated id list: %v, want ErrFormat", err)
	}
}

// UnescapePart inverts AppendEscaped, and refuses several parts.
func TestUnescapePart(t *testing.T) {
	for _, part := range [][]byte{nil, []byte("plain"), []byte("a/b\\c"), {Sep, Esc, Sep}, []byte("/")} {
		got, ok := UnescapePart(AppendEscaped(nil, part))
		if !ok || got != string(part) {
			t.Errorf("UnescapePart(AppendEscaped(%q)) = %q, %v", part, got, ok)
		}
	}
	for _, b := range []string{"a/b", "a\\", "x/"} {
		if _, ok := UnescapePart([]byte(b)); ok {
			t.Errorf("UnescapePart(%q) accepted", b)
		}
	}
}

// AppendIndexKey appends exactly what escaping Index's key does, for ids
// whose bytes include the separator and the escape.
func TestAppendIndexKey_IsEscapedIndex(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	idsOf := []func() uint64{
		func() uint64 { return r.Uint64() },
		func() uint64 { return r.Uint64N(1 << 20) },
		func() uint64 { return 0x2f5c2f5c2f5c2f5c }, // "/\/\/\/\"
		func() uint64 { return uint64(Sep) },
		func() uint64 { return uint64(Esc) << 8 },
	}
	for n := range 2000 {
		var ids [4]uint64
		for j := range ids {
			ids[j] = idsOf[(n+j*3)%len(idsOf)]()
		}
		for i := range Indexes {
			want := Escape([]byte("x"), Index(i, ids))
			if got := AppendIndexKey([]byte("x"), i, ids); !bytes.Equal(got, want) {
				t.Fatalf("index %d, ids %x: %q, want %q", i, ids, got, want)
			}
		}
	}
}
