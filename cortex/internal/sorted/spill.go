package sorted

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
)

// Spilled segments: when the writes an import segment holds in memory reach
// the store's budget (Options.WithImportSegmentBytes), they are sorted and
// written to a run file in the store directory, and the segment goes on
// filling. When the segment ends, each key group is merged from the runs and
// what is still in memory and written through the stream writer as one
// stream, so that a large import lands in few, large LSM levels instead of
// many small stacked ones, and its memory does not grow with its size.
//
// A run file is temporary: it is removed from the directory as soon as it is
// created where the system allows it (it lives on through its descriptor),
// otherwise when the segment ends; Open removes any left by a crash. Its
// format is, for each non-empty key group in byte order, the group's entries
// sorted by key, each as uvarint(len key), uvarint(len value), a deletion
// flag byte, the key and the value. Nothing in a run is durable or needed
// after the segment: a crash loses the segment, which was never written.

const RunPattern = "cortex-import-*.run"

// runSection is where a key group's entries are in a run file.
type runSection struct {
	off, n int64
	count  int
}

// segRun is a sorted run of a segment's writes in a temporary file.
type segRun struct {
	f    *os.File
	path string // "" once removed from the directory
	name string // the file's name when created, for error messages
	sec  [256]runSection
}

func (r *segRun) close() error {
	err := r.f.Close()
	if r.path != "" {
		err = errors.Join(err, os.Remove(r.path))
	}
	return err
}

// spillJob is a spill in flight: the segment's in-memory writes, detached
// from it, being sorted and written to a run by another goroutine.
type spillJob struct {
	done  chan struct{} // closed when run, bytes and err are set
	run   *segRun
	bytes int64
	err   error
}

// spill sorts the in-memory writes of sg by key group and key (the latest
// chunk's entry winning among equal keys), writes them to a new run file in
// dir and drops them from memory, after waiting for any spill in flight.
func (sg *Segment) spill(dir string, prefixLen int) error {
	if _, err := sg.WaitSpill(); err != nil {
		return err
	}
	sg.SpillAsync(dir, prefixLen, nil)
	_, err := sg.WaitSpill()
	return err
}

// SpillAsync detaches the in-memory writes of sg and spills them to a run
// file in dir on another goroutine, so that the import goes on filling the
// segment meanwhile (the import's other stages leave part of the machine
// idle: see PERFORMANCE.md, "Session 7"). hook, if not nil, runs first on
// that goroutine; its error fails the spill. The caller must have waited
// for the previous spill (waitSpill): at most one is in flight, and runs
// stay in the order of their chunks, which decides among equal keys.
func (sg *Segment) SpillAsync(dir string, prefixLen int, hook func() error) {
	job := &spillJob{done: make(chan struct{})}
	chunks := sg.Chunks
	sg.Chunks = nil
	sg.Bytes, sg.inMem = 0, 0
	sg.pending = job
	go func() {
		defer close(job.done)
		if hook != nil {
			job.err = hook()
		}
		if job.err == nil {
			job.run, job.bytes, job.err = spillChunks(dir, prefixLen, chunks)
		}
	}()
}

// WaitSpill waits for the spill in flight, if any, and adds its run to the
// segment; it reports whether it added one.
func (sg *Segment) WaitSpill() (bool, error) {
	job := sg.pending
	if job == nil {
		return false, nil
	}
	<-job.done
	sg.pending = nil
	if job.err != nil {
		return false, job.err
	}
	sg.Runs = append(sg.Runs, job.run)
	sg.Spilled += job.bytes
	return true, nil
}

