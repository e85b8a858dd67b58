package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/api"
)

func fixturePath(parts ...string) string {
	return filepath.Join(append([]string{"..", "..", "fixtures"}, parts...)...)
}

func TestCLI_Teams(t *testing.T) {
	dir := t.TempDir()
	var created struct{ ID string }
	out := mustCLI(t, dir, "teams", "create", "--name", "review", "--strategy", "majority-wins",
		"--member", "ann:lead:api", "--member", "bob:reviewer", "--timeout", "60", "--json")
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.ID == "" {
		t.Fatalf("create --json: %q (%v)", out, err)
	}
	mustCLI(t, dir, "teams", "member-status", created.ID, "ann", "running")
	var team struct {
		ID, Name, Status, Strategy string
		Members                    []struct{ Agent, Role, Status, Task string }
	}
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "teams", "get", created.ID, "--json")), &team); err != nil {
		t.Fatal(err)
	}
	if team.Status != "running" || team.Strategy != "majority-wins" || len(team.Members) != 2 ||
		team.Members[0].Agent != "ann" || team.Members[0].Status != "running" || team.Members[0].Task != "api" || team.Members[1].Role != "reviewer" {
		t.Fatalf("get --json: %+v", team)
	}
	mustCLI(t, dir, "teams", "create", "--from", fixturePath("teams", "vote.json5"))
	var list []struct{ ID, Status string }
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "teams", "list", "--json")), &list); err != nil || len(list) != 2 || list[1].ID != "release-vote" {
		t.Fatalf("list --json: %+v (%v)", list, err)
	}
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "teams", "list", "--status", "pending", "--json")), &list); err != nil || len(list) != 1 {
		t.Fatalf("list --status pending: %+v (%v)", list, err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"unknown team", []string{"teams", "get", "nope"}, exitNotFound, "unknown team"},
		{"unknown agent", []string{"teams", "member-status", created.ID, "zed", "running"}, exitNotFound, "unknown agent"},
		{"bad transition", []string{"teams", "member-status", created.ID, "bob", "completed"}, exitConflict, "pending → completed"},
		{"bad status", []string{"teams", "member-status", created.ID, "bob", "paused"}, exitInvalid, "invalid status"},
		{"no members", []string{"teams", "create", "--name", "x"}, exitUsage, "need --member"},
		{"unknown strategy", []string{"teams", "create", "--name", "x", "--member", "a", "--strategy", "coin"}, exitInvalid, "unknown merge strategy"},
		{"timeout overflow", []string{"teams", "create", "--name", "x", "--member", "a", "--timeout", "9223372037"}, exitInvalid, "too large"},
		{"duplicate id", []string{"teams", "create", "--from", fixturePath("teams", "vote.json5")}, exitConflict, "already exists"},
		{"missing args", []string{"teams", "get"}, exitUsage, "want TEAM"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, "", tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
				t.Fatalf("exit %d (want %d), stderr %q (want %q)", r.code, tc.code, r.stderr, tc.msg)
			}
		})
	}
	if r := runCLI(t, dir, "", "teams", "delete", "release-vote"); r.code != exitConflict || !strings.Contains(r.stderr, "disband it first") {
		t.Fatalf("delete a forming team: exit %d, stderr %q", r.code, r.stderr)
	}
	mustCLI(t, dir, "teams", "delete", "release-vote", "--disband")
	if r := runCLI(t, dir, "", "teams", "get", "release-vote"); r.code != exitNotFound {
		t.Fatalf("deleted team: exit %d", r.code)
	}
	if out := mustCLI(t, dir, "strategies"); !strings.Contains(out, "conflict-flag\n") || !strings.Contains(out, "confidence-weighted") {
		t.Fatalf("strategies: %q", out)
	}
	for _, cmd := range [][]string{{"teams", "create"}, {"teams", "merge"}, {"findings", "add"}, {"conflicts", "resolve"}, {"strategies"}} {
		if out := mustCLI(t, dir, append(cmd, "--help")...); !strings.Contains(out, "Example") {
			t.Errorf("%v --help has no example", cmd)
		}
	}
}

