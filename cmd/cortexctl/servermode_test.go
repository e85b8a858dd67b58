package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cortexgraph/cortex/config"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/server"
)

// throughServerEnv, set to 1 in the environment of the test binary, makes
// runCLI run every command through a server (see serveForCLI):
// TestCLI_ThroughServer runs the CLI tests so.
const throughServerEnv = "CORTEX_CLI_THROUGH_SERVER"

var throughServer = os.Getenv(throughServerEnv) == "1"

// embeddedOnly are the CLI tests that TestCLI_ThroughServer does not run
// again through a server, each with the reason: what they test is the
// CLI opening the store itself.
var embeddedOnly = map[string]string{
	"TestCLI_ReadCommandsCreateNothing":             "read commands open the store read-only and leave its directory as it was; a server holds it read-write",
	"TestCLI_ReadCommandRecoversInterruptedWrite":   "the CLI's own read-only open rolls an interrupted write back; a server's open does it before",
	"TestCLI_ReadCommandAfterKill9":                 "the CLI's own read-only open recovers a store a killed process left; a server's open does it before",
	"TestCLI_ReadCommands_LeaveLeftoverJournalTemp": "the CLI's own read-only open leaves the store's files as they were; a server opens it read-write",
	"TestCLI_ReadCommands_NoLockFile":               "the CLI's own read-only open creates no lock file; a server opens the store read-write",
	"TestCLI_ReadCommands_ReadOnlyDirectory":        "it runs the binary on a store nobody may write, which no server can open",
	"TestCLI_ThroughServer":                         "it is the runner",
	"TestCLI_WhileServed":                           "it runs the binary against a cortexctl serve of its own",
	"TestCLI_StopBlockedOutput":                     "it runs the binary, embedded and against a cortexctl serve of its own",
	"TestCLI_ServerFlag":                            "it runs the binary against a cortexctl serve of its own",
	"TestCLI_ExportIntoStore":                       "it compares the store directory's files, which the server started for each command rewrites (cortex.lock)",
	"TestCLI_WorkflowsDriveTwoProcesses":            "it runs the binary against a cortexctl serve of its own",
}

// TestCLI_ThroughServer runs the CLI tests (TestCLI_*, TestDefs_*) that
// run cortexctl through runCLI again, in child test processes, with every
// command sent through a server that holds the store (found by its
// discovery file, as with `cortexctl serve`): output and exit codes must
// be the same in both modes. The tests are shared between
// throughServerShards processes run at once; when the whole package runs,
// TestMain starts them before the other tests (startThroughServerEarly),
// and this test waits for them, in parallel with the other parallel tests.
func TestCLI_ThroughServer(t *testing.T) {
	if throughServer {
		t.Fatalf("%s=1 runs the CLI tests through a server; this test runs them so and must not run itself", throughServerEnv)
	}
	t.Parallel() // it waits for other processes: the tests after it need not
	run := earlyThroughServer
	earlyThroughServer = nil
	if run == nil {
		run = startThroughServer()
	}
	children, err := run.wait()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range children {
		if c.err != nil {
			t.Errorf("the CLI tests through a server failed: %v\n%s", c.err, c.out.Bytes())
		} else if testing.Verbose() {
			t.Logf("%s", c.out.Bytes())
		}
	}
}

// earlyThroughServer is the run of TestCLI_ThroughServer's child processes
// that TestMain started, if any; the first TestCLI_ThroughServer waits for
// it.
var earlyThroughServer *throughServerRun

// throughServerRun is a run of the CLI tests through a server: child test
// processes, each running a share of them.
type throughServerRun struct {
	started  chan struct{} // closed once children and err are set
	children []*throughServerChild
	err      error // why they did not all start
}

type throughServerChild struct {
	cmd  *exec.Cmd
	out  bytes.Buffer
	err  error
	done chan struct{}
}

// throughServerShards is how many child processes share the CLI tests run
// through a server: most of their time is cortexctl opening a store, which
// uses one core.
func throughServerShards() int {
	return max(2, runtime.GOMAXPROCS(0))
}

