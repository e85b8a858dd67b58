package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCLI_WrongInputMessages: command lines a user gets wrong, each refused
// with its exit code and a message saying what is wrong, and nothing on
// stdout.
func TestCLI_WrongInputMessages(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(t.TempDir(), "missing.json")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		// It said `want bash, zsh or fish, got ""`: no argument was given.
		{"completion without a shell", []string{"completion"}, exitUsage, "completion: want the shell: bash, zsh or fish"},
		{"completion of an unknown shell", []string{"completion", "powershell"}, exitUsage, `completion: want bash, zsh or fish, got "powershell"`},
		// They named their command "teams snapshot", and the subcommand
		// in the usage: "teams snapshot: want restore TEAM SNAPSHOT".
		{"snapshot restore without SNAPSHOT", []string{"teams", "snapshot", "restore", "crew"}, exitUsage, "teams snapshot restore: want TEAM SNAPSHOT"},
		{"snapshot create with two teams", []string{"teams", "snapshot", "create", "crew", "other"}, exitUsage, "teams snapshot create: want TEAM"},
		// They did not name their command (`usage: --input "=x": want
		// NAME=VALUE`), as every other usage error does.
		{"input without a name", []string{"workflows", "run", "code-review", "--input", "=x"}, exitUsage, `workflows run: --input "=x": want NAME=VALUE`},
		{"input without =", []string{"workflows", "run", "code-review", "--input", "change"}, exitUsage, `workflows run: --input "change": want NAME=VALUE`},
		{"input given twice", []string{"workflows", "run", "code-review", "--input", "change=a", "--input", "change=b"}, exitUsage, "workflows run: --input change given twice: it takes one value"},
		// They named the option twice, and added Go's reason: `tokens
		// create: --expires: invalid value: expiry "1x": want ... (time:
		// unknown unit "x" in duration "1x")`.
		{"token expiry malformed", []string{"tokens", "create", "--role", "read", "--expires", "1x"}, exitInvalid, `invalid value: tokens create: --expires "1x": want a positive duration such as 24h or 90m`},
		{"token expiry not positive", []string{"tokens", "create", "--role", "read", "--expires", "-1h"}, exitInvalid, `invalid value: tokens create: --expires "-1h": want a positive duration such as 24h or 90m`},
		{"token expiry too long", []string{"tokens", "create", "--role", "read", "--expires", "99999999999h"}, exitInvalid, `invalid value: tokens create: --expires "99999999999h": out of range: at most 2562047h47m16s (about 292 years)`},
		{"token role unknown", []string{"tokens", "create", "--role", "READER"}, exitInvalid, `invalid value: tokens create: --role "READER": want read, write or admin`},
		// They named the path twice: "load P: stat P: no such file or
		// directory".
		{"defs validate of a missing path", []string{"defs", "validate", missing}, exitNotFound, "load " + missing + ": no such file or directory"},
		{"defs import of a missing path", []string{"defs", "import", missing}, exitNotFound, "import definitions: load " + missing + ": no such file or directory"},
		// It named the input twice: "--input chnage: no step of
		// code-review declares an input chnage".
		{"input no step declares", []string{"workflows", "run", "code-review", "--input", "chnage=x"}, exitUsage, "workflows run: --input chnage: no step of code-review declares it (declared: change)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, "", slices.Clone(tc.args)...)
			want := "cortexctl: "
			if tc.code == exitUsage {
				want += "usage: "
			}
			if want += tc.stderr + "\n"; r.code != tc.code || r.stderr != want || r.stdout != "" {
				t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d, stderr %q", tc.args, r.code, r.stdout, r.stderr, tc.code, want)
			}
		})
	}
}

