package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/cortexgraph/cortex/spec"
)

// stepScript is an --exec command: it records the step's stdin in
// $LOG/STEP.json and answers with a finding per step (and pm-review's
// output summary); the
// step named by $FAIL exits 1.
const stepScript = `#!/bin/sh
cat > "$LOG/$CORTEX_STEP.json"
[ "$CORTEX_STEP" = "$FAIL" ] && { echo "step $CORTEX_STEP broke" >&2; exit 1; }
out='{}'
[ "$CORTEX_STEP" = pm-review ] && out='{"summary": "done pm-review"}'
printf '{"outputs": %s, "findings": [{"subject": "<https://ex.org/%s>", "predicate": "<https://ex.org/ran>", "object": "\"yes\"", "confidence": 0.9}]}\n' "$out" "$CORTEX_STEP"
`

const graphTeam = `{
  "$schema": "https://raw.githubusercontent.com/plexusone/multi-agent-spec/main/schema/orchestration/team.schema.json",
  "name": "release", "version": "1.0.0", "agents": ["pm", "qa", "security", "docs"],
  "workflow": {"type": "graph", "steps": [
    {"name": "pm-review", "agent": "pm", "inputs": [{"name": "version", "type": "string"}],
     "outputs": [{"name": "summary", "type": "string"}]},
    {"name": "qa-validation", "agent": "qa", "depends_on": ["pm-review"]},
    {"name": "security-audit", "agent": "security", "depends_on": ["pm-review"]},
    {"name": "docs-review", "agent": "docs", "depends_on": ["qa-validation", "security-audit"],
     "inputs": [{"name": "summary", "type": "string", "from": "pm-review.summary"}]}
  ]}
}`

