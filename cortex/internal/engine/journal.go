package engine

import (
	"github.com/cortexgraph/cortex/cortex/internal/sorted"

	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/cortexgraph/cortex/cortex/internal/layout"

	"github.com/cayleygraph/cayley/graph/refs"
	"github.com/cayleygraph/quad"
	"github.com/dgraph-io/badger/v4"
	hkv "github.com/hidal-go/hidalgo/kv"
)

// Journaled deltas: an Apply or Update larger than MaxDeltaQuads is still all
// or nothing, for readers and across a crash, although Badger cannot hold it
// in one transaction.
//
//   - Capture: under the namespace's write lock, the delta's writes are
//     computed against one snapshot without writing (captureDelta, the same
//     deltaWriter as a one-transaction delta): every key to put or delete,
//     once, and the previous value of every key among them that exists.
//     Readers go on meanwhile; no other writer can change the namespace.
//   - Isolation: the keys are then written holding the store's gate
//     (gate.go). Written transaction by transaction, the delta holds new
//     transactions back (holdNew) but not the open ones, whose snapshots
//     are older than its first commit: they see none of it, readers that
//     start after see all of it. Streamed, it waits until no transaction is
//     open (exclusive), as the stream writer replaces Badger's timestamp
//     oracle.
//   - Journal: those previous values go to the journal file, synced, before
//     anything is written; every key of the delta is then written with a
//     version ≥ V0 (newer than anything in the database): through Badger's
//     stream writer when the delta is large (stream.go; deletions are
//     written as deletion markers), otherwise in transactions of at most
//     Tuning.JournalTxnEntries entries. When it is durable, the journal is removed.
//   - Recovery: Open finds a journal left by a crash and rolls the delta
//     back: every recorded key gets its value back, every other key of the
//     namespace whose newest version is V0 or later is deleted (it did not
//     exist before). Rolling back twice is harmless.
//   - A failure before the end (an error, a cancelled context) rolls back in
//     the same way at once; if even that fails, or the stream writer fails
//     half-way, the store is poisoned and the next Open rolls back.
//
// The journal file:
//
//	"cortex-journal1"  magic
//	uvarint            V0
//	uvarint, bytes     the namespace's key prefix
//	uint32 LE          CRC-32 (IEEE) of the above
//
// written to a temporary file, synced and renamed, followed by records:
//
//	uvarint            length of the payload
//	payload            uvarint count, then per entry: uvarint, bytes key;
//	                   byte 1; uvarint, bytes previous value
//	uint32 LE          CRC-32 (IEEE) of the payload
//
// appended and synced before the first write. A torn last record means the
// process died before anything was written; it is ignored.

const journalFile = "cortex-delta.journal"

var journalMagic = []byte("cortex-journal1")

// journal is a journaled delta in progress.
type journal struct {
	s      *Store
	prefix []byte
	v0     uint64
	f      *os.File    // nil for an in-memory store
	old    []undoEntry // every record so far, for an in-process roll-back
}

func journalHeader(v0 uint64, prefix []byte) []byte {
	b := append([]byte(nil), journalMagic...)
	b = binary.AppendUvarint(b, v0)
	b = appendBytes(b, prefix)
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// create writes the journal's header, durably.
func (j *journal) create() error {
	s := j.s
	path := filepath.Join(s.dir, journalFile)
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("write journal: %w", err)
	}
	_, err = f.Write(journalHeader(j.v0, j.prefix))
	if err == nil {
		err = f.Sync()
	}
	renamed := false
	if err == nil {
		err = os.Rename(tmp, path)
		renamed = err == nil
	}
	if err == nil {
		err = s.syncDir()
	}
	if err != nil {
		_ = f.Close()
		_ = os.Remove(tmp)
		if renamed {
			// A journal left behind would roll back later writes at the
			// next Open: remove it durably (a power loss must not bring
			// back a rename that a sync may have made durable), or refuse
			// to go on.
			if rerr := s.removeDurably(path); rerr != nil {
				return s.poison(fmt.Errorf("write journal: %w (and a journal may be left: %v)", err, rerr))
			}
		}
		return fmt.Errorf("write journal: %w", err)
	}
	j.f = f
	return nil
}

// record appends the previous values of the next commit, durably.
func (j *journal) record(old []undoEntry) error {
	if len(old) == 0 {
		return nil
	}
	j.old = append(j.old, old...)
	if j.f == nil {
		return nil
	}
	p := binary.AppendUvarint(nil, uint64(len(old)))
	for _, e := range old {
		p = appendBytes(p, e.key)
		p = append(p, 1)
		p = appendBytes(p, e.val)
	}
	b := binary.AppendUvarint(make([]byte, 0, len(p)+16), uint64(len(p)))
	b = append(b, p...)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(p))
	if _, err := j.f.Write(b); err != nil {
		return fmt.Errorf("write journal: %w", err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("write journal: %w", err)
	}
	return nil
}