// TestCLI_TeamMerge runs the 3-member vote fixture end to end and checks the
// --json shape of teams merge.
func TestCLI_TeamMerge(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--from", fixturePath("teams", "vote.json5"))
	for _, a := range []string{"erin", "frank", "grace"} {
		mustCLI(t, dir, "teams", "member-status", "release-vote", a, "running")
		mustCLI(t, dir, "findings", "import", "release-vote", a, fixturePath("findings", "release-vote-"+a+".ttl"))
		mustCLI(t, dir, "teams", "member-status", "release-vote", a, "completed", "--result", "voted")
	}
	var rep struct {
		Strategy  string
		Kept      int
		Conflicts int
		Unchanged bool
		Members   []struct {
			Agent             string
			Contributed, Kept int
		}
		Facts []struct{ Subject, Predicate, Object string }
	}
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "teams", "merge", "release-vote", "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	// ready: yes (erin, grace) beats no; blocker: flaky-e2e (frank, grace).
	if rep.Strategy != "majority-wins" || rep.Kept != 2 || rep.Conflicts != 0 || !rep.Unchanged || len(rep.Members) != 3 ||
		rep.Members[1].Agent != "frank" || rep.Members[1].Contributed != 2 || rep.Members[1].Kept != 1 {
		t.Fatalf("merge --json: %+v", rep)
	}
	objs := rep.Facts[0].Object + " " + rep.Facts[1].Object
	if !strings.Contains(objs, "<https://example.org/release/flaky-e2e>") || !strings.Contains(objs, `"yes"`) {
		t.Fatalf("facts %+v", rep.Facts)
	}
	shared := mustCLI(t, dir, "export", "--graph", "urn:cortex:default:team:release-vote:graph:shared", "--format", "ntriples")
	if strings.Count(shared, "\n") != 2 {
		t.Fatalf("shared graph export:\n%s", shared)
	}
}

// TestCLI_TeamLifecycle: teams pause, resume and disband, the lifecycle in
// teams list and get, and the refusals a paused or disbanded team gives.
func TestCLI_TeamLifecycle(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "t1", "--name", "n", "--member", "ann", "--member", "bob")
	if r := runCLI(t, dir, "", "teams", "pause", "t1"); r.code != exitConflict || !strings.Contains(r.stderr, "forming → paused") {
		t.Fatalf("pause a forming team: exit %d, stderr %q", r.code, r.stderr)
	}
	mustCLI(t, dir, "teams", "member-status", "t1", "ann", "running")
	if out := mustCLI(t, dir, "teams", "pause", "t1"); out != "team t1 is paused\n" {
		t.Fatalf("pause: %q", out)
	}
	if out := mustCLI(t, dir, "teams", "list", "--lifecycle", "paused"); !strings.Contains(out, "LIFECYCLE") || !strings.Contains(out, "t1") || !strings.Contains(out, "paused") {
		t.Fatalf("list --lifecycle paused: %q", out)
	}
	if out := mustCLI(t, dir, "teams", "list", "--lifecycle", "active"); strings.Contains(out, "t1") {
		t.Fatalf("list --lifecycle active lists the paused team: %q", out)
	}
	if out := mustCLI(t, dir, "teams", "get", "t1"); !strings.Contains(out, "running (paused)") || !strings.Contains(out, "teams resume t1") {
		t.Fatalf("get: %q", out)
	}
	if r := runCLI(t, dir, "", "findings", "add", "t1", "ann", "<http://ex/s>", "<http://ex/p>", "o"); r.code != exitConflict || !strings.Contains(r.stderr, "paused") {
		t.Fatalf("finding while paused: exit %d, stderr %q", r.code, r.stderr)
	}
	var resumed api.Team
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "teams", "resume", "t1", "--json")), &resumed); err != nil || resumed.Lifecycle != "active" || resumed.PausedFor <= 0 {
		t.Fatalf("resume --json: %+v, %v", resumed, err)
	}
	mustCLI(t, dir, "teams", "disband", "t1")
	if r := runCLI(t, dir, "", "teams", "member-status", "t1", "bob", "running"); r.code != exitConflict || !strings.Contains(r.stderr, "disbanded") {
		t.Fatalf("member update of a disbanded team: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runCLI(t, dir, "", "teams", "list", "--lifecycle", "sleeping"); r.code != exitInvalid {
		t.Fatalf("bad --lifecycle: exit %d, stderr %q", r.code, r.stderr)
	}
	mustCLI(t, dir, "teams", "delete", "t1")
}

