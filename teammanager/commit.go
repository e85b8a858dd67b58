package teammanager

import (
	"context"
	"errors"
	"iter"
	"sync"
	"sync/atomic"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
)

// Group commit of findings.
//
// Every AddFinding is a durable write, and an agent host has many agents
// adding findings at once. Writes of a namespace are serialised by the
// store, and each would wait for its own fsync, so findings from
// concurrent callers are gathered and written together: one store Update
// (one commit, one fsync) for every call queued while the previous one
// committed. Each call is still checked on its own (its team and member
// may add findings) and fails or succeeds on its own; a batch reads each of
// its teams' state once. Nothing else changes for a caller: AddFinding
// returns when its findings are committed, and a batch is all or nothing
// on disk, so a crash keeps every call acknowledged before it and loses
// only calls that had not returned.

// findingsBatchQuads bounds the quads of one batch so that it stays one
// store transaction (cortex.MaxDeltaQuads, counting the batch's side-table
// rows: team rows, events and the events retention trims; larger deltas
// are journaled and hold the store's other writes back). Half leaves room
// for those; 2,048 quads are 256 findings, more than 64 concurrent agents
// queue while a batch commits. A call larger than that is a batch of its
// own.
const findingsBatchQuads = cortex.MaxDeltaQuads / 2

// findingsWrite is one call's findings, waiting for a batch.
type findingsWrite struct {
	ctx         context.Context
	team, agent string
	qs          []quad.Quad
	pins        []quad.Value
	found       []StoredFinding // the findings of qs, for their event

	done     chan struct{} // closed when the fields below are set
	st       *teamState    // the team as the batch read it (nil if unread)
	timedOut bool          // the batch recorded the team's timeout
	err      error
}

// committer queues findings writes for the batch that runs next.
type committer struct {
	mu      sync.Mutex
	queue   []*findingsWrite
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

// writeFindingsGrouped queues w, waits for the batch that writes it and
// returns what write would: the team's state as read, whether the team's
// timeout was recorded instead, and the call's own error or the batch's.
// If ctx ends while w is still queued, w is withdrawn and nothing of it is
// written; once its batch has started, the call waits for the commit.
func (m *Manager) writeFindingsGrouped(w *findingsWrite) (*teamState, bool, error) {
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
		n, quads := 1, len(c.queue[0].qs)
		for n < len(c.queue) && quads+len(c.queue[n].qs) <= findingsBatchQuads {
			quads += len(c.queue[n].qs)
			n++
		}
		c.batches++
		batch := make([]*findingsWrite, n)
		copy(batch, c.queue)
		c.queue = append(c.queue[:0], c.queue[n:]...)
		c.mu.Unlock()
		m.writeBatch(batch)
		for _, w := range batch {
			close(w.done)
		}
	}
}

// writeBatch writes the findings of batch in one Update, each call checked
// against its team's state. If the store refuses the quads of one call
// (cortex.ErrInvalidQuad), each call is written on its own. The context of the write is the first call's,
// without its cancellation: the calls of a batch wait for its commit.
func (m *Manager) writeBatch(batch []*findingsWrite) {
	ctx := context.WithoutCancel(batch[0].ctx)
	c := &m.commits
	type teamRead struct {
		st       *teamState
		timedOut bool
		err      error
	}
	teams := map[string]*teamRead{}
	var (
		gen   uint64
		order []string // the teams read, in order: each gets its table row
	)
	err := m.commit(ctx, func(tx *cortex.Tx) error {
		gen = tx.Generation()
		cached := c.teams.at(gen)
		type author struct{ team, agent string }
		var authors []author
		found := map[author][]StoredFinding{}
		now := m.now()
		for _, w := range batch {
			r := teams[w.team]
			if r == nil {
				r = &teamRead{}
				if st, ok := cached[w.team]; ok {
					r.st = st.clone()
				} else {
					r.st, r.err = m.readTeam(ctx, tx.Namespace().Dataset(), w.team, "-")
					c.teamReads.Add(1)
				}
				if r.err == nil {
					r.timedOut = m.persistTimeout(r.st, now)
					order = append(order, w.team)
				}
				teams[w.team] = r
			}
			w.st, w.timedOut, w.err = nil, false, r.err
			if r.err != nil {
				continue
			}
			w.st, w.timedOut = r.st, r.timedOut
			if r.timedOut {
				continue
			}
			if err := checkCanAssert(r.st, w.team, w.agent); err != nil {
				w.err = err
				continue
			}
			tx.Add(w.qs...)
			tx.Pin(w.pins...)
			a := author{w.team, w.agent}
			if _, ok := found[a]; !ok {
				authors = append(authors, a)
			}
			found[a] = append(found[a], w.found...)
		}
		var evs []Event
		for _, id := range order {
			st := teams[id].st
			tx.Remove(st.rm...)
			tx.Add(st.add...)
			m.pinTeam(tx, id, st.add)
			m.putTeamRow(tx, id, st.props[st.node])
			if teams[id].timedOut {
				evs = append(evs, statusEvent(&st.team))
			}
		}
		for _, a := range authors {
			evs = append(evs, findingsEvents(a.team, a.agent, found[a])...)
		}
		return m.stageEvents(ctx, tx, now, evs)
	})
	if len(batch) > 1 && (errors.Is(err, cortex.ErrInvalidQuad) || errors.Is(err, cortex.ErrInvalidArgument)) {
		// The store refused one call's quads or its event's row (a term
		// or a finding too large for an in-memory store, which
		// normFinding cannot know): that call fails, not the others.
		// Nothing was written; write each call on its own.
		c.teams.committed(gen, err, false, nil)
		for _, w := range batch {
			m.writeBatch([]*findingsWrite{w})
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
