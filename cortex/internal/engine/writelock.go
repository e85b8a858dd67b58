package engine

import (
	"context"
	"sync/atomic"
	"time"
)

// writeLock is a namespace's write lock (Namespace.wmu): a mutex whose
// waiters may give up when their context ends (LockCtx), so that a write
// with a deadline does not wait past it behind a long one (an import
// segment, a journaled delta). Waiters take it in the order they came.
// It counts its acquisitions and the time spent waiting for it and
// holding it (lockStats). The zero value is not usable: newWriteLock.
type writeLock struct {
	ch chan struct{}
	st *lockStats
}

// lockStats are a writeLock's counters. The atomics may be read at any
// time; since belongs to the holder (written when it takes the lock, read
// when it releases it: the lock's channel orders the two).
type lockStats struct {
	acquired atomic.Int64 // acquisitions
	waited   atomic.Int64 // acquisitions that had to wait
	waitNs   atomic.Int64 // time spent waiting by them
	heldNs   atomic.Int64 // time the lock was held, over every release
	since    time.Time    // when the holder took it
}

func newWriteLock() writeLock { return writeLock{ch: make(chan struct{}, 1), st: &lockStats{}} }

// taken records an acquisition that started waiting at start (zero: it
// did not wait).
func (l writeLock) taken(start time.Time) {
	now := time.Now()
	l.st.acquired.Add(1)
	if !start.IsZero() {
		l.st.waited.Add(1)
		l.st.waitNs.Add(int64(now.Sub(start)))
	}
	l.st.since = now
}

// Lock takes the lock, waiting as long as it takes.
func (l writeLock) Lock() {
	if l.TryLock() {
		return
	}
	start := time.Now()
	l.ch <- struct{}{}
	l.taken(start)
}

// TryLock takes the lock if it is free, without waiting.
func (l writeLock) TryLock() bool {
	select {
	case l.ch <- struct{}{}:
		l.taken(time.Time{})
		return true
	default:
		return false
	}
}

// peek takes the lock if it is free, without waiting and without counting
// it: for a reader that looks at what the lock guards (currentGen), which
// is no writer. It is released by unpeek, never by Unlock.
func (l writeLock) peek() bool {
	select {
	case l.ch <- struct{}{}:
		return true
	default:
		return false
	}
}

// unpeek releases a lock taken by peek.
func (l writeLock) unpeek() {
	select {
	case <-l.ch:
	default:
		panic("cortex: unpeek of an unlocked namespace write lock")
	}
}

// LockCtx takes the lock, or fails with ctx's error if ctx ends first (a
// free lock is taken even if ctx has ended: the caller checks ctx next).
// A wait given up counts as no acquisition; its time is not counted.
func (l writeLock) LockCtx(ctx context.Context) error {
	if l.TryLock() {
		return nil
	}
	start := time.Now()
	select {
	case l.ch <- struct{}{}:
		l.taken(start)
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Unlock releases the lock; releasing a free lock panics, as with
// sync.Mutex.
func (l writeLock) Unlock() {
	held := time.Since(l.st.since)
	select {
	case <-l.ch:
		l.st.heldNs.Add(int64(held))
	default:
		panic("cortex: unlock of an unlocked namespace write lock")
	}
}

// writeCounts count a namespace's committed deltas (WriteStats); written
// under its write lock, read at any time.
type writeCounts struct {
	deltas, journaled, quads, entries atomic.Int64
}

func (c *writeCounts) add(quads int, entries int64, journaled bool) {
	c.deltas.Add(1)
	if journaled {
		c.journaled.Add(1)
	}
	c.quads.Add(int64(quads))
	c.entries.Add(entries)
}

// WriteStats are a namespace's write counters since the store opened it;
// cortex.WriteStats documents the fields.
type WriteStats struct {
	Deltas, Journaled        int64
	Quads, Entries           int64
	LockAcquired, LockWaited int64
	LockWait, LockHeld       time.Duration
	LockWaiting              int64
}

// WriteStats returns n's write counters. Safe for concurrent use; the
// fields are read one by one, so a reading taken while writes run may mix
// counts from just before and just after one of them.
func (n *Namespace) WriteStats() WriteStats {
	return WriteStats{
		Deltas:       n.writes.deltas.Load(),
		Journaled:    n.writes.journaled.Load(),
		Quads:        n.writes.quads.Load(),
		Entries:      n.writes.entries.Load(),
		LockAcquired: n.wmu.st.acquired.Load(),
		LockWaited:   n.wmu.st.waited.Load(),
		LockWait:     time.Duration(n.wmu.st.waitNs.Load()),
		LockHeld:     time.Duration(n.wmu.st.heldNs.Load()),
		LockWaiting:  int64(n.waiting.Load()),
	}
}
