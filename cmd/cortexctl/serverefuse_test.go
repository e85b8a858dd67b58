package main

import (
	"bufio"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// serveOrExit runs cortexctl serve args... and returns its exit code and
// stderr once it exits, or, if it starts serving instead, kills it and
// returns -1 with what it printed.
func serveOrExit(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(buildCLI(t), args...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	r := bufio.NewReader(pipe)
	for {
		line, err := r.ReadString('\n')
		out.WriteString(line)
		if strings.Contains(line, "serving") {
			cmd.Process.Kill()
			io.Copy(io.Discard, r)
			cmd.Wait()
			return -1, out.String()
		}
		if err != nil {
			break
		}
	}
	cmd.Wait()
	return cmd.ProcessState.ExitCode(), out.String()
}

// serveMustRefuse runs cortexctl serve on dir with args, which must refuse
// to start, and returns its exit code and stderr (serveOrExit: a serve
// that starts is killed, exit code -1).
func serveMustRefuse(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	return serveOrExit(t, append([]string{"--data", dir, "serve", "--socket", ""}, args...)...)
}
