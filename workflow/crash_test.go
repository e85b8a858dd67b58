package workflow_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/teammanager"
	"github.com/cortexgraph/cortex/workflow"
)

// The crash test runs a second process: this test binary re-executed with
// CORTEX_WORKFLOW_CHILD set, which runs the child instead of the tests.
func TestMain(m *testing.M) {
	if os.Getenv("CORTEX_WORKFLOW_CHILD") == "calls" {
		calls, _ := strconv.Atoi(os.Getenv("CORTEX_WORKFLOW_CALLS"))
		if err := childCalls(os.Getenv("CORTEX_WORKFLOW_DIR"), crashScripts[os.Getenv("CORTEX_WORKFLOW_SCRIPT")], calls); err != nil {
			fmt.Println("error", err)
		}
		os.Exit(3)
	}
	os.Exit(m.Run())
}

// startChild starts this test binary as the child on the store in dir with
// env added, and returns it with its standard output. The child is killed,
// if still running, when the test ends.
func startChild(t *testing.T, dir string, env ...string) (*exec.Cmd, io.Reader) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), "CORTEX_WORKFLOW_CHILD=calls", "CORTEX_WORKFLOW_DIR="+dir), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, out
}

// crashCalls is the scripted drive of a scatter run through the pull API,
// one call per entry. Call i runs at clock time base + i seconds, so every
// process that runs the script writes the same times and finding ids.
var crashCalls = func() []func(e *workflow.Engine) error {
	const id = "crash"
	start := func(step string) func(e *workflow.Engine) error {
		return func(e *workflow.Engine) error {
			_, err := e.StartStep(context.Background(), id, step, "host")
			return err
		}
	}
	complete := func(step string, out map[string]any) func(e *workflow.Engine) error {
		return func(e *workflow.Engine) error { return e.CompleteStep(context.Background(), id, step, 1, out) }
	}
	findings := func(step string, fs ...teammanager.Finding) func(e *workflow.Engine) error {
		return func(e *workflow.Engine) error {
			_, err := e.AddFindings(context.Background(), id, step, 1, fs)
			return err
		}
	}
	calls := []func(e *workflow.Engine) error{
		func(e *workflow.Engine) error {
			_, err := e.Start(context.Background(), scatterDef(), workflow.RunOptions{ID: id, Strategy: merge.NameConflictFlag})
			return err
		},
		start("prepare"), complete("prepare", map[string]any{"plan": "p"}),
	}
	for i, step := range []string{"test-1", "test-2", "test-3"} {
		calls = append(calls, start(step),
			findings(step, finding("build", "status", quad.String("green")), finding("cov", "pct", quad.String(fmt.Sprint(70+i)))),
			complete(step, nil))
	}
	return append(calls, start("collect"), findings("collect", finding("report", "verdict", quad.String("ship"))), complete("collect", nil))
}()

// councilCrashCalls drives a council of three over two rounds: round 1
// leaves the topic open, in round 2 b changes its vote, c fails (its vote
// stands), and the final tally agrees.
var councilCrashCalls = func() []func(e *workflow.Engine) error {
	const id = "crash"
	calls := []func(e *workflow.Engine) error{
		func(e *workflow.Engine) error {
			_, err := e.Start(context.Background(), councilDef([]string{"a", "b", "c"}, 0.66, 2, "a", ""), workflow.RunOptions{ID: id})
			return err
		},
	}
	for round, votes := range []map[string]string{{"a": "t=x", "b": "t=y", "c": "t=z"}, {"a": "", "b": "t=x", "c": fail}} {
		for _, agent := range []string{"a", "b", "c"} {
			step := fmt.Sprintf("round-%d/%s", round+1, agent)
			calls = append(calls, func(e *workflow.Engine) error {
				_, err := e.StartStep(context.Background(), id, step, "host")
				return err
			})
			switch v := votes[agent]; v {
			case fail:
				calls = append(calls, func(e *workflow.Engine) error { return e.FailStep(context.Background(), id, step, 1, "crashed") })
				continue
			case "":
			default:
				calls = append(calls, func(e *workflow.Engine) error {
					_, err := e.AddFindings(context.Background(), id, step, 1, []teammanager.Finding{vote(v)})
					return err
				})
			}
			calls = append(calls, func(e *workflow.Engine) error { return e.CompleteStep(context.Background(), id, step, 1, nil) })
		}
	}
	return calls
}()

// crashScripts are the scripted drives of TestEngine_CrashBetweenCalls.
var crashScripts = map[string][]func(e *workflow.Engine) error{"scatter": crashCalls, "council": councilCrashCalls}

func crashEngine(s *cortex.Store, clock *fakeClock) (*teammanager.Manager, *workflow.Engine, error) {
	x, err := newNS()
	if err != nil {
		return nil, nil, err
	}
	tm, err := teammanager.New(context.Background(), s, x, teammanager.DefaultConfig().WithClock(clock.Now))
	if err != nil {
		return nil, nil, err
	}
	e, err := workflow.New(context.Background(), s, tm, workflow.DefaultConfig().WithClock(clock.Now))
	return tm, e, err
}