func TestCLI_Workflows(t *testing.T) {
	dir := t.TempDir()
	logDir := t.TempDir()
	script := writeFile(t, "step.sh", stepScript)
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LOG", logDir)
	team := writeFile(t, "release.json", graphTeam)

	var run struct {
		ID, Status, Strategy string
		Steps                []struct{ Name, Status, Actor, Reason string }
	}
	out := mustCLI(t, dir, "workflows", "run", team, "--id", "rel", "--input", "version=1.2", "--exec", script, "--parallel", "2", "--json")
	if err := json.Unmarshal([]byte(out), &run); err != nil {
		t.Fatal(err)
	}
	if run.ID != "rel" || run.Status != "completed" || len(run.Steps) != 4 || run.Strategy != "additive" {
		t.Fatalf("run --exec: %s", out)
	}
	var stdin struct {
		Run      string
		Step     struct{ Name, Agent string }
		Agent    struct{ Name string }
		Inputs   map[string]any
		Upstream []struct {
			Subject    string
			Supporters []string
		}
	}
	b, err := os.ReadFile(filepath.Join(logDir, "docs-review.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &stdin); err != nil {
		t.Fatal(err)
	}
	if stdin.Run != "rel" || stdin.Step.Agent != "docs" || stdin.Agent.Name != "docs" || stdin.Inputs["summary"] != "done pm-review" ||
		len(stdin.Upstream) != 2 || stdin.Upstream[0].Subject != "<https://ex.org/qa-validation>" || stdin.Upstream[0].Supporters[0] != "qa-validation" {
		t.Fatalf("docs-review's stdin: %s", b)
	}
	facts := mustCLI(t, dir, "facts", "list", "rel", "--json")
	if strings.Count(facts, `"subject"`) != 4 {
		t.Errorf("the run's team has not the 4 findings merged: %s", facts)
	}

	// A failing step: its dependents are skipped, the run fails (exit 4).
	t.Setenv("FAIL", "qa-validation")
	r := runCLI(t, dir, "", "workflows", "run", team, "--id", "bad", "--input", "version=2", "--exec", script)
	if r.code != exitConflict || !strings.Contains(r.stderr, "run bad failed: step qa-validation failed: step command: exit status 1") ||
		!strings.Contains(r.stdout, "docs-review     docs      skipped") {
		t.Fatalf("failing run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	t.Setenv("FAIL", "")

	// Started without --exec: pending, then cancelled.
	mustCLI(t, dir, "workflows", "run", team, "--id", "idle", "--input", "version=3")
	var list []struct{ ID, Status string }
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "workflows", "list", "--status", "pending", "--json")), &list); err != nil || len(list) != 1 || list[0].ID != "idle" {
		t.Fatalf("list --status pending: %+v (%v)", list, err)
	}
	if out := mustCLI(t, dir, "workflows", "cancel", "idle"); !strings.Contains(out, "cancelled") {
		t.Fatalf("cancel: %s", out)
	}
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "workflows", "list", "--json")), &list); err != nil || len(list) != 3 {
		t.Fatalf("list: %+v (%v)", list, err)
	}
	var hist []struct {
		Seq                           int
		Step, From, To, Actor, Reason string
	}
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "workflows", "history", "idle", "--json")), &hist); err != nil {
		t.Fatal(err)
	}
	if last := hist[len(hist)-1]; last.To != "cancelled" || last.Actor != "cortexctl" || last.Step != "" {
		t.Fatalf("history ends with %+v", last)
	}
	if out := mustCLI(t, dir, "workflows", "status", "rel"); !strings.Contains(out, "run rel (release, graph, strategy additive): completed") {
		t.Fatalf("status: %s", out)
	}

	crew := writeFile(t, "crew.json", `{"name": "dev", "version": "1", "agents": ["a"], "workflow": {"type": "crew"}, "collaboration": {"lead": "a"}}`)
	cyc := writeFile(t, "cycle.json", `{"name": "c", "version": "1", "agents": ["a"], "workflow": {"steps": [
		{"name": "x", "agent": "a", "depends_on": ["y"]}, {"name": "y", "agent": "a", "depends_on": ["x"]}]}}`)
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"crew of a lead alone", []string{"workflows", "run", crew}, exitInvalid, "agents: a crew needs an agent besides its lead to take tasks"},
		{"cycle", []string{"workflows", "run", cyc}, exitInvalid, "depends_on cycle: x → y → x"},
		{"no such team file", []string{"workflows", "run", "nope.json"}, exitNotFound, "no such file or directory, nor a built-in workflow"},
		{"unknown run", []string{"workflows", "status", "zzz"}, exitNotFound, "unknown run"},
		{"cancel finished", []string{"workflows", "cancel", "rel"}, exitConflict, "run rel is completed"},
		{"duplicate id", []string{"workflows", "run", team, "--id", "rel", "--input", "version=2"}, exitConflict, "run exists"},
		{"bad parallel", []string{"workflows", "run", team, "--parallel", "0"}, exitInvalid, "--parallel 0"},
		{"parallel over its maximum", []string{"workflows", "run", team, "--parallel", "1025", "--exec", "true"}, exitInvalid, "--parallel 1025: want 1..1024"},
		{"bad status", []string{"workflows", "list", "--status", "done"}, exitInvalid, `status "done"`},
		{"parallel without exec", []string{"workflows", "run", team, "--input", "version=2", "--parallel", "4"}, exitUsage, "--parallel is for --exec"},
		{"builtin with status", []string{"workflows", "list", "--builtin", "--status", "completed"}, exitUsage, "--builtin and --status exclude each other"},
		{"missing run", []string{"workflows", "history"}, exitUsage, "want RUN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, "", tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
				t.Fatalf("exit %d, stderr %q; want exit %d with %q", r.code, r.stderr, tc.code, tc.msg)
			}
		})
	}
}

func TestCLI_WorkflowsBuiltin(t *testing.T) {
	dir := t.TempDir()
	var list []struct{ Name, Type, Strategy string }
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "workflows", "list", "--builtin", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	want := "code-review scatter additive|feature-dev graph conflict-flag|security-review scatter additive"
	var got []string
	for _, b := range list {
		got = append(got, b.Name+" "+b.Type+" "+b.Strategy)
	}
	if strings.Join(got, "|") != want {
		t.Fatalf("builtin: %v, want %s", got, want)
	}
	// Each built-in runs to completion with a command that does nothing.
	for _, b := range list {
		input := map[string]string{"code-review": "change=x", "feature-dev": "feature=y", "security-review": "target=."}[b.Name]
		out := mustCLI(t, dir, "workflows", "run", b.Name, "--input", input, "--exec", "true", "--json")
		var r struct{ Status, Strategy string }
		if err := json.Unmarshal([]byte(out), &r); err != nil || r.Status != "completed" || r.Strategy != b.Strategy {
			t.Errorf("%s: %s (%v)", b.Name, out, err)
		}
	}
}

