package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/server"
)

// served is a `cortexctl serve` subprocess.
type served struct {
	t      *testing.T
	cmd    *exec.Cmd
	dir    string
	disc   server.Discovery
	line   string        // its "serving" line
	before string        // what it printed before its "serving" line
	stderr *bytes.Buffer // what it printed after its "serving" line
	done   chan struct{} // closed when the process has exited and its stderr is read
	tcp    *http.Client
	unix   *http.Client
}

// startServe runs cortexctl --data dir serve args... and waits for its
// "serving" line (printed once it listens and has written the discovery
// file); the lines before it are s.before.
func startServe(t *testing.T, dir string, args ...string) *served {
	t.Helper()
	cmd := exec.Command(buildCLI(t), append([]string{"--data", dir, "serve"}, args...)...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &served{t: t, cmd: cmd, dir: dir, stderr: &bytes.Buffer{}, done: make(chan struct{})}
	r := bufio.NewReader(pipe)
	for {
		s.line, err = r.ReadString('\n')
		if err != nil || strings.Contains(s.line, "serving") {
			break
		}
		s.before += s.line
	}
	if err != nil {
		rest, _ := io.ReadAll(r)
		cmd.Wait()
		t.Fatalf("serve did not start: %q %v %s", s.before+s.line, err, rest)
	}
	go func() {
		io.Copy(s.stderr, r)
		cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		select {
		case <-s.done:
		default:
			cmd.Process.Kill()
			<-s.done
		}
	})
	if s.disc, err = server.ReadDiscovery(dir); err != nil {
		t.Fatal(err)
	}
	s.tcp = &http.Client{}
	s.unix = &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", s.disc.Socket)
	}}}
	return s
}

// healthyThenStop checks that s answers /healthz over its socket, then
// stops it with SIGTERM and checks it exits 0.
func (s *served) healthyThenStop(t *testing.T) {
	t.Helper()
	resp, err := s.unix.Get("http://cortex/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz over the socket: %v %v", resp, err)
	}
	resp.Body.Close()
	if code := s.stop(syscall.SIGTERM); code != 0 {
		t.Fatalf("exit code after SIGTERM: %d; stderr: %s", code, s.stderr)
	}
}

// stop sends sig and returns the exit code.
func (s *served) stop(sig os.Signal) int {
	s.t.Helper()
	if err := s.cmd.Process.Signal(sig); err != nil {
		s.t.Fatal(err)
	}
	<-s.done
	return s.cmd.ProcessState.ExitCode()
}

// rpc calls method over client (base URL base) and decodes the result into out.
func rpc(client *http.Client, base, ns, method string, params, out any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, p)
	resp, err := client.Post(base+"/ns/"+ns+"/rpc", "application/json", strings.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return fmt.Errorf("%s: status %d: %w", method, resp.StatusCode, err)
	}
	if r.Error != nil {
		return fmt.Errorf("%s: %s", method, r.Error.Message)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(r.Result, out)
}

