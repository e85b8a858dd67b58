package api

import (
	"fmt"
	"math"
	"time"

	"github.com/cortexgraph/cortex/teammanager"
)

// The JSON shapes of the task board and the mailbox (cortexctl tasks and
// mail with --json, the server's teams.*task* and teams.chat.* methods,
// the task.* and message.sent events). Field names follow this package's
// camelCase, except blocked_by and reply_to, which the issue that defined
// the board spells so.

// Task is a task of a team's board.
type Task struct {
	Team        string     `json:"team"`
	ID          string     `json:"id"`
	IRI         string     `json:"iri"`
	Subject     string     `json:"subject"`
	Description string     `json:"description,omitempty"`
	Assignee    string     `json:"assignee,omitempty"`
	Priority    int        `json:"priority"`
	BlockedBy   []string   `json:"blocked_by"`
	Dependents  []string   `json:"dependents"`
	Status      string     `json:"status"`
	Paused      bool       `json:"paused,omitempty"`
	Skipped     bool       `json:"skipped,omitempty"`
	Result      string     `json:"result,omitempty"`
	Error       string     `json:"error,omitempty"`
	Feedback    string     `json:"feedback,omitempty"`
	CreatedBy   string     `json:"createdBy"`
	ReviewedBy  string     `json:"reviewedBy,omitempty"`
	Dispatches  int        `json:"dispatches"`
	CreatedAt   *time.Time `json:"createdAt,omitempty"`
	UpdatedAt   *time.Time `json:"updatedAt,omitempty"`
	ClaimedAt   *time.Time `json:"claimedAt,omitempty"`
	ReviewedAt  *time.Time `json:"reviewedAt,omitempty"`
	// Plan is the team's plan in force (the shape of plans get --json) on
	// a task just handed out (claimed, next, dispatched); absent
	// elsewhere, or when no plan is approved.
	Plan *teammanager.Plan `json:"plan,omitempty"`
}

// TaskComment is a comment on a task (kind note or blocker).
type TaskComment struct {
	ID        string    `json:"id"`
	Team      string    `json:"team"`
	Task      string    `json:"task"`
	Kind      string    `json:"kind"`
	Author    string    `json:"author"`
	Text      string    `json:"text"`
	CreatedAt time.Time `json:"createdAt"`
}

// TaskEvent is an entry of a task's history (tasks history,
// teams.list_task_events) and the data of the task.created, task.status
// and task.updated events, which carry the task after the change too.
type TaskEvent struct {
	Action string    `json:"action"`
	By     string    `json:"by,omitempty"`   // empty: the board itself
	From   string    `json:"from,omitempty"` // empty for created
	To     string    `json:"to"`
	Reason string    `json:"reason,omitempty"`
	Time   time.Time `json:"time"`
	Task   *Task     `json:"task,omitempty"` // events only
}

// TaskDispatch is the result of tasks dispatch (teams.task.dispatch): the
// tasks a dispatch round requeued (lease expired), dispatched, and failed
// (circuit breaker).
type TaskDispatch struct {
	Team       string `json:"team"`
	Requeued   []Task `json:"requeued"`
	Dispatched []Task `json:"dispatched"`
	Failed     []Task `json:"failed"`
}

// TaskSweep is the result of tasks sweep (teams.task.sweep).
type TaskSweep struct {
	Team     string `json:"team"`
	Requeued []Task `json:"requeued"`
	Stale    []Task `json:"stale"`
}

// Board is a team board's rules (tasks board, teams.task.board): every
// setting of teammanager.BoardSettings. Lease and staleAfter are in
// seconds.
type Board struct {
	Team          string  `json:"team"`
	Lead          string  `json:"lead,omitempty"`
	AllowRequests bool    `json:"allowRequests"`
	LeadMayWork   bool    `json:"leadMayWork"`
	RequireReview bool    `json:"requireReview"`
	MaxDispatches int     `json:"maxDispatches"`
	Lease         float64 `json:"lease"`
	StaleAfter    float64 `json:"staleAfter"`
	PlanApproval  bool    `json:"planApproval"`
	PlanApprover  string  `json:"planApprover,omitempty"` // empty: the operator
}

