package teammanager

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"
)

// TaskStatus is the status of a task on a team's board:
// pending → in_progress → in_review → completed | failed | cancelled.
type TaskStatus string

// Task statuses.
const (
	TaskPending    TaskStatus = "pending"     // waiting to be claimed or dispatched
	TaskInProgress TaskStatus = "in_progress" // claimed by (or dispatched to) its assignee
	TaskInReview   TaskStatus = "in_review"   // submitted, waiting for the lead's review
	TaskCompleted  TaskStatus = "completed"
	TaskFailed     TaskStatus = "failed"
	TaskCancelled  TaskStatus = "cancelled"
)

// Valid reports whether s is one of the task statuses.
func (s TaskStatus) Valid() bool {
	switch s {
	case TaskPending, TaskInProgress, TaskInReview, TaskCompleted, TaskFailed, TaskCancelled:
		return true
	}
	return false
}

// Finished reports whether s is completed, failed or cancelled.
func (s TaskStatus) Finished() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// ParseTaskStatus returns the TaskStatus named s, or an error wrapping
// ErrInvalidStatus.
func ParseTaskStatus(s string) (TaskStatus, error) {
	if st := TaskStatus(s); st.Valid() {
		return st, nil
	}
	return "", errorf(ErrInvalidStatus, "task status %q (want pending, in_progress, in_review, completed, failed or cancelled)", s)
}

// Task is a task of a team's board.
type Task struct {
	Team        string
	ID          string   // short id, unique within the team: T1, T2, ...
	IRI         quad.IRI // global IRI (namespace.NS.Task)
	Subject     string
	Description string
	Assignee    string // agent id; empty: any member may claim it
	Priority    int    // higher first; in [-MaxTaskPriority, MaxTaskPriority]
	BlockedBy   []string
	Dependents  []string // tasks whose BlockedBy names this one
	Status      TaskStatus
	Paused      bool
	Skipped     bool   // cancelled by SkipTask: dependents go ahead
	Result      string // the assignee's result
	Error       string // why the task failed or was cancelled
	Feedback    string // the lead's feedback of the last rejected review
	CreatedBy   string
	ReviewedBy  string // the lead whose review approved it
	Dispatches  int    // times claimed or dispatched
	CreatedAt   time.Time
	UpdatedAt   time.Time // last change, and last progress of its assignee
	ClaimedAt   time.Time // last claim or dispatch
	ReviewedAt  time.Time
	// Plan is the team's plan in force (see "Plans" in plans.go) on a task
	// that ClaimTask, ClaimNext or DispatchUnblocked just handed out; nil
	// elsewhere, or if no plan is approved.
	Plan     *Plan
	comments int // comments written so far (their ids are T1.c1, T1.c2, ...)
	history  int // history entries written so far
	// pausedFor is the team's PausedFor when UpdatedAt was last set (the
	// time the team was paused before then); -1: unknown (a row written
	// before rows kept it).
	pausedFor time.Duration
}

// MaxTaskPriority bounds Task.Priority in both directions.
const MaxTaskPriority = 1_000_000_000

// NewTask describes a task to create.
type NewTask struct {
	Subject     string // required
	Description string
	Assignee    string // a member of the team; empty: unassigned
	Priority    int
	BlockedBy   []string // unfinished tasks of the same team
}

// TaskOutcome is what a member's work on a task gives (FinishTask): its
// result, the findings it made for the task and the new tasks it creates.
type TaskOutcome struct {
	Result   string
	Findings []Finding
	Tasks    []NewTask
}

// TaskFinish is what FinishTask wrote: the task as CompleteTask returns
// it, the ids of the findings (in order) and the new tasks (in order).
type TaskFinish struct {
	Task     Task
	Findings []string
	Created  []Task
}

// TaskUpdate changes fields of an unfinished task; nil fields are kept.
type TaskUpdate struct {
	Subject     *string
	Description *string
	Assignee    *string // "" unassigns
	Priority    *int
	BlockedBy   *[]string // replaces the list; only on a pending task
}

// TaskFilter selects tasks in ListTasks. The zero value selects all.
type TaskFilter struct {
	Status   TaskStatus // empty: any
	Assignee string     // empty: any
}

// CommentKind is the kind of a task comment.
type CommentKind string

