//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestCLI_WorkflowsExecTimeoutKillsChildren: a step command whose child
// keeps its stdout open (a background job) is stopped with all its
// processes when the step times out; the driver used to wait for the
// child to exit.
func TestCLI_WorkflowsExecTimeoutKillsChildren(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	code, status, reason := stepOf(t, "--step-timeout", "1", "--exec", fmt.Sprintf("sleep 300 & echo $! > %s; sleep 300", pidFile))
	if code != 4 || status != "failed" || !strings.Contains(reason, "timed out") {
		t.Fatalf("exit %d, step %s (%s), want exit 4 and the step timed out", code, status, reason)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	for alive(pid) {
		// SIGKILL was sent to the group; wait for it to land.
		runtime.Gosched()
	}
}

// alive reports whether process pid runs (a zombie does not).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
