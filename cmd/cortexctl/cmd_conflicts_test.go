package main

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/api"
)

// TestCLI_Conflicts runs the code-review fixture (conflict-flag) and resolves
// a conflict.
func TestCLI_Conflicts(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--from", fixturePath("teams", "code-review.json5"))
	for _, a := range []string{"alice", "bob", "carol"} {
		mustCLI(t, dir, "teams", "member-status", "code-review", a, "running")
		mustCLI(t, dir, "findings", "import", "code-review", a, fixturePath("findings", "code-review-"+a+".ttl"))
	}
	for _, a := range []string{"alice", "bob", "carol"} {
		mustCLI(t, dir, "teams", "member-status", "code-review", a, "completed")
	}
	type conflict struct {
		ID, Subject, Predicate, Reason string
		Resolved                       bool
		ResolvedBy                     string
		Chosen                         []string
		Candidates                     []struct {
			Object string
			Agents []string
		}
	}
	var cs []conflict
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "conflicts", "list", "code-review", "--json")), &cs); err != nil {
		t.Fatal(err)
	}
	if len(cs) != 3 {
		t.Fatalf("%d conflicts: %+v", len(cs), cs)
	}
	var sev conflict
	for _, c := range cs {
		if strings.HasSuffix(c.Predicate, "#severity>") {
			sev = c
		}
	}
	if sev.Subject != "<https://example.org/repo/pool.go>" || sev.Reason != "disagreement" || len(sev.Candidates) != 3 ||
		sev.Candidates[1].Object != `"high"` || sev.Candidates[1].Agents[0] != "alice" {
		t.Fatalf("severity conflict %+v", sev)
	}
	var rep struct{ Kept, Conflicts int }
	out := mustCLI(t, dir, "conflicts", "resolve", "code-review", sev.ID, "--object", `"high"`, "--by", "lead", "--json")
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Conflicts != 2 {
		t.Fatalf("resolve: %q", out)
	}
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "conflicts", "list", "code-review", "--open", "--json")), &cs); err != nil || len(cs) != 2 {
		t.Fatalf("open conflicts after resolve: %+v", cs)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"again", []string{"conflicts", "resolve", "code-review", sev.ID, "--object", `"low"`}, exitConflict},
		{"unknown conflict", []string{"conflicts", "resolve", "code-review", "c" + strings.Repeat("0", 32), "--object", `"low"`}, exitNotFound},
		{"malformed conflict id", []string{"conflicts", "resolve", "code-review", "c00", "--object", `"low"`}, exitInvalid},
		{"unknown team", []string{"conflicts", "list", "nope"}, exitNotFound},
		{"no object", []string{"conflicts", "resolve", "code-review", sev.ID}, exitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := runCLI(t, dir, "", tc.args...); r.code != tc.code {
				t.Fatalf("exit %d (want %d): %s", r.code, tc.code, r.stderr)
			}
		})
	}
}

func TestCLI_Demo(t *testing.T) {
	dir := t.TempDir()
	for run := range 3 { // re-running replaces the demo team
		if run == 2 { // even a team an earlier run left half-way (running)
			mustCLI(t, dir, "-n", "demo", "teams", "delete", "code-review")
			fixture, err := os.ReadFile(fixturePath("teams", "code-review.json5"))
			if err != nil {
				t.Fatal(err)
			}
			// As the demo makes it: its context ends with demoMark.
			half := regexp.MustCompile(`(context: "[^"]*)"`).ReplaceAllString(string(fixture), "${1}"+demoMark+`"`)
			mustCLI(t, dir, "-n", "demo", "teams", "create", "--from", writeFile(t, "half.json5", half))
			mustCLI(t, dir, "-n", "demo", "teams", "member-status", "code-review", "alice", "running")
		}
		out := mustCLI(t, dir, "demo")
		for _, want := range []string{"team completed", "merged facts", "conflicts left for a human", "#severity>",
			"ask the graph in SPARQL", "| <urn:cortex:demo:agent:alice> | 2 ", "| <urn:cortex:demo:agent:carol> | 1 "} {
			if !strings.Contains(out, want) {
				t.Fatalf("demo output lacks %q:\n%s", want, out)
			}
		}
	}
}

