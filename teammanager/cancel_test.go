package teammanager_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestLargeWrites_CancelledAnywhere cancels the team manager's large writes
// (larger than cortex.MaxDeltaQuads, so journaled: a merge, a findings
// import, a team's deletion) at increasing delays after they start, and
// requires each to be all or nothing: done in full, or failed with the
// context's error having changed nothing (the namespace's quads are those
// of before, to the quad), and the next attempt then succeeding. The store's
// invariants are checked at cleanup (cortextest). The delays only place the
// cancellation; which outcome each gets is not asserted.
func TestLargeWrites_CancelledAnywhere(t *testing.T) {
	// Where to cancel: at these fractions of the time the same write took
	// uncancelled (on a reference team, first), so that the cancellations
	// fall all along each write on any machine.
	if testing.Short() {
		t.Skip("journaled writes of seven teams: in the full suite only (-short is the race detector's run, ~1 min here)")
	}
	fractions := []float64{0, 0.05, 0.3, 0.6, 0.9, 1.3}
	const agents, perAgent = 4, 600
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	ids := []string{"a0", "a1", "a2", "a3"}
	findings := func(a, seed int) string {
		var sb strings.Builder
		for i := range perAgent {
			fmt.Fprintf(&sb, "<http://example.org/s%d> <http://example.org/p> \"o%d\" .\n", seed+i, (i*7+a*i/3+a)%3)
		}
		return sb.String()
	}
	outcomes := map[string]int{}
	// attempt runs op with a context cancelled after d; on failure it
	// requires the context's error and an unchanged namespace, then runs op
	// again without a deadline, which must succeed.
	attempt := func(name string, d time.Duration, op func(context.Context) error) {
		t.Helper()
		before := f.dump(t)
		cctx, cancel := context.WithCancel(ctx)
		timer := time.AfterFunc(d, cancel)
		err := op(cctx)
		timer.Stop()
		cancel()
		if err == nil {
			outcomes[name+" done"]++
			return
		}
		outcomes[name+" cancelled"]++
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s cancelled after %v: %v, want the context's error", name, d, err)
		}
		if after := f.dump(t); !slices.Equal(before, after) {
			t.Fatalf("%s cancelled after %v (%v) changed the namespace: %d quads before, %d after", name, d, err, len(before), len(after))
		}
		if err := op(ctx); err != nil {
			t.Fatalf("%s again after a cancelled one: %v", name, err)
		}
	}
	took := map[string]time.Duration{}
	for i := -1; i < len(fractions); i++ {
		team := fmt.Sprint("t", i)
		if i < 0 {
			team = "ref"
		}
		// run runs a write of the team: timed on the reference team,
		// attempted with a cancellation on the others.
		run := func(name string, op func(context.Context) error) {
			t.Helper()
			if i >= 0 {
				attempt(name, time.Duration(fractions[i]*float64(took[name])), op)
				return
			}
			before := len(f.dump(t))
			start := time.Now()
			if err := op(ctx); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			took[name] = time.Since(start)
			// The writes must be journaled ones, larger than one transaction.
			if n := len(f.dump(t)) - before; max(n, -n) <= cortex.MaxDeltaQuads {
				t.Fatalf("%s changed %d quads, not more than MaxDeltaQuads (%d): make the team larger", name, n, cortex.MaxDeltaQuads)
			}
		}
		empty := f.dump(t) // without the team
		f.create(t, teammanager.TeamConfig{ID: team, Name: team, Strategy: merge.NameMajorityWins, Members: members(append(ids, "imp")...)})
		for a, id := range ids {
			f.status(t, team, id, teammanager.Running, "")
			if n, err := f.m.ImportFindings(ctx, team, id, strings.NewReader(findings(a, 0)), "ntriples"); err != nil || n != perAgent {
				t.Fatalf("import: %d, %v", n, err)
			}
			f.status(t, team, id, teammanager.Completed, "")
		}
		run("merge", func(c context.Context) error {
			rep, err := f.m.MergeTeamResults(c, team)
			if err == nil && (rep.Unchanged || len(rep.Facts) == 0) {
				return fmt.Errorf("merge wrote nothing: %+v", rep.Report)
			}
			return err
		})
		if rep, err := f.m.MergeTeamResults(ctx, team); err != nil || !rep.Unchanged {
			t.Fatalf("merge after a merge: unchanged %v, %v", rep.Unchanged, err)
		}
		f.status(t, team, "imp", teammanager.Running, "")
		run("import", func(c context.Context) error {
			before, err := f.m.Findings(ctx, team, teammanager.FindingFilter{Agent: "imp"})
			if err != nil {
				return err
			}
			n, err := f.m.ImportFindings(c, team, "imp", strings.NewReader(findings(0, 100000)), "ntriples")
			if err != nil {
				return err
			}
			after, err := f.m.Findings(ctx, team, teammanager.FindingFilter{Agent: "imp"})
			if err == nil && (n != perAgent || len(after) != len(before)+perAgent) {
				err = fmt.Errorf("import: %d imported, %d findings before, %d after", n, len(before), len(after))
			}
			return err
		})
		f.status(t, team, "imp", teammanager.Completed, "") // a team is deleted once finished
		run("delete", func(c context.Context) error {
			if err := f.m.DeleteTeam(c, team); err != nil {
				return err
			}
			if _, err := f.m.GetTeam(ctx, team); !errors.Is(err, teammanager.ErrUnknownTeam) {
				return fmt.Errorf("deleted team: %v, want ErrUnknownTeam", err)
			}
			if after := f.dump(t); !slices.Equal(after, empty) {
				return fmt.Errorf("deleted team %s: %d quads, %d before it was created", team, len(after), len(empty))
			}
			return nil
		})
	}
	t.Logf("uncancelled: %v; outcomes: %v", took, outcomes)
}

// dump returns every quad of the fixture's namespace, as N-Quads lines,
// sorted.
func (f *fixture) dump(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, scope := range []cortex.Scope{cortex.DefaultGraph, cortex.NamedGraphs} {
		qs, err := f.n.Quads(ctx, cortex.Pattern{Scope: scope})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			out = append(out, q.NQuad())
		}
	}
	slices.Sort(out)
	return out
}
