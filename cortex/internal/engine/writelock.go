package engine

import (
	"context"
	"sync"
)

// writeLock is a namespace's write lock (Namespace.wmu): a mutex whose
// waiters may give up when their context ends (LockCtx), so that a write
// with a deadline does not wait past it behind a long one (an import
// segment, a journaled delta). It may be released by another goroutine
// than the one that took it (an import's chunk commits asynchronously).
//
// Waiters take it in the order they came, except that a priority waiter
// (LockPriorityCtx: the pipelined small deltas of UpdateAsync, whose
// callers wait for each one) goes before the others, at most
// priorityStreak times in a row while others wait. Without that, a burst
// of long writes (the merges of many teams finishing together) that came
// while the findings writer was between two of its deltas made each of its
// callers wait for all of them; with it, they wait for at most one.
// The zero value is an unlocked lock.
type writeLock struct {
	mu     sync.Mutex
	held   bool
	streak int             // priority hand-offs in a row while others waited
	prio   []chan struct{} // waiters, in arrival order; closed when handed the lock
	normal []chan struct{}
}

// priorityStreak bounds the priority waiters served in a row while others
// wait.
const priorityStreak = 16

// Lock takes the lock, waiting as long as it takes.
func (l *writeLock) Lock() { _ = l.lock(context.Background(), false) }

// TryLock takes the lock if it is free, without waiting.
func (l *writeLock) TryLock() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held {
		return false
	}
	l.held = true
	return true
}

// LockCtx takes the lock, or fails with ctx's error if ctx ends first (a
// free lock is taken even if ctx has ended, and so is one handed over as
// ctx ends: the caller checks ctx next).
func (l *writeLock) LockCtx(ctx context.Context) error { return l.lock(ctx, false) }

// LockPriorityCtx is LockCtx as a priority waiter (see writeLock).
func (l *writeLock) LockPriorityCtx(ctx context.Context) error { return l.lock(ctx, true) }

func (l *writeLock) lock(ctx context.Context, prio bool) error {
	l.mu.Lock()
	if !l.held {
		l.held = true
		l.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	q := &l.normal
	if prio {
		q = &l.prio
	}
	*q = append(*q, ch)
	l.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, c := range *q {
		if c == ch {
			*q = append((*q)[:i], (*q)[i+1:]...)
			return ctx.Err()
		}
	}
	return nil // handed over meanwhile: held
}

// Unlock releases the lock, handing it to the next waiter if there is one;
// releasing a free lock panics, as with sync.Mutex.
func (l *writeLock) Unlock() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.held {
		panic("cortex: unlock of an unlocked namespace write lock")
	}
	var ch chan struct{}
	switch {
	case len(l.prio) > 0 && (len(l.normal) == 0 || l.streak < priorityStreak):
		ch, l.prio = l.prio[0], l.prio[1:]
		if len(l.normal) > 0 {
			l.streak++
		}
	case len(l.normal) > 0:
		ch, l.normal = l.normal[0], l.normal[1:]
		l.streak = 0
	default:
		l.held = false
		return
	}
	close(ch) // (held stays true: the waiter has it)
}
