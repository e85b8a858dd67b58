package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/teammanager"
)

// The task board and the mailbox of a team (teammanager tasks.go,
// dispatch.go, mailbox.go). Params name the team, the task and "agent",
// the member who acts: the lead for teams.task.review, cancel, pause,
// resume, retry and skip, and for creating and updating tasks unless the
// board lets members request them. Results are the JSON shapes of package
// api (api.Task, api.TaskComment, api.TaskEvent, api.Message ...).

// taskRef is the params of a method on one task by one member.
type taskRef struct {
	Team  string `json:"team"`
	Task  string `json:"task"`
	Agent string `json:"agent"`
}

// decodeTaskRef decodes params into p (which embeds a taskRef, read by
// ref) and checks that team, task and (if withAgent) agent are given.
func decodeTaskRef(params json.RawMessage, p any, ref *taskRef, withAgent bool) error {
	if err := decodeParams(params, p); err != nil {
		return err
	}
	if err := requiredGiven(params, "team", ref.Team, "task", ref.Task); err != nil {
		return err
	}
	if withAgent {
		err := requiredGiven(params, "agent", ref.Agent)
		if ee := (emptyIDError{}); errors.As(err, &ee) {
			ee.taskFirst = true // the Manager looks the task up first
			return ee
		}
		return err
	}
	return nil
}

// taskResult returns the JSON shape of a task a method answers. An error
// that comes with a task (ClaimTask past the circuit breaker returns the
// task it failed) keeps it: the error object's data carries it ("task").
func taskResult(t teammanager.Task, err error) (any, error) {
	if err != nil {
		if t.ID != "" {
			return nil, &taskError{err: err, task: api.TaskOf(t)}
		}
		return nil, err
	}
	return api.TaskOf(t), nil
}

// taskError is an error of a task method that returned a task with it
// (the task a claim past the circuit breaker failed): rpcErrorOf puts the
// task in the error object's data.
type taskError struct {
	err  error
	task api.Task
}

func (e *taskError) Error() string { return e.err.Error() }
func (e *taskError) Unwrap() error { return e.err }

// teamsCreateTask: {team, agent, subject, description, assignee,
// priority, blocked_by} -> the task created.
func teamsCreateTask(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		Team  string `json:"team"`
		Agent string `json:"agent"`
		api.NewTask
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "team", p.Team, "agent", p.Agent); err != nil {
		return nil, err
	}
	return taskResult(c.m.CreateTask(ctx, p.Team, p.Agent, p.NewTask.Manager()))
}

// teamsUpdateTask: {team, task, agent, and any of subject, description,
// assignee ("" unassigns), priority, blocked_by (replaces the list)} ->
// the task updated. Fields absent are kept.
func teamsUpdateTask(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		taskRef
		Subject     *string   `json:"subject"`
		Description *string   `json:"description"`
		Assignee    *string   `json:"assignee"`
		Priority    *int      `json:"priority"`
		BlockedBy   *[]string `json:"blocked_by"`
	}
	if err := decodeTaskRef(params, &p, &p.taskRef, true); err != nil {
		return nil, err
	}
	return taskResult(c.m.UpdateTask(ctx, p.Team, p.Agent, p.Task, teammanager.TaskUpdate{Subject: p.Subject,
		Description: p.Description, Assignee: p.Assignee, Priority: p.Priority, BlockedBy: p.BlockedBy}))
}

