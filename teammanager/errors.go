package teammanager

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cortexgraph/cortex/namespace"
)

// Lookup errors: the named thing does not exist.
var (
	// ErrUnknownTeam means no team has the given id.
	ErrUnknownTeam = errors.New("unknown team")
	// ErrUnknownAgent means the agent is not a member of the team.
	ErrUnknownAgent = errors.New("unknown agent")
	// ErrUnknownConflict means the team has no conflict with the given id.
	ErrUnknownConflict = errors.New("unknown conflict")
	// ErrInvalidID means an id that no team, agent, task, message,
	// conflict or snapshot can have ("a/b", "T0"): an error wrapping it
	// also wraps the lookup error of its kind (ErrUnknownTeam, ...), as
	// no such thing exists either (see *IDError). It is
	// namespace.ErrInvalidID, which the malformed names of package
	// defstore and the token ids of package server wrap too.
	ErrInvalidID = namespace.ErrInvalidID
)

// IDError reports a malformed id where an id of a team, agent, task,
// message, conflict or snapshot was expected. It matches ErrInvalidID and
// Unknown, the lookup error of its kind (ErrUnknownTeam, ...). It is
// namespace.IDError.
type IDError = namespace.IDError

// unknown returns the lookup error of id, unknown (ErrUnknownTeam,
// ErrUnknownAgent, ErrUnknownTask, ErrUnknownMessage, ErrUnknownConflict
// or ErrUnknownSnapshot): unknown itself for a well-formed id, an
// *IDError for one no such thing can have.
func unknown(unknown error, id string) error {
	var ok bool
	var want string
	switch unknown {
	case ErrUnknownTeam, ErrUnknownAgent:
		ok, want = validID(id), "1 to 64 characters of A-Z a-z 0-9 . _ @ + -"
	case ErrUnknownTask:
		_, ok = taskNum(id)
		want = "T1, T2, ..."
	case ErrUnknownMessage:
		_, ok = msgNum(id)
		want = "M1, M2, ..."
	case ErrUnknownSnapshot:
		_, ok = snapNum(id)
		want = "S1, S2, ..."
	case ErrUnknownConflict:
		ok, want = validConflictID(id), "c and 32 hexadecimal digits"
	default:
		return unknown
	}
	if ok {
		return unknown
	}
	return &IDError{Unknown: unknown, Want: want}
}

// IDText returns id as the Manager's messages name it: as it is if it is
// made of the characters of ids only (1 to 64 of A-Z a-z 0-9 . _ @ + -,
// which every team, agent, task, message, snapshot and conflict id and
// every status is), quoted (%q) otherwise, as the lookup errors quote it:
// an id given with a newline, a control character or bytes that are not
// UTF-8 can neither garble nor forge the message. Package client names
// ids so in the Manager's messages it writes itself.
func IDText(id string) string {
	if validID(id) {
		return id
	}
	return strconv.Quote(id)
}

// validConflictID reports whether s is how conflict ids are written:
// "c" and 32 lower-case hexadecimal digits (merge.Topic.ConflictID).
func validConflictID(s string) bool {
	rest, ok := strings.CutPrefix(s, "c")
	return ok && len(rest) == 32 && strings.Trim(rest, "0123456789abcdef") == ""
}

