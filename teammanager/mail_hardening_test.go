package teammanager_test

import (
	"errors"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestMail_Mark_TeamChecked: marking messages is a write of the team's
// mailbox: refused on a disbanded team (read-only) and on a completed one
// as sending is, with ErrUnknownTeam for a team that does not exist and
// ErrUnknownAgent for a stranger; a refused call writes nothing.
func TestMail_Mark_TeamChecked(t *testing.T) {
	f, team := boardFixture(t)
	msg, err := f.m.SendMessage(ctx, team, "a", teammanager.OutMessage{Type: teammanager.MsgStatus, To: []string{"b"}, Body: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, team, agent string
		want              error
	}{
		{"unknown team", "nope", "b", teammanager.ErrUnknownTeam},
		{"stranger", team, "zed", teammanager.ErrUnknownAgent},
	} {
		before := storeDump(t, f)
		if err := f.m.MarkMessages(ctx, tc.team, tc.agent, teammanager.MsgRead, msg.ID); !errors.Is(err, tc.want) {
			t.Errorf("%s: MarkMessages = %v, want %v", tc.name, err, tc.want)
		}
		if storeDump(t, f) != before {
			t.Fatalf("%s: refused MarkMessages wrote to the store", tc.name)
		}
	}
	if _, err := f.m.DisbandTeam(ctx, team); err != nil {
		t.Fatal(err)
	}
	before := storeDump(t, f)
	for _, status := range []teammanager.MessageStatus{teammanager.MsgRead, teammanager.MsgArchived} {
		if err := f.m.MarkMessages(ctx, team, "b", status, msg.ID); !errors.Is(err, teammanager.ErrTeamDisbanded) {
			t.Errorf("MarkMessages %s on a disbanded team = %v, want ErrTeamDisbanded", status, err)
		}
	}
	if storeDump(t, f) != before {
		t.Fatal("MarkMessages wrote to a disbanded team's mailbox")
	}
	if got := inboxIDs(t, f, team, "b", teammanager.MailFilter{}); len(got) != 1 || got[0] != msg.ID+":unread" {
		t.Fatalf("b's inbox of the disbanded team = %v, want %s unread", got, msg.ID)
	}
}

// TestBoard_Reads_AnyLifecycle: the board's rules and a member's inbox
// are read whatever the team's lifecycle — paused, disbanded (read-only,
// not unreadable) or completed — as its tasks, history and plan are.
func TestBoard_Reads_AnyLifecycle(t *testing.T) {
	for _, tc := range []struct {
		name string
		to   func(f *fixture, team string) error
	}{
		{"paused", func(f *fixture, team string) error {
			f.status(t, team, "a", teammanager.Running, "")
			_, err := f.m.PauseTeam(ctx, team)
			return err
		}},
		{"disbanded", func(f *fixture, team string) error { _, err := f.m.DisbandTeam(ctx, team); return err }},
		{"completed", func(f *fixture, team string) error {
			for _, a := range []string{"lead", "a", "b", "c"} {
				f.status(t, team, a, teammanager.Running, "")
				f.status(t, team, a, teammanager.Completed, "done")
			}
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, team := boardFixture(t, teammanager.BoardSettings{AllowRequests: true, Lease: 7 * 60e9})
			msg, err := f.m.SendMessage(ctx, team, "a", teammanager.OutMessage{Type: teammanager.MsgStatus, To: []string{"b"}, Body: "hi"})
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.to(f, team); err != nil {
				t.Fatal(err)
			}
			before := storeDump(t, f)
			s, err := f.m.Board(ctx, team)
			if err != nil || s.Lead != "lead" || !s.AllowRequests || s.Lease != 7*60e9 {
				t.Errorf("Board of a %s team = %+v, %v", tc.name, s, err)
			}
			inbox, err := f.m.Inbox(ctx, team, "b", teammanager.MailFilter{})
			if err != nil || len(inbox) != 1 || inbox[0].ID != msg.ID {
				t.Errorf("Inbox of a %s team = %+v, %v", tc.name, inbox, err)
			}
			if _, err := f.m.Inbox(ctx, team, "zed", teammanager.MailFilter{}); !errors.Is(err, teammanager.ErrUnknownAgent) {
				t.Errorf("Inbox of a stranger = %v, want ErrUnknownAgent", err)
			}
			if storeDump(t, f) != before {
				t.Fatal("reads wrote to the store")
			}
		})
	}
	f := newFixture(t)
	team := f.create(t, teammanager.TeamConfig{ID: "fresh", Name: "fresh", Members: members("x", "y")}).ID
	if _, err := f.m.DisbandTeam(ctx, team); err != nil {
		t.Fatal(err)
	}
	if s, err := f.m.Board(ctx, team); err != nil || s.MaxDispatches != teammanager.DefaultMaxDispatches || !s.RequireReview {
		t.Errorf("Board of a disbanded team that never used its board = %+v, %v; want the defaults", s, err)
	}
	if _, err := f.m.Board(ctx, "nope"); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Errorf("Board of an unknown team = %v, want ErrUnknownTeam", err)
	}
}

// TestBoard_Reads_UnknownTeam: reading a task, its comments or history,
// or a thread, of a team that does not exist says the team is unknown
// (ErrUnknownTeam), not the task or message.
func TestBoard_Reads_UnknownTeam(t *testing.T) {
	f, team := boardFixture(t)
	mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "x"})
	if _, err := f.m.SendMessage(ctx, team, "a", teammanager.OutMessage{Type: teammanager.MsgStatus, To: []string{"b"}, Body: "hi"}); err != nil {
		t.Fatal(err)
	}
	for name, call := range map[string]func() error{
		"GetTask":      func() error { _, err := f.m.GetTask(ctx, "nope", "T1"); return err },
		"TaskComments": func() error { _, err := f.m.TaskComments(ctx, "nope", "T1"); return err },
		"TaskHistory":  func() error { _, err := f.m.TaskHistory(ctx, "nope", "T1"); return err },
		"Thread":       func() error { _, err := f.m.Thread(ctx, "nope", "M1"); return err },
	} {
		if err := call(); !errors.Is(err, teammanager.ErrUnknownTeam) {
			t.Errorf("%s of an unknown team = %v, want ErrUnknownTeam", name, err)
		}
	}
	if _, err := f.m.GetTask(ctx, team, "T9"); !errors.Is(err, teammanager.ErrUnknownTask) {
		t.Errorf("GetTask of an unknown task = %v, want ErrUnknownTask", err)
	}
	if _, err := f.m.Thread(ctx, team, "M9"); !errors.Is(err, teammanager.ErrUnknownMessage) {
		t.Errorf("Thread of an unknown message = %v, want ErrUnknownMessage", err)
	}
}