// teamsListTasks: {team, status, assignee} (filters optional) -> the
// tasks, in id order.
func teamsListTasks(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		Team     string `json:"team"`
		Status   string `json:"status"`
		Assignee string `json:"assignee"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "team", p.Team); err != nil {
		return nil, err
	}
	// The Manager checks the status word, with its message.
	f := teammanager.TaskFilter{Assignee: p.Assignee, Status: teammanager.TaskStatus(p.Status)}
	ts, err := c.m.ListTasks(ctx, p.Team, f)
	if err != nil {
		return nil, err
	}
	if err := c.checkCount(len(ts), "tasks"); err != nil {
		return nil, err
	}
	return api.TasksOf(ts), nil
}

// teamsGetTask: {team, task} -> the task.
func teamsGetTask(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p taskRef
	if err := decodeTaskRef(params, &p, &p, false); err != nil {
		return nil, err
	}
	if p.Agent != "" {
		return nil, fmt.Errorf(`%w: params: teams.task.get takes no "agent"`, api.ErrUsage)
	}
	return taskResult(c.m.GetTask(ctx, p.Team, p.Task))
}

// teamsAddTaskComment: {team, task, agent, kind (note|blocker), text} ->
// the comment. A blocker fails the task and escalates to the lead.
func teamsAddTaskComment(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		taskRef
		Kind *string `json:"kind"`
		Text string  `json:"text"`
	}
	if err := decodeTaskRef(params, &p, &p.taskRef, true); err != nil {
		return nil, err
	}
	// No kind is a note; a kind given empty ("") is the Manager's to
	// refuse (ErrInvalidTask), after it looks the team and the task up.
	kind := teammanager.CommentNote
	if p.Kind != nil {
		kind = teammanager.CommentKind(*p.Kind)
	}
	cm, err := c.m.AddTaskComment(ctx, p.Team, p.Agent, p.Task, kind, p.Text)
	if err != nil {
		return nil, err
	}
	return api.TaskCommentOf(p.Team, cm), nil
}

// teamsListTaskComments: {team, task} -> the comments, oldest first.
func teamsListTaskComments(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		Team string `json:"team"`
		Task string `json:"task"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "team", p.Team, "task", p.Task); err != nil {
		return nil, err
	}
	cs, err := c.m.TaskComments(ctx, p.Team, p.Task)
	if err != nil {
		return nil, err
	}
	if err := c.checkCount(len(cs), "comments"); err != nil {
		return nil, err
	}
	out := make([]api.TaskComment, 0, len(cs))
	for _, cm := range cs {
		out = append(out, api.TaskCommentOf(p.Team, cm))
	}
	return out, nil
}

// teamsListTaskEvents: {team, task} -> the task's history, oldest first.
func teamsListTaskEvents(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		Team string `json:"team"`
		Task string `json:"task"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "team", p.Team, "task", p.Task); err != nil {
		return nil, err
	}
	hs, err := c.m.TaskHistory(ctx, p.Team, p.Task)
	if err != nil {
		return nil, err
	}
	if err := c.checkCount(len(hs), "task events"); err != nil {
		return nil, err
	}
	out := make([]api.TaskEvent, 0, len(hs))
	for _, h := range hs {
		out = append(out, api.TaskEventOf(h))
	}
	return out, nil
}

// teamsTaskClaim: {team, task, agent} -> the task, in_progress for agent.
func teamsTaskClaim(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p taskRef
	if err := decodeTaskRef(params, &p, &p, true); err != nil {
		return nil, err
	}
	return taskResult(c.m.ClaimTask(ctx, p.Team, p.Agent, p.Task))
}

// teamsTaskNext: {team, agent} -> the ready task of highest priority,
// claimed for agent.
func teamsTaskNext(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		Team  string `json:"team"`
		Agent string `json:"agent"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "team", p.Team, "agent", p.Agent); err != nil {
		return nil, err
	}
	return taskResult(c.m.ClaimNext(ctx, p.Team, p.Agent))
}

// teamsTaskProgress: {team, task, agent, note} -> the task, its lease
// renewed.
func teamsTaskProgress(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		taskRef
		Note string `json:"note"`
	}
	if err := decodeTaskRef(params, &p, &p.taskRef, true); err != nil {
		return nil, err
	}
	return taskResult(c.m.ProgressTask(ctx, p.Team, p.Agent, p.Task, p.Note))
}

// teamsTaskComplete: {team, task, agent, result} -> the task, in_review
// (or completed on a board without review).
func teamsTaskComplete(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		taskRef
		Result string `json:"result"`
	}
	if err := decodeTaskRef(params, &p, &p.taskRef, true); err != nil {
		return nil, err
	}
	return taskResult(c.m.CompleteTask(ctx, p.Team, p.Agent, p.Task, p.Result))
}

// teamsTaskReview: {team, task, agent (the lead), approve, feedback} ->
// the task, completed (approve) or back in_progress with the feedback.
// approve is required.
func teamsTaskReview(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		taskRef
		Approve  *bool  `json:"approve"`
		Feedback string `json:"feedback"`
	}
	if err := decodeTaskRef(params, &p, &p.taskRef, true); err != nil {
		return nil, err
	}
	if p.Approve == nil {
		return nil, fmt.Errorf(`%w: params: "approve" is required (true approves, false rejects)`, api.ErrUsage)
	}
	return taskResult(c.m.ReviewTask(ctx, p.Team, p.Agent, p.Task, *p.Approve, p.Feedback))
}

