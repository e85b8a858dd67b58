package teammanager

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/internal/ctxcause"
)

// ConfigureBoard sets the rules of team teamID's task board (see
// BoardSettings) and returns them. Zero MaxDispatches, Lease and
// StaleAfter keep their defaults; an empty Lead keeps the lead the board
// has (by default the member with role "lead"). Settings that fail
// validation are an error wrapping ErrInvalidConfig (ErrUnknownAgent for a
// lead that is not a member) and change nothing. It is UpdateBoard with
// every setting given.
func (m *Manager) ConfigureBoard(ctx context.Context, teamID string, s BoardSettings) (BoardSettings, error) {
	return m.UpdateBoard(ctx, teamID, BoardUpdate{Lead: &s.Lead, AllowRequests: &s.AllowRequests, LeadMayWork: &s.LeadMayWork,
		RequireReview: &s.RequireReview, MaxDispatches: &s.MaxDispatches, Lease: &s.Lease, StaleAfter: &s.StaleAfter,
		PlanApproval: &s.PlanApproval, PlanApprover: &s.PlanApprover})
}

// BoardUpdate changes some of a board's settings (UpdateBoard): a nil
// field keeps the setting the board has.
type BoardUpdate struct {
	Lead          *string // "" keeps the board's lead
	AllowRequests *bool
	LeadMayWork   *bool
	RequireReview *bool
	MaxDispatches *int           // 0: the default
	Lease         *time.Duration // 0: the default
	StaleAfter    *time.Duration // 0: the default
	PlanApproval  *bool
	PlanApprover  *string // "": the operator
}

// UpdateBoard changes the settings of team teamID's task board that u
// gives, keeping the others, and returns the board's settings after the
// change. The read and the change are one atomic write: a concurrent
// update of other settings is not undone. Values are taken as
// ConfigureBoard takes them (zero MaxDispatches, Lease and StaleAfter: the
// defaults; an empty Lead: the board's lead), and settings that fail
// validation are an error wrapping ErrInvalidConfig (ErrUnknownAgent for
// a lead or plan approver that is not a member) and change nothing.
//
// A change of lead, or LeadMayWork turned off, hands the board over in the
// same write (handOver): a lead that may not work lets go of its tasks
// (in_progress back to pending, pending unassigned: any member takes
// them), and a new lead is sent a request_approval for each task in
// review, which it reviews from then on (the old lead no longer does).
func (m *Manager) UpdateBoard(ctx context.Context, teamID string, u BoardUpdate) (_ BoardSettings, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	var out BoardSettings
	err = m.boardWrite(ctx, func(b *boardTx) error {
		st, err := b.loadBoard(teamID, false)
		if err != nil {
			return err
		}
		s := st.Settings.settings()
		if u.Lead != nil && *u.Lead != "" {
			s.Lead = *u.Lead
		}
		for _, f := range []struct {
			dst *bool
			src *bool
		}{{&s.AllowRequests, u.AllowRequests}, {&s.LeadMayWork, u.LeadMayWork}, {&s.RequireReview, u.RequireReview}, {&s.PlanApproval, u.PlanApproval}} {
			if f.src != nil {
				*f.dst = *f.src
			}
		}
		if u.MaxDispatches != nil {
			s.MaxDispatches = *u.MaxDispatches
		}
		if u.Lease != nil {
			s.Lease = *u.Lease
		}
		if u.StaleAfter != nil {
			s.StaleAfter = *u.StaleAfter
		}
		if u.PlanApprover != nil {
			s.PlanApprover = *u.PlanApprover
		}
		if s.MaxDispatches == 0 {
			s.MaxDispatches = DefaultMaxDispatches
		}
		if s.Lease == 0 {
			s.Lease = DefaultTaskLease
		}
		if s.StaleAfter == 0 {
			s.StaleAfter = DefaultStaleAfter
		}
		if err := s.validate(st.Members); err != nil {
			return err
		}
		was := st.Settings
		st.Settings = boardWire(s)
		b.saveBoard(teamID, st)
		if err := b.handOver(st, teamID, was); err != nil {
			return err
		}
		out = s
		return nil
	})
	if err != nil {
		return BoardSettings{}, teamErr(teamID, "configure board", err)
	}
	return out, nil
}

// handOver applies, in the write of UpdateBoard, what a change of the
// board's lead (from was's) or of LeadMayWork means for its tasks, so that
// none is left that nobody can move on:
//
//   - a lead that may not work (a new lead, or LeadMayWork turned off) lets
//     go of its tasks as a finished member does: its in_progress tasks go
//     back to pending, unassigned (action requeued), and its pending tasks
//     are unassigned (reason "AGENT is the lead now");
//   - a new lead is sent a request_approval for each task in_review (their
//     requests went to the old lead, who no longer reviews), the lead's
//     own submissions before the change too.
//
// Its tasks that are failed or cancelled keep their assignee until the
// lead retries them (RetryTask then unassigns them, as it does a finished
// member's), and one of its tasks in review that the lead rejects goes
// back to pending, unassigned.
func (b *boardTx) handOver(st *boardState, team string, was boardWire) error {
	lead := st.Settings.Lead
	if lead == "" || lead == was.Lead && (st.Settings.LeadMayWork || !was.LeadMayWork) {
		return nil
	}
	if !st.Settings.LeadMayWork {
		if err := b.releaseTasks(team, lead, lead+" is the lead now"); err != nil {
			return err
		}
	}
	if lead == was.Lead {
		return nil
	}
	var review []int
	var derr error
	if err := b.scan(taskTable, teamKey(team), func(key string, vals []quad.Value) bool {
		fs, err := taskFields(vals)
		if err != nil {
			derr = err
			return false
		}
		if TaskStatus(fs[tfStatus]) == TaskInReview {
			review = append(review, numOfReadyKey(key))
		}
		return true
	}); err != nil {
		return err
	}
	if derr != nil {
		return derr
	}
	for _, n := range review {
		t, err := b.loadTask(team, taskID(n))
		if err != nil {
			return err
		}
		if _, err := b.send(st, team, "", OutMessage{Type: MsgRequestApproval, To: []string{lead},
			Subject: "review task " + t.ID + ": " + t.Subject, Body: t.Result, Task: t.ID}, true); err != nil {
			return err
		}
	}
	return nil
}