// BoardUpdate is the params of teams.task.configure_board: the team, and
// the settings to change, named and in the units of Board; a setting
// absent is kept (teammanager.BoardUpdate).
type BoardUpdate struct {
	Team          string   `json:"team"`
	Lead          *string  `json:"lead,omitempty"`
	AllowRequests *bool    `json:"allowRequests,omitempty"`
	LeadMayWork   *bool    `json:"leadMayWork,omitempty"`
	RequireReview *bool    `json:"requireReview,omitempty"`
	MaxDispatches *int     `json:"maxDispatches,omitempty"`
	Lease         *float64 `json:"lease,omitempty"`
	StaleAfter    *float64 `json:"staleAfter,omitempty"`
	PlanApproval  *bool    `json:"planApproval,omitempty"`
	PlanApprover  *string  `json:"planApprover,omitempty"`
}

// Message is a mailbox message. Status and readAt are the reader's, in an
// inbox only.
type Message struct {
	ID          string     `json:"id"`
	Team        string     `json:"team"`
	Type        string     `json:"type"`
	From        string     `json:"from,omitempty"` // empty: the board itself
	To          []string   `json:"to"`
	Broadcast   bool       `json:"broadcast,omitempty"`
	Subject     string     `json:"subject,omitempty"`
	Body        string     `json:"body"`
	ReplyTo     string     `json:"reply_to,omitempty"`
	Thread      string     `json:"thread"`
	Task        string     `json:"task,omitempty"`
	Attachments []string   `json:"attachments,omitempty"`
	SentAt      time.Time  `json:"sentAt"`
	Status      string     `json:"status,omitempty"`
	ReadAt      *time.Time `json:"readAt,omitempty"`
}

// MessagesMarked is the result of mail read and mail archive
// (teams.chat.mark).
type MessagesMarked struct {
	Team     string   `json:"team"`
	Agent    string   `json:"agent"`
	Status   string   `json:"status"`
	Messages []string `json:"messages"`
}

// MailRetention is the result of mail retention (teams.chat.configure,
// teams.chat.retention):
// each member's inbox keeps at most perAgent messages and none older than
// maxAge seconds (0: whatever their age).
type MailRetention struct {
	Team     string  `json:"team"`
	MaxAge   float64 `json:"maxAge"`
	PerAgent int     `json:"perAgent"`
}

// MailRetentionUpdate is the params of teams.chat.configure: the team, and
// the settings to change, named and in the units of MailRetention; a
// setting absent (or null) is kept (teammanager.MailboxUpdate).
type MailRetentionUpdate struct {
	Team     string   `json:"team"`
	MaxAge   *float64 `json:"maxAge,omitempty"`
	PerAgent *int     `json:"perAgent,omitempty"`
}

// MailRetentionUpdateOf returns the JSON shape of change u of team team's
// mailbox retention.
func MailRetentionUpdateOf(team string, u teammanager.MailboxUpdate) MailRetentionUpdate {
	out := MailRetentionUpdate{Team: team, PerAgent: u.PerAgent}
	if u.MaxAge != nil {
		v := u.MaxAge.Seconds()
		out.MaxAge = &v
	}
	return out
}

// Update returns r as the team manager takes it. A maxAge given that is
// negative, too large for a time.Duration, or positive below a nanosecond
// is an error matching ErrInvalid (MailRetention.Age).
func (r MailRetentionUpdate) Update() (teammanager.MailboxUpdate, error) {
	u := teammanager.MailboxUpdate{PerAgent: r.PerAgent}
	if r.MaxAge != nil {
		d, err := MailRetention{MaxAge: *r.MaxAge}.Age()
		if err != nil {
			return teammanager.MailboxUpdate{}, err
		}
		u.MaxAge = &d
	}
	return u, nil
}

// TaskFindingsAdded is the result of tasks add-finding
// (teams.task.add_findings): the ids of the findings, in order.
type TaskFindingsAdded struct {
	Team string   `json:"team"`
	Task string   `json:"task"`
	IDs  []string `json:"ids"`
}

// TaskFinished is the result of teams.task.finish: the task as
// teams.task.complete answers it, the ids of the findings (in order) and
// the new tasks (in order), all written in one atomic write.
type TaskFinished struct {
	Task     Task     `json:"task"`
	Findings []string `json:"findings"`
	Created  []Task   `json:"created"`
}

