package teammanager

import (
	"context"
	"sync"

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
// against its team's state. The context of the write is the first call's,
// without its cancellation: the calls of a batch wait for its commit.
func (m *Manager) writeBatch(batch []*findingsWrite) {
	ctx := context.WithoutCancel(batch[0].ctx)
	err := m.commit(ctx, func(tx *cortex.Tx) error {
		type teamRead struct {
			st       *teamState
			timedOut bool
			err      error
		}
		teams := map[string]*teamRead{}
		var order []string
		type author struct{ team, agent string }
		var authors []author
		found := map[author][]StoredFinding{}
		now := m.now()
		for _, w := range batch {
			r := teams[w.team]
			if r == nil {
				r = &teamRead{}
				r.st, r.err = m.readTeam(ctx, tx.Namespace().Dataset(), w.team, "-")
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