// finish makes the delta durable and removes the journal.
func (j *journal) finish() error {
	if j.f == nil {
		return nil
	}
	if !j.s.opts.syncWrites {
		if err := j.s.db.Sync(); err != nil {
			return fmt.Errorf("sync: %w", err)
		}
	}
	return j.remove()
}

// closeFile closes the journal's file, if still open, and leaves it in
// place (see writeDeltaJournaled).
func (j *journal) closeFile() {
	if j.f != nil {
		_ = j.f.Close()
		j.f = nil
	}
}

func (j *journal) remove() error {
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	if rerr := os.Remove(filepath.Join(j.s.dir, journalFile)); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) && err == nil {
		err = rerr
	}
	if err == nil {
		err = j.s.syncDir()
	}
	if err != nil {
		return fmt.Errorf("remove journal: %w", err)
	}
	return nil
}

// abort rolls the delta back after cause and returns cause; if the roll-back
// fails, the store is poisoned (the next Open rolls back from the journal).
// A delta cut off by Close (cause matches ErrClosed) is left to the next
// Open to roll back, as a streamed one is: Close does not wait for a
// roll-back.
func (j *journal) abort(cause error) error {
	if errors.Is(cause, ErrClosed) && j.s.cutOff.Load() {
		if j.f == nil {
			// In memory: the data goes with the store.
			return cause
		}
		return fmt.Errorf("%w (the next Open rolls it back)", cause)
	}
	if j.s.lost() {
		// Badger can serve no transaction (Store.lose): the journal stays
		// for the next Open, which rolls the delta back.
		if j.f == nil {
			return cause
		}
		return fmt.Errorf("%w (the next Open rolls it back)", cause)
	}
	err := error(nil)
	if h := j.s.opts.hooks.rollback; h != nil {
		err = h()
	}
	if err == nil {
		err = rollbackDelta(j.s.db, j.prefix, j.v0, j.old, j.s.tune.RollbackProgressEvery)
	}
	if err != nil {
		return j.s.poison(errors.Join(cause, fmt.Errorf("roll back: %w", err)))
	}
	if err := j.remove(); err != nil {
		return j.s.poison(errors.Join(cause, err))
	}
	return cause
}

// rollbackDelta undoes a journaled delta or a streamed segment in the
// running process (see recover.go): the keys in old get their previous values
// back (or are deleted if they had none) and every other key under prefix
// whose newest version is v0 or later is deleted.
func rollbackDelta(db *badger.DB, prefix []byte, v0 uint64, old []undoEntry, every int) error {
	if err := rollbackBatched(context.Background(), db, prefix, v0, sortedUndo(old), every, func(int64) {}); err != nil {
		return err
	}
	return db.Sync()
}

// anyVersionSince reports whether a key under prefix has a version of v0 or
// later.
func anyVersionSince(db *badger.DB, prefix []byte, v0 uint64) (bool, error) {
	found := false
	err := db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.PrefetchValues = false
		opts.Prefix = prefix
		opts.AllVersions = true
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Rewind(); it.Valid() && !found; it.Next() {
			found = it.Item().Version() >= v0
		}
		return nil
	})
	return found, err
}

var errBadJournal = fmt.Errorf("%w: damaged journal file %s", ErrCorrupt, journalFile)