// BoardOp is an operation of a lead's turn in JSON: an entry of the ops
// of teams.task.apply_ops (teammanager.BoardOp), with the fields of a
// lead's operation in a led workflow (workflow.LeadOp): a create's task
// in subject, description, assignee, priority and blocked_by, a plan's in
// title and steps.
type BoardOp struct {
	Op          string                 `json:"op"`
	Ref         string                 `json:"ref,omitempty"`
	Subject     string                 `json:"subject,omitempty"`
	Description string                 `json:"description,omitempty"`
	Assignee    string                 `json:"assignee,omitempty"`
	Priority    int                    `json:"priority,omitempty"`
	BlockedBy   []string               `json:"blocked_by,omitempty"`
	Task        string                 `json:"task,omitempty"`
	Feedback    string                 `json:"feedback,omitempty"`
	Reason      string                 `json:"reason,omitempty"`
	Title       string                 `json:"title,omitempty"`
	Steps       []teammanager.PlanStep `json:"steps,omitempty"`
}

// BoardOpOf returns the JSON shape of op.
func BoardOpOf(op teammanager.BoardOp) BoardOp {
	return BoardOp{Op: op.Op, Ref: op.Ref, Subject: op.New.Subject, Description: op.New.Description, Assignee: op.New.Assignee,
		Priority: op.New.Priority, BlockedBy: op.New.BlockedBy, Task: op.Task, Feedback: op.Feedback, Reason: op.Reason,
		Title: op.Plan.Title, Steps: op.Plan.Steps}
}

// Manager returns op as the team manager takes it.
func (op BoardOp) Manager() teammanager.BoardOp {
	return teammanager.BoardOp{Op: op.Op, Ref: op.Ref, Task: op.Task, Feedback: op.Feedback, Reason: op.Reason,
		New:  teammanager.NewTask{Subject: op.Subject, Description: op.Description, Assignee: op.Assignee, Priority: op.Priority, BlockedBy: op.BlockedBy},
		Plan: teammanager.NewPlan{Title: op.Title, Steps: op.Steps}}
}

// BoardOpResult is what one operation of teams.task.apply_ops wrote
// (teammanager.BoardOpResult): the task it created or changed, the tasks
// it cancelled (cancel_open), or the plan revision it drafted and
// submitted.
type BoardOpResult struct {
	Op        string            `json:"op"`
	Task      *Task             `json:"task,omitempty"`
	Cancelled []Task            `json:"cancelled,omitempty"`
	Plan      *teammanager.Plan `json:"plan,omitempty"`
}

// BoardOpRefused is the operation of teams.task.apply_ops that the board
// refused (teammanager.BoardOpError), in its error's data: its index
// (from 0), its op, and the message of its own error.
type BoardOpRefused struct {
	Index   int    `json:"index"`
	Op      string `json:"op"`
	Message string `json:"message"`
}

// BoardOpsApplied is the result of teams.task.apply_ops: one result per
// operation, in order, all written in one atomic write.
type BoardOpsApplied struct {
	Team    string          `json:"team"`
	Results []BoardOpResult `json:"results"`
}

// BoardOpsAppliedOf returns the JSON shape of res, the results of
// team's ApplyBoardOps.
func BoardOpsAppliedOf(team string, res []teammanager.BoardOpResult) BoardOpsApplied {
	out := BoardOpsApplied{Team: team, Results: make([]BoardOpResult, 0, len(res))}
	for _, r := range res {
		o := BoardOpResult{Op: r.Op, Plan: r.Plan}
		if r.Task != nil {
			t := TaskOf(*r.Task)
			o.Task = &t
		}
		if len(r.Cancelled) > 0 {
			o.Cancelled = TasksOf(r.Cancelled)
		}
		out.Results = append(out.Results, o)
	}
	return out
}

// nonNil returns s, or an empty slice for nil (printed [] not null).
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// NewTask is a task to create in JSON: the params of teams.create_task
// (beside team and agent), an entry of teams.task.finish's tasks, and a
// new task in what a led member's command writes (cortexctl workflows run
// --exec).
type NewTask struct {
	Subject     string   `json:"subject"`
	Description string   `json:"description"`
	Assignee    string   `json:"assignee"`
	Priority    int      `json:"priority"`
	BlockedBy   []string `json:"blocked_by"`
}

// NewTaskOf returns the JSON shape of nt.
func NewTaskOf(nt teammanager.NewTask) NewTask {
	return NewTask{Subject: nt.Subject, Description: nt.Description, Assignee: nt.Assignee, Priority: nt.Priority, BlockedBy: nt.BlockedBy}
}

