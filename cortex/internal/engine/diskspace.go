package engine

import (
	"context"
	"fmt"
	"syscall"

	"github.com/dgraph-io/badger/v4"
)

// The free-space guard. Badger writes its memtable log and its tables
// through memory maps of files it extends with ftruncate. On a full disk a
// write into such a map raises SIGBUS, which Go cannot turn into an error:
// the process dies with a fault, and so does every later Open that replays
// a memtable. Cortex therefore refuses a write, before anything of it is
// written, unless the store's file system has room for it and for what
// Badger may write in the background meanwhile (the rest of the current
// memtable log, flushing the memtables, compacting level 0): the reserve.
// The refusal is a *NoSpaceError, which matches syscall.ENOSPC ("no space
// left on device"). Reads never need space: a read-only Open works on a
// full disk.
//
// The guard cannot see other processes filling the disk between its check
// and Badger's writes; it keeps a store that fills its own disk from
// crashing, which is the common case.
//
// Deleting a namespace is how a user frees space, and it writes too: its
// registry entry's deletion (a few bytes of the memtable log), then
// Badger's DropPrefix, which flushes the memtables, compacts level 0 and
// rewrites the tables that hold the namespace's keys and others' before it
// deletes the tables that held only the namespace's. That is what the
// reserve holds room for (dropSpace), less the rest of the memtable log,
// which only ordinary writes fill: a deletion is allowed while the free
// space covers dropSpace, so that once the guard refuses writes, deleting
// a namespace still works; below that it is refused, whole, before
// anything is written. A read-write Open checks the same room (it writes
// only what a flush of the replayed memtables and the deletion of a
// deleted namespace's leftovers write), so that the user can open the
// store to delete.

// NoSpaceError reports that a write was refused because the store's file
// system lacks space. It matches syscall.ENOSPC with errors.Is.
type NoSpaceError struct {
	Dir  string
	What string // the refused write, e.g. "import segment"; empty for a deletion (its error names it)
	Free int64  // bytes available to the store's process
	Need int64  // bytes the write needs, reserve included
	drop bool   // a deletion refused (checkDropSpace)
}

func (e *NoSpaceError) Error() string {
	prefix := ""
	if e.What != "" {
		prefix = e.What + ": "
	}
	if e.drop {
		return fmt.Sprintf("%sno space left on device: %s free in %s, a deletion needs about %s (room for the storage engine to flush and compact before it frees space)",
			prefix, formatBytes(e.Free), e.Dir, formatBytes(e.Need))
	}
	return fmt.Sprintf("%sno space left on device: %s free in %s, the write needs about %s (room for its data and for the storage engine's own flushes and compactions)",
		prefix, formatBytes(e.Free), e.Dir, formatBytes(e.Need))
}

// Is makes errors.Is(err, syscall.ENOSPC) true.
func (e *NoSpaceError) Is(target error) bool { return target == syscall.ENOSPC }

// formatBytes writes n in MB (or kB below 1 MB), e.g. "12.3 MB".
func formatBytes(n int64) string {
	if n < 1_000_000 {
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// spaceReserve returns the bytes kept free for Badger's own writes with
// options o: the rest of the current memtable log and dropSpace.
func spaceReserve(o badger.Options) int64 { return o.MemTableSize + dropSpace(o) }

// dropSpace returns the bytes Badger may write with options o in a flush
// and compaction, before it deletes what they replace: a flush of every
// memtable (a table is at most a memtable's size), a level-0 compaction
// (its inputs, up to NumLevelZeroTables tables and as much again of the
// level below, rewritten before they are deleted) and a few tables of
// slack. It is also all that a DropPrefix writes (badger v4 DB.DropPrefix:
// the memtables flushed, level 0 compacted, then on each level the tables
// that hold the prefix's keys beside others rewritten, at most two a level,
// one level at a time; the tables that hold only the prefix's are deleted
// unread): a namespace's deletion (see above) or flushMemtables before a
// stream.
func dropSpace(o badger.Options) int64 {
	mt := o.MemTableSize
	return int64(o.NumMemtables)*mt + int64(o.NumLevelZeroTables+1)*mt + 4*o.BaseTableSize
}

// checkSpace refuses a write of about need bytes (what names it) unless the
// store's file system has room for it and the reserve. It never refuses on an
// in-memory store or when the free space cannot be read.
func (s *Store) checkSpace(what string, need int64) error {
	return s.checkFree(what, need+s.reserve, false)
}

// checkDropSpace refuses a deletion (the caller's error names it) unless
// the store's file system has room for what Badger's DropPrefix writes
// (dropSpace): less than checkSpace asks of a write, so that a user whose
// writes are refused can still delete a namespace to free space. A
// read-write Open asks the same room of checkFree.
func (s *Store) checkDropSpace() error {
	return s.checkFree("", s.dropSpace, true)
}

// checkFree refuses what unless the store's file system has need bytes
// free, as checkSpace says; drop says the refusal is a deletion's.
func (s *Store) checkFree(what string, need int64, drop bool) error {
	if s.opts.inMemory {
		return nil
	}
	free, err := statfsFree(s.dir)
	if h := s.opts.hooks.freeSpace; h != nil {
		free, err = h(s.dir)
	}
	if err != nil {
		return nil // unknown (e.g. not supported here): Badger's own errors remain
	}
	if free < need {
		return &NoSpaceError{Dir: s.dir, What: what, Free: free, Need: need, drop: drop}
	}
	return nil
}

// writeGate is the store's gate with the free-space guard for read-write
// transactions (badgerkv's WriteGate).
type writeGate struct {
	*gate
	s *Store
}

// EnterWrite checks the free space for a transaction and enters the gate.
func (g writeGate) EnterWrite(ctx context.Context) error {
	if err := g.s.checkSpace("write", 0); err != nil {
		return err
	}
	return g.Enter(ctx)
}

// Lost is badgerkv's LostGate: see Store.lostPanic.
func (g writeGate) Lost(panicked any) error { return g.s.lostPanic(panicked) }