// runCalls runs calls [from, to) of script, each at its time.
func runCalls(e *workflow.Engine, clock *fakeClock, script []func(e *workflow.Engine) error, from, to int) error {
	for i := from; i < to; i++ {
		clock.Set(newClock().Now().Add(time.Duration(i) * time.Second))
		if err := script[i](e); err != nil {
			return fmt.Errorf("call %d: %w", i, err)
		}
	}
	return nil
}

// childCalls runs the first calls of the script on the store in dir, says
// so and waits to be killed.
func childCalls(dir string, script []func(e *workflow.Engine) error, calls int) error {
	// Without fsync: a killed process (not the machine) loses nothing
	// committed.
	s, err := cortex.Open(context.Background(), dir, cortex.DefaultOptions().WithSyncWrites(false))
	if err != nil {
		return err
	}
	clock := newClock()
	_, e, err := crashEngine(s, clock)
	if err != nil {
		return err
	}
	if err := runCalls(e, clock, script, 0, calls); err != nil {
		return err
	}
	fmt.Println("done") // stdout is a pipe: an unbuffered write
	select {}
}

// snapshot is what must be the same after a crash and in a run that did
// not crash: the run, its history and the team's merged facts.
type snapshot struct {
	Run     workflow.Run
	History []workflow.Transition
	Facts   []teammanager.Fact
}

func takeSnapshot(t *testing.T, tm *teammanager.Manager, e *workflow.Engine) string {
	t.Helper()
	var sn snapshot
	var err error
	if sn.Run, err = e.Get(ctx, "crash"); err != nil {
		return "no run: " + err.Error()
	}
	if sn.History, err = e.History(ctx, "crash"); err != nil {
		t.Fatal(err)
	}
	if _, err := tm.GetTeam(ctx, "crash"); err == nil {
		if sn.Facts, err = tm.Facts(ctx, "crash", teammanager.FactFilter{}); err != nil {
			t.Fatal(err)
		}
	}
	b, err := json.MarshalIndent(sn, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestEngine_CrashBetweenCalls kills a process driving a run (SIGKILL)
// after each call of a scripted drive, and checks that the next process
// finds the run exactly as the calls left it and, continuing the script,
// ends exactly as a run that never crashed: same run, history and facts.
func TestEngine_CrashBetweenCalls(t *testing.T) {
	for _, name := range []string{"scatter", "council"} {
		t.Run(name, func(t *testing.T) { testCrashBetweenCalls(t, name) })
	}
}

func testCrashBetweenCalls(t *testing.T, name string) {
	crashCalls := crashScripts[name]
	// The reference: the whole script in one process, with a snapshot
	// after each call.
	ref := make([]string, len(crashCalls)+1)
	{
		s := openStore(t, t.TempDir())
		clock := newClock()
		tm, e, err := crashEngine(s, clock)
		if err != nil {
			t.Fatal(err)
		}
		ref[0] = takeSnapshot(t, tm, e)
		for i := range crashCalls {
			if err := runCalls(e, clock, crashCalls, i, i+1); err != nil {
				t.Fatal(err)
			}
			ref[i+1] = takeSnapshot(t, tm, e)
		}
		if !strings.Contains(ref[len(crashCalls)], `"status": "completed"`) {
			t.Fatalf("reference run did not complete:\n%s", ref[len(crashCalls)])
		}
	}
	for k := 1; k < len(crashCalls); k++ {
		t.Run(fmt.Sprint("after call ", k), func(t *testing.T) {
			dir := t.TempDir()
			cmd, out := startChild(t, dir, fmt.Sprint("CORTEX_WORKFLOW_CALLS=", k), "CORTEX_WORKFLOW_SCRIPT="+name)
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil || line != "done\n" {
				t.Fatalf("child: %q, %v", line, err)
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()

			s := openStore(t, dir)
			clock := newClock()
			clock.Set(newClock().Now().Add(time.Duration(k-1) * time.Second))
			tm, e, err := crashEngine(s, clock)
			if err != nil {
				t.Fatal(err)
			}
			if got := takeSnapshot(t, tm, e); got != ref[k] {
				t.Fatalf("after the crash:\n%s\nwant\n%s", got, ref[k])
			}
			if err := runCalls(e, clock, crashCalls, k, len(crashCalls)); err != nil {
				t.Fatal(err)
			}
			if got := takeSnapshot(t, tm, e); got != ref[len(crashCalls)] {
				t.Fatalf("resumed run ends as\n%s\nwant\n%s", got, ref[len(crashCalls)])
			}
		})
	}
}

func openStore(t *testing.T, dir string) *cortex.Store {
	t.Helper()
	s, err := cortex.Open(ctx, dir, cortex.DefaultOptions().WithSyncWrites(false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}