// Board returns the rules of team teamID's task board, whatever the
// team's lifecycle (ErrUnknownTeam if there is no such team).
func (m *Manager) Board(ctx context.Context, teamID string) (_ BoardSettings, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	var out BoardSettings
	err = m.boardRead(ctx, func(b *boardTx) error {
		st, err := b.readBoard(teamID)
		if err == nil {
			out = st.Settings.settings()
		}
		return err
	})
	return out, err
}

// boardRead runs fn on the committed board, outside any batch: whatever
// fn stages is dropped.
func (m *Manager) boardRead(ctx context.Context, fn func(b *boardTx) error) error {
	b := &boardTx{m: m, ctx: ctx, n: m.n, now: m.now()}
	b.init()
	return fn(b)
}

// CreateTask creates a task on team teamID's board, by agent by, and
// returns it. Only the lead may create tasks, or any member if the board
// allows requests (ErrNotAllowed). The subject is required; the priority
// is within ±MaxTaskPriority; the assignee, if any, is a member that may
// work (never the lead unless the board allows it; never a member whose
// status is completed or failed: ErrMemberFinished); every blocked_by names
// an unfinished task of the same team (all ErrInvalidTask; a blocked_by
// that names no task of the team also ErrUnknownTask). The task is
// pending, and ready (claimable, dispatchable) once its blockers complete.
// Assigning the task to another member is a delegation: the rules of
// Config.WithDelegation apply (a *DelegationError, ErrNotAllowed).
func (m *Manager) CreateTask(ctx context.Context, teamID, by string, nt NewTask) (_ Task, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	var out Task
	rules, err := m.delegationRules(ctx, teamID, by, nt.Assignee)
	if err != nil {
		return Task{}, teamErr(teamID, "create task", err)
	}
	err = m.boardWrite(ctx, func(b *boardTx) error {
		t, err := b.createTask(teamID, by, nt, rules)
		if err != nil {
			return err
		}
		out = *t
		return nil
	})
	if err != nil {
		return Task{}, teamErr(teamID, "create task", err)
	}
	return out, nil
}

// createTask creates task nt on team teamID's board, by agent by, under
// the delegation rules rules (CreateTask).
func (b *boardTx) createTask(teamID, by string, nt NewTask, rules delegationRules) (*Task, error) {
	m := b.m
	st, err := b.loadBoard(teamID, false)
	if err != nil {
		return nil, err
	}
	if err := mayCreate(st, by); err != nil {
		return nil, err
	}
	t := &Task{Team: teamID, Subject: strings.TrimSpace(nt.Subject), Description: nt.Description,
		Assignee: nt.Assignee, Priority: nt.Priority, Status: TaskPending, CreatedBy: by,
		CreatedAt: b.now, UpdatedAt: b.now}
	if err := checkFields(st, t); err != nil {
		return nil, err
	}
	if t.Assignee != "" {
		if err := checkAssignable(st, t.Assignee); err != nil {
			return nil, err
		}
		if err := rules.check(st, teamID, by, t.Assignee); err != nil {
			return nil, err
		}
	}
	seqTasks, seqMsgs, err := b.idSeq(teamID)
	if err != nil {
		return nil, err
	}
	n := max(st.Next, seqTasks+1) // (a number never used before: see idSeqTable)
	t.ID = taskID(n)
	t.IRI = m.ns.Task(teamID, t.ID)
	blockers, err := b.checkBlockers(t, nt.BlockedBy)
	if err != nil {
		return nil, err
	}
	t.BlockedBy = slices.Clone(nt.BlockedBy) // (not the caller's array)
	st.Next = n + 1
	b.putIDSeq(teamID, n, seqMsgs)
	b.saveBoard(teamID, st)
	// The task first, then its blockers' links to it: its task.created
	// event comes before the task.updated events that name it.
	if err := b.save(nil, t, TaskChange{Action: ActionCreated, By: by}); err != nil {
		return nil, err
	}
	for _, bt := range blockers {
		old := *bt
		bt.Dependents = append(slices.Clone(bt.Dependents), t.ID)
		if err := b.save(&old, bt, TaskChange{Action: ActionUpdated, By: by, Reason: "blocks " + t.ID}); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func mayCreate(st *boardState, by string) error {
	switch {
	case !st.isMember(by):
		return fmt.Errorf("agent %q: %w", by, unknown(ErrUnknownAgent, by))
	case by == st.Settings.Lead, st.Settings.AllowRequests:
		return nil
	case st.Settings.Lead == "":
		return fmt.Errorf("%w: %s may not create tasks: the board has no lead (ConfigureBoard, or a member with role %q) and does not allow requests", ErrNotAllowed, IDText(by), LeadRole)
	}
	return fmt.Errorf("%w: only the lead (%s) creates tasks on this board, not %s", ErrNotAllowed, st.Settings.Lead, IDText(by))
}

// checkFields validates the fields of t that do not depend on other tasks.
func checkFields(st *boardState, t *Task) error {
	switch {
	case t.Subject == "":
		return errorf(ErrInvalidTask, "empty subject")
	case t.Priority < -MaxTaskPriority || t.Priority > MaxTaskPriority:
		return errorf(ErrInvalidTask, "priority %d not in ±%d", t.Priority, MaxTaskPriority)
	case t.Assignee != "" && !st.isMember(t.Assignee):
		return fmt.Errorf("%w: assignee %q: %w", ErrInvalidTask, t.Assignee, unknown(ErrUnknownAgent, t.Assignee))
	case t.Assignee != "" && st.leadIdle(t.Assignee):
		return fmt.Errorf("%w: assignee %s: %w: it is the lead, and the board does not let the lead work", ErrInvalidTask, t.Assignee, ErrNotAllowed)
	}
	return nil
}

// checkAssignable refuses a new assignee that is finished (its status is
// completed or failed): it works on no more tasks.
func checkAssignable(st *boardState, agent string) error {
	if s := st.Finished[agent]; s != "" {
		return fmt.Errorf("assignee %s is %s: %w", IDText(agent), s, ErrMemberFinished)
	}
	return nil
}

// checkBlockers checks that ids name distinct unfinished tasks of t's team,
// other than t, and returns them.
func (b *boardTx) checkBlockers(t *Task, ids []string) ([]*Task, error) {
	var out []*Task
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			return nil, errorf(ErrInvalidTask, "blocked_by lists %s twice", id)
		}
		seen[id] = true
		// (Looked up first: a new task's own id names no task yet.)
		bt, err := b.loadTask(t.Team, id)
		if errors.Is(err, ErrUnknownTask) {
			// Both kinds: an invalid task, blocked by an unknown one (exit
			// 3, as an unknown assignee).
			return nil, fmt.Errorf("%w: blocked_by %q: %w", ErrInvalidTask, id, unknown(ErrUnknownTask, id))
		} else if err != nil {
			return nil, err
		}
		if id == t.ID {
			return nil, &CycleError{Team: t.Team, Cycle: []string{t.ID, t.ID}}
		}
		if bt.Status.Finished() {
			return nil, fmt.Errorf("%w: blocked_by %s: the task is %s", ErrInvalidTask, IDText(id), bt.Status)
		}
		out = append(out, bt)
	}
	return out, nil
}

