package teammanager_test

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

// groupedCall is a call queued behind a held write: a finding (status
// empty) or a member update.
type groupedCall struct {
	team, agent string
	status      teammanager.Status
	want        error // nil: succeeds
	transition  bool  // fails with a *TransitionError
}

// runQueued starts calls[0], waits until its batch waits for the held
// write, queues the others one by one in order, releases the write and
// checks each call's error; it returns the member updates.
func runQueued(t *testing.T, f *fixture, release func(), calls []groupedCall) []teammanager.MemberUpdate {
	t.Helper()
	errs := make([]error, len(calls))
	ups := make([]teammanager.MemberUpdate, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if c.status == "" {
				_, errs[i] = f.m.AddFinding(ctx, c.team, c.agent, finding(i))
			} else {
				ups[i], errs[i] = f.m.UpdateMemberStatus(ctx, c.team, c.agent, c.status, fmt.Sprint("result ", i))
			}
		}()
		waitQueue(t, f.m, i, 1) // the first is the first batch, alone
	}
	release()
	wg.Wait()
	for i, c := range calls {
		var te *teammanager.TransitionError
		ok := errs[i] == nil && c.want == nil && !c.transition ||
			c.want != nil && errors.Is(errs[i], c.want) ||
			c.transition && errors.As(errs[i], &te)
		if !ok {
			t.Errorf("call %d (%s/%s %q): err = %v, want %v (transition error: %v)", i, c.team, c.agent, c.status, errs[i], c.want, c.transition)
		}
	}
	return ups
}

