package engine

import (
	"github.com/cortexgraph/cortex/cortex/internal/sorted"

	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/ristretto/v2/z"
)

// Rolling back at Open. A streamed segment or journaled delta that a crash
// interrupted left keys at versions ≥ V0 (its own version; newer than
// anything else in the database) and an undo file or journal with the
// previous values of the keys it overwrote. Rolling it back gives those keys
// their old values and deletes every other key whose newest version is ≥ V0.
//
// Only the tables holding versions ≥ V0 are read (Badger's
// IteratorOptions.SinceTs skips every table whose newest version is older),
// so the cost follows the size of the interrupted write, not of the
// namespace. A large roll-back (Tuning.RollbackStreamMin keys or more) is itself
// written through the stream writer, as deletion markers and old values at a
// newer version, instead of one memtable insert per key. Rolling back is
// idempotent: a roll-back that is interrupted (a crash, a cancelled context)
// leaves the undo file or journal in place and the next Open does it again.

// RecoveryProgress reports a roll-back that Open performs (see
// Options.WithRecoveryProgress).
type RecoveryProgress struct {
	// What was interrupted: "import segment" (a streamed import segment) or
	// "write" (a journaled delta, e.g. a large merge).
	What      string
	Namespace string
	// Keys restored or removed so far, out of Total. Total is 0 until the
	// keys have been counted.
	Keys, Total int64
	// Done is set on the last report, when the roll-back is durable.
	Done bool
}

// rollbackAtOpen rolls back the write of namespace prefix at version v0 whose
// previous values are old (see the comment above). It checks ctx as it goes;
// a cancelled roll-back leaves the database in a state that the next one
// completes.
func (s *Store) rollbackAtOpen(ctx context.Context, what string, prefix []byte, v0 uint64, old []undoEntry) (err error) {
	defer func() {
		if err != nil && ctx.Err() != nil {
			err = fmt.Errorf("stopped (the next open starts it again): %w", err)
		}
	}()
	report := func(p RecoveryProgress) {
		if s.opts.recoveryProgress != nil {
			p.What, p.Namespace = what, namespaceOfPrefix(prefix)
			s.opts.recoveryProgress(p)
		}
	}
	report(RecoveryProgress{})
	old = sortedUndo(old)
	stale, err := countStale(ctx, s.db, prefix, v0, old, s.tune.RollbackProgressEvery)
	if err != nil {
		return err
	}
	total := stale + int64(len(old))
	report(RecoveryProgress{Total: total})
	if err := ctx.Err(); err != nil {
		return err
	}
	progress := func(keys int64) { report(RecoveryProgress{Keys: keys, Total: total}) }
	streamed := false
	if total >= int64(s.tune.RollbackStreamMin) {
		streamed, err = s.rollbackStreamed(ctx, prefix, v0, old, progress)
		if err != nil {
			return err
		}
	}
	if !streamed {
		if err := rollbackBatched(ctx, s.db, prefix, v0, old, s.tune.RollbackProgressEvery, progress); err != nil {
			return err
		}
	}
	if err := s.db.Sync(); err != nil {
		return err
	}
	report(RecoveryProgress{Keys: total, Total: total, Done: true})
	return nil
}

// namespaceOfPrefix returns the namespace name of a key prefix "n:<name>/".
func namespaceOfPrefix(prefix []byte) string {
	p := bytes.TrimPrefix(prefix, []byte(dataPrefix))
	return string(bytes.TrimSuffix(p, []byte("/")))
}

// sortedUndo returns old sorted by key, without duplicates (the first entry
// of a key wins: it holds the value from before the interrupted write).
func sortedUndo(old []undoEntry) []undoEntry {
	old = slices.Clone(old)
	slices.SortStableFunc(old, func(a, b undoEntry) int { return bytes.Compare(a.key, b.key) })
	return slices.CompactFunc(old, func(a, b undoEntry) bool { return bytes.Equal(a.key, b.key) })
}

// newerKeys iterates, in key order, over the keys of prefix whose newest
// version is ≥ v0 and that are not deleted, reading only the tables that hold
// such versions. fn gets a key valid until it returns.
func newerKeys(ctx context.Context, db *badger.DB, prefix []byte, v0 uint64, every int, fn func(key []byte) error) error {
	return db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.PrefetchValues = false
		opts.Prefix = prefix
		opts.SinceTs = v0 - 1 // versions > SinceTs
		it := txn.NewIterator(opts)
		defer it.Close()
		n := 0
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			if item.Version() < v0 {
				continue
			}
			if n++; n%every == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if err := fn(item.Key()); err != nil {
				return err
			}
		}
		return nil
	})
}

