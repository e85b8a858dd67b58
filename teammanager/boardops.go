package teammanager

import (
	"context"
	"fmt"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/internal/ctxcause"
)

// Lead operations of ApplyBoardOps (BoardOp.Op).
const (
	BoardOpCreate     = "create"      // CreateTask: New; Ref names the task for the operations after it
	BoardOpApprove    = "approve"     // ReviewTask, approving: Task, Feedback
	BoardOpReject     = "reject"      // ReviewTask, rejecting: Task, Feedback (required)
	BoardOpRetry      = "retry"       // RetryTask: Task
	BoardOpSkip       = "skip"        // SkipTask: Task, Reason
	BoardOpCancel     = "cancel"      // CancelTask: Task, Reason
	BoardOpCancelOpen = "cancel_open" // CancelTask of every unfinished task of the board at that point: Reason
	BoardOpPlan       = "plan"        // DraftPlan with Submit (drafted and submitted): Plan
)

// BoardOp is one operation of a lead's ApplyBoardOps: what one of the
// lead's board calls does (see the BoardOp* constants for which fields
// each operation reads).
type BoardOp struct {
	Op string
	// Ref, on a create, names the created task for the operations after
	// it in the same call, whose ids are not known before the write: a
	// later BlockedBy entry or Task that is Ref names that task. A ref is
	// not the id of a task of the board, nor another operation's ref.
	Ref      string
	New      NewTask // create (the task is created by the lead)
	Task     string  // approve, reject, retry, skip, cancel: a task id, or a ref of an earlier create
	Feedback string  // approve, reject
	Reason   string  // skip, cancel, cancel_open
	Plan     NewPlan // plan (submitted in the same write, whatever Plan.Submit says)
}

// BoardOpResult is what one operation of ApplyBoardOps wrote: the task it
// created or changed (create, approve, reject, retry, skip, cancel), the
// tasks it cancelled (cancel_open) or the plan revision it drafted and
// submitted (plan), as the single call would return them.
type BoardOpResult struct {
	Op        string
	Task      *Task
	Cancelled []Task
	Plan      *Plan
}

// BoardOpError is the refusal of one operation of ApplyBoardOps: Index
// (from 0) and Op name it, Err is the error the single call would return
// (ErrNotAllowed, a *TaskStateError, ErrUnknownTask, ErrInvalidPlan ...),
// which it unwraps to.
type BoardOpError struct {
	Index int
	Op    string
	Err   error
}

func (e *BoardOpError) Error() string {
	return fmt.Sprintf("operation %d (%s): %v", e.Index+1, e.Op, e.Err)
}

func (e *BoardOpError) Unwrap() error { return e.Err }

// ApplyBoardOps applies ops, the operations of one turn of agent lead on
// team teamID's board (a task's review and controls, and the plan, need
// the board's lead; a create follows CreateTask's rules), in order, in
// one atomic write:
// either every operation is written, or, if one is refused, none is, and
// the error is a *BoardOpError naming the operation, wrapping the error
// the single call (CreateTask, ReviewTask, RetryTask, SkipTask,
// CancelTask, DraftPlan) would have returned. Each operation sees the
// board as the operations before it left it, and has the contract of its
// single call (its checks, its events, its messages); a task created by
// the call may be named by the operations after it through its BoardOp.Ref.
// The check of ctx (WithWriteCheck) runs once, in the write: a driver
// that no longer holds its run writes nothing of the turn. It returns
// one result per operation, in order.
func (m *Manager) ApplyBoardOps(ctx context.Context, teamID, lead string, ops []BoardOp) (_ []BoardOpResult, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	fail := func(err error) ([]BoardOpResult, error) {
		return nil, fmt.Errorf("team %s: apply board operations: %w", IDText(teamID), err)
	}
	// What can be checked without the board is checked first, every
	// operation, before the write.
	refs := map[string]bool{}
	assignees := []string{lead}
	for i, op := range ops {
		bad := func(format string, a ...any) error {
			return &BoardOpError{Index: i, Op: op.Op, Err: fmt.Errorf(format, a...)}
		}
		switch op.Op {
		case BoardOpCreate:
			if op.Ref != "" {
				if refs[op.Ref] || strings.TrimSpace(op.Ref) == "" {
					return fail(bad("%w: ref %q is given twice, or blank", ErrInvalidTask, op.Ref))
				}
				refs[op.Ref] = true
			}
			assignees = append(assignees, op.New.Assignee)
		case BoardOpApprove, BoardOpReject, BoardOpRetry, BoardOpSkip, BoardOpCancel:
			if op.Task == "" {
				return fail(bad("%w: task is required", ErrInvalidTask))
			}
		case BoardOpCancelOpen:
		case BoardOpPlan:
			if err := op.Plan.validate(); err != nil {
				return fail(bad("%w", err))
			}
		default:
			return fail(bad("%w: unknown operation %q (want %s, %s, %s, %s, %s, %s, %s or %s)", ErrInvalidTask, op.Op,
				BoardOpCreate, BoardOpApprove, BoardOpReject, BoardOpRetry, BoardOpSkip, BoardOpCancel, BoardOpCancelOpen, BoardOpPlan))
		}
	}
	rules, err := m.delegationRules(ctx, teamID, assignees...)
	if err != nil {
		return fail(err)
	}
	var out []BoardOpResult
	err = m.boardWrite(ctx, func(b *boardTx) error {
		out = make([]BoardOpResult, 0, len(ops))
		ids := map[string]string{} // ref → the id of the task created under it
		for i, op := range ops {
			res, err := b.applyBoardOp(teamID, lead, op, ids, rules)
			if err != nil {
				return &BoardOpError{Index: i, Op: op.Op, Err: err}
			}
			out = append(out, res)
		}
		// As written: a task that a later operation changed (a blocker
		// given a dependent, a task cancelled) is returned as it ended.
		for i := range out {
			if t := out[i].Task; t != nil {
				lt, err := b.loadTask(teamID, t.ID)
				if err != nil {
					return err
				}
				out[i].Task = lt
			}
		}
		return nil
	})
	if err != nil {
		return fail(err)
	}
	return out, nil
}

