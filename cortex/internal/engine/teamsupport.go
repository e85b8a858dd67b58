package engine

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sync"

	"github.com/cortexgraph/cortex/cortex/internal/layout"

	"github.com/cayleygraph/quad"
	"github.com/dgraph-io/badger/v4"
	hkv "github.com/hidal-go/hidalgo/kv"
)

// PinnedTerms returns the terms pinned in the namespace (see Delta.Pin), in
// the order of their ids. It is for diagnostics and tests; it reads the
// whole pin table. Store.Check verifies that every pin holds its term's
// current id.
func (n *Namespace) PinnedTerms(ctx context.Context) ([]quad.Value, error) {
	pins, err := n.pins(ctx)
	if err != nil {
		return nil, err
	}
	ids := slices.Sorted(maps.Keys(pins))
	out := make([]quad.Value, len(ids))
	for i, id := range ids {
		out[i] = pins[id]
	}
	return out, nil
}

// pins returns every pin of the namespace (see Delta.Pin): node id → term.
// It reads the whole pin table.
func (n *Namespace) pins(ctx context.Context) (map[termID]quad.Value, error) {
	if err := n.s.checkOpen(); err != nil {
		return nil, err
	}
	out := map[termID]quad.Value{}
	err := hkv.View(n.kvCtx(ctx), func(tx hkv.Tx) error {
		it := tx.Scan(hkv.Key{layout.PinBucket})
		defer it.Close()
		for it.Next(ctx) {
			k := it.Key()
			if len(k) != 2 || len(k[1]) != 8 {
				continue // the bucket's marker
			}
			v, err := layout.DecodeTerm(it.Val())
			if err != nil {
				return fmt.Errorf("%w: pin %x: %v", ErrCorrupt, k[1], err)
			}
			out[termID(binary.BigEndian.Uint64(k[1]))] = v
		}
		return it.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("namespace %s: read pins: %w", n.name, err)
	}
	return out, nil
}

// termsBatch is Dataset.TermsBatch, or Dataset.PinnedTermsBatch if pinned.
// It is safe for concurrent use and sees committed data only.
func (n *Namespace) termsBatch(ctx context.Context, ids []termID, pinned bool) ([]quad.Value, error) {
	if err := n.s.checkOpen(); err != nil {
		return nil, err
	}
	out := make([]quad.Value, len(ids))
	miss := n.cache.getMany(ids, out)
	if len(miss) == 0 {
		return out, nil
	}
	// One want per missing occurrence, sorted by key below: duplicates
	// become adjacent and are read once.
	wants := make([]logWant, len(miss))
	for j, i := range miss {
		wants[j] = logWant{id: ids[i], rank: layout.LogRank(uint64(ids[i])), slot: int32(i)}
	}
	vals := make([]quad.Value, len(wants))
	if err := n.readWants(ctx, wants, vals, pinned); err != nil {
		return nil, fmt.Errorf("namespace %s: read terms: %w", n.name, err)
	}
	n.cache.putWants(wants, vals)
	for k, w := range wants {
		out[w.slot] = vals[k]
	}
	return out, nil
}

// readWants reads the terms of wants into vals: from the pins first if
// pinned, then the rest from the log.
func (n *Namespace) readWants(ctx context.Context, wants []logWant, vals []quad.Value, pinned bool) error {
	if pinned {
		if err := n.readLogBatch(ctx, layout.PinBucket, wants, vals); err != nil {
			return err
		}
		// Keep reading what the pins lacked (wants stay sorted).
		var rest []logWant
		var at []int
		for k := range wants {
			if vals[k] == nil {
				rest = append(rest, wants[k])
				at = append(at, k)
			}
		}
		if len(rest) == 0 {
			return nil
		}
		got := make([]quad.Value, len(rest))
		if err := n.readWants(ctx, rest, got, false); err != nil {
			return err
		}
		for j, k := range at {
			vals[k] = got[j]
		}
		return nil
	}
	if len(wants) < minBatch {
		// Opening an iterator costs more than a few point reads.
		wantIDs := make([]termID, len(wants))
		for k, w := range wants {
			wantIDs[k] = w.id
		}
		return n.lookupTerms(ctx, wantIDs, vals)
	}
	return n.readLogBatch(ctx, layout.LogBucket, wants, vals)
}

// logWant is an occurrence of a term to read from the log: its id, the rank
// of its log key (see logKeyRank) and its index in the caller's ids.
type logWant struct {
	id   termID
	rank uint64
	slot int32
}

// readLogBatch sorts wants by key and reads the term of wants[k] into
// vals[k] from the log entries (or pins) under bucket, leaving unknown ids
// nil. Large batches are split into key ranges
// read concurrently, each through its own iterator of one shared snapshot.
func (n *Namespace) readLogBatch(ctx context.Context, bkt []byte, wants []logWant, vals []quad.Value) error {
	slices.SortFunc(wants, func(a, b logWant) int { return cmp.Compare(a.rank, b.rank) })
	parts := 1
	if len(wants) >= 2*parallelBatch {
		parts = min(runtime.GOMAXPROCS(0), len(wants)/parallelBatch, 4)
	}
	txn, end, err := n.view.NewTxn(ctx, false) // through the store's gate (gate.go)
	if err != nil {
		return err
	}
	defer end()
	bucket := layout.Escape(n.view.Prefix(), hkv.Key{bkt, nil})
	if parts == 1 {
		return readLogTerms(ctx, n.s, txn, bucket, wants, vals)
	}
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*len(wants)/parts, (p+1)*len(wants)/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[p] = readLogTerms(ctx, n.s, txn, bucket, wants[lo:hi], vals[lo:hi])
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// minBatch is the number of missing ids from which TermsBatch reads through
// an iterator rather than with point reads.
const minBatch = 32

// maxStep is the largest id distance TermsBatch steps over (Badger Next)
// rather than seeking to. A seek repositions every table that overlaps the
// log (and, on a cold block cache, loads a block of each): on a cold 10,000
// team listing, whose wanted terms come in clusters ~35 log entries apart,
// seeking to each cluster cost more CPU and allocation than stepping.
const maxStep = 64

// parallelBatch is the least number of ids TermsBatch reads per goroutine.
const parallelBatch = 4096

// readLogTerms reads into vals[k] the node term stored under the log key of
// wants[k]; wants are in ascending key order (by rank, duplicates adjacent),
// all under bucket. Several may run concurrently on one read-only
// transaction.
func readLogTerms(ctx context.Context, s *Store, txn *badger.Txn, bucket []byte, wants []logWant, vals []quad.Value) error {
	opts := badger.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.Prefix = bucket
	// All versions: cheaper per step (no per-key de-duplication); the newest
	// version visible to the snapshot comes first, older ones are skipped
	// by key comparison below.
	opts.AllVersions = true
	it, err := newIterator(s, txn, opts) // Close may have cut the transaction off
	if err != nil {
		return err
	}
	defer it.Close()
	var (
		key, prev  []byte
		last       termID
		positioned bool
	)
	key = make([]byte, 0, len(bucket)+16)
	prev = make([]byte, 0, len(bucket)+16)
	for k, w := range wants {
		if k%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if k > 0 && w.id == wants[k-1].id {
			vals[k] = vals[k-1]
			continue
		}
		key = layout.AppendEscapedID(append(key[:0], bucket...), uint64(w.id))
		// Step forward over near keys; seek across larger gaps (or if the
		// keys are not ascending, which the ranking rules out).
		if positioned && w.id > last && w.id-last <= maxStep && bytes.Compare(prev, key) < 0 {
			steps := 0
			for it.Valid() && bytes.Compare(it.Item().Key(), key) < 0 {
				if steps++; steps > 2*maxStep {
					it.Seek(key) // many versions of one key
					break
				}
				it.Next()
			}
		} else {
			it.Seek(key)
			if !it.Valid() {
				break // past the bucket's last key: so are the later wants
			}
		}
		positioned, last = it.Valid(), w.id
		prev = append(prev[:0], key...)
		if !it.Valid() {
			continue
		}
		item := it.Item()
		if !bytes.Equal(item.Key(), key) || item.IsDeletedOrExpired() {
			continue // unknown id
		}
		if err := item.Value(func(b []byte) error {
			v, err := layout.DecodeTerm(b)
			if err != nil {
				return fmt.Errorf("%w: log entry %d: %v", ErrCorrupt, w.id, err)
			}
			vals[k] = v
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}