// TestLoadTeamDef_Legacy: TEAMDEF is read by package spec, legacy forms
// with warnings naming the modern ones.
func TestLoadTeamDef_Legacy(t *testing.T) {
	file := writeFile(t, "old.json", `{"name": "old", "version": "1.0", "agents": ["a", "b"],
		"workflow": {"type": "sequential", "steps": [
			{"name": "one", "agent": "a", "outputs": ["report"]},
			{"name": "two", "agent": "b", "inputs": {"report": "one.report"}}]}}`)
	d, strategy, rep, err := loadTeamDef(file)
	if err != nil {
		t.Fatal(err)
	}
	if d.Type != "chain" || d.Steps[1].Inputs[0].From != "one.report" || d.Steps[0].Outputs[0].Name != "report" || strategy != "" {
		t.Fatalf("legacy def: %+v", d)
	}
	var warns []string
	for _, p := range rep.Problems {
		warns = append(warns, p.String())
	}
	if w := strings.Join(warns, "\n"); rep.Warnings() < 2 || !strings.Contains(w, `"sequential"`) || !strings.Contains(w, "chain") || !strings.Contains(w, "legacy") {
		t.Fatalf("warnings: %q", warns)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestLoadTeamDef_Directory: a directory of definitions with one team runs
// that team, its agents' definitions handed to the steps; an invalid one
// fails with every problem (exit 7).
func TestLoadTeamDef_Directory(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"agents/scanner.md": "---\nname: scanner\ndescription: scans\n---\nScan it.\n",
		"agents/lead.md":    "---\nname: lead\n---\nSum up.\n",
		"teams/review.json": `{"name": "review", "version": "1.0.0", "agents": ["lead", "scanner"], "workflow": {"type": "graph", "steps": [
			{"name": "scan", "agent": "scanner", "outputs": [{"name": "report"}]},
			{"name": "sum-up", "agent": "lead", "depends_on": ["scan"], "inputs": [{"name": "report", "from": "scan.report"}]}]}}`,
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, _, _, err := loadTeamDef(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Steps) != 2 || !strings.Contains(string(d.AgentDefs["scanner"]), "Scan it.") || !strings.Contains(string(d.AgentDefs["lead"]), "Sum up.") {
		t.Fatalf("def from a directory: %+v", d)
	}
	bad := writeFile(t, "bad.json", `{"name": "bad", "version": "1", "agents": ["a"], "workflow": {"type": "graph", "steps": [
		{"name": "x", "agent": "a", "depends_on": ["y"]}, {"name": "y", "agent": "a", "depends_on": ["x"]}]}}`)
	r := runCLI(t, t.TempDir(), "", "workflows", "run", bad)
	if r.code != exitInvalid || !strings.Contains(r.stderr, "cycle") {
		t.Fatalf("invalid TEAMDEF: exit %d, stderr %q", r.code, r.stderr)
	}
}

// councilScript votes for its own agent name in round 1 and for "a" later,
// and keeps the stdin of round 2's steps.
const councilScript = `#!/bin/sh
in=$(cat)
round=${CORTEX_STEP%%/*}
choice=$CORTEX_AGENT
[ "$round" = round-1 ] || { choice=a; printf '%s' "$in" > "$LOG/$round-$CORTEX_AGENT.json"; }
printf '{"findings": [{"subject": "<https://ex.org/plan>", "predicate": "<https://ex.org/choice>", "object": "\"%s\""}]}\n' "$choice"
`

func TestCLI_WorkflowsCouncil(t *testing.T) {
	dir, logDir := t.TempDir(), t.TempDir()
	script := writeFile(t, "vote.sh", councilScript)
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LOG", logDir)
	team := writeFile(t, "council.json", `{"name": "board", "version": "1", "agents": ["a", "b", "c"],
  "workflow": {"type": "council"},
  "collaboration": {"consensus": {"required_agreement": 0.66, "max_rounds": 3, "tie_breaker": "a"}}}`)
	out := mustCLI(t, dir, "workflows", "run", team, "--id", "cn", "--exec", script, "--json")
	var run struct {
		Status, Strategy string
		Steps            []struct{ Name, Status string }
		Rounds           []struct {
			Round  int
			Final  bool
			Topics []struct {
				Status string
				Winner []string
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &run); err != nil {
		t.Fatal(err)
	}
	if run.Status != "completed" || run.Strategy != "consensus" || len(run.Steps) != 9 || len(run.Rounds) != 2 ||
		run.Rounds[0].Topics[0].Status != "open" || !run.Rounds[1].Final || run.Rounds[1].Topics[0].Status != "agreed" ||
		strings.Join(run.Rounds[1].Topics[0].Winner, " ") != `"a"` {
		t.Fatalf("council run: %s", out)
	}
	var stdin struct {
		Round int
		Tally struct {
			Round  int
			Topics []struct {
				Status  string
				Ballots []struct{ Objects, Agents []string }
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(logDir, "round-2-b.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &stdin); err != nil {
		t.Fatal(err)
	}
	if stdin.Round != 2 || stdin.Tally.Round != 1 || len(stdin.Tally.Topics) != 1 || len(stdin.Tally.Topics[0].Ballots) != 3 {
		t.Fatalf("round 2 stdin: %s", b)
	}
	if out := mustCLI(t, dir, "facts", "list", "cn"); !strings.Contains(out, `"a"`) || strings.Contains(out, `"b"`) {
		t.Fatalf("facts of the council: %s", out)
	}
	if out := mustCLI(t, dir, "workflows", "status", "cn"); !strings.Contains(out, "ROUND") || !strings.Contains(out, "agreed") {
		t.Fatalf("status: %s", out)
	}
}

// wideTeam is a graph team of 12 independent steps and a join step.
func wideTeam() string {
	var steps, deps []string
	for i := range 12 {
		name := fmt.Sprintf("s%02d", i)
		steps = append(steps, fmt.Sprintf(`{"name": %q, "agent": "a%d"}`, name, i%3))
		deps = append(deps, fmt.Sprintf("%q", name))
	}
	steps = append(steps, fmt.Sprintf(`{"name": "join", "agent": "a0", "depends_on": [%s]}`, strings.Join(deps, ", ")))
	return fmt.Sprintf(`{"name": "wide", "version": "1.0.0", "agents": ["a0", "a1", "a2"],
  "workflow": {"type": "graph", "steps": [%s]}}`, strings.Join(steps, ",\n"))
}

// TestCLI_WorkflowsDriveTwoProcesses: a run started through a cortexctl
// serve, then driven by two cortexctl workflows drive processes at once
// through it: every step runs exactly once (the step command appends its
// name to a file, O_APPEND) and the run completes.
func TestCLI_WorkflowsDriveTwoProcesses(t *testing.T) {
	dir := t.TempDir()
	s := startServe(t, dir, "--listen", "")
	data := func(args ...string) []string { return append([]string{"--data", dir, "-n", "acme"}, args...) }
	team := writeFile(t, "wide.json", wideTeam())
	if r := runBinary(t, nil, data("workflows", "run", team, "--id", "w1")...); r.code != 0 || !strings.Contains(r.stdout, "run w1") {
		t.Fatalf("workflows run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	ranLog := filepath.Join(t.TempDir(), "ran.log")
	script := writeFile(t, "step.sh", "#!/bin/sh\necho \"$CORTEX_STEP\" >> \""+ranLog+"\"\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	drivers := make([]result, 2)
	for i := range drivers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			drivers[i] = runBinary(t, nil, data("workflows", "drive", "w1", "--exec", script, "--parallel", "3", "--json")...)
		}()
	}
	wg.Wait()
	for i, r := range drivers {
		var run struct{ ID, Status string }
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &run) != nil || run.Status != "completed" {
			t.Errorf("driver %d: exit %d\n%s%s", i, r.code, r.stdout, r.stderr)
		}
	}
	logged, err := os.ReadFile(ranLog)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, name := range strings.Fields(string(logged)) {
		count[name]++
	}
	if len(count) != 13 {
		t.Errorf("%d distinct steps ran, want 13: %v", len(count), count)
	}
	for name, n := range count {
		if n != 1 {
			t.Errorf("step %s ran %d times, want once", name, n)
		}
	}
	r := runBinary(t, nil, data("workflows", "status", "w1")...)
	if r.code != 0 || !strings.Contains(r.stdout, "run w1 (wide, graph, strategy additive): completed") {
		t.Fatalf("status: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// drive refuses what it cannot do, with the exit codes of the errors.
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"workflows", "drive", "nope", "--exec", "true"}, exitNotFound, "unknown run"},
		{[]string{"workflows", "drive", "w1"}, exitUsage, "--exec COMMAND is required"},
		{[]string{"workflows", "drive", "w1", "--exec", "true", "--parallel", "0"}, exitInvalid, "--parallel 0"},
		{[]string{"workflows", "drive", "w1", "--exec", "true", "--parallel", "1025"}, exitInvalid, "--parallel 1025: want 1..1024"},
		{[]string{"workflows", "drive", "w1", "--exec", "true", "--takeover"}, exitUsage, "--takeover is for crew and swarm runs"},
	} {
		if r := runBinary(t, nil, data(tc.args...)...); r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("%v: exit %d (want %d), stderr %q", tc.args, r.code, tc.code, r.stderr)
		}
	}
	if code := s.stop(syscall.SIGTERM); code != 0 {
		t.Fatalf("serve exited %d: %s", code, s.stderr)
	}
}

// TestCLI_WorkflowsStoredAgentDefs: a step's JSON carries its agent's
// definition from the store (cortexctl defs import) when TEAMDEF is a
// team file alone.
func TestCLI_WorkflowsStoredAgentDefs(t *testing.T) {
	dir := t.TempDir()
	agent := writeFile(t, "analyst.md", "---\nname: analyst\ndescription: finds causes\n---\nFind the root cause.\n")
	mustCLI(t, dir, "defs", "import", agent)
	team := writeFile(t, "team.json", `{"name": "probe", "version": "1.0.0", "agents": ["analyst", "helper"],
		"workflow": {"type": "chain", "steps": [{"name": "look", "agent": "analyst"}, {"name": "help", "agent": "helper"}]}}`)
	out := filepath.Join(t.TempDir(), "steps.jsonl")
	mustCLI(t, dir, "workflows", "run", team, "--id", "p1", "--exec", "cat >> "+out+"; echo >> "+out)
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	steps := map[string]json.RawMessage{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var s struct {
			Step  struct{ Name string }
			Agent json.RawMessage
		}
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("step JSON %q: %v", line, err)
		}
		steps[s.Step.Name] = s.Agent
	}
	if a := string(steps["look"]); !strings.Contains(a, "Find the root cause.") || !strings.Contains(a, "finds causes") {
		t.Fatalf("look's agent: %s", a)
	}
	if a := string(steps["help"]); strings.Contains(a, "instructions") || !strings.Contains(a, `"helper"`) {
		t.Fatalf("help's agent (defined nowhere): %s", a)
	}
}

// TestCLI_WorkflowsInvalidTeamListsEveryProblem: an invalid TEAMDEF is
// checked as defs validate checks it, so every problem is printed (one a
// line, FILE:LINE: SEVERITY: PATH: MESSAGE), warnings included, not only
// the first error; nothing is started.
func TestCLI_WorkflowsInvalidTeamListsEveryProblem(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, "bad.json", `{"name": "b", "version": "1", "agents": ["a"], "zz": 1, "workflow": {"type": "graph", "steps": [
		{"name": "x", "agent": "a", "depends_on": ["x"]},
		{"name": "y", "agent": "nobody"}]}}`)
	r := runCLI(t, dir, "", "workflows", "run", bad)
	if r.code != exitInvalid {
		t.Fatalf("exit %d, want %d; stderr %q", r.code, exitInvalid, r.stderr)
	}
	for _, want := range []string{
		`bad.json:1: warning: /zz: unknown key "zz" in team`,
		`bad.json:2: error: /workflow/steps/0/depends_on/0: step "x" depends on itself`,
		`bad.json:3: error: /workflow/steps/1/agent: step "y": agent "nobody" is not one of the team's agents`,
	} {
		if !strings.Contains(r.stderr, want+"\n") {
			t.Errorf("stderr lacks the line %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "warning: "+bad) {
		t.Errorf("a problem says warning twice:\n%s", r.stderr)
	}
	if out := runCLI(t, dir, "", "workflows", "list", "--json"); out.code == 0 && strings.TrimSpace(out.stdout) != "[]" {
		t.Errorf("an invalid TEAMDEF started a run: %q", out.stdout)
	}
}

// TestCLI_WorkflowsRunMissingInput: workflows run without a run input that
// a step requires and nothing else gives is refused before the run
// starts: exit 7 naming the input and the steps that need it, no store
// created, no run, no team. Given, the run completes and workflows list
// counts its completed steps.
func TestCLI_WorkflowsRunMissingInput(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "store")
	const want = "cortexctl: start code-review: invalid run: missing run input change (required by steps correctness, security, performance, style, with no default)\n"
	r := runCLI(t, missing, "", "workflows", "run", "code-review", "--id", "r1", "--exec", "true")
	if r.code != exitInvalid || r.stderr != want || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, %q", r.code, r.stdout, r.stderr, exitInvalid, want)
	}
	if st := dirState(t, missing); st != "absent" {
		t.Fatalf("the refused run created %s: %s", missing, st)
	}

	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "other", "--name", "o", "--member", "a")
	r = runCLI(t, dir, "", "workflows", "run", "code-review", "--id", "r1", "--exec", "true")
	if r.code != exitInvalid || r.stderr != want {
		t.Fatalf("on a store: exit %d, stderr %q", r.code, r.stderr)
	}
	if out := mustCLI(t, dir, "workflows", "list", "--json"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("runs after the refused one: %s", out)
	}
	if r := runCLI(t, dir, "", "teams", "get", "r1"); r.code != exitNotFound {
		t.Fatalf("teams get r1: exit %d (%s), want %d: no team", r.code, r.stderr, exitNotFound)
	}

	mustCLI(t, dir, "workflows", "run", "code-review", "--id", "r1", "--input", "change=HEAD~1", "--exec", "true")
	if out := mustCLI(t, dir, "workflows", "list"); !regexp.MustCompile(`(?m)^r1 +code-review +scatter +completed +4/4 `).MatchString(out) {
		t.Fatalf("workflows list:\n%s", out)
	}
}

// TestCLI_WorkflowsRunNothingCompleted: a run in which no step completed
// (a non-critical agent's step failed, its dependent was skipped) did
// nothing: workflows run exits 4, and the run, workflows list (0 steps
// completed) and its team all say failed.
func TestCLI_WorkflowsRunNothingCompleted(t *testing.T) {
	dir := t.TempDir()
	team := writeFile(t, "pair.json", `{"name": "pair", "version": "1", "agents": ["a", "b"], "workflow": {"type": "chain", "steps": [
		{"name": "first", "agent": "a", "outputs": [{"name": "out", "type": "string"}]},
		{"name": "second", "agent": "b", "inputs": [{"name": "in", "type": "string", "from": "first.out"}]}]}}`)
	r := runCLI(t, dir, "", "workflows", "run", team, "--id", "n1", "--non-critical", "a", "--exec", "exit 1")
	if r.code != exitConflict || !strings.Contains(r.stderr, "cortexctl: run n1 failed: no step completed (step first failed: step command: exit status 1") ||
		!strings.Contains(r.stdout, "run n1 (pair, chain, strategy additive): failed") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, failed: no step completed", r.code, r.stdout, r.stderr, exitConflict)
	}
	var run struct {
		Status, Error string
		Steps         []struct{ Name, Status string }
	}
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "workflows", "status", "n1", "--json")), &run); err != nil {
		t.Fatal(err)
	}
	if run.Status != "failed" || !strings.HasPrefix(run.Error, "no step completed (step first failed: ") ||
		len(run.Steps) != 2 || run.Steps[0].Status != "failed" || run.Steps[1].Status != "skipped" {
		t.Fatalf("workflows status: %+v", run)
	}
	if out := mustCLI(t, dir, "workflows", "list"); !regexp.MustCompile(`(?m)^n1 +pair +chain +failed +0/2 `).MatchString(out) {
		t.Fatalf("workflows list:\n%s", out)
	}
	var tm struct{ Status, FailReason string }
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "teams", "get", "n1", "--json")), &tm); err != nil {
		t.Fatal(err)
	}
	if tm.Status != "failed" {
		t.Fatalf("team %+v, want failed as its run", tm)
	}
}