// findCycle returns the cycle that making t blocked by ids would close: a
// path from a blocker back to t through blocked_by, or nil.
func (b *boardTx) findCycle(t *Task, ids []string) ([]string, error) {
	// Depth-first from each new blocker along blocked_by; reaching t
	// closes the cycle t → blocker → ... → t.
	seen := map[string]bool{}
	var path []string
	var visit func(id string) (bool, error)
	visit = func(id string) (bool, error) {
		path = append(path, id)
		if id == t.ID {
			return true, nil
		}
		if seen[id] {
			path = path[:len(path)-1]
			return false, nil
		}
		seen[id] = true
		x, err := b.loadTask(t.Team, id)
		if err != nil {
			return false, err
		}
		for _, next := range x.BlockedBy {
			if found, err := visit(next); found || err != nil {
				return found, err
			}
		}
		path = path[:len(path)-1]
		return false, nil
	}
	for _, id := range ids {
		path = append(path[:0], t.ID)
		if found, err := visit(id); found || err != nil {
			return path, err
		}
	}
	return nil, nil
}

// GetTask returns task taskID of team teamID (ErrUnknownTask; ErrUnknownTeam
// if there is no such team).
func (m *Manager) GetTask(ctx context.Context, teamID, taskID string) (_ Task, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	var out Task
	err = m.boardRead(ctx, func(b *boardTx) error {
		t, err := b.loadTask(teamID, taskID)
		if errors.Is(err, ErrUnknownTask) {
			if terr := m.knownTeam(ctx, teamID); terr != nil {
				return terr
			}
		}
		if err == nil {
			out = *t
		}
		return err
	})
	return out, err
}

// ListTasks returns the tasks of team teamID that match f, in id order. It
// reads the board's task table alone (one key range), not the quads. A
// filter's Assignee that is not a member of the team fails it with
// ErrUnknownAgent (as Findings and Facts do): a misspelt name is not a
// member without tasks.
func (m *Manager) ListTasks(ctx context.Context, teamID string, f TaskFilter) (_ []Task, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	if f.Status != "" && !f.Status.Valid() {
		return nil, errorf(ErrInvalidStatus, "task status %q", f.Status)
	}
	if f.Assignee != "" {
		if err := m.boardRead(ctx, func(b *boardTx) error {
			st, err := b.readBoard(teamID)
			if err == nil && !st.isMember(f.Assignee) {
				err = fmt.Errorf("team %s: list tasks: assignee %q: %w", IDText(teamID), f.Assignee, unknown(ErrUnknownAgent, f.Assignee))
			}
			return err
		}); err != nil {
			return nil, err
		}
	}
	vals, found, err := m.n.SideRow(ctx, boardTable, teamID)
	if err != nil {
		return nil, err
	}
	var out []Task
	if !found {
		if err := m.knownTeam(ctx, teamID); err != nil {
			return nil, err
		}
	} else if st, err := decodeBoard(teamID, vals); err == nil && f == (TaskFilter{}) && st.Next > 1 {
		// Every task, numbered 1 .. Next-1: one allocation, not a
		// slice grown (and copied) a dozen times over a large board.
		out = make([]Task, 0, min(st.Next-1, maxListPrealloc))
	}
	var derr error
	err = m.readBoardRows(ctx, taskTable, teamKey(teamID), func(_ string, vals []quad.Value) bool {
		fs, err := taskFields(vals)
		if err != nil {
			derr = err
			return false
		}
		if f.Status != "" && TaskStatus(fs[tfStatus]) != f.Status || f.Assignee != "" && fs[tfAssignee] != f.Assignee {
			return true
		}
		out = append(out, Task{})
		t := &out[len(out)-1]
		if err := setTaskFields(t, teamID, &fs); err != nil {
			derr = err
			return false
		}
		t.IRI = m.ns.Task(teamID, t.ID)
		return true
	})
	if err == nil {
		err = derr
	}
	if err != nil {
		return nil, teamErr(teamID, "list tasks", err)
	}
	if len(out) == 0 {
		return nil, nil // as ever: no tasks is a nil slice
	}
	return out, nil
}

// maxListPrealloc bounds the tasks ListTasks allocates room for before
// reading them (a board's counter says how many there are).
const maxListPrealloc = 1 << 16

// knownTeam fails with ErrUnknownTeam if team id does not exist.
func (m *Manager) knownTeam(ctx context.Context, id string) error {
	if _, found, err := m.n.SideRow(ctx, boardTable, id); err != nil || found {
		return err
	}
	ok, err := m.exists(ctx, id)
	if err == nil && !ok {
		err = fmt.Errorf("team %q: %w", id, unknown(ErrUnknownTeam, id))
	}
	return err
}

