package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/teammanager"
)

// The methods below are those of api.TaskBoard: the task board and the
// mailbox of a team, through the server's teams.*task* and teams.chat.*
// methods, each with the contract of the teammanager.Manager method of the
// same name (the embedded manager's *TaskStateError and *CycleError come
// back as errors matching ErrTaskState and ErrTaskCycle, with the
// server's message).

// taskCall calls method with params and returns the task it answers; on
// an error, the task the error carries (Error.Task: a claim past the
// circuit breaker returns the task it failed, as the Manager does), or
// none.
func (c *Client) taskCall(ctx context.Context, method string, params any) (teammanager.Task, error) {
	var t api.Task
	if err := c.teamsCall(ctx, method, params, &t); err != nil {
		var e *Error
		if errors.As(err, &e) && e.Task != nil {
			return taskOf(*e.Task), err
		}
		return teammanager.Task{}, err
	}
	return taskOf(t), nil
}

// taskRef is the params of a method on one task by one member.
type taskRef struct {
	Team  string `json:"team"`
	Task  string `json:"task"`
	Agent string `json:"agent"`
}

// textNotUTF8 returns the embedded Manager's error for the first of fields
// (pairs of name and value) that is not valid UTF-8 ("OP: KIND: NAME is
// not valid UTF-8"), or nil. JSON carries UTF-8 only: Call would refuse
// such text with ErrNotUTF8, naming the param, so the methods that take
// text check it first and fail as the Manager fails (and match
// ErrNotUTF8 too: textError). The Manager checks
// text after the team, the member and the board's rules: a call with
// such text and another fault (an unknown team ...) fails, through a
// server, with this error rather than the other one.
func textNotUTF8(op string, kind error, fields ...string) error {
	for i := 0; i+1 < len(fields); i += 2 {
		if !utf8.ValidString(fields[i+1]) {
			return &textError{fmt.Errorf("%s: %w: %s is not valid UTF-8", op, kind, fields[i])}
		}
	}
	return nil
}

// CreateTask creates a task (teams.create_task).
func (c *Client) CreateTask(ctx context.Context, teamID, by string, nt teammanager.NewTask) (teammanager.Task, error) {
	if err := textNotUTF8("team "+teammanager.IDText(teamID)+": create task", teammanager.ErrInvalidTask, "subject", nt.Subject, "description", nt.Description); err != nil {
		return teammanager.Task{}, err
	}
	return c.taskCall(ctx, "teams.create_task", map[string]any{"team": teamID, "agent": by, "subject": nt.Subject,
		"description": nt.Description, "assignee": nt.Assignee, "priority": nt.Priority, "blocked_by": nt.BlockedBy})
}

// GetTask returns a task (teams.task.get).
func (c *Client) GetTask(ctx context.Context, teamID, taskID string) (teammanager.Task, error) {
	return c.taskCall(ctx, "teams.task.get", map[string]string{"team": teamID, "task": taskID})
}

// ListTasks lists a team's tasks, in id order (teams.list_tasks).
func (c *Client) ListTasks(ctx context.Context, teamID string, f teammanager.TaskFilter) ([]teammanager.Task, error) {
	var ts []api.Task
	if err := c.teamsCall(ctx, "teams.list_tasks", map[string]string{"team": teamID, "status": string(f.Status), "assignee": f.Assignee}, &ts); err != nil {
		return nil, err
	}
	return tasksOf(ts), nil
}

// UpdateTask changes fields of a task (teams.update_task); nil fields are
// not sent, and kept.
func (c *Client) UpdateTask(ctx context.Context, teamID, by, taskID string, u teammanager.TaskUpdate) (teammanager.Task, error) {
	p := map[string]any{"team": teamID, "agent": by, "task": taskID}
	op := "team " + teamID + ": update task " + taskID
	if u.Subject != nil {
		if err := textNotUTF8(op, teammanager.ErrInvalidTask, "subject", *u.Subject); err != nil {
			return teammanager.Task{}, err
		}
		p["subject"] = *u.Subject
	}
	if u.Description != nil {
		if err := textNotUTF8(op, teammanager.ErrInvalidTask, "description", *u.Description); err != nil {
			return teammanager.Task{}, err
		}
		p["description"] = *u.Description
	}
	if u.Assignee != nil {
		p["assignee"] = *u.Assignee
	}
	if u.Priority != nil {
		p["priority"] = *u.Priority
	}
	if u.BlockedBy != nil {
		bb := *u.BlockedBy
		if bb == nil {
			bb = []string{}
		}
		p["blocked_by"] = bb
	}
	return c.taskCall(ctx, "teams.update_task", p)
}