// countStale counts the keys to delete: newer than v0 and not in old.
func countStale(ctx context.Context, db *badger.DB, prefix []byte, v0 uint64, old []undoEntry, every int) (int64, error) {
	var n int64
	i := 0
	err := newerKeys(ctx, db, prefix, v0, every, func(k []byte) error {
		for i < len(old) && bytes.Compare(old[i].key, k) < 0 {
			i++
		}
		if i < len(old) && bytes.Equal(old[i].key, k) {
			return nil
		}
		n++
		return nil
	})
	return n, err
}

// mergeRollback calls put, in key order, for every key of the roll-back: the
// recorded keys with their old value (or a deletion when they had none) and
// every other key newer than v0 with a deletion.
func mergeRollback(ctx context.Context, db *badger.DB, prefix []byte, v0 uint64, old []undoEntry, every int, put func(key, val []byte, del bool) error) error {
	i := 0
	err := newerKeys(ctx, db, prefix, v0, every, func(k []byte) error {
		recorded := false
		for ; i < len(old) && bytes.Compare(old[i].key, k) <= 0; i++ {
			recorded = recorded || bytes.Equal(old[i].key, k)
			if err := put(old[i].key, old[i].val, !old[i].present); err != nil {
				return err
			}
		}
		if recorded {
			return nil
		}
		return put(k, nil, true)
	})
	if err != nil {
		return err
	}
	for ; i < len(old); i++ { // recorded keys after the last newer one
		if err := put(old[i].key, old[i].val, !old[i].present); err != nil {
			return err
		}
	}
	return nil
}

// rollbackBatched writes the roll-back through a write batch. The keys are
// collected first: a write batch must not commit inside the iteration's
// transaction.
func rollbackBatched(ctx context.Context, db *badger.DB, prefix []byte, v0 uint64, old []undoEntry, every int, progress func(int64)) error {
	type op struct {
		key, val []byte
		del      bool
	}
	var ops []op
	err := mergeRollback(ctx, db, prefix, v0, old, every, func(k, v []byte, del bool) error {
		ops = append(ops, op{slices.Clone(k), v, del})
		return nil
	})
	if err != nil {
		return err
	}
	wb := db.NewWriteBatch()
	defer wb.Cancel()
	for i, o := range ops {
		var err error
		if o.del {
			err = wb.Delete(o.key)
		} else {
			err = wb.Set(o.key, o.val)
		}
		if err != nil {
			return err
		}
		if (i+1)%every == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			progress(int64(i + 1))
		}
	}
	return wb.Flush()
}

// rollbackStreamed writes the roll-back through the stream writer, as one
// stream of sorted keys at a version newer than everything. It reports false,
// having written nothing, when streaming is not possible (level 0 could not
// be emptied: the stream writer would flatten the whole tree).
func (s *Store) rollbackStreamed(ctx context.Context, prefix []byte, v0 uint64, old []undoEntry, progress func(int64)) (bool, error) {
	if err := s.flushMemtables(); err != nil {
		return false, err
	}
	for _, l := range s.db.Levels() {
		if l.Level == 0 && l.NumTables > 0 {
			return false, nil
		}
	}
	version := s.db.MaxVersion() + 2 // see streamHeld
	sw := s.db.NewStreamWriter()
	if err := sw.PrepareIncremental(); err != nil {
		sw.Cancel()
		return false, fmt.Errorf("stream: prepare: %w", err)
	}
	buf := z.NewBuffer(s.tune.StreamWriteBuffer+(1<<20), "cortex.rollback")
	defer func() { _ = buf.Release() }()
	var keys int64
	const stream = 1
	err := mergeRollback(ctx, s.db, prefix, v0, old, s.tune.RollbackProgressEvery, func(k, v []byte, del bool) error {
		sorted.AppendStreamKV(buf, k, v, version, stream, del)
		if keys++; keys%int64(s.tune.RollbackProgressEvery) == 0 {
			progress(keys)
		}
		if buf.LenNoPadding() >= s.tune.StreamWriteBuffer {
			err := sw.Write(buf)
			buf.Reset()
			return err
		}
		return nil
	})
	if err == nil {
		sorted.AppendStreamDone(buf, stream)
		err = sw.Write(buf)
	}
	if err != nil {
		sw.Cancel()
		return true, err
	}
	if err := sw.Flush(); err != nil {
		return true, fmt.Errorf("stream: flush: %w", err)
	}
	s.counters.rollbacks.Add(1)
	return true, nil
}
