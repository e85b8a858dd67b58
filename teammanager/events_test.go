package teammanager_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/config"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

// collect subscribes to m's events after after and returns the first n.
func collect(t testing.TB, m *teammanager.Manager, after uint64, n int) []teammanager.Event {
	t.Helper()
	c, cancel := context.WithCancel(ctx)
	defer cancel()
	seq, err := m.Subscribe(c, after)
	if err != nil {
		t.Fatal(err)
	}
	var out []teammanager.Event
	if n == 0 {
		return out
	}
	for ev, err := range seq {
		if err != nil {
			t.Fatalf("after %d events: %v", len(out), err)
		}
		out = append(out, ev)
		if len(out) == n {
			break
		}
	}
	return out
}

// stored returns every event m's store holds, read with a subscription
// after id 0 that ends at the last one.
func stored(t testing.TB, m *teammanager.Manager) []teammanager.Event {
	t.Helper()
	last, err := m.LastEventID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if last == 0 {
		return nil
	}
	c, cancel := context.WithCancel(ctx)
	defer cancel()
	seq, err := m.Subscribe(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []teammanager.Event
	for ev, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
		if ev.ID == last {
			break
		}
	}
	return out
}

func types(evs []teammanager.Event) []string {
	out := []string{}
	for _, ev := range evs {
		out = append(out, string(ev.Type))
	}
	return out
}

// checkIDs fails unless evs have the ids from, from+1, ... in order.
func checkIDs(t testing.TB, evs []teammanager.Event, from uint64) {
	t.Helper()
	for i, ev := range evs {
		if ev.ID != from+uint64(i) {
			t.Fatalf("event %d has id %d, want %d (ids %v)", i, ev.ID, from+uint64(i), ids(evs))
		}
	}
}

func ids(evs []teammanager.Event) []uint64 {
	var out []uint64
	for _, ev := range evs {
		out = append(out, ev.ID)
	}
	return out
}