// ClaimTask claims a pending task for agent (teams.task.claim).
func (c *Client) ClaimTask(ctx context.Context, teamID, agent, taskID string) (teammanager.Task, error) {
	return c.taskCall(ctx, "teams.task.claim", taskRef{teamID, taskID, agent})
}

// ClaimNext claims the ready task of highest priority for agent
// (teams.task.next).
func (c *Client) ClaimNext(ctx context.Context, teamID, agent string) (teammanager.Task, error) {
	return c.taskCall(ctx, "teams.task.next", map[string]string{"team": teamID, "agent": agent})
}

// ProgressTask records progress of agent on its task (teams.task.progress).
func (c *Client) ProgressTask(ctx context.Context, teamID, agent, taskID, note string) (teammanager.Task, error) {
	if strings.TrimSpace(note) != "" { // (a blank note is no comment)
		if err := textNotUTF8("team "+teammanager.IDText(teamID)+": progress on task "+teammanager.IDText(taskID), teammanager.ErrInvalidTask, "comment", note); err != nil {
			return teammanager.Task{}, err
		}
	}
	return c.taskCall(ctx, "teams.task.progress", map[string]string{"team": teamID, "agent": agent, "task": taskID, "note": note})
}

// CompleteTask submits agent's result (teams.task.complete).
func (c *Client) CompleteTask(ctx context.Context, teamID, agent, taskID, result string) (teammanager.Task, error) {
	if err := textNotUTF8("team "+teammanager.IDText(teamID)+": complete task "+teammanager.IDText(taskID), teammanager.ErrInvalidTask, "result", result); err != nil {
		return teammanager.Task{}, err
	}
	return c.taskCall(ctx, "teams.task.complete", map[string]string{"team": teamID, "agent": agent, "task": taskID, "result": result})
}

// ReviewTask is the lead's verdict on a task in review (teams.task.review).
func (c *Client) ReviewTask(ctx context.Context, teamID, lead, taskID string, approve bool, feedback string) (teammanager.Task, error) {
	return c.taskCall(ctx, "teams.task.review", map[string]any{"team": teamID, "agent": lead, "task": taskID, "approve": approve, "feedback": feedback})
}

// FailTask fails agent's task with reason (teams.task.fail).
func (c *Client) FailTask(ctx context.Context, teamID, agent, taskID, reason string) (teammanager.Task, error) {
	if err := textNotUTF8("team "+teammanager.IDText(teamID)+": fail task "+teammanager.IDText(taskID), teammanager.ErrInvalidTask, "reason", reason); err != nil {
		return teammanager.Task{}, err
	}
	return c.taskCall(ctx, "teams.task.fail", map[string]string{"team": teamID, "agent": agent, "task": taskID, "reason": reason})
}

// CancelTask cancels a task, by the lead (teams.task.cancel).
func (c *Client) CancelTask(ctx context.Context, teamID, lead, taskID, reason string) (teammanager.Task, error) {
	if err := textNotUTF8("team "+teammanager.IDText(teamID)+": cancel task "+teammanager.IDText(taskID), teammanager.ErrInvalidTask, "reason", reason); err != nil {
		return teammanager.Task{}, err
	}
	return c.taskCall(ctx, "teams.task.cancel", map[string]string{"team": teamID, "agent": lead, "task": taskID, "reason": reason})
}

// PauseTask pauses a task, by the lead (teams.task.pause).
func (c *Client) PauseTask(ctx context.Context, teamID, lead, taskID string) (teammanager.Task, error) {
	return c.taskCall(ctx, "teams.task.pause", taskRef{teamID, taskID, lead})
}

