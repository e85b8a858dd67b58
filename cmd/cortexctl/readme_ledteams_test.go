package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestREADME_LedTeams runs the commands of the README's "Led teams"
// section, as written (bash with set -e: a failing command fails the
// test), with the cortexctl binary on PATH, and checks what they print.
func TestREADME_LedTeams(t *testing.T) {
	work := t.TempDir()
	out := runReadmeSection(t, "Led teams", work, filepath.Join(work, "data"))
	checkEmittedVocabulary(t, filepath.Join(work, "data"))
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
		if !strings.Contains(out, want) {
			t.Errorf("the commands' output lacks %q:\n%s", want, out)
		}
	}
}