// Comment kinds.
const (
	CommentNote    CommentKind = "note"
	CommentBlocker CommentKind = "blocker" // fails the task and escalates to the lead
)

// TaskComment is a comment on a task.
type TaskComment struct {
	ID        string // T1.c1, T1.c2, ...
	Task      string
	Kind      CommentKind
	Author    string
	Text      string
	CreatedAt time.Time
}

// TaskChange is the payload of a task event (Event.Task) and an entry of a
// task's history (TaskHistory): what an action did to the task.
type TaskChange struct {
	Action string     // one of the TaskAction words
	By     string     // the agent that acted; empty: the board itself (lease expiry, dispatch)
	From   TaskStatus // status before; empty for created
	To     TaskStatus // status after
	Reason string     // failure reason, feedback, comment text ...
	Time   time.Time
	Task   *Task // the task after the change (nil in TaskHistory)
}

// Task actions, the values of TaskChange.Action.
const (
	ActionCreated    = "created"
	ActionUpdated    = "updated"
	ActionClaimed    = "claimed"
	ActionDispatched = "dispatched"
	ActionProgress   = "progress"
	ActionSubmitted  = "submitted"
	ActionApproved   = "approved"
	ActionRejected   = "rejected"
	ActionCompleted  = "completed"
	ActionFailed     = "failed"
	ActionCancelled  = "cancelled"
	ActionRequeued   = "requeued" // lease expired
	ActionPaused     = "paused"
	ActionResumed    = "resumed"
	ActionRetried    = "retried"
	ActionSkipped    = "skipped"
	ActionCommented  = "commented"
)

// Row layout of the tasks side table (see taskboard.go).
const (
	tfID = iota
	tfStatus
	tfPriority
	tfAssignee
	tfBlockedBy
	tfDependents
	tfDispatches
	tfCreatedAt
	tfUpdatedAt
	tfClaimedAt
	tfSubject
	tfDescription
	tfCreatedBy
	tfResult
	tfError
	tfFeedback
	tfPaused
	tfSkipped
	tfReviewedBy
	tfReviewedAt
	tfComments
	tfHistory
	tfPausedFor // (absent from rows written before it)
	nTaskFields

	// nTaskFieldsBefore is the number of fields of a row written before
	// tfPausedFor.
	nTaskFieldsBefore = tfPausedFor
)

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return time.Parse(time.RFC3339Nano, s)
}

func fmtBool(b bool) string {
	if b {
		return "1"
	}
	return ""
}

// A task row is one value, the task's fields packed: each field in the
// order of the tf constants, as its length in decimal, a colon and its
// bytes ("2:T13:pending..."). One value, not a value per field, because
// a listing decodes every row of the board: the store then decodes one
// string per task, and decodeTask slices the fields out of it without
// copying. Rows written before are nTaskFields values, a plain literal or
// nothing per field; decodeTask reads both, and the next save of a task
// packs its row.

func encodeTask(t *Task) []quad.Value {
	s := [nTaskFields]string{
		tfID: t.ID, tfStatus: string(t.Status), tfPriority: strconv.Itoa(t.Priority), tfAssignee: t.Assignee,
		tfBlockedBy: strings.Join(t.BlockedBy, " "), tfDependents: strings.Join(t.Dependents, " "),
		tfDispatches: strconv.Itoa(t.Dispatches), tfCreatedAt: fmtTime(t.CreatedAt), tfUpdatedAt: fmtTime(t.UpdatedAt),
		tfClaimedAt: fmtTime(t.ClaimedAt), tfSubject: t.Subject, tfDescription: t.Description, tfCreatedBy: t.CreatedBy,
		tfResult: t.Result, tfError: t.Error, tfFeedback: t.Feedback, tfPaused: fmtBool(t.Paused), tfSkipped: fmtBool(t.Skipped),
		tfReviewedBy: t.ReviewedBy, tfReviewedAt: fmtTime(t.ReviewedAt), tfComments: strconv.Itoa(t.comments),
		tfHistory: strconv.Itoa(t.history),
	}
	if t.pausedFor >= 0 {
		s[tfPausedFor] = strconv.FormatInt(int64(t.pausedFor), 10)
	}
	n := 0
	for _, f := range s {
		n += len(f) + 4
	}
	buf := make([]byte, 0, n)
	for _, f := range s {
		buf = strconv.AppendInt(buf, int64(len(f)), 10)
		buf = append(buf, ':')
		buf = append(buf, f...)
	}
	return []quad.Value{quad.String(buf)}
}

