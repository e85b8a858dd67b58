package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cortexgraph/cortex/server"
)

// TestCLI_TwoProcessesOneStore: two cortexctl processes on one data
// directory and no server. While one writes (an import reading a named
// pipe), a second command, whether it reads or writes, and serve are
// refused at once with exit 6, naming the writer's pid; serve leaves no
// discovery file or socket. While one reads (an export blocked opening
// its output), other readers run and a writer is refused, naming no pid
// (readers record none).
func TestCLI_TwoProcessesOneStore(t *testing.T) {
	bin := buildCLI(t)
	dir := t.TempDir()
	mustCLI(t, dir, "import", writeFile(t, "a.nt", "<https://ex.org/a> <https://ex.org/p> \"1\" .\n"))
	fifo := func(name string) string {
		p := filepath.Join(t.TempDir(), name)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	start := func(args ...string) (*exec.Cmd, *strings.Builder) {
		cmd := exec.Command(bin, append([]string{"--data", dir}, args...)...)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if cmd.ProcessState == nil {
				cmd.Process.Kill()
				cmd.Wait()
			}
		})
		waitOpened(t, cmd.Process.Pid, dir)
		return cmd, &out
	}

	t.Run("a writer holds it", func(t *testing.T) {
		in := fifo("in.nt")
		// Opened read-write, the pipe does not wait for its reader, and
		// the import sees no end of input while it is open.
		w, err := os.OpenFile(in, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		imp, out := start("import", in, "--format", "nt")
		holder := fmt.Sprintf("store %s is in use by another process (pid %d)", dir, imp.Process.Pid)
		for _, args := range [][]string{{"teams", "list"}, {"export"}, {"teams", "create", "--name", "x", "--member", "ann"}} {
			r := runBinary(t, nil, append([]string{"--data", dir}, args...)...)
			if r.code != exitLocked || !strings.Contains(r.stderr, holder) {
				t.Errorf("%v beside an import: exit %d, stderr %q; want %d, %q", args, r.code, r.stderr, exitLocked, holder)
			}
		}
		code, serr := serveOrExit(t, "--data", dir, "serve", "--listen", "")
		if code != exitLocked || !strings.Contains(serr, holder) {
			t.Errorf("serve beside an import: exit %d, %q; want %d, %q", code, serr, exitLocked, holder)
		}
		for _, name := range []string{server.DiscoveryFile, "cortex.sock"} {
			if _, err := os.Lstat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("serve refused left %s (%v)", name, err)
			}
		}
		if _, err := io.WriteString(w, "<https://ex.org/b> <https://ex.org/p> \"2\" .\n"); err != nil {
			t.Fatal(err)
		}
		w.Close()
		if err := imp.Wait(); err != nil {
			t.Fatalf("import: %v: %s", err, out)
		}
		if r := runBinary(t, nil, "--data", dir, "stats", "--json"); r.code != 0 || !strings.Contains(r.stdout, `"quads": 2`) {
			t.Errorf("stats after the import: exit %d: %s%s", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("a reader holds it", func(t *testing.T) {
		// Nobody opens the export's output: it blocks there, the store
		// open read-only.
		outPipe := fifo("out.nq")
		exp, out := start("export", "-o", outPipe)
		if r := runBinary(t, nil, "--data", dir, "graphs"); r.code != 0 {
			t.Errorf("graphs beside a reader: exit %d: %s", r.code, r.stderr)
		}
		r := runBinary(t, nil, "--data", dir, "teams", "create", "--name", "x", "--member", "ann")
		if r.code != exitLocked || !strings.Contains(r.stderr, "in use by another process") || strings.Contains(r.stderr, "pid") {
			t.Errorf("teams create beside a reader: exit %d, stderr %q; want %d, in use, no pid", r.code, r.stderr, exitLocked)
		}
		rd, err := os.Open(outPipe)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		if _, err := io.Copy(io.Discard, rd); err != nil {
			t.Fatal(err)
		}
		if err := exp.Wait(); err != nil {
			t.Fatalf("export: %v: %s", err, out)
		}
	})
}