// State errors: the operation does not fit the current state.
var (
	// ErrInvalidTransition means a member status change that the lifecycle
	// pending → running → completed | failed does not allow (see
	// *TransitionError).
	ErrInvalidTransition = errors.New("invalid status transition")
	// ErrTeamFinished means the team is completed or failed (possibly by its
	// timeout) and accepts no more member updates or findings.
	ErrTeamFinished = errors.New("team is finished")
	// ErrTeamPaused means the team is paused (PauseTeam): its members'
	// status updates and findings wait for ResumeTeam.
	ErrTeamPaused = errors.New("team is paused")
	// ErrTeamDisbanded means the team was disbanded (DisbandTeam): its
	// graphs are read-only until it is deleted.
	ErrTeamDisbanded = errors.New("team is disbanded")
	// ErrTeamActive means DeleteTeam was asked to delete a team that is
	// forming, active or paused: disband it first, or let it complete.
	ErrTeamActive = errors.New("team is not completed or disbanded")
	// ErrMemberFinished means the member is completed or failed and may no
	// longer add findings.
	ErrMemberFinished = errors.New("member is finished")
	// ErrTeamExists means CreateTeam was given an id that is already taken.
	ErrTeamExists = errors.New("team already exists")
	// ErrAlreadyResolved means a conflict was resolved before.
	ErrAlreadyResolved = errors.New("conflict already resolved")
	// ErrConcurrentMerge means a merge found, at each moment of writing,
	// that another Manager over the same namespace had merged the team,
	// restored a snapshot of it or resolved one of its conflicts since the
	// merge read it (a merge starts
	// again up to 8 times while its context is live). Nothing of it was
	// written; retry.
	ErrConcurrentMerge = errors.New("team changed by a concurrent merge or resolution")
	// ErrStrategyPanicked means the team's merge strategy (a custom one:
	// merge.Strategy) panicked. The merge fails as if the strategy had
	// returned an error naming the panic value: nothing of it is written,
	// and the team stays not merged until its strategy works.
	ErrStrategyPanicked = errors.New("merge strategy panicked")
)

// Input errors: the request itself is malformed.
var (
	// ErrInvalidTeam means a TeamConfig failed validation (empty name, no
	// members, too many members, duplicate agent, unknown strategy, bad id,
	// threshold or timeout, text that is not valid UTF-8).
	ErrInvalidTeam = errors.New("invalid team config")
	// ErrInvalidFinding means a finding has a term of the wrong kind, a
	// confidence outside [0, 1], or uses a Cortex-reserved IRI.
	ErrInvalidFinding = errors.New("invalid finding")
	// ErrInvalidStatus means a status word other than pending, running,
	// completed or failed, or a status update whose result is not valid
	// UTF-8; also an unknown word of a lifecycle, task status or message
	// status filter.
	ErrInvalidStatus = errors.New("invalid status")
	// ErrInvalidConfig means a Config value is out of range.
	ErrInvalidConfig = errors.New("invalid team manager config")
	// ErrInvalidResolution means a conflict resolution without a resolver or
	// with a malformed object.
	ErrInvalidResolution = errors.New("invalid resolution")
	// ErrInvalidEventID means Subscribe was given an event id past the
	// namespace's last event.
	ErrInvalidEventID = errors.New("invalid event id")
)

// ErrCorrupt means the team's triples do not have the shape the manager
// writes (for example two status values); it is never caused by input.
var ErrCorrupt = errors.New("team state is corrupt")

// TransitionError reports a refused member status change. It matches
// ErrInvalidTransition.
type TransitionError struct {
	Team, Agent string
	From, To    Status
}

func (e *TransitionError) Error() string {
	return fmt.Sprintf("team %s: member %s: %v: %s → %s", IDText(e.Team), IDText(e.Agent), ErrInvalidTransition, e.From, e.To)
}

// Unwrap returns ErrInvalidTransition.
func (e *TransitionError) Unwrap() error { return ErrInvalidTransition }

// AutoMergeError reports that a finished team's due merge failed: the
// automatic merge after the member update that finished the team (the
// update itself is committed, not rolled back), or a retry of it (see the
// package documentation, "Merges that always happen"). The team stays not
// merged (Team.MergePending MergeFailed) and the merge is retried; it can
// also be run by hand (MergeTeamResults, `cortexctl teams merge TEAM`).
//
// A merge stopped at AutoMergeTimeout is recorded as failed too, but no
// retry point runs it again: only MergeTeamResults does.
type AutoMergeError struct {
	Team string
	Err  error

	timedOut bool // stopped at AutoMergeTimeout, and recorded so
}