// TestTeamsCreate_MalformedMember: without --from, a missing --name or
// --member is a usage error (exit 2), as both missing are; they exited 7
// ("invalid team config: empty name", "no members"). A --member that is
// not AGENT:ROLE[:TASK] (no AGENT: it said `agent id "" must be ...` of
// " :b"; a ROLE or TASK announced by its ':' and left blank: it was
// stored empty) is a usage error quoting it as given. All checked before
// the store is opened (another process holds it here), writing nothing.
func TestTeamsCreate_MalformedMember(t *testing.T) {
	const want = "want AGENT:ROLE[:TASK]\n"
	create := func(args ...string) []string { return append([]string{"teams", "create"}, args...) }
	checkedBeforeOpening(t, []argsCase{
		{create("--member", "a:b"), exitUsage, "cortexctl: usage: teams create: need --name (the team's name) with --member, or --from FILE\n"},
		{create("--name", "x"), exitUsage, "cortexctl: usage: teams create: need --member AGENT:ROLE[:TASK] (at least one) with --name, or --from FILE\n"},
		{create(), exitUsage, "cortexctl: usage: teams create: need --name and --member, or --from FILE\n"},
		{create("--name", "x", "--member", " :b"), exitUsage, `cortexctl: usage: teams create: --member " :b": no AGENT before ":": ` + want},
		{create("--name", "x", "--member", "a:b", "--member", "::t"), exitUsage, `cortexctl: usage: teams create: --member "::t": no AGENT before ":": ` + want},
		{create("--name", "x", "--member", "a: "), exitUsage, `cortexctl: usage: teams create: --member "a: ": no ROLE after ":": ` + want},
		{create("--name", "x", "--member", "a:b:"), exitUsage, `cortexctl: usage: teams create: --member "a:b:": no TASK after the second ":": ` + want},
		{create("--name", "x", "--member", "a:b:\t"), exitUsage, `cortexctl: usage: teams create: --member "a:b:\t": no TASK after the second ":": ` + want},
		{create("--name", "x", "--member", "\n"), exitUsage, `cortexctl: usage: teams create: --member "\n" is blank: ` + want},
	})
}

// TestCLI_TeamsCreate_MemberSpecTrimmed: the parts of a --member are
// trimmed, and ROLE may be left empty before a TASK.
func TestCLI_TeamsCreate_MemberSpecTrimmed(t *testing.T) {
	dir := t.TempDir()
	var team struct {
		Members []struct{ Agent, Role, Task string } `json:"members"`
	}
	out := mustCLI(t, dir, "teams", "create", "--name", "x", "--member", " a : lead : plan it ", "--member", "b::test it", "--member", "c", "--json")
	if err := json.Unmarshal([]byte(out), &team); err != nil {
		t.Fatal(err)
	}
	want := []struct{ Agent, Role, Task string }{{"a", "lead", "plan it"}, {"b", "", "test it"}, {"c", "", ""}}
	if !slices.Equal(team.Members, want) {
		t.Errorf("members %+v, want %+v", team.Members, want)
	}
}