// ResumeTask resumes a paused task, by the lead (teams.task.resume).
func (c *Client) ResumeTask(ctx context.Context, teamID, lead, taskID string) (teammanager.Task, error) {
	return c.taskCall(ctx, "teams.task.resume", taskRef{teamID, taskID, lead})
}

// RetryTask puts a failed or cancelled task back to pending, by the lead
// (teams.task.retry).
func (c *Client) RetryTask(ctx context.Context, teamID, lead, taskID string) (teammanager.Task, error) {
	return c.taskCall(ctx, "teams.task.retry", taskRef{teamID, taskID, lead})
}

// SkipTask cancels a task so that its dependents go ahead, by the lead
// (teams.task.skip).
func (c *Client) SkipTask(ctx context.Context, teamID, lead, taskID, reason string) (teammanager.Task, error) {
	if err := textNotUTF8("team "+teammanager.IDText(teamID)+": skip task "+teammanager.IDText(taskID), teammanager.ErrInvalidTask, "reason", reason); err != nil {
		return teammanager.Task{}, err
	}
	return c.taskCall(ctx, "teams.task.skip", map[string]string{"team": teamID, "agent": lead, "task": taskID, "reason": reason})
}

// AddTaskComment adds a comment to a task (teams.add_task_comment). A
// comment of no kind is the Manager's error (ErrInvalidTask), after the
// team and the task are looked up, as embedded: it is sent as "kind": "",
// which the server refuses (a kind left out would be a note).
func (c *Client) AddTaskComment(ctx context.Context, teamID, agent, taskID string, kind teammanager.CommentKind, text string) (teammanager.TaskComment, error) {
	if err := textNotUTF8("team "+teammanager.IDText(teamID)+": comment on task "+teammanager.IDText(taskID), teammanager.ErrInvalidTask, "comment", text); err != nil {
		return teammanager.TaskComment{}, err
	}
	var cm api.TaskComment
	p := map[string]string{"team": teamID, "agent": agent, "task": taskID, "kind": string(kind), "text": text}
	if err := c.teamsCall(ctx, "teams.add_task_comment", p, &cm); err != nil {
		return teammanager.TaskComment{}, err
	}
	return commentOf(cm), nil
}

// TaskComments returns a task's comments, oldest first
// (teams.list_task_comments).
func (c *Client) TaskComments(ctx context.Context, teamID, taskID string) ([]teammanager.TaskComment, error) {
	var cs []api.TaskComment
	if err := c.teamsCall(ctx, "teams.list_task_comments", map[string]string{"team": teamID, "task": taskID}, &cs); err != nil {
		return nil, err
	}
	var out []teammanager.TaskComment // nil for none, as the Manager's
	for _, cm := range cs {
		out = append(out, commentOf(cm))
	}
	return out, nil
}

// TaskHistory returns a task's changes, oldest first
// (teams.list_task_events).
func (c *Client) TaskHistory(ctx context.Context, teamID, taskID string) ([]teammanager.TaskChange, error) {
	var es []api.TaskEvent
	if err := c.teamsCall(ctx, "teams.list_task_events", map[string]string{"team": teamID, "task": taskID}, &es); err != nil {
		return nil, err
	}
	var out []teammanager.TaskChange // nil for none, as the Manager's
	for _, e := range es {
		out = append(out, taskChangeOf(e))
	}
	return out, nil
}

// taskChangeOf returns the task change of e.
func taskChangeOf(e api.TaskEvent) teammanager.TaskChange {
	ch := teammanager.TaskChange{Action: e.Action, By: e.By, From: teammanager.TaskStatus(e.From), To: teammanager.TaskStatus(e.To),
		Reason: e.Reason, Time: e.Time}
	if e.Task != nil {
		t := taskOf(*e.Task)
		ch.Task = &t
	}
	return ch
}

// DispatchUnblocked runs one dispatch round (teams.task.dispatch).
func (c *Client) DispatchUnblocked(ctx context.Context, teamID string) (teammanager.DispatchReport, error) {
	var r api.TaskDispatch
	if err := c.teamsCall(ctx, "teams.task.dispatch", map[string]string{"team": teamID}, &r); err != nil {
		return teammanager.DispatchReport{}, err
	}
	return teammanager.DispatchReport{Requeued: tasksOf(r.Requeued), Dispatched: tasksOf(r.Dispatched), Failed: tasksOf(r.Failed)}, nil
}

