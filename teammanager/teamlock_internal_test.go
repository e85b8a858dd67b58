package teammanager

import (
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