// UpdateTask changes fields of unfinished task taskID, by the lead (or by
// its creator, on a board that allows requests). A new blocked_by (pending
// tasks only) must name unfinished tasks of the team and must not close a
// cycle: that fails with a *CycleError naming it. A new assignee other than
// by is a delegation, checked as in CreateTask.
func (m *Manager) UpdateTask(ctx context.Context, teamID, by, taskID string, u TaskUpdate) (_ Task, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	var out Task
	var rules delegationRules
	if u.Assignee != nil {
		if rules, err = m.delegationRules(ctx, teamID, by, *u.Assignee); err != nil {
			return Task{}, taskErr(teamID, taskID, "update task "+IDText(taskID), err)
		}
	}
	err = m.boardWrite(ctx, func(b *boardTx) error {
		st, t, err := b.loadFor(teamID, taskID)
		if err != nil {
			return err
		}
		// A malformed assignee is reported before the update is refused
		// (by whom, or by the task's status).
		if a := u.Assignee; a != nil && *a != "" && !validID(*a) {
			return fmt.Errorf("%w: assignee %q: %w", ErrInvalidTask, *a, unknown(ErrUnknownAgent, *a))
		}
		if !st.isLead(by) && !(st.Settings.AllowRequests && by != "" && by == t.CreatedBy) {
			return notLead(st, by, "update task "+taskID)
		}
		if t.Status.Finished() {
			return &TaskStateError{Team: teamID, Task: taskID, Status: t.Status, Op: "update"}
		}
		old := *t
		if u.Subject != nil {
			t.Subject = strings.TrimSpace(*u.Subject)
		}
		if u.Description != nil {
			t.Description = *u.Description
		}
		if u.Priority != nil {
			t.Priority = *u.Priority
		}
		if u.Assignee != nil {
			if t.Status != TaskPending && *u.Assignee != t.Assignee {
				return &TaskStateError{Team: teamID, Task: taskID, Status: t.Status, Op: "reassign"}
			}
			if *u.Assignee != "" && *u.Assignee != t.Assignee {
				if err := checkAssignable(st, *u.Assignee); err != nil {
					return err
				}
				if err := rules.check(st, teamID, by, *u.Assignee); err != nil {
					return err
				}
			}
			t.Assignee = *u.Assignee
		}
		// The assignee is checked when it changes: a task in review of a
		// member that became the lead since keeps its assignee.
		chk := *t
		if chk.Assignee == old.Assignee {
			chk.Assignee = ""
		}
		if err := checkFields(st, &chk); err != nil {
			return err
		}
		if u.BlockedBy != nil {
			if t.Status != TaskPending {
				return &TaskStateError{Team: teamID, Task: taskID, Status: t.Status, Op: "change blocked_by of"}
			}
			ids := *u.BlockedBy
			if _, err := b.checkBlockers(t, ids); err != nil {
				return err
			}
			cycle, err := b.findCycle(t, ids)
			if err != nil {
				return err
			}
			if cycle != nil {
				return &CycleError{Team: teamID, Cycle: cycle}
			}
			if err := b.relink(t, ids, by); err != nil {
				return err
			}
			t.BlockedBy = slices.Clone(ids)
		}
		t.UpdatedAt = b.now
		if err := b.save(&old, t, TaskChange{Action: ActionUpdated, By: by}); err != nil {
			return err
		}
		out = *t
		return nil
	})
	if err != nil {
		return Task{}, taskErr(teamID, taskID, "update task "+IDText(taskID), err)
	}
	return out, nil
}

// relink moves t's entry in its blockers' Dependents from its current
// blocked_by to ids.
func (b *boardTx) relink(t *Task, ids []string, by string) error {
	for _, id := range t.BlockedBy {
		if slices.Contains(ids, id) {
			continue
		}
		bt, err := b.loadTask(t.Team, id)
		if err != nil {
			return err
		}
		old := *bt
		bt.Dependents = slices.DeleteFunc(slices.Clone(bt.Dependents), func(d string) bool { return d == t.ID })
		if err := b.save(&old, bt, TaskChange{Action: ActionUpdated, By: by, Reason: "no longer blocks " + t.ID}); err != nil {
			return err
		}
	}
	for _, id := range ids {
		if slices.Contains(t.BlockedBy, id) {
			continue
		}
		bt, err := b.loadTask(t.Team, id)
		if err != nil {
			return err
		}
		old := *bt
		bt.Dependents = append(slices.Clone(bt.Dependents), t.ID)
		if err := b.save(&old, bt, TaskChange{Action: ActionUpdated, By: by, Reason: "blocks " + t.ID}); err != nil {
			return err
		}
	}
	return nil
}

// loadFor reads the board and task taskID of team.
func (b *boardTx) loadFor(team, taskID string) (*boardState, *Task, error) {
	st, err := b.loadBoard(team, false)
	if err != nil {
		return nil, nil, err
	}
	t, err := b.loadTask(team, taskID)
	if err != nil {
		return nil, nil, err
	}
	return st, t, nil
}