// updateGolden rewrites the golden files of the CLI's --json output in
// testdata (go test ./cmd/cortexctl -run TestCLI_WorkflowsJSON -update).
var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata")

// normalizeRun replaces what changes from one run of a workflow to the
// next in its --json output, times and the driver's process, with
// placeholders.
func normalizeRun(s string) string {
	s = regexp.MustCompile(`"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)"`).ReplaceAllString(s, `"TIME"`)
	return regexp.MustCompile(`"cortexctl-exec:[^"]*"`).ReplaceAllString(s, `"cortexctl-exec:HOST:PID"`)
}

// checkGolden compares got with testdata/name, or rewrites it (-update).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *updateGolden && !throughServer {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (-update rewrites it):\n%s", path, got)
	}
}

// jsonKeys returns the member names of every object in v, at any depth,
// but those of a run's inputs and a step's outputs (the user's names).
func jsonKeys(v any, into map[string]bool) map[string]bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			into[k] = true
			if k != "inputs" && k != "outputs" {
				jsonKeys(e, into)
			}
		}
	case []any:
		for _, e := range x {
			jsonKeys(e, into)
		}
	}
	return into
}

// TestCLI_WorkflowsJSON pins the --json shape of a run (api.Run) that
// workflows run, status, list and cancel print: camelCase names at every
// depth, as the other commands' --json, and stepTimeout in seconds, as a
// team's timeout (it was step_timeout in nanoseconds, with created_at,
// started_at, completed_at, non_critical and a tally's decided_in). The
// output is the golden files', through a server as embedded.
func TestCLI_WorkflowsJSON(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("LOG", t.TempDir())
	script := writeFile(t, "vote.sh", councilScript)
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	council := writeFile(t, "council.json", `{"name": "board", "version": "1", "agents": ["a", "b", "c"],
  "workflow": {"type": "council"},
  "collaboration": {"consensus": {"required_agreement": 0.66, "max_rounds": 3, "tie_breaker": "a"}}}`)
	one := writeFile(t, "one.json", `{"name": "one", "version": "1", "agents": ["a", "b"],
  "workflow": {"type": "chain", "steps": [{"name": "first", "agent": "a", "inputs": [{"name": "x", "type": "number", "required": false}]}, {"name": "second", "agent": "b"}]}}`)
	runs := map[string]string{}
	for _, tc := range []struct {
		name   string
		args   []string
		golden string
	}{
		{"council run", []string{"workflows", "run", council, "--id", "c1", "--exec", script, "--step-timeout", "90"}, "workflows_council.golden"},
		{"council status", []string{"workflows", "status", "c1"}, "workflows_council.golden"},
		{"pending run", []string{"workflows", "run", one, "--id", "p1", "--input", "x=1", "--non-critical", "b"}, "workflows_pending.golden"},
		{"pending status", []string{"workflows", "status", "p1"}, "workflows_pending.golden"},
		{"list", []string{"workflows", "list"}, "workflows_list.golden"},
		{"cancel", []string{"workflows", "cancel", "p1"}, "workflows_cancelled.golden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := mustCLI(t, dir, append(tc.args, "--json")...)
			checkGolden(t, tc.golden, normalizeRun(out))
			runs[tc.name] = out
		})
	}
	for name, want := range map[string]float64{"council run": 90, "pending run": 600} { // the default: teams.workflowTimeout
		var r map[string]any
		if err := json.Unmarshal([]byte(runs[name]), &r); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r["stepTimeout"] != want {
			t.Errorf("%s: stepTimeout %v, want %v (seconds)", name, r["stepTimeout"], want)
		}
	}
	for name, out := range runs {
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for k := range jsonKeys(v, map[string]bool{}) {
			if strings.ContainsAny(k, "_-") {
				t.Errorf("%s: member %q is not camelCase", name, k)
			}
		}
	}
}

