//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/server"
)

// TestServe_SocketInUseRefusedBeforeStoreCreated: a --socket another
// server answers on is an address in use: exit 6 before the store is
// opened or created, as a TCP address in use is; the live socket is kept.
func TestServe_SocketInUseRefusedBeforeStoreCreated(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s.sock")
	first := startServe(t, t.TempDir(), "--listen", "", "--socket", sock)
	before, err := os.Lstat(sock)
	if err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(t.TempDir(), "new")
	code, out := serveOrExit(t, "--data", fresh, "serve", "--listen", "", "--socket", sock)
	if code != exitLocked || !strings.Contains(out, "in use") {
		t.Fatalf("socket in use: exit %d: %s", code, out)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("serve refused for its socket left %s (%v)", fresh, err)
	}
	if now, err := os.Lstat(sock); err != nil || !os.SameFile(before, now) {
		t.Errorf("the first server's socket was replaced or removed (%v)", err)
	}
	first.healthyThenStop(t)
}

// TestServe_BusySocketNotReplaced: a socket whose listener is alive but
// whose accept queue is full (a connection attempt fails with EAGAIN, not
// ECONNREFUSED) is in use: serve refuses it (exit 6) and does not remove
// it. Only a socket nobody listens on (connection refused) is stale.
func TestServe_BusySocketNotReplaced(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "busy.sock")
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: sock}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil { // never accepts
		t.Fatal(err)
	}
	// Fill its accept queue until a connection attempt is refused as busy.
	busy := false
	for i := 0; i < 64 && !busy; i++ {
		c, err := net.Dial("unix", sock)
		if err == nil {
			defer c.Close()
			continue
		}
		if !errors.Is(err, syscall.EAGAIN) {
			t.Fatalf("dial %s: %v", sock, err)
		}
		busy = true
	}
	if !busy {
		t.Skip("the accept queue never filled up")
	}
	before, err := os.Lstat(sock)
	if err != nil {
		t.Fatal(err)
	}
	code, out := serveOrExit(t, "--data", filepath.Join(t.TempDir(), "store"), "serve", "--listen", "", "--socket", sock)
	if code != exitLocked {
		t.Errorf("busy socket: exit %d, want %d: %s", code, exitLocked, out)
	}
	if now, err := os.Lstat(sock); err != nil || !os.SameFile(before, now) {
		t.Errorf("the busy listener's socket was removed or replaced (%v)", err)
	}
}

// TestServe_FailedStartRemovesSocket: serve that fails after binding its
// socket (here the discovery file cannot be written: a directory has its
// name) removes the socket it made, as a shutdown does.
func TestServe_FailedStartRemovesSocket(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "cortex-server.json"), 0o700); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "cortex.sock")
	code, out := serveOrExit(t, "--data", dir, "serve", "--listen", "")
	if code == exitOK || code == -1 || !strings.Contains(out, "discovery file") {
		t.Fatalf("serve with an unwritable discovery file: exit %d: %s", code, out)
	}
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s left after serve failed (%v)", sock, err)
	}
}

// TestServe_ListenNoSuchAddressIsInvalid: a --listen whose host does not
// resolve, or that is no address of this machine, is an invalid option
// value (exit 7), not an address in use (6, which says retry later); it
// stops serve before the store is created.
func TestServe_ListenNoSuchAddressIsInvalid(t *testing.T) {
	for _, tc := range []struct{ name, addr, says string }{
		{"unresolvable host", "no-such-host.invalid:7474", "no-such-host.invalid"},
		{"not this machine's", "192.0.2.1:7474", "192.0.2.1"}, // TEST-NET-1 (RFC 5737)
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh := filepath.Join(t.TempDir(), "new")
			code, out := serveMustRefuse(t, fresh, "--insecure", "--listen", tc.addr)
			if code != exitInvalid || !strings.Contains(out, tc.says) {
				t.Errorf("--listen %s: exit %d, want %d: %s", tc.addr, code, exitInvalid, out)
			}
			if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("serve that could not listen left %s (%v)", fresh, err)
			}
		})
	}
}

