package teammanager_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestManager_Subscribe_FromEmptyLogReportsLoss: a subscription made
// with LastEventID() while the namespace has no event yet ("only events to
// come") whose events retention removes before it reads them gets an
// events.lost event in their place, as one made after id 1 or later does
// (it got the oldest event kept, silently skipping those removed).
func TestManager_Subscribe_FromEmptyLogReportsLoss(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithEventRetention(0, 5))
	last, err := f.m.LastEventID(ctx)
	if err != nil || last != 0 {
		t.Fatalf("LastEventID of an empty namespace: %d, %v", last, err)
	}
	seq, err := f.m.Subscribe(ctx, last)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		f.create(t, teammanager.TeamConfig{ID: fmt.Sprint("t", i), Name: "n", Members: members("a")})
	}
	var evs []teammanager.Event
	for ev, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		if evs = append(evs, ev); ev.ID == 12 { // the last
			break
		}
	}
	if lost := evs[0]; lost.Type != teammanager.EventsLost || lost.ID != 7 || *lost.Lost != (teammanager.LostEvents{After: 0, First: 8}) {
		t.Fatalf("first event of a subscription from an empty log, 7 of its events removed: %+v (ids %v)", lost, ids(evs))
	}
	checkIDs(t, evs[1:], 8)
}

// TestManager_Events_CorruptOldestRow: a row of the oldest event id
// without values (a damaged store) is an error matching ErrCorrupt, not
// a panic (it was indexed before its length was checked).
func TestManager_Events_CorruptOldestRow(t *testing.T) {
	f := newFixture(t)
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a")})
	if err := f.n.Update(ctx, func(tx *cortex.Tx) error {
		tx.PutSide("eventseq", "first", []quad.Value{})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	seq, err := f.m.Subscribe(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range seq {
		if !errors.Is(err, teammanager.ErrCorrupt) {
			t.Fatalf("reading events with a damaged oldest id row: %v, want ErrCorrupt", err)
		}
		break
	}
	if _, err := f.m.CreateTeam(ctx, teammanager.TeamConfig{ID: "t2", Name: "n", Members: members("a")}); !errors.Is(err, teammanager.ErrCorrupt) {
		t.Fatalf("a write with a damaged oldest id row: %v, want ErrCorrupt", err)
	}
}
