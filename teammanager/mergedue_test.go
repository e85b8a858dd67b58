package teammanager_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
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

// flaky is a merge strategy that fails while fail is set and is additive
// otherwise; calls counts its runs.
type flaky struct {
	fail  atomic.Bool
	calls atomic.Int64
}

var errFlaky = errors.New("flaky strategy refuses")

func (s *flaky) Merge(in merge.Input) (merge.Result, error) {
	s.calls.Add(1)
	if s.fail.Load() {
		return merge.Result{}, errFlaky
	}
	res, err := merge.PerTopic("flaky", merge.DecideAdditive).Merge(in)
	return res, err
}

// flakyFixture is a fixture whose registry has the built-ins and "flaky".
func flakyFixture(t *testing.T, cfg teammanager.Config) (*fixture, *flaky) {
	t.Helper()
	reg := merge.NewRegistry()
	merge.RegisterBuiltins(reg)
	s := &flaky{}
	reg.Register("flaky", s)
	return newFixture(t, cfg.WithRegistry(reg)), s
}

// startTeam creates team id (members a, b, flaky strategy), starts both
// members and gives each a finding.
func startTeam(t *testing.T, f *fixture, id string) {
	t.Helper()
	f.create(t, teammanager.TeamConfig{ID: id, Name: "n", Strategy: "flaky", Members: members("a", "b")})
	for _, a := range []string{"a", "b"} {
		f.status(t, id, a, teammanager.Running, "")
		if _, err := f.m.AddFinding(ctx, id, a, teammanager.Finding{Subject: iri("s"), Predicate: iri(a), Object: quad.String("v")}); err != nil {
			t.Fatal(err)
		}
	}
}

func (f *fixture) get(t *testing.T, id string) teammanager.Team {
	t.Helper()
	team, err := f.m.GetTeam(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return team
}

// TestManager_AutoMerge_CancelledCaller cancels the caller's context after
// the completing update has committed, while its automatic merge runs (a
// hook between the merge's reads and its write): the merge still writes,
// the call succeeds with its report and the team reads merged.
func TestManager_AutoMerge_CancelledCaller(t *testing.T) {
	f, _ := flakyFixture(t, teammanager.DefaultConfig())
	startTeam(t, f, "t")
	f.status(t, "t", "a", teammanager.Completed, "")
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var hooked atomic.Int64
	teammanager.SetMergeHook(func() { hooked.Add(1); cancel() })
	defer teammanager.SetMergeHook(nil)
	up, err := f.m.UpdateMemberStatus(cctx, "t", "b", teammanager.Completed, "")
	teammanager.SetMergeHook(nil)
	if err != nil || up.Merge == nil || up.Merge.Kept != 2 || hooked.Load() != 1 {
		t.Fatalf("update with a context cancelled during its merge: %+v, %v (hook ran %d times)", up, err, hooked.Load())
	}
	if cctx.Err() == nil {
		t.Fatal("the hook did not cancel the caller's context")
	}
	got := f.get(t, "t")
	if !got.Merged || got.MergePending != "" || got.LastMerge != up.Merge.MergeID || len(f.graph(t, f.ns.SharedGraph("t"))) != 2 {
		t.Fatalf("team after the merge: merged %v, pending %q, last merge %q (report %s)", got.Merged, got.MergePending, got.LastMerge, up.Merge.MergeID)
	}
}

// TestManager_AutoMerge_FailedIsPendingAndRetried makes the automatic merge
// fail: the update stays, the team reads as not merged (reason and error,
// in GetTeam and ListTeams), the error names the command that merges it;
// reads do not run the failing merge again; then each retry point of a
// failed merge — a write, Sweep — merges it once the strategy works again,
// and MergeTeamResults by hand too.
func TestManager_AutoMerge_FailedIsPendingAndRetried(t *testing.T) {
	retryPoints := []struct {
		name  string
		retry func(t *testing.T, f *fixture) // must leave the team merged
	}{
		{"member update", func(t *testing.T, f *fixture) {
			up, err := f.m.UpdateMemberStatus(ctx, "t", "a", teammanager.Running, "")
			if !errors.Is(err, teammanager.ErrTeamFinished) || strings.Contains(err.Error(), "teams merge") || up.Merge == nil || up.Merge.Kept != 2 {
				t.Fatalf("update of the finished team: %+v, %v", up, err)
			}
		}},
		{"finding", func(t *testing.T, f *fixture) {
			_, err := f.m.AddFinding(ctx, "t", "a", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("late")})
			if !errors.Is(err, teammanager.ErrTeamFinished) {
				t.Fatalf("finding on the finished team: %v", err)
			}
		}},
		{"Sweep", func(t *testing.T, f *fixture) {
			if ids, err := f.m.Sweep(ctx); err != nil || len(ids) != 0 {
				t.Fatalf("Sweep = %v, %v", ids, err)
			}
		}},
		{"MergeTeamResults", func(t *testing.T, f *fixture) {
			if rep, err := f.m.MergeTeamResults(ctx, "t"); err != nil || rep.Kept != 2 {
				t.Fatalf("merge by hand: %+v, %v", rep, err)
			}
		}},
	}
	for _, rp := range retryPoints {
		t.Run(rp.name, func(t *testing.T) {
			f, s := flakyFixture(t, teammanager.DefaultConfig())
			startTeam(t, f, "t")
			f.status(t, "t", "a", teammanager.Completed, "")
			s.fail.Store(true)
			up, err := f.m.UpdateMemberStatus(ctx, "t", "b", teammanager.Completed, "done")
			var ame *teammanager.AutoMergeError
			if !errors.As(err, &ame) || ame.Team != "t" || !errors.Is(err, errFlaky) || !strings.Contains(err.Error(), "`cortexctl teams merge t`") {
				t.Fatalf("completing update with a failing merge: %v", err)
			}
			if up.TeamStatus != teammanager.Completed || up.Member.Status != teammanager.Completed || up.Merge != nil {
				t.Fatalf("the update must stay in place: %+v", up)
			}
			// Reads report it, and do not run the merge again.
			runs := s.calls.Load()
			got := f.get(t, "t")
			if got.Status != teammanager.Completed || got.Merged || got.MergePending != teammanager.MergeFailed || !strings.Contains(got.MergeError, errFlaky.Error()) {
				t.Fatalf("team after a failed merge: %+v", got)
			}
			if done, err := f.m.IsTeamComplete(ctx, "t"); err != nil || !done {
				t.Fatalf("IsTeamComplete = %v, %v", done, err)
			}
			if _, err := f.m.Findings(ctx, "t", teammanager.FindingFilter{}); err != nil {
				t.Fatal(err)
			}
			if got.ReadRetriesMerge() || s.calls.Load() != runs {
				t.Fatalf("reads of a team whose merge failed ran the strategy %d times (ReadRetriesMerge %v)", s.calls.Load()-runs, got.ReadRetriesMerge())
			}
			listed, err := f.m.ListTeams(ctx, teammanager.TeamFilter{})
			if err != nil || len(listed) != 1 || listed[0].Merged || listed[0].MergePending != teammanager.MergeFailed || listed[0].MergeError != got.MergeError {
				t.Fatalf("listed: %+v, %v", listed, err)
			}
			// A write to the finished team retries, fails again, and says so.
			_, err = f.m.UpdateMemberStatus(ctx, "t", "a", teammanager.Running, "")
			if !errors.Is(err, teammanager.ErrTeamFinished) || !errors.As(err, &ame) || !strings.Contains(err.Error(), "`cortexctl teams merge t`") {
				t.Fatalf("update of a finished, unmerged team: %v", err)
			}
			s.fail.Store(false)
			rp.retry(t, f)
			got = f.get(t, "t")
			if !got.Merged || got.MergePending != "" || got.MergeError != "" || got.LastMerge == "" || len(f.graph(t, f.ns.SharedGraph("t"))) != 2 {
				t.Fatalf("after the retry: %+v", got)
			}
			if qs, _ := f.n.Quads(ctx, cortex.Pattern{Subject: f.ns.Team("t"), Predicate: f.ns.IRI(namespace.TeamMergePending)}); len(qs) != 0 {
				t.Fatalf("marker left: %v", qs)
			}
			f.sameAsQuads(t, "after the retry")
		})
	}
}

