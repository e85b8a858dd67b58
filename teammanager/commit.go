package teammanager

import (
	"context"
	"errors"
	"iter"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
)

// Group commit of findings and member updates.
//
// Every AddFinding and UpdateMemberStatus is a durable write, and an agent
// host has many agents adding findings at once, and its agents finish
// together. Writes of a namespace are serialised by the store, and each
// would wait for its own fsync, so the findings and member updates of
// concurrent callers are gathered and written together: one store Update
// (one commit, one fsync) for every call queued while the previous one
// committed. Each call is still checked on its own (its team and member
// may add findings, its member may move to its status) and fails or
// succeeds on its own; a batch reads each of its teams' state once (and
// again for a member update, with its member in focus). The calls of a
// batch take effect in their queue order, as if written one after the
// other: a finding queued after its member's completion is refused. A
// batch holds at most one member update per team: the board changes of a
// member that finishes read the board as committed. Nothing else changes
// for a caller: the call returns when its write is committed (an automatic
// merge the update makes due runs after, in the caller's goroutine), and a
// batch is all or nothing on disk, so a crash keeps every call
// acknowledged before it and loses only calls that had not returned.

// findingsBatchQuads bounds the quads of one batch so that it stays one
// store transaction (cortex.MaxDeltaQuads, counting the batch's side-table
// rows: team rows, events and the events retention trims; larger deltas
// are journaled and hold the store's other writes back). Half leaves room
// for those; 2,048 quads are 256 findings, more than 64 concurrent agents
// queue while a batch commits. A call larger than that is a batch of its
// own.
const findingsBatchQuads = cortex.MaxDeltaQuads / 2

// groupedWrite is one call's findings, or its member update, waiting for a
// batch.
type groupedWrite struct {
	ctx         context.Context
	team, agent string
	qs          []quad.Quad
	pins        []quad.Value
	found       []StoredFinding // the findings of qs, for their event
	update      *memberChange   // not nil: a member update (qs is empty)

	done     chan struct{} // closed when the fields below are set
	st       *teamState    // the team as the batch read it (nil if unread)
	timedOut bool          // the batch recorded the team's timeout
	err      error
}

// committer queues findings writes for the batch that runs next.
type committer struct {
	mu      sync.Mutex
	queue   []*groupedWrite
	running bool  // a goroutine is writing batches (runBatches)
	batches int64 // batches taken so far (for tests)

	// teams holds the teams the last batch read, as it left them; only the
	// goroutine writing batches uses it (see teamCache).
	teams teamCache
	// teamReads counts the teams batches read from the store (for tests).
	teamReads atomic.Int64
}

// teamCache keeps, from one findings batch to the next, the state of the
// teams the batch read. A batch reads each of its teams' state graph under
// the namespace's write lock (a few scans a team, up to one team per
// writer): with many teams and small batches that was most of the batch's
// own work. The state a batch read is still the team's state after the
// batch when the batch did not change it (it only adds findings, in the
// members' graphs, and side-table rows), so the next batch may use it as
// long as nothing else has written the namespace: the namespace's write
// generation (cortex.Tx.Generation) is then exactly one more than the
// generation the batch found. Any other write (a member update, a merge,
// another Manager's batch, an import) advances it further, and the next
// batch reads every team again. A batch that fails, or that changes a
// team's state (it records the team's timeout), leaves the cache empty or
// without that team.
//
// The cache is used only by the goroutine that writes batches (runBatches;
// one at a time, handed over under committer.mu), and only inside the
// batch's Update and right after it: it needs no lock of its own. Its
// states are never handed out: a batch works on copies.
type teamCache struct {
	gen    uint64                // the generation at which states is exact
	states map[string]*teamState // nil or empty: nothing cached
}

// teamCacheMax bounds the teams of a cache; past it, the cache starts over.
const teamCacheMax = 1 << 10

// at returns the cached teams if they are exact at generation gen, else
// nil (and empties the cache).
func (c *teamCache) at(gen uint64) map[string]*teamState {
	if c.states != nil && c.gen == gen {
		return c.states
	}
	c.states = nil
	return nil
}