// applyBoardOp applies op in b (ApplyBoardOps); ids maps the refs of the
// tasks created so far to their ids.
func (b *boardTx) applyBoardOp(teamID, lead string, op BoardOp, ids map[string]string, rules delegationRules) (BoardOpResult, error) {
	res := BoardOpResult{Op: op.Op}
	id := func(s string) string {
		if v, ok := ids[s]; ok {
			return v
		}
		return s
	}
	var (
		t   *Task
		err error
	)
	switch op.Op {
	case BoardOpCreate:
		if op.Ref != "" {
			if _, err := b.loadTask(teamID, op.Ref); err == nil {
				return res, fmt.Errorf("%w: ref %q is the id of a task of the board", ErrInvalidTask, op.Ref)
			}
		}
		nt := op.New
		if len(nt.BlockedBy) > 0 {
			nt.BlockedBy = make([]string, len(op.New.BlockedBy))
			for i, bid := range op.New.BlockedBy {
				nt.BlockedBy[i] = id(bid)
			}
		}
		if t, err = b.createTask(teamID, lead, nt, rules); err == nil && op.Ref != "" {
			ids[op.Ref] = t.ID
		}
	case BoardOpApprove, BoardOpReject:
		t, err = b.reviewTask(teamID, lead, id(op.Task), op.Op == BoardOpApprove, op.Feedback)
	case BoardOpRetry:
		t, err = b.control(teamID, lead, id(op.Task), ActionRetried, "")
	case BoardOpSkip:
		t, err = b.control(teamID, lead, id(op.Task), ActionSkipped, op.Reason)
	case BoardOpCancel:
		t, err = b.control(teamID, lead, id(op.Task), ActionCancelled, op.Reason)
	case BoardOpCancelOpen:
		res.Cancelled, err = b.cancelOpen(teamID, lead, op.Reason)
	case BoardOpPlan:
		np := op.Plan
		np.Submit = true
		res.Plan, err = b.draftPlan(teamID, lead, np)
	}
	if err != nil {
		return res, err
	}
	res.Task = t
	return res, nil
}

// cancelOpen cancels every unfinished task of team teamID's board, by
// lead, for reason, and returns them, cancelled, in id order.
func (b *boardTx) cancelOpen(teamID, lead, reason string) ([]Task, error) {
	st, err := b.loadBoard(teamID, false)
	if err != nil {
		return nil, err
	}
	if !st.isLead(lead) {
		return nil, notLead(st, lead, "cancel a task")
	}
	var open []string
	var derr error
	if err := b.scan(taskTable, teamKey(teamID), func(_ string, vals []quad.Value) bool {
		fs, err := taskFields(vals)
		if err != nil {
			derr = err
			return false
		}
		if !TaskStatus(fs[tfStatus]).Finished() {
			open = append(open, fs[tfID])
		}
		return true
	}); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, derr
	}
	var out []Task
	for _, id := range open {
		t, err := b.control(teamID, lead, id, ActionCancelled, reason)
		if err != nil {
			return nil, fmt.Errorf("cancel %s: %w", id, err)
		}
		out = append(out, *t)
	}
	return out, nil
}
