package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/api"
)

// TestCLI_TeamsSnapshot runs create, list, get, restore (dry run, then
// --apply, after the team's deletion) and delete, and their errors.
func TestCLI_TeamsSnapshot(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "crew", "--name", "crew", "--member", "ann:lead", "--member", "bob:worker", "--timeout", "-1")
	var s struct {
		ID, Team, Note, Lifecycle string
		Quads                     int
		Graphs                    []struct{ Graph string }
	}
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "teams", "snapshot", "create", "crew", "--note", "start", "--json")), &s); err != nil ||
		s.ID != "S1" || s.Team != "crew" || s.Note != "start" || s.Quads == 0 || len(s.Graphs) == 0 {
		t.Fatalf("create --json: %+v (%v)", s, err)
	}
	// A table with a header, as every other listing (it was tab-separated
	// rows without one).
	if out := mustCLI(t, dir, "teams", "snapshot", "list", "crew"); !strings.HasPrefix(out, "SNAPSHOT  CREATED ") || !strings.Contains(out, "\nS1  ") || strings.Contains(out, "\t") || !strings.Contains(out, "start") {
		t.Fatalf("list: %q", out)
	}
	if out := mustCLI(t, dir, "teams", "snapshot", "get", "crew", "S1"); !strings.Contains(out, "snapshot S1 of team crew") {
		t.Fatalf("get: %q", out)
	}
	if out := mustCLI(t, dir, "teams", "snapshot", "restore", "crew", "S1"); !strings.Contains(out, "nothing to restore") {
		t.Fatalf("restore of an unchanged team: %q", out)
	}
	mustCLI(t, dir, "teams", "delete", "crew", "--disband")
	out := mustCLI(t, dir, "teams", "snapshot", "restore", "crew", "S1")
	if !strings.Contains(out, "would change") || !strings.Contains(out, "dry run: nothing written") {
		t.Fatalf("dry run: %q", out)
	}
	if r := runCLI(t, dir, "", "teams", "get", "crew"); r.code != exitNotFound {
		t.Fatalf("a dry run recreated the team: exit %d", r.code)
	}
	var d api.SnapshotRestore
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "teams", "snapshot", "restore", "crew", "S1", "--apply", "--json")), &d); err != nil ||
		!d.Applied || len(d.Add) != s.Quads || len(d.Remove) != 0 {
		t.Fatalf("restore --apply --json: applied %v, %d added (want %d), %d removed (%v)", d.Applied, len(d.Add), s.Quads, len(d.Remove), err)
	}
	var team struct{ ID, Lifecycle string }
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "teams", "get", "crew", "--json")), &team); err != nil || team.ID != "crew" || team.Lifecycle != s.Lifecycle {
		t.Fatalf("restored team: %+v (%v), want lifecycle %s", team, err, s.Lifecycle)
	}
	mustCLI(t, dir, "teams", "snapshot", "delete", "crew", "S1")
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"deleted snapshot", []string{"teams", "snapshot", "get", "crew", "S1"}, exitNotFound, "unknown snapshot"},
		{"unknown team", []string{"teams", "snapshot", "create", "nope"}, exitNotFound, "unknown team"},
		{"missing snapshot", []string{"teams", "snapshot", "restore", "crew"}, exitUsage, "teams snapshot restore: want TEAM SNAPSHOT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, "", tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
				t.Fatalf("exit %d, stderr %q; want %d, %q", r.code, r.stderr, tc.code, tc.msg)
			}
		})
	}
}

// TestCLI_TeamsSnapshot_ListEscapesNote: snapshot list prints one line per
// snapshot, whatever its note holds: a newline or an escape sequence in a
// note is escaped as in every table, not written to the terminal (where it
// would forge a line or move the cursor).
func TestCLI_TeamsSnapshot_ListEscapesNote(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "crew", "--name", "crew", "--member", "ann:lead", "--member", "bob:worker", "--timeout", "-1")
	mustCLI(t, dir, "teams", "snapshot", "create", "crew", "--note", "start\nS9\t2000-01-01T00:00:00Z\tactive\t0 quads\tforged\x1b[2K")
	out := mustCLI(t, dir, "teams", "snapshot", "list", "crew")
	if strings.Count(out, "\n") != 2 || strings.ContainsRune(out, '\x1b') || !strings.Contains(out, `start\nS9\t2000`) {
		t.Fatalf("list: %q; want a header and one line, the note escaped", out)
	}
}
