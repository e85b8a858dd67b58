package teammanager_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

// holdWrites holds the namespace's write lock (an Update that waits) until
// the returned function is called.
func holdWrites(t *testing.T, f *fixture) (release func()) {
	t.Helper()
	entered, done, ended := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		ended <- f.n.Update(ctx, func(*cortex.Tx) error {
			close(entered)
			<-done
			return nil
		})
	}()
	<-entered
	return func() {
		close(done)
		if err := <-ended; err != nil {
			t.Error(err)
		}
	}
}

// waitQueue waits until the manager's findings queue holds queued calls and
// batches batches have been taken.
func waitQueue(t *testing.T, m *teammanager.Manager, queued int, batches int64) {
	t.Helper()
	for {
		q, b := teammanager.FindingsQueue(m)
		if q == queued && b == batches {
			return
		}
		runtime.Gosched()
	}
}

func finding(i int) teammanager.Finding {
	return teammanager.Finding{
		Subject:   quad.IRI(fmt.Sprintf("http://ex.org/s%d", i)),
		Predicate: quad.IRI("http://ex.org/p"),
		Object:    quad.String(fmt.Sprint(i)),
	}
}

// Concurrent AddFinding calls share a commit: the calls that queue while a
// write holds the namespace are written together, in one batch, and each
// succeeds or fails on its own (its team, its member, its context).
func TestAddFinding_GroupCommit(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	t1 := f.create(t, teammanager.TeamConfig{Name: "one", Members: members("a", "b", "c")})
	t2 := f.create(t, teammanager.TeamConfig{Name: "two", Members: members("a")})
	for _, x := range []struct{ team, agent string }{{t1.ID, "a"}, {t1.ID, "b"}, {t1.ID, "c"}, {t2.ID, "a"}} {
		f.status(t, x.team, x.agent, teammanager.Running, "")
	}
	f.status(t, t1.ID, "c", teammanager.Completed, "")
	teammanager.ResetBatchCounts(f.m)

	release := holdWrites(t, f)
	type call struct {
		team, agent string
		cancel      bool  // its context ends while it is queued
		want        error // nil: succeeds
	}
	calls := []call{
		{t1.ID, "a", false, nil}, // the first batch, alone: it waits for the lock
		{t1.ID, "a", false, nil},
		{t1.ID, "b", false, nil},
		{t1.ID, "c", false, teammanager.ErrMemberFinished},
		{t1.ID, "zed", false, teammanager.ErrUnknownAgent},
		{"no-such-team", "a", false, teammanager.ErrUnknownTeam},
		{t2.ID, "a", true, context.Canceled},
		{t2.ID, "a", false, nil},
		{t1.ID, "b", false, nil},
	}
	errs := make([]error, len(calls))
	var wg sync.WaitGroup
	start := func(i int) {
		c := calls[i]
		cctx, cancel := context.WithCancel(ctx)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer cancel()
			_, errs[i] = f.m.AddFinding(cctx, c.team, c.agent, finding(i))
		}()
		if c.cancel {
			waitQueue(t, f.m, i, 1)
			cancel()
			waitQueue(t, f.m, i-1, 1)
		}
	}
	start(0)
	waitQueue(t, f.m, 0, 1)
	queued := 0
	for i := 1; i < len(calls); i++ {
		start(i)
		if !calls[i].cancel {
			queued++
		}
		waitQueue(t, f.m, queued, 1)
	}
	release()
	wg.Wait()
	if _, batches := teammanager.FindingsQueue(f.m); batches != 2 {
		t.Errorf("%d batches for %d calls queued behind one write, want 2", batches, len(calls))
	}

	var want []string
	for i, c := range calls {
		if !errors.Is(errs[i], c.want) || (c.want == nil) != (errs[i] == nil) {
			t.Errorf("call %d (%s/%s): err = %v, want %v", i, c.team, c.agent, errs[i], c.want)
		}
		if c.want == nil {
			want = append(want, fmt.Sprint(i))
		}
	}
	var got []string
	for _, team := range []string{t1.ID, t2.ID} {
		fs, err := f.m.Findings(ctx, team, teammanager.FindingFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, sf := range fs {
			got = append(got, string(sf.Object.(quad.String)))
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("findings stored: %v, want %v", got, want)
	}
}

// A call whose findings the store refuses (a literal too large for an
// in-memory store, or one whose event row is, which normFinding cannot
// know) fails alone: the calls that shared its batch are written.
func TestAddFinding_GroupCommitRefusedCallFailsAlone(t *testing.T) {
	for _, tc := range []struct {
		name string
		obj  string
		want error
	}{
		// A literal over the store's term limit.
		{"term", strings.Repeat("x", 2<<20), cortex.ErrInvalidQuad},
		// A literal within it whose findings.added event is not: its
		// quotes are escaped twice in the row (N-Triples, then JSON).
		{"event row", strings.Repeat(`"`, 400<<10), cortex.ErrInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) { testRefusedCallFailsAlone(t, tc.obj, tc.want) })
	}
}

