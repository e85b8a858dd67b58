package cortex

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/cayleygraph/cayley/graph/proto"
	"github.com/cayleygraph/quad"
	"github.com/cayleygraph/quad/pquads"
	"github.com/dgraph-io/badger/v4"
	hkv "github.com/hidal-go/hidalgo/kv"
)

// TermsBatch returns the terms of ids (nil for 0 or an unknown id), like
// Terms, but is built for thousands of ids at once: each distinct id is read
// once, and the misses of the term cache are read in key order through one
// Badger iterator of one snapshot, stepping to near neighbours (ids written
// by the same write are adjacent in the log) and seeking only across gaps,
// instead of one point lookup per id; large batches are split into key
// ranges read concurrently. Resolved terms enter the term cache.
//
// It is safe for concurrent use and sees committed data only.
func (n *Namespace) TermsBatch(ctx context.Context, ids []ID) ([]quad.Value, error) {
	if err := n.s.checkOpen(); err != nil {
		return nil, err
	}
	out := make([]quad.Value, len(ids))
	type want struct {
		key []byte
		id  ID
	}
	var (
		wants []want
		seen  = map[ID]int{} // id → index in wants, or -1 when served by the cache
	)
	prefix := n.view.Prefix()
	for i, id := range ids {
		if id == 0 {
			continue
		}
		if _, ok := seen[id]; ok {
			continue
		}
		if v, ok := n.cache.get(id); ok {
			out[i] = v
			seen[id] = -1
			continue
		}
		var idb [8]byte
		binary.BigEndian.PutUint64(idb[:], uint64(id))
		key := escapeKey(slices.Clip(prefix), hkv.Key{logBucket, idb[:]})
		seen[id] = len(wants)
		wants = append(wants, want{key: key, id: id})
	}
	if len(wants) > 0 && len(wants) < minBatch {
		// Opening an iterator costs more than a few point reads.
		small := make([]ID, len(wants))
		for i, w := range wants {
			small[i] = w.id
		}
		vals, err := n.Terms(ctx, small)
		if err != nil {
			return nil, err
		}
		for i, id := range ids {
			if out[i] == nil && id != 0 {
				if j := seen[id]; j >= 0 {
					out[i] = vals[j]
				}
			}
		}
		wants = nil
	}
	if len(wants) > 0 {
		// Escaping does not preserve the order of ids, so sort by key.
		slices.SortFunc(wants, func(a, b want) int { return bytes.Compare(a.key, b.key) })
		// Large batches are split into key ranges read concurrently, each
		// through its own iterator of one shared snapshot.
		vals := make([]quad.Value, len(wants))
		parts := 1
		if len(wants) >= 2*parallelBatch {
			parts = min(runtime.GOMAXPROCS(0), len(wants)/parallelBatch, 4)
		}
		txn, end := n.view.NewTxn(false)
		defer end()
		bucket := escapeKey(slices.Clip(prefix), hkv.Key{logBucket, nil})
		errs := make([]error, parts)
		var wg sync.WaitGroup
		for p := range parts {
			lo, hi := p*len(wants)/parts, (p+1)*len(wants)/parts
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[p] = readLogTerms(ctx, txn, bucket, vals[lo:hi], func(i int) []byte { return wants[lo+i].key })
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return nil, fmt.Errorf("namespace %s: read terms: %w", n.name, err)
		}
		got := make(map[ID]quad.Value, len(wants))
		for i, w := range wants {
			if vals[i] != nil {
				got[w.id] = vals[i]
				n.cache.put(w.id, vals[i])
			}
		}
		for i, id := range ids {
			if out[i] == nil && id != 0 {
				out[i] = got[id]
			}
		}
	}
	// Duplicates of cache hits.
	for i, id := range ids {
		if out[i] == nil && id != 0 && seen[id] == -1 {
			out[i], _ = n.cache.get(id)
		}
	}
	return out, nil
}

// minBatch is the number of missing ids from which TermsBatch reads through
// an iterator rather than with point reads.
const minBatch = 32

// maxSteps is how many keys TermsBatch steps over before it seeks instead:
// a Badger seek costs a few dozen steps (measured on team listings, whose
// wanted terms are ~35 log entries apart).
const maxSteps = 64

// parallelBatch is the least number of ids TermsBatch reads per goroutine.
const parallelBatch = 4096

// readLogTerms reads into out the node terms stored under len(out) log keys,
// given in ascending order by key(i), all under bucket. Several may run
// concurrently on one read-only transaction.
func readLogTerms(ctx context.Context, txn *badger.Txn, bucket []byte, out []quad.Value, key func(int) []byte) error {
	count := len(out)
	opts := badger.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.Prefix = bucket
	it := txn.NewIterator(opts)
	defer it.Close()
	var prim proto.Primitive
	decode := func(i int, b []byte) error {
		prim = proto.Primitive{}
		if err := prim.Unmarshal(b); err != nil {
			return fmt.Errorf("%w: log entry: %v", ErrCorrupt, err)
		}
		if !prim.IsNode() {
			return nil
		}
		v, err := pquads.UnmarshalValue(prim.Value)
		if err != nil {
			return fmt.Errorf("%w: term %d: %v", ErrCorrupt, prim.ID, err)
		}
		out[i] = v
		return nil
	}
	started := false
	for i := 0; i < count; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		k := key(i)
		// Step forward over near keys; seek across larger gaps.
		found := false
		if started {
			for s := 0; it.Valid() && s <= maxSteps; s++ {
				c := bytes.Compare(it.Item().Key(), k)
				if c >= 0 {
					found = true
					break
				}
				it.Next()
			}
			if !it.Valid() {
				found = true // past the end: seeking would not help
			}
		}
		if !found {
			it.Seek(k)
			started = true
		}
		if !it.Valid() || !bytes.Equal(it.Item().Key(), k) {
			continue // unknown id
		}
		if err := it.Item().Value(func(b []byte) error { return decode(i, b) }); err != nil {
			return err
		}
	}
	return nil
}