// taskFields returns the fields of a task row, packed or not.
func taskFields(vals []quad.Value) (s [nTaskFields]string, err error) {
	if len(vals) == 1 {
		p, ok := vals[0].(quad.String)
		if !ok {
			return s, fmt.Errorf("%w: task row value is not a plain literal", ErrCorrupt)
		}
		rest := string(p)
		for i := range s {
			if i == nTaskFieldsBefore && rest == "" {
				s[tfPausedFor] = "" // a row written before the field
				break
			}
			l, after, ok := strings.Cut(rest, ":")
			n, err := strconv.Atoi(l)
			if !ok || err != nil || n < 0 || n > len(after) || len(l) > 1 && l[0] == '0' {
				return s, fmt.Errorf("%w: task row: field %d of %d", ErrCorrupt, i+1, nTaskFields)
			}
			s[i], rest = after[:n], after[n:]
		}
		if rest != "" {
			return s, fmt.Errorf("%w: task row: %d bytes past its fields", ErrCorrupt, len(rest))
		}
		return s, nil
	}
	if len(vals) != nTaskFields && len(vals) != nTaskFieldsBefore {
		return s, fmt.Errorf("%w: task row of %d values, want 1, %d or %d", ErrCorrupt, len(vals), nTaskFieldsBefore, nTaskFields)
	}
	for i, v := range vals {
		if v == nil {
			continue
		}
		str, ok := v.(quad.String)
		if !ok {
			return s, fmt.Errorf("%w: task row value %d is not a plain literal", ErrCorrupt, i)
		}
		s[i] = string(str)
	}
	return s, nil
}

func decodeTask(team string, vals []quad.Value) (Task, error) {
	s, err := taskFields(vals)
	if err != nil {
		return Task{}, err
	}
	var t Task
	if err := setTaskFields(&t, team, &s); err != nil {
		return Task{}, err
	}
	return t, nil
}

// setTaskFields sets *t to the task of fields s (a listing decodes into
// its slice: a Task is some 400 bytes).
func setTaskFields(t *Task, team string, s *[nTaskFields]string) error {
	*t = Task{Team: team, ID: s[tfID], Status: TaskStatus(s[tfStatus]), Assignee: s[tfAssignee], Subject: s[tfSubject],
		Description: s[tfDescription], CreatedBy: s[tfCreatedBy], Result: s[tfResult], Error: s[tfError],
		Feedback: s[tfFeedback], Paused: s[tfPaused] != "", Skipped: s[tfSkipped] != "", ReviewedBy: s[tfReviewedBy]}
	var errs [9]error
	t.Priority, errs[0] = strconv.Atoi(s[tfPriority])
	t.Dispatches, errs[1] = strconv.Atoi(s[tfDispatches])
	t.CreatedAt, errs[2] = parseTime(s[tfCreatedAt])
	t.UpdatedAt, errs[3] = parseTime(s[tfUpdatedAt])
	t.ClaimedAt, errs[4] = parseTime(s[tfClaimedAt])
	t.ReviewedAt, errs[5] = parseTime(s[tfReviewedAt])
	t.comments, errs[6] = strconv.Atoi(s[tfComments])
	t.history, errs[7] = strconv.Atoi(s[tfHistory])
	t.pausedFor = -1
	if s[tfPausedFor] != "" {
		var v int64
		v, errs[8] = strconv.ParseInt(s[tfPausedFor], 10, 64)
		if errs[8] == nil && v < 0 {
			errs[8] = fmt.Errorf("paused for %d ns", v)
		}
		t.pausedFor = time.Duration(v)
	}
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("%w: task %s: %v", ErrCorrupt, t.ID, err)
		}
	}
	if !t.Status.Valid() {
		return fmt.Errorf("%w: task %s: status %q", ErrCorrupt, t.ID, t.Status)
	}
	if s[tfBlockedBy] != "" {
		t.BlockedBy = strings.Split(s[tfBlockedBy], " ")
	}
	if s[tfDependents] != "" {
		t.Dependents = strings.Split(s[tfDependents], " ")
	}
	return nil
}