// SweepTasks requeues the tasks whose lease ran out and reports the stale
// ones (teams.task.sweep).
func (c *Client) SweepTasks(ctx context.Context, teamID string) (teammanager.TaskSweep, error) {
	var r api.TaskSweep
	if err := c.teamsCall(ctx, "teams.task.sweep", map[string]string{"team": teamID}, &r); err != nil {
		return teammanager.TaskSweep{}, err
	}
	return teammanager.TaskSweep{Requeued: tasksOf(r.Requeued), Stale: tasksOf(r.Stale)}, nil
}

// AddTaskFindings records findings of the task's assignee made for the
// task, in one atomic write, and returns their ids, in order
// (teams.task.add_findings).
func (c *Client) AddTaskFindings(ctx context.Context, teamID, agentID, taskID string, fs []teammanager.Finding) ([]string, error) {
	p := struct {
		taskRef
		Findings []findingParams `json:"findings"`
	}{taskRef{teamID, taskID, agentID}, make([]findingParams, 0, len(fs))}
	for i, f := range fs {
		if err := checkFinding(f); err != nil {
			return nil, fmt.Errorf("team %s: agent %s: finding %d of %d: %w", teammanager.IDText(teamID), teammanager.IDText(agentID), i+1, len(fs), err)
		}
		p.Findings = append(p.Findings, findingParamsOf(f))
	}
	var r api.TaskFindingsAdded
	if err := c.teamsCall(ctx, "teams.task.add_findings", p, &r); err != nil {
		return nil, err
	}
	return noneIfEmpty(r.IDs), nil
}

// FinishTask records what a member's work on its task gave — findings,
// new tasks, result — in one atomic write (teams.task.finish): a part
// refused writes nothing.
func (c *Client) FinishTask(ctx context.Context, teamID, agent, taskID string, o teammanager.TaskOutcome) (teammanager.TaskFinish, error) {
	op := "team " + teammanager.IDText(teamID) + ": finish task " + teammanager.IDText(taskID)
	p := struct {
		taskRef
		Result   string          `json:"result"`
		Findings []findingParams `json:"findings"`
		Tasks    []api.NewTask   `json:"tasks"`
	}{taskRef{teamID, taskID, agent}, o.Result, make([]findingParams, 0, len(o.Findings)), make([]api.NewTask, 0, len(o.Tasks))}
	for i, f := range o.Findings {
		if err := checkFinding(f); err != nil {
			return teammanager.TaskFinish{}, fmt.Errorf("%s: agent %s: finding %d of %d: %w", op, teammanager.IDText(agent), i+1, len(o.Findings), err)
		}
		p.Findings = append(p.Findings, findingParamsOf(f))
	}
	// A new task's assignee and blocked_by are ids: one that is not UTF-8
	// is sent with U+FFFD for each bad byte, as Call sends such a param
	// of its own (the server refuses it where and as the Manager does),
	// and the error names it as given.
	var bad []string
	sent := func(id string) string {
		if utf8.ValidString(id) {
			return id
		}
		bad = append(bad, id)
		return asSent(id)
	}
	for i, nt := range o.Tasks {
		if err := textNotUTF8(fmt.Sprintf("%s: new task %d (%s)", op, i+1, nt.Subject), teammanager.ErrInvalidTask, "subject", nt.Subject, "description", nt.Description); err != nil {
			return teammanager.TaskFinish{}, err
		}
		blockedBy := nt.BlockedBy
		if slices.ContainsFunc(blockedBy, func(id string) bool { return !utf8.ValidString(id) }) {
			blockedBy = make([]string, len(nt.BlockedBy))
			for j, id := range nt.BlockedBy {
				blockedBy[j] = sent(id)
			}
		}
		nt.Assignee, nt.BlockedBy = sent(nt.Assignee), blockedBy
		p.Tasks = append(p.Tasks, api.NewTaskOf(nt))
	}
	// The result last: the Manager checks the findings, then writes the
	// new tasks, in order, then completes the task with its result.
	if err := textNotUTF8(op, teammanager.ErrInvalidTask, "result", o.Result); err != nil {
		return teammanager.TaskFinish{}, err
	}
	var r api.TaskFinished
	if err := c.teamsCall(ctx, "teams.task.finish", p, &r); err != nil {
		return teammanager.TaskFinish{}, idsAsGiven(err, bad)
	}
	fin := teammanager.TaskFinish{Task: taskOf(r.Task), Findings: noneIfEmpty(r.Findings)}
	if len(r.Created) > 0 {
		fin.Created = tasksOf(r.Created)
	}
	return fin, nil
}