// teamsTaskFail: {team, task, agent, reason} -> the task, failed.
func teamsTaskFail(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	return taskWithReason(ctx, params, c.m.FailTask)
}

// teamsTaskCancel: {team, task, agent (the lead), reason} -> the task,
// cancelled.
func teamsTaskCancel(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	return taskWithReason(ctx, params, c.m.CancelTask)
}

// teamsTaskSkip: {team, task, agent (the lead), reason} -> the task,
// cancelled as skipped (its dependents go ahead).
func teamsTaskSkip(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	return taskWithReason(ctx, params, c.m.SkipTask)
}

// teamsTaskPause, teamsTaskResume, teamsTaskRetry: {team, task, agent
// (the lead)} -> the task.
func teamsTaskPause(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	return taskControl(ctx, params, c.m.PauseTask)
}

func teamsTaskResume(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	return taskControl(ctx, params, c.m.ResumeTask)
}

func teamsTaskRetry(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	return taskControl(ctx, params, c.m.RetryTask)
}

func taskControl(ctx context.Context, params json.RawMessage, op func(ctx context.Context, teamID, lead, taskID string) (teammanager.Task, error)) (any, error) {
	var p taskRef
	if err := decodeTaskRef(params, &p, &p, true); err != nil {
		return nil, err
	}
	return taskResult(op(ctx, p.Team, p.Agent, p.Task))
}

// teamsTaskDispatch: {team} -> the dispatch round's api.TaskDispatch.
func teamsTaskDispatch(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p teamParams
	if err := p.decode(params); err != nil {
		return nil, err
	}
	r, err := c.m.DispatchUnblocked(ctx, p.Team)
	if err != nil {
		return nil, err
	}
	return api.TaskDispatchOf(p.Team, r), nil
}

// teamsTaskSweep: {team} -> the sweep's api.TaskSweep.
func teamsTaskSweep(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p teamParams
	if err := p.decode(params); err != nil {
		return nil, err
	}
	sw, err := c.m.SweepTasks(ctx, p.Team)
	if err != nil {
		return nil, err
	}
	return api.TaskSweepOf(p.Team, sw), nil
}

// teamsTaskBoard: {team} -> the board's rules (api.Board).
func teamsTaskBoard(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p teamParams
	if err := p.decode(params); err != nil {
		return nil, err
	}
	s, err := c.m.Board(ctx, p.Team)
	if err != nil {
		return nil, err
	}
	return api.BoardOf(p.Team, s), nil
}

// teamsTaskConfigureBoard: an api.BoardUpdate ({team} and any of the
// fields of api.Board) -> the board's rules after the change (api.Board).
// The settings given change, in one atomic write; those absent are kept;
// 0 for maxDispatches, lease or staleAfter is the default.
func teamsTaskConfigureBoard(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p api.BoardUpdate
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "team", p.Team); err != nil {
		return nil, err
	}
	u, err := p.Update()
	if err != nil {
		// The Manager looks the team up before the settings.
		if terr := c.lookTeam(ctx, p.Team); errors.Is(terr, teammanager.ErrUnknownTeam) {
			return nil, fmt.Errorf("configure board: %w", terr)
		}
		return nil, err
	}
	s, err := c.m.UpdateBoard(ctx, p.Team, u)
	if err != nil {
		return nil, err
	}
	return api.BoardOf(p.Team, s), nil
}

// teamsChatSend: {team, agent (the sender), type, to (none: every other
// member), subject, body, reply_to, task, attachments} -> the message.
func teamsChatSend(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		Team        string   `json:"team"`
		Agent       string   `json:"agent"`
		Type        string   `json:"type"`
		To          []string `json:"to"`
		Subject     string   `json:"subject"`
		Body        string   `json:"body"`
		ReplyTo     string   `json:"reply_to"`
		Task        string   `json:"task"`
		Attachments []string `json:"attachments"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "team", p.Team, "agent", p.Agent); err != nil {
		return nil, err
	}
	// An empty type is the Manager's to refuse, after the team and the
	// sender (ErrInvalidMessage); an absent one, a missing param.
	if err := requiredGiven(params, "type", p.Type); err != nil {
		return nil, err
	}
	m, err := c.m.SendMessage(ctx, p.Team, p.Agent, teammanager.OutMessage{Type: teammanager.MessageType(p.Type), To: p.To,
		Subject: p.Subject, Body: p.Body, ReplyTo: p.ReplyTo, Task: p.Task, Attachments: p.Attachments})
	if err != nil {
		return nil, err
	}
	return api.MessageOf(m), nil
}

// messagesResult returns the JSON shapes of the messages a listing
// answers, within the limit of results per response.
func (c *rpcCtx) messagesResult(ms []teammanager.Message, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	if err := c.checkCount(len(ms), "messages"); err != nil {
		return nil, err
	}
	return api.MessagesOf(ms), nil
}

// teamsChatThread: {team, message} -> the messages of the message's
// thread, oldest first.
func teamsChatThread(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		Team    string `json:"team"`
		Message string `json:"message"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "team", p.Team, "message", p.Message); err != nil {
		return nil, err
	}
	return c.messagesResult(c.m.Thread(ctx, p.Team, p.Message))
}

