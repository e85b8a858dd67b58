package teammanager_test

import (
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestManager_KeepTables checks that a foreign Update that calls KeepTables
// leaves the team table current, and one that does not leaves it stale.
func TestManager_KeepTables(t *testing.T) {
	f := newFixture(t)
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "t", Members: members("a")})
	write := func(keep bool, o string) bool {
		t.Helper()
		err := f.n.Update(ctx, func(tx *cortex.Tx) error {
			tx.Add(quad.Make(quad.IRI("urn:x:s"), quad.IRI("urn:x:p"), quad.String(o), quad.IRI("urn:x:g")))
			if keep {
				f.m.KeepTables(tx)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		current, err := f.n.SideCurrent(ctx, "teams")
		if err != nil {
			t.Fatal(err)
		}
		return current
	}
	if !write(true, "1") {
		t.Error("team table stale after an Update that kept it")
	}
	if write(false, "2") {
		t.Error("team table current after an Update that did not keep it")
	}
}