// TestManager_AutoMerge_Off: without auto-merge nothing is due, nothing is
// retried, and a finished team reads as not merged without a reason until
// merged by hand.
func TestManager_AutoMerge_Off(t *testing.T) {
	f, s := flakyFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	startTeam(t, f, "t")
	f.status(t, "t", "a", teammanager.Completed, "")
	if up := f.status(t, "t", "b", teammanager.Completed, ""); up.Merge != nil {
		t.Fatalf("merged with auto-merge off: %+v", up.Merge)
	}
	if got := f.get(t, "t"); got.Merged || got.MergePending != "" || s.calls.Load() != 0 {
		t.Fatalf("team %+v after %d merges", got, s.calls.Load())
	}
	if _, err := f.m.MergeTeamResults(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if got := f.get(t, "t"); !got.Merged {
		t.Fatalf("team after a merge by hand: %+v", got)
	}
}

// TestManager_AutoMerge_Unchanged: a due merge whose result the team
// already holds (it was merged by hand before the last member completed
// with no findings) writes no new run but settles the team.
func TestManager_AutoMerge_Unchanged(t *testing.T) {
	f, _ := flakyFixture(t, teammanager.DefaultConfig())
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Strategy: "flaky", Members: members("a", "b")})
	f.status(t, "t", "a", teammanager.Running, "")
	f.status(t, "t", "b", teammanager.Running, "")
	if _, err := f.m.AddFinding(ctx, "t", "a", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("v")}); err != nil {
		t.Fatal(err)
	}
	f.status(t, "t", "a", teammanager.Completed, "")
	first, err := f.m.MergeTeamResults(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if got := f.get(t, "t"); !got.Merged {
		t.Fatalf("merged by hand while running: %+v", got)
	}
	up := f.status(t, "t", "b", teammanager.Completed, "")
	if up.Merge == nil || !up.Merge.Unchanged || up.Merge.MergeID != first.MergeID {
		t.Fatalf("automatic merge %+v, want unchanged %s", up.Merge, first.MergeID)
	}
	if got := f.get(t, "t"); !got.Merged || got.MergePending != "" {
		t.Fatalf("team after an unchanged automatic merge: %+v", got)
	}
	f.sameAsQuads(t, "settled")
}