// parseJournal reads a journal file: its header must be intact; records are
// read up to the first torn or damaged one.
func parseJournal(b []byte) (prefix []byte, v0 uint64, old []undoEntry, clean bool, err error) {
	if !bytes.HasPrefix(b, journalMagic) {
		return nil, 0, nil, false, errBadJournal
	}
	d := undoDecoder{b: b[len(journalMagic):]}
	v0, prefix = d.uvarint(), d.bytes()
	if d.err != nil || len(d.b) < 4 || v0 == 0 || len(prefix) == 0 {
		return nil, 0, nil, false, errBadJournal
	}
	hlen := len(b) - len(d.b)
	if crc32.ChecksumIEEE(b[:hlen]) != binary.LittleEndian.Uint32(d.b) {
		return nil, 0, nil, false, errBadJournal
	}
	rest := d.b[4:]
	clean = true
	for len(rest) > 0 {
		n, k := binary.Uvarint(rest)
		if k <= 0 || n > uint64(len(rest)-k) || uint64(len(rest)-k)-n < 4 {
			clean = false // torn
			break
		}
		p := rest[k : k+int(n)]
		if crc32.ChecksumIEEE(p) != binary.LittleEndian.Uint32(rest[k+int(n):]) {
			clean = false // torn, or damaged
			break
		}
		rest = rest[k+int(n)+4:]
		pd := undoDecoder{b: p}
		cnt := pd.uvarint()
		var recs []undoEntry
		for i := uint64(0); i < cnt && pd.err == nil; i++ {
			e := undoEntry{key: pd.bytes(), present: true}
			if pd.byte() != 1 {
				pd.err = errBadJournal
			}
			e.val = pd.bytes()
			recs = append(recs, e)
		}
		if pd.err != nil || len(pd.b) != 0 {
			// The checksum matched, so this is not a torn write.
			return nil, 0, nil, false, errBadJournal
		}
		old = append(old, recs...)
	}
	return prefix, v0, old, clean, nil
}

// recoverJournal rolls back a journaled delta that a crash interrupted (a
// journal exists). It runs in Open, before the store is used; with a
// read-only store it fails.
func (s *Store) recoverJournal(ctx context.Context) error {
	path := filepath.Join(s.dir, journalFile)
	if !s.opts.readOnly {
		// A header never renamed into place: nothing was written, nothing
		// to recover (a read-only Open leaves it to the next writer).
		_ = os.Remove(path + ".tmp")
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("read journal: %w", err)
	}
	prefix, v0, old, clean, err := parseJournal(b)
	if err != nil {
		return err
	}
	if s.opts.readOnly {
		return fmt.Errorf("%w: open the store read-write once", ErrRecoveryNeeded)
	}
	if !clean {
		// The record is synced before anything is written, so a torn one
		// means nothing was; if something was, the record is damaged and
		// the previous values are lost: refuse rather than guess.
		written, err := anyVersionSince(s.db, prefix, v0)
		if err != nil {
			return fmt.Errorf("read journal: %w", err)
		}
		if written {
			return fmt.Errorf("%w: journal %s is damaged and its write reached the database; the store needs restoring from a backup", ErrCorrupt, journalFile)
		}
		old = nil
	}
	if err := s.rollbackAtOpen(ctx, "write", prefix, v0, old); err != nil {
		return fmt.Errorf("roll back interrupted write: %w", err)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("remove journal: %w", err)
	}
	return s.syncDir()
}

// writeDeltaJournaled applies a delta larger than one transaction (see the
// comment at the top of this file). The caller holds n.wmu.
func (n *Namespace) writeDeltaJournaled(ctx context.Context, remove, add []quad.Quad, pins map[quad.Value]bool, side *sideOps) (freed bool, err error) {
	s := n.s
	if err := s.checkOpen(); err != nil {
		return false, err
	}
	if !s.opts.syncWrites && !s.opts.inMemory {
		// The previous values must be durable ones: a commit not yet
		// synced that a power loss undid must not be restored by a
		// roll-back.
		if err := s.db.Sync(); err != nil {
			return false, fmt.Errorf("sync: %w", err)
		}
	}
	// The writes are computed before the store is taken: readers go on
	// meanwhile, and the snapshot stays current, as nobody else writes
	// this namespace (the caller holds its write lock).
	prefix := n.view.Prefix()
	sg, old, freed, err := n.captureDelta(ctx, prefix, remove, add, pins, side)
	if err != nil {
		return false, err
	}
	if err := s.checkSpace("write", sg.Bytes); err != nil {
		return false, err
	}
	// A delta written transaction by transaction keeps new transactions out
	// while it is written, and lets the open ones (whose snapshots are older
	// than its first commit) go on: it does not wait for a long query or
	// export. A streamed one needs the store to itself (stream.go).
	streamed := !s.opts.inMemory && sg.Entries >= s.tune.StreamMinEntries
	if streamed {
		err = s.gate.exclusiveWait(ctx, s.tune.JournalGateWait)
	} else {
		err = s.gate.holdNew(ctx)
	}
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, s.busyErr(fmt.Sprintf("a delta of %d quads", len(remove)+len(add)), s.tune.JournalGateWait)
	}
	defer s.gate.release()
	if err := s.checkOpen(); err != nil {
		return false, err
	}
	n.lastEntries = int64(sg.Entries)
	j := &journal{s: s, prefix: prefix}
	// A delta that fails and leaves the store unusable (a failed roll-back,
	// a stream cut off) keeps its journal for the next Open; its file is
	// closed all the same.
	defer func() { j.closeFile() }()
	if streamed {
		err := s.streamHeld(prefix, sg, func(v uint64) error { return j.begin(v, old) }, j.finish)
		if !errors.Is(err, errStreamDeclined) && (!errors.Is(err, errStreamPrepare) || s.checkOpen() != nil) {
			return freed, err
		}
		// Declined, or the stream writer could not start (nothing was
		// written, the journal is gone): commit transaction by transaction.
		j.closeFile()
		j = &journal{s: s, prefix: prefix}
	}
	if err := j.begin(s.nextVersion(), old); err != nil {
		return false, err
	}
	// Close does not close Badger under the transactions below: once it
	// stops waiting for them (cutOff), the next commit fails with ErrClosed.
	s.maint.RLock()
	defer s.maint.RUnlock()
	if err := s.commitWriteSet(ctx, sg); err != nil {
		return false, j.abort(err)
	}
	s.opts.hooks.atJournal("written")
	if err := j.finish(); err != nil {
		return false, s.poison(err)
	}
	return freed, nil
}

