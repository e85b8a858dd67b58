/*
 * SPDX-FileCopyrightText: © 2017-2025 Istari Digital, Inc.
 * SPDX-License-Identifier: Apache-2.0
 */

// Cortex patch: tests of decodeStreamKV against the protobuf decoder.

package badger

import (
	"bytes"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/stretchr/testify/require"

	"github.com/dgraph-io/badger/v4/pb"
	"github.com/dgraph-io/ristretto/v2/z"
)

// sameKV compares the fields StreamWriter.Write reads. Empty and nil byte
// fields are equal: Write copies them into a fresh slice either way.
func sameKV(a, b *pb.KV) bool {
	return bytes.Equal(a.Key, b.Key) && bytes.Equal(a.Value, b.Value) &&
		bytes.Equal(a.UserMeta, b.UserMeta) && bytes.Equal(a.Meta, b.Meta) &&
		a.Version == b.Version && a.ExpiresAt == b.ExpiresAt &&
		a.StreamId == b.StreamId && a.StreamDone == b.StreamDone
}

func randKVBytes(r *rand.Rand, max int) []byte {
	if r.Intn(4) == 0 {
		return nil
	}
	b := make([]byte, r.Intn(max+1))
	r.Read(b)
	return b
}

func randKVVarint(r *rand.Rand) uint64 {
	switch r.Intn(4) {
	case 0:
		return 0
	case 1:
		return math.MaxUint64 - uint64(r.Intn(3))
	default:
		return uint64(r.Int63n(1 << uint(r.Intn(62)+1)))
	}
}

func TestDecodeStreamKV_MatchesProto(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		want := &pb.KV{
			Key:        randKVBytes(r, 40),
			Value:      randKVBytes(r, 300),
			UserMeta:   randKVBytes(r, 2),
			Meta:       randKVBytes(r, 2),
			Version:    randKVVarint(r),
			ExpiresAt:  randKVVarint(r),
			StreamId:   uint32(randKVVarint(r)),
			StreamDone: r.Intn(8) == 0,
		}
		s, err := proto.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		var got pb.KV
		if !decodeStreamKV(s, &got) {
			t.Fatalf("case %d: canonical encoding %x not decoded", i, s)
		}
		if !sameKV(&got, want) {
			t.Fatalf("case %d: decoded %v, want %v", i, &got, want)
		}
	}
}

func TestDecodeStreamKV_DeclinesWhatItDoesNotKnow(t *testing.T) {
	key := protowire.AppendTag(nil, 1, protowire.BytesType)
	key = protowire.AppendBytes(key, []byte("k"))
	for name, s := range map[string][]byte{
		"unknown field":  protowire.AppendVarint(protowire.AppendTag(append([]byte{}, key...), 7, protowire.VarintType), 1),
		"repeated field": append(append([]byte{}, key...), key...),
		"wrong wire type": protowire.AppendVarint(
			protowire.AppendTag(nil, 1, protowire.VarintType), 3),
		"fixed64":          protowire.AppendFixed64(protowire.AppendTag(nil, 4, protowire.Fixed64Type), 9),
		"truncated bytes":  key[:len(key)-1],
		"truncated tag":    {0x80},
		"truncated varint": protowire.AppendTag(nil, 4, protowire.VarintType),
		"big stream id": protowire.AppendVarint(
			protowire.AppendTag(nil, 10, protowire.VarintType), math.MaxUint32+1),
		"stream done 2": protowire.AppendVarint(
			protowire.AppendTag(nil, 11, protowire.VarintType), 2),
		"field 0":  {0x00, 0x00},
		"field 40": protowire.AppendVarint(protowire.AppendTag(nil, 40, protowire.VarintType), 1),
	} {
		var kv pb.KV
		if decodeStreamKV(s, &kv) {
			t.Errorf("%s: %x decoded as %v, want a fallback to proto.Unmarshal", name, s, &kv)
		}
	}
}

// FuzzDecodeStreamKV checks that whatever the fast decoder accepts, the
// protobuf decoder accepts too, with the same fields.
func FuzzDecodeStreamKV(f *testing.F) {
	seed, _ := proto.Marshal(&pb.KV{Key: []byte("k"), Value: []byte("v"), Version: 3, StreamId: 2})
	f.Add(seed)
	done, _ := proto.Marshal(&pb.KV{StreamId: 2, StreamDone: true})
	f.Add(done)
	f.Fuzz(func(t *testing.T, s []byte) {
		var got pb.KV
		if !decodeStreamKV(s, &got) {
			return
		}
		var want pb.KV
		if err := proto.Unmarshal(s, &want); err != nil {
			t.Fatalf("fast decoder accepted %x, proto.Unmarshal: %v", s, err)
		}
		if !sameKV(&got, &want) {
			t.Fatalf("%x: fast %v, proto %v", s, &got, &want)
		}
	})
}

// TestStreamWriterArenaEntries writes more entries than one arena chunk holds,
// with values of every size around the chunk boundaries and delete markers, and
// reads them all back.
func TestStreamWriterArenaEntries(t *testing.T) {
	runBadgerTest(t, nil, func(t *testing.T, db *DB) {
		const n = 3 * streamArenaEntries
		buf := z.NewBuffer(10<<20, "test")
		defer func() { _ = buf.Release() }()
		value := func(i int) []byte {
			return bytes.Repeat([]byte{byte(i)}, i%700)
		}
		for i := 0; i < n; i++ {
			kv := &pb.KV{Key: []byte(fmt.Sprintf("key%06d", i)), Value: value(i), Version: 1}
			if i%5 == 0 {
				kv.Meta = []byte{bitDelete}
			}
			KVToBuffer(kv, buf)
		}
		sw := db.NewStreamWriter()
		require.NoError(t, sw.Prepare())
		require.NoError(t, sw.Write(buf))
		require.NoError(t, sw.Flush())
		require.NoError(t, db.View(func(txn *Txn) error {
			for i := 0; i < n; i++ {
				item, err := txn.Get([]byte(fmt.Sprintf("key%06d", i)))
				if i%5 == 0 {
					require.ErrorIs(t, err, ErrKeyNotFound, "key %d", i)
					continue
				}
				require.NoError(t, err, "key %d", i)
				v, err := item.ValueCopy(nil)
				require.NoError(t, err)
				require.Equal(t, value(i), v, "key %d", i)
			}
			return nil
		}))
	})
}