// TestManager_Events_Lifecycle runs a team through its whole life and
// checks every event a subscriber that started before receives: once
// each, in order, with ids 1, 2, ... and the payload of its type.
func TestManager_Events_Lifecycle(t *testing.T) {
	f := newFixture(t)
	if last, err := f.m.LastEventID(ctx); err != nil || last != 0 {
		t.Fatalf("LastEventID of a new namespace = %d, %v", last, err)
	}
	c, cancel := context.WithCancel(ctx)
	defer cancel()
	seq, err := f.m.Subscribe(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan teammanager.Event)
	go func() {
		defer close(got)
		for ev, err := range seq {
			if err != nil {
				return
			}
			got <- ev
		}
	}()
	next := func(want teammanager.EventType) teammanager.Event {
		t.Helper()
		ev := <-got
		if ev.Type != want {
			t.Fatalf("event %d is %s, want %s (%+v)", ev.ID, ev.Type, want, ev)
		}
		if ev.Team != "t" || !ev.Time.Equal(f.clock.Now()) {
			t.Fatalf("event %d: team %q, time %v; want t, %v", ev.ID, ev.Team, ev.Time, f.clock.Now())
		}
		return ev
	}
	var id uint64
	nextID := func(ev teammanager.Event) {
		t.Helper()
		if id++; ev.ID != id {
			t.Fatalf("%s has id %d, want %d", ev.Type, ev.ID, id)
		}
	}

	team := f.create(t, teammanager.TeamConfig{ID: "t", Name: "review", Strategy: merge.NameConflictFlag, Members: members("a", "b")})
	ev := next(teammanager.EventTeamCreated)
	nextID(ev)
	if !reflect.DeepEqual(*ev.TeamState, team) {
		t.Fatalf("team.created carries %+v, want %+v", *ev.TeamState, team)
	}

	f.clock.Advance(time.Second)
	f.status(t, "t", "a", teammanager.Running, "")
	ev = next(teammanager.EventMemberStatus)
	nextID(ev)
	if mu := ev.Member; mu.Team != "t" || mu.Member.AgentID != "a" || mu.Member.Status != teammanager.Running || mu.TeamStatus != teammanager.Running {
		t.Fatalf("member.status carries %+v", mu)
	}
	ev = next(teammanager.EventTeamStatus)
	nextID(ev)
	if ts := ev.TeamState; ts.Status != teammanager.Running || !ts.StartedAt.Equal(f.clock.Now()) || ts.Members != nil {
		t.Fatalf("team.status carries %+v", ts)
	}
	f.status(t, "t", "b", teammanager.Running, "")
	nextID(next(teammanager.EventMemberStatus))

	fa := []teammanager.Finding{
		{Subject: iri("lib"), Predicate: iri("license"), Object: quad.String("MIT"), Confidence: 0.9},
		{Subject: iri("lib"), Predicate: iri("lang"), Object: quad.LangString{Value: "Go", Lang: "en"}},
	}
	aids, err := f.m.AddFindings(ctx, "t", "a", fa)
	if err != nil {
		t.Fatal(err)
	}
	ev = next(teammanager.EventFindingsAdded)
	nextID(ev)
	if ev.Agent != "a" || len(ev.Findings) != 2 {
		t.Fatalf("findings.added: agent %q, %d findings", ev.Agent, len(ev.Findings))
	}
	for i, sf := range ev.Findings {
		want := teammanager.StoredFinding{ID: aids[i], Agent: "a", Finding: fa[i]}
		want.AssertedAt = f.clock.Now()
		if !reflect.DeepEqual(sf, want) {
			t.Fatalf("finding %d: %+v, want %+v", i, sf, want)
		}
	}
	if _, err := f.m.AddFinding(ctx, "t", "b", teammanager.Finding{Subject: iri("lib"), Predicate: iri("license"), Object: quad.String("GPL")}); err != nil {
		t.Fatal(err)
	}
	ev = next(teammanager.EventFindingsAdded)
	nextID(ev)
	if ev.Agent != "b" || len(ev.Findings) != 1 || ev.Findings[0].Object != quad.String("GPL") {
		t.Fatalf("findings.added: %+v", ev)
	}

	f.status(t, "t", "a", teammanager.Completed, "done")
	ev = next(teammanager.EventMemberStatus)
	nextID(ev)
	if ev.Member.Member.Result != "done" || ev.Member.Member.CompletedAt.IsZero() {
		t.Fatalf("member.status carries %+v", ev.Member.Member)
	}
	up := f.status(t, "t", "b", teammanager.Completed, "")
	nextID(next(teammanager.EventMemberStatus))
	ev = next(teammanager.EventTeamStatus)
	nextID(ev)
	if ev.TeamState.Status != teammanager.Completed {
		t.Fatalf("team.status carries %+v", ev.TeamState)
	}
	// The automatic merge: the conflict it found, then its report.
	ev = next(teammanager.EventConflictDetected)
	nextID(ev)
	cs, err := f.m.Conflicts(ctx, "t")
	if err != nil || len(cs) != 1 {
		t.Fatalf("conflicts %+v, %v", cs, err)
	}
	if !reflect.DeepEqual(ev.Conflicts, cs) || ev.MergeID != up.Merge.MergeID {
		t.Fatalf("conflict.detected carries %+v (merge %s), want %+v (merge %s)", ev.Conflicts, ev.MergeID, cs, up.Merge.MergeID)
	}
	ev = next(teammanager.EventMergeCompleted)
	nextID(ev)
	wantRep := *up.Merge
	wantRep.Facts, wantRep.OpenConflicts = nil, nil
	if !reflect.DeepEqual(*ev.Merge, wantRep) || ev.MergeID != wantRep.MergeID {
		t.Fatalf("merge.completed carries %+v, want %+v", *ev.Merge, wantRep)
	}

	f.clock.Advance(time.Second)
	rep, err := f.m.ResolveConflict(ctx, "t", cs[0].ID, []quad.Value{quad.String("MIT")}, "lead")
	if err != nil {
		t.Fatal(err)
	}
	ev = next(teammanager.EventConflictResolved)
	nextID(ev)
	if cs, err = f.m.Conflicts(ctx, "t"); err != nil || !reflect.DeepEqual(ev.Conflicts, cs) || !cs[0].Resolved {
		t.Fatalf("conflict.resolved carries %+v, want %+v (%v)", ev.Conflicts, cs, err)
	}
	ev = next(teammanager.EventMergeCompleted)
	nextID(ev)
	if ev.Merge.MergeID != rep.MergeID || ev.Merge.Kept != rep.Kept {
		t.Fatalf("merge.completed after the resolution carries %+v, want %+v", *ev.Merge, rep)
	}

	if err := f.m.DeleteTeam(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	nextID(next(teammanager.EventTeamDeleted))

	// Refused writes record nothing.
	if _, err := f.m.UpdateMemberStatus(ctx, "t", "a", teammanager.Running, ""); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Fatal(err)
	}
	if _, err := f.m.CreateTeam(ctx, teammanager.TeamConfig{Name: " "}); err == nil {
		t.Fatal("an empty name was accepted")
	}
	if last, err := f.m.LastEventID(ctx); err != nil || last != id {
		t.Fatalf("LastEventID = %d, %v; want %d", last, err, id)
	}
	// A second subscriber from the start reads the same stored events.
	all := collect(t, f.m, 0, int(id))
	checkIDs(t, all, 1)
	if want := []string{"team.created", "member.status", "team.status", "member.status", "findings.added", "findings.added",
		"member.status", "member.status", "team.status", "conflict.detected", "merge.completed",
		"conflict.resolved", "merge.completed", "team.deleted"}; !reflect.DeepEqual(types(all), want) {
		t.Fatalf("stored events %v, want %v", types(all), want)
	}
	cancel()
	for range got {
	}
}

