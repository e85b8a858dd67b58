package teammanager_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/namespace"
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

// kindOfMergeError returns the objects of team t's team:merge:errorKind
// in the store: what a query sees.
func kindOfMergeError(t *testing.T, f *fixture, team string) []string {
	t.Helper()
	qs, err := f.n.Quads(ctx, cortex.Pattern{Subject: f.ns.Team(team), Predicate: f.ns.IRI(namespace.TeamMergeErrorKind), Scope: cortex.AllGraphs})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, q := range qs {
		out = append(out, quad.NativeOf(q.Object).(string))
	}
	return out
}

// mergeTimedOutTeam returns a fixture whose team "t" has an automatic merge
// stopped at its bound by the stuck strategy s (which then merges again).
func mergeTimedOutTeam(t *testing.T) (*fixture, *stuck) {
	t.Helper()
	defer teammanager.SetAutoMergeTimeout(20 * time.Millisecond)()
	cfg, s := stuckConfig(t, false)
	f := newFixture(t, cfg)
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Strategy: "stuck", Members: members("a", "b")})
	for _, a := range []string{"a", "b"} {
		f.status(t, "t", a, teammanager.Running, "")
	}
	f.status(t, "t", "a", teammanager.Completed, "")
	var ame *teammanager.AutoMergeError
	if _, err := f.m.UpdateMemberStatus(ctx, "t", "b", teammanager.Completed, ""); !errors.As(err, &ame) {
		t.Fatalf("completing update whose merge is stuck: %v", err)
	}
	s.on.Store(false)
	return f, s
}

// TestManager_AutoMerge_TimeoutKindRecorded: a merge stopped at
// AutoMergeTimeout was known as such only by the text of its error; its
// kind is now recorded beside it (team:merge:errorKind "timeout"), which
// GetTeam and ListTeams report (Team.MergeErrorKind) and a query finds.
func TestManager_AutoMerge_TimeoutKindRecorded(t *testing.T) {
	f, _ := mergeTimedOutTeam(t)
	got, err := f.m.GetTeam(guarded(t), "t")
	if err != nil || got.MergePending != teammanager.MergeFailed || got.MergeErrorKind != teammanager.MergeErrorKindTimeout ||
		!strings.HasPrefix(got.MergeError, "automatic merge timed out") {
		t.Fatalf("GetTeam: pending %q, kind %q, error %q, %v", got.MergePending, got.MergeErrorKind, got.MergeError, err)
	}
	ts, err := f.m.ListTeams(ctx, teammanager.TeamFilter{})
	if err != nil || len(ts) != 1 || ts[0].MergeErrorKind != teammanager.MergeErrorKindTimeout {
		t.Fatalf("ListTeams: %+v, %v", ts, err)
	}
	if kinds := kindOfMergeError(t, f, "t"); len(kinds) != 1 || kinds[0] != "timeout" {
		t.Fatalf("team:merge:errorKind in the store: %q, want [timeout]", kinds)
	}
	if _, err := f.m.MergeTeamResults(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if got := f.get(t, "t"); got.MergeErrorKind != "" || len(kindOfMergeError(t, f, "t")) != 0 {
		t.Fatalf("after the merge by hand: kind %q, in the store %q", got.MergeErrorKind, kindOfMergeError(t, f, "t"))
	}
}

// TestManager_AutoMerge_OldTimeoutRecord: a merge stopped at
// AutoMergeTimeout that an older version recorded (its error text, no
// team:merge:errorKind) is still known as timed out: it reads with kind
// "timeout", and Sweep and writes to the team do not run it again.
func TestManager_AutoMerge_OldTimeoutRecord(t *testing.T) {
	f, s := mergeTimedOutTeam(t)
	// As an older version wrote it: no kind (and a team table without the
	// field: an older table's rows are shorter, which reads as stale).
	if err := f.n.Update(ctx, func(tx *cortex.Tx) error {
		tx.Remove(quad.Quad{Subject: f.ns.Team("t"), Predicate: f.ns.IRI(namespace.TeamMergeErrorKind), Object: quad.String("timeout"), Label: f.ns.TeamGraph("t")})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if kinds := kindOfMergeError(t, f, "t"); len(kinds) != 0 {
		t.Fatalf("kind left: %q", kinds)
	}
	before := s.calls.Load()
	gctx := guarded(t)
	got, err := f.m.GetTeam(gctx, "t")
	if err != nil || got.MergePending != teammanager.MergeFailed || got.MergeErrorKind != teammanager.MergeErrorKindTimeout {
		t.Fatalf("GetTeam of an older record: pending %q, kind %q, %v", got.MergePending, got.MergeErrorKind, err)
	}
	ts, err := f.m.ListTeams(ctx, teammanager.TeamFilter{})
	if err != nil || len(ts) != 1 || ts[0].MergeErrorKind != teammanager.MergeErrorKindTimeout {
		t.Fatalf("ListTeams of an older record: %+v, %v", ts, err)
	}
	if _, err := f.m.Sweep(gctx); err != nil {
		t.Fatal(err)
	}
	_, err = f.m.UpdateMemberStatus(gctx, "t", "a", teammanager.Running, "")
	if !errors.Is(err, teammanager.ErrTeamFinished) || !strings.Contains(err.Error(), "`cortexctl teams merge t`") {
		t.Fatalf("write to the team: %v", err)
	}
	if calls := s.calls.Load() - before; calls != 0 {
		t.Fatalf("the strategy ran %d times: an older timed-out record was retried automatically", calls)
	}
}

// liar is a strategy whose merges fail with an error whose text is that
// of a merge stopped at AutoMergeTimeout, until ok is set.
type liar struct {
	ok    atomic.Bool
	calls atomic.Int64
}

func (l *liar) Merge(in merge.Input) (merge.Result, error) {
	l.calls.Add(1)
	if !l.ok.Load() {
		return merge.Result{}, errors.New("automatic merge timed out after 1s (AutoMergeTimeout), says the strategy")
	}
	return merge.PerTopic("liar", merge.DecideAdditive).Merge(in)
}

// TestManager_AutoMerge_TimeoutTextIsNotKind: a merge whose strategy
// fails with an error that speaks of a timeout, but that did not time
// out, is recorded with kind "error" (its text kept) and Sweep retries
// it: the kind, not the text, tells a timeout.
func TestManager_AutoMerge_TimeoutTextIsNotKind(t *testing.T) {
	l := &liar{}
	reg := merge.NewRegistry()
	merge.RegisterBuiltins(reg)
	reg.Register("liar", l)
	f := newFixture(t, teammanager.DefaultConfig().WithRegistry(reg))
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Strategy: "liar", Members: members("a")})
	f.status(t, "t", "a", teammanager.Running, "")
	if _, err := f.m.UpdateMemberStatus(ctx, "t", "a", teammanager.Completed, ""); err == nil {
		t.Fatal("completing update whose merge fails: no error")
	}
	got := f.get(t, "t")
	if got.MergePending != teammanager.MergeFailed || got.MergeErrorKind != teammanager.MergeErrorKindError ||
		!strings.Contains(got.MergeError, "automatic merge timed out") {
		t.Fatalf("failed merge: pending %q, kind %q, error %q", got.MergePending, got.MergeErrorKind, got.MergeError)
	}
	l.ok.Store(true)
	if _, err := f.m.Sweep(ctx); err != nil {
		t.Fatalf("Sweep: %v", err)
	}
	if got := f.get(t, "t"); !got.Merged || l.calls.Load() != 2 {
		t.Fatalf("after Sweep: merged %v, strategy ran %d times; want merged by Sweep's retry", got.Merged, l.calls.Load())
	}
}
