package teammanager_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestManager_ApplyBoardOps: a lead's operations are one atomic write.
// Applied, each operation sees what the ones before it wrote (a ref of a
// task created earlier in the call resolves, in blocked_by and as the
// task of a control); when any is refused — the last one, one in the
// middle, a ref not created yet, the write check, an ended context — the
// call writes nothing: the store (quads, board rows, events) is exactly
// as before, and the error names the operation and matches the single
// call's.
func TestManager_ApplyBoardOps(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{RequireReview: true})
	mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "review me", Assignee: "a"}) // T1
	mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "fails", Assignee: "b"})     // T2
	for _, step := range []func() error{
		func() error { _, err := f.m.ClaimTask(ctx, team, "a", "T1"); return err },
		func() error { _, err := f.m.CompleteTask(ctx, team, "a", "T1", "done"); return err },
		func() error { _, err := f.m.ClaimTask(ctx, team, "b", "T2"); return err },
		func() error { _, err := f.m.FailTask(ctx, team, "b", "T2", "broke"); return err },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	good := func() []teammanager.BoardOp {
		return []teammanager.BoardOp{
			{Op: teammanager.BoardOpCreate, Ref: "build", New: teammanager.NewTask{Subject: "build", Assignee: "a"}},
			{Op: teammanager.BoardOpCreate, Ref: "test", New: teammanager.NewTask{Subject: "test", Assignee: "c", BlockedBy: []string{"build", "T1"}}},
			{Op: teammanager.BoardOpApprove, Task: "T1", Feedback: "good"},
			{Op: teammanager.BoardOpRetry, Task: "T2"},
			{Op: teammanager.BoardOpPlan, Plan: teammanager.NewPlan{Title: "ship", Steps: []teammanager.PlanStep{{Title: "build"}}}},
		}
	}
	errFence := errors.New("the driver lost its run")
	ended, cancel := context.WithCancel(ctx)
	cancel()
	for _, tc := range []struct {
		name  string
		ctx   context.Context
		lead  string
		edit  func(ops []teammanager.BoardOp) []teammanager.BoardOp
		want  error
		index int // the operation refused (-1: none in particular)
	}{
		{name: "last refused: approve a failed task", want: teammanager.ErrTaskState, index: 5,
			edit: func(ops []teammanager.BoardOp) []teammanager.BoardOp {
				return append(ops, teammanager.BoardOp{Op: teammanager.BoardOpApprove, Task: "T2"})
			}},
		{name: "last refused: unknown task", want: teammanager.ErrUnknownTask, index: 5,
			edit: func(ops []teammanager.BoardOp) []teammanager.BoardOp {
				return append(ops, teammanager.BoardOp{Op: teammanager.BoardOpCancel, Task: "T99"})
			}},
		{name: "middle refused: retry a task approved before it", want: teammanager.ErrTaskState, index: 3,
			edit: func(ops []teammanager.BoardOp) []teammanager.BoardOp { ops[3].Task = "T1"; return ops }},
		{name: "ref before its create", want: teammanager.ErrInvalidTask, index: 0,
			edit: func(ops []teammanager.BoardOp) []teammanager.BoardOp {
				ops[0].New.BlockedBy = []string{"test"}
				return ops
			}},
		{name: "ref is a task id", want: teammanager.ErrInvalidTask, index: 1,
			edit: func(ops []teammanager.BoardOp) []teammanager.BoardOp { ops[1].Ref = "T2"; return ops }},
		{name: "ref given twice", want: teammanager.ErrInvalidTask, index: 1,
			edit: func(ops []teammanager.BoardOp) []teammanager.BoardOp { ops[1].Ref = "build"; return ops }},
		{name: "plan without steps", want: teammanager.ErrInvalidPlan, index: 4,
			edit: func(ops []teammanager.BoardOp) []teammanager.BoardOp { ops[4].Plan.Steps = nil; return ops }},
		{name: "unknown operation", want: teammanager.ErrInvalidTask, index: 2,
			edit: func(ops []teammanager.BoardOp) []teammanager.BoardOp { ops[2].Op = "bless"; return ops }},
		{name: "not the lead", lead: "a", want: teammanager.ErrNotAllowed, index: 0},
		{name: "write check refuses", ctx: teammanager.WithWriteCheck(ctx, func(context.Context, *cortex.Tx) error { return errFence }), want: errFence, index: -1},
		{name: "context ended", ctx: ended, want: context.Canceled, index: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, lead, ops := ctx, "lead", good()
			if tc.ctx != nil {
				c = tc.ctx
			}
			if tc.lead != "" {
				lead = tc.lead
			}
			if tc.edit != nil {
				ops = tc.edit(ops)
			}
			before := storeDump(t, f)
			_, err := f.m.ApplyBoardOps(c, team, lead, ops)
			if !errors.Is(err, tc.want) {
				t.Fatalf("ApplyBoardOps: %v, want %v", err, tc.want)
			}
			var oe *teammanager.BoardOpError
			if tc.index >= 0 && (!errors.As(err, &oe) || oe.Index != tc.index) {
				t.Fatalf("ApplyBoardOps: %v, want the refusal of operation %d", err, tc.index+1)
			}
			if after := storeDump(t, f); after != before {
				t.Fatalf("a refused ApplyBoardOps wrote:\nbefore:\n%s\nafter:\n%s", before, after)
			}
			if err := f.n.Check(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}

	res, err := f.m.ApplyBoardOps(ctx, team, "lead", good())
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 5 || res[0].Task == nil || res[0].Task.ID != "T3" || !slices.Equal(res[0].Task.Dependents, []string{"T4"}) ||
		res[1].Task == nil || res[1].Task.ID != "T4" || !slices.Equal(res[1].Task.BlockedBy, []string{"T3", "T1"}) || res[1].Task.CreatedBy != "lead" ||
		res[2].Task == nil || res[2].Task.Status != teammanager.TaskCompleted ||
		res[3].Task == nil || res[3].Task.Status != teammanager.TaskPending ||
		res[4].Plan == nil || res[4].Plan.State != teammanager.PlanPendingReview {
		t.Fatalf("ApplyBoardOps = %+v", res)
	}
	// A ref names its task for a control too; cancel_open cancels every
	// task still open, those of the call included.
	res, err = f.m.ApplyBoardOps(ctx, team, "lead", []teammanager.BoardOp{
		{Op: teammanager.BoardOpCreate, Ref: "extra", New: teammanager.NewTask{Subject: "extra"}},
		{Op: teammanager.BoardOpSkip, Task: "extra", Reason: "not needed"},
		{Op: teammanager.BoardOpCreate, New: teammanager.NewTask{Subject: "last"}},
		{Op: teammanager.BoardOpCancelOpen, Reason: "the lead ended the run"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res[1].Task == nil || res[1].Task.ID != "T5" || !res[1].Task.Skipped || !slices.Equal(taskIDs(res[3].Cancelled), []string{"T2", "T3", "T4", "T6"}) {
		t.Fatalf("ApplyBoardOps = %+v", res)
	}
	tasks, err := f.m.ListTasks(ctx, team, teammanager.TaskFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		if !task.Status.Finished() {
			t.Errorf("task %s %s after cancel_open", task.ID, task.Status)
		}
	}
	if err := f.n.Check(ctx); err != nil {
		t.Fatal(err)
	}
}
