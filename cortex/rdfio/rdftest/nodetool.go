package rdftest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// NodeTool checks the node tool of a differential test in dir: node on
// the PATH, and npm package pkg installed in dir/node_modules at the
// version dir/package.json pins. It returns dir; when something is
// missing it skips t saying to run install (the command that installs
// it), or fails t instead when the environment variable require is "1"
// (as CI sets it).
func NodeTool(t testing.TB, dir, pkg, require, install string) string {
	t.Helper()
	unavailable := func(msg string) {
		t.Helper()
		if os.Getenv(require) == "1" {
			t.Fatalf("%s (%s=1)", msg, require)
		}
		t.Skip(msg)
	}
	if _, err := exec.LookPath("node"); err != nil {
		unavailable("node not found: install Node.js 18 or later, then run " + install)
	}
	var meta struct {
		Dependencies map[string]string `json:"dependencies"`
		Version      string            `json:"version"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		t.Fatal(err)
	}
	want := meta.Dependencies[pkg]
	raw, err = os.ReadFile(filepath.Join(dir, "node_modules", pkg, "package.json"))
	if err != nil {
		unavailable(fmt.Sprintf("%s %s is not installed in %s: run %s", pkg, want, dir, install))
	}
	meta.Version = ""
	if err := json.Unmarshal(raw, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Version != want {
		unavailable(fmt.Sprintf("%s %s is installed in %s, the test pins %s: run %s", pkg, meta.Version, dir, want, install))
	}
	return dir
}
