//go:build unix

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex"
)

// dirFiles describes the files of dir (name, size, modification time), to
// see whether a command changed any.
func dirFiles(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range ents {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, fmt.Sprintf("%s %d %s", e.Name(), info.Size(), info.ModTime().Format("15:04:05.000000000")))
	}
	slices.Sort(files)
	return strings.Join(files, "\n")
}

// killedImport starts `cortexctl import` of a large file into dir and kills
// it (SIGKILL) once it has said it is importing.
func killedImport(t *testing.T, dir string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "big.nt")
	var b strings.Builder
	for i := range 30_000 {
		fmt.Fprintf(&b, "<http://ex/s%d> <http://ex/p> \"finding %d\" .\n", i, i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(buildCLI(t), "--data", dir, "import", path)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	started := false
	for !started && sc.Scan() {
		started = strings.Contains(sc.Text(), "importing ")
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !started || !errors.As(err, &ee) || ee.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the import was not killed while importing (started %v, %v)", started, err)
	}
}

// TestCLI_ReadCommandAfterKill9: after a process writing the store was
// killed with SIGKILL (a server, an import), the store cannot be read as
// it is: a read-only Open fails with cortex.ErrRecoveryNeeded and changes
// nothing. A read command then opens it read-write once to recover it,
// which rewrites files in --data, and says so on stderr first, naming
// itself; it reads what the killed process had acknowledged. The next read
// command finds a clean store: it changes nothing and says nothing.
func TestCLI_ReadCommandAfterKill9(t *testing.T) {
	for _, tc := range []struct {
		writer  string
		kill    func(t *testing.T, dir string)
		read    []string
		command string
		want    string // in the read command's output
	}{
		{"serve", func(t *testing.T, dir string) {
			mustCLI(t, dir, "teams", "create", "--id", "a", "--name", "a", "--member", "x")
			s := startServe(t, dir, "--listen", "")
			tc := api.TeamConfig{ID: "b", Name: "b", Members: []api.MemberConfig{{Agent: "x", Role: "worker"}}}
			if err := rpc(s.unix, "http://cortex", "default", "teams.create", tc, nil); err != nil {
				t.Fatal(err)
			}
			if code := s.stop(syscall.SIGKILL); code != -1 {
				t.Fatalf("kill -9: exit %d", code)
			}
		}, []string{"teams", "list"}, "cortexctl teams list", "\nb "},
		{"import", killedImport, []string{"stats"}, "cortexctl stats", "namespace:"},
	} {
		t.Run(tc.writer, func(t *testing.T) {
			dir := t.TempDir()
			tc.kill(t, dir)
			killed := dirFiles(t, dir)
			_, err := cortex.Open(context.Background(), dir, cortex.DefaultOptions().WithReadOnly(true))
			if !errors.Is(err, cortex.ErrRecoveryNeeded) {
				t.Fatalf("read-only Open after kill -9: %v, want ErrRecoveryNeeded", err)
			}
			if now := dirFiles(t, dir); now != killed {
				t.Fatalf("a read-only Open changed the store:\n%s\n->\n%s", killed, now)
			}

			r := runCLI(t, dir, "", tc.read...)
			if r.code != 0 || !strings.Contains(r.stdout, tc.want) {
				t.Fatalf("%v: exit %d, stdout %q, stderr %q", tc.read, r.code, r.stdout, r.stderr)
			}
			recovered := dirFiles(t, dir)
			if recovered == killed {
				t.Fatal("the read command changed nothing: the test does not test anything")
			}
			line, rest, _ := strings.Cut(r.stderr, "\n")
			want := "cortexctl: the store in " + dir + " was not closed cleanly (a process writing it was killed or crashed): " +
				tc.command + " opens it read-write once to recover it, which rewrites some of its files, then reads it read-only"
			if line != want {
				t.Fatalf("stderr %q; want it to start with the line %q", r.stderr, want)
			}
			for _, l := range strings.Split(strings.TrimSuffix(rest, "\n"), "\n") {
				if l != "" && !strings.HasPrefix(l, "cortexctl: rolling back an interrupted ") {
					t.Fatalf("stderr line %q after the recovery line", l)
				}
			}

			r = runCLI(t, dir, "", tc.read...)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("%v again: exit %d, stderr %q", tc.read, r.code, r.stderr)
			}
			if now := dirFiles(t, dir); now != recovered {
				t.Fatalf("a read command on a clean store changed it:\n%s\n->\n%s", recovered, now)
			}
		})
	}
}