// committed records the outcome of a batch that found generation gen and
// staged a write (wrote) or not. If it committed one (err nil, wrote: the
// generation is now gen+1), the teams of kept, as the batch left them, join
// the cache (as copies; a nil state: the batch changed the team, which is
// forgotten), whose other teams the batch did not touch. If it staged
// nothing, nothing changed: the cache stays as at(gen) left it. If it
// failed, the cache is emptied.
func (c *teamCache) committed(gen uint64, err error, wrote bool, kept iter.Seq2[string, *teamState]) {
	if err != nil {
		c.states = nil
		return
	}
	if !wrote {
		return
	}
	if c.states == nil || c.gen != gen || len(c.states) >= teamCacheMax {
		c.states = map[string]*teamState{}
	}
	for id, st := range kept {
		if st == nil {
			delete(c.states, id)
		} else {
			c.states[id] = st.clone()
		}
	}
	c.gen = gen + 1
}

// memberUpdateQuads is what a member update counts for against
// findingsBatchQuads: its state changes and board rows are a few quads.
const memberUpdateQuads = 64

// weight is what w counts for against findingsBatchQuads.
func (w *groupedWrite) weight() int {
	if w.update != nil {
		return memberUpdateQuads
	}
	return len(w.qs)
}

// updateFailed is the error of a member update that failed once it had
// started staging: its batch is abandoned (see writeBatch).
type updateFailed struct{ err error }

func (e *updateFailed) Error() string { return e.err.Error() }
func (e *updateFailed) Unwrap() error { return e.err }

// writeGrouped queues w, waits for the batch that writes it and
// returns what write would: the team's state as read, whether the team's
// timeout was recorded instead, and the call's own error or the batch's.
// If ctx ends while w is still queued, w is withdrawn and nothing of it is
// written; once its batch has started, the call waits for the commit.
func (m *Manager) writeGrouped(w *groupedWrite) (*teamState, bool, error) {
	if err := w.ctx.Err(); err != nil {
		return nil, false, err
	}
	w.done = make(chan struct{})
	c := &m.commits
	c.mu.Lock()
	c.queue = append(c.queue, w)
	if !c.running {
		c.running = true
		go m.runBatches()
	}
	c.mu.Unlock()
	select {
	case <-w.done:
	case <-w.ctx.Done():
		c.mu.Lock()
		for i, q := range c.queue {
			if q == w {
				c.queue = append(c.queue[:i], c.queue[i+1:]...)
				c.mu.Unlock()
				return nil, false, w.ctx.Err()
			}
		}
		c.mu.Unlock()
		<-w.done // taken by a batch: its outcome is the call's
	}
	return w.st, w.timedOut, w.err
}

// runBatches writes batches until the queue is empty.
func (m *Manager) runBatches() {
	c := &m.commits
	for {
		c.mu.Lock()
		if len(c.queue) == 0 {
			c.running = false
			c.mu.Unlock()
			return
		}
		n, quads := 1, c.queue[0].weight()
		updated := map[string]bool{} // the teams of the batch's member updates
		if c.queue[0].update != nil {
			updated[c.queue[0].team] = true
		}
		for ; n < len(c.queue) && quads+c.queue[n].weight() <= findingsBatchQuads; n++ {
			w := c.queue[n]
			if w.update != nil {
				if updated[w.team] {
					break // its team's second: the next batch's
				}
				updated[w.team] = true
			}
			quads += w.weight()
		}
		c.batches++
		batch := make([]*groupedWrite, n)
		copy(batch, c.queue)
		c.queue = append(c.queue[:0], c.queue[n:]...)
		c.mu.Unlock()
		m.writeBatch(batch)
		for _, w := range batch {
			close(w.done)
		}
	}
}

