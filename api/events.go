package api

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/cortexgraph/cortex/teammanager"
)

// Event is an event of a namespace (teammanager.Event): the data of an
// event of the server's /ns/{ns}/events stream, whose SSE id and event
// fields repeat its id and type. Data holds the JSON shape of its type:
//
//   - team.created: Team, with its members.
//   - team.status: Team, without its members.
//   - member.status: MemberStatus, without merge.
//   - findings.added: FindingsAdded.
//   - merge.completed: Merge, without its facts (read them with facts.list)
//     and open conflicts (the conflict.detected event carries the new ones).
//   - conflict.detected: ConflictsDetected.
//   - conflict.resolved: Conflict.
//   - team.deleted: TeamDeleted.
//   - task.created, task.status, task.updated: TaskEvent, with the task
//     after the change.
//   - message.sent: Message.
//   - plan.drafted, plan.submitted, plan.approved, plan.rejected: the plan
//     revision (teammanager.Plan).
//   - snapshot.created, snapshot.restored, snapshot.deleted: the snapshot
//     (teammanager.Snapshot).
//   - events.lost: EventsLost.
type Event struct {
	ID   uint64          `json:"id"`
	Type string          `json:"type"`
	Team string          `json:"team,omitempty"`
	Time *time.Time      `json:"time,omitempty"` // absent from events.lost
	Data json.RawMessage `json:"data"`
}

// FindingsAdded is the data of findings.added: findings that one write
// added for one member (at most teammanager.MaxEventFindings, and about
// teammanager.MaxEventRow bytes stored: a larger write is several events).
type FindingsAdded struct {
	Team     string    `json:"team"`
	Agent    string    `json:"agent"`
	Findings []Finding `json:"findings"`
}

// ConflictsDetected is the data of conflict.detected: the open conflicts
// that merge run mergeId recorded for the first time (or part of them: over
// about teammanager.MaxEventRow bytes stored, they are several events).
type ConflictsDetected struct {
	Team      string     `json:"team"`
	MergeID   string     `json:"mergeId"`
	Conflicts []Conflict `json:"conflicts"`
}

// EventsLost is the data of events.lost: the events after After and
// before First were removed (retention) before they were read. The event's
// id is First-1.
type EventsLost struct {
	After uint64 `json:"after"`
	First uint64 `json:"first"`
}

// EventOf returns the JSON shape of ev. An event whose payload does not
// fit its type (an unknown type, a missing payload) is an error matching
// ErrInvalid.
func EventOf(ev teammanager.Event) (Event, error) {
	var data any
	bad := func() (Event, error) {
		return Event{}, fmt.Errorf("%w: event %d of type %q without its payload", ErrInvalid, ev.ID, ev.Type)
	}
	switch ev.Type {
	case teammanager.EventTeamCreated, teammanager.EventTeamStatus:
		if ev.TeamState == nil {
			return bad()
		}
		data = TeamOf(*ev.TeamState)
	case teammanager.EventMemberStatus:
		if ev.Member == nil {
			return bad()
		}
		mu := *ev.Member
		mu.Merge = nil
		data = MemberStatusOf(mu)
	case teammanager.EventFindingsAdded:
		data = FindingsAdded{Team: ev.Team, Agent: ev.Agent, Findings: FindingsOf(ev.Findings)}
	case teammanager.EventMergeCompleted:
		if ev.Merge == nil {
			return bad()
		}
		data = MergeOf(*ev.Merge)
	case teammanager.EventConflictDetected:
		data = ConflictsDetected{Team: ev.Team, MergeID: ev.MergeID, Conflicts: ConflictsOf(ev.Conflicts, false)}
	case teammanager.EventConflictResolved:
		cs := ConflictsOf(ev.Conflicts, false)
		if len(cs) != 1 {
			return bad()
		}
		data = cs[0]
	case teammanager.EventTeamDeleted:
		data = TeamDeleted{Team: ev.Team, Deleted: true}
	case teammanager.EventTaskCreated, teammanager.EventTaskStatus, teammanager.EventTaskUpdated:
		if ev.Task == nil || ev.Task.Task == nil {
			return bad()
		}
		data = TaskEventOf(*ev.Task)
	case teammanager.EventMessageSent:
		if ev.Message == nil {
			return bad()
		}
		data = MessageOf(*ev.Message)
	case teammanager.EventPlanDrafted, teammanager.EventPlanSubmitted, teammanager.EventPlanApproved, teammanager.EventPlanRejected:
		if ev.Plan == nil {
			return bad()
		}
		data = ev.Plan // teammanager.Plan's JSON: team, revision, iri, title, steps, state, ...
	case teammanager.EventSnapshotCreated, teammanager.EventSnapshotRestored, teammanager.EventSnapshotDeleted:
		if ev.Snapshot == nil {
			return bad()
		}
		data = ev.Snapshot // teammanager.Snapshot's JSON: id, team, note, createdAt, ...
	case teammanager.EventsLost:
		if ev.Lost == nil {
			return bad()
		}
		data = EventsLost{After: ev.Lost.After, First: ev.Lost.First}
	default:
		return bad()
	}
	b, err := json.Marshal(data)
	if err != nil {
		return Event{}, fmt.Errorf("event %d: %w", ev.ID, err)
	}
	return Event{ID: ev.ID, Type: string(ev.Type), Team: ev.Team, Time: tp(ev.Time), Data: b}, nil
}