// TestBoard_TimedOutTeam_RefusesWrites: a team past its deadline is failed
// (reads say so at once) even before a write records it, and its board,
// mailbox and plan take no more writes: each is refused with
// ErrTeamFinished and writes nothing — whether or not the board was used
// before, with or without the team's row of the team table. Its board is still read; a paused team's clock (and deadline)
// stands still, so its mailbox still works.
func TestBoard_TimedOutTeam_RefusesWrites(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
	ms := append([]teammanager.MemberConfig{{AgentID: "lead", Role: "lead"}}, members("a", "b")...)
	used := f.create(t, teammanager.TeamConfig{ID: "used", Name: "used", Members: ms, Timeout: time.Hour}).ID
	fresh := f.create(t, teammanager.TeamConfig{ID: "fresh", Name: "fresh", Members: ms, Timeout: time.Hour}).ID
	paused := f.create(t, teammanager.TeamConfig{ID: "paused", Name: "paused", Members: ms, Timeout: time.Hour}).ID
	for _, team := range []string{used, fresh, paused} {
		f.status(t, team, "a", teammanager.Running, "")
	}
	task := mustTask(t, f, used, "lead", teammanager.NewTask{Subject: "x"})
	if _, err := f.m.PauseTeam(ctx, paused); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(2 * time.Hour)
	// Without its row of the team table (a table rebuilt, or not yet),
	// the board reads the team itself.
	if err := f.n.Update(ctx, func(tx *cortex.Tx) error { tx.DeleteSide("teams", fresh); return nil }); err != nil {
		t.Fatal(err)
	}
	if tm, err := f.m.GetTeam(ctx, used); err != nil || tm.Status != teammanager.Failed {
		t.Fatalf("team past its deadline reads %+v, %v; want failed", tm, err)
	}
	before := storeDump(t, f)
	for _, team := range []string{used, fresh} {
		for name, call := range map[string]func() error{
			"create": func() error {
				_, err := f.m.CreateTask(ctx, team, "lead", teammanager.NewTask{Subject: "late"})
				return err
			},
			"claim": func() error { _, err := f.m.ClaimTask(ctx, team, "a", task.ID); return err },
			"send": func() error {
				_, err := f.m.SendMessage(ctx, team, "a", teammanager.OutMessage{Type: teammanager.MsgStatus, Body: "late"})
				return err
			},
			"draft plan": func() error {
				_, err := f.m.DraftPlan(ctx, team, "lead", teammanager.NewPlan{Title: "t", Steps: []teammanager.PlanStep{{Title: "s"}}})
				return err
			},
			"retention": func() error { return f.m.ConfigureMailbox(ctx, team, time.Hour, 5) },
		} {
			if err := call(); !errors.Is(err, teammanager.ErrTeamFinished) {
				t.Errorf("%s on team %s past its deadline: %v, want ErrTeamFinished", name, team, err)
			}
		}
	}
	if storeDump(t, f) != before {
		t.Fatal("writes refused on a timed-out team wrote to the store")
	}
	if ts, err := f.m.ListTasks(ctx, used, teammanager.TaskFilter{}); err != nil || len(ts) != 1 {
		t.Fatalf("tasks of the timed-out team: %v, %v", ts, err)
	}
	if _, err := f.m.Board(ctx, used); err != nil {
		t.Fatalf("board of the timed-out team: %v", err)
	}
	if _, err := f.m.SendMessage(ctx, paused, "a", teammanager.OutMessage{Type: teammanager.MsgStatus, Body: "still here"}); err != nil {
		t.Fatalf("send on a paused team past the deadline it had: %v", err)
	}
}
