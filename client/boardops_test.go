package client_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestApplyBoardOps: a lead's turn (ApplyBoardOps) is one atomic write
// through a server as in process: an operation the board refuses after
// two that it would take writes nothing (no task created, the task in
// review still in review), with the same error (text, sentinel, exit
// code) embedded and remote; applied, a ref names its task for the later
// operations (a blocked_by, the task of a skip), and the results are the
// tasks and the plan as written.
func TestApplyBoardOps(t *testing.T) {
	errs := map[string]string{}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			tm := b.open(t)
			ms := append([]teammanager.MemberConfig{{AgentID: "lead", Role: "lead"}}, members("a", "b")...)
			create(t, tm, teammanager.TeamConfig{ID: "t", Name: "n", Members: ms, Timeout: -1})
			if _, err := tm.ConfigureBoard(ctx, "t", teammanager.BoardSettings{RequireReview: true}); err != nil {
				t.Fatal(err)
			}
			if _, err := tm.CreateTask(ctx, "t", "lead", teammanager.NewTask{Subject: "review me", Assignee: "a"}); err != nil {
				t.Fatal(err)
			}
			if _, err := tm.ClaimTask(ctx, "t", "a", "T1"); err != nil {
				t.Fatal(err)
			}
			if _, err := tm.CompleteTask(ctx, "t", "a", "T1", "done"); err != nil {
				t.Fatal(err)
			}
			turn := []teammanager.BoardOp{
				{Op: teammanager.BoardOpCreate, Ref: "build", New: teammanager.NewTask{Subject: "build", Assignee: "a"}},
				{Op: teammanager.BoardOpCreate, New: teammanager.NewTask{Subject: "test", Assignee: "b", BlockedBy: []string{"build", "T1"}}},
				{Op: teammanager.BoardOpApprove, Task: "T1", Feedback: "good"},
			}
			_, err := tm.ApplyBoardOps(ctx, "t", "lead", append(slices.Clone(turn), teammanager.BoardOp{Op: teammanager.BoardOpCancel, Task: "T99"}))
			if !errors.Is(err, teammanager.ErrUnknownTask) {
				t.Fatalf("ApplyBoardOps with a refused last operation: %v, want ErrUnknownTask", err)
			}
			errs[b.name] = err.Error()
			if oe := (*teammanager.BoardOpError)(nil); !errors.As(err, &oe) || oe.Index != 3 || oe.Op != teammanager.BoardOpCancel {
				t.Errorf("ApplyBoardOps: %v, want a *BoardOpError naming operation 4 (cancel)", err)
			}
			if code := api.ExitCode(err); code != api.ExitNotFound {
				t.Errorf("exit %d, want %d", code, api.ExitNotFound)
			}
			tasks, err := tm.ListTasks(ctx, "t", teammanager.TaskFilter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(tasks) != 1 || tasks[0].Status != teammanager.TaskInReview {
				t.Fatalf("after a refused turn: tasks %+v, want T1 alone, in review", tasks)
			}

			turn = append(turn,
				teammanager.BoardOp{Op: teammanager.BoardOpSkip, Task: "build", Reason: "not needed"},
				teammanager.BoardOp{Op: teammanager.BoardOpPlan, Plan: teammanager.NewPlan{Title: "ship", Steps: []teammanager.PlanStep{{Title: "test"}}}})
			res, err := tm.ApplyBoardOps(ctx, "t", "lead", turn)
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != 5 || res[0].Task == nil || res[0].Task.ID != "T2" || !res[0].Task.Skipped || !slices.Equal(res[0].Task.Dependents, []string{"T3"}) ||
				res[1].Task == nil || !slices.Equal(res[1].Task.BlockedBy, []string{"T2", "T1"}) ||
				res[2].Task == nil || res[2].Task.Status != teammanager.TaskCompleted ||
				res[3].Task == nil || res[3].Task.ID != "T2" ||
				res[4].Plan == nil || res[4].Plan.State != teammanager.PlanPendingReview || res[4].Op != teammanager.BoardOpPlan {
				t.Fatalf("ApplyBoardOps = %+v", res)
			}
			// T3's blockers are done (T1 approved, T2 skipped): b claims it.
			if got, err := tm.ClaimNext(ctx, "t", "b"); err != nil || got.ID != "T3" {
				t.Fatalf("ClaimNext = %s, %v; want T3", got.ID, err)
			}
			res, err = tm.ApplyBoardOps(ctx, "t", "lead", []teammanager.BoardOp{{Op: teammanager.BoardOpCancelOpen, Reason: "done"}})
			if err != nil || len(res) != 1 || !slices.Equal(taskIDs(res[0].Cancelled), []string{"T3"}) {
				t.Fatalf("cancel_open = %+v, %v; want T3 cancelled", res, err)
			}
		})
	}
	if e, r := errs["embedded"], errs["remote"]; e != r {
		t.Errorf("embedded and remote errors differ:\nembedded %s\nremote   %s", e, r)
	}
}

func taskIDs(ts []teammanager.Task) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}