func (e *AutoMergeError) Error() string {
	if e.timedOut {
		return fmt.Sprintf("team %s is finished but not merged: merge failed: %v (not retried automatically: run `cortexctl teams merge %s`)", IDText(e.Team), e.Err, IDText(e.Team))
	}
	return fmt.Sprintf("team %s is finished but not merged: merge failed: %v (retried by Sweep and the next write to the team; or run `cortexctl teams merge %s`)", IDText(e.Team), e.Err, IDText(e.Team))
}

// Unwrap returns the merge error.
func (e *AutoMergeError) Unwrap() error { return e.Err }

// Task board and mailbox errors.
var (
	// ErrUnknownTask means the team has no task with the given id.
	ErrUnknownTask = errors.New("unknown task")
	// ErrUnknownMessage means the team has no message with the given id
	// (or the agent is not one of its recipients).
	ErrUnknownMessage = errors.New("unknown message")
	// ErrInvalidTask means a task or task update failed validation (empty
	// subject, priority out of range, bad blocked_by, bad comment kind; an
	// unknown assignee or blocked_by also wraps ErrUnknownAgent or
	// ErrUnknownTask).
	ErrInvalidTask = errors.New("invalid task")
	// ErrTaskCycle means blocked_by would make a cycle (see *CycleError).
	ErrTaskCycle = errors.New("task dependency cycle")
	// ErrTaskState means the task's status (or pause) does not allow the
	// operation, e.g. claiming a completed task (see *TaskStateError).
	ErrTaskState = errors.New("task status does not allow this")
	// ErrNotAllowed means the agent may not do this on the board: not the
	// lead, not the assignee, or the lead where the board does not let the
	// lead work.
	ErrNotAllowed = errors.New("not allowed")
	// ErrBlocked means the task waits for blockers that have not completed.
	ErrBlocked = errors.New("task is blocked")
	// ErrNoReadyTask means ClaimNext found no task the agent may claim.
	ErrNoReadyTask = errors.New("no ready task")
	// ErrCircuitOpen means a task reached the board's dispatch limit
	// without completing: the claim failed it instead.
	ErrCircuitOpen = errors.New("task dispatch limit reached")
	// ErrInvalidMessage means a message failed validation (unknown type,
	// empty body; a recipient, reply or task the team does not have, which
	// also wrap ErrUnknownAgent, ErrUnknownMessage or ErrUnknownTask).
	ErrInvalidMessage = errors.New("invalid message")
)

// boardSettingError is a board setting out of range: its message names
// the setting ("invalid board setting: lease -5s: want > 0"), not the
// Manager's config. It matches ErrInvalidConfig.
type boardSettingError struct{ msg string }

func boardSettingErr(format string, a ...any) error {
	return &boardSettingError{fmt.Sprintf(format, a...)}
}

func (e *boardSettingError) Error() string { return "invalid board setting: " + e.msg }

// Unwrap returns ErrInvalidConfig.
func (e *boardSettingError) Unwrap() error { return ErrInvalidConfig }

// TaskStateError reports a task operation its status refuses. It matches
// ErrTaskState.
type TaskStateError struct {
	Team, Task string
	Status     TaskStatus
	Paused     bool
	Op         string
}

func (e *TaskStateError) Error() string {
	return fmt.Sprintf("team %s: task %s: %s", IDText(e.Team), IDText(e.Task), e.detail())
}

// detail is e's message without the team and the task.
func (e *TaskStateError) detail() string {
	st := string(e.Status)
	if e.Paused {
		st += " (paused)"
	}
	return fmt.Sprintf("%v: cannot %s a task that is %s", ErrTaskState, e.Op, st)
}

// stateOfTask is a *TaskStateError named by an operation on its task
// (taskErr): its message leaves the team and the task out.
type stateOfTask struct{ *TaskStateError }

func (e stateOfTask) Error() string { return e.detail() }

// Unwrap returns the *TaskStateError.
func (e stateOfTask) Unwrap() error { return e.TaskStateError }

// Unwrap returns ErrTaskState.
func (e *TaskStateError) Unwrap() error { return ErrTaskState }

