package cortex

// Support for write-heavy, read-modify-write workloads such as team state
// (package teammanager). Owned by the teammanager work; see UpdateCompact.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/proto"
	"github.com/cayleygraph/quad"
	hkv "github.com/hidal-go/hidalgo/kv"
)

// UpdateCompact is Update followed, under the same writer lock, by the
// removal of the removed quads' dead entries from the quad indexes.
//
// Cayley's key-value quadstore never takes a deleted quad out of its index
// buckets: it only marks the quad dead, so every later scan or existence
// check over the same (subject, predicate, ...) key reads the whole history
// of that key. A value that is replaced on every update (a status, a
// counter, a "last updated" time) makes reads O(number of past updates).
// UpdateCompact rewrites the index buckets the delta touched so that they
// list live quads only, keeping such reads O(live quads).
//
// The delta is atomic as with Update. The compaction is a second
// transaction; if it fails the data is still correct (only slower to read)
// and the error is returned.
func (n *Namespace) UpdateCompact(ctx context.Context, fn func(tx *Tx) error) error {
	n.wmu.Lock()
	defer n.wmu.Unlock()
	if err := n.s.checkOpen(); err != nil {
		return err
	}
	tx := &Tx{n: n}
	if err := fn(tx); err != nil {
		return err
	}
	if tx.d.Len() == 0 {
		return nil
	}
	if tx.d.Len() > MaxDeltaQuads {
		return fmt.Errorf("namespace %s: %w: %d quads (limit %d)", n.name, ErrDeltaTooLarge, tx.d.Len(), MaxDeltaQuads)
	}
	deltas, err := toDeltas(tx.d)
	if err != nil {
		return fmt.Errorf("namespace %s: %w", n.name, err)
	}
	// Resolve the removed quads' term ids before the delta may drop terms.
	var terms []quad.Value
	for _, d := range deltas {
		if d.Action == graph.Delete {
			terms = append(terms, d.Quad.Subject, d.Quad.Predicate, d.Quad.Object, d.Quad.Label)
		}
	}
	var dead [][4]uint64
	if len(terms) > 0 {
		ids, err := n.IDs(ctx, terms)
		if err != nil {
			return err
		}
		for i := 0; i < len(ids); i += 4 {
			if ids[i] != 0 && ids[i+1] != 0 && ids[i+2] != 0 && (ids[i+3] != 0 || terms[i+3] == nil) {
				dead = append(dead, [4]uint64{uint64(ids[i]), uint64(ids[i+1]), uint64(ids[i+2]), uint64(ids[i+3])})
			}
		}
	}
	if err := n.applyLocked(ctx, deltas); err != nil {
		return err
	}
	if len(dead) == 0 {
		return nil
	}
	if err := n.compactLocked(ctx, dead); err != nil {
		return fmt.Errorf("namespace %s: compact indexes: %w", n.name, err)
	}
	return nil
}

// compactLocked drops dead quad ids from the index buckets of the quads
// given as term ids (subject, predicate, object, graph). n.wmu must be held.
func (n *Namespace) compactLocked(ctx context.Context, quads [][4]uint64) error {
	inds, err := readIndexes(ctx, n.kv)
	if err != nil {
		return err
	}
	n.writeGen++ // bulk imports must not trust what they knew of the buckets
	n.removeGen++
	seen := map[string]bool{}
	live := map[uint64]bool{}
	return hkv.Update(ctx, n.kv, func(tx hkv.Tx) error {
		for _, q := range quads {
			for _, ind := range inds {
				vals := make([]uint64, len(ind.Dirs))
				for i, d := range ind.Dirs {
					switch d {
					case quad.Subject:
						vals[i] = q[0]
					case quad.Predicate:
						vals[i] = q[1]
					case quad.Object:
						vals[i] = q[2]
					default:
						vals[i] = q[3]
					}
				}
				key := ind.Key(vals)
				ks := string(key[0]) + "\x00" + string(key[1])
				if seen[ks] {
					continue
				}
				seen[ks] = true
				v, err := tx.Get(ctx, key)
				if errors.Is(err, hkv.ErrNotFound) {
					continue
				} else if err != nil {
					return err
				}
				ids, err := decodeUvarints(v)
				if err != nil {
					return err
				}
				keep := ids[:0:0]
				for _, id := range ids {
					ok, known := live[id]
					if !known {
						ok, err = primitiveLive(ctx, tx, id)
						if err != nil {
							return err
						}
						live[id] = ok
					}
					if ok {
						keep = append(keep, id)
					}
				}
				switch {
				case len(keep) == len(ids):
				case len(keep) == 0:
					if err := tx.Del(key); err != nil {
						return err
					}
				default:
					var b []byte
					for _, id := range keep {
						b = binary.AppendUvarint(b, id)
					}
					if err := tx.Put(key, b); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
}

func primitiveLive(ctx context.Context, tx hkv.Tx, id uint64) (bool, error) {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], id)
	v, err := tx.Get(ctx, hkv.Key{[]byte("log"), k[:]})
	if errors.Is(err, hkv.ErrNotFound) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	var p proto.Primitive
	if err := p.Unmarshal(v); err != nil {
		return false, fmt.Errorf("%w: primitive %d: %v", ErrCorrupt, id, err)
	}
	return !p.Deleted, nil
}

func decodeUvarints(b []byte) ([]uint64, error) {
	var out []uint64
	for len(b) > 0 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, fmt.Errorf("%w: bad index entry", ErrCorrupt)
		}
		out = append(out, v)
		b = b[n:]
	}
	return out, nil
}
