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
// then each retry point — a read, a write, Sweep — merges it once the
// strategy works again, and MergeTeamResults by hand too.
func TestManager_AutoMerge_FailedIsPendingAndRetried(t *testing.T) {
	retryPoints := []struct {
		name  string
		retry func(t *testing.T, f *fixture) // must leave the team merged
	}{
		{"GetTeam", func(t *testing.T, f *fixture) { f.get(t, "t") }},
		{"IsTeamComplete", func(t *testing.T, f *fixture) {
			if done, err := f.m.IsTeamComplete(ctx, "t"); err != nil || !done {
				t.Fatalf("IsTeamComplete = %v, %v", done, err)
			}
		}},
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
			// Reads report it (GetTeam retries, and fails again).
			got := f.get(t, "t")
			if got.Status != teammanager.Completed || got.Merged || got.MergePending != teammanager.MergeFailed || !strings.Contains(got.MergeError, errFlaky.Error()) {
				t.Fatalf("team after a failed merge: %+v", got)
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
// timeout, and the report lists who was missing. Both ways of recording the
// timeout merge: Sweep and the next write.
func TestManager_AutoMerge_Timeout(t *testing.T) {
	setup := func(t *testing.T) *fixture {
		f := newFixture(t)
		f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a", "b", "c"), Timeout: time.Minute})
		for _, a := range []string{"a", "b"} {
			f.status(t, "t", a, teammanager.Running, "")
			if _, err := f.m.AddFinding(ctx, "t", a, teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String(a)}); err != nil {
				t.Fatal(err)
			}
		}
		f.status(t, "t", "a", teammanager.Completed, "")
		f.clock.Advance(2 * time.Minute)
		if got := f.get(t, "t"); got.Status != teammanager.Failed || got.Merged || got.MergePending != "" {
			t.Fatalf("timed out, not recorded: %+v", got)
		}
		return f
	}
	check := func(t *testing.T, f *fixture) {
		got := f.get(t, "t")
		if got.Status != teammanager.Failed || got.FailReason != teammanager.FailTimeout || !got.Merged {
			t.Fatalf("team %+v", got)
		}
		shared := f.graph(t, f.ns.SharedGraph("t"))
		if len(shared) != 1 || shared[0].Object != quad.String("a") {
			t.Fatalf("shared graph %v, want a's finding only", shared)
		}
	}
	t.Run("Sweep", func(t *testing.T) {
		f := setup(t)
		if ids, err := f.m.Sweep(ctx); err != nil || !slices.Equal(ids, []string{"t"}) {
			t.Fatalf("Sweep = %v, %v", ids, err)
		}
		check(t, f)
	})
	t.Run("write", func(t *testing.T) {
		f := setup(t)
		up, err := f.m.UpdateMemberStatus(ctx, "t", "b", teammanager.Completed, "late")
		if !errors.Is(err, teammanager.ErrTeamFinished) || up.Merge == nil {
			t.Fatalf("late update: %+v, %v", up, err)
		}
		if rep := up.Merge; rep.Kept != 1 || !slices.Equal(rep.Missing, []string{"b", "c"}) || rep.Ignored != 1 {
			t.Fatalf("report: kept %d, missing %v, ignored %d", rep.Kept, rep.Missing, rep.Ignored)
		}
		check(t, f)
	})
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

// TestManager_AutoMerge_ReadOnly: on a store opened read-only a due merge
// cannot be written; the team reads as not merged, as recorded, and the
// Manager finds that out once: later reads do not run the strategy again.
func TestManager_AutoMerge_ReadOnly(t *testing.T) {
	dir := t.TempDir()
	s, err := cortex.Open(ctx, dir, cortex.DefaultOptions().WithSyncWrites(false))
	if err != nil {
		t.Fatal(err)
	}
	reg := merge.NewRegistry()
	merge.RegisterBuiltins(reg)
	st := &flaky{}
	reg.Register("flaky", st)
	x, err := namespace.New("acme")
	if err != nil {
		t.Fatal(err)
	}
	cfg := teammanager.DefaultConfig().WithRegistry(reg).WithClock(newClock().Now)
	m, err := teammanager.New(ctx, s, x, cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{s: s, m: m, ns: x}
	startTeam(t, f, "t")
	f.status(t, "t", "a", teammanager.Completed, "")
	st.fail.Store(true)
	if _, err := m.UpdateMemberStatus(ctx, "t", "b", teammanager.Completed, ""); err == nil {
		t.Fatal("the merge did not fail")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	st.fail.Store(false)
	s, err = cortex.Open(ctx, dir, cortex.DefaultOptions().WithReadOnly(true))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m, err = teammanager.New(ctx, s, x, cfg)
	if err != nil {
		t.Fatal(err)
	}
	before := st.calls.Load()
	for range 3 {
		got, err := m.GetTeam(ctx, "t")
		if err != nil || got.Merged || got.MergePending != teammanager.MergeFailed || !strings.Contains(got.MergeError, errFlaky.Error()) {
			t.Fatalf("read-only GetTeam: %+v, %v", got, err)
		}
	}
	if runs := st.calls.Load() - before; runs != 1 {
		t.Fatalf("the strategy ran %d times for 3 reads of a read-only store, want 1", runs)
	}
}