// Manager returns nt as the team manager takes it.
func (nt NewTask) Manager() teammanager.NewTask {
	return teammanager.NewTask{Subject: nt.Subject, Description: nt.Description, Assignee: nt.Assignee, Priority: nt.Priority, BlockedBy: nt.BlockedBy}
}

// TaskOf returns the JSON shape of t.
func TaskOf(t teammanager.Task) Task {
	return Task{Team: t.Team, ID: t.ID, IRI: string(t.IRI), Subject: t.Subject, Description: t.Description,
		Assignee: t.Assignee, Priority: t.Priority, BlockedBy: nonNil(t.BlockedBy), Dependents: nonNil(t.Dependents),
		Status: string(t.Status), Paused: t.Paused, Skipped: t.Skipped, Result: t.Result, Error: t.Error,
		Feedback: t.Feedback, CreatedBy: t.CreatedBy, ReviewedBy: t.ReviewedBy, Dispatches: t.Dispatches,
		CreatedAt: tp(t.CreatedAt), UpdatedAt: tp(t.UpdatedAt), ClaimedAt: tp(t.ClaimedAt), ReviewedAt: tp(t.ReviewedAt), Plan: t.Plan}
}

// TasksOf returns the JSON shapes of ts (never nil).
func TasksOf(ts []teammanager.Task) []Task {
	out := make([]Task, 0, len(ts))
	for _, t := range ts {
		out = append(out, TaskOf(t))
	}
	return out
}

// TaskCommentOf returns the JSON shape of comment c of team team.
func TaskCommentOf(team string, c teammanager.TaskComment) TaskComment {
	return TaskComment{ID: c.ID, Team: team, Task: c.Task, Kind: string(c.Kind), Author: c.Author, Text: c.Text, CreatedAt: c.CreatedAt}
}

// TaskEventOf returns the JSON shape of ch (with its task, if it has one).
func TaskEventOf(ch teammanager.TaskChange) TaskEvent {
	out := TaskEvent{Action: ch.Action, By: ch.By, From: string(ch.From), To: string(ch.To), Reason: ch.Reason, Time: ch.Time}
	if ch.Task != nil {
		t := TaskOf(*ch.Task)
		out.Task = &t
	}
	return out
}

// TaskDispatchOf returns the JSON shape of dispatch round r of team team.
func TaskDispatchOf(team string, r teammanager.DispatchReport) TaskDispatch {
	return TaskDispatch{Team: team, Requeued: TasksOf(r.Requeued), Dispatched: TasksOf(r.Dispatched), Failed: TasksOf(r.Failed)}
}

// TaskSweepOf returns the JSON shape of sweep sw of team team.
func TaskSweepOf(team string, sw teammanager.TaskSweep) TaskSweep {
	return TaskSweep{Team: team, Requeued: TasksOf(sw.Requeued), Stale: TasksOf(sw.Stale)}
}

// BoardOf returns the JSON shape of the board settings s of team team.
func BoardOf(team string, s teammanager.BoardSettings) Board {
	return Board{Team: team, Lead: s.Lead, AllowRequests: s.AllowRequests, LeadMayWork: s.LeadMayWork, RequireReview: s.RequireReview,
		MaxDispatches: s.MaxDispatches, Lease: s.Lease.Seconds(), StaleAfter: s.StaleAfter.Seconds(),
		PlanApproval: s.PlanApproval, PlanApprover: s.PlanApprover}
}

// seconds returns v seconds (the name of the field: name) as a duration;
// a negative v, one too large for a time.Duration, or a positive one that
// rounds to 0 ns (which would read as "the default") is an error matching
// ErrInvalid.
func seconds(name string, v float64) (time.Duration, error) {
	if !(v >= 0 && v <= float64(math.MaxInt64)/float64(time.Second)) {
		return 0, fmt.Errorf("%w: %s %v s: want seconds ≥ 0", ErrInvalid, name, v)
	}
	d := SecondsDuration(v)
	if d == 0 && v > 0 {
		return 0, fmt.Errorf("%w: %s %v s: below a nanosecond (0: the default)", ErrInvalid, name, v)
	}
	return d, nil
}

