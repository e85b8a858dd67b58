package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/api"
)

// ledScript is an --exec command for crew and swarm runs: it records each
// stdin in $LOG (lead-N.json, TASK.json); the lead writes $LEAD_OPS in
// turn 1 and says done in turn 2; a task exits 3 if $TASK_FAIL is set,
// else prints $TASK_OUT (default: a result).
const ledScript = `#!/bin/sh
in=$(cat)
case $CORTEX_ROLE in
lead)
	printf '%s' "$in" > "$LOG/lead-$CORTEX_TURN.json"
	if [ "$CORTEX_TURN" = 1 ]; then printf '%s\n' "$LEAD_OPS"; exit 0; fi
	echo '{"op": "done", "summary": "stopped"}' ;;
*)
	printf '%s' "$in" > "$LOG/$CORTEX_TASK.json"
	if [ -n "$TASK_FAIL" ]; then echo "no database" >&2; exit 3; fi
	if [ -n "$TASK_OUT" ]; then printf '%s\n' "$TASK_OUT"; else echo '{"result": "ok"}'; fi ;;
esac
`

// ledRunJSON is the --json shape of a crew or swarm run (ledRun).
type ledRunJSON struct {
	ID, Status, Error, Type string
	Steps                   []struct{ Name, Status, Reason string }
	Tasks                   []struct {
		ID, Subject, Assignee, Status, Result, Error, ReviewedBy string
		Dispatches                                               int
	}
}

// looseJSON runs a command that must succeed with --json and decodes the
// fields of out from its output.
func looseJSON(t *testing.T, dir string, out any, args ...string) {
	t.Helper()
	s := mustCLI(t, dir, append(args, "--json")...)
	if err := json.Unmarshal([]byte(s), out); err != nil {
		t.Fatalf("%v --json: %v in %s", args, err, s)
	}
}

