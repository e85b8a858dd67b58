package teammanager_test

import (
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestManager_Merge_ConfidenceWeightedLoneObjectIsKept: under
// confidence-weighted, an object no one disputes was kept unless its
// score was within the 1e-9 tolerance of 0, when it became a
// "no-clear-winner" conflict with itself as the only candidate; it is
// kept (its stored confidence never 0).
func TestManager_Merge_ConfidenceWeightedLoneObjectIsKept(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Strategy: merge.NameConfidenceWeighted, Members: members("a")})
	f.status(t, "t", "a", teammanager.Running, "")
	if _, err := f.m.AddFinding(ctx, "t", "a", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("v"), Confidence: 1e-10}); err != nil {
		t.Fatal(err)
	}
	f.status(t, "t", "a", teammanager.Completed, "")
	rep, err := f.m.MergeTeamResults(ctx, "t")
	if err != nil || len(rep.OpenConflicts) != 0 || len(rep.Facts) != 1 || rep.Facts[0].Confidence != 0.01 {
		t.Fatalf("merge: facts %+v, conflicts %+v, %v; want the lone object kept, confidence 0.01", rep.Facts, rep.OpenConflicts, err)
	}
	if qs := f.graph(t, f.ns.SharedGraph("t")); len(qs) != 1 {
		t.Fatalf("shared graph %v", qs)
	}
}