// TestManager_AutoMerge_Timeout: a team that times out with some members
// completed is merged (their findings only); it stays failed with reason
// timeout, and the report lists who was missing. Until the timeout is
// recorded the team reads as failed and not merged; every way of recording
// it merges: Sweep, the next write, and a read (GetTeam, IsTeamComplete).
func TestManager_AutoMerge_Timeout(t *testing.T) {
	setup := func(t *testing.T) (*fixture, *flaky) {
		f, s := flakyFixture(t, teammanager.DefaultConfig())
		timedOutTeam(t, f, "flaky")
		listed, err := f.m.ListTeams(ctx, teammanager.TeamFilter{})
		if err != nil || len(listed) != 1 || listed[0].Status != teammanager.Failed || listed[0].FailReason != teammanager.FailTimeout || listed[0].Merged {
			t.Fatalf("timed out, not recorded, listed: %+v, %v", listed, err)
		}
		if st := f.storedStatus(t, "t"); st != teammanager.Running {
			t.Fatalf("stored status %q before anything recorded the timeout", st)
		}
		return f, s
	}
	check := func(t *testing.T, f *fixture) {
		t.Helper()
		if st := f.storedStatus(t, "t"); st != teammanager.Failed {
			t.Fatalf("stored status %q, want the timeout recorded", st)
		}
		got := f.get(t, "t")
		if got.Status != teammanager.Failed || got.FailReason != teammanager.FailTimeout || !got.Merged || got.MergePending != "" {
			t.Fatalf("team %+v", got)
		}
		shared := f.graph(t, f.ns.SharedGraph("t"))
		if len(shared) != 1 || shared[0].Object != quad.String("a") {
			t.Fatalf("shared graph %v, want a's finding only", shared)
		}
		f.sameAsQuads(t, "timed out and merged")
	}
	t.Run("Sweep", func(t *testing.T) {
		f, _ := setup(t)
		if ids, err := f.m.Sweep(ctx); err != nil || !slices.Equal(ids, []string{"t"}) {
			t.Fatalf("Sweep = %v, %v", ids, err)
		}
		check(t, f)
	})
	t.Run("write", func(t *testing.T) {
		f, _ := setup(t)
		up, err := f.m.UpdateMemberStatus(ctx, "t", "b", teammanager.Completed, "late")
		if !errors.Is(err, teammanager.ErrTeamFinished) || up.Merge == nil {
			t.Fatalf("late update: %+v, %v", up, err)
		}
		if rep := up.Merge; rep.Kept != 1 || !slices.Equal(rep.Missing, []string{"b", "c"}) || rep.Ignored != 1 {
			t.Fatalf("report: kept %d, missing %v, ignored %d", rep.Kept, rep.Missing, rep.Ignored)
		}
		check(t, f)
	})
	t.Run("GetTeam", func(t *testing.T) {
		f, s := setup(t)
		got := f.get(t, "t")
		if got.Status != teammanager.Failed || got.FailReason != teammanager.FailTimeout || !got.Merged || got.LastMerge == "" || s.calls.Load() != 1 {
			t.Fatalf("GetTeam of a timed-out team: %+v (%d merges)", got, s.calls.Load())
		}
		check(t, f)
		if s.calls.Load() != 1 {
			t.Fatalf("%d merges, want 1", s.calls.Load())
		}
	})
	t.Run("IsTeamComplete", func(t *testing.T) {
		f, _ := setup(t)
		if done, err := f.m.IsTeamComplete(ctx, "t"); err != nil || !done {
			t.Fatalf("IsTeamComplete = %v, %v", done, err)
		}
		check(t, f)
	})
	t.Run("MergeTeamResults", func(t *testing.T) {
		// A merge by hand records the timeout it read: the team reads
		// merged after it, and no read merges it again.
		f, s := setup(t)
		rep, err := f.m.MergeTeamResults(ctx, "t")
		if err != nil || rep.Kept != 1 || !slices.Equal(rep.Missing, []string{"b", "c"}) {
			t.Fatalf("merge by hand: %+v, %v", rep, err)
		}
		check(t, f)
		if s.calls.Load() != 1 {
			t.Fatalf("%d merges, want 1", s.calls.Load())
		}
	})
	t.Run("GetTeam, failing merge", func(t *testing.T) {
		// The timeout is recorded; the failed merge is recorded too, and
		// not run again by the next reads.
		f, s := setup(t)
		s.fail.Store(true)
		for range 2 {
			got := f.get(t, "t")
			if got.Status != teammanager.Failed || got.Merged || got.MergePending != teammanager.MergeFailed || !strings.Contains(got.MergeError, errFlaky.Error()) {
				t.Fatalf("GetTeam with a failing merge: %+v", got)
			}
		}
		if st := f.storedStatus(t, "t"); st != teammanager.Failed || s.calls.Load() != 1 {
			t.Fatalf("stored status %q after %d merges, want failed after 1", st, s.calls.Load())
		}
	})
}

// timedOutTeam creates team t of f (members a, b, c, timeout one minute,
// strategy strategy): a and b run and each asserts a finding, a completes,
// c never starts; then f's clock passes the timeout. Nothing records it.
func timedOutTeam(t *testing.T, f *fixture, strategy string) {
	t.Helper()
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Strategy: strategy, Members: members("a", "b", "c"), Timeout: time.Minute})
	for _, a := range []string{"a", "b"} {
		f.status(t, "t", a, teammanager.Running, "")
		if _, err := f.m.AddFinding(ctx, "t", a, teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String(a)}); err != nil {
			t.Fatal(err)
		}
	}
	f.status(t, "t", "a", teammanager.Completed, "")
	f.clock.Advance(2 * time.Minute)
}

// storedStatus returns the team:status the store holds for team.
func (f *fixture) storedStatus(t *testing.T, team string) teammanager.Status {
	t.Helper()
	qs, err := f.n.Quads(ctx, cortex.Pattern{Subject: f.ns.Team(team), Predicate: f.ns.IRI(namespace.TeamStatus), Graph: f.ns.TeamGraph(team), Scope: cortex.OneGraph})
	if err != nil || len(qs) != 1 {
		t.Fatalf("status of %s: %v, %v", team, qs, err)
	}
	st, err := namespace.ParseString(qs[0].Object)
	if err != nil {
		t.Fatal(err)
	}
	return teammanager.Status(st)
}

// TestManager_AutoMerge_CriticalFailure: a team failed by its critical
// member after another completed is merged with the completed member's
// findings; one whose members all failed is not (nothing to merge).
func TestManager_AutoMerge_CriticalFailure(t *testing.T) {
	f := newFixture(t)
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Members: []teammanager.MemberConfig{{AgentID: "lead", Critical: true}, {AgentID: "helper"}}})
	for _, a := range []string{"lead", "helper"} {
		f.status(t, "t", a, teammanager.Running, "")
		if _, err := f.m.AddFinding(ctx, "t", a, teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String(a)}); err != nil {
			t.Fatal(err)
		}
	}
	f.status(t, "t", "helper", teammanager.Completed, "")
	up := f.status(t, "t", "lead", teammanager.Failed, "")
	if up.TeamStatus != teammanager.Failed || up.FailReason != teammanager.FailCriticalMember || up.Merge == nil ||
		up.Merge.Kept != 1 || !slices.Equal(up.Merge.Missing, []string{"lead"}) {
		t.Fatalf("update %+v (merge %+v)", up, up.Merge)
	}
	if got := f.get(t, "t"); !got.Merged {
		t.Fatalf("team %+v", got)
	}
	f.create(t, teammanager.TeamConfig{ID: "u", Name: "n", Members: members("a")})
	if up := f.status(t, "u", "a", teammanager.Failed, ""); up.Merge != nil {
		t.Fatalf("all failed, merged: %+v", up.Merge)
	}
	if got := f.get(t, "u"); got.Merged || got.MergePending != "" {
		t.Fatalf("all failed: %+v", got)
	}
}

