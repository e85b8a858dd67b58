package api_test

import (
	"errors"
	"strings"
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
	got, err = api.EventOf(teammanager.Event{ID: 10, Type: teammanager.EventPlanApproved, Team: "t1",
		Plan: &teammanager.Plan{Team: "t1", Revision: 2, Title: "go", State: teammanager.PlanApproved, Steps: []teammanager.PlanStep{{Title: "a"}}}})
	if err != nil || !strings.Contains(string(got.Data), `"revision":2`) || !strings.Contains(string(got.Data), `"state":"approved"`) ||
		!strings.Contains(string(got.Data), `"steps":[{"title":"a"}]`) {
		t.Fatalf("plan.approved: %+v (data %s), %v", got, got.Data, err)
	}
	got, err = api.EventOf(teammanager.Event{ID: 11, Type: teammanager.EventSnapshotCreated, Team: "t1", Snapshot: &teammanager.Snapshot{ID: "S1", Team: "t1", Quads: 4}})
	if err != nil || !strings.Contains(string(got.Data), `"id":"S1"`) || !strings.Contains(string(got.Data), `"quads":4`) {
		t.Fatalf("snapshot.created: %+v (data %s), %v", got, got.Data, err)
	}
	for _, ev := range []teammanager.Event{
		{ID: 1, Type: teammanager.EventPlanSubmitted},
		{ID: 1, Type: teammanager.EventSnapshotRestored},
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
