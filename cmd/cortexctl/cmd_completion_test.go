package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestCLI_Completion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for shell, want := range map[string]string{"bash": "complete -o", "zsh": "compdef", "fish": "complete -c cortexctl"} {
		if out := mustCLI(t, dir, "completion", shell); !strings.Contains(out, want) {
			t.Errorf("%s completion lacks %q", shell, want)
		}
	}
	if r := runCLI(t, dir, "", "completion", "tcsh"); r.code != exitUsage {
		t.Fatalf("unknown shell: exit %d", r.code)
	}
	// One shell: a second argument was ignored (bash printed, exit 0).
	if r := runCLI(t, dir, "", "completion", "bash", "zsh"); r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, `unexpected argument "zsh"`) {
		t.Fatalf("two shells: exit %d, stdout %.40q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// The hidden flag the scripts call lists the commands. urfave/cli reads
	// os.Args for it, so run the real binary.
	out, err := exec.Command(buildCLI(t), "--data", dir, "--generate-bash-completion").Output()
	if err != nil || !strings.Contains(string(out), "import") || !strings.Contains(string(out), "export") {
		t.Fatalf("completion candidates %q (%v)", out, err)
	}
}

// TestCLI_CompletionRunsNothing: asking for completions never runs the
// command being completed (the demo would write to the store), and lists
// the flags of the command when the word is a flag.
func TestCLI_CompletionRunsNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	for _, tc := range []struct {
		words []string
		want  []string // candidates that must be listed
		not   []string // and some that must not
	}{
		{[]string{"demo", "--"}, []string{"--help"}, []string{"--name"}},
		{[]string{"demo", "-"}, []string{"--help", "-h"}, nil},
		{[]string{"demo"}, nil, []string{"--help"}},
		{[]string{"teams", "create", "--"}, []string{"--name", "--member", "--strategy", "--from", "--format", "--json", "--timeout"}, []string{"-f", "--data"}},
		{[]string{"teams", "create", "--na"}, []string{"--name"}, []string{"--member"}},
		{[]string{"teams", "create", "--name", "x", "--"}, []string{"--member"}, nil},
		{[]string{"teams"}, []string{"create", "list", "member-status"}, []string{"import"}},
		{[]string{"-n", "acme", "teams"}, []string{"create"}, nil},
		{nil, []string{"import", "export", "namespaces", "query", "demo"}, []string{"create"}},
		{[]string{"--"}, []string{"--data", "--namespace", "--version"}, nil},
		{[]string{"import", "a.nt", "--"}, []string{"--graph", "--base", "--json"}, nil},
		{[]string{"namespaces", "delete", "x", "--"}, []string{"--yes"}, nil},
	} {
		args := append(append([]string{"cortexctl", "--data", dir}, tc.words...), "--generate-bash-completion")
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &out, &errb); code != 0 || errb.Len() > 0 {
			t.Fatalf("%v: exit %d, stderr %q", tc.words, code, errb.String())
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		for _, w := range tc.want {
			if !slices.Contains(lines, w) {
				t.Errorf("%v: %q not among %q", tc.words, w, lines)
			}
		}
		for _, w := range tc.not {
			if slices.Contains(lines, w) {
				t.Errorf("%v: %q among %q", tc.words, w, lines)
			}
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("completion touched the store directory (%v)", err)
	}
	// The real binary, as the bash script calls it for `cortexctl --data D demo --<TAB>`.
	out, err := exec.Command(buildCLI(t), "--data", dir, "demo", "--", "--generate-bash-completion").Output()
	if err != nil || strings.TrimSpace(string(out)) != "--help" {
		t.Fatalf("binary: %q (%v)", out, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("completion ran the demo (%v)", err)
	}
}

var (
	buildOnce sync.Once
	builtCLI  string // the cortexctl cortexctlBinary built, which TestMain removes
	cliPath   string // the cortexctl the tests run: builtCLI, or their parent's
	buildErr  error
)

// builtCLIEnv names, in the environment of TestCLI_ThroughServer's child
// processes, the cortexctl their parent built: they run it rather than
// build their own.
const builtCLIEnv = "CORTEX_CLI_TEST_BINARY"

// TestMain starts TestCLI_ThroughServer's child processes early when the
// whole package runs (startThroughServerEarly), and removes the cortexctl
// that buildCLI built, if any.
func TestMain(m *testing.M) {
	stopThroughServer := startThroughServerEarly()
	code := m.Run()
	stopThroughServer()
	if builtCLI != "" {
		_ = os.RemoveAll(filepath.Dir(builtCLI))
	}
	os.Exit(code)
}

// buildCLI builds cortexctl once per test run and returns its path.
func buildCLI(t *testing.T) string {
	t.Helper()
	path, err := cortexctlBinary()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// cortexctlBinary builds cortexctl once per test process, or takes the
// one the parent of TestCLI_ThroughServer's child process built, and
// returns its path.
func cortexctlBinary() (string, error) {
	buildOnce.Do(func() {
		if p := os.Getenv(builtCLIEnv); p != "" && throughServer {
			cliPath = p
			return
		}
		dir, err := os.MkdirTemp("", "cortexctl-test-")
		if err != nil {
			buildErr = err
			return
		}
		builtCLI = filepath.Join(dir, "cortexctl")
		out, err := exec.Command("go", "build", "-o", builtCLI, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
		cliPath = builtCLI
	})
	return cliPath, buildErr
}
