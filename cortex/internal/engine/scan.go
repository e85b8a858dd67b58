package engine

import (
	"context"
	"encoding/binary"

	"github.com/cortexgraph/cortex/cortex/internal/layout"

	"github.com/cayleygraph/quad"
	"github.com/hidal-go/hidalgo/kv/flat"
)

// Index-only scans.
//
// Every Cortex index covers all four quad positions (see indexes), and the
// store keeps index entries exact: a key exists exactly when its quad is live
// (Cortex removes quads with its own delete path, which drops their index
// entries, instead of cayley's, which only marks the log entry dead). A scan
// therefore reads keys only: no log reads, no value decoding.
//
// Keys are written through hidalgo's hierarchical KV, which joins the parts
// with '/' and escapes '/' and '\' inside parts with '\'. The escaping is
// prefix-preserving, so a prefix scan over the escaped form of
// bucket + '/' + ids visits exactly the keys whose ids start with those ids.

// scanPlan is a chosen index with the bound values of its leading positions.
type scanPlan struct {
	ind    int               // position in indexes
	prefix []uint64          // ids of the leading bound positions
	dirs   [4]quad.Direction // the index's direction order
}

// planScan chooses the index whose leading positions are bound, longest
// prefix first.
func planScan(bound map[quad.Direction]uint64) scanPlan {
	best := scanPlan{ind: -1}
	for i, ind := range layout.Indexes {
		var vals []uint64
		for _, d := range ind.Dirs {
			v, ok := bound[d]
			if !ok {
				break
			}
			vals = append(vals, v)
		}
		if best.ind < 0 || len(vals) > len(best.prefix) {
			best = scanPlan{ind: i, prefix: vals}
			copy(best.dirs[:], ind.Dirs)
		}
	}
	return best
}

func (p scanPlan) keyPrefix() []byte {
	ind := layout.Indexes[p.ind]
	var bucket [4]byte
	for i, d := range ind.Dirs {
		bucket[i] = d.Prefix()
	}
	out := layout.AppendEscaped(nil, bucket[:len(ind.Dirs)])
	out = append(out, layout.Sep)
	var buf [8]byte
	for _, v := range p.prefix {
		binary.BigEndian.PutUint64(buf[:], v)
		out = layout.AppendEscaped(out, buf[:])
	}
	return out
}

// keyScanner iterates over the keys of one index prefix and decodes them into
// quads.
type keyScanner struct {
	tx     flat.Tx
	it     flat.Iterator
	dirs   [4]quad.Direction
	skip   int // bytes of the escaped bucket name and separator
	err    error
	closed bool
}

func (n *Namespace) newKeyScanner(ctx context.Context, p scanPlan) *keyScanner {
	s := &keyScanner{dirs: p.dirs}
	tx, err := n.view.TxContext(ctx, false)
	if err != nil {
		s.err = err
		return s
	}
	s.tx = tx
	pref := p.keyPrefix()
	for i, b := range pref {
		if b == layout.Sep && (i == 0 || pref[i-1] != layout.Esc) {
			s.skip = i + 1
			break
		}
	}
	s.it = tx.Scan(pref)
	return s
}

// next returns the next quad of the scan.
func (s *keyScanner) next(ctx context.Context) (idQuad, bool) {
	if s.err != nil || s.it == nil {
		return idQuad{}, false
	}
	if !s.it.Next(ctx) {
		s.err = s.it.Err()
		return idQuad{}, false
	}
	q, err := decodeIndexKey(s.it.Key()[s.skip:], &s.dirs)
	if err != nil {
		s.err = err
		return idQuad{}, false
	}
	return q, true
}

func (s *keyScanner) close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if s.it != nil {
		s.it.Close()
	}
	if s.tx != nil {
		return s.tx.Close()
	}
	return nil
}