// TestManager_Events_RefusedWritesRecordNothing checks that writes that
// fail record no event, and that a write that changes nothing (a merge
// with the result already stored) records none either.
func TestManager_Events_RefusedWritesRecordNothing(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a")})
	last := func() uint64 {
		id, err := f.m.LastEventID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	before := last()
	if _, err := f.m.UpdateMemberStatus(ctx, "t", "a", teammanager.Completed, ""); !errors.Is(err, teammanager.ErrInvalidTransition) {
		t.Fatal(err)
	}
	if _, err := f.m.AddFinding(ctx, "t", "zed", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: iri("o")}); !errors.Is(err, teammanager.ErrUnknownAgent) {
		t.Fatal(err)
	}
	if _, err := f.m.CreateTeam(ctx, teammanager.TeamConfig{ID: "t", Name: "again", Members: members("a")}); !errors.Is(err, teammanager.ErrTeamExists) {
		t.Fatal(err)
	}
	if err := f.m.DeleteTeam(ctx, "nope"); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Fatal(err)
	}
	if got := last(); got != before {
		t.Fatalf("refused writes recorded events: last id %d, want %d", got, before)
	}
	f.status(t, "t", "a", teammanager.Running, "")
	f.status(t, "t", "a", teammanager.Completed, "")
	if _, err := f.m.MergeTeamResults(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	merged := last()
	if rep, err := f.m.MergeTeamResults(ctx, "t"); err != nil || !rep.Unchanged {
		t.Fatalf("second merge: %+v, %v", rep, err)
	}
	if got := last(); got != merged {
		t.Fatalf("an unchanged merge recorded events: last id %d, want %d", got, merged)
	}
	if _, err := f.m.Subscribe(ctx, merged+1); !errors.Is(err, teammanager.ErrInvalidEventID) {
		t.Fatalf("Subscribe past the last event: %v", err)
	}
}

// TestManager_Events_Timeout checks the team.status of a timeout that
// Sweep records, and of the write that records it.
func TestManager_Events_Timeout(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a"), Timeout: time.Minute})
	f.status(t, "t", "a", teammanager.Running, "")
	start := f.clock.Now()
	f.clock.Advance(2 * time.Minute)
	from, _ := f.m.LastEventID(ctx)
	if ids, err := f.m.Sweep(ctx); err != nil || !reflect.DeepEqual(ids, []string{"t"}) {
		t.Fatalf("Sweep = %v, %v", ids, err)
	}
	evs := collect(t, f.m, from, 1)
	if ts := evs[0].TeamState; evs[0].Type != teammanager.EventTeamStatus || ts.Status != teammanager.Failed ||
		ts.FailReason != teammanager.FailTimeout || !ts.CompletedAt.Equal(start.Add(time.Minute)) {
		t.Fatalf("after Sweep: %+v", evs[0])
	}
	if last, _ := f.m.LastEventID(ctx); last != from+1 {
		t.Fatalf("Sweep recorded %d events, want 1", last-from)
	}
}

