package sorted

import (
	"encoding/binary"

	"github.com/dgraph-io/ristretto/v2/z"
)

// bitDelete is Badger's meta bit of a deletion marker (badger/v4 value.go).
const bitDelete = 1 << 0

// AppendStreamKV appends to buf one pb.KV (key, value, version, stream id;
// for a deletion, meta bitDelete) in protobuf wire format, as
// badger.KVToBuffer would, without the reflection.
func AppendStreamKV(buf *z.Buffer, key, val []byte, version uint64, stream uint32, del bool) {
	n := 1 + uvarintLen(uint64(len(key))) + len(key) + 1 + uvarintLen(version) + 1 + uvarintLen(uint64(stream))
	if len(val) > 0 {
		n += 1 + uvarintLen(uint64(len(val))) + len(val)
	}
	if del {
		n += 3
	}
	b := buf.SliceAllocate(n)[:0]
	b = append(b, 1<<3|2)
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = append(b, key...)
	if len(val) > 0 {
		b = append(b, 2<<3|2)
		b = binary.AppendUvarint(b, uint64(len(val)))
		b = append(b, val...)
	}
	b = append(b, 4<<3) // field 4 (version), wire type 0 (varint)
	b = binary.AppendUvarint(b, version)
	if del {
		b = append(b, 6<<3|2, 1, bitDelete)
	}
	b = append(b, 10<<3) // field 10 (stream id), varint
	_ = binary.AppendUvarint(b, uint64(stream))
}

// AppendStreamDone appends the pb.KV that closes a stream.
func AppendStreamDone(buf *z.Buffer, stream uint32) {
	b := buf.SliceAllocate(1 + uvarintLen(uint64(stream)) + 2)[:0]
	b = append(b, 10<<3) // field 10 (stream id), varint
	b = binary.AppendUvarint(b, uint64(stream))
	_ = append(b, 11<<3, 1) // field 11 (stream done), varint true
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}
