package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

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

// segment is the writes of consecutive import chunks, in order; each chunk's
// writes are consistent on their own (they are what a chunked import would
// commit in one transaction). Chunks spilled to sorted run files (spill.go)
// are in runs, oldest first; chunks holds those written since.
type segment struct {
	chunks  []*putBuf
	counts  []int // source quads accounted for by each chunk, spilled ones included
	quads   int64 // quads inserted
	entries int   // all entries, spilled ones included
	inMem   int   // entries in chunks
	bytes   int64 // arena bytes of chunks
	runs    []*segRun
	spilled int64     // bytes in runs
	pending *spillJob // a spill in flight (its run is not in runs yet)
}

func (sg *segment) add(p *putBuf, count int, inserted int) {
	sg.chunks = append(sg.chunks, p)
	sg.counts = append(sg.counts, count)
	sg.quads += int64(inserted)
	sg.entries += len(p.entries)
	sg.inMem += len(p.entries)
	sg.bytes += int64(len(p.data))
}

// memory estimates the bytes held in memory for the segment, including the
// sort.
func (sg *segment) memory() int64 {
	return sg.bytes + int64(sg.inMem)*(32+40)
}

// reset empties the segment and removes its run files, after waiting for a
// spill in flight.
func (sg *segment) reset() {
	if job := sg.pending; job != nil {
		<-job.done
		if job.run != nil {
			sg.runs = append(sg.runs, job.run)
		}
	}
	for _, r := range sg.runs {
		_ = r.close() // temporary; Open removes what is left
	}
	*sg = segment{}
}

// sref is one entry of a segment in the sort: the first 24 bytes of its key
// after the namespace prefix and bucket byte (a fast path for the comparison)
// and where it is.
type sref struct {
	w0, w1, w2 uint64
	c          uint32 // chunk
	k0         uint32 // key offset in the chunk's data (value follows the key)
	klen       uint16
	vlen       uint32
	del        bool // a deletion
}

// sortedSegment is a segment's entries grouped by the first byte of their
// key after the namespace prefix (groups are disjoint key ranges, written as
// separate streams), each group sorted by key, without duplicate keys (the
// entry of the latest chunk wins).
type sortedSegment struct {
	sg     *segment
	prefix int      // length of the namespace prefix
	counts [256]int // in-memory entries of each group
	total  [256]int // with the spilled ones
	groups [256][]sref
}

func (ss *sortedSegment) key(r sref) []byte {
	k1 := r.k0 + uint32(r.klen)
	return ss.sg.chunks[r.c].data[r.k0:k1:k1]
}

func (ss *sortedSegment) val(r sref) []byte {
	v0 := r.k0 + uint32(r.klen)
	v1 := v0 + r.vlen
	return ss.sg.chunks[r.c].data[v0:v1:v1]
}

// newSortedSegment builds the refs of every group in two passes over the
// entries (the first counts them and finds each group's shared prefix);
// sortGroup then sorts one group.
func newSortedSegment(sg *segment, prefixLen int) *sortedSegment {
	ss := &sortedSegment{sg: sg, prefix: prefixLen}
	var first [256][]byte
	var skip [256]int
	for _, p := range sg.chunks {
		for _, e := range p.entries {
			b := p.data[e.k0+prefixLen]
			k := p.data[e.k0+prefixLen+1 : e.k1]
			if ss.counts[b] == 0 {
				first[b], skip[b] = k, len(k)
			} else {
				n, f := min(skip[b], len(k)), first[b]
				i := 0
				for i < n && k[i] == f[i] {
					i++
				}
				skip[b] = i
			}
			ss.counts[b]++
		}
	}
	for b, n := range ss.counts {
		if n > 0 {
			ss.groups[b] = make([]sref, 0, n)
		}
	}
	for ci, p := range sg.chunks {
		for _, e := range p.entries {
			b := p.data[e.k0+prefixLen]
			k := p.data[e.k0+prefixLen+1+skip[b] : e.k1]
			ss.groups[b] = append(ss.groups[b], sref{w0: word(k, 0), w1: word(k, 8), w2: word(k, 16), c: uint32(ci),
				k0: uint32(e.k0), klen: uint16(e.k1 - e.k0), vlen: uint32(e.v1 - e.v0), del: e.del})
		}
	}
	ss.total = ss.counts
	for _, r := range sg.runs {
		for b := range ss.total {
			ss.total[b] += r.sec[b].count
		}
	}
	return ss
}

