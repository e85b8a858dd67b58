package api_test

import (
	"encoding/json"
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
	task := teammanager.Task{Team: "t1", ID: "T1", Subject: "s", Status: teammanager.TaskInProgress, Assignee: "bob"}
	got, err = api.EventOf(teammanager.Event{ID: 10, Type: teammanager.EventTaskStatus, Team: "t1",
		Task: &teammanager.TaskChange{Action: teammanager.ActionClaimed, By: "bob", From: teammanager.TaskPending, To: teammanager.TaskInProgress, Task: &task}})
	var te api.TaskEvent
	if err != nil || json.Unmarshal(got.Data, &te) != nil || te.Action != "claimed" || te.From != "pending" || te.To != "in_progress" ||
		te.Task == nil || te.Task.ID != "T1" || te.Task.Assignee != "bob" {
		t.Fatalf("task.status: %+v (data %s), %v", got, got.Data, err)
	}
	got, err = api.EventOf(teammanager.Event{ID: 11, Type: teammanager.EventMessageSent, Team: "t1",
		Message: &teammanager.Message{ID: "M1", Team: "t1", Type: teammanager.MsgAskQuestion, From: "bob", To: []string{"ann"}, Body: "why?", Thread: "M1"}})
	var msg api.Message
	if err != nil || json.Unmarshal(got.Data, &msg) != nil || msg.ID != "M1" || msg.Type != "ask_question" || msg.Body != "why?" {
		t.Fatalf("message.sent: %+v (data %s), %v", got, got.Data, err)
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
		{ID: 1, Type: teammanager.EventTaskCreated},
		{ID: 1, Type: teammanager.EventTaskUpdated, Task: &teammanager.TaskChange{}},
		{ID: 1, Type: teammanager.EventMessageSent},
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
