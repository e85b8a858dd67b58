package teammanager_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/teammanager"
)

// stuck is a custom strategy that, while on is set, does not return:
// as a plain merge.Strategy it blocks until the test ends (release), as a
// merge.ContextStrategy until its context ends. Otherwise it merges as
// additive does.
type stuck struct {
	on      atomic.Bool
	calls   atomic.Int64
	release chan struct{}
}

func (s *stuck) Merge(in merge.Input) (merge.Result, error) {
	s.calls.Add(1)
	if s.on.Load() {
		<-s.release
	}
	return merge.PerTopic("stuck", merge.DecideAdditive).Merge(in)
}

// stuckCtx is stuck as a merge.ContextStrategy.
type stuckCtx struct{ *stuck }

func (s stuckCtx) MergeContext(ctx context.Context, in merge.Input) (merge.Result, error) {
	s.calls.Add(1)
	if s.on.Load() {
		<-ctx.Done()
		return merge.Result{}, ctx.Err()
	}
	return merge.MergeWith(ctx, merge.PerTopic("stuck", merge.DecideAdditive), in)
}

// stuckConfig returns the default config with the built-ins and strategy
// "stuck" (plain, or a ContextStrategy if withCtx), stuck from the start.
func stuckConfig(t *testing.T, withCtx bool) (teammanager.Config, *stuck) {
	s := &stuck{release: make(chan struct{})}
	t.Cleanup(func() { close(s.release) })
	s.on.Store(true)
	reg := merge.NewRegistry()
	merge.RegisterBuiltins(reg)
	if withCtx {
		reg.Register("stuck", stuckCtx{s})
	} else {
		reg.Register("stuck", s)
	}
	return teammanager.DefaultConfig().WithRegistry(reg), s
}

// guarded returns a context that ends long after the tests' bound of
// automatic merges: a read that ran the stuck strategy again, unbounded,
// would block until then.
func guarded(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(ctx, 5*time.Second)
	t.Cleanup(cancel)
	return c
}

// wantTimedOut checks that team t reads as not merged, its last attempt
// failed at the bound of automatic merges (MergeFailed, and an error
// saying so), in GetTeam and ListTeams.
func wantTimedOut(t *testing.T, m *teammanager.Manager, gctx context.Context) {
	t.Helper()
	got, err := m.GetTeam(gctx, "t")
	if err != nil || got.Merged || got.MergePending != teammanager.MergeFailed || !strings.Contains(got.MergeError, "AutoMergeTimeout") {
		t.Fatalf("GetTeam after a merge stopped at its bound: merged %v, pending %q, error %q, %v; want failed, AutoMergeTimeout",
			got.Merged, got.MergePending, got.MergeError, err)
	}
	ts, err := m.ListTeams(ctx, teammanager.TeamFilter{})
	if err != nil || len(ts) != 1 || ts[0].MergePending != teammanager.MergeFailed || ts[0].MergeError != got.MergeError {
		t.Fatalf("ListTeams after a merge stopped at its bound: %+v, %v", ts, err)
	}
}