// TestManager_Events_FindingsSplit checks that one write of more than
// MaxEventFindings findings is reported in several events, in order.
func TestManager_Events_FindingsSplit(t *testing.T) {
	f := newFixture(t)
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a")})
	f.status(t, "t", "a", teammanager.Running, "")
	from, _ := f.m.LastEventID(ctx)
	var fs []teammanager.Finding
	for i := range teammanager.MaxEventFindings + 5 {
		fs = append(fs, teammanager.Finding{Subject: iri(fmt.Sprint("s", i)), Predicate: iri("p"), Object: quad.String("o")})
	}
	idsAdded, err := f.m.AddFindings(ctx, "t", "a", fs)
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(t, f.m, from, 2)
	if len(evs[0].Findings) != teammanager.MaxEventFindings || len(evs[1].Findings) != 5 {
		t.Fatalf("events of %d and %d findings", len(evs[0].Findings), len(evs[1].Findings))
	}
	var got []string
	for _, ev := range evs {
		for _, sf := range ev.Findings {
			got = append(got, sf.ID)
		}
	}
	if !slices.Equal(got, idsAdded) {
		t.Fatal("the events' findings are not those added, in order")
	}
	if last, _ := f.m.LastEventID(ctx); last != from+2 {
		t.Fatalf("%d events, want 2", last-from)
	}
}

// TestManager_Events_LargeListsSplit: findings.added and
// conflict.detected events over MaxEventRow stored bytes are stored as
// several events of the type, in order, with all the findings and
// conflicts. On an in-memory store (rows of at most ~1 MB) a write of
// eight 150 KB findings, or a merge of five conflicts with 150 KB
// candidates, failed on its one event row; a persistent store splits them
// too.
func TestManager_Events_LargeListsSplit(t *testing.T) {
	for _, inMemory := range []bool{true, false} {
		t.Run(fmt.Sprint("in-memory=", inMemory), func(t *testing.T) {
			dir := ""
			if !inMemory {
				dir = t.TempDir()
			}
			s := cortextest.OpenStore(t, dir, cortex.DefaultOptions().WithInMemory(inMemory))
			f := newFixtureOn(t, s, teammanager.DefaultConfig().WithAutoMerge(false))
			f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Strategy: merge.NameConflictFlag, Members: members("a", "b")})
			big := func(i int, who string) quad.Value {
				return quad.String(fmt.Sprint(i, who) + strings.Repeat("x", 150<<10))
			}
			for _, a := range []string{"a", "b"} {
				f.status(t, "t", a, teammanager.Running, "")
			}
			from, _ := f.m.LastEventID(ctx)
			var fs []teammanager.Finding
			for i := range 8 {
				fs = append(fs, teammanager.Finding{Subject: iri(fmt.Sprint("s", i)), Predicate: iri("p"), Object: big(i, "a")})
			}
			added, err := f.m.AddFindings(ctx, "t", "a", fs)
			if err != nil {
				t.Fatal(err)
			}
			last, _ := f.m.LastEventID(ctx)
			evs := collect(t, f.m, from, int(last-from))
			var got []string
			for _, ev := range evs {
				if ev.Type != teammanager.EventFindingsAdded || ev.Agent != "a" {
					t.Fatalf("event %d: %s by %q", ev.ID, ev.Type, ev.Agent)
				}
				for _, sf := range ev.Findings {
					got = append(got, sf.ID)
				}
			}
			if len(evs) < 2 || !slices.Equal(got, added) {
				t.Fatalf("%d findings.added events with %d findings; want several, with the %d added in order", len(evs), len(got), len(added))
			}
			// b disagrees on five subjects: five conflicts of large candidates.
			fs = fs[:0]
			for i := range 5 {
				fs = append(fs, teammanager.Finding{Subject: iri(fmt.Sprint("s", i)), Predicate: iri("p"), Object: big(i, "b")})
			}
			if _, err := f.m.AddFindings(ctx, "t", "b", fs); err != nil {
				t.Fatal(err)
			}
			for _, a := range []string{"a", "b"} {
				f.status(t, "t", a, teammanager.Completed, "")
			}
			from, _ = f.m.LastEventID(ctx)
			if _, err := f.m.MergeTeamResults(ctx, "t"); err != nil {
				t.Fatal(err)
			}
			last, _ = f.m.LastEventID(ctx)
			evs = collect(t, f.m, from, int(last-from))
			conflicts := 0
			for _, ev := range evs[:len(evs)-1] {
				if ev.Type != teammanager.EventConflictDetected {
					t.Fatalf("event %d: %s, want conflict.detected", ev.ID, ev.Type)
				}
				conflicts += len(ev.Conflicts)
			}
			if len(evs) < 3 || conflicts != 5 || evs[len(evs)-1].Type != teammanager.EventMergeCompleted {
				t.Fatalf("merge: events %v with %d conflicts; want several conflict.detected with 5, then merge.completed", types(evs), conflicts)
			}
		})
	}
}