// TestManager_Merge_IgnoredFindings: the findings of members that did not
// complete are counted as ignored, in total and per member, and Missing
// lists those members.
func TestManager_Merge_IgnoredFindings(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a", "b", "c", "d")})
	say := func(agent string, n int) {
		for i := range n {
			if _, err := f.m.AddFinding(ctx, "t", agent, teammanager.Finding{Subject: iri(agent), Predicate: iri("p"), Object: quad.String(fmt.Sprint(i))}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, a := range []string{"a", "b", "c"} {
		f.status(t, "t", a, teammanager.Running, "")
	}
	say("a", 2)
	say("b", 3)
	say("c", 1)
	say("d", 4) // still pending
	f.status(t, "t", "a", teammanager.Completed, "")
	f.status(t, "t", "b", teammanager.Failed, "")
	rep, err := f.m.MergeTeamResults(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kept != 2 || rep.Ignored != 8 || !slices.Equal(rep.Missing, []string{"b", "c", "d"}) {
		t.Fatalf("kept %d, ignored %d, missing %v", rep.Kept, rep.Ignored, rep.Missing)
	}
	ignored := map[string]int{}
	for _, mr := range rep.Members {
		ignored[mr.Agent] = mr.Ignored
	}
	if want := map[string]int{"a": 0, "b": 3, "c": 1, "d": 4}; fmt.Sprint(ignored) != fmt.Sprint(want) {
		t.Fatalf("ignored per member %v, want %v", ignored, want)
	}
	if len(rep.OpenConflicts) != rep.Report.Conflicts {
		t.Fatalf("open conflicts %d, count %d", len(rep.OpenConflicts), rep.Report.Conflicts)
	}
}

// TestManager_Merge_CustomStrategyTeamContext: a custom strategy sees the
// team (id, name, goal) and each member's role and criticality, and uses
// them: the critical lead's object wins.
func TestManager_Merge_CustomStrategyTeamContext(t *testing.T) {
	reg := merge.NewRegistry()
	merge.RegisterBuiltins(reg)
	var seen merge.Input
	reg.Register("lead-wins", merge.StrategyFunc(func(in merge.Input) (merge.Result, error) {
		seen = in
		return merge.PerTopic("lead-wins", func(v merge.TopicView, _ merge.Options) merge.Decision {
			for _, c := range v.Claims {
				if c.Critical && c.Role == "lead" {
					return merge.Decision{Keep: []quad.Value{c.Object}}
				}
			}
			return merge.DecideAdditive(v, merge.Options{})
		}).Merge(in)
	}))
	f := newFixture(t, teammanager.DefaultConfig().WithRegistry(reg))
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "review", Context: "find the leak", Strategy: "lead-wins", Members: []teammanager.MemberConfig{
		{AgentID: "alice", Role: "lead", Critical: true}, {AgentID: "bob", Role: "reviewer"},
	}})
	for _, a := range []string{"alice", "bob"} {
		f.status(t, "t", a, teammanager.Running, "")
		if _, err := f.m.AddFinding(ctx, "t", a, teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String(a)}); err != nil {
			t.Fatal(err)
		}
	}
	f.status(t, "t", "bob", teammanager.Completed, "")
	up := f.status(t, "t", "alice", teammanager.Completed, "")
	if up.Merge == nil || len(up.Merge.Facts) != 1 || up.Merge.Facts[0].Object != quad.String("alice") {
		t.Fatalf("merge %+v", up.Merge)
	}
	if seen.Team != (merge.Team{ID: "t", Name: "review", Context: "find the leak"}) {
		t.Fatalf("strategy saw team %+v", seen.Team)
	}
	var ms []string
	for _, mb := range seen.Members {
		ms = append(ms, fmt.Sprintf("%s:%s:%v:%s", mb.Agent, mb.Role, mb.Critical, mb.Status))
	}
	if want := []string{"alice:lead:true:completed", "bob:reviewer:false:completed"}; !slices.Equal(ms, want) {
		t.Fatalf("strategy saw members %v, want %v", ms, want)
	}
}

// TestManager_Merge_BadConfidence: a custom strategy's confidence outside
// [0, 1] fails the merge, which writes nothing.
func TestManager_Merge_BadConfidence(t *testing.T) {
	reg := merge.NewRegistry()
	merge.RegisterBuiltins(reg)
	reg.Register("overconfident", merge.StrategyFunc(func(in merge.Input) (merge.Result, error) {
		res, err := merge.Merge(merge.NameAdditive, in)
		for i := range res.Facts {
			res.Facts[i].Confidence = 1.5
		}
		return res, err
	}))
	f := newFixture(t, teammanager.DefaultConfig().WithRegistry(reg).WithAutoMerge(false))
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Strategy: "overconfident", Members: members("a")})
	f.status(t, "t", "a", teammanager.Running, "")
	if _, err := f.m.AddFinding(ctx, "t", "a", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("v")}); err != nil {
		t.Fatal(err)
	}
	f.status(t, "t", "a", teammanager.Completed, "")
	if _, err := f.m.MergeTeamResults(ctx, "t"); !errors.Is(err, merge.ErrInvalidDecision) || !strings.Contains(err.Error(), "1.5") {
		t.Fatalf("merge with confidence 1.5: %v", err)
	}
	if g := f.graph(t, f.ns.SharedGraph("t")); len(g) != 0 {
		t.Fatalf("wrote %v", g)
	}
}

