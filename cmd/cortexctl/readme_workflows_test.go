package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADME_Workflows runs the commands of the README's "Workflows"
// section, as written (bash with set -e: a failing command fails the
// test), with the cortexctl binary on PATH, in a directory where
// fixtures/ is the repository's, and checks what they print.
func TestREADME_Workflows(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Workflows\n")
	if !ok {
		t.Fatal(`README.md has no "Workflows" section`)
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	_, block, ok := strings.Cut(section, "```sh\n")
	if !ok {
		t.Fatal("no sh block in the section")
	}
	block, _, _ = strings.Cut(block, "\n```\n")
	work := t.TempDir()
	fixtures, err := filepath.Abs("../../fixtures")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fixtures, filepath.Join(work, "fixtures")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", "set -e\n"+block)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "CORTEX_DATA="+filepath.Join(work, "data"),
		"PATH="+filepath.Dir(buildCLI(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the commands failed: %v\n%s", err, out)
	}
	for _, want := range []string{
		"feature-dev      graph    conflict-flag  5",
		"run cr1 (code-review, scatter, strategy additive): completed",
		`"status": "completed"`,
		"correctness  pending  ready      cortex",
		"https://ex.org/security",
		"fd1  feature-dev  graph  pending",
		"run fd1 (feature-dev, graph, strategy conflict-flag): cancelled",
		"run c1 (board, council, strategy consensus): completed",
		"https://ex.org/alice",
		"agreed",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the commands' output lacks %q:\n%s", want, out)
		}
	}
}