// ClaimTask gives pending task taskID to member agent: in_progress, with
// its lease starting now. Exactly one of concurrent claims of a task wins
// (the others get a *TaskStateError: it is in_progress). The task must be
// ready (its blockers completed or skipped: else ErrBlocked), not paused,
// and unassigned or assigned to agent (ErrNotAllowed); the lead claims
// only if the board lets it work, and a member whose status is completed
// or failed claims nothing (ErrMemberFinished).
//
// Circuit breaker: a task already claimed or dispatched MaxDispatches times
// fails instead (reason "dispatched N times without completing", or
// "dispatched once ..."), the lead
// is sent an escalation message, and ClaimTask returns the failed task with
// an error matching ErrCircuitOpen.
//
// With BoardSettings.PlanApproval on, no task is claimed before the lead's
// plan is approved (ErrPlanNotApproved); the claimed task carries the plan
// in force (Task.Plan).
func (m *Manager) ClaimTask(ctx context.Context, teamID, agent, taskID string) (_ Task, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	var out Task
	tripped := false
	err = m.boardWrite(ctx, func(b *boardTx) error {
		st, t, err := b.loadFor(teamID, taskID)
		if err != nil {
			return err
		}
		if !st.mayWork(agent) {
			return notWorker(st, agent)
		}
		if t.Status != TaskPending || t.Paused {
			return &TaskStateError{Team: teamID, Task: taskID, Status: t.Status, Paused: t.Paused, Op: "claim"}
		}
		if t.Assignee != "" && t.Assignee != agent {
			return fmt.Errorf("%w: it is assigned to %s, not %s", ErrNotAllowed, t.Assignee, IDText(agent))
		}
		ok, err := b.blockersDone(t)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w by %s", ErrBlocked, strings.Join(t.BlockedBy, ", "))
		}
		tripped, err = b.dispatch(st, t, agent, ActionClaimed)
		out = *t
		return err
	})
	if err != nil {
		return Task{}, taskErr(teamID, taskID, "claim task "+IDText(taskID), err)
	}
	if tripped {
		return out, fmt.Errorf("team %s: claim task %s: %w: %s", IDText(teamID), IDText(taskID), ErrCircuitOpen, out.Error)
	}
	return out, nil
}

func notWorker(st *boardState, agent string) error {
	if !st.isMember(agent) {
		return fmt.Errorf("agent %q: %w", agent, unknown(ErrUnknownAgent, agent))
	}
	if s := st.Finished[agent]; s != "" {
		return fmt.Errorf("member %s is %s: %w", IDText(agent), s, ErrMemberFinished)
	}
	return fmt.Errorf("%w: %s is the lead, and the board does not let the lead work", ErrNotAllowed, IDText(agent))
}

// dispatch gives ready task t to agent (claimed or dispatched), with the
// plan in force in t.Plan, or, past the circuit breaker, fails it and
// escalates; it reports whether the breaker tripped. While the board
// requires an approved plan and none is, it fails with ErrPlanNotApproved
// (plans.go).
func (b *boardTx) dispatch(st *boardState, t *Task, agent, action string) (tripped bool, err error) {
	if err := b.planGate(st, t); err != nil {
		return false, err
	}
	defer func() {
		if err == nil && !tripped {
			t.Plan, err = b.planInForce(st, t.Team)
		}
	}()
	old := *t
	t.UpdatedAt = b.now
	if t.Dispatches >= st.Settings.MaxDispatches {
		t.Status = TaskFailed
		t.Error = fmt.Sprintf("dispatched %s without completing", times(t.Dispatches))
		if err := b.save(&old, t, TaskChange{Action: ActionFailed, Reason: t.Error}); err != nil {
			return false, err
		}
		return true, b.escalate(st, t, "", t.Error)
	}
	t.Status, t.Assignee, t.ClaimedAt = TaskInProgress, agent, b.now
	t.Dispatches++
	by := agent
	if action == ActionDispatched {
		by = ""
	}
	return false, b.save(&old, t, TaskChange{Action: action, By: by})
}

// times returns "once", "2 times", ...
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return strconv.Itoa(n) + " times"
}

// escalate tells the lead that t failed (reason), naming who reported it,
// the dependents it holds back and how to go on. With no lead, nothing is
// sent.
func (b *boardTx) escalate(st *boardState, t *Task, from, reason string) error {
	if st.Settings.Lead == "" {
		return nil
	}
	var body strings.Builder
	fmt.Fprintf(&body, "task %s (%s) failed", t.ID, t.Subject)
	if from != "" {
		fmt.Fprintf(&body, "; reported by %s", from)
	}
	fmt.Fprintf(&body, ": %s.", reason)
	if len(t.Dependents) > 0 {
		fmt.Fprintf(&body, " Its dependents %s stay blocked.", strings.Join(t.Dependents, ", "))
	}
	fmt.Fprintf(&body, " Retry it (cortexctl tasks retry %s %s) or skip it (cortexctl tasks skip %s %s).", t.Team, t.ID, t.Team, t.ID)
	_, err := b.send(st, t.Team, from, OutMessage{Type: MsgStatus, To: []string{st.Settings.Lead},
		Subject: "escalation: task " + t.ID + " failed", Body: body.String(), Task: t.ID}, true)
	return err
}

// ClaimNext claims for agent the ready task with the highest priority (then
// the lowest id) that is unassigned or assigned to agent: the swarm's
// self-claim. It fails with ErrNoReadyTask when there is none. A task past
// the circuit breaker fails as in ClaimTask, and the search goes on; its
// failure is written even if the call then ends with ErrNoReadyTask.
func (m *Manager) ClaimNext(ctx context.Context, teamID, agent string) (_ Task, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	var out Task
	none := false // no ready task left after some tripped the breaker
	err = m.boardWrite(ctx, func(b *boardTx) error {
		none = false
		st, err := b.loadBoard(teamID, false)
		if err != nil {
			return err
		}
		if !st.mayWork(agent) {
			return notWorker(st, agent)
		}
		tripped := false
		for {
			var pick string
			err := b.scan(readyTable, teamKey(teamID), func(key string, vals []quad.Value) bool {
				if a, _ := vals[0].(quad.String); a == "" || string(a) == agent {
					pick = key
					return false
				}
				return true
			})
			if err != nil {
				return err
			}
			if pick == "" {
				if tripped {
					// The tasks that tripped the breaker failed, as in
					// ClaimTask: keep that write, and report no task.
					none = true
					return nil
				}
				return ErrNoReadyTask
			}
			t, err := b.loadTask(teamID, taskID(numOfReadyKey(pick)))
			if err != nil {
				return err
			}
			tr, err := b.dispatch(st, t, agent, ActionClaimed)
			if err != nil {
				return err
			}
			if !tr {
				out = *t
				return nil
			}
			tripped = true
		}
	})
	if err == nil && none {
		err = ErrNoReadyTask
	}
	if err != nil {
		return Task{}, agentErr(teamID, agent, "claim next for "+IDText(agent), "claim next", err)
	}
	return out, nil
}

