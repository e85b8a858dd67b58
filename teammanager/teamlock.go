package teammanager

import "sync"

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
	mu   sync.Mutex
	refs int // handles given out and not yet done with
}

// teamLock is a handle on a team's mutex (teamLocks.get): the caller calls
// Lock, or TryLock, once, and Unlock after a Lock or a TryLock that
// succeeded.
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
		e = &teamLockEntry{}
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
func (h teamLock) Lock() { h.ent.mu.Lock() }

// TryLock locks the team's mutex if it is free; if not, the handle is done
// with (no Unlock).
func (h teamLock) TryLock() bool {
	if h.ent.mu.TryLock() {
		return true
	}
	h.done()
	return false
}

// Unlock unlocks the team's mutex; the handle is done with.
func (h teamLock) Unlock() {
	h.ent.mu.Unlock()
	h.done()
}
