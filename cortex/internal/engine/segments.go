package engine

import (
	"github.com/cortexgraph/cortex/cortex/internal/sorted"

	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/cortexgraph/cortex/cortex/internal/layout"

	"github.com/cayleygraph/cayley/graph/refs"
	hkv "github.com/hidal-go/hidalgo/kv"
)

// Segment mode of Import (persistent stores, namespaces whose indexes all
// cover four positions, i.e. every namespace Cortex creates): the import is
// cut into segments. For each segment the namespace's write lock is taken,
// its chunks are computed as the chunked writer would (bulk.go, fill)
// against the namespace as it was when the segment began (nobody else
// writes it meanwhile) but not written (beyond a memory budget, they are
// spilled to sorted run files, package sorted), and then the
// whole segment is written: through Badger's stream writer when it is large
// (stream.go, all or nothing), otherwise one transaction per chunk, in order.
// Other writers of the namespace run between segments.

// Tuning.SegmentIdle is how long an open segment waits for the source's next
// chunk before it is written if another writer waits for the namespace;
// Tuning.SegmentStall, if none does. (A busy machine can take longer than
// SegmentIdle to parse a chunk: ending segments on that alone would make
// them too small to stream.)

// Tuning.SegmentMaxRuns bounds the run files of a segment; SegmentMaxQuads
// bounds the quads a segment inserts: the import remembers each of them until
// the segment ends (bulkState.exact, ~60 bytes each).

// segmentable reports whether Import uses segment mode.
func (st *bulkState) segmentable() bool {
	if st.n.s.opts.hooks.noSegments || st.n.s.opts.inMemory {
		return false
	}
	for _, f := range st.full {
		if !f {
			return false
		}
	}
	return true
}

// importSegments consumes prepped in segments. The write lock is taken when a
// segment's first chunk is ready and released when the segment is written: a
// segment ends when it is full, at the end of the source, or when the next
// chunk takes longer than Tuning.SegmentIdle to arrive while another writer
// waits for the namespace, or longer than Tuning.SegmentStall (a slow source
// does not hold other writers back). A source error ends the last segment, which is
// written before the error is returned.
func (st *bulkState) importSegments(ctx context.Context, prepped <-chan *prepChunk, res *ImportResult) error {
	st.accum = true
	var sg sorted.Segment
	t := &st.n.s.tune
	idle := time.NewTimer(t.SegmentIdle)
	defer idle.Stop()
	for {
		var c *prepChunk
		select {
		case c = <-prepped:
		case <-ctx.Done():
			return ctx.Err()
		}
		if c == nil {
			return nil
		}
		res.Read += int64(c.read)
		if c.err != nil {
			return c.err
		}
		if err := st.beginSegment(ctx); err != nil {
			return err
		}
		var srcErr error
		ended := false
		for {
			if err := st.accumulate(ctx, c, c.quads, c.read, &sg); err != nil {
				st.abortSegment()
				sg.Reset()
				return fmt.Errorf("namespace %s: write: %w", st.n.name, err)
			}
			full, err := st.segmentFull(&sg)
			if err != nil {
				st.abortSegment()
				sg.Reset()
				return fmt.Errorf("namespace %s: write: %w", st.n.name, err)
			}
			if full {
				break
			}
			c = nil
			closed := false
			stalled := time.Now() // (wall time: a loaded machine delays ticks)
			for c == nil && !closed {
				idle.Reset(t.SegmentIdle)
				select {
				case c = <-prepped:
					closed = c == nil
				case <-idle.C:
					// A slow source: let a waiting writer in, or write
					// what there is once the source has stalled for long.
					if st.n.waiting.Load() > 0 || time.Since(stalled) >= t.SegmentStall {
						closed = true
					}
				case <-ctx.Done():
					st.abortSegment()
					sg.Reset()
					return ctx.Err()
				}
			}
			if c == nil {
				break // the source ended, or a writer is waiting
			}
			if c.err != nil {
				res.Read += int64(c.read)
				srcErr, ended = c.err, true
				break
			}
			res.Read += int64(c.read)
		}
		if err := st.endSegment(ctx, &sg, res); err != nil {
			return fmt.Errorf("namespace %s: write: %w", st.n.name, err)
		}
		if srcErr != nil || ended {
			return srcErr
		}
	}
}

