package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/cortexgraph/cortex/server"
)

// runBinary runs the cortexctl binary with args and env (added to the test's)
// and returns its exit code, stdout and stderr.
func runBinary(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(buildCLI(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	var ee *exec.ExitError
	if err := cmd.Run(); err != nil && !errors.As(err, &ee) {
		t.Error(err)
		return result{code: -1}
	}
	return result{cmd.ProcessState.ExitCode(), out.String(), errb.String()}
}

// TestCLI_WhileServed runs the cortexctl binary while `cortexctl serve`
// holds the store: the operator's commands go through the server (found by
// the discovery file), 20 parallel findings add all succeed, commands
// that open the store themselves are refused with the reason (exit 6), and
// once the server has stopped the same commands open the store.
func TestCLI_WhileServed(t *testing.T) {
	dir := t.TempDir()
	s := startServe(t, dir, "--listen", "")
	data := func(args ...string) []string { return append([]string{"--data", dir, "-n", "acme"}, args...) }
	if r := runBinary(t, nil, data("teams", "create", "--id", "t1", "--name", "review", "--member", "a0", "--member", "a1", "--member", "a2", "--member", "a3")...); r.code != 0 {
		t.Fatalf("teams create: exit %d: %s", r.code, r.stderr)
	}
	for i := range 4 {
		if r := runBinary(t, nil, data("teams", "member-status", "t1", fmt.Sprintf("a%d", i), "running")...); r.code != 0 {
			t.Fatalf("member-status: exit %d: %s", r.code, r.stderr)
		}
	}
	r := runBinary(t, nil, data("teams", "list")...)
	if r.code != 0 || !strings.Contains(r.stdout, "t1") || !strings.Contains(r.stdout, "review") {
		t.Fatalf("teams list while served: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var wg sync.WaitGroup
	codes := make([]result, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			agent := fmt.Sprintf("a%d", i%4)
			codes[i] = runBinary(t, nil, data("findings", "add", "t1", agent, "<https://ex.org/pool.go>", "rdfs:comment", fmt.Sprintf(`"finding %d"`, i))...)
		}()
	}
	wg.Wait()
	for i, r := range codes {
		if r.code != 0 || !strings.HasPrefix(r.stdout, "added finding ") {
			t.Errorf("findings add %d: exit %d: %s%s", i, r.code, r.stdout, r.stderr)
		}
	}
	var fs []struct{ Agent, Object string }
	r = runBinary(t, nil, data("findings", "list", "t1", "--json")...)
	if err := json.Unmarshal([]byte(r.stdout), &fs); err != nil || len(fs) != 20 {
		t.Fatalf("findings list: %d findings (%v): %s", len(fs), err, r.stderr)
	}
	// The same errors, with the same exit codes, as without a server.
	if r := runBinary(t, nil, data("teams", "get", "nope")...); r.code != exitNotFound || !strings.Contains(r.stderr, "unknown team") {
		t.Errorf("teams get nope: exit %d, %q", r.code, r.stderr)
	}
	// graphs, stats and namespaces delete go through the server too.
	if r := runBinary(t, nil, data("graphs")...); r.code != 0 || !strings.Contains(r.stdout, "urn:cortex:acme:team:t1") {
		t.Errorf("graphs while served: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runBinary(t, nil, data("stats", "--json")...); r.code != 0 || !strings.Contains(r.stdout, `"namespace": "acme"`) {
		t.Errorf("stats while served: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runBinary(t, nil, "--data", dir, "-n", "scratch", "namespaces", "delete", "scratch", "--yes"); r.code != exitNotFound || !strings.Contains(r.stderr, "no such namespace") {
		t.Errorf("namespaces delete of no namespace while served: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// (import and export go through the server now: client/importexport_test.go.)
	// The demo too: the same output as over the store itself.
	if r := runBinary(t, nil, data("demo")...); r.code != 0 || !strings.Contains(r.stdout, "conflicts left for a human") ||
		!strings.Contains(r.stdout, "| <urn:cortex:acme:agent:alice> | 2 ") {
		t.Errorf("demo while served: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if code := s.stop(syscall.SIGTERM); code != 0 {
		t.Fatalf("serve exited %d: %s", code, s.stderr)
	}
	if r := runBinary(t, nil, data("graphs")...); r.code != 0 || !strings.Contains(r.stdout, "urn:cortex:acme:team:t1") {
		t.Fatalf("graphs after the server stopped: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runBinary(t, nil, data("findings", "list", "t1", "--json")...)
	if err := json.Unmarshal([]byte(r.stdout), &fs); err != nil || len(fs) != 20 {
		t.Fatalf("findings list after the server stopped: %d findings (%v): %s", len(fs), err, r.stderr)
	}
}

// TestCLI_ServerFlag sends commands to a server named by --server or
// CORTEX_SERVER, over its socket and over TCP, from a machine without the
// store (--data names nothing): the output is the server's store's.
func TestCLI_ServerFlag(t *testing.T) {
	dir := t.TempDir()
	s := startServe(t, dir, "--listen", "127.0.0.1:0")
	nowhere := []string{"--data", t.TempDir() + "/none", "-n", "acme"}
	for _, target := range []struct {
		name string
		env  []string
		flag []string
	}{
		{"socket flag", nil, []string{"--server", "unix://" + s.disc.Socket}},
		{"tcp env", []string{"CORTEX_SERVER=http://" + s.disc.Address}, nil},
	} {
		t.Run(target.name, func(t *testing.T) {
			args := func(a ...string) []string {
				return append(append(append([]string{}, target.flag...), nowhere...), a...)
			}
			team := strings.ReplaceAll(target.name, " ", "-")
			if r := runBinary(t, target.env, args("teams", "create", "--id", team, "--name", "n", "--member", "ann")...); r.code != 0 {
				t.Fatalf("teams create: exit %d: %s", r.code, r.stderr)
			}
			r := runBinary(t, target.env, args("query", "--format", "csv", "SELECT ?t WHERE { ?t a cx:Team } ORDER BY ?t")...)
			if r.code != 0 || !strings.Contains(r.stdout, "urn:cortex:acme:team:"+team+"\r\n") {
				t.Fatalf("query: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if r := runBinary(t, target.env, args("teams", "member-status", team, "ann", "done")...); r.code != exitInvalid || !strings.Contains(r.stderr, "invalid status") {
				t.Fatalf("bad status: exit %d, %q", r.code, r.stderr)
			}
			if r := runBinary(t, target.env, args("demo")...); r.code != 0 || !strings.Contains(r.stdout, "== Cortex demo: server ") ||
				!strings.Contains(r.stdout, "| <urn:cortex:acme:agent:alice> | 2 ") {
				t.Fatalf("demo with --server: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
	if r := runBinary(t, nil, append([]string{"--server", "unix://" + dir + "/nope.sock"}, append(nowhere, "teams", "list")...)...); r.code != exitLocked || !strings.Contains(r.stderr, "nope.sock") {
		t.Fatalf("no server at --server: exit %d, %q", r.code, r.stderr)
	}
	if r := runBinary(t, nil, append([]string{"--server", "localhost:7474"}, append(nowhere, "teams", "list")...)...); r.code != exitInvalid || !strings.Contains(r.stderr, "--server") {
		t.Fatalf("bad --server: exit %d, %q", r.code, r.stderr)
	}
}

// TestReachable_OnlyThisMachine: a discovery file's TCP address is used
// only on loopback; a server listening on every interface is reached on
// loopback; an address of another host is never dialled, so a planted
// discovery file cannot send commands and their token elsewhere.
func TestReachable_OnlyThisMachine(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:7474":   "127.0.0.1:7474",
		"127.3.4.5:7474":   "127.3.4.5:7474",
		"[::1]:7474":       "[::1]:7474",
		"localhost:7474":   "localhost:7474",
		"0.0.0.0:7474":     "127.0.0.1:7474",
		"[::]:7474":        "[::1]:7474",
		"192.0.2.1:7474":   "",
		"10.0.0.1:80":      "",
		"[2001:db8::1]:80": "",
		"evil.example:80":  "",
		"127.0.0.1":        "",
		"":                 "",
	} {
		if got := localAddr(addr); got != want {
			t.Errorf("localAddr(%q) = %q, want %q", addr, got, want)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	if got, want := reachable(server.Discovery{PID: os.Getpid(), Address: "0.0.0.0:" + port}), "http://127.0.0.1:"+port; got != want {
		t.Errorf("reachable of a server on every interface = %q, want %q", got, want)
	}
}

// TestDiscover_OwnedByThisUserOnly: a discovery file is used only if this
// user owns it (another user could name a socket of theirs in it); a
// stale one is ErrNoServer, a corrupt one is ignored with a reason.
func TestDiscover_OwnedByThisUserOnly(t *testing.T) {
	dir := t.TempDir()
	if _, err := discover(dir, os.Getuid()); !errors.Is(err, server.ErrNoServer) {
		t.Fatalf("no file: %v", err)
	}
	want := server.Discovery{PID: os.Getpid(), Socket: filepath.Join(dir, "cortex.sock")}
	if err := server.WriteDiscovery(dir, want); err != nil {
		t.Fatal(err)
	}
	if d, err := discover(dir, os.Getuid()); err != nil || d.PID != want.PID || d.Socket != want.Socket {
		t.Fatalf("this user's file: %+v, %v", d, err)
	}
	if _, err := discover(dir, os.Getuid()+1); err == nil || errors.Is(err, server.ErrNoServer) || !strings.Contains(err.Error(), "belongs to user") {
		t.Fatalf("another user's file: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, server.DiscoveryFile), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := discover(dir, os.Getuid()); err == nil || errors.Is(err, server.ErrNoServer) || !strings.Contains(err.Error(), "ignoring") {
		t.Fatalf("corrupt file: %v", err)
	}
}

// TestDiscover_CopiedStore: a copy of a served store directory (its
// discovery file copied with it) is not taken for the served one: commands
// on the copy open the copy, and nothing reaches the server.
func TestDiscover_CopiedStore(t *testing.T) {
	served, cp := t.TempDir(), t.TempDir()
	mustCLI(t, cp, "teams", "create", "--id", "copy", "--name", "n", "--member", "ann")
	sock := filepath.Join(t.TempDir(), "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var conns sync.WaitGroup
	reached := make(chan struct{}, 1)
	conns.Add(1)
	go func() { // every connection is closed at once: a command sent here fails
		defer conns.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			select {
			case reached <- struct{}{}:
			default:
			}
			c.Close()
		}
	}()
	if err := server.WriteDiscovery(served, server.Discovery{PID: os.Getpid(), Socket: sock}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(served, server.DiscoveryFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cp, server.DiscoveryFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	var teams []struct{ ID string }
	r := runCLI(t, cp, "", "teams", "list", "--json")
	out := r.stdout
	if r.code != exitOK {
		t.Errorf("teams list of the copy: exit %d: %s", r.code, r.stderr)
	}
	if err := json.Unmarshal([]byte(out), &teams); err != nil || len(teams) != 1 || teams[0].ID != "copy" {
		t.Fatalf("teams list of the copy: %s (%v)", out, err)
	}
	l.Close()
	conns.Wait()
	select {
	case <-reached:
		t.Fatal("a command on the copy connected to the server of the original")
	default:
	}
}