// ApplyBoardOps applies a lead's turn — every operation, in order — in
// one atomic write (teams.task.apply_ops): an operation refused writes
// nothing of any. The refusal of an operation is a
// *teammanager.BoardOpError naming it, as the Manager returns it, whose
// Err is the server's *Error for that operation.
func (c *Client) ApplyBoardOps(ctx context.Context, teamID, lead string, ops []teammanager.BoardOp) ([]teammanager.BoardOpResult, error) {
	p := struct {
		Team  string        `json:"team"`
		Agent string        `json:"agent"`
		Ops   []api.BoardOp `json:"ops"`
	}{teamID, lead, make([]api.BoardOp, 0, len(ops))}
	for i, op := range ops {
		// JSON carries UTF-8 only: the Manager's error for such text, as
		// the single call's.
		if err := textNotUTF8(fmt.Sprintf("team %s: apply board operations: operation %d (%s)", teammanager.IDText(teamID), i+1, op.Op),
			teammanager.ErrInvalidTask, "subject", op.New.Subject, "description", op.New.Description, "feedback", op.Feedback, "reason", op.Reason); err != nil {
			return nil, err
		}
		if op.Op == teammanager.BoardOpPlan && planNotUTF8(op.Plan) {
			return nil, &textError{fmt.Errorf("team %s: apply board operations: operation %d (%s): %w", teammanager.IDText(teamID), i+1, op.Op, op.Plan.Validate())}
		}
		p.Ops = append(p.Ops, api.BoardOpOf(op))
	}
	var r api.BoardOpsApplied
	if err := c.teamsCall(ctx, "teams.task.apply_ops", p, &r); err != nil {
		var e *Error
		if errors.As(err, &e) && e.Operation != nil {
			// As the Manager returns it: the operation's own error in a
			// *teammanager.BoardOpError, which names it.
			own := *e
			own.Message, own.Operation = e.Operation.Message, nil
			return nil, fmt.Errorf("team %s: apply board operations: %w", teammanager.IDText(teamID), &teammanager.BoardOpError{Index: e.Operation.Index, Op: e.Operation.Op, Err: &own})
		}
		return nil, err
	}
	out := make([]teammanager.BoardOpResult, 0, len(r.Results))
	for _, res := range r.Results {
		o := teammanager.BoardOpResult{Op: res.Op, Plan: res.Plan}
		if res.Task != nil {
			t := taskOf(*res.Task)
			o.Task = &t
		}
		if len(res.Cancelled) > 0 {
			o.Cancelled = tasksOf(res.Cancelled)
		}
		out = append(out, o)
	}
	return out, nil
}

// Board returns the rules of a team's board (teams.task.board).
func (c *Client) Board(ctx context.Context, teamID string) (teammanager.BoardSettings, error) {
	var b api.Board
	if err := c.teamsCall(ctx, "teams.task.board", map[string]string{"team": teamID}, &b); err != nil {
		return teammanager.BoardSettings{}, err
	}
	return b.Settings()
}

// ConfigureBoard sets every rule of a team's board
// (teams.task.configure_board, with every setting given).
func (c *Client) ConfigureBoard(ctx context.Context, teamID string, s teammanager.BoardSettings) (teammanager.BoardSettings, error) {
	return c.UpdateBoard(ctx, teamID, teammanager.BoardUpdate{Lead: &s.Lead, AllowRequests: &s.AllowRequests, LeadMayWork: &s.LeadMayWork,
		RequireReview: &s.RequireReview, MaxDispatches: &s.MaxDispatches, Lease: &s.Lease, StaleAfter: &s.StaleAfter,
		PlanApproval: &s.PlanApproval, PlanApprover: &s.PlanApprover})
}

