//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCLI_StopSignals: SIGTERM (what a process manager sends) stops a
// command as SIGINT (Ctrl-C) does: its context ends, the work in progress
// is given back, and it exits "interrupted" (exit 8). A workflow step that
// was running goes back to pending, so that the next driver runs it; with
// SIGTERM it used to stay "running" until its timeout, as after kill -9.
func TestCLI_StopSignals(t *testing.T) {
	bin := buildCLI(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			team := writeFile(t, "one.json", oneStepTeam)
			started := filepath.Join(t.TempDir(), "started")
			cmd := exec.Command(bin, "--data", dir, "workflows", "run", team, "--id", "r1", "--json", "--exec", "echo $$ > "+started+"; exec sleep 300")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			// A step command left running (the bug) keeps the output pipe
			// open: do not wait for it past the driver's own exit.
			cmd.WaitDelay = 5 * time.Second
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var pid int
			for {
				if b, err := os.ReadFile(started); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
					pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
					break
				}
				time.Sleep(10 * time.Millisecond) // polling for the step's start, not a timing
			}
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != exitTimeout {
				t.Fatalf("exit %d after %v, want %d:\n%s", code, sig, exitTimeout, out.String())
			}
			if alive(pid) {
				t.Errorf("the step's command (pid %d) outlived the driver stopped by %v", pid, sig)
			}
			st := mustCLI(t, dir, "workflows", "status", "r1", "--json")
			var run struct {
				Steps []struct{ Status string }
			}
			if err := json.Unmarshal([]byte(st), &run); err != nil || len(run.Steps) != 1 || run.Steps[0].Status == "running" {
				t.Fatalf("after %v the step is %+v (%v), want it given back:\n%s", sig, run.Steps, err, st)
			}
		})
	}
}