// order returns the non-empty groups, largest first.
func (ss *sortedSegment) order() []int {
	order := make([]int, 0, 256)
	for b, n := range ss.total {
		if n > 0 {
			order = append(order, b)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return ss.total[b] - ss.total[a] })
	return order
}

func word(k []byte, i int) uint64 {
	if i >= len(k) {
		return 0
	}
	if i+8 <= len(k) {
		return binary.BigEndian.Uint64(k[i:])
	}
	var b [8]byte
	copy(b[:], k[i:])
	return binary.BigEndian.Uint64(b[:])
}

// sortGroup sorts the refs of group b by key, keeping the entry of the
// latest chunk among equal keys, and stores them in ss.groups[b]. The words
// start after the prefix the keys of the group share (e.g. an index's bucket
// name and the high zero bytes of the first id), so that they decide most
// comparisons. Different groups may be sorted concurrently.
func (ss *sortedSegment) sortGroup(b byte) []sref {
	g := ss.groups[b]
	sortRefs(g, func(x, y sref) int {
		if x.w0 != y.w0 {
			return cmpU64(x.w0, y.w0)
		}
		if x.w1 != y.w1 {
			return cmpU64(x.w1, y.w1)
		}
		if x.w2 != y.w2 {
			return cmpU64(x.w2, y.w2)
		}
		if c := bytes.Compare(ss.key(x), ss.key(y)); c != 0 {
			return c
		}
		if x.c != y.c {
			return cmpU64(uint64(x.c), uint64(y.c))
		}
		return cmpU64(uint64(x.k0), uint64(y.k0)) // entry order within a chunk
	})
	out := g[:0]
	for i, r := range g {
		if i+1 < len(g) && sameWords(r, g[i+1]) && bytes.Equal(ss.key(r), ss.key(g[i+1])) {
			continue
		}
		out = append(out, r)
	}
	ss.groups[b] = out
	return out
}