// UpdateBoard changes the rules of a team's board that u gives, keeping
// the others, in one atomic write (teams.task.configure_board, with the
// settings given only). Durations are sent in seconds (a float64): one
// of more than 2^53 ns (about 104 days) may be set a few nanoseconds off,
// up to a microsecond for the longest.
func (c *Client) UpdateBoard(ctx context.Context, teamID string, u teammanager.BoardUpdate) (teammanager.BoardSettings, error) {
	// A negative lease or staleAfter is the Manager's to refuse, after
	// the team, through the server too.
	var b api.Board
	if err := c.teamsCall(ctx, "teams.task.configure_board", api.BoardUpdateOf(teamID, u), &b); err != nil {
		return teammanager.BoardSettings{}, err
	}
	return b.Settings()
}

// SendMessage sends a message from member from (teams.chat.send).
func (c *Client) SendMessage(ctx context.Context, teamID, from string, msg teammanager.OutMessage) (teammanager.Message, error) {
	typ := string(msg.Type)
	if typ == "" {
		// A server would say the param is missing: it is sent as a type
		// that no type is, which the Manager refuses where it refuses no
		// type (after the team and the sender), and its message is made
		// to name the type as given.
		typ = noTypeStandIn
	}
	// A subject or body that is not UTF-8, which JSON cannot carry, is
	// sent empty: the Manager refuses an empty body just where it refuses
	// such text (after the team, the sender, the delegation rules and the
	// type; the text comes after the empty body, the subject before the
	// body), and that refusal comes back as the text's error.
	subject, body, badText := msg.Subject, msg.Body, ""
	switch {
	case strings.TrimSpace(msg.Body) == "":
		// The Manager refuses the empty body first.
		if !utf8.ValidString(subject) {
			subject = ""
		}
	case !utf8.ValidString(msg.Subject):
		subject, body, badText = "", "", "subject"
	case !utf8.ValidString(msg.Body):
		subject, body, badText = "", "", "body"
	}
	atts, standIns := attachmentsToSend(msg.Attachments)
	if typ != string(msg.Type) {
		if standIns == nil {
			standIns = map[string]string{}
		}
		standIns[typ] = string(msg.Type)
	}
	p := map[string]any{"team": teamID, "agent": from, "type": typ, "to": msg.To, "subject": subject,
		"body": body, "reply_to": msg.ReplyTo, "task": msg.Task, "attachments": atts}
	var m api.Message
	if err := c.teamsCall(ctx, "teams.chat.send", p, &m); err != nil {
		return teammanager.Message{}, textAsGiven(attachmentsAsGiven(err, standIns), badText)
	}
	if badText != "" {
		// The server took an empty body: not the Manager's.
		return teammanager.Message{}, fmt.Errorf("team %s: send message: the server took message %s with an empty body", teammanager.IDText(teamID), m.ID)
	}
	return messageOf(m), nil
}

// noTypeStandIn is the type a message with none is sent with: no type
// holds a NUL.
const noTypeStandIn = "\x00"

// textAsGiven returns err, a server's error of a send whose subject or
// body (field; "": neither) was not UTF-8 and sent empty, as the Manager's
// for the text if the server refused the empty body ("FIELD is not valid
// UTF-8", matching ErrNotUTF8 too: textError); otherwise err.
func textAsGiven(err error, field string) error {
	var e *Error
	if field == "" || !errors.As(err, &e) || !errors.Is(err, teammanager.ErrInvalidMessage) {
		return err
	}
	msg, ok := strings.CutSuffix(e.Message, ": empty body")
	if !ok {
		return err
	}
	c := *e
	c.Message = msg + ": " + field + " is not valid UTF-8"
	return &textError{&c}
}

// attachmentsToSend returns atts with each attachment that is not valid
// UTF-8 (which JSON cannot carry: Call would refuse it, naming the param)
// replaced by a stand-in that the Manager refuses where and as it
// refuses the attachment given (after the team, the sender and the
// recipients: "attachment %q is not an absolute IRI"): a NUL, which no
// IRI holds, then the attachment with U+FFFD for each bad byte. It returns
// the stand-ins too, each with the attachment it stands for (nil: none).
func attachmentsToSend(atts []string) ([]string, map[string]string) {
	var standIns map[string]string
	out := atts
	for i, a := range atts {
		if utf8.ValidString(a) {
			continue
		}
		if standIns == nil {
			out, standIns = slices.Clone(atts), map[string]string{}
		}
		out[i] = "\x00" + asSent(a)
		standIns[out[i]] = a
	}
	return out, standIns
}

