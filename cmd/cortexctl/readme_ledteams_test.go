package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADME_LedTeams runs the commands of the README's "Led teams"
// section, as written (bash with set -e: a failing command fails the
// test), with the cortexctl binary on PATH, and checks what they print.
func TestREADME_LedTeams(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Led teams\n")
	if !ok {
		t.Fatal(`README.md has no "Led teams" section`)
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
	cmd := exec.Command("bash", "-c", "set -e\n"+block)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "CORTEX_DATA="+filepath.Join(work, "data"),
		"PATH="+filepath.Dir(buildCLI(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the commands failed: %v\n%s", err, out)
	}
	for _, want := range []string{
		"T2  pending  0         cat       T1          test the parser",
		"claimed task T1 (\"write the parser\"): in_progress, assigned to bob",
		"task T1: in_progress, assigned to bob\ntask T1: in_review, assigned to bob\ntask T1: completed, assigned to bob\n",
		"dispatched T2    in_progress, assigned to cat",
		"task T2 failed and the lead was told",
		"escalation: task T2 failed",
		"rejected   ann  in_review    in_progress  add tests",
		"sent M7 (status) to cat, thread M6",
		"3 messages read: M1 M3 M5",
		"lease           30m0s",
		"added finding f",
		"team crew: each inbox keeps 200 messages, none older than 168h0m0s",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the commands' output lacks %q:\n%s", want, out)
		}
	}
}