// TestCLI_TeamsCreateInvalidCreatesNothing: teams create with a config
// CreateTeam refuses (exit 7) creates neither the store in --data nor
// the namespace of -n.
func TestCLI_TeamsCreateInvalidCreatesNothing(t *testing.T) {
	store := t.TempDir()
	mustCLI(t, store, "teams", "create", "--id", "t1", "--name", "n", "--member", "ann")
	for name, args := range map[string][]string{
		"agent id":        {"--name", "x", "--member", "Bad Id"},
		"team id":         {"--name", "x", "--id", "BAD!", "--member", "ann"},
		"strategy":        {"--name", "x", "--member", "ann", "--strategy", "nope"},
		"member twice":    {"--name", "x", "--member", "ann", "--member", "ann:lead"},
		"blank name":      {"--from", writeFile(t, "team.json5", `{name: " ", members: [{agent: "ann"}]}`)},
		"too many":        {"--name", "x", "--member", "a1", "--member", "a2", "--member", "a3", "--member", "a4", "--member", "a5", "--member", "a6", "--member", "a7", "--member", "a8", "--member", "a9"},
		"no member":       {"--from", writeFile(t, "team.json5", `{name: "x", members: []}`)},
		"tie-breaker":     {"--from", writeFile(t, "team.json5", `{name: "x", tieBreaker: "bob", members: [{agent: "ann"}]}`)},
		"threshold range": {"--from", writeFile(t, "team.json5", `{name: "x", threshold: 2, members: [{agent: "ann"}]}`)},
	} {
		t.Run(name, func(t *testing.T) {
			missing := filepath.Join(t.TempDir(), "missing")
			r := runCLI(t, missing, "", append([]string{"teams", "create"}, args...)...)
			if r.code != exitInvalid || !strings.Contains(r.stderr, "invalid team config") {
				t.Fatalf("missing store: exit %d, stderr %q", r.code, r.stderr)
			}
			if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("%s was created (%v)", missing, err)
			}
			r = runCLI(t, store, "", append([]string{"-n", "fresh", "teams", "create"}, args...)...)
			if r.code != exitInvalid || !strings.Contains(r.stderr, "invalid team config") {
				t.Fatalf("new namespace: exit %d, stderr %q", r.code, r.stderr)
			}
			if out := mustCLI(t, store, "namespaces", "list", "--json"); strings.Contains(out, "fresh") {
				t.Fatalf("namespace fresh was created: %s", out)
			}
		})
	}
}

