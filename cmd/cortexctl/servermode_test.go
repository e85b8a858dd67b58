package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
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

// TestCLI_ThroughServer runs the CLI tests (TestCLI_*) again, in a child
// test process, with every command sent through a server that holds the
// store (found by its discovery file, as with `cortexctl serve`): output
// and exit codes must be the same in both modes.
func TestCLI_ThroughServer(t *testing.T) {
	if throughServer {
		t.Fatalf("%s=1 runs the CLI tests through a server; this test runs them so and must not run itself", throughServerEnv)
	}
	var skip []string
	for name := range embeddedOnly {
		skip = append(skip, "^"+name+"$")
	}
	args := []string{"-test.run", "^(TestCLI_|TestDefs_)", "-test.skip", strings.Join(skip, "|"), "-test.count=1"}
	if testing.Short() {
		args = append(args, "-test.short")
	}
	if testing.Verbose() {
		args = append(args, "-test.v")
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), throughServerEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the CLI tests through a server failed: %v\n%s", err, out)
	}
	if testing.Verbose() {
		t.Logf("%s", out)
	}
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
