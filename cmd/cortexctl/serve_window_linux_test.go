package main

import (
	"bufio"
	"bytes"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cortexgraph/cortex/server"
)

// TestServe_FirstCallRefusedWaitsForStoppingServer: a command that found
// the server of DIR answering (its discovery check connects) but whose
// first call's connection is refused (the server began to stop in
// between: it accepts no new connection from then on) finds the server
// again, waits for the stopping server to release the store, saying so,
// then opens the store itself: stats sees what the request in flight
// wrote. It used to exit 6 at once.
//
// The window is made certain: the server (a real serve, stopping with an
// import in flight) is named in its discovery file with a socket that
// accepts one connection, the discovery check's, and refuses the next:
// a listening socket with a backlog of 0 that never accepts (Linux refuses
// a second connection waiting in its queue, EAGAIN).
func TestServe_FirstCallRefusedWaitsForStoppingServer(t *testing.T) {
	dir := t.TempDir()
	s := startServe(t, dir, "--listen", "")
	pw, imported := holdImport(t, s)
	d := waitStopping(t, s)

	sock := filepath.Join(t.TempDir(), "l.sock")
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: sock}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	d.Socket = sock
	if err := server.WriteDiscovery(dir, d); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(buildCLI(t), "--data", dir, "-n", "acme", "stats", "--json")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	r := bufio.NewReader(pipe)
	var said string
	for !strings.Contains(said, "is stopping: waiting for it to release the store") {
		line, err := r.ReadString('\n')
		if err != nil {
			rest, _ := io.ReadAll(r)
			cmd.Wait()
			t.Fatalf("stats whose first call was refused: exit %d, no wait: %s%s", cmd.ProcessState.ExitCode(), said, rest)
		}
		said += line
	}
	if !strings.Contains(said, "refused the connection: looking for it again") {
		t.Errorf("stats's stderr: %s", said)
	}
	// The import finishes, the server exits, the command goes on.
	if _, err := io.WriteString(pw, "<https://ex.org/b> <https://ex.org/p> \"2\" .\n"); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	if got := <-imported; !strings.Contains(got, `"committed":2`) {
		t.Fatalf("the import in flight: %s", got)
	}
	<-s.done
	rest, _ := io.ReadAll(r)
	if err := cmd.Wait(); err != nil || !strings.Contains(stdout.String(), `"quads": 2`) {
		t.Fatalf("stats after the server stopped: %v: %s%s%s", err, stdout.String(), said, rest)
	}
}
