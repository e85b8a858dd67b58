package client_test

import (
	"errors"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestFinishTask_NewTaskIDsNotUTF8AsEmbedded: a new task of FinishTask
// whose assignee or blocked_by is not UTF-8 (an id: sent with U+FFFD,
// client/doc.go) is refused as in process, with the Manager's error and
// message naming the id as given, and nothing is written. Through a
// server the client refused the whole call as not UTF-8 (ErrNotUTF8),
// and the workflow driver, which fails the task on an invalid new task,
// stopped instead.
func TestFinishTask_NewTaskIDsNotUTF8AsEmbedded(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			tm := b.open(t)
			team := crew(t, tm)
			s := must[teammanager.BoardSettings](t, "board")(tm.Board(ctx, team))
			s.AllowRequests = true
			must[teammanager.BoardSettings](t, "configure")(tm.ConfigureBoard(ctx, team, s))
			must[teammanager.Task](t, "create")(tm.CreateTask(ctx, team, "ann", teammanager.NewTask{Subject: "a"}))
			must[teammanager.Task](t, "claim")(tm.ClaimTask(ctx, team, "bob", "T1"))
			for _, tc := range []struct {
				name string
				nt   teammanager.NewTask
				err  error
				exit int
				msg  string
			}{
				{"assignee", teammanager.NewTask{Subject: "more", Assignee: "c\xff"}, teammanager.ErrUnknownAgent, api.ExitInvalid,
					`team crew: finish task T1: new task 1 (more): invalid task: assignee "c\xff": invalid id (unknown agent; want 1 to 64 characters of A-Z a-z 0-9 . _ @ + -)`},
				{"blocked_by", teammanager.NewTask{Subject: "more", BlockedBy: []string{"T\xff"}}, teammanager.ErrUnknownTask, api.ExitInvalid,
					`team crew: finish task T1: new task 1 (more): invalid task: blocked_by "T\xff": invalid id (unknown task; want T1, T2, ...)`},
			} {
				_, err := tm.FinishTask(ctx, team, "bob", "T1", teammanager.TaskOutcome{Result: "r", Tasks: []teammanager.NewTask{tc.nt}})
				if !errors.Is(err, tc.err) || !errors.Is(err, teammanager.ErrInvalidTask) || api.ExitCode(err) != tc.exit || err == nil || err.Error() != tc.msg {
					t.Errorf("%s: %v (exit %d), want %q (exit %d)", tc.name, err, api.ExitCode(err), tc.msg, tc.exit)
				}
			}
			if ts := must[[]teammanager.Task](t, "tasks")(tm.ListTasks(ctx, team, teammanager.TaskFilter{})); len(ts) != 1 || ts[0].Status != teammanager.TaskInProgress {
				t.Fatalf("tasks after refused finishes: %+v", ts)
			}
		})
	}
}

// TestFinishTask_TextFaultsAsEmbedded: FinishTask with text that is not
// UTF-8 (its result, a new task's subject or description) and another
// fault (a finding the Manager refuses, a new task's bad text) fails
// with the fault the Manager checks first, word for word, through a
// server as in process: the findings, then the new tasks in order, then
// the result. The client checked the result first, and named a new task
// without its subject.
func TestFinishTask_TextFaultsAsEmbedded(t *testing.T) {
	const bad = "bad\xff"
	badF := teammanager.Finding{Subject: quad.IRI("rel"), Predicate: quad.IRI("http://ex/p"), Object: quad.String("o")}
	okF := teammanager.Finding{Subject: quad.IRI("http://ex/s"), Predicate: quad.IRI("http://ex/p"), Object: quad.String("o")}
	cases := []struct {
		name string
		o    teammanager.TaskOutcome
	}{
		{"result", teammanager.TaskOutcome{Result: bad}},
		{"result and a finding", teammanager.TaskOutcome{Result: bad, Findings: []teammanager.Finding{okF, badF}}},
		{"new task subject", teammanager.TaskOutcome{Result: "r", Tasks: []teammanager.NewTask{{Subject: "s" + bad}}}},
		{"new task description", teammanager.TaskOutcome{Result: "r", Tasks: []teammanager.NewTask{{Subject: "s", Description: bad}}}},
		{"result and a new task's description", teammanager.TaskOutcome{Result: bad, Tasks: []teammanager.NewTask{{Subject: "s", Description: bad}}}},
		{"new task subject and a finding", teammanager.TaskOutcome{Result: "r", Findings: []teammanager.Finding{badF}, Tasks: []teammanager.NewTask{{Subject: bad}}}},
		{"second new task and result", teammanager.TaskOutcome{Result: bad, Tasks: []teammanager.NewTask{{Subject: "a"}, {Subject: "b", Description: bad}}}},
	}
	got := map[string][]error{}
	for _, b := range backends {
		tm := b.open(t)
		team := crew(t, tm)
		status(t, tm, team, "bob", teammanager.Running, "")
		s := must[teammanager.BoardSettings](t, "board")(tm.Board(ctx, team))
		s.AllowRequests = true
		must[teammanager.BoardSettings](t, "configure")(tm.ConfigureBoard(ctx, team, s))
		must[teammanager.Task](t, "create")(tm.CreateTask(ctx, team, "ann", teammanager.NewTask{Subject: "a"}))
		must[teammanager.Task](t, "claim")(tm.ClaimTask(ctx, team, "bob", "T1"))
		for _, tc := range cases {
			_, err := tm.FinishTask(ctx, team, "bob", "T1", tc.o)
			if api.ExitCode(err) != api.ExitInvalid {
				t.Errorf("%s: %s: %v (exit %d), want exit %d", b.name, tc.name, err, api.ExitCode(err), api.ExitInvalid)
			}
			got[b.name] = append(got[b.name], err)
		}
		if ts := must[[]teammanager.Task](t, "tasks")(tm.ListTasks(ctx, team, teammanager.TaskFilter{})); len(ts) != 1 || ts[0].Status != teammanager.TaskInProgress {
			t.Errorf("%s: tasks after refused finishes: %+v", b.name, ts)
		}
	}
	for i, tc := range cases {
		if e, r := got["embedded"][i], got["remote"][i]; e == nil || r == nil || e.Error() != r.Error() {
			t.Errorf("%s: remote %q, embedded %q", tc.name, r, e)
		}
	}
}