// startThroughServer builds cortexctl (cortexctlBinary), for the tests that
// run it, and starts the child test processes that run the CLI tests
// through a server (throughServerTests), each with its share; it does so
// in the background and returns at once.
func startThroughServer() *throughServerRun {
	run := &throughServerRun{started: make(chan struct{})}
	go func() {
		defer close(run.started)
		bin, err := cortexctlBinary()
		if err != nil {
			run.err = err
			return
		}
		names, err := throughServerTests(".")
		if err != nil {
			run.err = err
			return
		}
		if len(names) == 0 {
			run.err = errors.New("no CLI test runs cortexctl through runCLI: throughServerTests found none")
			return
		}
		shards := make([][]string, min(throughServerShards(), len(names)))
		for i, name := range names {
			shards[i%len(shards)] = append(shards[i%len(shards)], name)
		}
		for _, shard := range shards {
			// One test at a time in each: the shards are what uses the cores.
			args := []string{"-test.run", "^(" + strings.Join(shard, "|") + ")$", "-test.count=1", "-test.parallel=1"}
			if f := flag.Lookup("test.timeout"); f != nil {
				args = append(args, "-test.timeout="+f.Value.String())
			}
			if testing.Short() {
				args = append(args, "-test.short")
			}
			if testing.Verbose() {
				args = append(args, "-test.v")
			}
			c := &throughServerChild{cmd: exec.Command(os.Args[0], args...), done: make(chan struct{})}
			c.cmd.Env = append(os.Environ(), throughServerEnv+"=1", builtCLIEnv+"="+bin)
			c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.out
			if err := c.cmd.Start(); err != nil {
				run.err = err
				return
			}
			go func() {
				c.err = c.cmd.Wait()
				close(c.done)
			}()
			run.children = append(run.children, c)
		}
	}()
	return run
}

// wait waits for the child processes to exit and returns them, or the
// error that kept them from starting.
func (r *throughServerRun) wait() ([]*throughServerChild, error) {
	<-r.started
	for _, c := range r.children {
		<-c.done
	}
	return r.children, r.err
}

// stop kills the child processes (a run nobody waited for) and waits.
func (r *throughServerRun) stop() {
	<-r.started
	for _, c := range r.children {
		c.cmd.Process.Kill()
	}
	r.wait()
}

// startThroughServerEarly starts TestCLI_ThroughServer's child processes
// at once when the whole package runs (no -run, -skip or -list, and not in
// a child), so that they run while the other tests do; it returns the
// function that stops them if no TestCLI_ThroughServer waited for them.
// It parses the test flags.
func startThroughServerEarly() func() {
	flag.Parse()
	for _, name := range []string{"test.run", "test.skip", "test.list"} {
		if f := flag.Lookup(name); f == nil || f.Value.String() != "" {
			return func() {}
		}
	}
	if throughServer {
		return func() {}
	}
	earlyThroughServer = startThroughServer()
	return func() {
		if earlyThroughServer != nil {
			earlyThroughServer.stop()
		}
	}
}

// throughServerTests returns the names of the CLI tests (TestCLI_*,
// TestDefs_*) in the Go test files of dir that can run differently through
// a server: those that refer, directly or through the package's other
// functions and variables, to runCLI or throughServer, less embeddedOnly.
// The others run cortexctl's binary or its app themselves, the same in a
// child with throughServerEnv set, and run once.
func throughServerTests(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	// refs maps each package-level name (functions, methods by their
	// name, variables, constants, types) to the identifiers it uses.
	refs := map[string]map[string]bool{}
	use := func(name string, n ast.Node) {
		m := refs[name]
		if m == nil {
			m = map[string]bool{}
			refs[name] = m
		}
		ast.Inspect(n, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				m[id.Name] = true
			}
			return true
		})
	}
	fset := token.NewFileSet()
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				use(d.Name.Name, d)
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch spec := spec.(type) {
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							use(n.Name, spec)
						}
					case *ast.TypeSpec:
						use(spec.Name.Name, spec)
					}
				}
			}
		}
	}
	reaches := map[string]bool{"runCLI": true, "throughServer": true}
	for grew := true; grew; {
		grew = false
		for name, m := range refs {
			if reaches[name] {
				continue
			}
			for id := range m {
				if reaches[id] {
					reaches[name], grew = true, true
					break
				}
			}
		}
	}
	var names []string
	for name := range refs {
		if (strings.HasPrefix(name, "TestCLI_") || strings.HasPrefix(name, "TestDefs_")) && reaches[name] && embeddedOnly[name] == "" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names, nil
}

// directCommand reports whether args (cortexctl's, after --data DIR) run a
// command that opens the store itself (remote.go: direct) and is refused
// while a server holds it: those run with no server, as an operator has
// to run them.
func directCommand(args []string) bool {
	var words []string
	for i := 0; i < len(args) && len(words) < 2; i++ {
		a := args[i]
		switch {
		case a == "-n" || a == "--namespace" || a == "--config" || a == "--memory-limit" || a == "--data" || a == "--server":
			i++ // its value
		case strings.HasPrefix(a, "-"):
		default:
			words = append(words, a)
		}
	}
	if len(words) == 0 {
		return true
	}
	switch words[0] {
	case "serve":
		return true
	case "defs":
		return len(words) > 1 && words[1] == "validate" // it needs no store
	}
	return false
}

