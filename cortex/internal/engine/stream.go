package engine

import (
	"github.com/cortexgraph/cortex/cortex/internal/sorted"

	"context"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/ristretto/v2/z"
)

// Streamed writes: a large import segment (many chunks' worth of writes,
// computed without writing, see import.go) is sorted and written with
// Badger's StreamWriter, which builds the LSM tables directly instead of
// inserting every key into the memtable's skiplist, the bottleneck of ordinary
// transactions (see docs/PERFORMANCE.md).
//
// StreamWriter.PrepareIncremental puts the new tables on the level above the
// highest level that holds data; the keys of a segment must be sorted and
// unique. It needs empty memtables: Cortex flushes them first (flushMemtables),
// and Badger's DropPrefix, which does that flush, also compacts level 0 into
// the level below. So a stream finds level 0 empty and PrepareIncremental does
// not flatten the tree; the cost of streaming into a large store is that
// level-0 compaction (level 0 and the tables of the next level it overlaps),
// not a rewrite of the whole tree. Its Flush replaces the database's timestamp oracle, so no Badger
// transaction may be open across it: the store's gate (gate.go) is held
// exclusively for the whole write.
//
// # Atomicity and recovery
//
// Tables become durable one by one while the stream is written, so a crash in
// the middle would leave a prefix of the sorted keys. Every key of a segment
// is written at one Badger version V, newer than anything in the database,
// and before the first table an undo file (streamUndoFile in the store
// directory) records V, the namespace and the previous values of the keys
// the segment overwrites (the namespace's size and horizon and the reference
// counts of existing nodes; every other key it writes is new: node and quad
// ids above the old horizon and index keys of quads that did not exist).
// Open finds an undo file left by a crash and rolls the segment back: keys
// whose newest version is V get their old value back or are deleted. The undo
// file is removed once the segment is complete. A segment is therefore all or
// nothing, even across a crash.

const streamUndoFile = "cortex-stream.undo"

// flushKey is written and dropped to make Badger flush its memtables (which
// PrepareIncremental requires to be empty). It sorts after every key Cortex
// writes, so dropping it never touches a table.
var flushKey = []byte("\xffcortex/flush")

// The streamed path is tuned by Tuning.StreamMinEntries, StreamFlattenRatio,
// StreamWriteBuffer and StreamGateWait (tuning.go).

// errStreamDeclined means the store chose not to stream a segment (in-memory
// store, too small, or a flatten too costly); nothing was written and the
// caller commits the segment chunk by chunk.
var errStreamDeclined = errors.New("stream declined")

// errStreamPrepare marks a failed StreamWriter.PrepareIncremental: nothing
// was written and the undo record is gone.
var errStreamPrepare = errors.New("stream writer unavailable")

// streamSegment writes a segment of namespace prefix through the stream
// writer, all or nothing (see the comment above); undo returns the previous
// values of the keys the segment overwrites. It returns
// errStreamDeclined, having written nothing, when the segment should be
// committed chunk by chunk instead. The caller holds the namespace's write
// lock; streamSegment takes the store's gate exclusively.
func (s *Store) streamSegment(ctx context.Context, prefix []byte, sg *sorted.Segment, undo func() []undoEntry) error {
	spilled := len(sg.Runs) > 0
	if s.opts.inMemory || s.opts.readOnly || (sg.Entries < s.tune.StreamMinEntries && !spilled) {
		return errStreamDeclined
	}
	if err := s.checkSpace("import segment", sg.Bytes+sg.Spilled); err != nil {
		return err
	}
	// Wait a bounded time for the store's open transactions to end: one of
	// them may belong to a goroutine that waits for this namespace's write
	// lock, which the import holds. Then commit chunk by chunk instead; a
	// spilled segment cannot be, and fails with ErrBusy (nothing written).
	wait := s.tune.StreamGateWait
	if spilled {
		wait = s.tune.JournalGateWait
	}
	err := s.gate.exclusiveWait(ctx, wait)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return err
		case spilled:
			return s.busyErr(fmt.Sprintf("an import segment of %d quads", sg.Quads), wait)
		}
		return errStreamDeclined
	}
	defer s.gate.release()
	return s.streamHeld(prefix, sg, func(version uint64) error {
		return s.writeUndo(&undoRecord{version: version, prefix: prefix, old: undo()})
	}, s.removeUndo)
}