// teamsChatHistory: {team, limit} -> the team's last limit messages
// (limit 0 or absent: all), oldest first.
func teamsChatHistory(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		Team  string `json:"team"`
		Limit int    `json:"limit"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "team", p.Team); err != nil {
		return nil, err
	}
	if p.Limit < 0 {
		return nil, fmt.Errorf("%w: params: limit %d: want ≥ 0 (0: all)", api.ErrInvalid, p.Limit)
	}
	return c.messagesResult(c.m.History(ctx, p.Team, p.Limit))
}

// teamsChatInbox: {team, agent, status} -> agent's messages with that
// status (absent: unread and read), oldest first.
func teamsChatInbox(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		Team   string `json:"team"`
		Agent  string `json:"agent"`
		Status string `json:"status"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "team", p.Team, "agent", p.Agent); err != nil {
		return nil, err
	}
	return c.messagesResult(c.m.Inbox(ctx, p.Team, p.Agent, teammanager.MailFilter{Status: teammanager.MessageStatus(p.Status)}))
}

// teamsChatMark: {team, agent, status (read|archived), messages} ->
// api.MessagesMarked. Every id must be in agent's inbox, or nothing
// changes; messages [] marks nothing (the team and the member must
// exist, as in process).
func teamsChatMark(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		Team     string   `json:"team"`
		Agent    string   `json:"agent"`
		Status   string   `json:"status"`
		Messages []string `json:"messages"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	// An empty status is the Manager's to refuse (ErrInvalidMessage, which
	// it checks first, whatever the ids); an absent one, a missing param.
	if err := requiredGiven(params, "status", p.Status); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "team", p.Team, "agent", p.Agent); err != nil {
		return nil, err
	}
	if p.Messages == nil {
		// (Given empty, [], it marks nothing but checks the team and the
		// member, as the Manager's call of no ids does.)
		return nil, fmt.Errorf(`%w: params: "messages" is required (the message ids)`, api.ErrUsage)
	}
	if err := c.m.MarkMessages(ctx, p.Team, p.Agent, teammanager.MessageStatus(p.Status), p.Messages...); err != nil {
		return nil, err
	}
	// A message is marked once: one given twice is in the result once.
	ids := make([]string, 0, len(p.Messages))
	for _, id := range p.Messages {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return api.MessagesMarked{Team: p.Team, Agent: p.Agent, Status: p.Status, Messages: ids}, nil
}

// teamsTaskAddFindings: {team, task, agent (its assignee), findings: [{subject,
// predicate, object, confidence, assertedAt}]} -> api.TaskFindingsAdded:
// the findings, in one atomic write, with the task in their provenance.
func teamsTaskAddFindings(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		taskRef
		Findings []findingParams `json:"findings"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	// The Manager looks the member up before the task.
	if err := requiredGiven(params, "team", p.Team, "agent", p.Agent); err != nil {
		return nil, err
	}
	fs := make([]teammanager.Finding, 0, len(p.Findings))
	for i, fp := range p.Findings {
		f, err := c.finding(fmt.Sprintf("findings[%d].", i), fp)
		if err != nil {
			return nil, err
		}
		fs = append(fs, f)
	}
	if err := requiredGiven(params, "task", p.Task); err != nil {
		// The Manager's error, if it is not about the task: it checks
		// the team and the member (unknown, finished) first, and writes
		// nothing for a task it cannot load.
		if _, merr := c.m.AddTaskFindings(ctx, p.Team, p.Agent, p.Task, fs); merr != nil && !errors.Is(merr, teammanager.ErrUnknownTask) {
			return nil, merr
		}
		return nil, err
	}
	ids, err := c.m.AddTaskFindings(ctx, p.Team, p.Agent, p.Task, fs)
	if err != nil {
		return nil, err
	}
	if ids == nil {
		ids = []string{}
	}
	return api.TaskFindingsAdded{Team: p.Team, Task: p.Task, IDs: ids}, nil
}

