package teammanager_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

var allStatuses = []teammanager.Status{"", teammanager.Pending, teammanager.Running, teammanager.Completed, teammanager.Failed}

// tableCurrent reports whether the team table of f's namespace is current,
// and its number of rows.
func (f *fixture) tableCurrent(t testing.TB) (bool, int) {
	t.Helper()
	rows, current, err := f.n.SideRows(ctx, teammanager.TeamTable)
	if err != nil {
		t.Fatal(err)
	}
	return current, len(rows)
}

// sameAsQuads checks that ListTeams returns, for every status filter, what
// a listing from the quads returns.
func (f *fixture) sameAsQuads(t testing.TB, when string) []teammanager.Team {
	t.Helper()
	var all []teammanager.Team
	for _, st := range allStatuses {
		fast, err := f.m.ListTeams(ctx, teammanager.TeamFilter{Status: st})
		if err != nil {
			t.Fatalf("%s: ListTeams(%q): %v", when, st, err)
		}
		slow, err := teammanager.ListFromQuads(f.m, ctx, st)
		if err != nil {
			t.Fatalf("%s: from quads (%q): %v", when, st, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%s: ListTeams(%q) differs from the quads:\n got  %+v\n want %+v", when, st, fast, slow)
		}
		if st == "" {
			all = fast
		}
	}
	return all
}

// TestManager_TeamTable_FollowsEveryWrite runs random Manager operations
// (creates with odd names and contexts, member updates, findings, timeouts
// and sweeps, merges, conflict resolutions, pauses, resumes, disbands,
// deletes) and checks after each
// that the team table is current, has a row per team, and lists exactly
// what the quads say, for every status filter.
func TestManager_TeamTable_FollowsEveryWrite(t *testing.T) {
	f := newFixture(t)
	r := rand.New(rand.NewSource(7))
	var teams []string
	agents := []string{"alice", "bob", "carol"}
	statuses := []teammanager.Status{teammanager.Running, teammanager.Running, teammanager.Completed, teammanager.Failed}
	names := []string{"plain", `with "quotes" <and> spaces`, "ünïcödé\ttab", "x"}
	steps := 250
	if testing.Short() {
		steps = 80
	}
	for step := range steps {
		op := r.Intn(14)
		if len(teams) == 0 {
			op = 0
		}
		team := ""
		if len(teams) > 0 {
			team = teams[r.Intn(len(teams))]
		}
		agent := agents[r.Intn(len(agents))]
		var what string
		switch {
		case op < 2:
			n := 1 + r.Intn(3)
			var ms []teammanager.MemberConfig
			for i := range n {
				ms = append(ms, teammanager.MemberConfig{AgentID: agents[i], Role: "r", Critical: r.Intn(4) == 0})
			}
			tc := teammanager.TeamConfig{Name: names[r.Intn(len(names))], Members: ms, Strategy: "conflict-flag"}
			if r.Intn(2) == 0 {
				tc.Timeout = time.Duration(10+r.Intn(60)) * time.Second
			}
			if r.Intn(2) == 0 {
				tc.Context = names[r.Intn(len(names))]
			}
			tm := f.create(t, tc)
			teams = append(teams, tm.ID)
			what = "create " + tm.ID
		case op < 6:
			st := statuses[r.Intn(len(statuses))]
			_, err := f.m.UpdateMemberStatus(ctx, team, agent, st, fmt.Sprint("result ", step))
			what = fmt.Sprintf("member %s/%s → %s (%v)", team, agent, st, err)
		case op < 8:
			_, err := f.m.AddFinding(ctx, team, agent, teammanager.Finding{
				Subject: iri("s"), Predicate: iri("p"), Object: quad.String(fmt.Sprint(r.Intn(3))), Confidence: 0.5,
			})
			what = fmt.Sprintf("finding %s/%s (%v)", team, agent, err)
		case op < 9:
			f.clock.Advance(time.Duration(r.Intn(40)) * time.Second)
			swept, err := f.m.Sweep(ctx)
			if err != nil {
				t.Fatal(err)
			}
			what = fmt.Sprintf("clock + sweep %v", swept)
		case op < 10:
			_, err := f.m.MergeTeamResults(ctx, team)
			what = fmt.Sprintf("merge %s (%v)", team, err)
			cs, err := f.m.Conflicts(ctx, team)
			if err == nil && len(cs) > 0 && !cs[0].Resolved && len(cs[0].Candidates) > 0 {
				_, err = f.m.ResolveConflict(ctx, team, cs[0].ID, []quad.Value{cs[0].Candidates[0].Object}, "judge")
				what += fmt.Sprintf(", resolve %s (%v)", cs[0].ID, err)
			}
		case op < 11:
			_, err := f.m.GetTeam(ctx, team) // reads write nothing
			what = fmt.Sprintf("get %s (%v)", team, err)
		case op < 13:
			moves := []func(context.Context, string) (teammanager.Team, error){f.m.PauseTeam, f.m.ResumeTeam, f.m.PauseTeam, f.m.DisbandTeam}
			i := r.Intn(len(moves))
			_, err := moves[i](ctx, team)
			what = fmt.Sprintf("lifecycle move %d of %s (%v)", i, team, err)
		default:
			err := f.m.DeleteTeam(ctx, team)
			if errors.Is(err, teammanager.ErrTeamActive) {
				if _, err = f.m.DisbandTeam(ctx, team); err == nil {
					err = f.m.DeleteTeam(ctx, team)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, id := range teams {
				if id == team {
					teams = append(teams[:i], teams[i+1:]...)
					break
				}
			}
			what = "delete " + team
		}
		when := fmt.Sprintf("step %d (%s)", step, what)
		if current, n := f.tableCurrent(t); !current || n != len(teams) {
			t.Fatalf("%s: table current %v with %d rows, want current with %d", when, current, n, len(teams))
		}
		f.sameAsQuads(t, when)
	}
}

// TestManager_TeamTable_OtherWriters: writes that are not the Manager's
// make the table stale; the next listing reads the quads (so it is right)
// and rebuilds the table.
func TestManager_TeamTable_OtherWriters(t *testing.T) {
	f := newFixture(t)
	var ids []string
	for i := range 5 {
		ids = append(ids, f.create(t, teammanager.TeamConfig{Name: fmt.Sprint("team ", i), Members: members("a", "b")}).ID)
		f.clock.Advance(time.Second)
	}
	f.status(t, ids[1], "a", teammanager.Running, "")
	x := f.ns
	nameOf := func(id string) quad.Quad {
		qs, err := f.n.Quads(ctx, cortex.Pattern{Subject: x.Team(id), Predicate: x.IRI(namespace.TeamName), Graph: x.TeamGraph(id), Scope: cortex.OneGraph})
		if err != nil || len(qs) != 1 {
			t.Fatalf("name of %s: %v, %v", id, qs, err)
		}
		return qs[0]
	}
	stale := func(when string) {
		t.Helper()
		if current, _ := f.tableCurrent(t); current {
			t.Fatalf("%s: table current, want stale", when)
		}
	}
	rebuilt := func(when string) []teammanager.Team {
		t.Helper()
		got := f.sameAsQuads(t, when)
		if current, n := f.tableCurrent(t); !current || n != len(got) {
			t.Fatalf("%s: after a listing, table current %v with %d rows, want current with %d", when, current, n, len(got))
		}
		return got
	}

	// A host renames a team with its own delta.
	old := nameOf(ids[0])
	renamed := old
	renamed.Object = quad.String("renamed by hand")
	if err := f.n.Apply(ctx, cortex.Delta{Remove: []quad.Quad{old}, Add: []quad.Quad{renamed}}); err != nil {
		t.Fatal(err)
	}
	stale("after a rename by Apply")
	got := rebuilt("after a rename by Apply")
	if got[0].ID != ids[0] || got[0].Name != "renamed by hand" {
		t.Fatalf("first team %+v, want %s renamed", got[0], ids[0])
	}

	// An import of N-Quads that defines a team by hand, and a look-alike
	// team node outside any team graph.
	g := x.TeamGraph("by-hand")
	node := x.Team("by-hand")
	nq := []quad.Quad{
		{Subject: node, Predicate: quad.IRI(namespace.RDFType), Object: x.IRI(namespace.ClassTeam), Label: g},
		{Subject: node, Predicate: x.IRI(namespace.TeamName), Object: quad.String("hand-made"), Label: g},
		{Subject: node, Predicate: x.IRI(namespace.TeamStatus), Object: quad.String("running"), Label: g},
		{Subject: node, Predicate: x.IRI(namespace.TeamStrategy), Object: quad.String("additive"), Label: g},
		{Subject: node, Predicate: x.IRI(namespace.TeamCreatedAt), Object: namespace.DateTime(f.clock.Now()), Label: g},
		{Subject: x.Team("fake"), Predicate: quad.IRI(namespace.RDFType), Object: x.IRI(namespace.ClassTeam)},
	}
	var buf bytes.Buffer
	for _, q := range nq {
		fmt.Fprintln(&buf, q.NQuad())
	}
	if _, err := f.n.ImportRDF(ctx, &buf, cortex.RDFImportOptions{Format: "nquads"}); err != nil {
		t.Fatal(err)
	}
	stale("after an import")
	got = rebuilt("after an import")
	if len(got) != 6 || got[5].ID != "by-hand" || got[5].Status != teammanager.Running {
		t.Fatalf("after an import: %d teams, last %+v; want the hand-made team last", len(got), got[len(got)-1])
	}

	// A dropped state graph takes its team out of the listing.
	if _, err := f.n.DropGraph(ctx, x.TeamGraph(ids[2])); err != nil {
		t.Fatal(err)
	}
	stale("after DropGraph")
	if got = rebuilt("after DropGraph"); len(got) != 5 {
		t.Fatalf("after DropGraph: %d teams, want 5", len(got))
	}

	// Manager writes keep a stale table stale; a listing inside a host's
	// Update (the write lock is taken) lists from the quads without
	// rebuilding, and without waiting for the lock.
	if err := f.n.Apply(ctx, cortex.Delta{Remove: []quad.Quad{renamed}, Add: []quad.Quad{old}}); err != nil {
		t.Fatal(err)
	}
	f.status(t, ids[3], "a", teammanager.Running, "")
	stale("after a Manager write on a stale table")
	done := make(chan error, 1)
	go func() {
		done <- f.n.Update(ctx, func(tx *cortex.Tx) error {
			ts, err := f.m.ListTeams(ctx, teammanager.TeamFilter{})
			if err == nil && (len(ts) != 5 || ts[0].Name != "team 0") {
				err = fmt.Errorf("listing inside an Update: %d teams, first %q", len(ts), ts[0].Name)
			}
			return err
		})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("ListTeams inside an Update did not return (deadlock?)")
	}
	stale("after a listing inside an Update")
	rebuilt("after the write lock is free")
}

// TestManager_TeamTable_RestoredAndReadOnly: a store restored from an export
// has no team table and lists the same teams (then rebuilds it); a stale
// table in a read-only store is listed from the quads and stays stale.
func TestManager_TeamTable_RestoredAndReadOnly(t *testing.T) {
	f := newFixture(t)
	for i := range 4 {
		f.create(t, teammanager.TeamConfig{Name: fmt.Sprint("team ", i), Members: members("a"), Timeout: time.Minute})
		f.clock.Advance(time.Second)
	}
	want := f.sameAsQuads(t, "before the export")
	var buf bytes.Buffer
	if _, err := f.n.Export(ctx, &buf, "nquads", cortex.ExportOptions{}); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	s, err := cortex.Open(ctx, dir, cortex.DefaultOptions().WithSyncWrites(false))
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.Namespace(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.ImportRDF(ctx, &buf, cortex.RDFImportOptions{Format: "nquads"}); err != nil {
		t.Fatal(err)
	}
	g := &fixture{s: s, cfg: f.cfg, n: n, ns: f.ns, clock: f.clock}
	if current, rows := g.tableCurrent(t); current || rows != 0 {
		t.Fatalf("restored store: table current %v with %d rows, want none", current, rows)
	}
	// New rebuilds it.
	if g.m, err = teammanager.New(ctx, s, f.ns, f.cfg); err != nil {
		t.Fatal(err)
	}
	if current, rows := g.tableCurrent(t); !current || rows != 4 {
		t.Fatalf("restored store after New: table current %v with %d rows", current, rows)
	}
	if got := g.sameAsQuads(t, "restored"); !reflect.DeepEqual(got, want) {
		t.Fatalf("restored store lists\n %+v\nwant\n %+v", got, want)
	}
	// Make the table stale, then reopen the store read-only.
	extra := quad.Quad{Subject: quad.IRI("urn:x"), Predicate: quad.IRI("urn:p"), Object: quad.String("o")}
	if err := n.Apply(ctx, cortex.Delta{Add: []quad.Quad{extra}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = cortex.Open(ctx, dir, cortex.DefaultOptions().WithReadOnly(true))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n, err = s.Namespace(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	m, err := teammanager.New(ctx, s, f.ns, f.cfg)
	if err != nil {
		t.Fatal(err)
	}
	g = &fixture{s: s, cfg: f.cfg, m: m, n: n, ns: f.ns, clock: f.clock}
	if got := g.sameAsQuads(t, "read-only"); !reflect.DeepEqual(got, want) {
		t.Fatalf("read-only store lists\n %+v\nwant\n %+v", got, want)
	}
	if current, _ := g.tableCurrent(t); current {
		t.Fatal("read-only store: the table became current")
	}
}

// TestManager_TeamTable_Concurrent lists while other goroutines create and
// update teams (run with -race): every listing is a consistent set of
// teams, and in the end the table is current and matches the quads.
func TestManager_TeamTable_Concurrent(t *testing.T) {
	f := newFixture(t)
	const writers, each = 4, 15
	var wg sync.WaitGroup
	errs := make(chan error, writers+1)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				tm, err := f.m.CreateTeam(ctx, teammanager.TeamConfig{Name: fmt.Sprint("w", w, "-", i), Members: members("a", "b")})
				if err == nil {
					_, err = f.m.UpdateMemberStatus(ctx, tm.ID, "a", teammanager.Running, "")
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	stop := make(chan struct{})
	var lw sync.WaitGroup
	lw.Add(1)
	go func() {
		defer lw.Done()
		last := 0
		for {
			select {
			case <-stop:
				return
			default:
			}
			ts, err := f.m.ListTeams(ctx, teammanager.TeamFilter{})
			if err != nil {
				errs <- err
				return
			}
			if len(ts) < last {
				errs <- fmt.Errorf("a listing of %d teams after one of %d", len(ts), last)
				return
			}
			last = len(ts)
			for _, tm := range ts {
				if tm.Status != teammanager.Pending && tm.Status != teammanager.Running {
					errs <- fmt.Errorf("team %s is %s", tm.ID, tm.Status)
					return
				}
			}
		}
	}()
	// A writer that is not the Manager makes the table stale now and then,
	// so listings also rebuild it while Managers write.
	for i := range 5 {
		q := quad.Quad{Subject: quad.IRI(fmt.Sprint("urn:x", i)), Predicate: quad.IRI("urn:p"), Object: quad.String("o")}
		if err := f.n.Apply(ctx, cortex.Delta{Add: []quad.Quad{q}}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	wg.Wait()
	close(stop)
	lw.Wait()
	close(errs)
	for err := range errs {
		if err != nil && !errors.Is(err, cortex.ErrBusy) {
			t.Fatal(err)
		}
	}
	got := f.sameAsQuads(t, "after the concurrent writes")
	if len(got) != writers*each {
		t.Fatalf("%d teams, want %d", len(got), writers*each)
	}
	if current, n := f.tableCurrent(t); !current || n != writers*each {
		t.Fatalf("table current %v with %d rows", current, n)
	}
}