// TestLoadTeamDef_DirectoryWithoutEveryAgent: a directory TEAMDEF need
// not define every agent its team lists, as a team file needs none: the
// agents it lacks get their stored definitions (defs import) or only
// their names. It was refused (exit 7, "defined nowhere") while the same
// team given as a file ran. What the directory's own files get wrong is
// still refused: an unqualified name that two of its agents have.
func TestLoadTeamDef_DirectoryWithoutEveryAgent(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"agents/scanner.md": "---\nname: scanner\n---\nScan it.\n",
		"team.json": `{"name": "review", "version": "1", "agents": ["scanner", "helper", "ops/fixer"], "workflow": {"type": "chain", "steps": [
			{"name": "scan", "agent": "scanner"}, {"name": "help", "agent": "helper"}, {"name": "fix", "agent": "fixer"}]}}`,
	})
	d, _, rep, err := loadTeamDef(dir)
	if err != nil {
		t.Fatalf("loadTeamDef: %v (%v)", err, rep.Problems)
	}
	if len(d.Steps) != 3 || !strings.Contains(string(d.AgentDefs["scanner"]), "Scan it.") || d.AgentDefs["helper"] != nil {
		t.Fatalf("def: %+v", d)
	}

	amb := t.TempDir()
	writeTree(t, amb, map[string]string{
		"agents/a/x.md": "---\nname: x\n---\n",
		"agents/b/x.md": "---\nname: x\n---\n",
		"team.json":     `{"name": "t", "version": "1", "agents": ["x"], "workflow": {"steps": [{"name": "s", "agent": "x"}]}}`,
	})
	if _, _, _, err := loadTeamDef(amb); !errors.Is(err, spec.ErrInvalid) {
		t.Fatalf("ambiguous agent: %v, want spec.ErrInvalid", err)
	}
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCLI_WorkflowsRunNonCriticalBareName: --non-critical names an agent
// as a team file may, bare for a qualified team agent (ops/a as a): the
// run's members are the team's entries, and --non-critical a was refused
// as not a member (exit 7).
func TestCLI_WorkflowsRunNonCriticalBareName(t *testing.T) {
	dir := t.TempDir()
	team := writeFile(t, "pair.json", `{"name": "pair", "version": "1", "agents": ["ops/a", "b"], "workflow": {"type": "chain", "steps": [
		{"name": "first", "agent": "a", "outputs": [{"name": "out", "type": "string"}]},
		{"name": "second", "agent": "b", "inputs": [{"name": "in", "type": "string", "from": "first.out"}]}]}}`)
	r := runCLI(t, dir, "", "workflows", "run", team, "--id", "q1", "--non-critical", "a", "--exec", "exit 1")
	if r.code != exitConflict || !strings.Contains(r.stderr, "no step completed (step first failed: ") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, no step completed (a non-critical, so second skipped)", r.code, r.stdout, r.stderr, exitConflict)
	}
	var run struct{ NonCritical []string }
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "workflows", "status", "q1", "--json")), &run); err != nil {
		t.Fatal(err)
	}
	if len(run.NonCritical) != 1 || run.NonCritical[0] != "ops/a" {
		t.Fatalf("nonCritical %q, want [ops/a]", run.NonCritical)
	}
}

