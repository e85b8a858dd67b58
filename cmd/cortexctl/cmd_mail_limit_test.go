package main

import (
	"strings"
	"testing"
)

// TestCLI_MailHistoryLimitRange: --limit out of range exits 7 and says
// which values are taken: one too large was refused as if it were below 0
// ("want a number of messages ≥ 0").
func TestCLI_MailHistoryLimitRange(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	for _, tc := range []struct {
		limit, want string
	}{
		{"-1", "--limit -1: want 0 (all) to 2147483648 messages"},
		{"2147483649", "--limit 2147483649: want 0 (all) to 2147483648 messages"},
	} {
		r := runCLI(t, dir, "", "mail", "history", "crew", "--limit", tc.limit)
		if r.code != exitInvalid || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("mail history --limit %s: exit %d %q, want exit %d and %q", tc.limit, r.code, r.stderr, exitInvalid, tc.want)
		}
	}
	if r := runCLI(t, dir, "", "mail", "history", "crew", "--limit", "2147483648"); r.code != exitOK {
		t.Errorf("mail history --limit 2147483648: exit %d %s", r.code, r.stderr)
	}
}