// beginSegment takes the namespace's write lock, reads its meta entries and
// brings the import's knowledge up to date.
func (st *bulkState) beginSegment(ctx context.Context) error {
	n := st.n
	if err := n.lockWriteCtx(ctx); err != nil {
		return err
	}
	err := ctx.Err()
	if err == nil {
		err = n.s.checkOpen()
	}
	if err == nil && n.s.opts.readOnly {
		err = fmt.Errorf("namespace %s: %w", n.name, ErrReadOnly)
	}
	if err != nil {
		n.wmu.Unlock()
		return err
	}
	tx, err := st.readTxn(ctx)
	if err != nil {
		n.wmu.Unlock()
		return err
	}
	meta, err := tx.GetBatch(ctx, []hkv.Key{layout.Horizon, layout.Size})
	tx.end()
	var horizon, size int64
	if err == nil {
		horizon, err = metaInt(meta[0])
	}
	if err == nil {
		size, err = metaInt(meta[1])
	}
	if err != nil {
		st.abortSegment()
		return fmt.Errorf("namespace %s: read meta: %w", n.name, err)
	}
	st.sync(uint64(horizon))
	st.horizon, st.size = horizon, size
	// Other importers' knowledge is stale from now on.
	n.writeGen++
	st.writeGen = n.writeGen
	st.exact = make(map[[4]uint64]struct{})
	st.segOld = make(map[refs.ValueHash]int64)
	st.segHorizon, st.segSize = horizon, size
	return nil
}

// readTxn returns a read transaction of the namespace through the store's
// gate. A segment reads through a new one for each chunk rather than one for
// the whole segment, which may take many seconds to fill: a transaction held
// that long would keep other namespaces' streamed segments and journaled
// deltas from taking the gate. Nobody else writes the namespace while the
// import holds its write lock, so every chunk sees the same state.
func (st *bulkState) readTxn(ctx context.Context) (*bulkTxn, error) {
	t, err := st.n.view.NewGatedTxn(ctx, false)
	if err != nil {
		return nil, err
	}
	return &bulkTxn{txn: t, end: t.End, prefix: st.prefix}, nil
}

// abortSegment gives up the current segment: nothing of it is written.
func (st *bulkState) abortSegment() {
	st.forget()
	st.n.wmu.Unlock()
}

// segmentFull reports whether the segment must end: when what the import
// remembers has reached its bounds. When the writes the segment holds in
// memory reach the store's budget, they are spilled to a sorted run file
// (package sorted) and the segment goes on.
func (st *bulkState) segmentFull(sg *sorted.Segment) (bool, error) {
	s := st.n.s
	if t := &s.tune; len(st.nodes) > t.ImportMaxNodes || len(st.quads) > t.ImportMaxQuads || len(st.exact) > t.SegmentMaxQuads {
		return true, nil
	}
	mem := sg.Memory()
	if h := &s.opts.hooks; h.segmentBytes > 0 && mem >= h.segmentBytes {
		return true, nil
	}
	spillAt := s.opts.importSegmentBytes()
	if h := &s.opts.hooks; h.spillBytes > 0 {
		spillAt = min(spillAt, h.spillBytes)
	}
	if mem < spillAt {
		return false, nil
	}
	// A spilled segment can only be streamed. End the segment instead when
	// it has many runs (each an open file and a read buffer in the merge).
	// (Level-0 tables do not end it: the flush before a stream compacts them
	// away, see stream.go. Ending segments early because of them made many
	// small segments, each another level-0 compaction, in large stores.)
	if err := s.waitSpill(sg); err != nil {
		return false, err
	}
	if len(sg.Runs) >= s.tune.SegmentMaxRuns {
		return true, nil
	}
	// The run, and later the segment's tables (about the size of its runs),
	// must fit beside the reserve (diskspace.go).
	if err := st.n.s.checkSpace("import segment", 2*sg.Bytes+sg.Spilled); err != nil {
		return false, err
	}
	s.spillAsync(sg, len(st.prefix))
	return false, nil
}

// accumulate computes the writes of quads qs of chunk c (count source quads)
// and adds them to the segment, halving the chunk if its writes would not fit
// in one Badger transaction (so that the segment can always be committed
// chunk by chunk).
func (st *bulkState) accumulate(ctx context.Context, c *prepChunk, qs []prepQuad, count int, sg *sorted.Segment) error {
	return st.inPieces(qs, count, false, func(qs []prepQuad, count int, _ bool) error {
		return st.accumulatePiece(ctx, c, qs, count, sg)
	})
}

// accumulatePiece adds the writes of qs to sg, or returns errChunkTooBig,
// having added nothing, if they would not fit in one transaction (which
// commitChunks needs should the segment not be streamed).
func (st *bulkState) accumulatePiece(ctx context.Context, c *prepChunk, qs []prepQuad, count int, sg *sorted.Segment) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := st.n.s.checkOpen(); err != nil {
		return err
	}
	w := &st.works[0]
	tx, err := st.readTxn(ctx)
	if err != nil {
		return err
	}
	err = st.fill(ctx, tx, w, c, qs, nil)
	tx.end()
	if err != nil {
		return err
	}
	st.horizon, st.size = w.horizon, w.size
	st.merge(w, c, qs)
	p := w.puts
	p.Scratch = nil
	sg.Add(&p, count, len(w.ins))
	st.n.s.counters.accumulated.Add(1)
	// The next chunk's writes are about as large as these (not as their
	// buffers' capacity, which a larger piece refused before may have left;
	// inPieces).
	w.puts = sorted.PutBuf{Prefix: st.prefix, Data: make([]byte, 0, len(p.Data)+len(p.Data)/8), Entries: make([]sorted.PutEntry, 0, len(p.Entries)+len(p.Entries)/8)}
	return nil
}

