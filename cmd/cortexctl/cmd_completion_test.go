package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestCLI_Completion(t *testing.T) {
	dir := t.TempDir()
	for shell, want := range map[string]string{"bash": "complete -o", "zsh": "compdef", "fish": "complete -c cortexctl"} {
		if out := mustCLI(t, dir, "completion", shell); !strings.Contains(out, want) {
			t.Errorf("%s completion lacks %q", shell, want)
		}
	}
	if r := runCLI(t, dir, "", "completion", "tcsh"); r.code != exitUsage {
		t.Fatalf("unknown shell: exit %d", r.code)
	}
	// The hidden flag the scripts call lists the commands. urfave/cli reads
	// os.Args for it, so run the real binary.
	out, err := exec.Command(buildCLI(t), "--data", dir, "--generate-bash-completion").Output()
	if err != nil || !strings.Contains(string(out), "import") || !strings.Contains(string(out), "export") {
		t.Fatalf("completion candidates %q (%v)", out, err)
	}
}

var (
	buildOnce sync.Once
	builtCLI  string
	buildErr  error
)

// buildCLI builds cortexctl once per test run and returns its path.
func buildCLI(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
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
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtCLI
}