// writeBatch writes the findings and member updates of batch in one
// Update, each call checked against its team's state as the calls before
// it in the batch left it. If the store refuses the quads of one call
// (cortex.ErrInvalidQuad), or a member update fails once it has started
// staging its changes (a read error of its board), each call is written on
// its own. The context of the write is the first call's, without its
// cancellation: the calls of a batch wait for its commit.
func (m *Manager) writeBatch(batch []*groupedWrite) {
	b := &batchWrite{m: m, ctx: context.WithoutCancel(batch[0].ctx), teams: map[string]*teamRead{}}
	var gen uint64
	err := m.commit(b.ctx, func(tx *cortex.Tx) error {
		gen = tx.Generation()
		b.start(tx, m.commits.teams.at(gen))
		for _, w := range batch {
			if err := b.stage(w); err != nil {
				return err
			}
		}
		return b.finish()
	})
	m.afterBatch(batch, b, gen, err)
}

// batchWrite is one batch's Update in progress (writeBatch): the teams it
// read and the events of its calls, in their order.
type batchWrite struct {
	m   *Manager
	ctx context.Context
	tx  *cortex.Tx
	ds  cortex.Dataset
	now time.Time
	// cached is the teams the previous batch left (teamCache), teams the
	// teams this one read, in order (each gets its table row).
	cached map[string]*teamState
	teams  map[string]*teamRead
	order  []string
	slots  []batchSlot
	found  map[author][]StoredFinding
}

// teamRead is a team as a batch read it.
type teamRead struct {
	st       *teamState
	timedOut bool // the batch records the team's timeout
	err      error
}

// author is a member adding findings.
type author struct{ team, agent string }

// batchSlot is a call's place among the batch's events: an author's
// findings (the first of its calls) or a member update's events.
type batchSlot struct {
	author *author
	events []Event
}

// start begins b in the Update of tx.
func (b *batchWrite) start(tx *cortex.Tx, cached map[string]*teamState) {
	b.tx, b.ds, b.now, b.cached = tx, tx.Namespace().Dataset(), b.m.now(), cached
	clear(b.teams)
	b.order, b.slots, b.found = nil, nil, map[author][]StoredFinding{}
}

// stage checks call w against its team's state and stages it: its
// findings, or its member update. A call that fails its checks fails alone
// (w.err); the error returned, an updateFailed, abandons the batch.
func (b *batchWrite) stage(w *groupedWrite) error {
	r, own, err := b.teamFor(w)
	w.st, w.timedOut, w.err = nil, false, err
	if err != nil {
		return nil
	}
	w.st, w.timedOut = r.st, r.timedOut
	if own != nil {
		w.st = own
	}
	if r.timedOut {
		return nil
	}
	if w.update != nil {
		if err := checkMemberChange(r.st, w.team, w.agent, w.update); err != nil {
			w.err = err
			return nil
		}
		before, staged := r.st.team.Status, len(r.st.events)
		if err := b.m.applyMemberChange(b.ctx, b.tx, r.st, w.agent, w.update, b.now); err != nil {
			return &updateFailed{err}
		}
		evs := slices.Clone(r.st.events[staged:])
		if r.st.team.Status != before {
			evs = append(evs, statusEvent(&r.st.team))
		}
		b.slots = append(b.slots, batchSlot{events: evs})
		return nil
	}
	if err := checkCanAssert(r.st, w.team, w.agent); err != nil {
		w.err = err
		return nil
	}
	b.tx.Add(w.qs...)
	b.tx.Pin(w.pins...)
	a := author{w.team, w.agent}
	if _, ok := b.found[a]; !ok {
		b.slots = append(b.slots, batchSlot{author: &a})
	}
	b.found[a] = append(b.found[a], w.found...)
	return nil
}