// TestManager_AutoMerge_StuckStrategyRecorded: an automatic merge whose
// custom strategy does not return ended at AutoMergeTimeout without a
// trace: the team stayed "interrupted", so every GetTeam after it started
// the strategy again and blocked until its own context ended (for ever
// without a deadline). The timeout is now recorded as a failed merge
// whose error names AutoMergeTimeout; reads, Sweep and writes to the team
// do not run it again (a write names `cortexctl teams merge`), and
// MergeTeamResults by hand does.
func TestManager_AutoMerge_StuckStrategyRecorded(t *testing.T) {
	defer teammanager.SetAutoMergeTimeout(20 * time.Millisecond)()
	for _, withCtx := range []bool{false, true} {
		name := "plain"
		if withCtx {
			name = "ContextStrategy"
		}
		t.Run(name, func(t *testing.T) {
			cfg, s := stuckConfig(t, withCtx)
			f := newFixture(t, cfg)
			f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Strategy: "stuck", Members: members("a", "b")})
			for _, a := range []string{"a", "b"} {
				f.status(t, "t", a, teammanager.Running, "")
			}
			f.status(t, "t", "a", teammanager.Completed, "")
			_, err := f.m.UpdateMemberStatus(ctx, "t", "b", teammanager.Completed, "")
			var ame *teammanager.AutoMergeError
			if !errors.As(err, &ame) || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("completing update whose merge is stuck: %v; want an AutoMergeError of its deadline", err)
			}
			if !strings.Contains(err.Error(), "`cortexctl teams merge t`") || strings.Contains(err.Error(), "retried by Sweep") {
				t.Fatalf("error of a stuck merge: %v; want it to name teams merge, not the automatic retries", err)
			}
			gctx := guarded(t)
			for range 3 {
				wantTimedOut(t, f.m, gctx)
			}
			if _, err := f.m.Sweep(gctx); err != nil {
				t.Fatalf("Sweep: %v", err)
			}
			_, err = f.m.UpdateMemberStatus(gctx, "t", "a", teammanager.Running, "")
			if !errors.Is(err, teammanager.ErrTeamFinished) || !strings.Contains(err.Error(), "`cortexctl teams merge t`") {
				t.Fatalf("write to the team: %v", err)
			}
			if calls := s.calls.Load(); calls != 1 {
				t.Fatalf("the strategy ran %d times, want 1: reads, Sweep and writes ran the stuck merge again", calls)
			}
			s.on.Store(false)
			if _, err := f.m.MergeTeamResults(gctx, "t"); err != nil {
				t.Fatalf("merge by hand: %v", err)
			}
			if got := f.get(t, "t"); !got.Merged || got.MergePending != "" || got.MergeError != "" {
				t.Fatalf("after the merge by hand: %+v", got)
			}
		})
	}
}

// TestManager_AutoMerge_StuckRetryBounded: the retries of an interrupted
// merge (a crash leftover) by New and by GetTeam ran its strategy under
// the caller's context alone: a stuck custom strategy held New, or every
// GetTeam, until that context ended. They are now bounded by
// AutoMergeTimeout too, and the timeout recorded: the next read returns
// at once, without running the strategy.
func TestManager_AutoMerge_StuckRetryBounded(t *testing.T) {
	for _, retry := range []string{"New", "GetTeam"} {
		t.Run(retry, func(t *testing.T) {
			dir := t.TempDir()
			cfg, s := stuckConfig(t, false)
			s.on.Store(false)
			st, m := openManager(t, dir, false, cfg)
			f := &fixture{s: st, m: m, ns: m.Namespace()}
			f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Strategy: "stuck", Members: members("a", "b")})
			for _, a := range []string{"a", "b"} {
				f.status(t, "t", a, teammanager.Running, "")
			}
			f.status(t, "t", "a", teammanager.Completed, "")
			crashInMerge(t, func() { m.UpdateMemberStatus(ctx, "t", "b", teammanager.Completed, "") })
			// Bounded once the merge above has crashed: a slow machine (the
			// race detector) could take it past the bound.
			defer teammanager.SetAutoMergeTimeout(20 * time.Millisecond)()
			s.on.Store(true)
			before := s.calls.Load()
			gctx := guarded(t)
			if retry == "New" {
				if err := st.Close(); err != nil {
					t.Fatal(err)
				}
				st, err := cortex.Open(ctx, dir, cortex.DefaultOptions().WithSyncWrites(false))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
				if m, err = teammanager.New(gctx, st, m.Namespace(), cfg); err != nil {
					t.Fatal(err)
				}
			} else if got, err := m.GetTeam(gctx, "t"); err != nil || got.Merged {
				t.Fatalf("GetTeam retrying a stuck merge: %+v, %v", got, err)
			}
			if gctx.Err() != nil {
				t.Fatalf("%s's retry ran until the test's guard ended", retry)
			}
			wantTimedOut(t, m, gctx)
			if calls := s.calls.Load() - before; calls != 1 {
				t.Fatalf("the strategy ran %d times, want 1 (the retry of %s)", calls, retry)
			}
		})
	}
}