// teamsTaskFinish: {team, task, agent (its assignee), result, findings:
// [{subject, predicate, object, confidence, assertedAt}], tasks: [{subject,
// description, assignee, priority, blocked_by}]} -> api.TaskFinished: the
// findings, the new tasks and the result, in one atomic write
// (teammanager.Manager.FinishTask): a part refused writes nothing.
func teamsTaskFinish(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		taskRef
		Result   string          `json:"result"`
		Findings []findingParams `json:"findings"`
		Tasks    []api.NewTask   `json:"tasks"`
	}
	if err := decodeTaskRef(params, &p, &p.taskRef, true); err != nil {
		return nil, err
	}
	o := teammanager.TaskOutcome{Result: p.Result, Findings: make([]teammanager.Finding, 0, len(p.Findings))}
	for i, fp := range p.Findings {
		f, err := c.finding(fmt.Sprintf("findings[%d].", i), fp)
		if err != nil {
			return nil, err
		}
		o.Findings = append(o.Findings, f)
	}
	for _, nt := range p.Tasks {
		o.Tasks = append(o.Tasks, nt.Manager())
	}
	fin, err := c.m.FinishTask(ctx, p.Team, p.Agent, p.Task, o)
	if err != nil {
		return nil, err
	}
	out := api.TaskFinished{Task: api.TaskOf(fin.Task), Findings: fin.Findings, Created: make([]api.Task, 0, len(fin.Created))}
	if out.Findings == nil {
		out.Findings = []string{}
	}
	for _, t := range fin.Created {
		out.Created = append(out.Created, api.TaskOf(t))
	}
	return out, nil
}

// teamsTaskApplyOps: {team, agent (the lead), ops: [api.BoardOp]} ->
// api.BoardOpsApplied: a lead's turn, every operation applied in order in
// one atomic write (teammanager.Manager.ApplyBoardOps): an operation
// refused writes nothing of any.
func teamsTaskApplyOps(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		Team  string        `json:"team"`
		Agent string        `json:"agent"`
		Ops   []api.BoardOp `json:"ops"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "team", p.Team, "agent", p.Agent); err != nil {
		return nil, err
	}
	ops := make([]teammanager.BoardOp, 0, len(p.Ops))
	for _, op := range p.Ops {
		ops = append(ops, op.Manager())
	}
	res, err := c.m.ApplyBoardOps(ctx, p.Team, p.Agent, ops)
	if err != nil {
		return nil, err
	}
	return api.BoardOpsAppliedOf(p.Team, res), nil
}

// teamsChatConfigure: an api.MailRetentionUpdate ({team} and maxAge
// (seconds; 0: any age), perAgent, or both) -> api.MailRetention: the
// retention of the team's mailbox after the change, enforced by the sends
// from then on. The settings given change, in one atomic write; those
// absent are kept.
func teamsChatConfigure(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p api.MailRetentionUpdate
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "team", p.Team); err != nil {
		return nil, err
	}
	u, err := p.Update()
	if err != nil {
		return nil, err
	}
	age, n, err := c.m.UpdateMailbox(ctx, p.Team, u)
	if err != nil {
		return nil, err
	}
	return api.MailRetention{Team: p.Team, MaxAge: age.Seconds(), PerAgent: n}, nil
}

// teamsChatRetention: {team} -> api.MailRetention: the retention of the
// team's mailbox (the defaults until it is configured).
func teamsChatRetention(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p teamParams
	if err := p.decode(params); err != nil {
		return nil, err
	}
	age, n, err := c.m.MailboxRetention(ctx, p.Team)
	if err != nil {
		return nil, err
	}
	return api.MailRetention{Team: p.Team, MaxAge: age.Seconds(), PerAgent: n}, nil
}

// taskWithReason runs a task control that takes a reason ({team, task,
// agent, reason}) and returns the task.
func taskWithReason(ctx context.Context, params json.RawMessage, fn func(ctx context.Context, team, agent, task, reason string) (teammanager.Task, error)) (any, error) {
	var p struct {
		taskRef
		Reason string `json:"reason"`
	}
	if err := decodeTaskRef(params, &p, &p.taskRef, true); err != nil {
		return nil, err
	}
	return taskResult(fn(ctx, p.Team, p.Agent, p.Task, p.Reason))
}