// CycleError reports blocked_by that would make a dependency cycle; Cycle
// lists it from the task back to itself (T1 → T3 → T1). It matches
// ErrTaskCycle. Its message names the cycle; the Manager's methods that
// return it say which team and call (as their other errors do).
type CycleError struct {
	Team  string
	Cycle []string
}

func (e *CycleError) Error() string {
	return fmt.Sprintf("%v: %s", ErrTaskCycle, strings.Join(e.Cycle, " → "))
}

// Unwrap returns ErrTaskCycle.
func (e *CycleError) Unwrap() error { return ErrTaskCycle }

// Plan and snapshot errors.
var (
	// ErrNoPlan means the team's lead has drafted no plan (or no revision
	// with the given number).
	ErrNoPlan = errors.New("no plan")
	// ErrInvalidPlan means a plan failed validation (empty title, no
	// steps, a step without a title), a rejection without feedback or a
	// review that names no revision.
	ErrInvalidPlan = errors.New("invalid plan")
	// ErrPlanState means the plan's approval state does not allow the
	// operation, e.g. approving a draft that was never submitted, or
	// reviewing a revision that is no longer the latest.
	ErrPlanState = errors.New("plan state does not allow this")
	// ErrPlanNotApproved means the board requires an approved plan
	// (BoardSettings.PlanApproval) before any task is claimed or
	// dispatched, and there is none yet.
	ErrPlanNotApproved = errors.New("plan not approved")
	// ErrUnknownSnapshot means the team has no snapshot with the given id.
	ErrUnknownSnapshot = errors.New("unknown snapshot")
)

// teamErr returns err, the failure of operation op (e.g. "draft plan",
// "claim task T1") on team, naming op and the team once: "team crew:
// draft plan: ...", but "draft plan: team "nope": unknown team" for an
// error that names the team itself (the team unknown, finished, paused
// or disbanded), which read "team nope: draft plan: team "nope": ...".
func teamErr(team, op string, err error) error {
	for _, namesTeam := range []error{ErrUnknownTeam, ErrTeamFinished, ErrTeamPaused, ErrTeamDisbanded} {
		if errors.Is(err, namesTeam) {
			return fmt.Errorf("%s: %w", op, err)
		}
	}

	return fmt.Errorf("team %s: %s: %w", IDText(team), op, err)
}

// taskErr is teamErr for op (e.g. "claim task T9") on task: a lookup of
// that task that failed is named once, "team crew: claim task T9: unknown
// task", not "team crew: claim task T9: team crew: task "T9": unknown
// task", and so is a refusal of its status: "team crew: claim task T1:
// task status does not allow this: cannot claim a task that is
// completed".
func taskErr(team, task, op string, err error) error {
	var le *taskLookupError
	if errors.As(err, &le) && le.team == team && le.id == task {
		return fmt.Errorf("team %s: %s: %w", IDText(team), op, le.err)
	}
	var se *TaskStateError
	if errors.As(err, &se) && se.Team == team && se.Task == task && err.Error() == se.Error() {
		return fmt.Errorf("team %s: %s: %w", IDText(team), op, stateOfTask{se})
	}
	return teamErr(team, op, err)
}

// taskLookupError is the error of a lookup of task id of team that it
// does not have: Err is ErrUnknownTask, or an *IDError for an id no task
// can have.
type taskLookupError struct {
	team, id string
	err      error
}

func (e *taskLookupError) Error() string {
	return fmt.Sprintf("team %s: task %q: %v", IDText(e.team), e.id, e.err)
}

func (e *taskLookupError) Unwrap() error { return e.err }

// agentErr is teamErr for an operation of agent: op names it, short does
// not, for an error that names the agent itself (an unknown or malformed
// agent: "team crew: inbox: agent "a b": invalid id ...", not "team crew:
// inbox of "a b": agent "a b": ...").
func agentErr(team, agent, op, short string, err error) error {
	if errors.Is(err, ErrUnknownAgent) {
		op = short
	}
	return teamErr(team, op, err)
}
