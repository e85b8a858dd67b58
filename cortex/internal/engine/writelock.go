package engine

import "context"

// writeLock is a namespace's write lock (Namespace.wmu): a mutex whose
// waiters may give up when their context ends (LockCtx), so that a write
// with a deadline does not wait past it behind a long one (an import
// segment, a journaled delta). Waiters take it in the order they came.
// The zero value is not usable: newWriteLock.
type writeLock struct{ ch chan struct{} }

func newWriteLock() writeLock { return writeLock{ch: make(chan struct{}, 1)} }

// Lock takes the lock, waiting as long as it takes.
func (l writeLock) Lock() { l.ch <- struct{}{} }

// TryLock takes the lock if it is free, without waiting.
func (l writeLock) TryLock() bool {
	select {
	case l.ch <- struct{}{}:
		return true
	default:
		return false
	}
}

// LockCtx takes the lock, or fails with ctx's error if ctx ends first (a
// free lock is taken even if ctx has ended: the caller checks ctx next).
func (l writeLock) LockCtx(ctx context.Context) error {
	if l.TryLock() {
		return nil
	}
	select {
	case l.ch <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Unlock releases the lock; releasing a free lock panics, as with
// sync.Mutex.
func (l writeLock) Unlock() {
	select {
	case <-l.ch:
	default:
		panic("cortex: unlock of an unlocked namespace write lock")
	}
}