// teamFor returns the state of w's team that w is checked against: the
// batch's read of the team (r), or, for a member update of a team whose
// timeout the batch records, a state of its own (own) that stages nothing.
// An error is w's alone (the team's read failed, or its member's).
func (b *batchWrite) teamFor(w *groupedWrite) (r *teamRead, own *teamState, err error) {
	m, c := b.m, &b.m.commits
	r = b.teams[w.team]
	switch {
	case r == nil:
		r = &teamRead{}
		focus := "-"
		if w.update != nil {
			focus = w.agent
		}
		if st, ok := b.cached[w.team]; ok && w.update == nil {
			r.st = st.clone()
		} else {
			r.st, r.err = m.readTeam(b.ctx, b.ds, w.team, focus)
			c.teamReads.Add(1)
		}
		if r.err == nil {
			r.timedOut = m.persistTimeout(r.st, b.now)
			b.order = append(b.order, w.team)
		}
		b.teams[w.team] = r
	case w.update != nil && r.err == nil && !r.timedOut:
		// Read again with the member in focus (its result and
		// completion time are replaced). The state read before has
		// staged nothing: only a timeout or a member update stages,
		// and a batch holds one update per team.
		st, err := m.readTeam(b.ctx, b.ds, w.team, w.agent)
		c.teamReads.Add(1)
		if err != nil {
			// The member's own state is unreadable (the read
			// before did not read it in full): the call fails.
			return nil, nil, err
		}
		r.st = st
	case w.update != nil && r.err == nil:
		// The team timed out, which r.st has staged: the update
		// gets the team as the timeout leaves it, read with its
		// member in full (as written alone), and stages nothing.
		st, err := m.readTeam(b.ctx, b.ds, w.team, w.agent)
		c.teamReads.Add(1)
		if err != nil {
			return nil, nil, err
		}
		m.persistTimeout(st, b.now)
		own = st
	}
	return r, own, r.err
}

// finish stages the table row of every team b read, and the batch's
// events in their calls' order.
func (b *batchWrite) finish() error {
	m, tx := b.m, b.tx
	var evs []Event
	for _, id := range b.order {
		st := b.teams[id].st
		tx.Remove(st.rm...)
		tx.Add(st.add...)
		m.pinTeam(tx, id, st.add)
		m.putTeamRow(tx, id, st.props[st.node])
		if b.teams[id].timedOut {
			evs = append(evs, statusEvent(&st.team))
		}
	}
	for _, sl := range b.slots {
		if sl.author != nil {
			evs = append(evs, findingsEvents(sl.author.team, sl.author.agent, b.found[*sl.author])...)
		} else {
			evs = append(evs, sl.events...)
		}
	}
	return m.stageEvents(b.ctx, tx, b.now, evs)
}

// afterBatch settles the calls of batch once its Update returned err: on
// an error one call caused, each call is written on its own; otherwise the
// teams are kept for the next batch and each call gets its outcome.
func (m *Manager) afterBatch(batch []*groupedWrite, b *batchWrite, gen uint64, err error) {
	c := &m.commits
	teams, order := b.teams, b.order
	var uf *updateFailed
	if errors.As(err, &uf) {
		err = uf.err
	}
	if len(batch) > 1 && (uf != nil || errors.Is(err, cortex.ErrInvalidQuad) || errors.Is(err, cortex.ErrInvalidArgument)) {
		// The store refused one call's quads or its event's row (a term
		// or a finding too large for an in-memory store, which
		// normFinding cannot know), or a member update failed with its
		// changes half staged: that call fails, not the others. Nothing
		// was written; write each call on its own.
		c.teams.committed(gen, err, false, nil)
		for _, w := range batch {
			m.writeBatch([]*groupedWrite{w})
		}
		return
	}
	// Keep the teams as the batch left them for the next batch (teamCache).
	// A batch that read a team wrote (the team's table row, at least).
	c.teams.committed(gen, err, len(order) > 0, func(yield func(string, *teamState) bool) {
		for _, id := range order {
			st := teams[id].st
			if teams[id].timedOut || len(st.rm) > 0 || len(st.add) > 0 {
				st = nil // changed by the batch
			}
			if !yield(id, st) {
				return
			}
		}
	})
	shared := map[*teamState]bool{}
	for _, w := range batch {
		switch {
		case err != nil && w.err == nil:
			// The batch failed: nothing of it was written.
			w.err, w.timedOut = err, false
		case w.st != nil && shared[w.st]:
			// Each call gets its own copy: the caller may change it.
			cp := *w.st
			w.st = &cp
		case w.st != nil:
			shared[w.st] = true
		}
	}
}
