package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const oneStepTeam = `{"name": "one", "version": "1", "agents": ["a"],
  "workflow": {"type": "chain", "steps": [{"name": "only", "agent": "a"}]}}`

// stepOf runs the team file through `workflows run --json` with extra args
// and returns the exit code and the step's status and reason.
func stepOf(t *testing.T, args ...string) (code int, status, reason string) {
	t.Helper()
	team := writeFile(t, "one.json", oneStepTeam)
	r := runCLI(t, t.TempDir(), "", append([]string{"workflows", "run", team, "--json"}, args...)...)
	var run struct {
		Steps []struct{ Status, Reason string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &run); err != nil || len(run.Steps) != 1 {
		t.Fatalf("exit %d: %v\n%s\n%s", r.code, err, r.stdout, r.stderr)
	}
	return r.code, run.Steps[0].Status, run.Steps[0].Reason
}

// TestCLI_WorkflowsExecOutputCapped: a step command that prints more than
// maxExecOutput (one that prints without end would grow the driver's
// memory until it dies) fails its step with a clear reason.
func TestCLI_WorkflowsExecOutputCapped(t *testing.T) {
	code, status, reason := stepOf(t, "--exec", fmt.Sprintf("yes | head -c %d", maxExecOutput+1))
	want := fmt.Sprintf("step command output: more than %d bytes", maxExecOutput)
	if code != 4 || status != "failed" || reason != want {
		t.Fatalf("exit %d, step %s (%q), want exit 4 and %q", code, status, reason, want)
	}
}

// TestCLI_WorkflowsLedTeamDeleted: the status of a crew run whose team was
// disbanded and deleted shows the run (it used to fail on the missing
// board), and driving it ends it as failed with the reason.
func TestCLI_WorkflowsLedTeamDeleted(t *testing.T) {
	dir := t.TempDir()
	crew := filepath.Join("..", "..", "fixtures", "led", "crew")
	mustCLI(t, dir, "workflows", "run", crew, "--id", "gone")
	mustCLI(t, dir, "teams", "disband", "gone")
	mustCLI(t, dir, "teams", "delete", "gone")
	var run struct {
		Status string
		Tasks  []any
	}
	out := mustCLI(t, dir, "workflows", "status", "gone", "--json")
	if err := json.Unmarshal([]byte(out), &run); err != nil || run.Status != "pending" || len(run.Tasks) != 0 {
		t.Fatalf("status: %v\n%s", err, out)
	}
	r := runCLI(t, dir, "", "workflows", "drive", "gone", "--exec", "sh ../../fixtures/led/agent.sh", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &run); r.code != 4 || err != nil || run.Status != "failed" ||
		!strings.Contains(r.stderr, "team gone was deleted") {
		t.Fatalf("drive: exit %d, %v\n%s\n%s", r.code, err, r.stdout, r.stderr)
	}
}

// TestCLI_WorkflowsExecTrailingOutput: a step command that prints a second
// JSON value (or anything else) after its result fails its step; the rest
// used to be dropped without a word.
func TestCLI_WorkflowsExecTrailingOutput(t *testing.T) {
	for name, out := range map[string]string{
		"second object": `{"outputs": {}} {"outputs": {}}`,
		"garbage":       `{"outputs": {}} oops`,
	} {
		t.Run(name, func(t *testing.T) {
			code, status, reason := stepOf(t, "--exec", fmt.Sprintf("echo '%s'", out))
			want := "step command output: more output after the JSON value, which ends at byte 15"
			if code != 4 || status != "failed" || reason != want {
				t.Fatalf("exit %d, step %s (%q), want exit 4 and %q", code, status, reason, want)
			}
		})
	}
	// White space after the value is fine.
	if code, status, reason := stepOf(t, "--exec", `printf '{"outputs": {}}\n\n  \n'`); code != 0 || status != "completed" {
		t.Fatalf("exit %d, step %s (%q), want it completed", code, status, reason)
	}
}

// TestCLI_WorkflowsLeadTrailingOutput: a lead's line holding two operations
// fails the turn instead of the second one being dropped.
func TestCLI_WorkflowsLeadTrailingOutput(t *testing.T) {
	crew := filepath.Join("..", "..", "fixtures", "led", "crew")
	r := runCLI(t, t.TempDir(), "", "workflows", "run", crew, "--exec",
		`cat >/dev/null; echo '{"op": "done", "summary": "all"} {"op": "done"}'`)
	if r.code != 4 || !strings.Contains(r.stderr, "lead command output line 1: more output after the JSON value") {
		t.Fatalf("exit %d, want 4 and the line refused\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestCLI_WorkflowsStepTimeoutValues: --step-timeout takes 1.. seconds or
// -1 (none), as its message says; other negatives were taken as -1.
func TestCLI_WorkflowsStepTimeoutValues(t *testing.T) {
	team := writeFile(t, "one.json", oneStepTeam)
	dir := t.TempDir()
	for _, v := range []string{"0", "-2", "-5", "4611686019"} {
		r := runCLI(t, dir, "", "workflows", "run", team, "--step-timeout", v)
		if r.code != exitInvalid || !strings.Contains(r.stderr, "--step-timeout "+v+": want 1..4611686018 seconds, or -1") {
			t.Fatalf("--step-timeout %s: exit %d\n%s", v, r.code, r.stderr)
		}
	}
	var run struct {
		StepTimeout float64 `json:"stepTimeout"`
	}
	out := mustCLI(t, dir, "workflows", "run", team, "--step-timeout", "-1", "--json")
	if err := json.Unmarshal([]byte(out), &run); err != nil || run.StepTimeout != 0 { // none
		t.Fatalf("--step-timeout -1: %v\n%s", err, out)
	}
	if out := mustCLI(t, dir, "workflows", "list"); strings.Count(out, "\n") != 2 {
		t.Fatalf("the refused runs were started:\n%s", out)
	}
}

// TestCLI_WorkflowsExecExactKeys: an --exec command's output is read as
// the server reads params: a key in another case or a key given twice
// fails the step, naming the key (encoding/json took "Outputs" for
// "outputs", and the last of two).
func TestCLI_WorkflowsExecExactKeys(t *testing.T) {
	for name, tc := range map[string]struct{ out, reason string }{
		"wrong case": {`{"Outputs": {}}`,
			`step command output: unknown field "Outputs" (field names are case-sensitive; did you mean "outputs"?)`},
		"nested wrong case": {`{"findings": [{"subject": "<http://ex/s>", "predicate": "<http://ex/p>", "object": "o", "Confidence": 1}]}`,
			`step command output: findings[0]: unknown field "Confidence" (field names are case-sensitive; did you mean "confidence"?)`},
		"duplicate key": {`{"outputs": {"a": 1}, "outputs": {"a": 2}}`, `step command output: duplicate key "outputs"`},
	} {
		t.Run(name, func(t *testing.T) {
			code, status, reason := stepOf(t, "--exec", fmt.Sprintf("echo '%s'", tc.out))
			if code != 4 || status != "failed" || reason != tc.reason {
				t.Fatalf("exit %d, step %s (%q), want exit 4 and %q", code, status, reason, tc.reason)
			}
		})
	}
	if code, status, reason := stepOf(t, "--exec", `echo '{"outputs": {}, "findings": []}'`); code != 0 || status != "completed" {
		t.Fatalf("exit %d, step %s (%q), want it completed", code, status, reason)
	}
}

// TestCLI_WorkflowsMalformedRunIDs: workflows status, history, cancel and
// drive of a RUN no run has exit 3 (unknown run); of one no run can have
// (not 1 to 64 of A-Z a-z 0-9 . _ @ + -, as workflows run --id takes
// them), 7 (invalid id), as teams get a/b does; none of them writes.
func TestCLI_WorkflowsMalformedRunIDs(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "workflows", "run", writeFile(t, "one.json", oneStepTeam), "--id", "w1")
	before := mustCLI(t, dir, "export")
	const wantRun = `invalid id (unknown run; want 1 to 64 characters of A-Z a-z 0-9 . _ @ + -)`
	for _, cmd := range [][]string{{"status"}, {"history"}, {"cancel"}, {"drive", "--exec", "true"}} {
		for _, tc := range []struct {
			id   string
			code int
			msg  string
		}{
			{"nope", exitNotFound, `run "nope": unknown run`},
			{"a/b", exitInvalid, `run "a/b": ` + wantRun},
			{"a b", exitInvalid, `run "a b": ` + wantRun},
			{"a\nb", exitInvalid, `run "a\nb": ` + wantRun},
			{strings.Repeat("r", 65), exitInvalid, wantRun},
			{"", exitUsage, "RUN is empty: want RUN"},
		} {
			args := append([]string{"workflows", cmd[0], tc.id}, cmd[1:]...)
			t.Run(fmt.Sprintf("%s %q", cmd[0], tc.id), func(t *testing.T) {
				r := runCLI(t, dir, "", args...)
				if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
					t.Fatalf("exit %d (want %d), stderr %q (want %q)", r.code, tc.code, r.stderr, tc.msg)
				}
			})
		}
	}
	if r := runCLI(t, dir, "", "workflows", "run", writeFile(t, "one.json", oneStepTeam), "--id", "a/b"); r.code != exitInvalid {
		t.Errorf("workflows run --id a/b: exit %d (want %d): %s", r.code, exitInvalid, r.stderr)
	}
	if after := mustCLI(t, dir, "export"); after != before {
		t.Fatalf("refused commands changed the store:\n%s\nwas\n%s", after, before)
	}
}

// TestCLI_WorkflowsRunOptionsCheckedFirst: a workflows run whose --id,
// --strategy or --non-critical no run can have is refused (exit 7) before
// anything is written: in a namespace that does not exist yet, it is not
// created, and without a store, none is. They were checked once the
// store and the namespace had been created.
func TestCLI_WorkflowsRunOptionsCheckedFirst(t *testing.T) {
	one := writeFile(t, "one.json", oneStepTeam)
	council := writeFile(t, "council.json", `{"name": "board", "version": "1", "agents": ["alice", "bob"], "workflow": {"type": "council"},
  "collaboration": {"consensus": {"required_agreement": 0.66, "max_rounds": 2}}}`)
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--name", "n", "--member", "ann")
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"id", []string{one, "--id", "a/b"}, `id "a/b" must be 1..64 characters`},
		{"long id", []string{one, "--id", strings.Repeat("r", 65)}, "must be 1..64 characters"},
		{"strategy", []string{one, "--strategy", "bogus"}, `unknown strategy "bogus"`},
		{"council strategy", []string{council, "--strategy", "additive"}, `a council merges with consensus, not "additive"`},
		{"non-critical", []string{one, "--non-critical", "zed"}, `non-critical agent "zed" is not a member of the run`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, "", append([]string{"-n", "fresh", "workflows", "run"}, tc.args...)...)
			if r.code != exitInvalid || !strings.Contains(r.stderr, tc.msg) {
				t.Fatalf("exit %d (want %d), stderr %q (want %q)", r.code, exitInvalid, r.stderr, tc.msg)
			}
			if out := mustCLI(t, dir, "namespaces", "list", "--json"); strings.Contains(out, "fresh") {
				t.Fatalf("the refused run created its namespace: %s", out)
			}
			missing := filepath.Join(t.TempDir(), "missing")
			if r := runCLI(t, missing, "", append([]string{"workflows", "run"}, tc.args...)...); r.code != exitInvalid {
				t.Fatalf("without a store: exit %d (want %d): %s", r.code, exitInvalid, r.stderr)
			}
			if _, err := os.Stat(missing); !os.IsNotExist(err) {
				t.Fatalf("the refused run created %s (%v)", missing, err)
			}
		})
	}
}
