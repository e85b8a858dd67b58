package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCLI_StopBlockedOutput: a command blocked writing its output (a
// named pipe nobody opens, a pipe nobody reads) still stops at SIGTERM:
// the signal cancels its context, and when that cannot reach it the
// process exits at once (exit 8, saying so on stderr) a short grace
// later. It used to stay blocked until kill -9, holding the store
// locked. Embedded and through a server (where the blocked process is
// the client): the process ends with 8 and a write command that follows
// works.
func TestCLI_StopBlockedOutput(t *testing.T) {
	t.Parallel()
	bin := buildCLI(t)
	// More than a pipe's buffer: the export blocks when nobody reads.
	var nt strings.Builder
	for i := range 6000 {
		fmt.Fprintf(&nt, "<https://ex.org/s%d> <https://ex.org/p> \"a value long enough to fill a pipe quickly %d\" .\n", i, i)
	}
	data := writeFile(t, "big.nt", nt.String())
	small := writeFile(t, "small.nt", "<https://ex.org/a> <https://ex.org/p> <https://ex.org/b> .\n")
	for _, served := range []bool{false, true} {
		mode := "embedded"
		if served {
			mode = "served"
		}
		t.Run(mode+"/fifo", func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			stop := setUpStore(t, dir, data, served)
			fifo := filepath.Join(t.TempDir(), "out.nq")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "--data", dir, "export", "-o", fifo)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if !served {
				// Nobody opens the named pipe: the export blocks opening it,
				// once it has opened the store. Wait for that.
				waitOpened(t, cmd.Process.Pid, dir)
			} else {
				// The client opens its output before it asks the server: a
				// reader opens the pipe and reads its first byte (the
				// export is under way), then no more.
				r, err := os.Open(fifo)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				if _, err := io.ReadFull(r, make([]byte, 1)); err != nil {
					t.Fatalf("export wrote nothing: %v: %s", err, out.String())
				}
			}
			stopAndCheck(t, bin, cmd, &out, dir, small)
			stop()
		})
		t.Run(mode+"/pipe-not-read", func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			stop := setUpStore(t, dir, data, served)
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			cmd := exec.Command(bin, "--data", dir, "export")
			var errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = w, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			w.Close()
			// Its first byte: the export is under way; then nobody reads.
			if _, err := io.ReadFull(r, make([]byte, 1)); err != nil {
				t.Fatalf("export wrote nothing: %v: %s", err, errb.String())
			}
			stopAndCheck(t, bin, cmd, &errb, dir, small)
			stop()
		})
	}
}

// setUpStore imports data into a store in dir and, if served, serves it
// (cortexctl serve); it returns the function that stops the server.
func setUpStore(t *testing.T, dir, data string, served bool) func() {
	t.Helper()
	if r := runBinary(t, nil, "--data", dir, "import", data); r.code != 0 {
		t.Fatalf("import: exit %d: %s", r.code, r.stderr)
	}
	if !served {
		return func() {}
	}
	s := startServe(t, dir, "--listen", "")
	return func() {
		if code := s.stop(syscall.SIGTERM); code != 0 {
			t.Errorf("serve exited %d: %s", code, s.stderr)
		}
	}
}

// waitOpened waits until the process pid has the store in dir open (its
// lock file).
func waitOpened(t *testing.T, pid int, dir string) {
	t.Helper()
	want := filepath.Join(dir, "cortex.lock")
	fds := fmt.Sprintf("/proc/%d/fd", pid)
	for {
		es, err := os.ReadDir(fds)
		if err != nil {
			t.Fatalf("the process ended early: %v", err)
		}
		for _, e := range es {
			l, _ := os.Readlink(filepath.Join(fds, e.Name()))
			if l == want {
				return
			}
		}
		time.Sleep(10 * time.Millisecond) // polling for the open, not a timing
	}
}

// stopAndCheck sends SIGTERM to cmd, waits for it to end, wants exit 8
// and the message of the immediate exit, and then a write command (an
// import of small) to work on the store in dir.
func stopAndCheck(t *testing.T, bin string, cmd *exec.Cmd, stderr *bytes.Buffer, dir, small string) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitTimeout {
		t.Fatalf("exit %d after SIGTERM, want %d:\n%s", code, exitTimeout, stderr.String())
	}
	// "interrupted: ... exiting at once", or the command's own message if
	// the signal reached it before it blocked.
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr does not say it was interrupted:\n%s", stderr.String())
	}
	if r := runBinary(t, nil, "--data", dir, "import", small); r.code != 0 {
		t.Fatalf("import after the stopped export: exit %d: %s", r.code, r.stderr)
	}
}