// TestManager_Merge_BadResult: a custom strategy's result that the team's
// records could not hold as it says fails the merge with
// merge.ErrInvalidDecision and writes nothing: a fact listed twice (it
// would be in two fact sets), a conflict whose id is not its topic's (a
// resolution of it would fail every later merge), a conflict listed twice.
func TestManager_Merge_BadResult(t *testing.T) {
	topic := merge.Topic{Subject: iri("s"), Predicate: iri("p")}
	conflict := merge.Conflict{ID: topic.ConflictID(), Topic: topic, Reason: "mine",
		Candidates: []merge.Candidate{{Object: quad.String("va"), Agents: []string{"a"}}}}
	for _, tc := range []struct {
		name string
		edit func(res *merge.Result)
		msg  string
	}{
		{"fact twice", func(res *merge.Result) {
			f := res.Facts[0]
			f.Supporters = []string{"b"}
			res.Facts = append(res.Facts, f)
		}, "listed twice"},
		{"fact twice, spelled two ways", func(res *merge.Result) {
			f := res.Facts[0]
			f.Object = quad.TypedString{Value: f.Object.(quad.String), Type: "http://www.w3.org/2001/XMLSchema#string"}
			res.Facts = append(res.Facts, f)
		}, "listed twice"},
		{"conflict id not its topic's", func(res *merge.Result) {
			c := conflict
			c.ID = "c-mine"
			res.Conflicts = append(res.Conflicts, c)
		}, "not its topic's"},
		{"conflict twice", func(res *merge.Result) {
			res.Conflicts = append(res.Conflicts, conflict, conflict)
		}, "listed twice"},
		// What the records would say of who asserted what must be true: the
		// provenance attributes a fact to its supporters, Facts reads their
		// findings back as the findings behind it, and a conflict's record
		// links its candidates' findings.
		{"supporter not a member", func(res *merge.Result) {
			res.Facts[0].Supporters = []string{"mallory"}
		}, "supporters"},
		{"supporter that did not assert the fact", func(res *merge.Result) {
			res.Facts[0].Supporters = []string{"a", "b"}
		}, "supporters"},
		{"supporter left out", func(res *merge.Result) {
			res.Facts[0].Supporters = []string{}
			res.Facts[0].FindingIDs = []string{}
		}, "supporters"},
		{"empty supporter", func(res *merge.Result) {
			res.Facts[0].Supporters = []string{""}
		}, "supporters"},
		{"finding not behind the fact", func(res *merge.Result) {
			res.Facts[0].FindingIDs = res.Facts[1].FindingIDs
		}, "findings"},
		{"invented object", func(res *merge.Result) {
			res.Facts[0].Object = quad.String("invented")
		}, "supporters"},
		{"invented object without supporters", func(res *merge.Result) {
			res.Facts[0].Object = quad.String("invented")
			res.Facts[0].Supporters, res.Facts[0].FindingIDs = []string{}, []string{}
		}, "supporters"},
		{"resolver without a resolution", func(res *merge.Result) {
			res.Facts[0].ResolvedBy = "mallory"
		}, "resolver"},
		{"conflict candidate with a finding not of its object", func(res *merge.Result) {
			c := conflict
			c.Candidates = []merge.Candidate{{Object: quad.String("va"), Agents: []string{"b"}, FindingIDs: res.Facts[1].FindingIDs}}
			res.Facts = nil
			res.Conflicts = append(res.Conflicts, c)
		}, "candidate"},
		{"conflict on a topic no one spoke on", func(res *merge.Result) {
			tp := merge.Topic{Subject: iri("s2"), Predicate: iri("p")}
			res.Conflicts = append(res.Conflicts, merge.Conflict{ID: tp.ConflictID(), Topic: tp, Reason: "mine", Candidates: []merge.Candidate{}})
		}, "spoke"},
		{"conflict on a topic with a literal subject", func(res *merge.Result) {
			// Its record would be written; once resolved, every merge of
			// the team would fail on the resolution.
			tp := merge.Topic{Subject: quad.String("s"), Predicate: iri("p")}
			res.Conflicts = append(res.Conflicts, merge.Conflict{ID: tp.ConflictID(), Topic: tp, Reason: "mine", Candidates: []merge.Candidate{}})
		}, "spoke"},
		{"conflict candidate without findings", func(res *merge.Result) {
			c := conflict
			c.Candidates = append(slices.Clone(c.Candidates), merge.Candidate{Object: quad.String("vc"), Agents: []string{}, FindingIDs: []string{}})
			c.Candidates[0].FindingIDs = res.Facts[0].FindingIDs
			res.Facts = nil
			res.Conflicts = append(res.Conflicts, c)
		}, "candidate"},
		// A conflict's record lists every candidate of its topic, each with
		// all of its findings (merge.Conflict, merge.Candidate): a human
		// resolving it must see every object proposed and who proposed it.
		{"conflict leaving a candidate out", func(res *merge.Result) {
			c := conflict
			c.Candidates = []merge.Candidate{{Object: quad.String("va"), Agents: []string{"a"}, FindingIDs: res.Facts[0].FindingIDs}}
			res.Facts = nil
			res.Conflicts = append(res.Conflicts, c)
		}, "candidate"},
		{"conflict listing a candidate twice", func(res *merge.Result) {
			c := conflict
			cd := merge.Candidate{Object: quad.String("va"), Agents: []string{"a"}, FindingIDs: res.Facts[0].FindingIDs}
			c.Candidates = []merge.Candidate{cd, {Object: quad.String("vb"), Agents: []string{"b"}, FindingIDs: res.Facts[1].FindingIDs}, cd}
			res.Facts = nil
			res.Conflicts = append(res.Conflicts, c)
		}, "candidate"},
		// A conflict is a topic the strategy could not decide: nothing is
		// written for it until it is resolved (merge.Conflict).
		{"fact on a topic in conflict", func(res *merge.Result) {
			c := conflict
			c.Candidates = []merge.Candidate{
				{Object: quad.String("va"), Agents: []string{"a"}, FindingIDs: res.Facts[0].FindingIDs},
				{Object: quad.String("vb"), Agents: []string{"b"}, FindingIDs: res.Facts[1].FindingIDs},
			}
			res.Conflicts = append(res.Conflicts, c)
		}, "conflict"},
		{"conflict candidate with an unknown finding", func(res *merge.Result) {
			c := conflict
			c.Candidates = []merge.Candidate{{Object: quad.String("va"), Agents: []string{"a"}, FindingIDs: []string{"a> <x"}}}
			res.Facts = nil
			res.Conflicts = append(res.Conflicts, c)
		}, "candidate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mergeRefused(t, merge.StrategyFunc(func(in merge.Input) (merge.Result, error) {
				res, err := merge.Merge(merge.NameAdditive, in)
				if err == nil {
					tc.edit(&res)
				}
				return res, err
			}), func(a string) quad.Value { return quad.String("v" + a) }, tc.msg)
		})
	}
}

