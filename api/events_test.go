package api_test

import (
	"errors"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/teammanager"
)

func TestEventOf(t *testing.T) {
	got, err := api.EventOf(teammanager.Event{ID: 7, Type: teammanager.EventsLost, Lost: &teammanager.LostEvents{After: 3, First: 8}})
	if err != nil || got.ID != 7 || got.Type != "events.lost" || got.Time != nil || string(got.Data) != `{"after":3,"first":8}` {
		t.Fatalf("events.lost: %+v (data %s), %v", got, got.Data, err)
	}
	got, err = api.EventOf(teammanager.Event{ID: 9, Type: teammanager.EventTeamDeleted, Team: "t1"})
	if err != nil || got.Team != "t1" || string(got.Data) != `{"team":"t1","deleted":true}` {
		t.Fatalf("team.deleted: %+v (data %s), %v", got, got.Data, err)
	}
	for _, ev := range []teammanager.Event{
		{ID: 1, Type: "team.renamed"},
		{ID: 1, Type: teammanager.EventTeamCreated},
		{ID: 1, Type: teammanager.EventMemberStatus},
		{ID: 1, Type: teammanager.EventMergeCompleted},
		{ID: 1, Type: teammanager.EventConflictResolved},
		{ID: 1, Type: teammanager.EventsLost},
	} {
		if _, err := api.EventOf(ev); !errors.Is(err, api.ErrInvalid) {
			t.Errorf("EventOf(%s without payload): %v", ev.Type, err)
		}
	}
}
