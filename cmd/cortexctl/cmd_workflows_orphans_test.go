//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWorkflows_KilledDriversStepRunsAgain: a driver killed with SIGKILL
// leaves its step running, with nobody to give it back. The next
// `workflows drive` on the same host sees that the process that started it
// is gone, gives the step back (saying so) and runs it, instead of waiting
// for the step's timeout (an hour here) to fail it and the run.
func TestWorkflows_KilledDriversStepRunsAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs cortexctl processes")
	}
	bin := buildCLI(t)
	dir, sync := t.TempDir(), t.TempDir()
	team := writeFile(t, "team.json", `{"name": "probe", "version": "1.0.0", "agents": ["analyst"],
		"workflow": {"type": "chain", "steps": [{"name": "look", "agent": "analyst"}]}}`)
	mustCLI(t, dir, "workflows", "run", team, "--id", "k1", "--step-timeout", "3600")

	// The first driver starts the step, whose command waits; then the
	// driver is killed. (The command is in a process group of its own and
	// outlives it: killed at the end.)
	hold := writeFile(t, "hold.sh", `echo $$ > "$SYNC/pid"; exec sleep 600`)
	first := exec.Command(bin, "--data", dir, "workflows", "drive", "k1", "--exec", "sh "+hold)
	first.Env = append(os.Environ(), "SYNC="+sync)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(sync, "pid"))
	t.Cleanup(func() {
		if b, err := os.ReadFile(filepath.Join(sync, "pid")); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	if out := mustCLI(t, dir, "workflows", "status", "k1"); !strings.Contains(out, "running") {
		t.Fatalf("after the kill, the step is not running:\n%s", out)
	}

	// A driver that waited for the step's timeout would fail here, long
	// before it.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"cortexctl", "--data", dir, "workflows", "drive", "k1", "--exec", "cat > /dev/null"}, strings.NewReader(""), &out, &errb)
	host, _ := os.Hostname()
	gone := fmt.Sprintf("step look: driver cortexctl-exec:%s:%d is gone (no process %d on %s): starting it again", host, first.Process.Pid, first.Process.Pid, host)
	if code != 0 || !strings.Contains(errb.String(), gone) || !strings.Contains(out.String(), "completed") {
		t.Fatalf("second driver: exit %d, want 0 saying %q\n%s\n%s", code, gone, out.String(), errb.String())
	}
	if h := mustCLI(t, dir, "workflows", "history", "k1"); !strings.Contains(h, "is gone") {
		t.Fatalf("history does not say why the step started again:\n%s", h)
	}
}
