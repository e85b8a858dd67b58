package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// The undo file of a streamed segment (see stream.go):
//
//	"cortex-undo1"  magic
//	uvarint         version V of the segment's keys
//	uvarint, bytes  the namespace's key prefix
//	uvarint         number of entries, then per entry:
//	  uvarint, bytes  key
//	  byte            1 if the key existed, 0 if not
//	  uvarint, bytes  previous value (when it existed)
//	uint32 LE       CRC-32 (IEEE) of everything before
//
// It is written to a temporary file, synced and renamed, so it is either
// absent or complete.

var undoMagic = []byte("cortex-undo1")

type undoEntry struct {
	key, val []byte
	present  bool
}

type undoRecord struct {
	version uint64
	prefix  []byte
	old     []undoEntry
}

func (r *undoRecord) marshal() []byte {
	b := append([]byte(nil), undoMagic...)
	b = binary.AppendUvarint(b, r.version)
	b = appendBytes(b, r.prefix)
	b = binary.AppendUvarint(b, uint64(len(r.old)))
	for _, e := range r.old {
		b = appendBytes(b, e.key)
		if e.present {
			b = append(b, 1)
			b = appendBytes(b, e.val)
		} else {
			b = append(b, 0)
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

func appendBytes(b, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

var errBadUndo = fmt.Errorf("%w: damaged undo file %s", ErrCorrupt, streamUndoFile)

func parseUndo(b []byte) (*undoRecord, error) {
	if len(b) < len(undoMagic)+4 || !bytes.HasPrefix(b, undoMagic) {
		return nil, errBadUndo
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, errBadUndo
	}
	d := undoDecoder{b: body[len(undoMagic):]}
	r := &undoRecord{version: d.uvarint(), prefix: d.bytes()}
	n := d.uvarint()
	for i := uint64(0); i < n && d.err == nil; i++ {
		e := undoEntry{key: d.bytes()}
		if d.byte() == 1 {
			e.present, e.val = true, d.bytes()
		}
		r.old = append(r.old, e)
	}
	if d.err != nil || len(d.b) != 0 || r.version == 0 || len(r.prefix) == 0 {
		return nil, errBadUndo
	}
	return r, nil
}

type undoDecoder struct {
	b   []byte
	err error
}

func (d *undoDecoder) uvarint() uint64 {
	v, k := binary.Uvarint(d.b)
	if k <= 0 {
		d.err, d.b = errBadUndo, nil
		return 0
	}
	d.b = d.b[k:]
	return v
}

func (d *undoDecoder) byte() byte {
	if len(d.b) == 0 {
		d.err = errBadUndo
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *undoDecoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err, d.b = errBadUndo, nil
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

// writeUndo writes r as the store's undo file, durably.
func (s *Store) writeUndo(r *undoRecord) error {
	dir := s.dir
	path := filepath.Join(dir, streamUndoFile)
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("write undo file: %w", err)
	}
	_, err = f.Write(r.marshal())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	renamed := false
	if err == nil {
		err = os.Rename(tmp, path)
		renamed = err == nil
	}
	if err == nil && s.opts.hooks.undoRenamed != nil {
		err = s.opts.hooks.undoRenamed()
	}
	if err == nil {
		err = s.syncDir()
	}
	if err != nil {
		_ = os.Remove(tmp)
		if renamed {
			// An undo file left behind would roll back later writes at the
			// next Open (every key of the namespace from its version on):
			// remove it durably, or refuse to go on (as journal.create).
			if rerr := s.removeDurably(path); rerr != nil {
				return s.poison(fmt.Errorf("write undo file: %w (and it may be left: %v)", err, rerr))
			}
		}
		return fmt.Errorf("write undo file: %w", err)
	}
	return nil
}

// removeUndo removes the undo file, durably.
func (s *Store) removeUndo() error {
	if err := os.Remove(filepath.Join(s.dir, streamUndoFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove undo file: %w", err)
	}
	if err := s.syncDir(); err != nil {
		return fmt.Errorf("remove undo file: %w", err)
	}
	return nil
}

// removeDurably removes path, a file in the store's directory, and syncs
// the directory.
func (s *Store) removeDurably(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return s.syncDir()
}

// syncDir syncs the store's directory, after a journal or undo file was
// renamed into place or removed.
func (s *Store) syncDir() error {
	if h := s.opts.hooks.dirSync; h != nil {
		if err := h(); err != nil {
			return err
		}
	}
	return syncDir(s.dir)
}

func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil // directories cannot be synced there; NTFS journals renames
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// recoverStream rolls back a streamed segment that a crash interrupted (an
// undo file exists): the keys it recorded get their previous values back
// (or are deleted if they had none) and every other key of the segment's
// namespace whose newest version is the segment's is deleted. It runs in
// Open, before the store is used; with a read-only store it fails.
func (s *Store) recoverStream(ctx context.Context) error {
	path := filepath.Join(s.dir, streamUndoFile)
	if !s.opts.readOnly {
		// An undo file never renamed into place: nothing was written,
		// nothing to recover (a read-only Open leaves it to the next
		// writer).
		_ = os.Remove(path + ".tmp")
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("read undo file: %w", err)
	}
	r, err := parseUndo(b)
	if err != nil {
		return err
	}
	if s.opts.readOnly {
		return fmt.Errorf("%w (an import): open the store read-write once", ErrRecoveryNeeded)
	}
	// The segment's keys all have version r.version, newer than anything
	// else: rolling it back is rolling back a journaled delta (journal.go).
	if err := s.rollbackAtOpen(ctx, "import segment", r.prefix, r.version, r.old); err != nil {
		return fmt.Errorf("roll back interrupted import: %w", err)
	}
	return s.removeUndo()
}