// TestManager_Events_RetentionByCount keeps 5 events: the writes remove
// older ones, and a subscriber that asks for removed ones gets
// events.lost, then the retained ones.
func TestManager_Events_RetentionByCount(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithEventRetention(0, 5))
	for i := range 12 {
		f.create(t, teammanager.TeamConfig{ID: fmt.Sprint("t", i), Name: "n", Members: members("a")})
	}
	evs := stored(t, f.m)
	checkIDs(t, evs, 8)
	if len(evs) != 5 {
		t.Fatalf("%d events kept, want 5", len(evs))
	}
	evs = collect(t, f.m, 3, 6)
	if lost := evs[0]; lost.Type != teammanager.EventsLost || lost.ID != 7 || *lost.Lost != (teammanager.LostEvents{After: 3, First: 8}) {
		t.Fatalf("first event after 3: %+v", lost)
	}
	checkIDs(t, evs[1:], 8)
	// Right after the last one removed, nothing is lost.
	evs = collect(t, f.m, 7, 5)
	checkIDs(t, evs, 8)
	if slices.Contains(types(evs), string(teammanager.EventsLost)) {
		t.Fatalf("events.lost after 7: %v", types(evs))
	}
}

// TestManager_Events_RetentionByAge keeps events for an hour (by the
// Manager's clock).
func TestManager_Events_RetentionByAge(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithEventRetention(time.Hour, 1000))
	f.create(t, teammanager.TeamConfig{ID: "old1", Name: "n", Members: members("a")})
	f.create(t, teammanager.TeamConfig{ID: "old2", Name: "n", Members: members("a")})
	f.clock.Advance(50 * time.Minute)
	f.create(t, teammanager.TeamConfig{ID: "mid", Name: "n", Members: members("a")})
	if evs := stored(t, f.m); len(evs) != 3 {
		t.Fatalf("%d events within the hour, want 3", len(evs))
	}
	f.clock.Advance(20 * time.Minute)
	f.create(t, teammanager.TeamConfig{ID: "new", Name: "n", Members: members("a")})
	evs := stored(t, f.m)
	checkIDs(t, evs, 3)
	if evs[0].Team != "mid" || evs[1].Team != "new" || len(evs) != 2 {
		t.Fatalf("kept %v", evs)
	}
}

func TestConfig_EventRetention_Invalid(t *testing.T) {
	s := newFixture(t).s
	x, _ := namespace.New("other")
	for _, cfg := range []teammanager.Config{
		teammanager.DefaultConfig().WithEventRetention(-time.Second, 10),
		teammanager.DefaultConfig().WithEventRetention(time.Hour, 0),
	} {
		if _, err := teammanager.New(ctx, s, x, cfg); !errors.Is(err, teammanager.ErrInvalidConfig) || !strings.Contains(err.Error(), "event retention") {
			t.Fatalf("New: %v", err)
		}
	}
}

