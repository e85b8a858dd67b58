package teammanager

import (
	"context"
	"errors"
	"sync"
	"testing"
)

// A team's lock entry lives only while it is held or waited for: after
// every Lock/Unlock and every TryLock (taken or not) the map is empty
// again; one team's lock excludes its own callers only.
func TestTeamLocks_EntriesGoAway(t *testing.T) {
	var l teamLocks
	a := l.get("a")
	a.Lock()
	b := l.get("b")
	if !b.TryLock() {
		t.Fatal("b's lock is busy while only a's is held")
	}
	b.Unlock()
	if l.get("a").TryLock() {
		t.Fatal("a's lock was taken twice")
	}
	var (
		wg sync.WaitGroup
		n  int // incremented under a's lock only
	)
	for range 8 {
		wg.Go(func() {
			h := l.get("a")
			h.Lock()
			n++
			h.Unlock()
		})
	}
	a.Unlock()
	wg.Wait()
	if n != 8 {
		t.Fatalf("%d of 8 callers took a's lock", n)
	}
	if len(l.m) != 0 {
		t.Fatalf("entries left: %v", l.m)
	}
}

// A LockContext that gives up (its context ended while the lock is held)
// leaves no entry behind and does not take the lock.
func TestTeamLocks_LockContextGivesUp(t *testing.T) {
	var l teamLocks
	a := l.get("a")
	a.Lock()
	c, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.get("a").LockContext(c); !errors.Is(err, context.Canceled) {
		t.Fatalf("LockContext of a held lock, cancelled: %v", err)
	}
	a.Unlock()
	if len(l.m) != 0 {
		t.Fatalf("entries left: %v", l.m)
	}
	b := l.get("a")
	if err := b.LockContext(context.Background()); err != nil {
		t.Fatalf("LockContext of a free lock: %v", err)
	}
	b.Unlock()
}
