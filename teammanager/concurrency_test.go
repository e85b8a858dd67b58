package teammanager_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestManager_ConcurrentUpdates runs 16 goroutines doing 1,000 updates each
// on one team (each goroutine drives its own member through running, 998
// progress reports and completion) and checks the final state exactly: no
// update is lost and no stale triple is left behind. The store is opened
// with SyncWrites(false) by cortextest.
func TestManager_ConcurrentUpdates(t *testing.T) {
	const workers, updates = 16, 1000
	f := newFixture(t, teammanager.DefaultConfig().WithMaxTeamSize(workers).WithAutoMerge(false))
	var ids []string
	for i := range workers {
		ids = append(ids, fmt.Sprintf("agent-%02d", i))
	}
	team := f.create(t, teammanager.TeamConfig{Name: "stress", Members: members(ids...)})
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := 1; u <= updates; u++ {
				st := teammanager.Running
				if u == updates {
					st = teammanager.Completed
				}
				if _, err := f.m.UpdateMemberStatus(ctx, team.ID, id, st, fmt.Sprint(u)); err != nil {
					errs <- fmt.Errorf("%s update %d: %w", id, u, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got, err := f.m.GetTeam(ctx, team.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != teammanager.Completed || len(got.Members) != workers {
		t.Fatalf("team status %s with %d members", got.Status, len(got.Members))
	}
	for _, mb := range got.Members {
		if mb.Status != teammanager.Completed || mb.Result != fmt.Sprint(updates) || mb.CompletedAt.IsZero() {
			t.Errorf("member %+v", mb)
		}
	}
	// Every single-valued predicate has exactly one value.
	counts := map[[2]quad.Value]int{}
	for _, q := range f.graph(t, f.ns.TeamGraph(team.ID)) {
		counts[[2]quad.Value{q.Subject, q.Predicate}]++
	}
	for k, c := range counts {
		if k[1] != f.ns.IRI(namespace.TeamMember) && c != 1 {
			t.Errorf("%v %v has %d values", k[0], k[1], c)
		}
	}
	// 10 team triples (type, name, status, lifecycle, strategy, createdAt,
	// updatedAt, completedAt, timeout, startedAt) + per member: team:member,
	// type, agent, agent type, role, status, joinedAt, result, completedAt.
	if n := len(f.graph(t, f.ns.TeamGraph(team.ID))); n != 10+9*workers {
		t.Errorf("team graph has %d quads, want %d", n, 10+9*workers)
	}
}

// TestManager_ListTeamsWhileCreatingAndDeleting: listings running while other
// goroutines create and delete teams never fail and never return a partial
// team.
func TestManager_ListTeamsWhileCreatingAndDeleting(t *testing.T) {
	f := newFixture(t)
	for i := 0; i < 20; i++ {
		f.create(t, teammanager.TeamConfig{Name: fmt.Sprint("stable-", i), Members: members("a", "b")})
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				team, err := f.m.CreateTeam(ctx, teammanager.TeamConfig{Name: fmt.Sprint("churn-", i), Members: members("x", "y")})
				if err != nil {
					errs <- err
					return
				}
				if _, err := f.m.DisbandTeam(ctx, team.ID); err != nil {
					errs <- err
					return
				}
				if err := f.m.DeleteTeam(ctx, team.ID); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := 0; i < 30; i++ {
		teams, err := f.m.ListTeams(ctx, teammanager.TeamFilter{})
		if err != nil {
			close(stop)
			wg.Wait()
			t.Fatalf("listing %d: %v", i, err)
		}
		stable := 0
		for _, tm := range teams {
			if tm.Name == "" || tm.Status == "" || tm.CreatedAt.IsZero() {
				t.Fatalf("partial team in listing: %+v", tm)
			}
			if strings.HasPrefix(tm.Name, "stable-") {
				stable++
			}
		}
		if stable != 20 {
			t.Fatalf("listing %d has %d stable teams, want 20", i, stable)
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
