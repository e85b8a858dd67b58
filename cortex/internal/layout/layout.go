// Package layout is the only code that knows Cayley's on-disk layout of a
// namespace (cayley's graph/kv format, as hidalgo's flat KV stores it in
// Badger), and Cortex's own buckets beside it.
//
// A namespace's keys are its prefix followed by a hierarchical key whose
// parts are joined by '/', with '/' and '\' inside a part escaped by a '\'
// (hidalgo's flat.Upgrade; Escape). The buckets:
//
//   - meta: "version" (DataVersion, little-endian uint64, written by
//     cayley's kv.Init), "horizon" (the last id allocated), "size" (the number of live
//     quads), both little-endian int64 (MetaInt), and "indexes" (the index
//     list, JSON, written by cayley's kv.Init);
//   - v + 2 hash bytes / hash: a node's id (uvarint); n + 2 hash bytes /
//     hash: its reference count (uvarint);
//   - log / big-endian id: the log entry of a node or a quad, a cayley
//     proto.Primitive (DecodeTerm reads a node's term);
//   - one bucket per index (the direction prefixes of Indexes): key the
//     big-endian ids of the quad in the index's order, value the quad ids
//     (uvarints; one, since every Cortex index covers all four positions);
//   - pin / big-endian id: Cortex's own, a pinned node's log entry
//     (PinValue); cayley's readers ignore it.
//
// Escaping preserves prefixes, so a prefix scan over the escaped form of
// bucket + '/' + ids visits exactly the keys whose ids start with those
// ids. It does not preserve order: LogRank gives the order of escaped log
// keys. The package only builds and decodes bytes; it reads and writes
// nothing. Its functions are safe for concurrent use.
package layout

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	ckv "github.com/cayleygraph/cayley/graph/kv"
	"github.com/cayleygraph/cayley/graph/proto"
	"github.com/cayleygraph/cayley/graph/refs"
	"github.com/cayleygraph/quad"
	"github.com/cayleygraph/quad/pquads"
	"github.com/cayleygraph/quad/voc/xsd"
	hkv "github.com/hidal-go/hidalgo/kv"
)

// Sep joins the parts of a key; Esc escapes Sep and itself inside a part.
const (
	Sep = '/'
	Esc = '\\'
)

// ErrFormat reports bytes that are not what the layout says they are.
var ErrFormat = errors.New("malformed key or value")

// DataVersion is the version of cayley's format (meta/version, written by
// cayley's kv.Init; cayley's latestDataVersion).
const DataVersion = 2

// Meta keys, and the buckets of the log and of the pins.
var (
	Version    = hkv.Key{[]byte("meta"), []byte("version")}
	Horizon    = hkv.Key{[]byte("meta"), []byte("horizon")}
	Size       = hkv.Key{[]byte("meta"), []byte("size")}
	IndexList  = hkv.Key{[]byte("meta"), []byte("indexes")}
	LogBucket  = []byte("log")
	PinBucket  = []byte("pin")
	MetaBucket = []byte("meta")
)

// Indexes are the namespace's indexes. Each covers all four positions, so a
// key identifies exactly one quad and a scan reads keys only:
// subject-predicate-object-graph, predicate-object-subject-graph,
// object-subject-predicate-graph and graph-subject-predicate-object. Any
// pattern binds a prefix of one of them. The graph comes last in the first
// three, so the copies of a triple in several graphs are adjacent.
var Indexes = []ckv.QuadIndex{
	{Dirs: []quad.Direction{quad.Subject, quad.Predicate, quad.Object, quad.Label}},
	{Dirs: []quad.Direction{quad.Predicate, quad.Object, quad.Subject, quad.Label}},
	{Dirs: []quad.Direction{quad.Object, quad.Subject, quad.Predicate, quad.Label}},
	{Dirs: []quad.Direction{quad.Label, quad.Subject, quad.Predicate, quad.Object}},
}

// IndexBuckets[i] is the bucket of Indexes[i]: its directions' prefixes.
var IndexBuckets = func() [][]byte {
	out := make([][]byte, len(Indexes))
	for i, ind := range Indexes {
		out[i] = ind.Key(nil)[0]
	}
	return out
}()

// Node returns the key of a node in bucket b ('v': its id, 'n': its
// reference count) by its hash.
func Node(b byte, h refs.ValueHash) hkv.Key {
	return hkv.Key{{b, h[0], h[1]}, h[:]}
}

// Log returns the key of the log entry of id.
func Log(id uint64) hkv.Key {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], id)
	return hkv.Key{LogBucket, k[:]}
}

// Pin returns the key of the pin of node id.
func Pin(id uint64) hkv.Key {
	k := Log(id)
	k[0] = PinBucket
	return k
}