func testRefusedCallFailsAlone(t *testing.T, obj string, want error) {
	s := cortextest.OpenStore(t, "", cortex.DefaultOptions().WithInMemory(true))
	f := newFixtureOn(t, s, teammanager.DefaultConfig().WithAutoMerge(false))
	f.running(t, "t", "a", "b")
	teammanager.ResetBatchCounts(f.m)
	release := holdWrites(t, f)
	big := teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String(obj)}
	fs := []teammanager.Finding{finding(0), big, finding(2), finding(3)}
	agents := []string{"a", "a", "b", "a"}
	errs := make([]error, len(fs))
	var wg sync.WaitGroup
	for i := range fs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = f.m.AddFinding(ctx, "t", agents[i], fs[i])
		}()
		if i == 0 {
			waitQueue(t, f.m, 0, 1) // the first batch, alone: it waits for the lock
		} else {
			waitQueue(t, f.m, i, 1)
		}
	}
	release()
	wg.Wait()
	for i, err := range errs {
		if i == 1 {
			if !errors.Is(err, want) {
				t.Errorf("the call of the large finding: %v, want %v", err, want)
			}
		} else if err != nil {
			t.Errorf("call %d, batched with the large finding: %v", i, err)
		}
	}
	var got []string
	for _, a := range []string{"a", "b"} {
		for _, sf := range f.stored(t, "t", a) {
			got = append(got, string(sf.Object.(quad.String)))
		}
	}
	slices.Sort(got)
	if want := []string{"0", "2", "3"}; !slices.Equal(got, want) {
		t.Errorf("findings stored: %v, want %v", got, want)
	}
}

