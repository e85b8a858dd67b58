package sorted

import (
	"fmt"
	"slices"

	"github.com/cayleygraph/cayley/graph/proto"
	hkv "github.com/hidal-go/hidalgo/kv"

	"github.com/cortexgraph/cortex/cortex/internal/layout"
)

// PutBuf accumulates the writes of a chunk in one arena and estimates their
// size as Badger will (key + value + 2 meta bytes + 10 version bytes).
type PutBuf struct {
	Data    []byte
	Entries []PutEntry
	Scratch []byte
	Count   int64
	Size    int64
	Prefix  []byte // the namespace's key prefix in the Badger database
}

type PutEntry struct {
	K0, K1, V0, V1 int  // key and value in data
	Del            bool // a deletion (journaled deltas, journal.go); no value
}

func (p *PutBuf) Reset() {
	p.Data = p.Data[:0]
	clear(p.Entries)
	p.Entries = p.Entries[:0]
	p.Count, p.Size = 0, 0
}

// addKey appends the Badger key of k (namespace prefix and escaped k).
func (p *PutBuf) addKey(k hkv.Key) (int, int) {
	k0 := len(p.Data)
	p.Data = append(p.Data, p.Prefix...)
	p.Data = layout.Escape(p.Data, k)
	return k0, len(p.Data)
}

func (p *PutBuf) Add(k hkv.Key, v []byte) {
	k0, k1 := p.addKey(k)
	p.Data = append(p.Data, v...)
	p.Entries = append(p.Entries, PutEntry{K0: k0, K1: k1, V0: k1, V1: len(p.Data)})
	p.Count++
	p.Size += int64(len(p.Data)-k0) + 12
}

// AddIndex appends the index entry of ids in bucket with value v: the same
// bytes as add(st.indexKey(...), v), without building the key.
func (p *PutBuf) AddIndex(bucket []byte, ids []uint64, v []byte) {
	k0 := len(p.Data)
	p.Data = append(p.Data, p.Prefix...)
	p.Data = layout.Escape(p.Data, hkv.Key{bucket})
	p.Data = append(p.Data, '/')
	for _, id := range ids {
		p.Data = layout.AppendEscapedID(p.Data, id)
	}
	k1 := len(p.Data)
	p.Data = append(p.Data, v...)
	p.Entries = append(p.Entries, PutEntry{K0: k0, K1: k1, V0: k1, V1: len(p.Data)})
	p.Count++
	p.Size += int64(len(p.Data)-k0) + 12
}

// AddDel appends the deletion of k.
func (p *PutBuf) AddDel(k hkv.Key) {
	k0, k1 := p.addKey(k)
	p.Entries = append(p.Entries, PutEntry{K0: k0, K1: k1, V0: k1, V1: k1, Del: true})
	p.Count++
	p.Size += int64(k1-k0) + 12
}

func (p *PutBuf) AddPrim(k hkv.Key, prim *proto.Primitive) error {
	k0, k1 := p.addKey(k)
	sz := prim.ProtoSize()
	p.Data = slices.Grow(p.Data, sz)[:k1+sz]
	if _, err := prim.MarshalTo(p.Data[k1:]); err != nil {
		return fmt.Errorf("encode primitive: %w", err)
	}
	p.Entries = append(p.Entries, PutEntry{K0: k0, K1: k1, V0: k1, V1: len(p.Data)})
	p.Count++
	p.Size += int64(len(p.Data)-k0) + 12
	return nil
}