// begin starts the journal of a delta whose keys all get versions v0 or
// later; old are the previous values of the keys it overwrites or deletes.
func (j *journal) begin(v0 uint64, old []undoEntry) error {
	j.v0 = v0
	if !j.s.opts.inMemory {
		if err := j.create(); err != nil {
			return err
		}
	}
	if err := j.record(old); err != nil {
		if rerr := j.remove(); rerr != nil {
			return j.s.poison(errors.Join(err, rerr))
		}
		return err
	}
	return nil
}

// captureDelta computes the writes of a delta, against one snapshot, without
// writing: the entries to write (a segment of puts and deletions, each key
// once), the previous values of the keys among them that exist, and whether
// nodes are freed.
func (n *Namespace) captureDelta(ctx context.Context, prefix []byte, remove, add []quad.Quad, pins map[quad.Value]bool, side *sideOps) (*sorted.Segment, []undoEntry, bool, error) {
	txn, end, err := n.view.NewTxn(ctx, false) // through the gate; ended before the caller takes it
	if err != nil {
		return nil, nil, false, err
	}
	defer end()
	tx := &captureTx{txn: txn, prefix: prefix, sg: &sorted.Segment{}}
	w := &deltaWriter{ctx: ctx, tx: tx, nodes: map[refs.ValueHash]*deltaNode{}, pins: pins, side: side, now: time.Now().UnixNano(), store: n.s}
	if err := w.prefetch(ctx, txn, prefix, remove, add); err != nil {
		return nil, nil, false, err
	}
	if err := w.apply(remove, add); err != nil {
		return nil, nil, false, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, false, err
	}
	tx.seal()
	return tx.sg, tx.old, w.freed, nil
}

// commitWriteSet commits the entries of sg in transactions of at most
// Tuning.JournalTxnEntries entries (fewer if Badger's size limit comes first),
// outside the gate (the caller holds it).
func (s *Store) commitWriteSet(ctx context.Context, sg *sorted.Segment) error {
	txn := s.db.NewTransaction(true)
	defer func() { txn.Discard() }()
	n := 0
	commit := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if s.cutOff.Load() {
			return fmt.Errorf("%w: the store was closed while the delta was written", ErrClosed)
		}
		if err := txn.Commit(); err != nil {
			return fmt.Errorf("commit: %w", s.checkCommit(err))
		}
		s.opts.hooks.atJournal("committed")
		txn, n = s.db.NewTransaction(true), 0
		return nil
	}
	for _, p := range sg.Chunks {
		for _, e := range p.Entries {
			k, v := p.Data[e.K0:e.K1:e.K1], p.Data[e.V0:e.V1:e.V1]
			set := func() error {
				if e.Del {
					return txn.Delete(k)
				}
				return txn.Set(k, v)
			}
			err := set()
			if errors.Is(err, badger.ErrTxnTooBig) && n > 0 {
				if err = commit(); err == nil {
					err = set()
				}
			}
			if err != nil {
				return fmt.Errorf("write: %w", err)
			}
			if n++; n >= s.tune.JournalTxnEntries {
				if err := commit(); err != nil {
					return err
				}
			}
		}
	}
	if n > 0 {
		return commit()
	}
	return nil
}

// captureTx is the read-only transaction of captureDelta seen as a
// read-write one: reads go to the snapshot, writes are collected in a
// segment, and the snapshot's value of every key overwritten or deleted is
// recorded (deltaWriter writes each key at most once and never reads a key
// after writing it, so the snapshot is all the reads need).
type captureTx struct {
	txn    *badger.Txn
	prefix []byte
	sg     *sorted.Segment
	cur    *sorted.PutBuf
	old    []undoEntry
	key    []byte // scratch
	arena  []byte // see keep
}