// TestCLI_ConflictsResolve_ObjectWithComma: a repeatable option takes each
// value whole: --object '"one, two"' chooses that literal (it was split at
// the comma into two halves that are not terms, exit 5), and so does a
// value of any other repeatable option.
func TestCLI_ConflictsResolve_ObjectWithComma(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "t", "--name", "t", "--strategy", "conflict-flag", "--member", "a", "--member", "b")
	for _, a := range []string{"a", "b"} {
		mustCLI(t, dir, "teams", "member-status", "t", a, "running")
	}
	mustCLI(t, dir, "findings", "add", "t", "a", "<https://ex.org/x>", "rdfs:comment", `"one, two"`)
	mustCLI(t, dir, "findings", "add", "t", "b", "<https://ex.org/x>", "rdfs:comment", `"three"`)
	for _, a := range []string{"a", "b"} {
		mustCLI(t, dir, "teams", "member-status", "t", a, "completed")
	}
	var cs []struct{ ID string }
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "conflicts", "list", "t", "--json")), &cs); err != nil || len(cs) != 1 {
		t.Fatalf("conflicts %+v, %v", cs, err)
	}
	var rep struct {
		Facts []struct{ Object, ResolvedBy string }
	}
	out := mustCLI(t, dir, "conflicts", "resolve", "t", cs[0].ID, "--object", `"one, two"`, "--by", "lead", "--json")
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Facts) != 1 || rep.Facts[0].Object != `"one, two"` || rep.Facts[0].ResolvedBy != "lead" {
		t.Fatalf("resolve: %q", out)
	}
}

// TestCLI_ConflictsResolve_ByFromUSER: without --by, $USER resolves; a
// $USER that is no valid id is refused before anything is written,
// naming $USER and --by (the error named a resolver the user never gave),
// and an empty one is unset (the resolver was "", refused): cortexctl.
func TestCLI_ConflictsResolve_ByFromUSER(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"teams", "create", "--id", "t2", "--name", "rev", "--strategy", "conflict-flag", "--member", "a1", "--member", "a2"},
		{"findings", "add", "t2", "a1", "<http://ex/x>", "<http://ex/p>", `"1"`},
		{"findings", "add", "t2", "a2", "<http://ex/x>", "<http://ex/p>", `"2"`},
		{"findings", "add", "t2", "a1", "<http://ex/y>", "<http://ex/p>", `"1"`},
		{"findings", "add", "t2", "a2", "<http://ex/y>", "<http://ex/p>", `"2"`},
		{"teams", "member-status", "t2", "a1", "running"}, {"teams", "member-status", "t2", "a1", "completed"},
		{"teams", "member-status", "t2", "a2", "running"}, {"teams", "member-status", "t2", "a2", "completed"},
	} {
		mustCLI(t, dir, args...)
	}
	var cs []api.Conflict
	cliJSON(t, dir, &cs, "conflicts", "list", "t2")
	if len(cs) != 2 {
		t.Fatalf("%d conflicts, want 2", len(cs))
	}
	before := mustCLI(t, dir, "export")
	t.Setenv("USER", "Jane Doe")
	r := runCLI(t, dir, "", "conflicts", "resolve", "t2", cs[0].ID, "--none")
	if r.code != exitInvalid || !strings.Contains(r.stderr, `resolver "Jane Doe"`) || !strings.Contains(r.stderr, "$USER") || !strings.Contains(r.stderr, "--by") {
		t.Fatalf("USER=%q: exit %d (want %d), stderr %q (want one naming $USER and --by)", "Jane Doe", r.code, exitInvalid, r.stderr)
	}
	if after := mustCLI(t, dir, "export"); after != before {
		t.Fatal("a refused resolution changed the store")
	}
	r = runCLI(t, dir, "", "conflicts", "resolve", "t2", cs[0].ID, "--none", "--by", "a b")
	if r.code != exitInvalid || strings.Contains(r.stderr, "$USER") {
		t.Fatalf("--by 'a b': exit %d (want %d), stderr %q (not naming $USER)", r.code, exitInvalid, r.stderr)
	}
	mustCLI(t, dir, "conflicts", "resolve", "t2", cs[0].ID, "--none", "--by", "jane")
	t.Setenv("USER", "")
	mustCLI(t, dir, "conflicts", "resolve", "t2", cs[1].ID, "--none")
	cliJSON(t, dir, &cs, "conflicts", "list", "t2")
	if len(cs) != 2 || cs[0].ResolvedBy != "jane" || cs[1].ResolvedBy != "cortexctl" {
		t.Fatalf("resolved by %+v, want jane (--by) then cortexctl (USER empty)", cs)
	}
}