// configOf returns the config that args' --config names (the server of
// the store is run with the same), or the default.
func configOf(t *testing.T, args []string) config.Config {
	for i, a := range args {
		if a == "--config" && i+1 < len(args) {
			cfg, err := config.Load(args[i+1])
			if err == nil {
				return cfg
			}
		}
	}
	return config.Default()
}

// serveForCLI serves the store in dir, if there is one and no other
// process holds it, on a Unix socket, and writes its discovery file, so
// that cortexctl finds it; it returns the function that stops it (and
// closes the store), given the command's exit code, or nil if it serves
// nothing.
func serveForCLI(t *testing.T, dir string, args []string) func(code int) {
	t.Helper()
	if directCommand(args) {
		return nil
	}
	ctx := context.Background()
	s, err := cortex.Open(ctx, dir, cortex.DefaultOptions().WithCreate(false))
	if err != nil {
		return nil // no store, or a held one: cortexctl finds no server either
	}
	l, sockDir := discoverableSocket(t, dir)
	var requests atomic.Int64
	h := server.New(s, server.DefaultOptions().WithConfig(configOf(t, args))).Handler()
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		h.ServeHTTP(w, r)
	})}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(l) }()
	return func(code int) {
		if err := hs.Shutdown(ctx); err != nil {
			t.Errorf("serve: %v", err)
		}
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
		// A command that succeeded went through the server, unless it
		// only printed help.
		if code == exitOK && requests.Load() == 0 && !slices.ContainsFunc(args, helpOrVersion) {
			t.Errorf("cortexctl %q succeeded without a request to the server that holds the store", args)
		}
		if err := server.RemoveDiscovery(dir, os.Getpid()); err != nil {
			t.Error(err)
		}
		if err := s.Close(); err != nil {
			t.Error(err)
		}
		os.RemoveAll(sockDir)
	}
}

func helpOrVersion(arg string) bool {
	return isHelp(arg) || arg == "help" || arg == "--version" || arg == "-v"
}

// discoverableSocket listens on a Unix socket in a new directory with a
// short path (a socket's path is at most 107 bytes) and writes the
// discovery file of the store in dir naming it, as a server of dir does;
// it returns the listener and the directory, to remove once served.
func discoverableSocket(t *testing.T, dir string) (net.Listener, string) {
	t.Helper()
	sockDir, err := os.MkdirTemp("", "cortexctl-sock-")
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(sockDir, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	if err := server.WriteDiscovery(dir, server.Discovery{PID: os.Getpid(), Socket: sock}); err != nil {
		t.Fatal(err)
	}
	return l, sockDir
}

// TestThroughServerTests: TestCLI_ThroughServer runs again every CLI test
// that uses runCLI or throughServer, however indirectly (a helper, a
// method, a variable), and not the others, nor embeddedOnly's.
func TestThroughServerTests(t *testing.T) {
	dir := t.TempDir()
	src := `package main

import "testing"

func runCLI()       {}
var throughServer bool
func helper()       { runCLI() }
type h struct{}
func (h) do()       { helper() }
var viaVar = func() { h{}.do() }
func binary()       {}

func TestCLI_Direct(t *testing.T)      { runCLI() }
func TestCLI_Helper(t *testing.T)      { helper() }
func TestCLI_Method(t *testing.T)      { var x h; x.do() }
func TestCLI_Var(t *testing.T)         { viaVar() }
func TestCLI_Mode(t *testing.T)        { _ = throughServer }
func TestDefs_Helper(t *testing.T)     { helper() }
func TestCLI_Binary(t *testing.T)      { binary() }
func TestCLI_WhileServed(t *testing.T) { runCLI() }
func TestOther_Direct(t *testing.T)    { runCLI() }
`
	if err := os.WriteFile(filepath.Join(dir, "a_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.go"), []byte("package main\n\nfunc TestCLI_NotATestFile() { runCLI() }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := throughServerTests(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"TestCLI_Direct", "TestCLI_Helper", "TestCLI_Method", "TestCLI_Mode", "TestCLI_Var", "TestDefs_Helper"}
	if !slices.Equal(got, want) {
		t.Errorf("throughServerTests = %q, want %q", got, want)
	}
}