func ledFixture(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("../../fixtures/led", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCLI_WorkflowsCrew(t *testing.T) {
	dir := t.TempDir()
	agent := "sh " + ledFixture(t, "agent.sh")
	var r ledRunJSON
	looseJSON(t, dir, &r, "workflows", "run", ledFixture(t, "crew"), "--id", "c1", "--exec", agent, "--parallel", "2")
	if r.Status != "completed" || r.Type != "crew" || len(r.Tasks) != 2 {
		t.Fatalf("crew run: %+v", r)
	}
	for _, tk := range r.Tasks {
		if tk.Status != "completed" || tk.ReviewedBy != "architect" || tk.Result != tk.Assignee+" did it" {
			t.Errorf("task %+v", tk)
		}
	}
	if r.Tasks[0].Assignee != "backend" || r.Tasks[1].Assignee != "qa" {
		t.Errorf("assignees %s, %s", r.Tasks[0].Assignee, r.Tasks[1].Assignee)
	}
	// turn 1 plans, 2 approves T1, 3 approves T2, 4 says done.
	if r.Steps[3].Name != "turn-4/architect" || r.Steps[3].Status != "completed" || r.Steps[4].Status != "skipped" {
		t.Errorf("steps %+v", r.Steps)
	}
	var facts []struct{ Subject, Object string }
	looseJSON(t, dir, &facts, "facts", "list", "c1")
	if len(facts) != 2 || facts[0].Subject != "<https://ex.org/c1/T1>" || facts[0].Object != `"backend"` {
		t.Fatalf("facts of the crew's team: %+v", facts)
	}
	if out := mustCLI(t, dir, "workflows", "status", "c1"); !strings.Contains(out, "run c1 (api-crew, crew, strategy additive): completed") ||
		!strings.Contains(out, "T2    test the API   qa        completed  qa did it") {
		t.Fatalf("status: %s", out)
	}
	if out := mustCLI(t, dir, "workflows", "history", "c1"); !strings.Contains(out, "turn-4/architect") {
		t.Fatalf("history: %s", out)
	}

	logDir := t.TempDir()
	t.Setenv("LOG", logDir)
	script := writeFile(t, "led.sh", ledScript)
	crew := ledFixture(t, "crew")
	t.Setenv("LEAD_OPS", `{"op": "plan", "title": "move the data", "steps": [{"title": "migrate"}]}
{"op": "create", "subject": "migrate", "assignee": "backend"}`)

	// A failing specialist: its task fails and the lead sees it in its
	// next turn, and gets an escalation.
	t.Setenv("TASK_FAIL", "1")
	looseJSON(t, dir, &r, "workflows", "run", crew, "--id", "fail", "--exec", "sh "+script)
	if r.Status != "completed" || len(r.Tasks) != 1 || r.Tasks[0].Status != "failed" || r.Tasks[0].Error != `task command: exit status 3 (stderr: "no database")` {
		t.Fatalf("failing specialist: %+v", r)
	}
	turn2, err := os.ReadFile(filepath.Join(logDir, "lead-2.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(turn2), `"status":"failed"`) || !strings.Contains(string(turn2), `"error":"task command: exit status 3 (stderr: \"no database\")"`) ||
		!strings.Contains(string(turn2), `"title":"move the data"`) || !strings.Contains(string(turn2), `"state":"pending_review"`) {
		t.Fatalf("the lead's second turn: %s", turn2)
	}
	var mail []struct{ To []string }
	looseJSON(t, dir, &mail, "mail", "history", "fail")
	if len(mail) != 1 || mail[0].To[0] != "architect" {
		t.Fatalf("mail: %+v, want the escalation to architect", mail)
	}
	t.Setenv("TASK_FAIL", "")

	// A specialist that asks for a task: it cannot delegate.
	t.Setenv("TASK_OUT", `{"result": "half", "tasks": [{"subject": "you test it", "assignee": "qa"}]}`)
	looseJSON(t, dir, &r, "workflows", "run", crew, "--id", "deleg", "--exec", "sh "+script)
	if len(r.Tasks) != 1 || r.Tasks[0].Status != "failed" || !strings.Contains(r.Tasks[0].Error, "backend is a specialist of a crew, and specialists cannot delegate") {
		t.Fatalf("delegating specialist: %+v", r)
	}
	t.Setenv("TASK_OUT", "")

	// A lead that assigns a task to itself: the turn fails, nothing is
	// written, the run fails (exit 4).
	t.Setenv("LEAD_OPS", `{"op": "create", "subject": "fine", "assignee": "qa"}
{"op": "create", "subject": "mine", "assignee": "architect"}`)
	res := runCLI(t, dir, "", "workflows", "run", crew, "--id", "self", "--exec", "sh "+script)
	if res.code != exitConflict || !strings.Contains(res.stderr, `operation 2: create: assignee "architect" is the lead`) {
		t.Fatalf("lead assigns itself: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if out := mustCLI(t, dir, "tasks", "list", "self", "--json"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("tasks after a refused turn: %s", out)
	}

	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"max-turns 0", []string{"workflows", "run", crew, "--max-turns", "0"}, exitInvalid, "--max-turns 0"},
		{"max-turns on a graph", []string{"workflows", "run", "feature-dev", "--max-turns", "2"}, exitUsage, "--max-turns is for crew and swarm runs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, "", tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
				t.Fatalf("exit %d, stderr %q; want exit %d with %q", r.code, r.stderr, tc.code, tc.msg)
			}
		})
	}
}

func TestCLI_WorkflowsSwarm(t *testing.T) {
	dir := t.TempDir()
	agent := "sh " + ledFixture(t, "agent.sh")
	// Started without --exec, then driven.
	var r ledRunJSON
	looseJSON(t, dir, &r, "workflows", "run", ledFixture(t, "swarm/team.json"), "--id", "s1", "--max-turns", "3")
	if r.Status != "pending" || len(r.Steps) != 3 || len(r.Tasks) != 0 {
		t.Fatalf("started: %+v", r)
	}
	looseJSON(t, dir, &r, "workflows", "drive", "s1", "--exec", agent, "--parallel", "3")
	if r.Status != "completed" || len(r.Tasks) != 6 {
		t.Fatalf("swarm run: %+v", r)
	}
	claimers := map[string]int{}
	for _, tk := range r.Tasks {
		if tk.Status != "completed" || tk.Dispatches != 1 || tk.ReviewedBy != "" || !strings.HasPrefix(tk.Assignee, "triager-") {
			t.Errorf("task %+v, want completed by a triager, claimed once", tk)
		}
		claimers[tk.Assignee]++
	}
	if len(claimers) != 3 {
		t.Fatalf("tasks claimed by %v, want the 3 triagers", claimers)
	}

	// Cancelled before it ran: the run and its team finish.
	mustCLI(t, dir, "workflows", "run", ledFixture(t, "swarm/team.json"), "--id", "s2")
	if out := mustCLI(t, dir, "workflows", "cancel", "s2"); !strings.Contains(out, "run s2 (bug-triage, swarm, strategy additive): cancelled") {
		t.Fatalf("cancel: %s", out)
	}
	var team struct{ Status string }
	looseJSON(t, dir, &team, "teams", "get", "s2")
	if team.Status != "failed" {
		t.Fatalf("the cancelled run's team is %s, want failed (no member completed)", team.Status)
	}
}

// heldAgent plays the crew's parts as fixtures/led/agent.sh does, but a
// specialist first says it started ($SYNC/started-TASK) and waits for
// $SYNC/go (at most a minute).
const heldAgent = `in=$(cat)
if [ "$CORTEX_ROLE" != lead ]; then
	: > "$SYNC/started-$CORTEX_TASK"
	i=0
	while [ ! -e "$SYNC/go" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
fi
printf '%s' "$in" | sh "$AGENT"
`

// TestServe_OneDriverPerLedRun: processes of their own through a
// `cortexctl serve`: while one `workflows drive` runs a crew's task, a
// second exits 4 naming the holder and runs nothing; after the first is
// killed (SIGKILL, its hold not let go), a third takes the run over and
// finishes it, each task dispatched once.
func TestServe_OneDriverPerLedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs cortexctl processes")
	}
	bin := buildCLI(t)
	dir, sync := t.TempDir(), t.TempDir()
	startServe(t, dir)
	agent := writeFile(t, "held.sh", heldAgent)
	cli := func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, append([]string{"--data", dir}, args...)...)
		cmd.Env = append(os.Environ(), "SYNC="+sync, "AGENT="+ledFixture(t, "agent.sh"))
		return cmd
	}
	if out, err := cli("workflows", "run", ledFixture(t, "crew"), "--id", "h1").CombinedOutput(); err != nil {
		t.Fatalf("workflows run: %v\n%s", err, out)
	}
	first := cli("workflows", "drive", "h1", "--exec", "sh "+agent)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(sync, "started-T1"))
	host, _ := os.Hostname()
	holder := fmt.Sprintf("driver: cortexctl-exec:%s:%d (", host, first.Process.Pid)
	if out, err := cli("workflows", "status", "h1").CombinedOutput(); err != nil || !strings.Contains(string(out), holder) {
		t.Fatalf("status while driven: %v, want %q in\n%s", err, holder, out)
	}

	var stderr bytes.Buffer
	second := cli("workflows", "drive", "h1", "--exec", "sh "+agent)
	second.Stderr = &stderr
	err := second.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != api.ExitConflict || !strings.Contains(stderr.String(), "driven by cortexctl-exec:") ||
		strings.Contains(stderr.String(), "resume it") {
		t.Fatalf("second driver: %v, want exit %d naming the holder\n%s", err, api.ExitConflict, stderr.String())
	}

	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	if err := os.WriteFile(filepath.Join(sync, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := cli("workflows", "drive", "h1", "--exec", "sh "+agent, "--json").Output()
	if err != nil {
		t.Fatalf("third driver: %v\n%s", err, out)
	}
	var r ledRunJSON
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if r.Status != "completed" || len(r.Tasks) != 2 {
		t.Fatalf("run after the takeover: %+v", r)
	}
	for _, tk := range r.Tasks {
		if tk.Status != "completed" || tk.Dispatches != 1 {
			t.Errorf("task %+v, want completed, dispatched once", tk)
		}
	}
}

// heldLead plays the crew's parts as fixtures/led/agent.sh does, but the
// lead's first turn first says it started ($SYNC/lead-started) and waits
// for $SYNC/go (at most a minute).
const heldLead = `in=$(cat)
if [ "$CORTEX_ROLE" = lead ] && [ "$CORTEX_TURN" = 1 ]; then
	: > "$SYNC/lead-started"
	i=0
	while [ ! -e "$SYNC/go" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
fi
printf '%s' "$in" | sh "$AGENT"
`

// TestServe_LedDriverKilledDuringLeadTurn: a `workflows drive` killed
// (SIGKILL) while its lead's turn runs leaves that turn running; the next
// driver on the host takes the run at once and runs the turn again, and
// the run completes. It used to wait for the turn's step timeout, which
// then failed the turn and the run.
func TestServe_LedDriverKilledDuringLeadTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs cortexctl processes")
	}
	bin := buildCLI(t)
	dir, sync := t.TempDir(), t.TempDir()
	startServe(t, dir)
	agent := writeFile(t, "held.sh", heldLead)
	cli := func(ctx context.Context, args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, bin, append([]string{"--data", dir}, args...)...)
		cmd.Env = append(os.Environ(), "SYNC="+sync, "AGENT="+ledFixture(t, "agent.sh"))
		return cmd
	}
	if out, err := cli(context.Background(), "workflows", "run", ledFixture(t, "crew"), "--id", "k1", "--step-timeout", "600").CombinedOutput(); err != nil {
		t.Fatalf("workflows run: %v\n%s", err, out)
	}
	first := cli(context.Background(), "workflows", "drive", "k1", "--exec", "sh "+agent)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(sync, "lead-started"))
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	if err := os.WriteFile(filepath.Join(sync, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// A guard: the drive takes seconds; it used to wait for the turn's
	// 600 s timeout.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := cli(ctx, "workflows", "drive", "k1", "--exec", "sh "+agent, "--json").Output()
	if err != nil {
		t.Fatalf("next driver: %v\n%s", err, out)
	}
	var r ledRunJSON
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if r.Status != "completed" || len(r.Tasks) != 2 {
		t.Fatalf("run after the kill: %+v", r)
	}
}

// waitFile waits for path to exist (at most a minute).
func waitFile(t *testing.T, path string) {
	t.Helper()
	for range 600 {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s did not appear within a minute", path)
}

// deletingAgent plays the crew's parts as fixtures/led/agent.sh does, but a
// specialist first disbands and deletes the run's team through the server.
const deletingAgent = `in=$(cat)
if [ "$CORTEX_ROLE" != lead ]; then
	"$BIN" --data "$DATA" teams disband "$CORTEX_TEAM" >&2 && "$BIN" --data "$DATA" teams delete "$CORTEX_TEAM" >&2 || exit 9
fi
printf '%s' "$in" | sh "$AGENT"
`

// TestServe_LedTeamDeletedWhileDriven: a crew's team deleted while
// `workflows drive` runs one of its tasks: the driver itself ends the run
// as failed ("team T was deleted") and exits 4 as a failed run does; it
// used to stop with "unknown team" and exit 3, the run left running.
func TestServe_LedTeamDeletedWhileDriven(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs cortexctl processes")
	}
	bin := buildCLI(t)
	dir := t.TempDir()
	startServe(t, dir)
	agent := writeFile(t, "deleting.sh", deletingAgent)
	cli := func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, append([]string{"--data", dir}, args...)...)
		cmd.Env = append(os.Environ(), "BIN="+bin, "DATA="+dir, "AGENT="+ledFixture(t, "agent.sh"))
		return cmd
	}
	if out, err := cli("workflows", "run", ledFixture(t, "crew"), "--id", "gone").CombinedOutput(); err != nil {
		t.Fatalf("workflows run: %v\n%s", err, out)
	}
	var stderr bytes.Buffer
	drive := cli("workflows", "drive", "gone", "--exec", "sh "+agent, "--json")
	drive.Stderr = &stderr
	out, err := drive.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != api.ExitConflict || !strings.Contains(stderr.String(), "run gone failed: team gone was deleted") {
		t.Fatalf("drive: %v, want exit %d, the run failed as its team was deleted\n%s\n%s", err, api.ExitConflict, out, stderr.String())
	}
	var r ledRunJSON
	if err := json.Unmarshal(out, &r); err != nil || r.Status != "failed" || r.Error != "team gone was deleted" {
		t.Fatalf("drive's run: %v %+v\n%s", err, r, out)
	}
	if out, err := cli("workflows", "status", "gone", "--json").Output(); err != nil || json.Unmarshal(out, &r) != nil || r.Status != "failed" {
		t.Fatalf("status after the drive: %v %+v\n%s", err, r, out)
	}
}

// TestServe_LedTurnRefusedWritesNothing: through a server process, a
// lead's turn is one write of the board: a turn whose last operation the
// board refuses (approve a task it does not have) fails the turn and the
// run (exit 4), and the two tasks created before it are not written.
func TestServe_LedTurnRefusedWritesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs cortexctl processes")
	}
	bin := buildCLI(t)
	dir := t.TempDir()
	startServe(t, dir)
	script := writeFile(t, "led.sh", ledScript)
	cli := func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, append([]string{"--data", dir}, args...)...)
		cmd.Env = append(os.Environ(), "LOG="+t.TempDir(), `LEAD_OPS={"op": "create", "subject": "build", "assignee": "backend", "ref": "b"}
{"op": "create", "subject": "test", "assignee": "qa", "blocked_by": ["b"]}
{"op": "approve", "task": "T99"}`)
		return cmd
	}
	var stderr bytes.Buffer
	run := cli("workflows", "run", ledFixture(t, "crew"), "--id", "refused", "--exec", "sh "+script)
	run.Stderr = &stderr
	out, err := run.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != api.ExitConflict || !strings.Contains(stderr.String(), "lead operation 3 (approve)") {
		t.Fatalf("run: %v, want exit %d, the turn refused by operation 3\n%s\n%s", err, api.ExitConflict, out, stderr.String())
	}
	if out, err := cli("tasks", "list", "refused", "--json").Output(); err != nil || strings.TrimSpace(string(out)) != "[]" {
		t.Fatalf("tasks after a refused turn: %v %s", err, out)
	}
}

// TestCLI_WorkflowsLeadLongLine: a lead's operation on one line longer
// than 16 MiB (a create with a long description), within the 64 MiB an
// --exec command may print, is read and applied; the scanner stopped at
// 16 MiB ("bufio.Scanner: token too long") and the turn, so the run,
// failed.
func TestCLI_WorkflowsLeadLongLine(t *testing.T) {
	dir := t.TempDir()
	script := writeFile(t, "long.sh", `#!/bin/sh
cat > /dev/null
case $CORTEX_ROLE in
lead)
	if [ "$CORTEX_TURN" = 1 ]; then
		printf '{"op": "create", "subject": "big", "assignee": "backend", "description": "'
		head -c 17000000 /dev/zero | tr '\0' a
		printf '"}\n'
		exit 0
	fi
	echo '{"op": "done", "summary": "stopped"}' ;;
*)
	echo '{"result": "ok"}' ;;
esac
`)
	var r ledRunJSON
	looseJSON(t, dir, &r, "workflows", "run", ledFixture(t, "crew"), "--id", "long", "--exec", "sh "+script)
	if r.Status != "completed" || len(r.Tasks) != 1 || r.Tasks[0].Subject != "big" {
		t.Fatalf("run with a lead's 17 MB line: %s %s, tasks %+v, steps %+v", r.Status, r.Error, r.Tasks, r.Steps)
	}
}