func TestServe_SocketTCPAndSIGTERM(t *testing.T) {
	dir := t.TempDir()
	s := startServe(t, dir, "--listen", "127.0.0.1:0")
	if s.disc.PID != s.cmd.Process.Pid || s.disc.Socket != filepath.Join(dir, "cortex.sock") || !strings.HasPrefix(s.disc.Address, "127.0.0.1:") {
		t.Fatalf("discovery file: %+v (pid %d)", s.disc, s.cmd.Process.Pid)
	}
	fi, err := os.Stat(s.disc.Socket)
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket: %v %v", fi.Mode(), err)
	}
	tc := api.TeamConfig{ID: "t1", Name: "review", Members: []api.MemberConfig{{Agent: "alice", Role: "lead"}}}
	if err := rpc(s.unix, "http://cortex", "acme", "teams.create", tc, nil); err != nil {
		t.Fatal(err)
	}
	var team api.Team
	if err := rpc(s.tcp, "http://"+s.disc.Address, "acme", "teams.get", map[string]string{"team": "t1"}, &team); err != nil || team.Name != "review" {
		t.Fatalf("teams.get over TCP: %+v %v", team, err)
	}
	s.healthyThenStop(t)
	for _, p := range []string{filepath.Join(dir, server.DiscoveryFile), s.disc.Socket} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left after shutdown: %v", p, err)
		}
	}
	// The store was closed cleanly: the CLI opens it and sees the team.
	out, err := exec.Command(buildCLI(t), "--data", dir, "-n", "acme", "teams", "get", "t1", "--json").CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"name": "review"`) {
		t.Fatalf("teams get after shutdown: %v: %s", err, out)
	}
}

func TestServe_StaleDiscoveryAndSocketReplaced(t *testing.T) {
	dir := t.TempDir()
	first := startServe(t, dir, "--listen", "")
	if first.disc.Address != "" {
		t.Fatalf("--listen \"\" still listens on %s", first.disc.Address)
	}
	if code := first.stop(syscall.SIGKILL); code != -1 {
		t.Fatalf("kill -9: exit %d", code)
	}
	// kill -9 left the discovery file and the socket behind.
	if _, err := os.Lstat(first.disc.Socket); err != nil {
		t.Fatalf("socket after kill -9: %v", err)
	}
	if _, err := server.ReadDiscovery(dir); !errors.Is(err, server.ErrNoServer) {
		t.Fatalf("stale discovery file: %v", err)
	}
	second := startServe(t, dir, "--listen", "")
	if second.disc.PID != second.cmd.Process.Pid {
		t.Fatalf("discovery after restart names pid %d, want %d", second.disc.PID, second.cmd.Process.Pid)
	}
	var nss []api.Namespace
	if err := rpc(second.unix, "http://cortex", "default", "namespaces.list", nil, &nss); err != nil {
		t.Fatal(err)
	}
	if code := second.stop(os.Interrupt); code != 0 {
		t.Fatalf("exit code after SIGINT: %d; %s", code, second.stderr)
	}
}

func TestServe_ExitCodes(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) (int, string) {
		cmd := exec.Command(buildCLI(t), args...)
		out, _ := cmd.CombinedOutput()
		return cmd.ProcessState.ExitCode(), string(out)
	}
	if code, out := run("--data", dir, "serve", "--listen", "", "--socket", ""); code != exitUsage || !strings.Contains(out, "nothing to listen on") {
		t.Errorf("nothing to listen on: exit %d: %s", code, out)
	}
	s := startServe(t, dir, "--listen", "127.0.0.1:0")
	discPath := filepath.Join(dir, server.DiscoveryFile)
	disc, err := os.ReadFile(discPath)
	if err != nil {
		t.Fatal(err)
	}
	sock, err := os.Lstat(s.disc.Socket)
	if err != nil {
		t.Fatal(err)
	}
	// A second server on the same store, with its own socket and address
	// or the first's: refused, naming the first; the first's discovery
	// file and socket are left as they were.
	for _, args := range [][]string{
		{"--listen", ""},
		{"--listen", "127.0.0.1:0", "--socket", filepath.Join(t.TempDir(), "other.sock")},
		{"--listen", s.disc.Address, "--socket", s.disc.Socket},
	} {
		code, out := run(append([]string{"--data", dir, "serve"}, args...)...)
		if code != exitLocked || !strings.Contains(out, fmt.Sprintf("is served by process %d", s.disc.PID)) {
			t.Errorf("second server on the same store %q: exit %d: %s", args, code, out)
		}
		if now, err := os.ReadFile(discPath); err != nil || !bytes.Equal(now, disc) {
			t.Errorf("second server %q changed the discovery file (%v): %s", args, err, now)
		}
		if now, err := os.Lstat(s.disc.Socket); err != nil || !os.SameFile(now, sock) {
			t.Errorf("second server %q replaced or removed the socket (%v)", args, err)
		}
	}
	if code, out := run("--data", t.TempDir(), "serve", "--socket", "", "--listen", s.disc.Address); code != exitLocked || !strings.Contains(out, "address already in use") {
		t.Errorf("address in use: exit %d: %s", code, out)
	}
	// An address in use stops serve before it creates the store (and its
	// socket) in a new directory: it left both behind.
	fresh := filepath.Join(t.TempDir(), "new")
	if code, out := run("--data", fresh, "serve", "--listen", s.disc.Address); code != exitLocked || !strings.Contains(out, "address already in use") {
		t.Errorf("address in use, new directory: exit %d: %s", code, out)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("serve that could not listen left %s (%v)", fresh, err)
	}
	// The same store, the same address: it says which process serves it.
	if code, out := run("--data", dir, "serve", "--listen", s.disc.Address); code != exitLocked || !strings.Contains(out, fmt.Sprintf("is served by process %d", s.disc.PID)) {
		t.Errorf("second server on the same store and address: exit %d: %s", code, out)
	}
	// serve opens the store itself: with --server (CORTEX_SERVER) it is a
	// usage error, before anything is created.
	for _, args := range [][]string{
		{"--server", "unix://" + s.disc.Socket, "--data", fresh, "serve", "--listen", ""},
		{"--data", fresh, "serve", "--listen", "", "--server", "http://" + s.disc.Address},
	} {
		if code, out := run(args...); code != exitUsage || !strings.Contains(out, "run it without --server") {
			t.Errorf("%q: exit %d: %s", args, code, out)
		}
	}
	if _, err := os.Stat(fresh); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("serve with --server created %s (%v)", fresh, err)
	}
	if code, out := run("--data", t.TempDir(), "serve", "--socket", "", "--listen", "nonsense"); code == exitOK {
		t.Errorf("bad address: exit %d: %s", code, out)
	}
	if code := s.stop(syscall.SIGTERM); code != 0 {
		t.Errorf("exit %d: %s", code, s.stderr)
	}
}

// TestServe_Kill9LosesNoAcknowledgedWrite: concurrent findings.add calls
// over the socket and over TCP; the server is killed with SIGKILL in the
// middle. The discovery file and socket it leaves do not mislead the next
// command: cortexctl findings list opens the store itself, recovers it and
// lists every finding whose call was answered; the next serve replaces
// them and serves the same findings.
func TestServe_Kill9LosesNoAcknowledgedWrite(t *testing.T) {
	dir := t.TempDir()
	s := startServe(t, dir, "--listen", "127.0.0.1:0")
	const clients, killAfter = 8, 200
	tc := api.TeamConfig{ID: "t1", Name: "load"}
	for i := range clients {
		tc.Members = append(tc.Members, api.MemberConfig{Agent: fmt.Sprintf("a%d", i), Role: "worker"})
	}
	if err := rpc(s.unix, "http://cortex", "acme", "teams.create", tc, nil); err != nil {
		t.Fatal(err)
	}
	for i := range clients {
		if err := rpc(s.unix, "http://cortex", "acme", "teams.member_status", map[string]string{"team": "t1", "agent": fmt.Sprintf("a%d", i), "status": "running"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	acked := map[string]bool{}
	enough := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	for i := range clients {
		client, base := s.unix, "http://cortex"
		if i%2 == 1 {
			client, base = s.tcp, "http://"+s.disc.Address
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; ; j++ {
				var r api.FindingAdded
				err := rpc(client, base, "acme", "findings.add", map[string]any{"team": "t1", "agent": fmt.Sprintf("a%d", i),
					"subject": fmt.Sprintf("<http://ex/s%d-%d>", i, j), "predicate": "<http://ex/p>", "object": fmt.Sprintf(`"%d"`, j)}, &r)
				if err != nil {
					return // the server is gone
				}
				mu.Lock()
				acked[r.ID] = true
				if len(acked) >= killAfter {
					once.Do(func() { close(enough) })
				}
				mu.Unlock()
			}
		}()
	}
	<-enough
	s.stop(syscall.SIGKILL)
	wg.Wait()
	for _, p := range []string{filepath.Join(dir, server.DiscoveryFile), s.disc.Socket} {
		if _, err := os.Lstat(p); err != nil {
			t.Fatalf("kill -9 left no %s: %v", p, err)
		}
	}
	lost := func(how string, fs []api.Finding) {
		t.Helper()
		stored := map[string]bool{}
		for _, f := range fs {
			stored[f.ID] = true
		}
		n := 0
		for id := range acked {
			if !stored[id] {
				n++
			}
		}
		if n > 0 || len(acked) < killAfter {
			t.Fatalf("%s: %d of %d acknowledged findings lost (%d stored)", how, n, len(acked), len(stored))
		}
	}
	// A command: the stale discovery file names a dead process.
	r := runBinary(t, nil, "--data", dir, "-n", "acme", "findings", "list", "t1", "--json")
	var fs []api.Finding
	if err := json.Unmarshal([]byte(r.stdout), &fs); r.code != 0 || err != nil {
		t.Fatalf("findings list after kill -9: exit %d (%v): %s", r.code, err, r.stderr)
	}
	lost("cortexctl findings list after kill -9", fs)
	// The next server.
	again := startServe(t, dir, "--listen", "127.0.0.1:0")
	if again.disc.PID != again.cmd.Process.Pid || again.disc.Socket != s.disc.Socket {
		t.Fatalf("discovery file of the next server: %+v (pid %d)", again.disc, again.cmd.Process.Pid)
	}
	fs = nil
	if err := rpc(again.tcp, "http://"+again.disc.Address, "acme", "findings.list", map[string]string{"team": "t1"}, &fs); err != nil {
		t.Fatal(err)
	}
	lost("findings.list of the next server", fs)
	if code := again.stop(syscall.SIGTERM); code != 0 {
		t.Fatalf("exit %d: %s", code, again.stderr)
	}
}

// serve's limit flags: a bad value is exit 7 before anything is opened; a
// good one reaches the server (--max-results 1: a Graph Store body of two
// triples is refused, and a response of two rows is an error, kind
// invalid, not a truncated result).
func TestServe_LimitFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--max-results", "0"}, {"--max-queries", "-1"}, {"--queue-wait", "-1s"}, {"--body-timeout", "0s"},
		{"--max-body", "lots"}, {"--max-header-bytes", "0"}, {"--write-timeout", "-5s"}, {"--max-batch", "0"},
		{"--max-event-streams", "0"}, {"--max-rpc-streams", "-2"},
	} {
		dir := t.TempDir()
		cmd := exec.Command(buildCLI(t), append([]string{"--data", dir, "serve", "--listen", "", "--socket", filepath.Join(dir, "s")}, args...)...)
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != exitInvalid || !strings.Contains(string(out), args[0]) {
			t.Errorf("serve %q: exit %d: %s", args, code, out)
		}
		if _, err := os.Stat(filepath.Join(dir, "cortex-server.json")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("serve %q left a discovery file: %v", args, err)
		}
	}
	s := startServe(t, t.TempDir(), "--listen", "", "--max-results", "1", "--max-queries", "2", "--queue-wait", "1s",
		"--max-body", "1MiB", "--max-header-bytes", "8KiB", "--read-header-timeout", "5s", "--body-timeout", "5s",
		"--idle-timeout", "1m", "--write-timeout", "10s", "--query-timeout", "10s", "--max-query-timeout", "1m", "--max-batch", "1", "--max-event-streams", "8", "--max-rpc-streams", "8")
	// A body of two triples is over the limit too (413); one at a time is not.
	resp, err := s.unix.Post("http://cortex/ns/acme/data?default", "application/n-triples",
		strings.NewReader("<http://ex/a> <http://ex/p> \"1\" .\n<http://ex/b> <http://ex/p> \"2\" .\n"))
	if err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("POST of two triples: %v %v", resp, err)
	}
	resp.Body.Close()
	for i, body := range []string{"<http://ex/a> <http://ex/p> \"1\" .\n", "<http://ex/b> <http://ex/p> \"2\" .\n"} {
		resp, err = s.unix.Post("http://cortex/ns/acme/data?default", "application/n-triples", strings.NewReader(body))
		want := http.StatusNoContent
		if i == 0 {
			want = http.StatusCreated // content the default graph did not hold
		}
		if err != nil || resp.StatusCode != want {
			t.Fatalf("POST: %v %v", resp, err)
		}
		resp.Body.Close()
	}
	resp, err = s.unix.Get("http://cortex/ns/acme/data?default")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Cortex-Error-Kind") != "invalid" || !strings.Contains(string(body), "more than 1 triples") {
		t.Fatalf("GET of two triples with --max-results 1: %d %s", resp.StatusCode, body)
	}
	// --max-batch 1: a batch of two calls is one error, 413.
	resp, err = s.unix.Post("http://cortex/ns/acme/rpc", "application/json",
		strings.NewReader(`[{"jsonrpc":"2.0","id":1,"method":"strategies.list"},{"jsonrpc":"2.0","id":2,"method":"strategies.list"}]`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "more than 1 calls") {
		t.Fatalf("a batch of two calls with --max-batch 1: %d %s", resp.StatusCode, body)
	}
	if code := s.stop(syscall.SIGTERM); code != 0 {
		t.Errorf("exit %d: %s", code, s.stderr)
	}
}

// TestCLI_ServeRefusesBadValuesFirst: a --listen that is not host:port, a
// socket path too long for a socket address (given, or DIR/cortex.sock of
// a long --data), a --socket that is a file or a directory or lies in a
// missing directory are invalid values (exit 7) refused before the store
// is opened: --data is not created.
func TestCLI_ServeRefusesBadValuesFirst(t *testing.T) {
	tmp := t.TempDir()
	file := writeFile(t, "file", "x")
	long := filepath.Join(tmp, strings.Repeat("d", 120))
	for _, c := range []struct {
		name, data string
		args       []string
		want       string
	}{
		{"listen without port", "", []string{"--listen", "nope"}, `--listen "nope": want host:port`},
		{"listen port out of range", "", []string{"--listen", "127.0.0.1:99999"}, "invalid port"},
		{"socket too long", "", []string{"--socket", filepath.Join(tmp, strings.Repeat("s", 120)+".sock")}, "longer than a Unix socket path may be"},
		{"default socket too long", long, nil, "longer than a Unix socket path may be"},
		{"socket is a file", "", []string{"--socket", file}, "exists and is not a socket"},
		{"socket is a directory", "", []string{"--socket", tmp}, "exists and is not a socket"},
		{"socket in a missing directory", "", []string{"--socket", filepath.Join(tmp, "missing", "s.sock")}, "no such file or directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := c.data
			if data == "" {
				data = filepath.Join(t.TempDir(), "store")
			}
			args := c.args
			if !slices.Contains(args, "--listen") {
				args = append([]string{"--listen", "127.0.0.1:0"}, args...)
			}
			r := runCLI(t, data, "", append([]string{"serve"}, args...)...)
			if r.code != exitInvalid || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", r.code, r.stderr, exitInvalid, c.want)
			}
			if _, err := os.Stat(data); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("%s was created (%v)", data, err)
			}
		})
	}
}

// TestServe_SocketInNewDataDir: --socket in the data directory that serve
// creates (a first run) is not refused for its missing directory.
func TestServe_SocketInNewDataDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	s := startServe(t, dir, "--listen", "", "--socket", filepath.Join(dir, "cortex.sock"))
	if s.disc.Socket != filepath.Join(dir, "cortex.sock") {
		t.Errorf("discovery file: %+v", s.disc)
	}
	if code := s.stop(syscall.SIGTERM); code != 0 {
		t.Fatalf("exit %d: %s", code, s.stderr)
	}
}

// entries returns the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestServe_SocketPublishedPrivate: serve binds its socket in a private
// directory and links it into place (listenUnix), so that it is 0600 from
// the moment it is there: once serving, the socket's directory holds the
// socket, of mode 0600, and no private directory; the serving line names
// the socket's path (not the private one); it is removed at shutdown.
func TestServe_SocketPublishedPrivate(t *testing.T) {
	sockDir := t.TempDir()
	sock := filepath.Join(sockDir, "cortex.sock")
	s := startServe(t, t.TempDir(), "--listen", "", "--socket", sock)
	fi, err := os.Lstat(sock)
	if err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket: %v %v", fi.Mode(), err)
	}
	if names := entries(t, sockDir); len(names) != 1 || names[0] != "cortex.sock" {
		t.Fatalf("%s holds %v while serving, want only cortex.sock", sockDir, names)
	}
	if !strings.Contains(s.line, " on unix:"+sock+" ") {
		t.Errorf("serving line %q does not name unix:%s", s.line, sock)
	}
	s.healthyThenStop(t)
	if names := entries(t, sockDir); len(names) != 0 {
		t.Fatalf("%s holds %v after shutdown, want nothing", sockDir, names)
	}
}

// TestServe_HelpNamesMethods: serve --help names each JSON-RPC method that
// is not of the groups it names instead (the task board, mailbox, plans,
// snapshots, definitions and workflow runs, which the README lists).
func TestServe_HelpNamesMethods(t *testing.T) {
	help := strings.Join(strings.Fields(mustCLI(t, t.TempDir(), "serve", "--help")), " ")
	for _, m := range server.Methods() {
		grouped := strings.Contains(m, "_task") || strings.HasPrefix(m, "defs.") || strings.HasPrefix(m, "workflows.")
		for _, g := range []string{"teams.task.", "teams.chat.", "teams.plan.", "teams.snapshot."} {
			grouped = grouped || strings.HasPrefix(m, g)
		}
		if !grouped && !regexp.MustCompile(`[ :]`+regexp.QuoteMeta(m)+`[,. ]`).MatchString(help) {
			t.Errorf("serve --help does not name the JSON-RPC method %s", m)
		}
	}
}