// streamHeld writes sg through the stream writer; the caller holds the gate
// exclusively. begin is called with the version of every key before anything
// is written, to make the write undoable; done once the write is durable or
// when nothing was written after all. It returns errStreamDeclined, having
// called neither, when streaming would be too costly (see cheapToStream). A
// failure after the first table poisons the store: Open rolls back.
func (s *Store) streamHeld(prefix []byte, sg *sorted.Segment, begin func(version uint64) error, done func() error) error {
	s.maint.RLock() // Close waits for the stream writer (see Store.maint)
	defer s.maint.RUnlock()
	if err := s.checkOpen(); err != nil {
		return err
	}
	// The memtables are flushed (Badger's goroutines, disk) while the
	// segment is sorted (this one, memory).
	flushed := make(chan error, 1)
	go func() { flushed <- s.flushMemtables() }()
	ss := sortSegmentWaiting(sg, len(prefix), flushed)
	if err := <-flushed; err != nil {
		// Nothing of the segment is written, but Badger may have lost its
		// memtable (see lose).
		return s.lose(fmt.Errorf("stream: %w", err))
	}
	if len(sg.Runs) == 0 && !s.cheapToStream(sg.Memory()) {
		// (Rare: see Tuning.StreamFlattenRatio. A spilled segment has no other
		// way to be written: Badger flattens the tree if it must.)
		return errStreamDeclined
	}
	// One version is skipped, so that the tables written before hold only
	// versions below version-1: a roll-back reads keys newer than
	// version-1 (IteratorOptions.SinceTs), and Badger then skips every
	// table whose newest version is below that (recover.go).
	version := s.db.MaxVersion() + 2
	if err := begin(version); err != nil {
		return fmt.Errorf("stream: %w", err)
	}
	sw := s.db.NewStreamWriter()
	if err := sw.PrepareIncremental(); err != nil {
		sw.Cancel()
		err = fmt.Errorf("stream: prepare: %w: %w", errStreamPrepare, err)
		if derr := done(); derr != nil {
			// An undo file or journal left behind would roll back later
			// writes at the next Open.
			return s.poison(errors.Join(err, derr))
		}
		return err
	}
	s.opts.hooks.atStream("prepared")
	if err := s.writeStreams(sw, ss, version); err != nil {
		sw.Cancel()
		return s.poison(fmt.Errorf("stream: write: %w", err))
	}
	if err := sw.Flush(); err != nil {
		return s.poison(fmt.Errorf("stream: flush: %w", err))
	}
	s.opts.hooks.atStream("flushed")
	if err := done(); err != nil {
		return s.poison(fmt.Errorf("stream: %w", err))
	}
	return nil
}

// sortSegmentWaiting sorts sg; should the sort panic, it waits for the flush
// that reports to flushed before the panic goes on (the caller's gate must
// not be released while Badger flushes).
func sortSegmentWaiting(sg *sorted.Segment, prefixLen int, flushed <-chan error) *sorted.SortedSegment {
	done := false
	defer func() {
		if !done {
			<-flushed
		}
	}()
	ss := sorted.NewSortedSegment(sg, prefixLen)
	done = true
	return ss
}

// dropFlushKey deletes flushKey if a process was killed between
// flushMemtables' write and its drop (the key is harmless, but not data).
// A read-only store keeps it; Check knows it.
func (s *Store) dropFlushKey() error {
	err := s.db.View(func(txn *badger.Txn) error {
		_, err := txn.Get(flushKey)
		return err
	})
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the flush key: %w", err)
	}
	if err := s.db.Update(func(txn *badger.Txn) error { return txn.Delete(flushKey) }); err != nil {
		return fmt.Errorf("drop the flush key a crash left: %w", err)
	}
	return nil
}

// flushMemtables makes Badger flush its memtables to level 0 by writing and
// dropping flushKey. The caller holds the gate exclusively.
func (s *Store) flushMemtables() error {
	err := s.db.Update(func(txn *badger.Txn) error { return txn.Set(flushKey, nil) })
	if err != nil {
		return fmt.Errorf("flush memtable: %w", err)
	}
	if err := s.db.DropPrefix(flushKey); err != nil {
		return fmt.Errorf("flush memtable: %w", err)
	}
	return nil
}

// cheapToStream reports whether streaming a segment of about size bytes is
// worth it: PrepareIncremental flattens the LSM tree when level 0 holds
// tables, which rewrites about all of it. Called after flushMemtables, which
// normally leaves level 0 empty.
func (s *Store) cheapToStream(size int64) bool {
	var l0 bool
	var total int64
	for _, l := range s.db.Levels() {
		if l.Level == 0 && l.NumTables > 0 {
			l0 = true
		}
		total += l.Size
	}
	return !l0 || total <= s.tune.StreamFlattenRatio*size
}

// writeStreams sorts and writes every group of ss as its own stream, on
// GOMAXPROCS goroutines, largest groups first: one group is sorted while
// another is written.
func (s *Store) writeStreams(sw *badger.StreamWriter, ss *sorted.SortedSegment, version uint64) error {
	return sorted.ParallelGroups(ss.Order(), func(b int) error {
		g := ss.SortGroup(byte(b))
		buf := z.NewBuffer(s.tune.StreamWriteBuffer+(1<<20), "cortex.stream")
		defer func() { _ = buf.Release() }()
		write := func() error {
			if s.cutOff.Load() {
				return fmt.Errorf("%w: the store was closed while the stream was written", ErrClosed)
			}
			err := sw.Write(buf)
			buf.Reset()
			return err
		}
		stream := uint32(b) + 1
		add := func(key, val []byte, del bool) error {
			sorted.AppendStreamKV(buf, key, val, version, stream, del)
			if buf.LenNoPadding() >= s.tune.StreamWriteBuffer {
				return write()
			}
			return nil
		}
		if len(ss.Seg.Runs) == 0 {
			for _, r := range g {
				if err := add(ss.Key(r), ss.Val(r), r.Del); err != nil {
					return err
				}
			}
		} else {
			m, err := ss.Merged(byte(b), g)
			if err != nil {
				return err
			}
			for {
				ok, err := m.Next()
				if err != nil {
					return err
				}
				if !ok {
					break
				}
				if err := add(m.Key, m.Val, m.Del); err != nil {
					return err
				}
			}
		}
		// Closing the stream writes its last table now.
		sorted.AppendStreamDone(buf, stream)
		if err := write(); err != nil {
			return err
		}
		ss.Groups[b] = nil
		s.opts.hooks.atStream("group-done")
		return nil
	})
}
