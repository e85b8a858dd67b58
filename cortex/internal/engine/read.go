package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cortexgraph/cortex/cortex/internal/layout"

	"github.com/cayleygraph/cayley/graph/refs"
	"github.com/cayleygraph/quad"
	hkv "github.com/hidal-go/hidalgo/kv"
)

// lookupIDs reads the ids of normalised terms (0 for nil or absent terms)
// from the node-hash bucket, in one read transaction.
func (n *Namespace) lookupIDs(ctx context.Context, vals []quad.Value) ([]termID, error) {
	out := make([]termID, len(vals))
	err := hkv.View(n.kvCtx(ctx), func(tx hkv.Tx) error {
		for i, v := range vals {
			if v == nil {
				continue
			}
			b, err := tx.Get(ctx, layout.Node('v', refs.HashOf(v)))
			if errors.Is(err, hkv.ErrNotFound) {
				continue
			} else if err != nil {
				return err
			}
			id, k := binary.Uvarint(b)
			if k <= 0 {
				return fmt.Errorf("%w: node id of %s", ErrCorrupt, v)
			}
			out[i] = termID(id)
		}
		return nil
	})
	return out, err
}

// lookupTerms reads the terms of ids from the log, in one read transaction;
// unknown ids give nil.
func (n *Namespace) lookupTerms(ctx context.Context, ids []termID, out []quad.Value) error {
	return hkv.View(n.kvCtx(ctx), func(tx hkv.Tx) error { return readTerms(ctx, tx.Get, ids, out) })
}

// readTerms reads the terms of ids, for those of out still nil, through get
// (a read of one transaction); unknown ids give nil.
func readTerms(ctx context.Context, get func(context.Context, hkv.Key) (hkv.Value, error), ids []termID, out []quad.Value) error {
	for i, id := range ids {
		if id == 0 || out[i] != nil {
			continue
		}
		b, err := get(ctx, layout.Log(uint64(id)))
		if errors.Is(err, hkv.ErrNotFound) {
			continue
		} else if err != nil {
			return err
		}
		// (layout.DecodeTerm: cayley's pquads.UnmarshalValue panics on a
		// term of no known type.)
		v, err := layout.DecodeTerm(b)
		if err != nil {
			return fmt.Errorf("%w: log entry %d: %v", ErrCorrupt, id, err)
		}
		out[i] = v // nil for a quad
	}
	return nil
}
