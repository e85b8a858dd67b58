package engine

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

// waitQueued waits until l has n waiters (priority and others).
func waitQueued(t *testing.T, l *writeLock, n int) {
	t.Helper()
	for {
		l.mu.Lock()
		q := len(l.prio) + len(l.normal)
		l.mu.Unlock()
		if q == n {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// TestWriteLock_Order: waiters take the lock in arrival order, priority
// waiters first, but at most priorityStreak priority waiters in a row while
// another waits; a waiter whose context ends leaves the queue with its
// error and is never handed the lock; the lock may be released by another
// goroutine than the one that took it.
func TestWriteLock_Order(t *testing.T) {
	t.Parallel()
	var l writeLock
	if !l.TryLock() || l.TryLock() {
		t.Fatal("TryLock: want the free lock taken, then refused")
	}
	var (
		mu    sync.Mutex
		order []string
		wg    sync.WaitGroup
	)
	take := func(name string, prio bool, ctx context.Context) {
		defer wg.Done()
		var err error
		if prio {
			err = l.LockPriorityCtx(ctx)
		} else {
			err = l.LockCtx(ctx)
		}
		if err != nil {
			mu.Lock()
			order = append(order, name+":"+err.Error())
			mu.Unlock()
			return
		}
		mu.Lock()
		order = append(order, name)
		mu.Unlock()
		go l.Unlock() // (released by another goroutine)
	}
	queued := 0
	add := func(name string, prio bool, ctx context.Context) {
		wg.Add(1)
		go take(name, prio, ctx)
		queued++
		waitQueued(t, &l, queued)
	}
	add("n1", false, context.Background())
	cancelled, cancel := context.WithCancel(context.Background())
	add("n2-gives-up", false, cancelled)
	add("n3", false, context.Background())
	want := []string{"n2-gives-up:" + context.Canceled.Error()}
	for i := range priorityStreak + 2 {
		name := "p" + string(rune('a'+i))
		add(name, true, context.Background())
		if i < priorityStreak {
			want = append(want, name)
		}
	}
	// n2 gives up while queued.
	cancel()
	queued--
	waitQueued(t, &l, queued)
	// priorityStreak priority waiters, then the oldest other one, then the
	// rest of the priority waiters, then the last other one.
	want = append(want, "n1", "p"+string(rune('a'+priorityStreak)), "p"+string(rune('a'+priorityStreak+1)), "n3")
	l.Unlock()
	wg.Wait()
	if !slices.Equal(order, want) {
		t.Fatalf("order %v\nwant  %v", order, want)
	}
	// Every waiter released what it took: the lock is free.
	for !l.TryLock() {
		time.Sleep(time.Millisecond)
	}
	l.Unlock()
}

// TestWriteLock_GiveUpRace: waiters whose contexts end as the lock is
// handed over either hold it (nil) or got their context's error, never
// both and never neither: the lock is never lost or held twice.
func TestWriteLock_GiveUpRace(t *testing.T) {
	t.Parallel()
	var l writeLock
	var holders, inside int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i%7)*50*time.Microsecond)
			defer cancel()
			var err error
			if i%2 == 0 {
				err = l.LockPriorityCtx(ctx)
			} else {
				err = l.LockCtx(ctx)
			}
			if err != nil {
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Error(err)
				}
				return
			}
			mu.Lock()
			inside++
			if inside > 1 {
				t.Error("the lock is held twice")
			}
			holders++
			mu.Unlock()
			time.Sleep(10 * time.Microsecond)
			mu.Lock()
			inside--
			mu.Unlock()
			l.Unlock()
		})
	}
	wg.Wait()
	if !l.TryLock() {
		t.Fatal("the lock is held after every holder released it")
	}
	if holders == 0 {
		t.Fatal("nobody took the lock")
	}
}

// TestWriteLock_UnlockFreePanics: releasing a free lock panics.
func TestWriteLock_UnlockFreePanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	var l writeLock
	l.Unlock()
}