// spillChunks sorts the writes of chunks as spill does and writes them to a
// new run file in dir; it returns the run and its size.
func spillChunks(dir string, prefixLen int, chunks []*PutBuf) (*segRun, int64, error) {
	ss := NewSortedSegment(&Segment{Chunks: chunks}, prefixLen)
	if err := ParallelGroups(ss.Order(), func(b int) error { ss.SortGroup(byte(b)); return nil }); err != nil {
		return nil, 0, err
	}
	f, err := os.CreateTemp(dir, RunPattern)
	if err != nil {
		return nil, 0, fmt.Errorf("spill: %w", err)
	}
	run := &segRun{f: f, path: f.Name(), name: f.Name()}
	if runtime.GOOS != "windows" && os.Remove(run.path) == nil {
		run.path = ""
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var off int64
	var hdr [2*binary.MaxVarintLen64 + 1]byte
	for b := range 256 {
		g := ss.Groups[b]
		if len(g) == 0 {
			continue
		}
		start := off
		for _, r := range g {
			k, v := ss.Key(r), ss.Val(r)
			n := binary.PutUvarint(hdr[:], uint64(len(k)))
			n += binary.PutUvarint(hdr[n:], uint64(len(v)))
			hdr[n] = 0
			if r.Del {
				hdr[n] = 1
			}
			n++
			_, _ = w.Write(hdr[:n])
			_, _ = w.Write(k)
			_, _ = w.Write(v)
			off += int64(n + len(k) + len(v))
		}
		run.sec[b] = runSection{off: start, n: off - start, count: len(g)}
		ss.Groups[b] = nil
	}
	if err := w.Flush(); err != nil {
		return nil, 0, errors.Join(fmt.Errorf("spill: %w", err), run.close())
	}
	return run, off, nil
}

// RemoveStaleRuns removes run files a crash left in dir.
func RemoveStaleRuns(dir string) error {
	names, err := filepath.Glob(filepath.Join(dir, RunPattern))
	if err != nil {
		return err
	}
	var errs []error
	for _, name := range names {
		if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// mergeSrc is one sorted source of a key group: a run's section or the
// group's in-memory entries. Sources with a higher rank are newer.
type mergeSrc struct {
	rank     int
	key, val []byte
	del      bool
	// run
	r    *bufio.Reader
	left int
	buf  []byte
	run  *segRun // for error messages
	off  int64   // offset in the run file of the next entry
	// memory
	ss   *SortedSegment
	refs []Ref
	i    int
}

// advance moves to the source's next entry.
func (m *mergeSrc) advance() (bool, error) {
	if m.r == nil {
		if m.i >= len(m.refs) {
			return false, nil
		}
		r := m.refs[m.i]
		m.i++
		m.key, m.val, m.del = m.ss.Key(r), m.ss.Val(r), r.Del
		return true, nil
	}
	if m.left == 0 {
		return false, nil
	}
	m.left--
	kl, err := binary.ReadUvarint(m.r)
	if err != nil {
		return false, m.runErr(err)
	}
	vl, err := binary.ReadUvarint(m.r)
	if err != nil {
		return false, m.runErr(err)
	}
	del, err := m.r.ReadByte()
	if err != nil {
		return false, m.runErr(err)
	}
	if kl > 1<<20 || vl > 1<<31 || del > 1 {
		return false, m.runErr(fmt.Errorf("bad entry header (key length %d, value length %d, deletion flag %d)", kl, vl, del))
	}
	n := int(kl + vl)
	if cap(m.buf) < n {
		m.buf = make([]byte, n, n+n/2)
	}
	m.buf = m.buf[:n]
	if _, err := io.ReadFull(m.r, m.buf); err != nil {
		return false, m.runErr(err)
	}
	m.key, m.val, m.del = m.buf[:kl:kl], m.buf[kl:n:n], del == 1
	m.off += int64(uvarintLen(kl) + uvarintLen(vl) + 1 + n)
	return true, nil
}

// runErr reports err, met reading the entry at m.off of a run: the run
// file (removed from the directory since it was created, where the system
// allows it) and the offset say which bytes are bad.
func (m *mergeSrc) runErr(err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	gone := ""
	if m.run.path == "" {
		gone = " (a temporary file, already removed from the directory)"
	}
	return fmt.Errorf("read spilled run %q%s: entry at offset %d: %w", m.run.name, gone, m.off, err)
}

// groupMerger yields the entries of one key group of a spilled segment in
// key order, each key once, the newest source's entry winning.
type groupMerger struct {
	h        []*mergeSrc // a heap: smallest key first, newest first among equal keys
	started  bool
	last     []byte
	Key, Val []byte
	Del      bool
}

// Merged returns the merger of group b: its sections of the runs (oldest
// first) and, newest, its in-memory entries (sorted by sortGroup).
func (ss *SortedSegment) Merged(b byte, mem []Ref) (*groupMerger, error) {
	g := &groupMerger{}
	add := func(m *mergeSrc) error {
		ok, err := m.advance()
		if err != nil || !ok {
			return err
		}
		g.h = append(g.h, m)
		g.up(len(g.h) - 1)
		return nil
	}
	for i, run := range ss.Seg.Runs {
		sec := run.sec[b]
		if sec.count == 0 {
			continue
		}
		r := bufio.NewReaderSize(io.NewSectionReader(run.f, sec.off, sec.n), int(min(sec.n, 256<<10)))
		if err := add(&mergeSrc{rank: i, r: r, left: sec.count, run: run, off: sec.off}); err != nil {
			return nil, err
		}
	}
	if err := add(&mergeSrc{rank: len(ss.Seg.Runs), ss: ss, refs: mem}); err != nil {
		return nil, err
	}
	return g, nil
}

// Next moves to the next key; key, val and del are valid until the next
// call.
func (g *groupMerger) Next() (bool, error) {
	if g.started && len(g.h) > 0 {
		g.last = append(g.last[:0], g.h[0].key...)
		for len(g.h) > 0 && bytes.Equal(g.h[0].key, g.last) {
			ok, err := g.h[0].advance()
			if err != nil {
				return false, err
			}
			if !ok {
				last := len(g.h) - 1
				g.h[0] = g.h[last]
				g.h = g.h[:last]
			}
			g.down(0)
		}
	}
	g.started = true
	if len(g.h) == 0 {
		return false, nil
	}
	top := g.h[0]
	g.Key, g.Val, g.Del = top.key, top.val, top.del
	return true, nil
}

func (g *groupMerger) less(i, j int) bool {
	a, b := g.h[i], g.h[j]
	if c := bytes.Compare(a.key, b.key); c != 0 {
		return c < 0
	}
	return a.rank > b.rank
}

func (g *groupMerger) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !g.less(i, p) {
			return
		}
		g.h[i], g.h[p] = g.h[p], g.h[i]
		i = p
	}
}

func (g *groupMerger) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(g.h) {
			return
		}
		m := l
		if r := l + 1; r < len(g.h) && g.less(r, l) {
			m = r
		}
		if !g.less(m, i) {
			return
		}
		g.h[i], g.h[m] = g.h[m], g.h[i]
		i = m
	}
}
