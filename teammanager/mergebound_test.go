package teammanager_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/teammanager"
)

// boundClock drives the bounds of automatic merges
// (teammanager.SetAutoMergeBound) with a clock of its own: a bound taken
// at time t ends, with its cause, when Advance moves the clock to
// t+AutoMergeTimeout or past it.
type boundClock struct {
	mu     sync.Mutex
	now    time.Duration
	bounds []fakeBound
}

type fakeBound struct {
	end    time.Duration
	cause  error
	cancel context.CancelCauseFunc
}

func (c *boundClock) bound(ctx context.Context, cause error) (context.Context, context.CancelFunc) {
	bctx, cancel := context.WithCancelCause(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.bounds = append(c.bounds, fakeBound{end: c.now + teammanager.AutoMergeTimeout, cause: cause, cancel: cancel})
	return bctx, func() { cancel(context.Canceled) }
}

func (c *boundClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now += d
	for _, b := range c.bounds {
		if c.now >= b.end {
			b.cancel(b.cause)
		}
	}
}

// slowStrategy merges as additive does, but first calls run (which
// advances a boundClock: the strategy takes that long), and returns its
// context's error if the context has ended by then.
type slowStrategy struct{ run func() }

func (s slowStrategy) Merge(in merge.Input) (merge.Result, error) {
	return s.MergeContext(context.Background(), in)
}

func (s slowStrategy) MergeContext(ctx context.Context, in merge.Input) (merge.Result, error) {
	s.run()
	if err := ctx.Err(); err != nil {
		return merge.Result{}, err
	}
	return merge.PerTopic("slow", merge.DecideAdditive).Merge(in)
}

// TestManager_AutoMerge_WaitsDoNotCount: AutoMergeTimeout bounded the
// whole automatic merge, its waits included: a merge that waited 6 of its
// 10 minutes for another merge of the team (the team's merge lock), or
// for the namespace's write lock after its strategy, and whose strategy
// then ran 6 minutes, was stopped and recorded as timed out (never retried
// automatically) though its strategy ran well within the bound. The bound
// is now the strategy's own, and each wait has its own: both merges
// complete. The minutes are a clock of the test's (boundClock); the waits
// are locks the test holds and releases.
func TestManager_AutoMerge_WaitsDoNotCount(t *testing.T) {
	for _, wait := range []string{"team merge lock", "write lock"} {
		t.Run(wait, func(t *testing.T) {
			bc := &boundClock{}
			defer teammanager.SetAutoMergeBound(bc.bound)()
			var onRun func()
			reg := merge.NewRegistry()
			merge.RegisterBuiltins(reg)
			reg.Register("slow", slowStrategy{run: func() { onRun() }})
			f := newFixture(t, teammanager.DefaultConfig().WithRegistry(reg))
			f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Strategy: "slow", Members: members("a")})
			f.status(t, "t", "a", teammanager.Running, "")

			release := make(chan struct{})
			held := make(chan struct{})
			holdWriteLock := func() { // holds the namespace's write lock until release
				go f.n.Update(ctx, func(*cortex.Tx) error { //nolint:errcheck // writes nothing
					close(held)
					<-release
					return nil
				})
				<-held
			}
			onRun = func() {
				bc.Advance(6 * time.Minute)
				if wait == "write lock" {
					holdWriteLock() // the merge's write waits for it
				}
			}
			unlock := func() {}
			if wait == "team merge lock" {
				unlock = teammanager.LockTeamMerges(f.m, "t")
			}
			done := make(chan error, 1)
			go func() {
				_, err := f.m.UpdateMemberStatus(ctx, "t", "a", teammanager.Completed, "")
				done <- err
			}()
			// Wait for the merge to wait (for the team's lock, or for the
			// write lock after its strategy), then let 6 minutes pass.
			for waiting := false; !waiting; {
				select {
				case err := <-done:
					t.Fatalf("the update returned before its merge waited: %v", err)
				case <-time.After(time.Millisecond):
				}
				if wait == "team merge lock" {
					waiting = teammanager.TeamMergeLockRefs(f.m, "t") == 2
				} else {
					waiting = f.n.WriteStats().LockWaiting > 0
				}
			}
			bc.Advance(6 * time.Minute)
			unlock()
			close(release)
			if err := <-done; err != nil {
				t.Fatalf("update whose merge waited 6 minutes and ran 6: %v", err)
			}
			got := f.get(t, "t")
			if !got.Merged || got.MergePending != "" || got.MergeErrorKind != "" {
				t.Fatalf("team: merged %v, pending %q, kind %q, error %q", got.Merged, got.MergePending, got.MergeErrorKind, got.MergeError)
			}
		})
	}
}

