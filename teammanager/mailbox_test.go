package teammanager_test

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/teammanager"
)

func inboxIDs(t *testing.T, f *fixture, team, agent string, filter teammanager.MailFilter) []string {
	t.Helper()
	in, err := f.m.Inbox(ctx, team, agent, filter)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range in {
		out = append(out, m.ID+":"+string(m.Status))
	}
	return out
}

func TestMail_SendDirectBroadcastThread(t *testing.T) {
	f, team := boardFixture(t)
	q, err := f.m.SendMessage(ctx, team, "a", teammanager.OutMessage{Type: teammanager.MsgAskQuestion, To: []string{"lead"},
		Subject: "scope?", Body: "which sources count?", Attachments: []string{"http://example.org/doc"}})
	if err != nil || q.ID != "M1" || q.Thread != "M1" || q.Broadcast {
		t.Fatalf("send = %+v, %v", q, err)
	}
	r, err := f.m.SendMessage(ctx, team, "lead", teammanager.OutMessage{Type: teammanager.MsgStatus, Body: "peer-reviewed only", ReplyTo: q.ID})
	if err != nil || !r.Broadcast || r.Thread != "M1" || !slices.Equal(r.To, []string{"a", "b", "c"}) {
		t.Fatalf("broadcast reply = %+v, %v", r, err)
	}
	if _, err := f.m.SendMessage(ctx, team, "b", teammanager.OutMessage{Type: teammanager.MsgVote, To: []string{"a"}, Body: "+1"}); err != nil {
		t.Fatal(err)
	}
	th, err := f.m.Thread(ctx, team, r.ID)
	if err != nil || len(th) != 2 || th[0].ID != "M1" || th[1].ID != "M2" {
		t.Fatalf("thread = %+v, %v", th, err)
	}
	if got := inboxIDs(t, f, team, "a", teammanager.MailFilter{}); !slices.Equal(got, []string{"M2:unread", "M3:unread"}) {
		t.Fatalf("a's inbox %v", got)
	}
	if err := f.m.MarkMessages(ctx, team, "a", teammanager.MsgRead, "M2"); err != nil {
		t.Fatal(err)
	}
	if err := f.m.MarkMessages(ctx, team, "a", teammanager.MsgArchived, "M3"); err != nil {
		t.Fatal(err)
	}
	if err := f.m.MarkMessages(ctx, team, "a", teammanager.MsgRead, "M3"); err != nil { // backwards: left archived
		t.Fatal(err)
	}
	if got := inboxIDs(t, f, team, "a", teammanager.MailFilter{}); !slices.Equal(got, []string{"M2:read"}) {
		t.Fatalf("a's inbox after read/archive %v", got)
	}
	if got := inboxIDs(t, f, team, "a", teammanager.MailFilter{Status: teammanager.MsgArchived}); !slices.Equal(got, []string{"M3:archived"}) {
		t.Fatalf("a's archive %v", got)
	}
	if err := f.m.MarkMessages(ctx, team, "a", teammanager.MsgRead, "M1"); !errors.Is(err, teammanager.ErrUnknownMessage) {
		t.Fatalf("marking a message a did not receive = %v", err)
	}
	rows, err := selectRows(t, f.m, `SELECT ?type ?to WHERE { GRAPH ?g { ?m a cx:Message ; cx:message:type ?type ; cx:message:to ?to ; cx:message:replyTo ?r } }`, sparql.Options{})
	if err != nil || len(rows) != 3 {
		t.Fatalf("SPARQL rows %q, %v", rows, err)
	}
	hist, err := f.m.History(ctx, team, 2)
	if err != nil || len(hist) != 2 || hist[1].ID != "M3" {
		t.Fatalf("history = %+v, %v", hist, err)
	}
}

