/*
 * SPDX-FileCopyrightText: © 2017-2025 Istari Digital, Inc.
 * SPDX-License-Identifier: Apache-2.0
 */

// Cortex patch: StreamWriter.Write decodes the pb.KV fields it uses without
// the reflective protobuf decoder, and allocates entries, keys and values from
// chunked arenas instead of four to six allocations per key.

package badger

import (
	"encoding/binary"
	"math"

	"github.com/dgraph-io/badger/v4/pb"
)

// streamArena hands out entries and byte slices from chunks. A chunk is never
// grown in place, so slices handed out stay valid; chunks are garbage once
// the sorted writers have copied their entries into table builders.
type streamArena struct {
	bytes   []byte
	entries []Entry
}

const (
	streamArenaBytes   = 256 << 10
	streamArenaEntries = 1024
)

func (a *streamArena) alloc(n int) []byte {
	if cap(a.bytes)-len(a.bytes) < n {
		size := streamArenaBytes
		if n > size {
			size = n
		}
		a.bytes = make([]byte, 0, size)
	}
	l := len(a.bytes)
	a.bytes = a.bytes[:l+n]
	return a.bytes[l : l+n : l+n]
}

func (a *streamArena) copy(b []byte) []byte {
	out := a.alloc(len(b))
	copy(out, b)
	return out
}

// keyWithTs is y.KeyWithTs into the arena.
func (a *streamArena) keyWithTs(key []byte, ts uint64) []byte {
	out := a.alloc(len(key) + 8)
	copy(out, key)
	binary.BigEndian.PutUint64(out[len(key):], math.MaxUint64-ts)
	return out
}

func (a *streamArena) entry() *Entry {
	if len(a.entries) == cap(a.entries) {
		a.entries = make([]Entry, 0, streamArenaEntries)
	}
	a.entries = a.entries[:len(a.entries)+1]
	return &a.entries[len(a.entries)-1]
}

// decodeStreamKV decodes s into kv when s holds only the fields a stream
// uses (key, value, user_meta, version, expires_at, meta, stream_id,
// stream_done), each at most once, in the proto3 wire encoding. Byte fields
// alias s (the caller copies what it keeps). It reports false for anything
// else, and the caller falls back to proto.Unmarshal.
func decodeStreamKV(s []byte, kv *pb.KV) bool {
	*kv = pb.KV{}
	var seen uint32
	for len(s) > 0 {
		tag, n := binary.Uvarint(s)
		if n <= 0 || tag>>3 > 31 {
			return false
		}
		s = s[n:]
		field, wire := uint32(tag>>3), tag&7
		if seen&(1<<field) != 0 {
			return false
		}
		seen |= 1 << field
		switch wire {
		case 0:
			v, n := binary.Uvarint(s)
			if n <= 0 {
				return false
			}
			s = s[n:]
			switch field {
			case 4:
				kv.Version = v
			case 5:
				kv.ExpiresAt = v
			case 10:
				if v > math.MaxUint32 {
					return false
				}
				kv.StreamId = uint32(v)
			case 11:
				if v > 1 {
					return false
				}
				kv.StreamDone = v == 1
			default:
				return false
			}
		case 2:
			l, n := binary.Uvarint(s)
			if n <= 0 || l > uint64(len(s)-n) {
				return false
			}
			b := s[n : n+int(l) : n+int(l)]
			s = s[n+int(l):]
			switch field {
			case 1:
				kv.Key = b
			case 2:
				kv.Value = b
			case 3:
				kv.UserMeta = b
			case 6:
				kv.Meta = b
			default:
				return false
			}
		default:
			return false
		}
	}
	return true
}