// TestManager_AutoMerge_WaitsBounded: the waits of an automatic merge
// detached from its caller are bounded on their own: a merge that waits
// AutoMergeTimeout for another merge of the team (one by hand whose
// strategy hangs, say) gives up without running, the team left due
// (interrupted: the next read runs it); one that waits that long for its
// write is recorded as failed with kind "error", which Sweep retries (not
// "timeout", which no retry point runs).
func TestManager_AutoMerge_WaitsBounded(t *testing.T) {
	for _, wait := range []string{"team merge lock", "write lock"} {
		t.Run(wait, func(t *testing.T) {
			bc := &boundClock{}
			defer teammanager.SetAutoMergeBound(bc.bound)()
			release := make(chan struct{})
			held := make(chan struct{})
			var once sync.Once
			reg := merge.NewRegistry()
			merge.RegisterBuiltins(reg)
			f := &fixture{}
			reg.Register("slow", slowStrategy{run: func() {
				if wait == "write lock" {
					once.Do(func() {
						go f.n.Update(ctx, func(*cortex.Tx) error { //nolint:errcheck // writes nothing
							close(held)
							<-release
							return nil
						})
						<-held
					})
				}
			}})
			*f = *newFixture(t, teammanager.DefaultConfig().WithRegistry(reg))
			f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Strategy: "slow", Members: members("a")})
			f.status(t, "t", "a", teammanager.Running, "")
			unlock := func() {}
			if wait == "team merge lock" {
				unlock = teammanager.LockTeamMerges(f.m, "t")
			}
			done := make(chan error, 1)
			go func() {
				_, err := f.m.UpdateMemberStatus(ctx, "t", "a", teammanager.Completed, "")
				done <- err
			}()
			for waiting := false; !waiting; {
				select {
				case err := <-done:
					t.Fatalf("the update returned before its merge waited: %v", err)
				case <-time.After(time.Millisecond):
				}
				if wait == "team merge lock" {
					waiting = teammanager.TeamMergeLockRefs(f.m, "t") == 2
				} else {
					waiting = f.n.WriteStats().LockWaiting > 0
				}
			}
			bc.Advance(teammanager.AutoMergeTimeout)
			if wait == "write lock" {
				close(release) // the record of the failure is a write too
			}
			err := <-done
			var ame *teammanager.AutoMergeError
			if !errors.As(err, &ame) || !strings.Contains(err.Error(), "gave up waiting") {
				t.Fatalf("update whose merge waited AutoMergeTimeout: %v; want an AutoMergeError, gave up waiting", err)
			}
			unlock()
			got, err := f.m.PeekTeam(ctx, "t")
			want, kind := teammanager.MergeInterrupted, ""
			if wait == "write lock" {
				want, kind = teammanager.MergeFailed, teammanager.MergeErrorKindError
			}
			if err != nil || got.Merged || got.MergePending != want || got.MergeErrorKind != kind {
				t.Fatalf("team: merged %v, pending %q, kind %q, %v; want %q, kind %q", got.Merged, got.MergePending, got.MergeErrorKind, err, want, kind)
			}
			if _, err := f.m.Sweep(ctx); err != nil {
				t.Fatalf("Sweep: %v", err)
			}
			if got := f.get(t, "t"); !got.Merged {
				t.Fatalf("after Sweep: pending %q, error %q; want merged", got.MergePending, got.MergeError)
			}
		})
	}
}