// TestCLI_WorkflowsRunInputGivenTwice: --input is repeatable, one NAME
// each time; a NAME given twice is a usage error naming it (exit 2,
// nothing written), as a flag that takes one value given twice is, not
// the last value taken silently.
func TestCLI_WorkflowsRunInputGivenTwice(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "other", "--name", "o", "--member", "a")
	before := treeState(t, dir)
	r := runCLI(t, dir, "", "workflows", "run", "code-review", "--id", "r1", "--input", "change=HEAD~1", "--input", "change=HEAD~2")
	if r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, `--input change given twice`) {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, --input change given twice", r.code, r.stdout, r.stderr, exitUsage)
	}
	if !throughServer {
		if after := treeState(t, dir); after != before {
			t.Fatalf("the refused run changed the store:\n%s\n---\n%s", before, after)
		}
	}
	if out := mustCLI(t, dir, "workflows", "list", "--json"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("runs after the refused one: %s", out)
	}
}

// TestCLI_WorkflowsRunUnknownInput: an --input that no step of a chain,
// scatter or graph declares is a usage error (exit 2) naming it and the
// declared ones, and nothing is written: it was accepted and dropped (a
// typo ran the step with its default, or skipped it). A declared input,
// optional ones included, and any input of a council (whose agents get
// the run's inputs whole) are taken.
func TestCLI_WorkflowsRunUnknownInput(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "other", "--name", "o", "--member", "a")
	team := writeFile(t, "opt.json", `{"name": "opt", "version": "1", "agents": ["a"], "workflow": {"type": "graph", "steps": [
  {"name": "s", "agent": "a", "inputs": [{"name": "version", "type": "string"}, {"name": "notes", "type": "string", "required": false}]}]}}`)
	before := treeState(t, dir)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"workflows", "run", "code-review", "--input", "change=HEAD", "--input", "chnage=HEAD~1"},
			"workflows run: --input chnage: no step of code-review declares it (declared: change)"},
		{[]string{"workflows", "run", team, "--input", "version=1", "--input", "note=x"},
			"workflows run: --input note: no step of opt declares it (declared: notes, version)"},
	} {
		r := runCLI(t, dir, "", tc.args...)
		if r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, tc.want) {
			t.Fatalf("%q: exit %d (want %d), stdout %q, stderr %q (want %q)", tc.args, r.code, exitUsage, r.stdout, r.stderr, tc.want)
		}
	}
	if !throughServer {
		if after := treeState(t, dir); after != before {
			t.Fatalf("the refused runs changed the store:\n%s\n---\n%s", before, after)
		}
	}
	if out := mustCLI(t, dir, "workflows", "list", "--json"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("runs after the refused ones: %s", out)
	}
	var run struct{ Inputs map[string]any }
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "workflows", "run", team, "--id", "o1", "--input", "version=1", "--input", "notes=x", "--json")), &run); err != nil {
		t.Fatal(err)
	}
	if run.Inputs["notes"] != "x" || run.Inputs["version"] != "1" {
		t.Fatalf("run inputs %v, want version and notes", run.Inputs)
	}
	council := writeFile(t, "council.json", `{"name": "vote", "version": "1", "agents": ["a", "b"], "workflow": {"type": "council"},
  "collaboration": {"consensus": {"required_agreement": 0.5, "max_rounds": 1}}}`)
	mustCLI(t, dir, "workflows", "run", council, "--id", "c1", "--input", "question=which", "--exec", "true")
}
