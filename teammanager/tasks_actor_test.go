package teammanager_test

import (
	"errors"
	"testing"

	"github.com/cortexgraph/cortex/teammanager"
)

// TestTask_ActorNotAMember: a task method whose actor is not a member of
// the team fails as about an unknown agent (ErrUnknownAgent, exit 3; a
// malformed id also ErrInvalidID, exit 7), as ClaimTask, CreateTask and
// AddTaskComment do and as README says of an --as that is not a member,
// not as a member the board's rules refuse (ErrNotAllowed, exit 4) or a
// task in the wrong status; the task is looked up first.
func TestTask_ActorNotAMember(t *testing.T) {
	f, team := boardFixture(t)
	mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "held"}) // T1: a works on it
	mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "done"}) // T2: a submits it
	for _, id := range []string{"T2", "T1"} {
		if _, err := f.m.ClaimTask(ctx, team, "a", id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.m.CompleteTask(ctx, team, "a", "T2", "r"); err != nil {
		t.Fatal(err)
	}
	calls := map[string]func(agent string) error{
		"UpdateTask": func(a string) error {
			return errOf(f.m.UpdateTask(ctx, team, a, "T1", teammanager.TaskUpdate{Priority: ptr(3)}))
		},
		"ReviewTask":   func(a string) error { return errOf(f.m.ReviewTask(ctx, team, a, "T2", true, "")) },
		"CancelTask":   func(a string) error { return errOf(f.m.CancelTask(ctx, team, a, "T1", "x")) },
		"PauseTask":    func(a string) error { return errOf(f.m.PauseTask(ctx, team, a, "T1")) },
		"ResumeTask":   func(a string) error { return errOf(f.m.ResumeTask(ctx, team, a, "T1")) },
		"RetryTask":    func(a string) error { return errOf(f.m.RetryTask(ctx, team, a, "T1")) },
		"SkipTask":     func(a string) error { return errOf(f.m.SkipTask(ctx, team, a, "T1", "x")) },
		"ProgressTask": func(a string) error { return errOf(f.m.ProgressTask(ctx, team, a, "T1", "n")) },
		"CompleteTask": func(a string) error { return errOf(f.m.CompleteTask(ctx, team, a, "T1", "r")) },
		"FailTask":     func(a string) error { return errOf(f.m.FailTask(ctx, team, a, "T1", "x")) },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			if err := call("zed"); !errors.Is(err, teammanager.ErrUnknownAgent) || errors.Is(err, teammanager.ErrNotAllowed) || errors.Is(err, teammanager.ErrTaskState) {
				t.Errorf("by zed, no member: %v; want ErrUnknownAgent", err)
			}
			if err := call("a b"); !errors.Is(err, teammanager.ErrUnknownAgent) || !errors.Is(err, teammanager.ErrInvalidID) {
				t.Errorf("by \"a b\", a malformed id: %v; want ErrUnknownAgent and ErrInvalidID", err)
			}
		})
	}
	if task, err := f.m.GetTask(ctx, team, "T1"); err != nil || task.Status != teammanager.TaskInProgress || task.Assignee != "a" || task.Priority != 0 || task.Paused {
		t.Fatalf("refused calls changed T1: %+v, %v", task, err)
	}
}