// Settings returns b as the team manager takes it. A lease or staleAfter
// that is negative, too large for a time.Duration, or positive below a
// nanosecond is an error matching ErrInvalid.
func (b Board) Settings() (teammanager.BoardSettings, error) {
	lease, err := seconds("lease", b.Lease)
	if err != nil {
		return teammanager.BoardSettings{}, err
	}
	stale, err := seconds("staleAfter", b.StaleAfter)
	if err != nil {
		return teammanager.BoardSettings{}, err
	}
	return teammanager.BoardSettings{Lead: b.Lead, AllowRequests: b.AllowRequests, LeadMayWork: b.LeadMayWork,
		RequireReview: b.RequireReview, MaxDispatches: b.MaxDispatches, Lease: lease, StaleAfter: stale,
		PlanApproval: b.PlanApproval, PlanApprover: b.PlanApprover}, nil
}

// BoardUpdateOf returns the JSON shape of change u of team team's board.
func BoardUpdateOf(team string, u teammanager.BoardUpdate) BoardUpdate {
	out := BoardUpdate{Team: team, Lead: u.Lead, AllowRequests: u.AllowRequests, LeadMayWork: u.LeadMayWork,
		RequireReview: u.RequireReview, MaxDispatches: u.MaxDispatches, PlanApproval: u.PlanApproval, PlanApprover: u.PlanApprover}
	if u.Lease != nil {
		v := u.Lease.Seconds()
		out.Lease = &v
	}
	if u.StaleAfter != nil {
		v := u.StaleAfter.Seconds()
		out.StaleAfter = &v
	}
	return out
}

// Update returns b as the team manager takes it. A lease or staleAfter
// given that is too large for a time.Duration, or positive below a
// nanosecond, is an error matching ErrInvalid; a negative one is kept,
// for the Manager to refuse as in process (ErrInvalidConfig, after the
// team), unless it rounds to 0 ns (an error matching ErrInvalid).
func (b BoardUpdate) Update() (teammanager.BoardUpdate, error) {
	u := teammanager.BoardUpdate{Lead: b.Lead, AllowRequests: b.AllowRequests, LeadMayWork: b.LeadMayWork,
		RequireReview: b.RequireReview, MaxDispatches: b.MaxDispatches, PlanApproval: b.PlanApproval, PlanApprover: b.PlanApprover}
	for _, f := range []struct {
		name string
		v    *float64
		d    **time.Duration
	}{{"lease", b.Lease, &u.Lease}, {"staleAfter", b.StaleAfter, &u.StaleAfter}} {
		if f.v == nil {
			continue
		}
		if d := SecondsDuration(*f.v); *f.v < 0 && d < 0 {
			*f.d = &d
			continue
		}
		d, err := seconds(f.name, *f.v)
		if err != nil {
			return teammanager.BoardUpdate{}, err
		}
		*f.d = &d
	}
	return u, nil
}

// MessageOf returns the JSON shape of m.
func MessageOf(m teammanager.Message) Message {
	return Message{ID: m.ID, Team: m.Team, Type: string(m.Type), From: m.From, To: nonNil(m.To), Broadcast: m.Broadcast,
		Subject: m.Subject, Body: m.Body, ReplyTo: m.ReplyTo, Thread: m.Thread, Task: m.Task, Attachments: m.Attachments,
		SentAt: m.SentAt, Status: string(m.Status), ReadAt: tp(m.ReadAt)}
}

// MessagesOf returns the JSON shapes of ms (never nil).
func MessagesOf(ms []teammanager.Message) []Message {
	out := make([]Message, 0, len(ms))
	for _, m := range ms {
		out = append(out, MessageOf(m))
	}
	return out
}

// Age returns r's maxAge as a duration; a negative one, one too large
// for a time.Duration, or a positive one that rounds to 0 ns (which
// would read as "any age") is an error matching ErrInvalid.
func (r MailRetention) Age() (time.Duration, error) {
	if !(r.MaxAge >= 0 && r.MaxAge <= float64(math.MaxInt64)/float64(time.Second)) {
		return 0, fmt.Errorf("%w: maxAge %v s: want seconds ≥ 0 (0: any age)", ErrInvalid, r.MaxAge)
	}
	d := SecondsDuration(r.MaxAge)
	if d == 0 && r.MaxAge > 0 {
		return 0, fmt.Errorf("%w: maxAge %v s: below a nanosecond (0: any age)", ErrInvalid, r.MaxAge)
	}
	return d, nil
}