// parallelGroups runs fn for each group on GOMAXPROCS goroutines, in order of
// the list (largest first), and returns the errors.
func parallelGroups(order []int, fn func(b int) error) error {
	work := make(chan int, len(order))
	for _, b := range order {
		work <- b
	}
	close(work)
	errs := make([]error, len(order))
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(order)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				if err := fn(b); err != nil {
					errs[slices.Index(order, b)] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func sameWords(a, b sref) bool { return a.w0 == b.w0 && a.w1 == b.w1 && a.w2 == b.w2 }

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// bitDelete is Badger's meta bit of a deletion marker (badger/v4 value.go).
const bitDelete = 1 << 0

// appendStreamKV appends to buf one pb.KV (key, value, version, stream id;
// for a deletion, meta bitDelete) in protobuf wire format, as
// badger.KVToBuffer would, without the reflection.
func appendStreamKV(buf *z.Buffer, key, val []byte, version uint64, stream uint32, del bool) {
	n := 1 + uvarintLen(uint64(len(key))) + len(key) + 1 + uvarintLen(version) + 1 + uvarintLen(uint64(stream))
	if len(val) > 0 {
		n += 1 + uvarintLen(uint64(len(val))) + len(val)
	}
	if del {
		n += 3
	}
	b := buf.SliceAllocate(n)[:0]
	b = append(b, 1<<3|2)
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = append(b, key...)
	if len(val) > 0 {
		b = append(b, 2<<3|2)
		b = binary.AppendUvarint(b, uint64(len(val)))
		b = append(b, val...)
	}
	b = append(b, 4<<3) // field 4 (version), wire type 0 (varint)
	b = binary.AppendUvarint(b, version)
	if del {
		b = append(b, 6<<3|2, 1, bitDelete)
	}
	b = append(b, 10<<3) // field 10 (stream id), varint
	_ = binary.AppendUvarint(b, uint64(stream))
}

// appendStreamDone appends the pb.KV that closes a stream.
func appendStreamDone(buf *z.Buffer, stream uint32) {
	b := buf.SliceAllocate(1 + uvarintLen(uint64(stream)) + 2)[:0]
	b = append(b, 10<<3) // field 10 (stream id), varint
	b = binary.AppendUvarint(b, uint64(stream))
	_ = append(b, 11<<3, 1) // field 11 (stream done), varint true
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

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
func (s *Store) streamSegment(ctx context.Context, prefix []byte, sg *segment, undo func() []undoEntry) error {
	spilled := len(sg.runs) > 0
	if s.opts.inMemory || s.opts.readOnly || (sg.entries < s.tune.StreamMinEntries && !spilled) {
		return errStreamDeclined
	}
	if err := s.checkSpace("import segment", sg.bytes+sg.spilled); err != nil {
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
			return fmt.Errorf("%w: an import segment of %d quads waited %s for the store's open transactions (unclosed queries?) to end",
				ErrBusy, sg.quads, wait)
		}
		return errStreamDeclined
	}
	defer s.gate.release()
	return s.streamHeld(prefix, sg, func(version uint64) error {
		return writeUndo(s.dir, &undoRecord{version: version, prefix: prefix, old: undo()})
	}, func() error { return removeUndo(s.dir) })
}

// streamHeld writes sg through the stream writer; the caller holds the gate
// exclusively. begin is called with the version of every key before anything
// is written, to make the write undoable; done once the write is durable or
// when nothing was written after all. It returns errStreamDeclined, having
// called neither, when streaming would be too costly (see cheapToStream). A
// failure after the first table poisons the store: Open rolls back.
func (s *Store) streamHeld(prefix []byte, sg *segment, begin func(version uint64) error, done func() error) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	// The memtables are flushed (Badger's goroutines, disk) while the
	// segment is sorted (this one, memory).
	flushed := make(chan error, 1)
	go func() { flushed <- s.flushMemtables() }()
	ss := sortSegmentWaiting(sg, len(prefix), flushed)
	if err := <-flushed; err != nil {
		return fmt.Errorf("stream: %w", err)
	}
	if len(sg.runs) == 0 && !s.cheapToStream(sg.memory()) {
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
func sortSegmentWaiting(sg *segment, prefixLen int, flushed <-chan error) *sortedSegment {
	done := false
	defer func() {
		if !done {
			<-flushed
		}
	}()
	ss := newSortedSegment(sg, prefixLen)
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
func (s *Store) writeStreams(sw *badger.StreamWriter, ss *sortedSegment, version uint64) error {
	return parallelGroups(ss.order(), func(b int) error {
		g := ss.sortGroup(byte(b))
		buf := z.NewBuffer(s.tune.StreamWriteBuffer+(1<<20), "cortex.stream")
		defer func() { _ = buf.Release() }()
		write := func() error {
			err := sw.Write(buf)
			buf.Reset()
			return err
		}
		stream := uint32(b) + 1
		add := func(key, val []byte, del bool) error {
			appendStreamKV(buf, key, val, version, stream, del)
			if buf.LenNoPadding() >= s.tune.StreamWriteBuffer {
				return write()
			}
			return nil
		}
		if len(ss.sg.runs) == 0 {
			for _, r := range g {
				if err := add(ss.key(r), ss.val(r), r.del); err != nil {
					return err
				}
			}
		} else {
			m, err := ss.merged(byte(b), g)
			if err != nil {
				return err
			}
			for {
				ok, err := m.next()
				if err != nil {
					return err
				}
				if !ok {
					break
				}
				if err := add(m.key, m.val, m.del); err != nil {
					return err
				}
			}
		}
		// Closing the stream writes its last table now.
		appendStreamDone(buf, stream)
		if err := write(); err != nil {
			return err
		}
		ss.groups[b] = nil
		s.opts.hooks.atStream("group-done")
		return nil
	})
}
