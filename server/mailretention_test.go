package server_test

import (
	"sync"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/server"
)

// TestRPC_ChatConfigure_PartialUpdate: teams.chat.configure changes the
// settings its params give and keeps those absent (an absent perAgent was
// read as 0 and refused; an absent maxAge as 0, "whatever their age"), and
// answers the retention after the change. Two partial changes sent at once
// both hold: each is one read-modify-write in the store's write.
func TestRPC_ChatConfigure_PartialUpdate(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	ts.ok("acme", "teams.create", api.TeamConfig{ID: "crew", Name: "crew",
		Members: []api.MemberConfig{{Agent: "ann", Role: "lead"}, {Agent: "bob", Role: "dev"}}}, nil)
	retention := func() api.MailRetention {
		var r api.MailRetention
		ts.ok("acme", "teams.chat.retention", map[string]any{"team": "crew"}, &r)
		return r
	}
	for _, tc := range []struct {
		name   string
		params map[string]any
		want   api.MailRetention
	}{
		{"both", map[string]any{"team": "crew", "maxAge": 7200, "perAgent": 50}, api.MailRetention{Team: "crew", MaxAge: 7200, PerAgent: 50}},
		{"perAgent only", map[string]any{"team": "crew", "perAgent": 9}, api.MailRetention{Team: "crew", MaxAge: 7200, PerAgent: 9}},
		{"maxAge only", map[string]any{"team": "crew", "maxAge": 60}, api.MailRetention{Team: "crew", MaxAge: 60, PerAgent: 9}},
		{"maxAge 0 given", map[string]any{"team": "crew", "maxAge": 0}, api.MailRetention{Team: "crew", MaxAge: 0, PerAgent: 9}},
		{"null is absent", map[string]any{"team": "crew", "maxAge": 30, "perAgent": nil}, api.MailRetention{Team: "crew", MaxAge: 30, PerAgent: 9}},
		{"neither", map[string]any{"team": "crew"}, api.MailRetention{Team: "crew", MaxAge: 30, PerAgent: 9}},
	} {
		// (ts.ok fails the test it was served for: no subtests.)
		var got api.MailRetention
		ts.ok("acme", "teams.chat.configure", tc.params, &got)
		if got != tc.want {
			t.Fatalf("%s: teams.chat.configure %v = %+v, want %+v", tc.name, tc.params, got, tc.want)
		}
		if r := retention(); r != tc.want {
			t.Fatalf("%s: teams.chat.retention after %v = %+v, want %+v", tc.name, tc.params, r, tc.want)
		}
	}

	// Any age a time.Duration holds (a server refused one over 2^62 ns,
	// which the Manager takes); beyond, refused and nothing changes.
	var got api.MailRetention
	ts.ok("acme", "teams.chat.configure", map[string]any{"team": "crew", "maxAge": 7.2e9}, &got)
	if want := (api.MailRetention{Team: "crew", MaxAge: 7.2e9, PerAgent: 9}); got != want || retention() != want {
		t.Fatalf("teams.chat.configure maxAge 7.2e9 s = %+v, want %+v", got, want)
	}
	if r := ts.call("acme", "teams.chat.configure", map[string]any{"team": "crew", "maxAge": 1e10}); r.Error == nil || r.Error.Data.ExitCode != 7 {
		t.Fatalf("teams.chat.configure maxAge 1e10 s: %+v, %s, want exit 7", r.Error, r.Result)
	}
	if r := retention(); r.MaxAge != 7.2e9 {
		t.Fatalf("retention after a refused maxAge: %+v", r)
	}

	// Concurrent partial changes: each of the last ones holds.
	for round := range 20 {
		age, n := float64(100+round), 1+round
		var wg sync.WaitGroup
		wg.Add(2)
		for _, p := range []map[string]any{{"team": "crew", "maxAge": age}, {"team": "crew", "perAgent": n}} {
			go func() {
				defer wg.Done()
				if r := ts.call("acme", "teams.chat.configure", p); r.Error != nil {
					t.Errorf("teams.chat.configure %v: %s", p, r.Error.Message)
				}
			}()
		}
		wg.Wait()
		if r := retention(); r.MaxAge != age || r.PerAgent != n {
			t.Fatalf("round %d: retention after maxAge %v and perAgent %d at once: %+v", round, age, n, r)
		}
	}
}