var _ hkv.Tx = (*captureTx)(nil)

// captureChunk is the number of entries per putBuf of a captured segment.
const captureChunk = 1 << 16

// captureChunkBytes is the initial capacity of a putBuf's data: ~64 bytes
// per entry (a key and a small value), so that a chunk rarely grows (each
// growth copied the chunk: ~10 % of a large capture's time).
const captureChunkBytes = captureChunk * 64

func (tx *captureTx) buf() *sorted.PutBuf {
	if tx.cur == nil || len(tx.cur.Entries) >= captureChunk {
		tx.seal()
		tx.cur = &sorted.PutBuf{Prefix: tx.prefix, Data: make([]byte, 0, captureChunkBytes), Entries: make([]sorted.PutEntry, 0, captureChunk)}
	}
	return tx.cur
}

// seal adds the current putBuf to the segment.
func (tx *captureTx) seal() {
	if tx.cur != nil && len(tx.cur.Entries) > 0 {
		tx.sg.Add(tx.cur, 0, 0)
	}
	tx.cur = nil
}

func (tx *captureTx) Get(ctx context.Context, k hkv.Key) (hkv.Value, error) {
	item, err := tx.txn.Get(tx.keyOf(k))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, hkv.ErrNotFound
	} else if err != nil {
		return nil, err
	}
	return item.ValueCopy(nil)
}

func (tx *captureTx) GetBatch(ctx context.Context, keys []hkv.Key) ([]hkv.Value, error) {
	return hkv.GetBatch(ctx, tx, keys)
}

// before records the snapshot's value of k, if it has one.
func (tx *captureTx) before(k hkv.Key) error {
	item, err := tx.txn.Get(tx.keyOf(k))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	v, err := item.ValueCopy(nil)
	if err != nil {
		return err
	}
	tx.old = append(tx.old, undoEntry{key: tx.keep(tx.key), val: v, present: true})
	return nil
}

func (tx *captureTx) Put(k hkv.Key, v hkv.Value) error {
	if err := tx.before(k); err != nil {
		return err
	}
	tx.buf().Add(k, v)
	return nil
}

// putFresh writes a key that did not exist before the delta (see
// deltaWriter.putFresh): nothing to record.
func (tx *captureTx) putFresh(k hkv.Key, v []byte) error {
	tx.buf().Add(k, v)
	return nil
}

// writeKnown writes k = v (or deletes k), whose snapshot value is old.
func (tx *captureTx) writeKnown(k hkv.Key, v []byte, del bool, old []byte) error {
	tx.old = append(tx.old, undoEntry{key: tx.keep(tx.keyOf(k)), val: tx.keep(old), present: true})
	if del {
		tx.buf().AddDel(k)
	} else {
		tx.buf().Add(k, v)
	}
	return nil
}

// keep returns a copy of b (nil if b is nil) in memory allocated in large
// blocks: a merge records the previous values of ~10^5 small keys.
func (tx *captureTx) keep(b []byte) []byte {
	if b == nil {
		return nil
	}
	if cap(tx.arena)-len(tx.arena) < len(b) {
		tx.arena = make([]byte, 0, max(captureArenaBytes, len(b)))
	}
	n := len(tx.arena)
	tx.arena = append(tx.arena, b...)
	return tx.arena[n:len(tx.arena):len(tx.arena)]
}

// captureArenaBytes is the size of captureTx.keep's blocks.
const captureArenaBytes = 1 << 20

func (tx *captureTx) keyOf(k hkv.Key) []byte {
	tx.key = layout.Escape(append(tx.key[:0], tx.prefix...), k)
	return tx.key
}

func (tx *captureTx) Del(k hkv.Key) error {
	if err := tx.before(k); err != nil {
		return err
	}
	tx.buf().AddDel(k)
	return nil
}

func (tx *captureTx) Scan(hkv.Key) hkv.Iterator {
	return errIterator{errors.New("captureTx: scan not supported")}
}

func (tx *captureTx) Commit(context.Context) error {
	return errors.New("captureTx: commit not supported")
}

func (tx *captureTx) Close() error { return nil }

type errIterator struct{ err error }

func (it errIterator) Next(context.Context) bool { return false }
func (it errIterator) Err() error                { return it.err }
func (it errIterator) Close() error              { return nil }
func (it errIterator) Key() hkv.Key              { return nil }
func (it errIterator) Val() hkv.Value            { return nil }