// endSegment writes the segment, releases the write lock and reports the
// committed quads in res.
func (st *bulkState) endSegment(ctx context.Context, sg *sorted.Segment, res *ImportResult) error {
	n := st.n
	defer sg.Reset()
	defer n.wmu.Unlock()
	if err := st.n.s.waitSpill(sg); err != nil {
		st.forget()
		return err
	}
	if len(sg.Chunks) == 0 && len(sg.Runs) == 0 {
		return nil
	}
	n.writeGen++
	st.writeGen = n.writeGen
	st.exact = nil // not needed to write the segment, and large
	err := n.s.streamSegment(ctx, st.prefix, sg, st.undoEntries)
	switch {
	case err == nil:
		st.n.s.counters.streamed.Add(1)
		res.Chunks++
		for _, c := range sg.Counts {
			res.Committed += int64(c)
		}
		if st.progress != nil {
			st.progress(res.Committed)
		}
	case errors.Is(err, errStreamDeclined) && len(sg.Runs) > 0:
		// Never: only a segment that did not spill is declined (its
		// chunks are all in memory, as commitChunks needs).
		err = errors.New("internal error: a spilled segment was declined")
	case errors.Is(err, errStreamDeclined):
		err = st.commitChunks(ctx, sg, res)
	}
	if err != nil {
		st.forget()
		return err
	}
	st.exact = nil
	// Quads of this segment are now in the store and no longer in exact:
	// make their ids non-private, so that later segments check the store.
	st.knownAll = false
	st.resync = true
	if t := &st.n.s.tune; len(st.nodes) > t.ImportMaxNodes || len(st.keys) > t.ImportMaxKeys || len(st.quads) > t.ImportMaxQuads {
		st.forget()
	}
	return nil
}

// undoEntries returns the previous values of the keys the segment overwrites
// (see stream.go): the meta entries and the counts of the nodes it did not
// create. Every other key it writes is new.
func (st *bulkState) undoEntries() []undoEntry {
	out := make([]undoEntry, 0, len(st.segOld)+2)
	key := func(k hkv.Key) []byte { return layout.Escape(slices.Clone(st.prefix), k) }
	meta := func(k hkv.Key, v int64) {
		if v == 0 {
			out = append(out, undoEntry{key: key(k)}) // absent reads as 0
			return
		}
		out = append(out, undoEntry{key: key(k), val: binary.LittleEndian.AppendUint64(nil, uint64(v)), present: true})
	}
	meta(layout.Horizon, st.segHorizon)
	meta(layout.Size, st.segSize)
	for h, old := range st.segOld {
		out = append(out, undoEntry{key: key(layout.Node('n', h)), val: binary.AppendUvarint(nil, uint64(old)), present: true})
	}
	return out
}

// commitChunks writes the chunks of a segment one transaction each, in order:
// chunk k+1 is staged while chunk k commits, and committed only once chunk k
// has been.
func (st *bulkState) commitChunks(ctx context.Context, sg *sorted.Segment, res *ImportResult) error {
	var prev chan error
	prevCount := 0
	wait := func() error {
		if prev == nil {
			return nil
		}
		err := <-prev
		prev = nil
		if err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		res.Chunks++
		res.Committed += int64(prevCount)
		if st.progress != nil {
			st.progress(res.Committed)
		}
		return nil
	}
	for i, p := range sg.Chunks {
		txn, err := st.n.view.NewGatedTxn(ctx, true)
		if err != nil {
			return errors.Join(err, wait())
		}
		for _, e := range p.Entries {
			if err := txn.Set(p.Data[e.K0:e.K1:e.K1], p.Data[e.V0:e.V1:e.V1]); err != nil {
				txn.End()
				return errors.Join(fmt.Errorf("write: %w", err), wait())
			}
		}
		if err := wait(); err != nil {
			txn.End()
			return err
		}
		done := make(chan error, 1)
		txn.CommitWith(func(err error) { done <- st.n.s.checkCommit(err) })
		prev, prevCount = done, sg.Counts[i]
	}
	return wait()
}

// spillAsync spills the in-memory writes of sg to a run file in the store
// directory on another goroutine (segment.spillAsync), running the test
// hook of spills first.
func (s *Store) spillAsync(sg *sorted.Segment, prefixLen int) {
	var hook func() error
	if h := s.opts.hooks.spill; h != nil {
		detached := s.counters.accumulated.Load()
		hook = func() error { return h(detached) }
	}
	sg.SpillAsync(s.dir, prefixLen, hook)
}

// waitSpill waits for the spill of sg in flight, if any (segment.waitSpill),
// and counts the run it added.
func (s *Store) waitSpill(sg *sorted.Segment) error {
	added, err := sg.WaitSpill()
	if added {
		s.counters.spilled.Add(1)
	}
	return err
}
