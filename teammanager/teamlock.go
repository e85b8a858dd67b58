package teammanager

import (
	"context"
	"sync"
)

// teamLocks holds one mutex per team id: the locks of two teams never
// wait for each other (a fixed array of mutexes hashed by id made teams
// that shared a slot wait for each other's merges; with 16 teams in 64
// slots, most hosts had such a pair). A team's entry lives while a caller
// holds or waits for its lock.
type teamLocks struct {
	mu sync.Mutex
	m  map[string]*teamLockEntry
}

type teamLockEntry struct {
	// held has room for one token: sending it locks, receiving it
	// unlocks. A channel, not a sync.Mutex, so that a wait can end with
	// its context (LockContext).
	held chan struct{}
	refs int // handles given out and not yet done with
}

// teamLock is a handle on a team's mutex (teamLocks.get): the caller calls
// Lock, LockContext or TryLock once, and Unlock after one that succeeded.
type teamLock struct {
	l   *teamLocks
	id  string
	ent *teamLockEntry
}

// get returns a handle on team id's mutex.
func (l *teamLocks) get(id string) teamLock {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string]*teamLockEntry{}
	}
	e := l.m[id]
	if e == nil {
		e = &teamLockEntry{held: make(chan struct{}, 1)}
		l.m[id] = e
	}
	e.refs++
	return teamLock{l: l, id: id, ent: e}
}

// done gives the handle's reference back.
func (h teamLock) done() {
	h.l.mu.Lock()
	defer h.l.mu.Unlock()
	if h.ent.refs--; h.ent.refs == 0 {
		delete(h.l.m, h.id)
	}
}

// Lock locks the team's mutex.
func (h teamLock) Lock() { h.ent.held <- struct{}{} }

// LockContext locks the team's mutex, or returns ctx's error if ctx ends
// first; then the handle is done with (no Unlock).
func (h teamLock) LockContext(ctx context.Context) error {
	select {
	case h.ent.held <- struct{}{}:
		return nil
	case <-ctx.Done():
		h.done()
		return ctx.Err()
	}
}

// TryLock locks the team's mutex if it is free; if not, the handle is done
// with (no Unlock).
func (h teamLock) TryLock() bool {
	select {
	case h.ent.held <- struct{}{}:
		return true
	default:
		h.done()
		return false
	}
}

// Unlock unlocks the team's mutex; the handle is done with.
func (h teamLock) Unlock() {
	<-h.ent.held
	h.done()
}
