package client_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestEmptyIDMessagesAsEmbedded: a call with an empty id (of a team,
// agent, task, message, conflict or snapshot) fails with the embedded
// Manager's error word for word, through a server as in process, with the
// same exit code: the server wrote the message of an empty id itself
// (`team crew: agent "": invalid id ...`), without the words of the
// operation that the Manager's message has.
func TestEmptyIDMessagesAsEmbedded(t *testing.T) {
	f := teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("o")}
	seven, hour := 7, time.Hour
	plans := func(tm api.TeamManager) api.TeamPlans { return tm.(api.TeamPlans) }
	// Each call names the team "crew", member "bob" (or lead "ann"), task
	// T1, message M1, snapshot S1 and a conflict id; {team}, {agent} ...
	// are left empty in turn.
	type ids struct{ team, agent, lead, task, msg, snap, conflict string }
	cases := []struct {
		name  string
		empty []string // which ids to leave empty, each in turn
		call  func(tm api.TeamManager, i ids) error
	}{
		{"GetTeam", []string{"team"}, func(tm api.TeamManager, i ids) error { return errOf(tm.GetTeam(ctx, i.team)) }},
		{"DeleteTeam", []string{"team"}, func(tm api.TeamManager, i ids) error { return tm.DeleteTeam(ctx, i.team) }},
		{"PauseTeam", []string{"team"}, func(tm api.TeamManager, i ids) error { return errOf(tm.PauseTeam(ctx, i.team)) }},
		{"ResumeTeam", []string{"team"}, func(tm api.TeamManager, i ids) error { return errOf(tm.ResumeTeam(ctx, i.team)) }},
		{"DisbandTeam", []string{"team"}, func(tm api.TeamManager, i ids) error { return errOf(tm.DisbandTeam(ctx, i.team)) }},
		{"UpdateMemberStatus", []string{"team", "agent"}, func(tm api.TeamManager, i ids) error {
			return errOf(tm.UpdateMemberStatus(ctx, i.team, i.agent, teammanager.Running, ""))
		}},
		{"MergeTeamResults", []string{"team"}, func(tm api.TeamManager, i ids) error { return errOf(tm.MergeTeamResults(ctx, i.team)) }},
		{"IsTeamComplete", []string{"team"}, func(tm api.TeamManager, i ids) error { return errOf(tm.IsTeamComplete(ctx, i.team)) }},
		{"AddFinding", []string{"team", "agent"}, func(tm api.TeamManager, i ids) error { return errOf(tm.AddFinding(ctx, i.team, i.agent, f)) }},
		{"AddFindings", []string{"team", "agent"}, func(tm api.TeamManager, i ids) error {
			return errOf(tm.AddFindings(ctx, i.team, i.agent, []teammanager.Finding{f}))
		}},
		{"Findings", []string{"team"}, func(tm api.TeamManager, i ids) error {
			return errOf(tm.Findings(ctx, i.team, teammanager.FindingFilter{}))
		}},
		{"ImportFindings", []string{"team", "agent"}, func(tm api.TeamManager, i ids) error {
			return errOf(tm.ImportFindings(ctx, i.team, i.agent, strings.NewReader("[]"), teammanager.FindingsJSON))
		}},
		{"Facts", []string{"team"}, func(tm api.TeamManager, i ids) error { return errOf(tm.Facts(ctx, i.team, teammanager.FactFilter{})) }},
		{"Conflicts", []string{"team"}, func(tm api.TeamManager, i ids) error { return errOf(tm.Conflicts(ctx, i.team)) }},
		{"ResolveConflict", []string{"team", "conflict"}, func(tm api.TeamManager, i ids) error {
			return errOf(tm.ResolveConflict(ctx, i.team, i.conflict, nil, "ann"))
		}},
		{"CreateTask", []string{"team", "agent"}, func(tm api.TeamManager, i ids) error {
			return errOf(tm.CreateTask(ctx, i.team, i.lead, teammanager.NewTask{Subject: "s"}))
		}},
		{"GetTask", []string{"team", "task"}, func(tm api.TeamManager, i ids) error { return errOf(tm.GetTask(ctx, i.team, i.task)) }},
		{"ListTasks", []string{"team"}, func(tm api.TeamManager, i ids) error {
			return errOf(tm.ListTasks(ctx, i.team, teammanager.TaskFilter{}))
		}},
		{"UpdateTask", []string{"team", "agent", "task"}, func(tm api.TeamManager, i ids) error {
			s := "x"
			return errOf(tm.UpdateTask(ctx, i.team, i.lead, i.task, teammanager.TaskUpdate{Subject: &s}))
		}},
		{"ClaimTask", []string{"team", "agent", "task"}, func(tm api.TeamManager, i ids) error { return errOf(tm.ClaimTask(ctx, i.team, i.agent, i.task)) }},
		{"ClaimNext", []string{"team", "agent"}, func(tm api.TeamManager, i ids) error { return errOf(tm.ClaimNext(ctx, i.team, i.agent)) }},
		{"ProgressTask", []string{"team", "agent", "task"}, func(tm api.TeamManager, i ids) error {
			return errOf(tm.ProgressTask(ctx, i.team, i.agent, i.task, "n"))
		}},
		{"CompleteTask", []string{"team", "agent", "task"}, func(tm api.TeamManager, i ids) error {
			return errOf(tm.CompleteTask(ctx, i.team, i.agent, i.task, "r"))
		}},
		{"ReviewTask", []string{"team", "agent", "task"}, func(tm api.TeamManager, i ids) error {
			return errOf(tm.ReviewTask(ctx, i.team, i.lead, i.task, true, ""))
		}},
		{"FailTask", []string{"team", "agent", "task"}, func(tm api.TeamManager, i ids) error { return errOf(tm.FailTask(ctx, i.team, i.agent, i.task, "x")) }},
		{"CancelTask", []string{"team", "agent", "task"}, func(tm api.TeamManager, i ids) error { return errOf(tm.CancelTask(ctx, i.team, i.lead, i.task, "x")) }},
		{"PauseTask", []string{"team", "agent", "task"}, func(tm api.TeamManager, i ids) error { return errOf(tm.PauseTask(ctx, i.team, i.lead, i.task)) }},
		{"ResumeTask", []string{"team", "agent", "task"}, func(tm api.TeamManager, i ids) error { return errOf(tm.ResumeTask(ctx, i.team, i.lead, i.task)) }},
		{"RetryTask", []string{"team", "agent", "task"}, func(tm api.TeamManager, i ids) error { return errOf(tm.RetryTask(ctx, i.team, i.lead, i.task)) }},
		{"SkipTask", []string{"team", "agent", "task"}, func(tm api.TeamManager, i ids) error { return errOf(tm.SkipTask(ctx, i.team, i.lead, i.task, "x")) }},
		{"AddTaskComment", []string{"team", "agent", "task"}, func(tm api.TeamManager, i ids) error {
			return errOf(tm.AddTaskComment(ctx, i.team, i.agent, i.task, teammanager.CommentNote, "x"))
		}},
		{"TaskComments", []string{"team", "task"}, func(tm api.TeamManager, i ids) error { return errOf(tm.TaskComments(ctx, i.team, i.task)) }},
		{"TaskHistory", []string{"team", "task"}, func(tm api.TeamManager, i ids) error { return errOf(tm.TaskHistory(ctx, i.team, i.task)) }},
		{"DispatchUnblocked", []string{"team"}, func(tm api.TeamManager, i ids) error { return errOf(tm.DispatchUnblocked(ctx, i.team)) }},
		{"SweepTasks", []string{"team"}, func(tm api.TeamManager, i ids) error { return errOf(tm.SweepTasks(ctx, i.team)) }},
		{"AddTaskFindings", []string{"team", "agent", "task"}, func(tm api.TeamManager, i ids) error {
			return errOf(tm.AddTaskFindings(ctx, i.team, i.agent, i.task, []teammanager.Finding{f}))
		}},
		{"FinishTask", []string{"team", "agent", "task"}, func(tm api.TeamManager, i ids) error {
			return errOf(tm.FinishTask(ctx, i.team, i.agent, i.task, teammanager.TaskOutcome{Result: "r", Findings: []teammanager.Finding{f}}))
		}},
		{"FinishTask without findings", []string{"team", "agent", "task"}, func(tm api.TeamManager, i ids) error {
			return errOf(tm.FinishTask(ctx, i.team, i.agent, i.task, teammanager.TaskOutcome{Result: "r"}))
		}},
		{"Board", []string{"team"}, func(tm api.TeamManager, i ids) error { return errOf(tm.Board(ctx, i.team)) }},
		{"ConfigureBoard", []string{"team"}, func(tm api.TeamManager, i ids) error {
			return errOf(tm.ConfigureBoard(ctx, i.team, teammanager.BoardSettings{}))
		}},
		{"UpdateBoard", []string{"team"}, func(tm api.TeamManager, i ids) error {
			return errOf(tm.UpdateBoard(ctx, i.team, teammanager.BoardUpdate{Lease: &hour}))
		}},
		{"SendMessage", []string{"team", "agent"}, func(tm api.TeamManager, i ids) error {
			return errOf(tm.SendMessage(ctx, i.team, i.agent, teammanager.OutMessage{Type: teammanager.MsgStatus, Body: "b"}))
		}},
		{"Inbox", []string{"team", "agent"}, func(tm api.TeamManager, i ids) error {
			return errOf(tm.Inbox(ctx, i.team, i.agent, teammanager.MailFilter{}))
		}},
		{"MarkMessages", []string{"team", "agent", "msg"}, func(tm api.TeamManager, i ids) error {
			return tm.MarkMessages(ctx, i.team, i.agent, teammanager.MsgRead, i.msg)
		}},
		{"Thread", []string{"team", "msg"}, func(tm api.TeamManager, i ids) error { return errOf(tm.Thread(ctx, i.team, i.msg)) }},
		{"History", []string{"team"}, func(tm api.TeamManager, i ids) error { return errOf(tm.History(ctx, i.team, 0)) }},
		{"ConfigureMailbox", []string{"team"}, func(tm api.TeamManager, i ids) error { return tm.ConfigureMailbox(ctx, i.team, hour, 7) }},
		{"UpdateMailbox", []string{"team"}, func(tm api.TeamManager, i ids) error {
			_, _, err := tm.UpdateMailbox(ctx, i.team, teammanager.MailboxUpdate{PerAgent: &seven})
			return err
		}},
		{"MailboxRetention", []string{"team"}, func(tm api.TeamManager, i ids) error { _, _, err := tm.MailboxRetention(ctx, i.team); return err }},
		{"DraftPlan", []string{"team", "agent"}, func(tm api.TeamManager, i ids) error {
			return errOf(plans(tm).DraftPlan(ctx, i.team, i.lead, teammanager.NewPlan{Title: "t", Steps: []teammanager.PlanStep{{Title: "a"}}}))
		}},
		{"SubmitPlan", []string{"team", "agent"}, func(tm api.TeamManager, i ids) error { return errOf(plans(tm).SubmitPlan(ctx, i.team, i.lead)) }},
		{"ReviewPlan", []string{"team", "agent"}, func(tm api.TeamManager, i ids) error {
			return errOf(plans(tm).ReviewPlan(ctx, i.team, i.lead, 1, true, ""))
		}},
		{"GetPlan", []string{"team"}, func(tm api.TeamManager, i ids) error { return errOf(plans(tm).GetPlan(ctx, i.team, 0)) }},
		{"PlanRevisions", []string{"team"}, func(tm api.TeamManager, i ids) error { return errOf(plans(tm).PlanRevisions(ctx, i.team)) }},
		{"SnapshotTeam", []string{"team"}, func(tm api.TeamManager, i ids) error { return errOf(plans(tm).SnapshotTeam(ctx, i.team, "n")) }},
		{"Snapshots", []string{"team"}, func(tm api.TeamManager, i ids) error { return errOf(plans(tm).Snapshots(ctx, i.team)) }},
		{"GetSnapshot", []string{"team", "snap"}, func(tm api.TeamManager, i ids) error { return errOf(plans(tm).GetSnapshot(ctx, i.team, i.snap)) }},
		{"RestoreSnapshot", []string{"team", "snap"}, func(tm api.TeamManager, i ids) error {
			return errOf(plans(tm).RestoreSnapshot(ctx, i.team, i.snap, false))
		}},
		{"DeleteSnapshot", []string{"team", "snap"}, func(tm api.TeamManager, i ids) error { return plans(tm).DeleteSnapshot(ctx, i.team, i.snap) }},
	}
	type outcome struct {
		msg  string
		exit int
	}
	got := map[string]map[string]outcome{}
	for _, b := range backends {
		tm := b.open(t)
		team := crew(t, tm)
		status(t, tm, team, "bob", teammanager.Running, "")
		must[teammanager.Task](t, "create")(tm.CreateTask(ctx, team, "ann", teammanager.NewTask{Subject: "a"}))
		must[teammanager.Task](t, "claim")(tm.ClaimTask(ctx, team, "bob", "T1"))
		must[teammanager.Message](t, "send")(tm.SendMessage(ctx, team, "ann", teammanager.OutMessage{Type: teammanager.MsgStatus, To: []string{"bob"}, Body: "hi"}))
		must[teammanager.Snapshot](t, "snapshot")(plans(tm).SnapshotTeam(ctx, team, "n"))
		got[b.name] = map[string]outcome{}
		for _, tc := range cases {
			for _, e := range tc.empty {
				i := ids{team: team, agent: "bob", lead: "ann", task: "T1", msg: "M1", snap: "S1", conflict: "c0123456789abcdef0123456789abcdef"}
				switch e {
				case "team":
					i.team = ""
				case "agent":
					i.agent, i.lead = "", ""
				case "task":
					i.task = ""
				case "msg":
					i.msg = ""
				case "snap":
					i.snap = ""
				case "conflict":
					i.conflict = ""
				}
				err := tc.call(tm, i)
				if err == nil {
					t.Errorf("%s: %s of empty %s: no error", b.name, tc.name, e)
					continue
				}
				got[b.name][tc.name+" of empty "+e] = outcome{err.Error(), api.ExitCode(err)}
			}
		}
	}
	for k, e := range got["embedded"] {
		if r := got["remote"][k]; r != e {
			t.Errorf("%s:\n  remote   %q (exit %d)\n  embedded %q (exit %d)", k, r.msg, r.exit, e.msg, e.exit)
		}
	}
}