// Findings added concurrently while members finish: every call that
// succeeded is stored, every call refused because its member had finished
// is not, and nothing else.
func TestAddFinding_ConcurrentWithFinishingMembers(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	const teams, agents, each = 4, 3, 40
	var ids []string
	for i := range teams {
		team := f.create(t, teammanager.TeamConfig{Name: fmt.Sprintf("t%d", i), Members: members("a0", "a1", "a2")})
		ids = append(ids, team.ID)
		for a := range agents {
			f.status(t, team.ID, fmt.Sprintf("a%d", a), teammanager.Running, "")
		}
	}
	var (
		mu     sync.Mutex
		stored = map[string]bool{} // team/object of every acknowledged finding
		wg     sync.WaitGroup
	)
	for ti, team := range ids {
		for a := range agents {
			agent := fmt.Sprintf("a%d", a)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					obj := fmt.Sprintf("%s-%d", agent, i)
					fd := finding(i)
					fd.Object = quad.String(obj)
					_, err := f.m.AddFinding(ctx, team, agent, fd)
					switch {
					case err == nil:
						mu.Lock()
						stored[team+"/"+obj] = true
						mu.Unlock()
					case errors.Is(err, teammanager.ErrMemberFinished) && a == ti%agents:
						return
					default:
						t.Errorf("AddFinding(%s, %s): %v", team, agent, err)
						return
					}
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			agent := fmt.Sprintf("a%d", ti%agents)
			if _, err := f.m.UpdateMemberStatus(ctx, team, agent, teammanager.Failed, ""); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got := map[string]bool{}
	for _, team := range ids {
		fs, err := f.m.Findings(ctx, team, teammanager.FindingFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, sf := range fs {
			got[team+"/"+string(sf.Object.(quad.String))] = true
		}
	}
	if len(got) != len(stored) {
		t.Errorf("%d findings stored, %d acknowledged", len(got), len(stored))
	}
	for k := range stored {
		if !got[k] {
			t.Errorf("acknowledged finding %s is not stored", k)
		}
	}
}

// childFindingsUnderLoad creates 4 teams of 4 running members in the store
// in dir and has the 16 members add findings concurrently, one call each,
// printing "ack TEAM AGENT OBJECT" once a call has returned, until the
// parent kills the process.
func childFindingsUnderLoad(dir string) error {
	c := context.Background()
	s, err := cortex.Open(c, dir, cortex.DefaultOptions())
	if err != nil {
		return err
	}
	x, err := namespace.New("acme")
	if err != nil {
		return err
	}
	m, err := teammanager.New(c, s, x, teammanager.DefaultConfig().WithAutoMerge(false))
	if err != nil {
		return err
	}
	var mu sync.Mutex
	errs := make(chan error, 16)
	for ti := range 4 {
		team := fmt.Sprint("t", ti)
		if _, err := m.CreateTeam(c, teammanager.TeamConfig{ID: team, Name: team, Members: members("a0", "a1", "a2", "a3")}); err != nil {
			return err
		}
		for a := range 4 {
			if _, err := m.UpdateMemberStatus(c, team, fmt.Sprint("a", a), teammanager.Running, ""); err != nil {
				return err
			}
		}
	}
	for ti := range 4 {
		for a := range 4 {
			team, agent := fmt.Sprint("t", ti), fmt.Sprint("a", a)
			go func() {
				for i := 0; ; i++ {
					fd := finding(i)
					fd.Object = quad.String(fmt.Sprint(agent, "-", i))
					if _, err := m.AddFinding(c, team, agent, fd); err != nil {
						errs <- err
						return
					}
					mu.Lock()
					fmt.Println("ack", team, agent, string(fd.Object.(quad.String)))
					mu.Unlock()
				}
			}()
		}
	}
	return <-errs
}

// TestAddFinding_KillUnderLoad kills (SIGKILL) a process in which 16
// members add findings concurrently, grouped into shared commits: every
// finding whose call had returned is in the reopened store, and the store
// passes its check.
func TestAddFinding_KillUnderLoad(t *testing.T) {
	dir := t.TempDir()
	cmd, out := startChild(t, "findings-under-load", dir)
	acked := map[string]bool{}
	lines := bufio.NewScanner(out)
	killed := false
	for lines.Scan() {
		f := strings.Fields(lines.Text())
		if len(f) != 4 || f[0] != "ack" {
			t.Fatalf("child: %q", lines.Text())
		}
		acked[f[1]+"/"+f[2]+"/"+f[3]] = true
		if len(acked) == 500 && !killed {
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
	}
	_ = cmd.Wait()
	if !killed {
		t.Fatalf("the child ended after %d findings (%v)", len(acked), lines.Err())
	}

	s := cortextest.OpenStore(t, dir, cortex.DefaultOptions())
	x, _ := namespace.New("acme")
	m, err := teammanager.New(ctx, s, x, teammanager.DefaultConfig().WithAutoMerge(false))
	if err != nil {
		t.Fatal(err)
	}
	stored := 0
	for ti := range 4 {
		team := fmt.Sprint("t", ti)
		fs, err := m.Findings(ctx, team, teammanager.FindingFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, sf := range fs {
			delete(acked, team+"/"+sf.Agent+"/"+string(sf.Object.(quad.String)))
			stored++
		}
	}
	if len(acked) > 0 {
		t.Errorf("%d acknowledged findings lost (of %d stored), e.g. %v", len(acked), stored, slices.Collect(maps.Keys(acked))[:1])
	}
}

// A findings batch reuses the team states the previous batch read, as long
// as nothing else has written the namespace since; any other write (a
// member update by another Manager, a plain Apply) makes the next batch
// read its teams again, and a batch that records a team's timeout forgets
// that team.
func TestAddFinding_TeamCache(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	t1 := f.create(t, teammanager.TeamConfig{Name: "one", Members: members("a", "b", "c"), Timeout: 10 * time.Hour})
	t2 := f.create(t, teammanager.TeamConfig{Name: "two", Members: members("a"), Timeout: time.Hour})
	for _, x := range []struct{ team, agent string }{{t1.ID, "a"}, {t1.ID, "b"}, {t1.ID, "c"}, {t2.ID, "a"}} {
		f.status(t, x.team, x.agent, teammanager.Running, "")
	}
	teammanager.ResetBatchCounts(f.m)
	i := 0
	add := func(team, agent string, want error, reads int64) {
		t.Helper()
		i++
		_, err := f.m.AddFinding(ctx, team, agent, finding(i))
		if !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Fatalf("AddFinding(%s, %s) = %v, want %v", team, agent, err, want)
		}
		if got := teammanager.FindingsTeamReads(f.m); got != reads {
			t.Fatalf("after AddFinding(%s, %s): %d team reads, want %d", team, agent, got, reads)
		}
	}
	add(t1.ID, "a", nil, 1)
	add(t1.ID, "a", nil, 1) // cached
	add(t2.ID, "a", nil, 2)
	add(t1.ID, "b", nil, 2) // both teams cached

	// Another Manager of the same namespace finishes a member: the cached
	// state of its team says running, and must not be used.
	m2, err := teammanager.New(ctx, f.s, f.ns, f.cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m2.UpdateMemberStatus(ctx, t1.ID, "a", teammanager.Completed, "done"); err != nil {
		t.Fatal(err)
	}
	add(t1.ID, "a", teammanager.ErrMemberFinished, 3)
	add(t1.ID, "b", nil, 3)

	// Any write of the namespace, even of unrelated quads.
	if err := f.n.Apply(ctx, cortex.Delta{Add: []quad.Quad{{Subject: quad.IRI("http://ex.org/x"), Predicate: quad.IRI("http://ex.org/p"), Object: quad.String("x")}}}); err != nil {
		t.Fatal(err)
	}
	add(t1.ID, "b", nil, 4)
	add(t2.ID, "a", nil, 5)
	add(t1.ID, "c", nil, 5)

	// The batch that records team two's timeout changes its state: the
	// next batch reads it again (and finds it failed).
	f.clock.Advance(2 * time.Hour)
	add(t2.ID, "a", teammanager.ErrTeamFinished, 5)
	add(t2.ID, "a", teammanager.ErrTeamFinished, 6)
	add(t1.ID, "c", nil, 6)

	// A batch that writes nothing (its only call names no team) leaves the
	// generation as it was: the next write is someone else's.
	add("nosuchteam", "a", teammanager.ErrUnknownTeam, 7)
	if _, err := m2.UpdateMemberStatus(ctx, t1.ID, "b", teammanager.Failed, ""); err != nil {
		t.Fatal(err)
	}
	add(t1.ID, "b", teammanager.ErrMemberFinished, 8)
}