func numOfReadyKey(key string) int {
	i := strings.LastIndexByte(key, ' ')
	n := 0
	for _, c := range key[i+1:] {
		n = n*10 + int(c-'0')
	}
	return n
}

// ProgressTask records progress of agent on its in_progress task: the
// lease starts again (and note, if not blank, is kept as a note comment).
func (m *Manager) ProgressTask(ctx context.Context, teamID, agent, taskID, note string) (_ Task, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	var out Task
	err = m.boardWrite(ctx, func(b *boardTx) error {
		st, t, err := b.loadFor(teamID, taskID)
		if err != nil {
			return err
		}
		if !st.isMember(agent) {
			return notMember(agent)
		}
		if err := isAssignee(t, agent, TaskInProgress, "report progress on"); err != nil {
			return err
		}
		old := *t
		t.UpdatedAt = b.now
		if strings.TrimSpace(note) != "" { // (a blank note is no comment)
			if _, err := b.comment(t, agent, CommentNote, note); err != nil {
				return err
			}
		}
		if err := b.save(&old, t, TaskChange{Action: ActionProgress, By: agent, Reason: note}); err != nil {
			return err
		}
		out = *t
		return nil
	})
	if err != nil {
		return Task{}, taskErr(teamID, taskID, "progress on task "+IDText(taskID), err)
	}
	return out, nil
}

func isAssignee(t *Task, agent string, want TaskStatus, op string) error {
	if t.Status != want {
		return &TaskStateError{Team: t.Team, Task: t.ID, Status: t.Status, Paused: t.Paused, Op: op}
	}
	if t.Assignee != agent {
		return fmt.Errorf("%w: task %s is %s's, not %s's", ErrNotAllowed, t.ID, t.Assignee, IDText(agent))
	}
	return nil
}

// CompleteTask submits agent's result of its in_progress task. With
// RequireReview (the default) the task goes to in_review and the lead is
// sent a request_approval message; otherwise it completes, and its
// dependents whose blockers are all done become ready. A task of the lead
// itself (on a board that lets the lead work), or of a board without a
// lead, completes too: no one else reviews it.
func (m *Manager) CompleteTask(ctx context.Context, teamID, agent, taskID, result string) (_ Task, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	var out Task
	err = m.boardWrite(ctx, func(b *boardTx) error {
		t, err := b.completeTask(teamID, agent, taskID, result)
		if err != nil {
			return err
		}
		out = *t
		return nil
	})
	if err != nil {
		return Task{}, taskErr(teamID, taskID, "complete task "+IDText(taskID), err)
	}
	return out, nil
}

