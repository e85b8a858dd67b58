package client_test

import (
	"errors"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/client"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestSendMessage_TextNotUTF8AsEmbedded: a message whose subject or body is
// not valid UTF-8 fails as in process: for another fault the Manager finds
// first (an unknown team or sender, a disbanded team, a bad type, an empty
// body) with that fault, else with the text's error, naming the subject
// before the body. Through a server the client refused the text before
// sending anything: an unknown team was an invalid message (exit 7, not 3).
// Through a server the text's error also matches client.ErrNotUTF8.
func TestSendMessage_TextNotUTF8AsEmbedded(t *testing.T) {
	type want struct {
		err  error
		exit int
		msg  string
	}
	bad := "\xff"
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			tm := b.open(t)
			team := crewAndGone(t, tm)
			for _, tc := range []struct {
				name          string
				team, from    string
				msg           teammanager.OutMessage
				want          want
				notUTF8Remote bool
			}{
				{"unknown team", "nosuch", "ann", teammanager.OutMessage{Type: teammanager.MsgStatus, Body: bad},
					want{teammanager.ErrUnknownTeam, api.ExitNotFound, `send message: team "nosuch": unknown team`}, false},
				{"unknown sender", team, "zed", teammanager.OutMessage{Type: teammanager.MsgStatus, Subject: bad, Body: "b"},
					want{teammanager.ErrUnknownAgent, api.ExitNotFound, `team crew: send message: sender "zed": unknown agent`}, false},
				{"disbanded team", "gone", "ann", teammanager.OutMessage{Type: teammanager.MsgStatus, Body: bad},
					want{teammanager.ErrTeamDisbanded, api.ExitConflict, "send message: team gone: team is disbanded; its graphs are read-only"}, false},
				{"bad type", team, "ann", teammanager.OutMessage{Type: "gossip", Body: bad},
					want{teammanager.ErrInvalidMessage, api.ExitInvalid, `team crew: send message: invalid message: type "gossip"`}, false},
				{"blank body, bad subject", team, "ann", teammanager.OutMessage{Type: teammanager.MsgStatus, Subject: bad, Body: " "},
					want{teammanager.ErrInvalidMessage, api.ExitInvalid, "team crew: send message: invalid message: empty body"}, false},
				{"bad body", team, "ann", teammanager.OutMessage{Type: teammanager.MsgStatus, To: []string{"zed"}, Body: bad},
					want{teammanager.ErrInvalidMessage, api.ExitInvalid, "team crew: send message: invalid message: body is not valid UTF-8"}, true},
				{"bad subject and body", team, "ann", teammanager.OutMessage{Type: teammanager.MsgStatus, Subject: bad, Body: "x" + bad},
					want{teammanager.ErrInvalidMessage, api.ExitInvalid, "team crew: send message: invalid message: subject is not valid UTF-8"}, true},
			} {
				_, err := tm.SendMessage(ctx, tc.team, tc.from, tc.msg)
				if !errors.Is(err, tc.want.err) || api.ExitCode(err) != tc.want.exit || err == nil || len(err.Error()) < len(tc.want.msg) || err.Error()[:len(tc.want.msg)] != tc.want.msg {
					t.Errorf("%s: %v (exit %d), want an error matching %v (exit %d) %q", tc.name, err, api.ExitCode(err), tc.want.err, tc.want.exit, tc.want.msg)
				}
				if b.name == "remote" && errors.Is(err, client.ErrNotUTF8) != tc.notUTF8Remote {
					t.Errorf("%s: %v matches ErrNotUTF8: %v, want %v", tc.name, err, !tc.notUTF8Remote, tc.notUTF8Remote)
				}
			}
			if h, err := tm.History(ctx, team, 0); err != nil || len(h) != 0 {
				t.Fatalf("history after refused sends: %+v, %v", h, err)
			}
		})
	}
}

// TestSendMessage_NoTypeAsEmbedded: a message with no type fails as in
// process: for an unknown team or sender, or a disbanded team, with that
// fault; else as an invalid message (type ""). Through a server the client
// answered the type's error before sending anything, whatever the team.
func TestSendMessage_NoTypeAsEmbedded(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			tm := b.open(t)
			team := crewAndGone(t, tm)
			for _, tc := range []struct {
				name, team, from string
				err              error
				exit             int
				msg              string
			}{
				{"unknown team", "nosuch", "ann", teammanager.ErrUnknownTeam, api.ExitNotFound, `send message: team "nosuch": unknown team`},
				{"unknown sender", team, "zed", teammanager.ErrUnknownAgent, api.ExitNotFound, `team crew: send message: sender "zed": unknown agent`},
				{"disbanded team", "gone", "ann", teammanager.ErrTeamDisbanded, api.ExitConflict, "send message: team gone: team is disbanded"},
				{"no type", team, "ann", teammanager.ErrInvalidMessage, api.ExitInvalid, `team crew: send message: invalid message: type "" (want one of [`},
			} {
				_, err := tm.SendMessage(ctx, tc.team, tc.from, teammanager.OutMessage{To: []string{"bob"}, Body: "b"})
				if !errors.Is(err, tc.err) || api.ExitCode(err) != tc.exit || err == nil || len(err.Error()) < len(tc.msg) || err.Error()[:len(tc.msg)] != tc.msg {
					t.Errorf("%s: %v (exit %d), want an error matching %v (exit %d) %q", tc.name, err, api.ExitCode(err), tc.err, tc.exit, tc.msg)
				}
			}
		})
	}
}

// TestInbox_StatusFirstAsEmbedded: Inbox refuses a status other than
// unread, read or archived before anything else, as in process, even with
// no agent and a team that does not exist (through a server that was an
// unknown team: the server answers an empty agent with the team's error).
func TestInbox_StatusFirstAsEmbedded(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			tm := b.open(t)
			crew(t, tm)
			for _, team := range []string{"nosuch", "crew"} {
				for _, agent := range []string{"", "zed", "bob"} {
					_, err := tm.Inbox(ctx, team, agent, teammanager.MailFilter{Status: "bogus"})
					if !errors.Is(err, teammanager.ErrInvalidStatus) || api.ExitCode(err) != api.ExitInvalid || err.Error() != `invalid status: message status "bogus" (want unread, read or archived)` {
						t.Errorf("Inbox(%q, %q) of status bogus: %v (exit %d), want the invalid status (exit %d)", team, agent, err, api.ExitCode(err), api.ExitInvalid)
					}
				}
			}
		})
	}
}

// crewAndGone creates team crew (see crew), whose id it returns, and team
// gone of ann and bob, disbanded.
func crewAndGone(t *testing.T, tm api.TeamManager) string {
	t.Helper()
	team := crew(t, tm)
	create(t, tm, teammanager.TeamConfig{ID: "gone", Name: "gone", Members: members("ann", "bob"), Timeout: -1})
	if _, err := tm.DisbandTeam(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	return team
}
