package teammanager_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cortexgraph/cortex/teammanager"
)

// TestMail_InboxWhileRetentionRemoves: reading an inbox while sends
// remove its oldest messages for retention never fails: a message the
// retention removed between the read of its inbox row and the read of
// the message is simply no longer in the inbox. (Inbox failed with
// "unknown message" for it.) Run with -race.
func TestMail_InboxWhileRetentionRemoves(t *testing.T) {
	f, team := boardFixture(t)
	if err := f.m.ConfigureMailbox(ctx, team, 0, 1); err != nil {
		t.Fatal(err)
	}
	var (
		wg      sync.WaitGroup
		done    atomic.Bool
		mu      sync.Mutex
		readErr error
	)
	wg.Go(func() {
		defer done.Store(true)
		for range 300 {
			if _, err := f.m.SendMessage(ctx, team, "a", teammanager.OutMessage{Type: teammanager.MsgStatus, To: []string{"b"}, Body: "tick"}); err != nil {
				mu.Lock()
				readErr = err
				mu.Unlock()
				return
			}
		}
	})
	for range 2 {
		wg.Go(func() {
			for !done.Load() {
				in, err := f.m.Inbox(ctx, team, "b", teammanager.MailFilter{})
				if err == nil && len(in) > 1 {
					t.Errorf("inbox of %d messages, retention keeps 1", len(in))
				}
				if err != nil {
					mu.Lock()
					readErr = err
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	if readErr != nil {
		t.Fatal(readErr)
	}
}