// TestManager_Events_ConcurrentWritersAndSubscribers runs writers (teams,
// member updates, findings through the group commit) on two Managers of
// the same namespace, with subscribers on both: each subscriber receives
// every event once, with ids 1..N in order, and a subscriber that does
// not read while the writers run holds none of them back.
func TestManager_Events_ConcurrentWritersAndSubscribers(t *testing.T) {
	f := newFixture(t)
	m2, err := teammanager.New(ctx, f.s, f.ns, f.cfg)
	if err != nil {
		t.Fatal(err)
	}
	const writers, teamsEach = 4, 5
	// Each team: created, a running (member.status + team.status), 3
	// findings calls (1 to 3 events, as batched), a completed (member.status,
	// team.status), then its merge (merge.completed).
	c, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		evs []teammanager.Event
		err error
	}
	subscribe := func(m *teammanager.Manager, hold chan struct{}) chan result {
		seq, err := m.Subscribe(c, 0)
		if err != nil {
			t.Fatal(err)
		}
		out := make(chan result, 1)
		go func() {
			var r result
			for ev, err := range seq {
				if hold != nil {
					<-hold // the paused subscriber: not reading until released
					hold = nil
				}
				if err != nil {
					if !errors.Is(err, context.Canceled) {
						r.err = err
					}
					break
				}
				r.evs = append(r.evs, ev)
				if ev.Type == teammanager.EventTeamCreated && ev.Team == "end" {
					break
				}
			}
			out <- r
		}()
		return out
	}
	hold := make(chan struct{})
	subs := []chan result{subscribe(f.m, nil), subscribe(m2, nil), subscribe(f.m, hold)}

	var wg sync.WaitGroup
	errs := make(chan error, writers*teamsEach)
	for w := range writers {
		m := f.m
		if w%2 == 1 {
			m = m2
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range teamsEach {
				id := fmt.Sprintf("w%dt%d", w, k)
				if _, err := m.CreateTeam(ctx, teammanager.TeamConfig{ID: id, Name: "n", Members: members("a")}); err != nil {
					errs <- err
					return
				}
				if _, err := m.UpdateMemberStatus(ctx, id, "a", teammanager.Running, ""); err != nil {
					errs <- err
					return
				}
				var fwg sync.WaitGroup
				for i := range 3 {
					fwg.Add(1)
					go func() {
						defer fwg.Done()
						if _, err := m.AddFinding(ctx, id, "a", teammanager.Finding{Subject: iri(fmt.Sprint("s", i)), Predicate: iri("p"), Object: quad.String(id)}); err != nil {
							errs <- err
						}
					}()
				}
				fwg.Wait()
				if _, err := m.UpdateMemberStatus(ctx, id, "a", teammanager.Completed, ""); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait() // with a subscriber paused: writers do not wait for it
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	close(hold)
	// The last write: subscribers stop at its event.
	f.create(t, teammanager.TeamConfig{ID: "end", Name: "n", Members: members("a")})
	want := stored(t, f.m)
	checkIDs(t, want, 1)
	findings := 0
	count := map[teammanager.EventType]int{}
	for _, ev := range want[:len(want)-1] {
		count[ev.Type]++
		findings += len(ev.Findings)
	}
	n := writers * teamsEach
	if count[teammanager.EventTeamCreated] != n || count[teammanager.EventMemberStatus] != 2*n || count[teammanager.EventTeamStatus] != 2*n ||
		count[teammanager.EventMergeCompleted] != n || findings != 3*n {
		t.Fatalf("event counts %v, %d findings; want %d teams", count, findings, n)
	}
	for i, ch := range subs {
		r := <-ch
		if r.err != nil {
			t.Fatalf("subscriber %d: %v", i, r.err)
		}
		if !reflect.DeepEqual(r.evs, want) {
			t.Fatalf("subscriber %d got ids %v, want 1..%d", i, ids(r.evs), len(want))
		}
	}
}

// childEventsUnderLoad creates teams on the store in dir, one after the
// other with several writers, printing the id of each team once its
// creation has returned, until it is killed.
func childEventsUnderLoad(dir string) error {
	c := context.Background()
	s, err := cortex.Open(c, dir, cortex.DefaultOptions())
	if err != nil {
		return err
	}
	x, err := namespace.New("acme")
	if err != nil {
		return err
	}
	m, err := teammanager.New(c, s, x, teammanager.DefaultConfig())
	if err != nil {
		return err
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; ; k++ {
				id := fmt.Sprintf("w%dt%d", w, k)
				if _, err := m.CreateTeam(c, teammanager.TeamConfig{ID: id, Name: "n", Members: members("a")}); err != nil {
					fmt.Println("error", err)
					return
				}
				mu.Lock()
				fmt.Println("ack", id)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return nil
}

// TestManager_Events_KillDuringWrites kills (SIGKILL) a process that
// creates teams with several writers and checks the store it leaves: every
// team whose creation was acknowledged has its team.created event, every
// event's team exists (no event of a change that did not commit), and the
// ids are 1..N without gaps.
func TestManager_Events_KillDuringWrites(t *testing.T) {
	dir := t.TempDir()
	cmd, out := startChild(t, "events-under-load", dir)
	acked := map[string]bool{}
	lines := bufio.NewScanner(out)
	for len(acked) < 60 && lines.Scan() {
		id, ok := strings.CutPrefix(lines.Text(), "ack ")
		if !ok {
			t.Fatalf("child: %q", lines.Text())
		}
		acked[id] = true
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL, writes in flight
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for lines.Scan() { // acknowledged before the kill, read after it
		if id, ok := strings.CutPrefix(lines.Text(), "ack "); ok {
			acked[id] = true
		}
	}

	f := newFixtureOn(t, openStore(t, dir))
	evs := stored(t, f.m)
	checkIDs(t, evs, 1)
	teams, err := f.m.ListTeams(ctx, teammanager.TeamFilter{})
	if err != nil {
		t.Fatal(err)
	}
	exists := map[string]bool{}
	for _, tm := range teams {
		exists[tm.ID] = true
	}
	created := map[string]bool{}
	for _, ev := range evs {
		if ev.Type != teammanager.EventTeamCreated || created[ev.Team] {
			t.Fatalf("event %d: %s of %s", ev.ID, ev.Type, ev.Team)
		}
		created[ev.Team] = true
		if !exists[ev.Team] {
			t.Fatalf("event %d reports team %s, which does not exist", ev.ID, ev.Team)
		}
	}
	for id := range exists {
		if !created[id] {
			t.Fatalf("team %s exists without its event", id)
		}
	}
	for id := range acked {
		if !created[id] {
			t.Fatalf("acknowledged team %s has no event", id)
		}
	}
	if len(acked) < 60 {
		t.Fatalf("only %d acknowledged creations", len(acked))
	}
}

func openStore(t *testing.T, dir string) *cortex.Store {
	t.Helper()
	s, err := cortex.Open(ctx, dir, cortex.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestManager_Events_ConflictDetectedOnce: a conflict is reported by the
// merge that first records it, not again by later merges that keep it.
func TestManager_Events_ConflictDetectedOnce(t *testing.T) {
	f := newFixture(t)
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Strategy: merge.NameConflictFlag, Members: members("a", "b", "c")})
	for _, a := range []string{"a", "b", "c"} {
		f.status(t, "t", a, teammanager.Running, "")
		if _, err := f.m.AddFinding(ctx, "t", a, teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String(a)}); err != nil {
			t.Fatal(err)
		}
	}
	f.status(t, "t", "a", teammanager.Completed, "")
	f.status(t, "t", "b", teammanager.Completed, "")
	from, _ := f.m.LastEventID(ctx)
	if _, err := f.m.MergeTeamResults(ctx, "t"); err != nil { // by hand, c still running
		t.Fatal(err)
	}
	evs := collect(t, f.m, from, 2)
	if !reflect.DeepEqual(types(evs), []string{"conflict.detected", "merge.completed"}) || len(evs[0].Conflicts) != 1 {
		t.Fatalf("first merge: %v", types(evs))
	}
	f.status(t, "t", "c", teammanager.Completed, "") // the automatic merge keeps the conflict, with c's candidate
	from = evs[1].ID
	evs = stored(t, f.m)[from:]
	if !reflect.DeepEqual(types(evs), []string{"member.status", "team.status", "merge.completed"}) {
		t.Fatalf("after the completion: %v", types(evs))
	}
}

// The config file's teams.eventMaxAge and teams.eventMax reach the
// Manager (FromConfig).
func TestManager_Events_RetentionFromConfig(t *testing.T) {
	f := newFixture(t, teammanager.FromConfig(config.Teams{EventMax: 3}))
	for i := range 6 {
		f.create(t, teammanager.TeamConfig{ID: fmt.Sprint("t", i), Name: "n", Members: members("a")})
	}
	if evs := stored(t, f.m); len(evs) != 3 {
		t.Fatalf("%d events kept with teams.eventMax 3, want 3", len(evs))
	}
	f = newFixture(t, teammanager.FromConfig(config.Teams{EventMaxAge: 3600, EventMax: 1000}))
	f.create(t, teammanager.TeamConfig{ID: "old", Name: "n", Members: members("a")})
	f.clock.Advance(2 * time.Hour)
	f.create(t, teammanager.TeamConfig{ID: "new", Name: "n", Members: members("a")})
	if evs := stored(t, f.m); len(evs) != 1 || evs[0].Team != "new" {
		t.Fatalf("kept %v with teams.eventMaxAge 3600, want the new team's event only", evs)
	}
}

// TestManager_Subscribe_EndsWithContext: once the subscriber's context
// ends, the sequence yields its error (matching context.Canceled and the
// cause) and stops, also while stored events remain to be read: it does
// not go on delivering a backlog to a subscriber that has gone.
func TestManager_Subscribe_EndsWithContext(t *testing.T) {
	f := newFixture(t)
	for i := range 5 {
		f.create(t, teammanager.TeamConfig{ID: fmt.Sprint("t", i), Name: "n", Members: members("a")})
	}
	gone := errors.New("client gone")
	for _, tc := range []struct {
		name   string
		before int // events read before the context ends
	}{{"before the first read", 0}, {"with events of the page left", 2}} {
		t.Run(tc.name, func(t *testing.T) {
			c, cancel := context.WithCancelCause(ctx)
			defer cancel(nil)
			seq, err := f.m.Subscribe(c, 0)
			if err != nil {
				t.Fatal(err)
			}
			if tc.before == 0 {
				cancel(gone)
			}
			var got []uint64
			var end error
			for ev, err := range seq {
				if err != nil {
					end = err
					break
				}
				got = append(got, ev.ID)
				if len(got) == tc.before {
					cancel(gone)
				}
			}
			if len(got) != tc.before || !errors.Is(end, context.Canceled) || !errors.Is(end, gone) {
				t.Fatalf("after the context ended: events %v, then %v; want %d events, then its error with its cause", got, end, tc.before)
			}
		})
	}
}

// TestManager_Events_FindingsAddedOnce: a finding asserted twice in one
// write is stored once, and its findings.added event lists it once.
func TestManager_Events_FindingsAddedOnce(t *testing.T) {
	f := newFixture(t)
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a")})
	f.status(t, "t", "a", teammanager.Running, "")
	from, _ := f.m.LastEventID(ctx)
	one := teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: iri("o")}
	two := teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: iri("o2")}
	ids, err := f.m.AddFindings(ctx, "t", "a", []teammanager.Finding{one, two, one})
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(t, f.m, from, 1)
	var got []string
	for _, sf := range evs[0].Findings {
		got = append(got, sf.ID)
	}
	stored, err := f.m.Findings(ctx, "t", teammanager.FindingFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, ids[:2]) || len(stored) != 2 {
		t.Fatalf("findings.added lists %v, want %v (%d stored)", got, ids[:2], len(stored))
	}
}

// BenchmarkManager_Events_WriteAfterTrimming: a write of a namespace past
// its retention limits (here 1 event: each write removes the one before)
// costs the same after thousands of events removed as at first.
// Removed events leave tombstones until Badger compacts them; reads from
// the table's start stepped over all of them, twice per write.
func BenchmarkManager_Events_WriteAfterTrimming(b *testing.B) {
	for _, removed := range []int{0, 5000} {
		b.Run(fmt.Sprint("removed=", removed), func(b *testing.B) {
			f := newFixture(b, teammanager.DefaultConfig().WithEventRetention(0, 1))
			f.create(b, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a")})
			f.status(b, "t", "a", teammanager.Running, "")
			write := func(i int) {
				if _, err := f.m.AddFinding(ctx, "t", "a", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String(fmt.Sprint(i))}); err != nil {
					b.Fatal(err)
				}
			}
			for i := range removed {
				write(-1 - i)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				write(i)
			}
		})
	}
}

// TestManager_Subscribe_EndsWhenNamespaceDeleted: a subscriber waiting for
// new events, or with stored events left to read, is told when
// cortex.Store.DeleteNamespace deletes its namespace: the sequence yields
// an error matching cortex.ErrNoNamespace (and cortex.ErrNotFound) and
// stops, instead of waiting for events that will never come.
func TestManager_Subscribe_EndsWhenNamespaceDeleted(t *testing.T) {
	for _, tc := range []struct {
		name string
		read int // events read before the deletion
	}{{"waiting for new events", 3}, {"with stored events left", 1}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			for i := range 3 {
				f.create(t, teammanager.TeamConfig{ID: fmt.Sprint("t", i), Name: "n", Members: members("a")})
			}
			seq, err := f.m.Subscribe(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			readN := make(chan struct{})
			go func() {
				got := 0
				for _, err := range seq {
					if err != nil {
						done <- err
						return
					}
					if got++; got == tc.read {
						close(readN)
					}
				}
				done <- errors.New("the sequence stopped without an error")
			}()
			<-readN
			if err := f.s.DeleteNamespace(ctx, "acme"); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if !errors.Is(err, cortex.ErrNoNamespace) || !errors.Is(err, cortex.ErrNotFound) {
					t.Fatalf("after the deletion: %v; want an error matching cortex.ErrNoNamespace", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the subscriber still waits 5 s after its namespace was deleted")
			}
		})
	}
}