// TestServe_DiscoveryOfReusedPidIsStale: a discovery file left by a server
// killed with SIGKILL whose pid now belongs to an unrelated live process
// (pid reuse, as in a restarted container; here the test's parent) is
// stale: cortexctl works on the store itself, also when another server
// (of another store) now listens on the dead server's address.
func TestServe_DiscoveryOfReusedPidIsStale(t *testing.T) {
	cli := func(dir string, args ...string) (int, string) {
		cmd := exec.Command(buildCLI(t), append([]string{"--data", dir}, args...)...)
		out, _ := cmd.CombinedOutput()
		return cmd.ProcessState.ExitCode(), string(out)
	}
	dirA, dirB := t.TempDir(), t.TempDir()
	for dir, name := range map[string]string{dirA: "alpha", dirB: "beta"} {
		if code, out := cli(dir, "teams", "create", "--name", name, "--member", "ann"); code != 0 {
			t.Fatalf("teams create %s: exit %d: %s", name, code, out)
		}
	}
	a := startServe(t, dirA, "--listen", "127.0.0.1:0")
	if code := a.stop(syscall.SIGKILL); code != -1 {
		t.Fatalf("kill -9: exit %d", code)
	}
	// The file now names a live process that is no server: the test's
	// parent (go test), everything else as the dead server wrote it.
	path := filepath.Join(dirA, server.DiscoveryFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	d["pid"] = os.Getppid()
	if data, err = json.Marshal(d); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := server.ReadDiscovery(dirA); !errors.Is(err, server.ErrNoServer) {
		t.Errorf("ReadDiscovery of a file whose pid was reused: %v, want ErrNoServer", err)
	}
	listA := func(when string) {
		t.Helper()
		code, out := cli(dirA, "teams", "list", "--json")
		if code != 0 || !strings.Contains(out, `"alpha"`) || strings.Contains(out, `"beta"`) {
			t.Errorf("%s: teams list of %s: exit %d: %s", when, dirA, code, out)
		}
	}
	listA("nothing behind the file")
	// Another store's server on the dead server's address.
	b := startServe(t, dirB, "--listen", a.disc.Address, "--socket", "")
	listA("another server on its address")
	if code, out := cli(dirA, "teams", "create", "--name", "gamma", "--member", "bo"); code != 0 {
		t.Fatalf("teams create in %s: exit %d: %s", dirA, code, out)
	}
	if code := b.stop(syscall.SIGTERM); code != 0 {
		t.Fatalf("stop %s's server: exit %d", dirB, code)
	}
	if code, out := cli(dirB, "teams", "list", "--json"); code != 0 || strings.Contains(out, `"gamma"`) {
		t.Errorf("a team created in %s went to %s's server: exit %d: %s", dirA, dirB, code, out)
	}
}

// TestListenError_Classes: what listening on --listen fails with decides
// the exit code: a port this user may not bind (EACCES, a port below 1024
// without the privilege) or an address of no interface is an invalid value
// (7), which trying again does not cure; an address in use is unavailable
// (6). The EACCES case cannot happen to the root user the tests run as, so
// it is checked here, on the error net.Listen returns.
func TestListenError_Classes(t *testing.T) {
	bind := func(errno syscall.Errno) error {
		return &net.OpError{Op: "listen", Net: "tcp", Err: os.NewSyscallError("bind", errno)}
	}
	for _, tc := range []struct {
		name string
		err  error
		want error
		says string
	}{
		{"privileged port", bind(syscall.EACCES), errInvalid, "privilege"},
		{"not this machine's", bind(syscall.EADDRNOTAVAIL), errInvalid, "127.0.0.1:80"},
		{"in use", bind(syscall.EADDRINUSE), api.ErrUnavailable, "address already in use"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := listenError("127.0.0.1:80", tc.err)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("listenError(%v) = %v, want %v saying %q", tc.err, err, tc.want, tc.says)
			}
		})
	}
}