// completeTask submits agent's result of its task taskID (CompleteTask).
func (b *boardTx) completeTask(teamID, agent, taskID, result string) (*Task, error) {
	st, t, err := b.loadFor(teamID, taskID)
	if err != nil {
		return nil, err
	}
	if !st.isMember(agent) {
		return nil, notMember(agent)
	}
	if t.Paused {
		return nil, &TaskStateError{Team: teamID, Task: taskID, Status: t.Status, Paused: true, Op: "complete"}
	}
	if err := isAssignee(t, agent, TaskInProgress, "complete"); err != nil {
		return nil, err
	}
	old := *t
	t.Result, t.UpdatedAt = result, b.now
	if st.Settings.RequireReview && st.Settings.Lead != "" && agent != st.Settings.Lead {
		t.Status = TaskInReview
		if err := b.save(&old, t, TaskChange{Action: ActionSubmitted, By: agent}); err != nil {
			return nil, err
		}
		if _, err := b.send(st, teamID, agent, OutMessage{Type: MsgRequestApproval, To: []string{st.Settings.Lead},
			Subject: "review task " + t.ID + ": " + t.Subject, Body: result, Task: t.ID}, true); err != nil {
			return nil, err
		}
	} else {
		t.Status = TaskCompleted
		if err := b.save(&old, t, TaskChange{Action: ActionCompleted, By: agent}); err != nil {
			return nil, err
		}
		if err := b.refreshDependents(t); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// ReviewTask is the lead's verdict on a task in_review. Approve: the task
// completes (ReviewedBy, ReviewedAt set) and its dependents become ready
// once all their blockers are done; the member is sent an approval
// message. Reject: the task goes back to its member, in_progress with a
// fresh lease, feedback kept in Feedback and as a note comment; the member
// is sent a rejection message. (If that member is finished meanwhile, or
// is the lead now of a board that does not let the lead work, the
// rejected task goes back to pending, unassigned, feedback kept.)
// Rejecting needs feedback (ErrInvalidTask).
func (m *Manager) ReviewTask(ctx context.Context, teamID, lead, taskID string, approve bool, feedback string) (_ Task, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	var out Task
	err = m.boardWrite(ctx, func(b *boardTx) error {
		t, err := b.reviewTask(teamID, lead, taskID, approve, feedback)
		if err == nil {
			out = *t
		}
		return err
	})
	if err != nil {
		return Task{}, taskErr(teamID, taskID, "review task "+IDText(taskID), err)
	}
	return out, nil
}

// reviewTask is ReviewTask's write.
func (b *boardTx) reviewTask(teamID, lead, taskID string, approve bool, feedback string) (*Task, error) {
	st, t, err := b.loadFor(teamID, taskID)
	if err != nil {
		return nil, err
	}
	if !st.isLead(lead) {
		return nil, notLead(st, lead, "review a task")
	}
	if t.Status != TaskInReview {
		return nil, &TaskStateError{Team: teamID, Task: taskID, Status: t.Status, Paused: t.Paused, Op: "review"}
	}
	if !approve && strings.TrimSpace(feedback) == "" {
		return nil, errorf(ErrInvalidTask, "a rejection needs feedback")
	}
	old := *t
	t.UpdatedAt = b.now
	msg := OutMessage{To: []string{t.Assignee}, Body: feedback, Task: t.ID}
	if approve {
		t.Status, t.ReviewedBy, t.ReviewedAt = TaskCompleted, lead, b.now
		if err := b.save(&old, t, TaskChange{Action: ActionApproved, By: lead, Reason: feedback}); err != nil {
			return nil, err
		}
		if err := b.refreshDependents(t); err != nil {
			return nil, err
		}
		msg.Type, msg.Subject = MsgApproval, "task "+t.ID+" approved"
	} else {
		t.Status, t.Feedback, t.ClaimedAt = TaskInProgress, feedback, b.now
		if st.Finished[t.Assignee] != "" || st.leadIdle(t.Assignee) {
			// Its member is finished, or is the lead now and may not
			// work: the task goes back to the queue, for any member.
			t.Status, t.Assignee = TaskPending, ""
		}
		if _, err := b.comment(t, lead, CommentNote, "review: "+feedback); err != nil {
			return nil, err
		}
		if err := b.save(&old, t, TaskChange{Action: ActionRejected, By: lead, Reason: feedback}); err != nil {
			return nil, err
		}
		msg.Type, msg.Subject = MsgRejection, "task "+t.ID+" rejected"
	}
	if _, err := b.send(st, teamID, lead, msg, true); err != nil {
		return nil, err
	}
	return t, nil
}

// FailTask fails agent's in_progress task with reason (required); the lead
// is sent an escalation. Its dependents stay blocked: a failed or
// cancelled blocker holds its dependents back until the lead retries it
// (RetryTask) or skips it (SkipTask) — unlike GoClaw, which unblocks them.
// A paused task may be failed too; failed, it is no longer paused.
func (m *Manager) FailTask(ctx context.Context, teamID, agent, taskID, reason string) (_ Task, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	var out Task
	err = m.boardWrite(ctx, func(b *boardTx) error {
		st, t, err := b.loadFor(teamID, taskID)
		if err != nil {
			return err
		}
		if !st.isMember(agent) {
			return notMember(agent)
		}
		if err := isAssignee(t, agent, TaskInProgress, "fail"); err != nil {
			return err
		}
		if strings.TrimSpace(reason) == "" {
			return errorf(ErrInvalidTask, "a failure needs a reason")
		}
		if err := b.fail(st, t, agent, reason); err != nil {
			return err
		}
		out = *t
		return nil
	})
	if err != nil {
		return Task{}, taskErr(teamID, taskID, "fail task "+IDText(taskID), err)
	}
	return out, nil
}

func (b *boardTx) fail(st *boardState, t *Task, by, reason string) error {
	old := *t
	// A finished task is not paused (as CancelTask and SkipTask do): a
	// retry makes it pending and claimable.
	t.Status, t.Error, t.UpdatedAt, t.Paused = TaskFailed, reason, b.now, false
	if err := b.save(&old, t, TaskChange{Action: ActionFailed, By: by, Reason: reason}); err != nil {
		return err
	}
	return b.escalate(st, t, by, reason)
}

// CancelTask cancels an unfinished task, by the lead. Its dependents stay
// blocked (see FailTask); SkipTask cancels and lets them go ahead.
func (m *Manager) CancelTask(ctx context.Context, teamID, lead, taskID, reason string) (Task, error) {
	return m.control(ctx, teamID, lead, taskID, ActionCancelled, reason)
}

// PauseTask pauses a pending or in_progress task, by the lead: it is not
// claimed, dispatched or completed, and its lease does not run out, until
// ResumeTask. (The Rust teams module's teams.task.pause.)
func (m *Manager) PauseTask(ctx context.Context, teamID, lead, taskID string) (Task, error) {
	return m.control(ctx, teamID, lead, taskID, ActionPaused, "")
}

// ResumeTask resumes a paused task, by the lead; an in_progress task's
// lease starts again.
func (m *Manager) ResumeTask(ctx context.Context, teamID, lead, taskID string) (Task, error) {
	return m.control(ctx, teamID, lead, taskID, ActionResumed, "")
}

// RetryTask puts a failed or cancelled (not skipped) task back to pending,
// by the lead, with its dispatch count reset (the circuit breaker starts
// again), its assignee, result and feedback kept and its error cleared.
// An assignee whose status is completed or failed, or that is the lead
// now of a board that does not let the lead work, is not kept: the task
// is unassigned, for any member (as that member's pending tasks were when
// it finished or became the lead).
func (m *Manager) RetryTask(ctx context.Context, teamID, lead, taskID string) (Task, error) {
	return m.control(ctx, teamID, lead, taskID, ActionRetried, "")
}

// SkipTask cancels a task that is not completed (pending, in_progress,
// in_review, failed or cancelled), by the lead, marking it skipped: its
// dependents go ahead as if it had completed.
func (m *Manager) SkipTask(ctx context.Context, teamID, lead, taskID, reason string) (Task, error) {
	return m.control(ctx, teamID, lead, taskID, ActionSkipped, reason)
}

// control runs the lead's task controls.
func (m *Manager) control(ctx context.Context, teamID, lead, taskID, action, reason string) (_ Task, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	var out Task
	err = m.boardWrite(ctx, func(b *boardTx) error {
		t, err := b.control(teamID, lead, taskID, action, reason)
		if err == nil {
			out = *t
		}
		return err
	})
	if err != nil {
		return Task{}, taskErr(teamID, taskID, verb(action)+" task "+IDText(taskID), err)
	}
	return out, nil
}

// control is the write of the lead's task controls (Manager.control).
func (b *boardTx) control(teamID, lead, taskID, action, reason string) (*Task, error) {
	st, t, err := b.loadFor(teamID, taskID)
	if err != nil {
		return nil, err
	}
	if !st.isLead(lead) {
		return nil, notLead(st, lead, verb(action)+" a task")
	}
	refused := func() error {
		return &TaskStateError{Team: teamID, Task: taskID, Status: t.Status, Paused: t.Paused, Op: verb(action)}
	}
	old := *t
	t.UpdatedAt = b.now
	unblocks := false
	switch action {
	case ActionCancelled:
		if t.Status.Finished() {
			return nil, refused()
		}
		t.Status, t.Error, t.Paused = TaskCancelled, reason, false
	case ActionSkipped:
		if t.Status == TaskCompleted || t.Skipped {
			return nil, refused()
		}
		t.Status, t.Skipped, t.Paused = TaskCancelled, true, false
		t.Error = "skipped"
		if reason != "" {
			t.Error += ": " + reason
		}
		unblocks = true
	case ActionPaused:
		if t.Paused || t.Status != TaskPending && t.Status != TaskInProgress {
			return nil, refused()
		}
		t.Paused = true
	case ActionResumed:
		if !t.Paused {
			return nil, refused()
		}
		t.Paused = false
	case ActionRetried:
		if t.Status != TaskFailed && !(t.Status == TaskCancelled && !t.Skipped) {
			return nil, refused()
		}
		t.Status, t.Error, t.Dispatches = TaskPending, "", 0
		if st.Finished[t.Assignee] != "" || st.leadIdle(t.Assignee) {
			// Its member is finished and takes no more tasks (or is
			// the lead now, of a board that does not let the lead
			// work): the task goes to any member, as that member's
			// pending tasks did when it finished.
			t.Assignee = ""
		}
	}
	if err := b.save(&old, t, TaskChange{Action: action, By: lead, Reason: reason}); err != nil {
		return nil, err
	}
	if unblocks {
		if err := b.refreshDependents(t); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func verb(action string) string {
	switch action {
	case ActionCancelled:
		return "cancel"
	case ActionSkipped:
		return "skip"
	case ActionPaused:
		return "pause"
	case ActionResumed:
		return "resume"
	case ActionRetried:
		return "retry"
	}
	return action
}

// AddTaskComment adds a comment by agent (a member) to task taskID. A
// blocker comment (kind CommentBlocker) is the assignee's way to say it is
// stuck: the in_progress task fails with the comment as its reason and the
// lead is sent an escalation message (member, task, reason, how to retry).
// A note on an in_progress task by its assignee counts as progress (the
// lease starts again).
func (m *Manager) AddTaskComment(ctx context.Context, teamID, agent, taskID string, kind CommentKind, text string) (_ TaskComment, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	var out TaskComment
	err = m.boardWrite(ctx, func(b *boardTx) error {
		st, t, err := b.loadFor(teamID, taskID)
		if err != nil {
			return err
		}
		if !st.isMember(agent) {
			return fmt.Errorf("agent %q: %w", agent, unknown(ErrUnknownAgent, agent))
		}
		if strings.TrimSpace(text) == "" {
			return errorf(ErrInvalidTask, "empty comment")
		}
		old := *t
		switch kind {
		case CommentNote:
		case CommentBlocker:
			if err := isAssignee(t, agent, TaskInProgress, "post a blocker on"); err != nil {
				return err
			}
		default:
			return errorf(ErrInvalidTask, "comment kind %q (want note or blocker)", kind)
		}
		c, err := b.comment(t, agent, kind, text)
		if err != nil {
			return err
		}
		out = c
		if kind == CommentBlocker {
			return b.fail(st, t, agent, "blocked: "+text)
		}
		if t.Status == TaskInProgress && t.Assignee == agent {
			t.UpdatedAt = b.now
		}
		return b.save(&old, t, TaskChange{Action: ActionCommented, By: agent, Reason: text})
	})
	if err != nil {
		return TaskComment{}, taskErr(teamID, taskID, "comment on task "+IDText(taskID), err)
	}
	return out, nil
}

// comment stages comment c on t (t's counter moves; the caller saves t).
func (b *boardTx) comment(t *Task, agent string, kind CommentKind, text string) (TaskComment, error) {
	if err := checkText(ErrInvalidTask, "comment", text); err != nil {
		return TaskComment{}, err
	}
	n, _ := taskNum(t.ID)
	t.comments++
	c := TaskComment{ID: fmt.Sprintf("%s.c%d", t.ID, t.comments), Task: t.ID, Kind: kind, Author: agent, Text: text, CreatedAt: b.now}
	j, err := json.Marshal(c)
	if err != nil {
		return c, err
	}
	b.put(commentTable, subKey(t.Team, n, t.comments), []quad.Value{quad.String(j)})
	b.addQuads(b.m.commentQuads(t.Team, c)...)
	return c, nil
}

// TaskComments returns the comments of task taskID, oldest first.
func (m *Manager) TaskComments(ctx context.Context, teamID, taskID string) (_ []TaskComment, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	return readTaskSubs[TaskComment](ctx, m, teamID, taskID, commentTable)
}

// TaskHistory returns the changes of task taskID, oldest first: every
// transition and update (Task nil in each), as its events recorded them.
// Unlike the event stream, a task's history is not trimmed by the events'
// retention; it goes with its team.
func (m *Manager) TaskHistory(ctx context.Context, teamID, taskID string) (_ []TaskChange, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	return readTaskSubs[TaskChange](ctx, m, teamID, taskID, histTable)
}

// readTaskSubs returns the rows of task taskID in table (comments or
// history), each a JSON T, oldest first.
func readTaskSubs[T any](ctx context.Context, m *Manager, teamID, taskID, table string) ([]T, error) {
	var out []T
	err := m.readTaskSub(ctx, teamID, taskID, table, func(j []byte) error {
		var v T
		if err := json.Unmarshal(j, &v); err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

func (m *Manager) readTaskSub(ctx context.Context, teamID, taskID, table string, fn func([]byte) error) error {
	if _, err := m.GetTask(ctx, teamID, taskID); err != nil {
		return err
	}
	n, _ := taskNum(taskID)
	var ferr error
	err := m.readBoardRows(ctx, table, taskKey(teamID, n)+" ", func(_ string, vals []quad.Value) bool {
		s, _ := vals[0].(quad.String)
		ferr = fn([]byte(s))
		return ferr == nil
	})
	if err == nil {
		err = ferr
	}
	if err != nil {
		return taskErr(teamID, taskID, "task "+IDText(taskID), err)
	}
	return nil
}