// attachmentsAsGiven returns err, a server's error of a call with the
// stand-ins of attachmentsToSend (and of a type: noTypeStandIn), its
// message naming the attachments (the type) as given rather than their
// stand-ins.
func attachmentsAsGiven(err error, standIns map[string]string) error {
	var e *Error
	if len(standIns) == 0 || !errors.As(err, &e) {
		return err
	}
	msg := e.Message
	for sent, given := range standIns {
		msg = strings.ReplaceAll(msg, strconv.Quote(sent), strconv.Quote(given))
	}
	if msg == e.Message {
		return err
	}
	c := *e
	c.Message = msg
	return &c
}

// Inbox returns agent's messages that match f, oldest first
// (teams.chat.inbox).
func (c *Client) Inbox(ctx context.Context, teamID, agent string, f teammanager.MailFilter) ([]teammanager.Message, error) {
	switch f.Status {
	case "", teammanager.MsgUnread, teammanager.MsgRead, teammanager.MsgArchived:
	default:
		// The Manager's error, which it checks first (a server checks an
		// empty agent or team before).
		return nil, fmt.Errorf("%w: message status %q (want unread, read or archived)", teammanager.ErrInvalidStatus, f.Status)
	}
	return c.messagesCall(ctx, "teams.chat.inbox", map[string]string{"team": teamID, "agent": agent, "status": string(f.Status)})
}

// MarkMessages moves messages of agent's inbox to status read or archived
// (teams.chat.mark); another status is the Manager's error
// (ErrInvalidMessage), and nothing is sent. No ids marks nothing, but
// the team and the member must exist, as embedded.
func (c *Client) MarkMessages(ctx context.Context, teamID, agent string, status teammanager.MessageStatus, ids ...string) error {
	if status != teammanager.MsgRead && status != teammanager.MsgArchived {
		// The Manager's error, which it checks first (a server answers
		// it too), without a call.
		return fmt.Errorf("%w: mark as %q (want read or archived)", teammanager.ErrInvalidMessage, status)
	}
	if ids == nil {
		ids = []string{} // sent as [], not null: a server checks the team and the member
	}
	p := map[string]any{"team": teamID, "agent": agent, "status": string(status), "messages": ids}
	return c.teamsCall(ctx, "teams.chat.mark", p, nil)
}

// Thread returns the messages of a message's thread, oldest first
// (teams.chat.thread).
func (c *Client) Thread(ctx context.Context, teamID, id string) ([]teammanager.Message, error) {
	return c.messagesCall(ctx, "teams.chat.thread", map[string]string{"team": teamID, "message": id})
}

// History returns a team's last limit messages (limit ≤ 0: all), oldest
// first (teams.chat.history).
func (c *Client) History(ctx context.Context, teamID string, limit int) ([]teammanager.Message, error) {
	return c.messagesCall(ctx, "teams.chat.history", map[string]any{"team": teamID, "limit": max(limit, 0)})
}

// ConfigureMailbox sets the retention of a team's mailbox
// (teams.chat.configure, with both settings given). maxAge is sent in
// seconds (a float64): an age of more than 2^53 ns (about 104 days) may
// be set a few nanoseconds off, up to a microsecond for the longest.
func (c *Client) ConfigureMailbox(ctx context.Context, teamID string, maxAge time.Duration, perAgent int) error {
	if maxAge < 0 || perAgent < 1 {
		// The Manager's error (a server refuses the seconds as its own).
		return fmt.Errorf("team %s: mailbox retention %v, %d messages: %w: want an age ≥ 0 and at least 1 message", teammanager.IDText(teamID), maxAge, perAgent, teammanager.ErrInvalidConfig)
	}
	_, _, err := c.UpdateMailbox(ctx, teamID, teammanager.MailboxUpdate{MaxAge: &maxAge, PerAgent: &perAgent})
	return err
}