// TestManager_Merge_StrategyPanics: a custom strategy that panics fails
// the merge with ErrStrategyPanicked instead of panicking in the caller:
// the completing update (automatic merge) returns the error, the team reads
// (GetTeam retries a due merge) as not merged with the panic recorded, a
// merge by hand fails the same way, nothing is merged; once the strategy
// works, the merge succeeds.
func TestManager_Merge_StrategyPanics(t *testing.T) {
	var panics atomic.Bool
	panics.Store(true)
	reg := merge.NewRegistry()
	merge.RegisterBuiltins(reg)
	reg.Register("fragile", merge.StrategyFunc(func(in merge.Input) (merge.Result, error) {
		if panics.Load() {
			panic("fragile strategy: index out of range")
		}
		return merge.Merge(merge.NameAdditive, in)
	}))
	f := newFixture(t, teammanager.DefaultConfig().WithRegistry(reg))
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Strategy: "fragile", Members: members("a")})
	f.status(t, "t", "a", teammanager.Running, "")
	if _, err := f.m.AddFinding(ctx, "t", "a", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("v")}); err != nil {
		t.Fatal(err)
	}
	call := func(name string, fn func() error) (err error) {
		t.Helper()
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("%s panicked: %v", name, r)
			}
		}()
		return fn()
	}
	var ae *teammanager.AutoMergeError
	err := call("completing update", func() error {
		_, err := f.m.UpdateMemberStatus(ctx, "t", "a", teammanager.Completed, "")
		return err
	})
	if !errors.Is(err, teammanager.ErrStrategyPanicked) || !errors.As(err, &ae) || !strings.Contains(err.Error(), "index out of range") {
		t.Fatalf("completing update: %v; want an *AutoMergeError wrapping ErrStrategyPanicked with the panic value", err)
	}
	var got teammanager.Team
	if err := call("GetTeam", func() (err error) { got, err = f.m.GetTeam(ctx, "t"); return err }); err != nil {
		t.Fatal(err)
	}
	if got.Merged || got.MergePending != "failed" || !strings.Contains(got.MergeError, "merge strategy panicked") {
		t.Fatalf("team after the panic: merged %v, pending %q, error %q", got.Merged, got.MergePending, got.MergeError)
	}
	err = call("MergeTeamResults", func() error { _, err := f.m.MergeTeamResults(ctx, "t"); return err })
	if !errors.Is(err, teammanager.ErrStrategyPanicked) {
		t.Fatalf("merge by hand: %v", err)
	}
	if g := f.graph(t, f.ns.SharedGraph("t")); len(g) != 0 {
		t.Fatalf("a panicking strategy's merge wrote %v", g)
	}
	panics.Store(false)
	rep, err := f.m.MergeTeamResults(ctx, "t")
	if err != nil || rep.Kept != 1 {
		t.Fatalf("merge once the strategy works: %+v, %v", rep, err)
	}
	if got := f.get(t, "t"); !got.Merged || got.MergePending != "" {
		t.Fatalf("team after the merge: merged %v, pending %q", got.Merged, got.MergePending)
	}
}