// TestCLI_JSONWrongTypeMessages: a JSON findings file or a team file
// with a value of the wrong type names the key, what is wanted and what
// was given in JSON's terms; it said Go's ("json: cannot unmarshal number
// into Go struct field findingRecord.subject of type string"). Nothing is
// written.
func TestCLI_JSONWrongTypeMessages(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	subject := writeFile(t, "s.json", `[{"subject": 5, "predicate": "rdfs:label", "object": "x"}]`)
	confidence := writeFile(t, "c.jsonl", `{"subject": "<http://ex/s>", "predicate": "rdfs:label", "object": "x", "confidence": "high"}`)
	notObject := writeFile(t, "n.json", `[1]`)
	team := writeFile(t, "t.json5", `{name: "x", members: [{agent: "a"}], timeout: 1.5}`)
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"findings", "import", "crew", "ann", subject}, "import findings: team crew: agent ann: invalid finding: record 1 (line 1): subject: want a string, got a number"},
		{[]string{"findings", "import", "crew", "ann", confidence}, "import findings: team crew: agent ann: invalid finding: record 1 (line 1): confidence: want a number, got a string"},
		{[]string{"findings", "import", "crew", "ann", notObject}, "import findings: team crew: agent ann: invalid finding: record 1 (line 1): want an object, got a number"},
		{[]string{"teams", "create", "--from", team}, "teams create: " + pathText(team) + ": invalid value: timeout: want a whole number, got number 1.5"},
	} {
		r := runCLI(t, dir, "", tc.args...)
		if want := "cortexctl: " + tc.stderr + "\n"; r.code != exitInvalid || r.stderr != want || r.stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d, stderr %q", tc.args, r.code, r.stdout, r.stderr, exitInvalid, want)
		}
	}
	var fs []json.RawMessage
	cliJSON(t, dir, &fs, "findings", "list", "crew")
	var ts []json.RawMessage
	cliJSON(t, dir, &ts, "teams", "list")
	if len(fs) != 0 || len(ts) != 1 {
		t.Errorf("after the refused imports and create: %d findings, %d teams", len(fs), len(ts))
	}
	// An --exec command's output too: the run fails (exit 4), saying why.
	r := runCLI(t, dir, "", "workflows", "run", "code-review", "--input", "change=x", "--exec", `echo '{"outputs": 5}'`)
	if want := "step command output: outputs: want an object, got a number\n"; r.code != exitConflict || !strings.HasSuffix(r.stderr, want) {
		t.Errorf("an --exec output of the wrong type: exit %d, stderr %q; want exit %d, stderr ending %q", r.code, r.stderr, exitConflict, want)
	}
}

// TestCLI_FactsList_LiteralFilter: a --subject or --predicate of facts
// list that no fact can have (a literal: a bare word is one; a blank node
// for a predicate) is an invalid value (exit 7) saying what it takes; the
// filter matched nothing and said "no facts" (exit 0).
func TestCLI_FactsList_LiteralFilter(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--subject", "main.go"}, `invalid value: facts list: --subject "main.go": want an IRI (<iri> or prefix:name) or a blank node`},
		{[]string{"--subject", `"main.go"`}, `invalid value: facts list: --subject "\"main.go\"": want an IRI (<iri> or prefix:name) or a blank node`},
		{[]string{"--predicate", "label"}, `invalid value: facts list: --predicate "label": want an IRI (<iri> or prefix:name)`},
		{[]string{"--predicate", "_:p"}, `invalid value: facts list: --predicate "_:p": want an IRI (<iri> or prefix:name)`},
	} {
		args := append([]string{"facts", "list", "crew"}, tc.args...)
		r := runCLI(t, dir, "", args...)
		if want := "cortexctl: " + tc.stderr + "\n"; r.code != exitInvalid || r.stderr != want || r.stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d, stderr %q", args, r.code, r.stdout, r.stderr, exitInvalid, want)
		}
	}
	if out := mustCLI(t, dir, "facts", "list", "crew", "--subject", "_:b", "--predicate", "rdfs:label"); out != "no facts\n" {
		t.Errorf("facts list with a blank node subject: %q", out)
	}
}

// TestCLI_WorkflowsRun_InputValueAsGiven: an --input VALUE of a string
// input is kept as given, white space too, as the help says ("VALUE as it
// is for a string or file input"); urfave/cli trimmed it ("change=  x  "
// ran with "  x"). NAME is trimmed: " change =x" names change.
func TestCLI_WorkflowsRun_InputValueAsGiven(t *testing.T) {
	dir := t.TempDir()
	var run struct {
		Inputs map[string]any `json:"inputs"`
	}
	out := mustCLI(t, dir, "workflows", "run", "code-review", "--id", "r1", "--input", " change =  HEAD~1  ", "--json")
	if err := json.Unmarshal([]byte(out), &run); err != nil {
		t.Fatal(err)
	}
	if got := run.Inputs["change"]; got != "  HEAD~1  " {
		t.Errorf("input change: %q, want %q", got, "  HEAD~1  ")
	}
}
