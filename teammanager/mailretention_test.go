package teammanager_test

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/teammanager"
)

// TestManager_UpdateMailbox: a retention change changes the settings it
// gives and keeps the others (a new team's: the defaults); a setting out
// of range is ErrInvalidConfig and changes nothing.
func TestManager_UpdateMailbox(t *testing.T) {
	f, team := boardFixture(t)
	type want struct {
		age time.Duration
		n   int
	}
	for _, tc := range []struct {
		name string
		u    teammanager.MailboxUpdate
		want want
		err  error
	}{
		{"age of a new team", teammanager.MailboxUpdate{MaxAge: ptr(time.Hour)}, want{time.Hour, teammanager.DefaultMailPerAgent}, nil},
		{"count", teammanager.MailboxUpdate{PerAgent: ptr(5)}, want{time.Hour, 5}, nil},
		{"age 0", teammanager.MailboxUpdate{MaxAge: ptr(time.Duration(0))}, want{0, 5}, nil},
		{"none", teammanager.MailboxUpdate{}, want{0, 5}, nil},
		{"both", teammanager.MailboxUpdate{MaxAge: ptr(time.Minute), PerAgent: ptr(2)}, want{time.Minute, 2}, nil},
		{"count 0", teammanager.MailboxUpdate{PerAgent: ptr(0)}, want{time.Minute, 2}, teammanager.ErrInvalidConfig},
		{"negative age", teammanager.MailboxUpdate{MaxAge: ptr(-time.Second)}, want{time.Minute, 2}, teammanager.ErrInvalidConfig},
		{"good age, bad count", teammanager.MailboxUpdate{MaxAge: ptr(time.Hour), PerAgent: ptr(-1)}, want{time.Minute, 2}, teammanager.ErrInvalidConfig},
	} {
		age, n, err := f.m.UpdateMailbox(ctx, team, tc.u)
		if !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil) {
			t.Fatalf("%s: UpdateMailbox: %v, want %v", tc.name, err, tc.err)
		}
		if err == nil && (age != tc.want.age || n != tc.want.n) {
			t.Fatalf("%s: UpdateMailbox = %v, %d, want %v, %d", tc.name, age, n, tc.want.age, tc.want.n)
		}
		if age, n, err := f.m.MailboxRetention(ctx, team); err != nil || age != tc.want.age || n != tc.want.n {
			t.Fatalf("%s: MailboxRetention = %v, %d, %v, want %v, %d", tc.name, age, n, err, tc.want.age, tc.want.n)
		}
	}
	if _, _, err := f.m.UpdateMailbox(ctx, "nosuch", teammanager.MailboxUpdate{PerAgent: ptr(3)}); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Fatalf("UpdateMailbox of an unknown team: %v, want ErrUnknownTeam", err)
	}
}

// TestManager_UpdateMailbox_Concurrent: two retention changes of different
// settings at once both hold: each reads and changes the settings in one
// write. Run with -race.
func TestManager_UpdateMailbox_Concurrent(t *testing.T) {
	f, team := boardFixture(t)
	for round := range 50 {
		age, n := time.Duration(round+1)*time.Minute, round+1
		var wg sync.WaitGroup
		for _, u := range []teammanager.MailboxUpdate{{MaxAge: &age}, {PerAgent: &n}} {
			wg.Go(func() {
				if _, _, err := f.m.UpdateMailbox(ctx, team, u); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if got, gotN, err := f.m.MailboxRetention(ctx, team); err != nil || got != age || gotN != n {
			t.Fatalf("round %d: retention after %v and %d at once: %v, %d, %v", round, age, n, got, gotN, err)
		}
	}
}

// TestMail_RetentionBoundaries: an inbox keeps a message exactly maxAge
// old ("none older than") and exactly perAgent messages; one nanosecond
// older, or one more, and the oldest goes at the next send.
func TestMail_RetentionBoundaries(t *testing.T) {
	f, team := boardFixture(t)
	if _, _, err := f.m.UpdateMailbox(ctx, team, teammanager.MailboxUpdate{MaxAge: ptr(time.Hour), PerAgent: ptr(3)}); err != nil {
		t.Fatal(err)
	}
	send := func() {
		t.Helper()
		if _, err := f.m.SendMessage(ctx, team, "a", teammanager.OutMessage{Type: teammanager.MsgStatus, To: []string{"b"}, Body: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	inbox := func() []string {
		t.Helper()
		in, err := f.m.Inbox(ctx, team, "b", teammanager.MailFilter{})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, m := range in {
			ids = append(ids, m.ID)
		}
		return ids
	}
	send() // M1
	f.clock.Advance(time.Hour)
	send() // M2: M1 is exactly an hour old
	if got := inbox(); !slices.Equal(got, []string{"M1", "M2"}) {
		t.Fatalf("inbox with M1 exactly maxAge old: %v, want [M1 M2]", got)
	}
	f.clock.Advance(time.Nanosecond)
	send() // M3: M1 is older than an hour
	if got := inbox(); !slices.Equal(got, []string{"M2", "M3"}) {
		t.Fatalf("inbox with M1 a nanosecond past maxAge: %v, want [M2 M3]", got)
	}
	send() // M4: three messages, as many as kept
	if got := inbox(); !slices.Equal(got, []string{"M2", "M3", "M4"}) {
		t.Fatalf("inbox of perAgent messages: %v, want [M2 M3 M4]", got)
	}
	send() // M5: one more
	if got := inbox(); !slices.Equal(got, []string{"M3", "M4", "M5"}) {
		t.Fatalf("inbox past perAgent: %v, want [M3 M4 M5]", got)
	}
	if h, err := f.m.History(ctx, team, 0); err != nil || len(h) != 3 || h[0].ID != "M3" {
		t.Fatalf("history after retention: %d messages, %v; want M3, M4, M5", len(h), err)
	}
	if err := teammanager.CheckMailbox(f.m, ctx, team); err != nil {
		t.Fatal(err)
	}
}