// TestMail_Invalid table-tests refused messages: each is an error and
// sends nothing.
func TestMail_Invalid(t *testing.T) {
	f, team := boardFixture(t)
	for _, tt := range []struct {
		name string
		from string
		msg  teammanager.OutMessage
		want error
	}{
		{"unknown type", "a", teammanager.OutMessage{Type: "gossip", Body: "x"}, teammanager.ErrInvalidMessage},
		{"empty body", "a", teammanager.OutMessage{Type: teammanager.MsgStatus}, teammanager.ErrInvalidMessage},
		{"stranger sends", "zed", teammanager.OutMessage{Type: teammanager.MsgStatus, Body: "x"}, teammanager.ErrUnknownAgent},
		{"stranger receives", "a", teammanager.OutMessage{Type: teammanager.MsgStatus, Body: "x", To: []string{"zed"}}, teammanager.ErrInvalidMessage},
		{"stranger receives: an unknown agent", "a", teammanager.OutMessage{Type: teammanager.MsgStatus, Body: "x", To: []string{"b", "zed"}}, teammanager.ErrUnknownAgent},
		{"to itself", "a", teammanager.OutMessage{Type: teammanager.MsgStatus, Body: "x", To: []string{"a"}}, teammanager.ErrInvalidMessage},
		{"reply to nothing", "a", teammanager.OutMessage{Type: teammanager.MsgStatus, Body: "x", ReplyTo: "M9"}, teammanager.ErrInvalidMessage},
		{"unknown task", "a", teammanager.OutMessage{Type: teammanager.MsgTaskClaimed, Body: "x", Task: "T9"}, teammanager.ErrInvalidMessage},
		{"relative attachment", "a", teammanager.OutMessage{Type: teammanager.MsgShareFinding, Body: "x", Attachments: []string{"notes.txt"}}, teammanager.ErrInvalidMessage},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := f.m.SendMessage(ctx, team, tt.from, tt.msg); !errors.Is(err, tt.want) {
				t.Fatalf("SendMessage = %v, want %v", err, tt.want)
			}
			if h, _ := f.m.History(ctx, team, 0); len(h) != 0 {
				t.Fatalf("a refused message was kept: %+v", h)
			}
		})
	}
}

// TestMail_Retention: sends enforce each inbox's count and age limits, and
// a message no inbox holds is removed with its quads.
func TestMail_Retention(t *testing.T) {
	f, team := boardFixture(t)
	if err := f.m.ConfigureMailbox(ctx, team, time.Hour, 3); err != nil {
		t.Fatal(err)
	}
	if err := f.m.ConfigureMailbox(ctx, team, time.Hour, 0); !errors.Is(err, teammanager.ErrInvalidConfig) {
		t.Fatalf("bad retention = %v", err)
	}
	for i := range 5 {
		if _, err := f.m.SendMessage(ctx, team, "a", teammanager.OutMessage{Type: teammanager.MsgStatus, To: []string{"b"}, Body: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if got := inboxIDs(t, f, team, "b", teammanager.MailFilter{}); !slices.Equal(got, []string{"M3:unread", "M4:unread", "M5:unread"}) {
		t.Fatalf("b's inbox past the count %v", got)
	}
	if h, _ := f.m.History(ctx, team, 0); len(h) != 3 {
		t.Fatalf("history keeps %d messages, want 3", len(h))
	}
	f.clock.Advance(2 * time.Hour)
	if _, err := f.m.SendMessage(ctx, team, "a", teammanager.OutMessage{Type: teammanager.MsgStatus, To: []string{"b"}, Body: "late"}); err != nil {
		t.Fatal(err)
	}
	if got := inboxIDs(t, f, team, "b", teammanager.MailFilter{}); !slices.Equal(got, []string{"M6:unread"}) {
		t.Fatalf("b's inbox past the age %v", got)
	}
	if qs := f.graph(t, f.ns.MailGraph(team)); len(qs) == 0 || len(qs) > 10 {
		t.Fatalf("mail graph holds %d quads, want one message's", len(qs))
	}
}

// TestMail_MessageUnchangedByAnotherInboxRetention: a message read back is
// the message sent, whatever retention did to other inboxes. (Message had
// an exported Left, the count of inbox rows still holding it: retention in
// b's inbox changed the message c and History read.)
func TestMail_MessageUnchangedByAnotherInboxRetention(t *testing.T) {
	f, team := boardFixture(t)
	if err := f.m.ConfigureMailbox(ctx, team, 0, 1); err != nil {
		t.Fatal(err)
	}
	sent, err := f.m.SendMessage(ctx, team, "a", teammanager.OutMessage{Type: teammanager.MsgStatus, To: []string{"b", "c"}, Body: "to both"})
	if err != nil {
		t.Fatal(err)
	}
	// b's inbox keeps one message: this one pushes M1 out of it, not out of c's.
	if _, err := f.m.SendMessage(ctx, team, "a", teammanager.OutMessage{Type: teammanager.MsgStatus, To: []string{"b"}, Body: "to b"}); err != nil {
		t.Fatal(err)
	}
	if got := inboxIDs(t, f, team, "b", teammanager.MailFilter{}); !slices.Equal(got, []string{"M2:unread"}) {
		t.Fatalf("b's inbox %v, want M2 only", got)
	}
	h, err := f.m.History(ctx, team, 0)
	if err != nil || len(h) != 2 {
		t.Fatalf("history = %+v, %v", h, err)
	}
	got := h[0]
	if !got.SentAt.Equal(sent.SentAt) {
		t.Fatalf("history M1 sent at %v, want %v", got.SentAt, sent.SentAt)
	}
	got.SentAt = sent.SentAt
	if !reflect.DeepEqual(got, sent) {
		t.Fatalf("history M1 = %+v\nwant the message sent %+v", got, sent)
	}
}