// TestManager_TeamTable_OlderRows: a team table written before the merge
// fields were listed (rows of 10 values) reads as stale, so listings show
// merged teams as merged and the table is rebuilt.
func TestManager_TeamTable_OlderRows(t *testing.T) {
	f := newFixture(t)
	codeReview(t, f, merge.NameAdditive)
	rows, current, err := f.n.SideRows(ctx, teammanager.TeamTable)
	if err != nil || !current || len(rows) != 1 {
		t.Fatalf("table: %d rows, current %v, %v", len(rows), current, err)
	}
	err = f.n.Update(ctx, func(tx *cortex.Tx) error {
		tx.PutSide(teammanager.TeamTable, rows[0].Key, rows[0].Vals[:10])
		tx.KeepSide(teammanager.TeamTable)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	listed, err := f.m.ListTeams(ctx, teammanager.TeamFilter{})
	if err != nil || len(listed) != 1 || !listed[0].Merged || listed[0].LastMerge == "" {
		t.Fatalf("listed from an older table: %+v, %v", listed, err)
	}
	rows, current, err = f.n.SideRows(ctx, teammanager.TeamTable)
	if err != nil || !current || len(rows) != 1 || len(rows[0].Vals) == 10 {
		t.Fatalf("table after the listing: %+v, current %v, %v", rows, current, err)
	}
	f.sameAsQuads(t, "rebuilt")
}

// openManager opens the store in dir (read-only or not) and a Manager over
// its namespace acme with cfg; the store is closed when the test ends (or
// before, by the test).
func openManager(t *testing.T, dir string, readOnly bool, cfg teammanager.Config) (*cortex.Store, *teammanager.Manager) {
	t.Helper()
	opts := cortex.DefaultOptions().WithSyncWrites(false)
	if readOnly {
		opts = cortex.DefaultOptions().WithReadOnly(true)
	}
	s, err := cortex.Open(ctx, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if s.ReadOnly() != readOnly {
		t.Fatalf("store opened read-only %v reports ReadOnly %v", readOnly, s.ReadOnly())
	}
	x, err := namespace.New("acme")
	if err != nil {
		t.Fatal(err)
	}
	m, err := teammanager.New(ctx, s, x, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, m
}

// flakyConfig returns the default config with the registry of the
// built-ins and strategy "flaky", and clock's time.
func flakyConfig(clock *fakeClock) (teammanager.Config, *flaky) {
	reg := merge.NewRegistry()
	merge.RegisterBuiltins(reg)
	st := &flaky{}
	reg.Register("flaky", st)
	return teammanager.DefaultConfig().WithRegistry(reg).WithClock(clock.Now), st
}

// errCrash stands for a crash in the middle of a merge (see crashInMerge).
var errCrash = errors.New("crash in the merge")

// crashInMerge runs fn (a call that merges) with a merge that stops inside
// its write, before committing anything, as a killed process would: the
// write that finished the team (and recorded its due merge) stays, the
// merge leaves nothing.
func crashInMerge(t *testing.T, fn func()) {
	t.Helper()
	teammanager.SetMergeWriteHook(func() { panic(errCrash) })
	defer teammanager.SetMergeWriteHook(nil)
	defer func() {
		if r := recover(); r != errCrash {
			t.Fatalf("the merge did not stop: %v", r)
		}
	}()
	fn()
}

// TestManager_AutoMerge_ReadOnly: on a store opened read-only no due merge
// can be written, so none is run: neither New nor reads run a strategy
// (before, New ran every interrupted merge and then failed at its write),
// and teams read as the store has them: failed, interrupted, or timed out
// (MergeTimeout) and not merged. Read-write again, the merges are retried.
func TestManager_AutoMerge_ReadOnly(t *testing.T) {
	dir := t.TempDir()
	clock := newClock()
	cfg, st := flakyConfig(clock)
	s, m := openManager(t, dir, false, cfg)
	f := &fixture{s: s, m: m, ns: m.Namespace(), clock: clock}
	// Team "failed": its automatic merge failed.
	startTeam(t, f, "failed")
	f.status(t, "failed", "a", teammanager.Completed, "")
	st.fail.Store(true)
	if _, err := m.UpdateMemberStatus(ctx, "failed", "b", teammanager.Completed, ""); err == nil {
		t.Fatal("the merge did not fail")
	}
	st.fail.Store(false)
	// Team "crashed": its automatic merge stopped half-way.
	startTeam(t, f, "crashed")
	f.status(t, "crashed", "a", teammanager.Completed, "")
	crashInMerge(t, func() { m.UpdateMemberStatus(ctx, "crashed", "b", teammanager.Completed, "") })
	// Team "t": timed out with a completed member, not recorded.
	timedOutTeam(t, f, "flaky")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	before := st.calls.Load()
	s, m = openManager(t, dir, true, cfg)
	want := map[string]string{"failed": teammanager.MergeFailed, "crashed": teammanager.MergeInterrupted, "t": teammanager.MergeTimeout}
	for range 3 {
		for id, pending := range want {
			got, err := m.GetTeam(ctx, id)
			if err != nil || got.Merged || got.MergePending != pending {
				t.Fatalf("read-only GetTeam(%s): %+v, %v; want merge pending %q", id, got, err, pending)
			}
		}
	}
	got, err := m.GetTeam(ctx, "t")
	if err != nil || got.Status != teammanager.Failed || got.FailReason != teammanager.FailTimeout {
		t.Fatalf("read-only, timed out: %+v, %v", got, err)
	}
	if runs := st.calls.Load() - before; runs != 0 {
		t.Fatalf("New and 9 reads of a read-only store ran the strategy %d times, want 0", runs)
	}
	// With auto-merge off, a timeout makes no merge due.
	off, err := teammanager.New(ctx, s, m.Namespace(), cfg.WithAutoMerge(false))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := off.GetTeam(ctx, "t"); err != nil || got.Status != teammanager.Failed || got.MergePending != "" {
		t.Fatalf("auto-merge off, timed out: %+v, %v", got, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// Read-write: New retries the interrupted merge, GetTeam the timeout.
	_, m = openManager(t, dir, false, cfg)
	for id, merged := range map[string]bool{"failed": false, "crashed": true, "t": true} {
		got, err := m.GetTeam(ctx, id)
		if err != nil || got.Merged != merged {
			t.Fatalf("read-write GetTeam(%s): %+v, %v; want merged %v", id, got, err, merged)
		}
	}
	if runs := st.calls.Load() - before; runs != 2 {
		t.Fatalf("the strategy ran %d times read-write, want 2 (crashed, t)", runs)
	}
}

// TestManager_Sweep_FailingTimeoutMergeOnce: Sweep records a timeout and
// runs the merge it makes due once: a failing one gives one
// *AutoMergeError for the team (not a second from the retry of due
// merges that follows).
func TestManager_Sweep_FailingTimeoutMergeOnce(t *testing.T) {
	f, s := flakyFixture(t, teammanager.DefaultConfig())
	timedOutTeam(t, f, "flaky")
	s.fail.Store(true)
	ids, err := f.m.Sweep(ctx)
	if !slices.Equal(ids, []string{"t"}) || !errors.Is(err, errFlaky) {
		t.Fatalf("Sweep = %v, %v", ids, err)
	}
	var ames []*teammanager.AutoMergeError
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var ame *teammanager.AutoMergeError
		if errors.As(e, &ame) {
			ames = append(ames, ame)
		}
	}
	if len(ames) != 1 || ames[0].Team != "t" || s.calls.Load() != 1 {
		t.Fatalf("Sweep ran %d merges and returned %d AutoMergeErrors (%v), want 1 of team t", s.calls.Load(), len(ames), err)
	}
	// The next Sweep retries the failed merge, once.
	if _, err := f.m.Sweep(ctx); !errors.Is(err, errFlaky) || s.calls.Load() != 2 {
		t.Fatalf("second Sweep: %v after %d merges", err, s.calls.Load())
	}
}

// TestManager_ReadsDoNotWaitForMerge holds a team's automatic merge
// between its reads and its write while GetTeam, IsTeamComplete and
// Findings read the team: they return at once, the team reading as not
// merged (interrupted), without running a second merge. (Reads that waited
// for the merge would wait for ever here: the merge waits for them.)
func TestManager_ReadsDoNotWaitForMerge(t *testing.T) {
	f, s := flakyFixture(t, teammanager.DefaultConfig())
	startTeam(t, f, "t")
	f.status(t, "t", "a", teammanager.Completed, "")
	entered, release := make(chan struct{}), make(chan struct{})
	teammanager.SetMergeHook(func() { close(entered); <-release })
	defer teammanager.SetMergeHook(nil)
	done := make(chan error)
	go func() {
		_, err := f.m.UpdateMemberStatus(ctx, "t", "b", teammanager.Completed, "")
		done <- err
	}()
	<-entered
	got, err := f.m.GetTeam(ctx, "t")
	if err != nil || got.Status != teammanager.Completed || got.Merged || got.MergePending != teammanager.MergeInterrupted {
		t.Fatalf("GetTeam during the merge: %+v, %v", got, err)
	}
	if complete, err := f.m.IsTeamComplete(ctx, "t"); err != nil || !complete {
		t.Fatalf("IsTeamComplete during the merge: %v, %v", complete, err)
	}
	if fs, err := f.m.Findings(ctx, "t", teammanager.FindingFilter{}); err != nil || len(fs) != 2 {
		t.Fatalf("Findings during the merge: %d, %v", len(fs), err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	teammanager.SetMergeHook(nil)
	if got := f.get(t, "t"); !got.Merged || s.calls.Load() != 1 {
		t.Fatalf("after the merge: %+v, %d merges", got, s.calls.Load())
	}
}

// TestManager_Merge_StrategyIgnoringResolution: a custom strategy that
// drops the team's resolutions (it merges without them, or forgets to mark
// the resolved facts) fails the merge with merge.ErrInvalidDecision and
// writes nothing: its result would add a second run link to the resolved
// conflict's record, or store the resolved topic's facts as if no one had
// resolved it.
func TestManager_Merge_StrategyIgnoringResolution(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(in merge.Input, res *merge.Result) (merge.Result, error)
		msg  string
	}{
		{"merged without the resolutions", func(in merge.Input, res *merge.Result) (merge.Result, error) {
			in.Resolutions = nil
			return merge.Merge(merge.NameConflictFlag, in)
		}, "resolved"},
		{"resolver left out", func(in merge.Input, res *merge.Result) (merge.Result, error) {
			for i := range res.Facts {
				res.Facts[i].ResolvedBy = ""
			}
			return *res, nil
		}, "resolver"},
		// The resolver chose "va": a fact credited to it must be one it chose.
		{"invented object credited to the resolver", func(in merge.Input, res *merge.Result) (merge.Result, error) {
			res.Facts = append(res.Facts, merge.Fact{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("invented"),
				Supporters: []string{}, FindingIDs: []string{}, ResolvedBy: "lead"})
			return *res, nil
		}, "not chosen"},
		{"object the resolver did not choose", func(in merge.Input, res *merge.Result) (merge.Result, error) {
			for _, f := range in.Findings {
				if f.Agent == "b" {
					res.Facts = []merge.Fact{{Subject: iri("s"), Predicate: iri("p"), Object: f.Object,
						Supporters: []string{"b"}, FindingIDs: []string{f.ID}, ResolvedBy: "lead"}}
				}
			}
			return *res, nil
		}, "not chosen"},
		// The resolution replaces the strategy's output for its topic: the
		// conflict's record says "va" was chosen, so "va" must be a fact.
		{"chosen object left out", func(in merge.Input, res *merge.Result) (merge.Result, error) {
			res.Facts = []merge.Fact{}
			return *res, nil
		}, "chose"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var broken atomic.Bool
			reg := merge.NewRegistry()
			merge.RegisterBuiltins(reg)
			reg.Register("forgetful", merge.StrategyFunc(func(in merge.Input) (merge.Result, error) {
				res, err := merge.Merge(merge.NameConflictFlag, in)
				if err != nil || !broken.Load() {
					return res, err
				}
				return tc.edit(in, &res)
			}))
			f := newFixture(t, teammanager.DefaultConfig().WithRegistry(reg).WithAutoMerge(false))
			f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Strategy: "forgetful", Members: members("a", "b")})
			for _, a := range []string{"a", "b"} {
				f.status(t, "t", a, teammanager.Running, "")
				if _, err := f.m.AddFinding(ctx, "t", a, teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("v" + a)}); err != nil {
					t.Fatal(err)
				}
				f.status(t, "t", a, teammanager.Completed, "")
			}
			if _, err := f.m.MergeTeamResults(ctx, "t"); err != nil {
				t.Fatal(err)
			}
			cs, err := f.m.Conflicts(ctx, "t")
			if err != nil || len(cs) != 1 {
				t.Fatalf("conflicts %v, %v", cs, err)
			}
			rep, err := f.m.ResolveConflict(ctx, "t", cs[0].ID, []quad.Value{quad.String("va")}, "lead")
			if err != nil {
				t.Fatal(err)
			}
			before := map[quad.Value]int{}
			for _, g := range []quad.Value{f.ns.SharedGraph("t"), f.ns.ConflictGraph("t"), f.ns.ProvenanceGraph("t")} {
				before[g] = len(f.graph(t, g))
			}
			broken.Store(true)
			_, err = f.m.MergeTeamResults(ctx, "t")
			if !errors.Is(err, merge.ErrInvalidDecision) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("merge: %v; want merge.ErrInvalidDecision saying %q", err, tc.msg)
			}
			for g, n := range before {
				if got := len(f.graph(t, g)); got != n {
					t.Errorf("the refused merge changed %s: %d quads, was %d", g, got, n)
				}
			}
			if got := f.get(t, "t"); got.LastMerge != rep.MergeID {
				t.Errorf("last merge %s, want %s", got.LastMerge, rep.MergeID)
			}
		})
	}
}

// TestManager_Merge_BadResult_LanguageTagCase: a custom strategy that lists
// one fact twice, its object spelled with language tags that differ only in
// case ("v"@en and "v"@EN, one object to a merge), fails the merge with
// merge.ErrInvalidDecision like any fact listed twice, and writes nothing:
// else the shared graph would hold both spellings, each in a fact set with
// the same findings behind it.
func TestManager_Merge_BadResult_LanguageTagCase(t *testing.T) {
	mergeRefused(t, merge.StrategyFunc(func(in merge.Input) (merge.Result, error) {
		res, err := merge.Merge(merge.NameAdditive, in)
		if err == nil && len(res.Facts) == 1 {
			f := res.Facts[0]
			lit := f.Object.(quad.LangString)
			lit.Lang = strings.ToLower(lit.Lang)
			if lit.Lang == f.Object.(quad.LangString).Lang {
				lit.Lang = strings.ToUpper(lit.Lang)
			}
			f.Object = lit
			res.Facts = append(res.Facts, f)
			slices.SortFunc(res.Facts, func(a, b merge.Fact) int { return merge.CompareTerms(a.Object, b.Object) })
		}
		return res, err
	}), func(a string) quad.Value {
		return quad.LangString{Value: "v", Lang: map[string]string{"a": "en", "b": "EN"}[a]}
	}, "listed twice")
}

// TestManager_Merge_StrategyModifyingInput: a custom strategy that rewrites
// the input it is given (here, crediting b's findings to a) cannot make its
// result's false provenance pass the check: the result is checked against
// the findings as stored, the merge fails with merge.ErrInvalidDecision and
// writes nothing.
func TestManager_Merge_StrategyModifyingInput(t *testing.T) {
	mergeRefused(t, merge.StrategyFunc(func(in merge.Input) (merge.Result, error) {
		for i := range in.Findings {
			in.Findings[i].Agent = "a"
		}
		return merge.Merge(merge.NameAdditive, in)
	}), func(a string) quad.Value { return quad.String("v" + a) }, "supporters")
}

// mergeRefused registers strat as a custom strategy and runs it on team t
// of members a and b, each asserting s p object(agent) and completing: the
// merge by hand must fail with merge.ErrInvalidDecision saying want, and
// write nothing.
func mergeRefused(t *testing.T, strat merge.Strategy, object func(agent string) quad.Value, want string) {
	t.Helper()
	f := customTeam(t, strat, func(a, _ string) quad.Value { return object(a) }, "s")
	_, err := f.m.MergeTeamResults(ctx, "t")
	if !errors.Is(err, merge.ErrInvalidDecision) || !strings.Contains(err.Error(), want) {
		t.Fatalf("merge: %v; want merge.ErrInvalidDecision saying %q", err, want)
	}
	for _, g := range []quad.Value{f.ns.SharedGraph("t"), f.ns.ConflictGraph("t"), f.ns.ProvenanceGraph("t")} {
		if qs := f.graph(t, g); len(qs) != 0 {
			t.Fatalf("the refused merge wrote %v", qs)
		}
	}
}