// storedObjects returns the objects of the findings of team, sorted.
func (f *fixture) storedObjects(t *testing.T, team string) []string {
	t.Helper()
	fs, err := f.m.Findings(ctx, team, teammanager.FindingFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, sf := range fs {
		out = append(out, sf.Agent+":"+string(sf.Object.(quad.String)))
	}
	slices.Sort(out)
	return out
}

// Member updates queued behind a write share a commit with the findings
// queued with them: they are checked and applied in queue order (a
// finding queued after its member's completion is refused), each fails or
// succeeds on its own, a batch takes one update per team (the second goes
// to the next batch), the automatic merge an update makes due runs after
// the commit, and the events of a batch come in queue order.
func TestUpdateMemberStatus_GroupCommit(t *testing.T) {
	f := newFixture(t)
	f.running(t, "t1", "a", "b")
	f.running(t, "t2", "a")
	f.running(t, "t3", "a", "b")
	last, err := f.m.LastEventID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	teammanager.ResetBatchCounts(f.m)
	calls := []groupedCall{
		{team: "t1", agent: "a"}, // the first batch, alone
		{team: "t1", agent: "a"},
		{team: "t1", agent: "a", status: teammanager.Completed},
		{team: "t1", agent: "a", want: teammanager.ErrMemberFinished}, // queued after its completion
		{team: "t2", agent: "a", status: teammanager.Completed},       // finishes t2
		{team: "t3", agent: "a", status: teammanager.Pending, transition: true},
		{team: "t3", agent: "zed", status: teammanager.Running, want: teammanager.ErrUnknownAgent},
		{team: "nosuch", agent: "a", status: teammanager.Running, want: teammanager.ErrUnknownTeam},
		{team: "t1", agent: "b", status: teammanager.Completed}, // t1's second update: the third batch
		{team: "t3", agent: "b"},
	}
	ups := runQueued(t, f, holdWrites(t, f), calls)
	if _, batches := teammanager.FindingsQueue(f.m); batches != 3 {
		t.Errorf("%d batches, want 3: the first call, then up to t1's second update, then the rest", batches)
	}

	if got, want := f.storedObjects(t, "t1"), []string{"a:0", "a:1"}; !slices.Equal(got, want) {
		t.Errorf("t1's findings: %v, want %v", got, want)
	}
	if got, want := f.storedObjects(t, "t3"), []string{"b:9"}; !slices.Equal(got, want) {
		t.Errorf("t3's findings: %v, want %v", got, want)
	}
	for _, c := range []struct {
		call   int
		status teammanager.Status
	}{{2, teammanager.Running}, {4, teammanager.Completed}, {8, teammanager.Completed}} {
		up := ups[c.call]
		if up.TeamStatus != c.status || up.Member.Status != calls[c.call].status || up.Member.Result != fmt.Sprint("result ", c.call) {
			t.Errorf("call %d: update %+v, want team %s and the member %s with its result", c.call, up, c.status, calls[c.call].status)
		}
		if merged := up.Merge != nil; merged != (c.status == teammanager.Completed) {
			t.Errorf("call %d: merge report %+v, want one: %v", c.call, up.Merge, c.status == teammanager.Completed)
		}
	}
	for team, want := range map[string]teammanager.Status{"t1": teammanager.Completed, "t2": teammanager.Completed, "t3": teammanager.Running} {
		tm, err := f.m.GetTeam(ctx, team)
		if err != nil {
			t.Fatal(err)
		}
		if tm.Status != want || tm.Merged != (want == teammanager.Completed) || f.storedStatus(t, team) != want {
			t.Errorf("team %s: %s (stored %s), merged %v; want %s", team, tm.Status, f.storedStatus(t, team), tm.Merged, want)
		}
		for _, mb := range tm.Members {
			if mb.Status == teammanager.Completed && mb.CompletedAt.IsZero() {
				t.Errorf("team %s: member %s completed without a completion time", team, mb.AgentID)
			}
		}
	}

	// The second batch's events, consecutive and in queue order.
	var got []string
	for _, ev := range stored(t, f.m) {
		if ev.ID <= last {
			continue
		}
		s := string(ev.Type) + " " + ev.Team
		if ev.Type == teammanager.EventMemberStatus {
			s += " " + ev.Member.Member.AgentID + " " + string(ev.Member.Member.Status)
		}
		got = append(got, s)
	}
	second := []string{
		"findings.added t1",
		"member.status t1 a completed",
		"member.status t2 a completed",
		"team.status t2",
	}
	at := slices.Index(got, second[1]) - 1
	if at < 0 || len(got) < at+len(second) || !slices.Equal(got[at:at+len(second)], second) {
		t.Errorf("events: %q, want %q in a row", got, second)
	}
}

// A member update that fails once it has staged part of its change
// abandons its batch, whose calls are then written one by one: that
// update fails alone, with nothing of it written, and the others succeed.
func TestUpdateMemberStatus_GroupCommitFailedUpdateFailsAlone(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	f.running(t, "t1", "a", "b")
	f.running(t, "t2", "a", "b")
	broken := errors.New("board unreadable")
	teammanager.SetMemberChangeHook(func(team, agent string) error {
		if team == "t1" && agent == "b" {
			return broken
		}
		return nil
	})
	t.Cleanup(func() { teammanager.SetMemberChangeHook(nil) })
	teammanager.ResetBatchCounts(f.m)
	runQueued(t, f, holdWrites(t, f), []groupedCall{
		{team: "t1", agent: "a"}, // the first batch, alone
		{team: "t1", agent: "a", status: teammanager.Completed},
		{team: "t2", agent: "b"},
		{team: "t1", agent: "b", status: teammanager.Completed, want: broken},
		{team: "t2", agent: "a", status: teammanager.Failed},
	})
	// The first batch, the abandoned second, then one per call of it: the
	// update of t1/b goes to the third batch (t1's second), which fails
	// alone.
	tm, err := f.m.GetTeam(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	st := map[string]teammanager.Status{}
	for _, mb := range tm.Members {
		st[mb.AgentID] = mb.Status
	}
	if st["a"] != teammanager.Completed || st["b"] != teammanager.Running || tm.Status != teammanager.Running {
		t.Errorf("t1: %s, members %v; want running, a completed, b running", tm.Status, st)
	}
	tm, err = f.m.GetTeam(ctx, "t2")
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := tm.Member("a"); m == nil || m.Status != teammanager.Failed {
		t.Errorf("t2's member a: %+v, want failed", m)
	}
	if got, want := f.storedObjects(t, "t2"), []string{"b:2"}; !slices.Equal(got, want) {
		t.Errorf("t2's findings: %v, want %v", got, want)
	}
}

// The merges of a Manager write one at a time: while one waits for the
// namespace's write lock, the next waits for its turn outside the lock's
// queue, so a finding that comes after both commits before the second
// (the lock is taken in the order writers come, and a burst of merges
// queued there would hold every later write back for all of them).
func TestMerge_WritesOneAtATime(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	for _, team := range []string{"ta", "tb"} {
		f.running(t, team, "a")
		if _, err := f.m.AddFinding(ctx, team, "a", finding(0)); err != nil {
			t.Fatal(err)
		}
		f.status(t, team, "a", teammanager.Completed, "")
	}
	f.running(t, "tc", "a")
	last, err := f.m.LastEventID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	teammanager.ResetBatchCounts(f.m)
	release := holdWrites(t, f)
	var wg sync.WaitGroup
	merge := func(team string) {
		wg.Go(func() {
			if _, err := f.m.MergeTeamResults(ctx, team); err != nil {
				t.Errorf("merge %s: %v", team, err)
			}
		})
	}
	merge("ta")
	for f.n.WriteStats().LockWaiting != 1 { // ta's write waits for the lock
		runtime.Gosched()
	}
	merge("tb")
	for f.n.WriteStats().LockWaiting != 2 && teammanager.MergeWritesWaiting(f.m) != 1 { // tb's too
		runtime.Gosched()
	}
	wg.Go(func() {
		if _, err := f.m.AddFinding(ctx, "tc", "a", finding(1)); err != nil {
			t.Error(err)
		}
	})
	waitQueue(t, f.m, 0, 1) // its batch is taken: it waits for the lock
	for f.n.WriteStats().LockWaiting < 2 {
		runtime.Gosched()
	}
	release()
	wg.Wait()
	var got []string
	for _, ev := range stored(t, f.m) {
		if ev.ID > last && (ev.Type == teammanager.EventMergeCompleted || ev.Type == teammanager.EventFindingsAdded) {
			got = append(got, string(ev.Type)+" "+ev.Team)
		}
	}
	if want := []string{"merge.completed ta", "findings.added tc", "merge.completed tb"}; !slices.Equal(got, want) {
		t.Errorf("writes in the order %q, want %q", got, want)
	}
}

// The merges of two teams never wait for each other, whatever their ids
// (the locks were once 64 mutexes hashed by team id: teams sharing one
// waited for each other's merges). Two ids that shared a slot: one team's
// merge is held in the middle while the other's runs to the end.
func TestMerge_TeamsDoNotShareALock(t *testing.T) {
	slot := func(id string) uint32 {
		h := fnv.New32a()
		h.Write([]byte(id))
		return h.Sum32() % 64
	}
	ids := []string{"t0"}
	for i := 1; len(ids) < 2; i++ {
		if id := fmt.Sprint("t", i); slot(id) == slot(ids[0]) {
			ids = append(ids, id)
		}
	}
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	for _, team := range ids {
		f.running(t, team, "a")
		if _, err := f.m.AddFinding(ctx, team, "a", finding(0)); err != nil {
			t.Fatal(err)
		}
		f.status(t, team, "a", teammanager.Completed, "")
	}
	var first atomic.Bool
	held, release := make(chan struct{}), make(chan struct{})
	teammanager.SetMergeHook(func() {
		if first.CompareAndSwap(false, true) {
			close(held)
			<-release
		}
	})
	t.Cleanup(func() { teammanager.SetMergeHook(nil) })
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() {
		if _, err := f.m.MergeTeamResults(ctx, ids[0]); err != nil {
			t.Error(err)
		}
	})
	<-held
	done := make(chan error, 1)
	go func() { _, err := f.m.MergeTeamResults(ctx, ids[1]); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("the merge of %s waited for the merge of %s", ids[1], ids[0])
	}
	close(release)
	if t.Failed() {
		<-done
	}
}

// A member update of a team that timed out returns the member as stored,
// in full (its role and result), as when it is written alone, also when a
// finding earlier in its batch read the team first (without the member in
// focus).
func TestUpdateMemberStatus_GroupCommitTimedOutMember(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	f.running(t, "t0", "x")
	f.create(t, teammanager.TeamConfig{ID: "t1", Name: "t1", Members: members("a", "b"), Timeout: time.Minute})
	f.status(t, "t1", "a", teammanager.Running, "progress")
	f.status(t, "t1", "b", teammanager.Running, "")
	f.clock.Advance(2 * time.Minute)
	teammanager.ResetBatchCounts(f.m)
	ups := runQueued(t, f, holdWrites(t, f), []groupedCall{
		{team: "t0", agent: "x"}, // the first batch, alone
		{team: "t1", agent: "b", want: teammanager.ErrTeamFinished},
		{team: "t1", agent: "a", status: teammanager.Completed, want: teammanager.ErrTeamFinished},
	})
	if _, batches := teammanager.FindingsQueue(f.m); batches != 2 {
		t.Fatalf("%d batches, want 2", batches)
	}
	mb := ups[2].Member
	if mb.AgentID != "a" || mb.Status != teammanager.Running || mb.Role != "reviewer" || mb.Result != "progress" {
		t.Errorf("member %+v, want a running, its role and result as stored", mb)
	}
	if ups[2].TeamStatus != teammanager.Failed {
		t.Errorf("team status %s, want failed", ups[2].TeamStatus)
	}
}

// A member update whose team a finding earlier in its batch read, and
// that finds its member unreadable once it reads the member in full,
// fails on its own: the batch's other calls are written.
func TestUpdateMemberStatus_GroupCommitCorruptMemberFailsAlone(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	f.running(t, "t0", "x")
	f.running(t, "t1", "a", "b")
	f.running(t, "t2", "x")
	// Member a's role is an IRI: only a read of a in full sees it.
	node, g, role := f.ns.Member("t1", "a"), f.ns.TeamGraph("t1"), f.ns.IRI(namespace.MemberRole)
	if err := f.n.Apply(ctx, cortex.Delta{
		Remove: []quad.Quad{{Subject: node, Predicate: role, Object: namespace.String("reviewer"), Label: g}},
		Add:    []quad.Quad{{Subject: node, Predicate: role, Object: quad.IRI("http://ex.org/role"), Label: g}},
	}); err != nil {
		t.Fatal(err)
	}
	teammanager.ResetBatchCounts(f.m)
	runQueued(t, f, holdWrites(t, f), []groupedCall{
		{team: "t0", agent: "x"}, // the first batch, alone
		{team: "t1", agent: "b"},
		{team: "t1", agent: "a", status: teammanager.Completed, want: teammanager.ErrCorrupt},
		{team: "t2", agent: "x"},
	})
	if _, batches := teammanager.FindingsQueue(f.m); batches != 2 {
		t.Errorf("%d batches, want 2", batches)
	}
	if got, want := f.storedObjects(t, "t2"), []string{"x:3"}; !slices.Equal(got, want) {
		t.Errorf("t2's findings: %v, want %v", got, want)
	}
}

// A member update whose context ends while it is queued writes nothing
// and returns the context's error; one whose batch has started waits for
// its commit and succeeds.
func TestUpdateMemberStatus_GroupCommitCancelled(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	f.running(t, "t1", "a", "b")
	teammanager.ResetBatchCounts(f.m)
	release := holdWrites(t, f)
	started, queued := make(chan error, 1), make(chan error, 1)
	c1, cancel1 := context.WithCancel(ctx)
	c2, cancel2 := context.WithCancel(ctx)
	defer cancel1()
	defer cancel2()
	go func() {
		_, err := f.m.UpdateMemberStatus(c1, "t1", "a", teammanager.Completed, "done")
		started <- err
	}()
	waitQueue(t, f.m, 0, 1) // its batch is taken: it waits for the lock
	go func() {
		_, err := f.m.UpdateMemberStatus(c2, "t1", "b", teammanager.Completed, "done")
		queued <- err
	}()
	waitQueue(t, f.m, 1, 1)
	cancel1()
	cancel2()
	if err := <-queued; !errors.Is(err, context.Canceled) {
		t.Errorf("queued update: %v, want context.Canceled", err)
	}
	release()
	if err := <-started; err != nil {
		t.Errorf("started update: %v, want it committed", err)
	}
	tm, err := f.m.GetTeam(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := tm.Member("a")
	b, _ := tm.Member("b")
	if a.Status != teammanager.Completed || b.Status != teammanager.Running {
		t.Errorf("members a %s, b %s; want a completed, b running", a.Status, b.Status)
	}
}
