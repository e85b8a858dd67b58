package teammanager_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/teammanager"
)

// manualDeadline is a context whose deadline the test decides: Done closes
// and Err turns to context.DeadlineExceeded when expire is called, without
// a clock.
type manualDeadline struct {
	context.Context
	once sync.Once
	done chan struct{}
}

func newManualDeadline() *manualDeadline {
	return &manualDeadline{Context: context.Background(), done: make(chan struct{})}
}

func (c *manualDeadline) expire()               { c.once.Do(func() { close(c.done) }) }
func (c *manualDeadline) Done() <-chan struct{} { return c.done }
func (c *manualDeadline) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// TestManager_Merge_HangingStrategyStopsWithContext: a custom strategy
// (plain merge.Strategy, which takes no context) that does not return
// held the team's merge lock forever. The merge now stops waiting for it
// when its context ends: it returns the context's error, writes nothing,
// and a second merge of the team (the lock released) succeeds while the
// first strategy call is still blocked.
func TestManager_Merge_HangingStrategyStopsWithContext(t *testing.T) {
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, func())
		want error
	}{
		{"canceled", func() (context.Context, func()) { return context.WithCancel(ctx) }, context.Canceled},
		{"deadline", func() (context.Context, func()) { c := newManualDeadline(); return c, c.expire }, context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			started, release := make(chan struct{}), make(chan struct{})
			strat := merge.StrategyFunc(func(in merge.Input) (merge.Result, error) {
				if calls.Add(1) == 1 {
					close(started)
					<-release // until the test ends
				}
				return merge.Merge(merge.NameAdditive, in)
			})
			f := customTeam(t, strat, func(a, _ string) quad.Value { return quad.String("v") }, "s")
			t.Cleanup(func() { close(release) })
			mctx, stop := tc.ctx()
			errc := make(chan error, 1)
			go func() {
				_, err := f.m.MergeTeamResults(mctx, "t")
				errc <- err
			}()
			<-started
			stop()
			if err := <-errc; !errors.Is(err, tc.want) {
				t.Fatalf("merge whose context ended: %v; want %v", err, tc.want)
			}
			for _, g := range []quad.Value{f.ns.SharedGraph("t"), f.ns.ConflictGraph("t"), f.ns.ProvenanceGraph("t")} {
				if qs := f.graph(t, g); len(qs) != 0 {
					t.Fatalf("the stopped merge wrote %v", qs)
				}
			}
			if l := f.lastMergeLink(t, "t"); len(l) != 0 {
				t.Fatalf("the stopped merge linked a run: %v", l)
			}
			rep, err := f.m.MergeTeamResults(ctx, "t") // the lock is free
			if err != nil || len(rep.Facts) != 1 {
				t.Fatalf("second merge: %+v, %v", rep, err)
			}
			if qs := f.graph(t, f.ns.SharedGraph("t")); len(qs) != 1 {
				t.Fatalf("second merge wrote %v", qs)
			}
		})
	}
}

// ctxStrategy is a merge.ContextStrategy whose Merge must not be called.
type ctxStrategy struct{ calls *atomic.Int32 }

func (ctxStrategy) Merge(merge.Input) (merge.Result, error) {
	return merge.Result{}, errors.New("Merge called on a ContextStrategy")
}

func (s ctxStrategy) MergeContext(ctx context.Context, in merge.Input) (merge.Result, error) {
	s.calls.Add(1)
	return merge.MergeWith(ctx, merge.PerTopic("x", merge.DecideAdditive), in)
}

// TestManager_Merge_PrefersContextStrategy: the manager runs a custom
// merge.ContextStrategy with MergeContext, not Merge.
func TestManager_Merge_PrefersContextStrategy(t *testing.T) {
	var calls atomic.Int32
	f := customTeam(t, ctxStrategy{&calls}, func(a, _ string) quad.Value { return quad.String("v") }, "s")
	rep, err := f.m.MergeTeamResults(ctx, "t")
	if err != nil || len(rep.Facts) != 1 || calls.Load() != 1 {
		t.Fatalf("merge: %+v, %v; MergeContext called %d times", rep, err, calls.Load())
	}
}

// TestManager_Merge_WaitForLockStopsWithContext: a merge waiting for the
// team's merge lock, held by a merge whose strategy does not return (and
// whose context never ends), stops waiting when its own context ends, with
// that context's error; the first merge, once its strategy returns,
// writes its result.
func TestManager_Merge_WaitForLockStopsWithContext(t *testing.T) {
	var calls atomic.Int32
	started, release := make(chan struct{}), make(chan struct{})
	strat := merge.StrategyFunc(func(in merge.Input) (merge.Result, error) {
		if calls.Add(1) == 1 {
			close(started)
			<-release
		}
		return merge.Merge(merge.NameAdditive, in)
	})
	f := customTeam(t, strat, func(a, _ string) quad.Value { return quad.String("v") }, "s")
	first := make(chan error, 1)
	go func() {
		_, err := f.m.MergeTeamResults(ctx, "t") // never cancelled
		first <- err
	}()
	<-started
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, func())
		want error
	}{
		{"canceled", func() (context.Context, func()) { return context.WithCancel(ctx) }, context.Canceled},
		{"deadline", func() (context.Context, func()) { c := newManualDeadline(); return c, c.expire }, context.DeadlineExceeded},
	} {
		mctx, stop := tc.ctx()
		stop()
		if _, err := f.m.MergeTeamResults(mctx, "t"); !errors.Is(err, tc.want) {
			t.Fatalf("%s: merge waiting for the lock: %v; want %v", tc.name, err, tc.want)
		}
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatalf("first merge: %v", err)
	}
	if qs := f.graph(t, f.ns.SharedGraph("t")); len(qs) != 1 {
		t.Fatalf("first merge wrote %v", qs)
	}
}

// TestManager_ResolveConflict_FailedReMergeIsDue: the resolution of a
// finished team is written before its re-merge; when that re-merge fails
// (here its context ends before it writes), the team read as merged and
// no retry point merged it, so its facts stayed those of before the
// resolution. The resolution now marks the merge as due: the team reads
// as not merged, and GetTeam's retry writes the chosen object.
func TestManager_ResolveConflict_FailedReMergeIsDue(t *testing.T) {
	f := newFixture(t)
	codeReview(t, f, merge.NameConflictFlag)
	cs, err := f.m.Conflicts(ctx, "cr")
	if err != nil || len(cs) != 1 {
		t.Fatalf("Conflicts = %+v, %v", cs, err)
	}
	rctx, cancel := context.WithCancel(ctx)
	teammanager.SetMergeHook(cancel)
	_, err = f.m.ResolveConflict(rctx, "cr", cs[0].ID, []quad.Value{quad.String("low")}, "lead")
	teammanager.SetMergeHook(nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("ResolveConflict whose re-merge was cancelled: %v", err)
	}
	team, err := f.m.GetTeam(ctx, "cr") // a retry point
	if err != nil || !team.Merged {
		t.Fatalf("team after the retry: merged %v (%s), %v", team.Merged, team.MergePending, err)
	}
	facts, err := f.m.Facts(ctx, "cr", teammanager.FactFilter{Predicate: iri("severity")})
	if err != nil || len(facts) != 1 || facts[0].Object != quad.String("low") || facts[0].ResolvedBy != "lead" {
		t.Fatalf("severity facts after the retry: %+v, %v; want the resolution's \"low\"", facts, err)
	}
}