// Index returns the key of quad ids (subject, predicate, object, graph
// order) in Indexes[i].
func Index(i int, ids [4]uint64) hkv.Key {
	ind := Indexes[i]
	key := make([]byte, 8*len(ind.Dirs))
	for j, d := range ind.Dirs {
		binary.BigEndian.PutUint64(key[8*j:], ids[DirIndex(d)])
	}
	return hkv.Key{IndexBuckets[i], key}
}

// AppendIndexKey appends to dst the escaped form of Index(i, ids) (what
// Escape(dst, Index(i, ids)) appends), without building the key first.
func AppendIndexKey(dst []byte, i int, ids [4]uint64) []byte {
	dst = AppendEscaped(dst, IndexBuckets[i])
	dst = append(dst, Sep)
	var b [8]byte
	for _, d := range Indexes[i].Dirs {
		binary.BigEndian.PutUint64(b[:], ids[DirIndex(d)])
		dst = AppendEscaped(dst, b[:])
	}
	return dst
}

// IndexIDs returns the ids of quad q (subject, predicate, object, graph
// order) in the order of index ind.
func IndexIDs(ind ckv.QuadIndex, q [4]uint64) [4]uint64 {
	var out [4]uint64
	for i, d := range ind.Dirs {
		out[i] = q[DirIndex(d)]
	}
	return out
}

// DirIndex is the position of direction d in a quad: subject 0, predicate
// 1, object 2, graph 3.
func DirIndex(d quad.Direction) int {
	switch d {
	case quad.Subject:
		return 0
	case quad.Predicate:
		return 1
	case quad.Object:
		return 2
	default:
		return 3
	}
}

// Escape appends k to dst as hidalgo's flat.Upgrade stores it: parts
// joined by Sep, with Sep and Esc escaped by an Esc.
func Escape(dst []byte, k hkv.Key) []byte {
	for i, part := range k {
		if i > 0 {
			dst = append(dst, Sep)
		}
		dst = AppendEscaped(dst, part)
	}
	return dst
}

// AppendEscaped appends part to dst, escaped.
func AppendEscaped(dst, part []byte) []byte {
	for _, b := range part {
		if b == Sep || b == Esc {
			dst = append(dst, Esc)
		}
		dst = append(dst, b)
	}
	return dst
}

// UnescapePart undoes AppendEscaped for one key part; ok is false if b
// holds an unescaped separator (several parts) or ends in a lone escape.
func UnescapePart(b []byte) (_ string, ok bool) {
	if bytes.IndexByte(b, Esc) < 0 {
		return string(b), bytes.IndexByte(b, Sep) < 0
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case Esc:
			if i++; i == len(b) {
				return "", false
			}
		case Sep:
			return "", false
		}
		out = append(out, b[i])
	}
	return string(out), true
}

// AppendEscapedID appends the escaped big-endian bytes of id.
func AppendEscapedID(dst []byte, id uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], id)
	return AppendEscaped(dst, b[:])
}

// LogRank maps id to a number that orders ids as their escaped log keys
// sort: escaping turns '/' into `\/` and '\' into `\\`, so an escaped '/'
// sorts just below an escaped '\' and above every unescaped byte below
// '\'. Ranking each big-endian byte accordingly (a bijection on bytes)
// gives the order of the keys without building them.
func LogRank(id uint64) uint64 {
	var r uint64
	for sh := 56; sh >= 0; sh -= 8 {
		b := byte(id >> sh)
		switch {
		case b == Sep:
			b = Esc - 1
		case b > Sep && b < Esc:
			b--
		}
		r = r<<8 | uint64(b)
	}
	return r
}

// MetaInt decodes a meta value (horizon, size); an absent one is 0.
func MetaInt(v []byte) (int64, error) {
	if len(v) == 0 {
		return 0, nil
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("%w: meta value of %d bytes", ErrFormat, len(v))
	}
	return int64(binary.LittleEndian.Uint64(v)), nil
}

// PutMetaInt returns the encoding of meta value v.
func PutMetaInt(v int64) []byte {
	return binary.LittleEndian.AppendUint64(nil, uint64(v))
}

// DecodeIDList decodes an index entry: quad ids as uvarints.
func DecodeIDList(b []byte) ([]uint64, error) {
	var out []uint64
	for len(b) > 0 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, fmt.Errorf("%w: index entry", ErrFormat)
		}
		out = append(out, v)
		b = b[n:]
	}
	return out, nil
}

// Primitive returns the log entry of a quad of node ids (subject,
// predicate, object, graph order), without its id and time.
func Primitive(ids [4]uint64) proto.Primitive {
	return proto.Primitive{Subject: ids[0], Predicate: ids[1], Object: ids[2], Label: ids[3]}
}