// TestCLI_TeamsCreateCriticalNotMember: a --critical that names no member
// is a usage error (exit 2) whose message quotes it: a newline in it does
// not forge a line on stderr.
func TestCLI_TeamsCreateCriticalNotMember(t *testing.T) {
	dir := t.TempDir()
	r := runCLI(t, dir, "", "teams", "create", "--name", "n", "--member", "ann", "--critical", "bob\ncortexctl: forged")
	if r.code != exitUsage || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, `--critical "bob\ncortexctl: forged" is not a --member`) {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestCLI_TeamsCreateFromExactKeys: a --from team file's keys are matched
// exactly, as the params of the server's teams.create are: a key in
// another case ("Members" for "members"), at the top or in a member, is an
// invalid value (exit 7) that names it and creates nothing. encoding/json
// took it for the key it folds to. So is a key given twice (the JSON5
// parser kept the last) and nesting past 200 levels.
func TestCLI_TeamsCreateFromExactKeys(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct{ file, msg string }{
		"top-level key": {`{id: "t1", name: "x", Members: [{agent: "ann"}]}`,
			`unknown field "Members" (field names are case-sensitive; did you mean "members"?)`},
		"member key": {`{id: "t1", name: "x", members: [{agent: "ann"}, {AGENT: "bob"}]}`,
			`members[1]: unknown field "AGENT" (field names are case-sensitive; did you mean "agent"?)`},
		"camel-case key": {`{id: "t1", name: "x", tiebreaker: "ann", members: [{agent: "ann"}]}`,
			`unknown field "tiebreaker" (field names are case-sensitive; did you mean "tieBreaker"?)`},
		"top-level key given twice": {"{id: \"t1\", name: \"x\",\n members: [{agent: \"ann\"}],\n name: \"y\"}",
			`line 3: duplicate key "name"`},
		"member key given twice": {"{id: \"t1\", name: \"x\", members: [{agent: \"ann\", 'agent': \"bob\"}]}",
			`line 1: duplicate key "agent"`},
		"key given twice, escaped": {`{id: "t1", name: "x", "n\u0061me": "y", members: [{agent: "ann"}]}`,
			`line 1: duplicate key "name"`},
		"nested past 200 levels": {`{id: "t1", name: "x", members: [{agent: "ann"}], context: ` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`,
			`line 1: nested more than 200 levels deep`},
	} {
		t.Run(name, func(t *testing.T) {
			r := runCLI(t, dir, "", "teams", "create", "--from", writeFile(t, "team.json5", tc.file))
			if r.code != exitInvalid || !strings.Contains(r.stderr, tc.msg) {
				t.Fatalf("exit %d, stderr %q, want exit 7 and %q", r.code, r.stderr, tc.msg)
			}
		})
	}
	if r := runCLI(t, dir, "", "teams", "get", "t1"); r.code != exitNotFound {
		t.Fatalf("teams get t1 after the refused files: exit %d\n%s", r.code, r.stdout)
	}
	mustCLI(t, dir, "teams", "create", "--from", writeFile(t, "team.json5", `{id: "t1", name: "x", tieBreaker: "ann", members: [{agent: "ann"}]}`))
}

// TestCLI_TeamsCreateFromByteOrderMark: a --from team file that starts
// with a UTF-8 byte order mark (as Windows editors save it; JSON5 counts
// U+FEFF as white space) is read as without it, as definitions and the
// config file are: it was a syntax error (invalid character 'ï').
func TestCLI_TeamsCreateFromByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--from", writeFile(t, "team.json5", "\ufeff{id: \"t1\", name: \"x\", members: [{agent: \"ann\"}]}"))
	mustCLI(t, dir, "teams", "get", "t1")
}

// TestCLI_UnknownSubjects: a listing whose subject (TEAM, RUN, --as
// AGENT) does not exist exits 3 (not found) naming it; a filter that
// matches nothing, or a team with nothing to list, is an empty list (exit
// 0). A deleted team's snapshots are still listed; once it has none left
// it is no team at all. Nothing of it writes.
func TestCLI_UnknownSubjects(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	mustCLI(t, dir, "tasks", "create", "crew", "a")
	for _, team := range []string{"old", "bare"} {
		mustCLI(t, dir, "teams", "create", "--id", team, "--name", team, "--member", "ann:lead")
		mustCLI(t, dir, "teams", "snapshot", "create", team)
		mustCLI(t, dir, "teams", "disband", team)
		mustCLI(t, dir, "teams", "delete", team)
	}
	mustCLI(t, dir, "teams", "snapshot", "delete", "bare", "S1")
	before := mustCLI(t, dir, "export")
	const noTeam, noBare = `team "nope": unknown team`, `team "bare": unknown team`
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // in stderr (exit 3), or the whole --json stdout (exit 0)
	}{
		{"snapshots of no team", []string{"teams", "snapshot", "list", "nope"}, exitNotFound, noTeam},
		{"snapshots of a deleted team with none left", []string{"teams", "snapshot", "list", "bare"}, exitNotFound, noBare},
		{"findings of no team", []string{"findings", "list", "nope"}, exitNotFound, noTeam},
		{"facts of no team", []string{"facts", "list", "nope"}, exitNotFound, noTeam},
		{"conflicts of no team", []string{"conflicts", "list", "nope"}, exitNotFound, noTeam},
		{"tasks of no team", []string{"tasks", "list", "nope"}, exitNotFound, noTeam},
		{"board of no team", []string{"tasks", "board", "nope"}, exitNotFound, noTeam},
		{"task comments of no team", []string{"tasks", "comments", "nope", "T1"}, exitNotFound, noTeam},
		{"task history of no team", []string{"tasks", "history", "nope", "T1"}, exitNotFound, noTeam},
		{"mail history of no team", []string{"mail", "history", "nope"}, exitNotFound, noTeam},
		{"inbox of no team", []string{"mail", "inbox", "nope", "--as", "bob"}, exitNotFound, noTeam},
		{"thread of no team", []string{"mail", "thread", "nope", "M1"}, exitNotFound, noTeam},
		{"plans of no team", []string{"plans", "list", "nope"}, exitNotFound, noTeam},
		{"findings of a deleted team", []string{"findings", "list", "old"}, exitNotFound, `team "old": unknown team`},
		{"inbox of no member", []string{"mail", "inbox", "crew", "--as", "zed"}, exitNotFound, `agent "zed": unknown agent`},
		{"findings of no member", []string{"findings", "list", "crew", "--agent", "zed"}, exitNotFound, `agent "zed": unknown agent`},
		{"tasks of no member", []string{"tasks", "list", "crew", "--assignee", "zed"}, exitNotFound, `assignee "zed": unknown agent`},
		{"history of no run", []string{"workflows", "history", "nope"}, exitNotFound, `run "nope": unknown run`},
		{"snapshots of a team without any", []string{"teams", "snapshot", "list", "crew", "--json"}, exitOK, "[]\n"},
		{"tasks matching no status", []string{"tasks", "list", "crew", "--status", "failed", "--json"}, exitOK, "[]\n"},
		{"no open conflicts", []string{"conflicts", "list", "crew", "--open", "--json"}, exitOK, "[]\n"},
		{"facts of no such subject", []string{"facts", "list", "crew", "--subject", "<http://ex/none>", "--json"}, exitOK, "[]\n"},
		{"no archived mail", []string{"mail", "inbox", "crew", "--as", "bob", "--status", "archived", "--json"}, exitOK, "[]\n"},
		{"no failed teams", []string{"teams", "list", "--status", "failed", "--json"}, exitOK, "[]\n"},
		{"no cancelled runs", []string{"workflows", "list", "--status", "cancelled", "--json"}, exitOK, "[]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, "", tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit %d (want %d), stdout %q, stderr %q", r.code, tc.code, r.stdout, r.stderr)
			}
			if tc.code == exitOK && r.stdout != tc.want || tc.code != exitOK && !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("stdout %q, stderr %q; want %q", r.stdout, r.stderr, tc.want)
			}
		})
	}
	out := mustCLI(t, dir, "teams", "snapshot", "list", "old")
	if !strings.Contains(out, "\nS1  ") || strings.Count(out, "\n") != 2 {
		t.Fatalf("snapshots of a deleted team: %q, want S1", out)
	}
	if after := mustCLI(t, dir, "export"); after != before {
		t.Fatalf("listings changed the store:\n%s\nwas\n%s", after, before)
	}
}

// TestCLI_MalformedIDs: a well-formed id of a team, agent, task, message,
// conflict or snapshot that the store does not have is not found (exit
// 3); one that nothing can have ("a/b", "X1") is an invalid value (exit
// 7), whichever command or flag it is given to, and changes nothing.
func TestCLI_MalformedIDs(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	mustCLI(t, dir, "tasks", "create", "crew", "a")
	mustCLI(t, dir, "mail", "send", "crew", "hi", "--as", "ann", "--to", "bob")
	before := mustCLI(t, dir, "export")
	const wantTeam = `invalid id (unknown team; want 1 to 64 characters of A-Z a-z 0-9 . _ @ + -)`
	const wantAgent = `invalid id (unknown agent; want 1 to 64 characters of A-Z a-z 0-9 . _ @ + -)`
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"team", []string{"teams", "get", "nope"}, exitNotFound, `team "nope": unknown team`},
		{"malformed team", []string{"teams", "get", "a/b"}, exitInvalid, `team "a/b": ` + wantTeam},
		{"malformed team of a board", []string{"tasks", "list", "a/b"}, exitInvalid, wantTeam},
		{"malformed team of a mailbox", []string{"mail", "history", "a/b"}, exitInvalid, wantTeam},
		{"malformed team of findings", []string{"findings", "list", "a b"}, exitInvalid, wantTeam},
		{"malformed team of snapshots", []string{"teams", "snapshot", "list", "a/b"}, exitInvalid, wantTeam},
		{"malformed team of a snapshot", []string{"teams", "snapshot", "get", "a/b", "S1"}, exitInvalid, wantTeam},
		{"agent", []string{"teams", "member-status", "crew", "zed", "running"}, exitNotFound, `agent "zed": unknown agent`},
		{"malformed agent", []string{"teams", "member-status", "crew", "z/z", "running"}, exitInvalid, `agent "z/z": ` + wantAgent},
		{"malformed --agent", []string{"findings", "list", "crew", "--agent", "z/z"}, exitInvalid, wantAgent},
		{"malformed --as", []string{"tasks", "claim", "crew", "T1", "--as", "z/z"}, exitInvalid, wantAgent},
		{"malformed --assignee", []string{"tasks", "create", "crew", "x", "--assignee", "z/z"}, exitInvalid, wantAgent},
		{"malformed --to", []string{"mail", "send", "crew", "hi", "--as", "bob", "--to", "z/z"}, exitInvalid, wantAgent},
		{"malformed --lead", []string{"tasks", "board", "crew", "--lead", "z/z"}, exitInvalid, wantAgent},
		{"task", []string{"tasks", "get", "crew", "T9"}, exitNotFound, `task "T9": unknown task`},
		{"malformed task", []string{"tasks", "get", "crew", "X1"}, exitInvalid, `task "X1": invalid id (unknown task; want T1, T2, ...)`},
		{"malformed --blocked-by", []string{"tasks", "create", "crew", "x", "--blocked-by", "T/1"}, exitInvalid, "want T1, T2, ..."},
		{"malformed --task", []string{"mail", "send", "crew", "hi", "--as", "bob", "--task", "T01"}, exitInvalid, "want T1, T2, ..."},
		{"message", []string{"mail", "thread", "crew", "M9"}, exitNotFound, `message "M9": unknown message`},
		{"malformed message", []string{"mail", "thread", "crew", "m1"}, exitInvalid, `message "m1": invalid id (unknown message; want M1, M2, ...)`},
		{"malformed message to mark", []string{"mail", "read", "crew", "M1", "x", "--as", "bob"}, exitInvalid, "want M1, M2, ..."},
		{"malformed --reply-to", []string{"mail", "send", "crew", "hi", "--as", "bob", "--reply-to", "M-1"}, exitInvalid, "want M1, M2, ..."},
		{"conflict", []string{"conflicts", "resolve", "crew", "c" + strings.Repeat("0", 32), "--none"}, exitNotFound, "unknown conflict"},
		{"malformed conflict", []string{"conflicts", "resolve", "crew", "c9", "--none"}, exitInvalid, "want c and 32 hexadecimal digits"},
		{"snapshot", []string{"teams", "snapshot", "get", "crew", "S9"}, exitNotFound, "unknown snapshot"},
		{"malformed snapshot", []string{"teams", "snapshot", "delete", "crew", "9"}, exitInvalid, "want S1, S2, ..."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, "", tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
				t.Fatalf("exit %d (want %d), stderr %q (want %q)", r.code, tc.code, r.stderr, tc.msg)
			}
		})
	}
	if after := mustCLI(t, dir, "export"); after != before {
		t.Fatalf("refused commands changed the store:\n%s\nwas\n%s", after, before)
	}
}

// TestCLI_TeamsCreateFromWithFlags: as --help and the README say, flags
// given with --from override the file's values and --member adds members.
func TestCLI_TeamsCreateFromWithFlags(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, "t.json5", `{id: "f1", name: "file", strategy: "additive", members: [{agent: "a", role: "lead"}]}`)
	var team struct {
		ID, Name, Strategy string
		Members            []struct{ Agent, Role string }
	}
	out := mustCLI(t, dir, "teams", "create", "--from", f, "--name", "flag", "--strategy", "conflict-flag", "--member", "b:dev", "--json")
	if err := json.Unmarshal([]byte(out), &team); err != nil {
		t.Fatal(err)
	}
	if team.ID != "f1" || team.Name != "flag" || team.Strategy != "conflict-flag" || len(team.Members) != 2 || team.Members[1].Agent != "b" {
		t.Fatalf("team %+v: want id f1 from the file, name and strategy from the flags, members a and b", team)
	}
}