// UpdateMailbox changes the retention settings of a team's mailbox that u
// gives, keeping the others, in one atomic write (teams.chat.configure,
// with the settings given only), and returns the retention after the
// change. maxAge is sent in seconds (a float64): an age of more than
// 2^53 ns (about 104 days) may be set a few nanoseconds off, up to a
// microsecond for the longest.
func (c *Client) UpdateMailbox(ctx context.Context, teamID string, u teammanager.MailboxUpdate) (time.Duration, int, error) {
	// The Manager's errors (a server refuses negative seconds as its own).
	if u.MaxAge != nil && *u.MaxAge < 0 {
		return 0, 0, fmt.Errorf("team %s: mailbox retention: %w: max age %v: want an age ≥ 0 (0: whatever their age)", teammanager.IDText(teamID), teammanager.ErrInvalidConfig, *u.MaxAge)
	}
	var r api.MailRetention
	if err := c.teamsCall(ctx, "teams.chat.configure", api.MailRetentionUpdateOf(teamID, u), &r); err != nil {
		return 0, 0, err
	}
	age, err := r.Age()
	if err != nil {
		return 0, 0, err
	}
	return age, r.PerAgent, nil
}

// MailboxRetention returns the retention of a team's mailbox
// (teams.chat.retention).
func (c *Client) MailboxRetention(ctx context.Context, teamID string) (time.Duration, int, error) {
	var r api.MailRetention
	if err := c.teamsCall(ctx, "teams.chat.retention", map[string]string{"team": teamID}, &r); err != nil {
		return 0, 0, err
	}
	age, err := r.Age()
	if err != nil {
		return 0, 0, err
	}
	return age, r.PerAgent, nil
}

func (c *Client) messagesCall(ctx context.Context, method string, params any) ([]teammanager.Message, error) {
	var ms []api.Message
	if err := c.teamsCall(ctx, method, params, &ms); err != nil {
		return nil, err
	}
	var out []teammanager.Message // nil for none, as the Manager's
	for _, m := range ms {
		out = append(out, messageOf(m))
	}
	return out, nil
}

// noneIfEmpty returns nil for an empty s (the embedded manager's nil).
func noneIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func taskOf(t api.Task) teammanager.Task {
	return teammanager.Task{Team: t.Team, ID: t.ID, IRI: quad.IRI(t.IRI), Subject: t.Subject, Description: t.Description,
		Assignee: t.Assignee, Priority: t.Priority, BlockedBy: noneIfEmpty(t.BlockedBy), Dependents: noneIfEmpty(t.Dependents),
		Status: teammanager.TaskStatus(t.Status), Paused: t.Paused, Skipped: t.Skipped, Result: t.Result, Error: t.Error,
		Feedback: t.Feedback, CreatedBy: t.CreatedBy, ReviewedBy: t.ReviewedBy, Dispatches: t.Dispatches,
		CreatedAt: tv(t.CreatedAt), UpdatedAt: tv(t.UpdatedAt), ClaimedAt: tv(t.ClaimedAt), ReviewedAt: tv(t.ReviewedAt), Plan: t.Plan}
}

func tasksOf(ts []api.Task) []teammanager.Task {
	var out []teammanager.Task
	for _, t := range ts {
		out = append(out, taskOf(t))
	}
	return out
}

func commentOf(c api.TaskComment) teammanager.TaskComment {
	return teammanager.TaskComment{ID: c.ID, Task: c.Task, Kind: teammanager.CommentKind(c.Kind), Author: c.Author, Text: c.Text, CreatedAt: c.CreatedAt}
}

func messageOf(m api.Message) teammanager.Message {
	return teammanager.Message{ID: m.ID, Team: m.Team, Type: teammanager.MessageType(m.Type), From: m.From, To: m.To,
		Broadcast: m.Broadcast, Subject: m.Subject, Body: m.Body, ReplyTo: m.ReplyTo, Thread: m.Thread, Task: m.Task,
		Attachments: m.Attachments, SentAt: m.SentAt, Status: teammanager.MessageStatus(m.Status), ReadAt: tv(m.ReadAt)}
}
