//go:build unix

package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/server"
)

// holdImport starts an import over s's socket whose body is not done
// (one line sent), and returns once its handler runs: it holds s's
// shutdown until the returned writer sends more and is closed. answered
// gets the import's answer (or error), as text.
func holdImport(t *testing.T, s *served) (pw *io.PipeWriter, answered <-chan string) {
	t.Helper()
	pr, pw := io.Pipe()
	t.Cleanup(func() { pw.Close() })
	res := make(chan string, 1)
	go func() {
		resp, err := s.unix.Post("http://cortex/ns/acme/import?format=nt", "application/n-triples", pr)
		if err != nil {
			res <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		res <- string(b)
	}()
	if _, err := io.WriteString(pw, "<https://ex.org/a> <https://ex.org/p> \"1\" .\n"); err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(metrics(t, s), `cortex_http_requests_in_flight{route="import"} 1`) {
		time.Sleep(time.Millisecond) // polling, not a timing
	}
	return pw, res
}

// waitStopping sends SIGTERM to s and returns its discovery file once it
// says the server is stopping.
func waitStopping(t *testing.T, s *served) server.Discovery {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for {
		d, err := server.ReadDiscovery(s.dir)
		if err != nil {
			t.Fatalf("discovery file of a stopping server: %v", err)
		}
		if !d.Stopping.IsZero() {
			return d
		}
		time.Sleep(time.Millisecond) // polling, not a timing
	}
}

// TestServe_HardExitRemovesDiscoveryAndSocket: serve stopping with a
// request in flight that does not end (an import whose body never comes)
// and made to exit at once (a second signal; the end of its 12 s grace
// takes the same way, TestStopper_HardExitRunsCleanup) exits 8 and
// removes its discovery file and socket, which it used to leave behind;
// killed (a crash), it leaves both, and they are stale: the next command
// opens the store and a new serve replaces them.
func TestServe_HardExitRemovesDiscoveryAndSocket(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sig    syscall.Signal
		code   int
		remain bool
	}{
		{"second signal", syscall.SIGTERM, exitTimeout, false},
		{"crash", syscall.SIGKILL, -1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := startServe(t, dir, "--listen", "")
			holdImport(t, s)
			waitStopping(t, s)
			if code := s.stop(tc.sig); code != tc.code {
				t.Fatalf("serve after SIGTERM and %v: exit %d, want %d: %s", tc.sig, code, tc.code, s.stderr)
			}
			if tc.sig != syscall.SIGKILL && !strings.Contains(s.stderr.String(), "exiting at once") {
				t.Errorf("serve's stderr: %s", s.stderr)
			}
			for _, p := range []string{filepath.Join(dir, server.DiscoveryFile), s.disc.Socket} {
				if _, err := os.Lstat(p); tc.remain != (err == nil) || !tc.remain && !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s after %v: %v, want left %v", p, tc.sig, err, tc.remain)
				}
			}
			if _, err := server.ReadDiscovery(dir); !errors.Is(err, server.ErrNoServer) {
				t.Errorf("discovery after %v: %v, want no server", tc.sig, err)
			}
			if r := runBinary(t, nil, "--data", dir, "namespaces", "list"); r.code != 0 {
				t.Errorf("stats after serve exited: exit %d: %s%s", r.code, r.stdout, r.stderr)
			}
			startServe(t, dir, "--listen", "").healthyThenStop(t)
		})
	}
}

// TestStopper_HardExitRunsCleanup: the functions onHardExit registered
// (and not removed) run, last first, before the immediate exit, whether
// it comes from a second signal or from the grace running out; none runs
// when the command stops by itself.
func TestStopper_HardExitRunsCleanup(t *testing.T) {
	for _, tc := range []struct {
		name    string
		grace   time.Duration
		signals int
	}{
		{"second signal", time.Hour, 2},
		{"grace over", time.Millisecond, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exited := make(chan int, 1)
			s := &stopper{stderr: io.Discard, exit: func(code int) { exited <- code }}
			s.grace.Store(int64(tc.grace))
			sigs := make(chan os.Signal, 2)
			ctx, stop := s.start(context.Background(), sigs)
			defer stop()
			var ran []string
			onHardExit(ctx, func() { ran = append(ran, "first") })
			remove := onHardExit(ctx, func() { ran = append(ran, "removed") })
			onHardExit(ctx, func() { ran = append(ran, "last") })
			remove()
			for range tc.signals {
				sigs <- syscall.SIGTERM
			}
			if code := <-exited; code != exitTimeout {
				t.Errorf("exit %d, want %d", code, exitTimeout)
			}
			if got := strings.Join(ran, ","); got != "last,first" {
				t.Errorf("ran %s, want last,first", got)
			}
		})
	}
	// Stopped by itself: nothing runs.
	s := &stopper{stderr: io.Discard, exit: func(int) { t.Error("exited") }}
	s.grace.Store(int64(time.Hour))
	ctx, stop := s.start(context.Background(), make(chan os.Signal))
	onHardExit(ctx, func() { t.Error("ran") })
	stop()
}