// TestServe_SignalLetsRequestInFlightFinish: SIGTERM, SIGINT, SIGHUP or
// SIGQUIT while a request is in flight (an import whose body is half
// sent): the request finishes (its quads committed and answered), serve
// exits 0 and removes its discovery file and socket, and the next command
// opens the store. SIGHUP (a terminal closed) used to end serve at once,
// and SIGQUIT with a goroutine dump, leaving both files and cutting the
// request.
func TestServe_SignalLetsRequestInFlightFinish(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			if signal.Ignored(sig) {
				// The tests run under nohup (or in a shell's background,
				// which ignores SIGINT and SIGQUIT): serve would inherit
				// the signal ignored and, for SIGHUP, rightly keep it so
				// (TestServe_NohupOutlivesSIGHUP). Caught here, it is
				// the default in the child (exec keeps only ignored ones).
				c := make(chan os.Signal, 1)
				signal.Notify(c, sig)
				defer signal.Stop(c)
			}
			dir := t.TempDir()
			s := startServe(t, dir, "--listen", "")
			pr, pw := io.Pipe()
			type answer struct {
				code int
				body string
				err  error
			}
			res := make(chan answer, 1)
			go func() {
				resp, err := s.unix.Post("http://cortex/ns/acme/import?format=nt", "application/n-triples", pr)
				if err != nil {
					res <- answer{err: err}
					return
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				res <- answer{resp.StatusCode, string(b), err}
			}()
			if _, err := io.WriteString(pw, "<https://ex.org/a> <https://ex.org/p> \"1\" .\n"); err != nil {
				t.Fatal(err)
			}
			// The import's handler runs (net/http drops a request whose
			// handler has not started when the shutdown begins).
			for !strings.Contains(metrics(t, s), `cortex_http_requests_in_flight{route="import"} 1`) {
				time.Sleep(time.Millisecond) // polling, not a timing
			}
			if err := s.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if _, err := io.WriteString(pw, "<https://ex.org/b> <https://ex.org/p> \"2\" .\n"); err != nil {
				t.Fatal(err)
			}
			pw.Close()
			a := <-res
			if a.err != nil || a.code != http.StatusOK || !strings.Contains(a.body, `"event":"done"`) || !strings.Contains(a.body, `"committed":2`) {
				t.Fatalf("import in flight at %v: %d %v: %s", sig, a.code, a.err, a.body)
			}
			<-s.done
			if code := s.cmd.ProcessState.ExitCode(); code != 0 || strings.Contains(s.stderr.String(), "cut") {
				t.Fatalf("serve after %v: exit %d: %s", sig, code, s.stderr)
			}
			for _, p := range []string{filepath.Join(dir, server.DiscoveryFile), s.disc.Socket} {
				if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s left after %v: %v", p, sig, err)
				}
			}
			if r := runBinary(t, nil, "--data", dir, "-n", "acme", "stats", "--json"); r.code != 0 || !strings.Contains(r.stdout, `"quads": 2`) {
				t.Errorf("stats after serve stopped: exit %d: %s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// metrics returns what s answers on /metrics (over its socket).
func metrics(t *testing.T, s *served) string {
	t.Helper()
	resp, err := s.unix.Get("http://cortex/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestServe_TwoAtOnce: two serve processes started at once on a new data
// directory: one serves, the other exits 6 saying the store is in use (or
// served by the first), and the discovery file names the one that serves.
func TestServe_TwoAtOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	type outcome struct {
		code int // -1: it serves
		out  string
		cmd  *exec.Cmd
	}
	results := make(chan outcome, 2)
	for range 2 {
		cmd := exec.Command(buildCLI(t), "--data", dir, "serve", "--listen", "127.0.0.1:0")
		pipe, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if cmd.ProcessState == nil {
				cmd.Process.Kill()
				cmd.Wait()
			}
		})
		go func() {
			var out strings.Builder
			r := bufio.NewReader(pipe)
			for {
				line, err := r.ReadString('\n')
				out.WriteString(line)
				if strings.Contains(line, "serving") {
					go io.Copy(io.Discard, r)
					results <- outcome{-1, out.String(), cmd}
					return
				}
				if err != nil {
					break
				}
			}
			cmd.Wait()
			results <- outcome{cmd.ProcessState.ExitCode(), out.String(), cmd}
		}()
	}
	a, b := <-results, <-results
	if a.code != -1 {
		a, b = b, a
	}
	// The other finds the store locked, or its socket bound, or (later)
	// the first's discovery file.
	refused := strings.Contains(b.out, "in use by another process") || strings.Contains(b.out, fmt.Sprintf("served by process %d", a.cmd.Process.Pid))
	if a.code != -1 || b.code != exitLocked || !refused {
		t.Fatalf("two serves at once: %d %q and %d %q; want one serving and one exit %d", a.code, a.out, b.code, b.out, exitLocked)
	}
	d, err := server.ReadDiscovery(dir)
	if err != nil || d.PID != a.cmd.Process.Pid {
		t.Fatalf("discovery file %+v (%v), want pid %d", d, err, a.cmd.Process.Pid)
	}
	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := a.cmd.Wait(); err != nil {
		t.Fatalf("serve after SIGTERM: %v", err)
	}
}

// TestServe_SignalCutsRequestPastShutdownTimeout: a request still in
// flight when serve's shutdown time (10 s) is over (an import whose body
// never ends) is cut: the client gets no answer, nothing of it is written,
// serve says so (and only that: no stream was cut), exits 0 and removes
// its discovery file and socket; the next command opens the store.
func TestServe_SignalCutsRequestPastShutdownTimeout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServe(t, dir, "--listen", "")
	pr, pw := io.Pipe()
	defer pw.Close()
	answered := make(chan error, 1)
	go func() {
		resp, err := s.unix.Post("http://cortex/ns/acme/import?format=nt", "application/n-triples", pr)
		if err == nil {
			var b []byte
			b, err = io.ReadAll(resp.Body)
			resp.Body.Close()
			if err == nil {
				err = fmt.Errorf("answered %d: %s", resp.StatusCode, b)
			}
		}
		answered <- err
	}()
	if _, err := io.WriteString(pw, "<https://ex.org/a> <https://ex.org/p> \"1\" .\n"); err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(metrics(t, s), `cortex_http_requests_in_flight{route="import"} 1`) {
		time.Sleep(time.Millisecond) // polling, not a timing
	}
	if code := s.stop(syscall.SIGTERM); code != 0 {
		t.Fatalf("serve after SIGTERM: exit %d: %s", code, s.stderr)
	}
	if got := s.stderr.String(); !strings.Contains(got, "requests still running after 10s were cut") || strings.Contains(got, "streams") || !strings.Contains(got, "cortexctl: stopped") {
		t.Errorf("serve's stderr: %s", got)
	}
	if err := <-answered; err == nil || strings.HasPrefix(err.Error(), "answered") {
		t.Errorf("the cut import: %v, want its connection cut", err)
	}
	for _, p := range []string{filepath.Join(dir, server.DiscoveryFile), s.disc.Socket} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left after SIGTERM: %v", p, err)
		}
	}
	r := runBinary(t, nil, "--data", dir, "-n", "acme", "export")
	if r.stdout != "" || r.code != 0 && !strings.Contains(r.stderr, `no such namespace "acme"`) {
		t.Errorf("export after the cut import: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
}

// TestServe_NohupOutlivesSIGHUP: serve started with SIGHUP ignored (nohup,
// a shell's trap "" HUP) goes on serving after one, and stops on SIGTERM
// as always.
func TestServe_NohupOutlivesSIGHUP(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("/bin/sh", "-c", `trap "" HUP; exec "$0" "$@"`, buildCLI(t), "--data", dir, "serve", "--listen", "")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	r := bufio.NewReader(pipe)
	if line, err := r.ReadString('\n'); err != nil || !strings.Contains(line, "serving") {
		t.Fatalf("serve did not start: %q %v", line, err)
	}
	rest := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(r)
		rest <- string(b)
	}()
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	// Still serving: a command goes through it (and the server, alive,
	// answered after the signal).
	if res := runBinary(t, nil, "--data", dir, "strategies"); res.code != 0 {
		t.Fatalf("a command after SIGHUP: exit %d: %s", res.code, res.stderr)
	}
	d, err := server.ReadDiscovery(dir)
	if err != nil || d.PID != cmd.Process.Pid {
		t.Fatalf("after SIGHUP, discovery: %+v %v", d, err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	out := <-rest
	if err := cmd.Wait(); err != nil || !strings.Contains(out, "stopped") {
		t.Fatalf("serve after SIGTERM: %v: %s", err, out)
	}
}

// TestServe_CommandWaitsForStoppingServer: a command started on DIR while
// its server is shutting down (a request in flight holds the shutdown;
// the server accepts no new connection) waits for the server to release
// the store, saying so, then opens it itself: stats sees what the request
// in flight wrote, and a new serve serves. Such a command used to exit 6
// at once (the store locked).
func TestServe_CommandWaitsForStoppingServer(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"stats", []string{"-n", "acme", "stats", "--json"}},
		{"serve", []string{"serve", "--listen", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := startServe(t, dir, "--listen", "")
			pr, pw := io.Pipe()
			imported := make(chan string, 1)
			go func() {
				resp, err := s.unix.Post("http://cortex/ns/acme/import?format=nt", "application/n-triples", pr)
				if err != nil {
					imported <- err.Error()
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				imported <- string(b)
			}()
			if _, err := io.WriteString(pw, "<https://ex.org/a> <https://ex.org/p> \"1\" .\n"); err != nil {
				t.Fatal(err)
			}
			for !strings.Contains(metrics(t, s), `cortex_http_requests_in_flight{route="import"} 1`) {
				time.Sleep(time.Millisecond) // polling, not a timing
			}
			if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			// Its socket accepts no connection (the import holds the
			// shutdown), and its discovery file says it is stopping.
			for {
				c, err := net.Dial("unix", s.disc.Socket)
				if err != nil {
					break
				}
				c.Close()
				time.Sleep(time.Millisecond) // polling, not a timing
			}
			if d, err := server.ReadDiscovery(dir); err != nil || d.Stopping.IsZero() || d.StopBy.Before(d.Stopping) || d.PID != s.disc.PID {
				t.Errorf("discovery file of a stopping server: %+v %v", d, err)
			}
			cmd := exec.Command(buildCLI(t), append([]string{"--data", dir}, tc.args...)...)
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
					t.Fatalf("%s while the server stops: exit %d, no wait: %s%s", tc.name, cmd.ProcessState.ExitCode(), said, rest)
				}
				said += line
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
			if code := s.cmd.ProcessState.ExitCode(); code != 0 {
				t.Fatalf("the first server: exit %d: %s", code, s.stderr)
			}
			if tc.name == "serve" {
				for !strings.Contains(said, "serving") {
					line, err := r.ReadString('\n')
					if err != nil {
						t.Fatalf("the new serve: %v: %s", err, said)
					}
					said += line
				}
				go io.Copy(io.Discard, r)
				if res := runBinary(t, nil, "--data", dir, "-n", "acme", "stats", "--json"); res.code != 0 || !strings.Contains(res.stdout, `"quads": 2`) {
					t.Fatalf("stats through the new server: exit %d: %s%s", res.code, res.stdout, res.stderr)
				}
				if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			} else {
				go io.Copy(io.Discard, r)
			}
			if err := cmd.Wait(); err != nil || tc.name == "stats" && !strings.Contains(stdout.String(), `"quads": 2`) {
				t.Fatalf("%s: %v: %s%s", tc.name, err, stdout.String(), said)
			}
		})
	}
}