// PinValue encodes a pin: a log entry of the node (id and value), so that
// pins and the log are read alike.
func PinValue(id uint64, v quad.Value) ([]byte, error) {
	b, err := pquads.MarshalValue(v)
	if err != nil {
		return nil, err
	}
	p := proto.Primitive{ID: id, Value: b}
	return p.Marshal()
}

// DecodeTerm decodes a log entry (a cayley proto.Primitive) and returns its
// term, or nil for a quad entry. Well-formed entries of the term types
// Cortex stores (IRIs, blank nodes, plain, typed and language-tagged
// literals) are read directly from the protobuf wire format; anything else
// goes through cayley's generic decoding (proto.Primitive, then pquads).
// The result is the same either way. Malformed input is an error, never a
// panic.
func DecodeTerm(b []byte) (quad.Value, error) {
	if v, ok := decodeTermFast(b); ok {
		return v, nil
	}
	var p proto.Primitive
	if err := p.Unmarshal(b); err != nil {
		return nil, err
	}
	if !p.IsNode() {
		return nil, nil
	}
	var pv pquads.Value
	if err := pv.Unmarshal(p.Value); err != nil {
		return nil, err
	}
	if pv.Value == nil {
		return nil, fmt.Errorf("%w: term of unknown type", ErrFormat) // ToNative would panic
	}
	return pv.ToNative(), nil
}

// decodeTermFast is DecodeTerm's direct path; ok is false for anything it
// does not handle exactly as the generic path would.
func decodeTermFast(b []byte) (_ quad.Value, ok bool) {
	// Primitive: fields 1-7 and 9 are varints (ids, timestamp, deleted
	// flag), field 8 the node's value; the last occurrence wins.
	var val []byte
	if !protoFields(b, func(num, wire int, data []byte) bool {
		switch {
		case num == 8:
			val = data
			return wire == 2
		case num <= 9:
			return wire == 0
		}
		return true
	}) {
		return nil, false
	}
	if len(val) == 0 {
		return nil, true // a quad
	}
	// pquads.Value: a oneof; the last member present wins.
	var (
		field int
		data  []byte
	)
	if !protoFields(val, func(num, wire int, d []byte) bool {
		if num <= 10 {
			field, data = num, d
		}
		return num > 6 || wire == 2
	}) {
		return nil, false
	}
	switch field {
	case 2:
		return quad.String(data), true
	case 3:
		return quad.IRI(data), true
	case 4:
		return quad.BNode(data), true
	case 5, 6:
		var s, t []byte
		if !protoFields(data, func(num, wire int, d []byte) bool {
			switch num {
			case 1:
				s = d
			case 2:
				t = d
			default:
				return true
			}
			return wire == 2
		}) {
			return nil, false
		}
		if field == 6 {
			return quad.LangString{Value: quad.String(s), Lang: string(t)}, true
		}
		return quad.TypedString{Value: quad.String(s), Type: Datatype(t)}, true
	}
	// No type, or raw, native numbers, booleans, times: never written by
	// Cortex; the generic path decides.
	return nil, false
}

// Datatype returns the IRI t, sharing the strings of common XSD datatypes.
func Datatype(t []byte) quad.IRI {
	switch string(t) {
	case xsd.NS + "dateTime":
		return xsd.NS + "dateTime"
	case xsd.NS + "duration":
		return xsd.NS + "duration"
	case xsd.NS + "decimal":
		return xsd.NS + "decimal"
	case xsd.NS + "integer":
		return xsd.NS + "integer"
	case xsd.NS + "boolean":
		return xsd.NS + "boolean"
	case xsd.NS + "double":
		return xsd.NS + "double"
	}
	return quad.IRI(t)
}

// protoFields calls fn for each field of the protobuf message b, in order,
// with its number, wire type and, for length-delimited fields, its bytes.
// It returns false as soon as fn does, and for malformed input or wire
// types it does not handle (groups).
func protoFields(b []byte, fn func(num, wire int, data []byte) bool) bool {
	for len(b) > 0 {
		tag, n := binary.Uvarint(b)
		if n <= 0 || tag>>3 == 0 || tag>>3 > 1<<29-1 {
			return false
		}
		b = b[n:]
		num, wire := int(tag>>3), int(tag&7)
		var data []byte
		switch wire {
		case 0:
			if _, n = binary.Uvarint(b); n <= 0 {
				return false
			}
			b = b[n:]
		case 1:
			if len(b) < 8 {
				return false
			}
			b = b[8:]
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return false
			}
			data, b = b[n:n+int(l)], b[n+int(l):]
		case 5:
			if len(b) < 4 {
				return false
			}
			b = b[4:]
		default:
			return false
		}
		if !fn(num, wire, data) {
			return false
		}
	}
	return true
}
