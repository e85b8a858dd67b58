package teammanager_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/teammanager"
)

// TestMail_SendMarkRetentionAtOnce: sends (to one member and to all),
// marks, inbox reads and retention changes at once leave a consistent
// mailbox: every message held by as many inboxes as it counts, the mail
// graph holding exactly the messages kept, each inbox's head counting its
// rows, and no inbox over the retention once a send reached it. Run with
// -race.
func TestMail_SendMarkRetentionAtOnce(t *testing.T) {
	f, team := boardFixture(t)
	members := []string{"lead", "a", "b", "c"}
	var wg sync.WaitGroup
	for i, from := range members {
		wg.Go(func() {
			for k := range 40 {
				msg := teammanager.OutMessage{Type: teammanager.MsgStatus, Body: fmt.Sprintf("%s %d", from, k)}
				if k%3 != 0 {
					msg.To = []string{members[(i+1+k)%len(members)]}
					if msg.To[0] == from {
						msg.To = nil
					}
				}
				if _, err := f.m.SendMessage(ctx, team, from, msg); err != nil {
					t.Error(err)
					return
				}
			}
		})
		wg.Go(func() {
			for range 30 {
				in, err := f.m.Inbox(ctx, team, from, teammanager.MailFilter{})
				if err != nil {
					t.Error(err)
					return
				}
				for j, m := range in {
					status := teammanager.MsgRead
					if j%2 == 1 {
						status = teammanager.MsgArchived
					}
					// Retention may have removed it since: that one only.
					if err := f.m.MarkMessages(ctx, team, from, status, m.ID); err != nil && !errors.Is(err, teammanager.ErrUnknownMessage) {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Go(func() {
		for k := range 30 {
			n := 1 + k%4
			age := time.Duration(k%3) * time.Hour
			if _, _, err := f.m.UpdateMailbox(ctx, team, teammanager.MailboxUpdate{PerAgent: &n}); err != nil {
				t.Error(err)
				return
			}
			if _, _, err := f.m.UpdateMailbox(ctx, team, teammanager.MailboxUpdate{MaxAge: &age}); err != nil {
				t.Error(err)
				return
			}
			f.clock.Advance(20 * time.Minute)
		}
	})
	wg.Wait()
	if err := teammanager.CheckMailbox(f.m, ctx, team); err != nil {
		t.Fatal(err)
	}
	if err := teammanager.CheckBoard(f.m, ctx, team); err != nil {
		t.Fatal(err)
	}
	// One more send to each member enforces the retention last set.
	if _, _, err := f.m.UpdateMailbox(ctx, team, teammanager.MailboxUpdate{PerAgent: ptr(2)}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := f.m.SendMessage(ctx, team, "lead", teammanager.OutMessage{Type: teammanager.MsgStatus, Body: "last"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range members[1:] {
		for _, st := range []teammanager.MessageStatus{teammanager.MsgUnread, teammanager.MsgRead, teammanager.MsgArchived} {
			in, err := f.m.Inbox(ctx, team, a, teammanager.MailFilter{Status: st})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range in {
				if m.Body != "last" {
					t.Errorf("%s's inbox keeps %s %q (%s) past a retention of 2", a, m.ID, m.Body, st)
				}
			}
		}
	}
	if err := teammanager.CheckMailbox(f.m, ctx, team); err != nil {
		t.Fatal(err)
	}
}
