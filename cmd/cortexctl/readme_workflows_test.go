package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADME_Workflows runs the commands of the README's "Workflows"
// section, as written (bash with set -e: a failing command fails the
// test), with the cortexctl binary on PATH, in a directory where
// fixtures/ is the repository's, and checks what they print.
func TestREADME_Workflows(t *testing.T) {
	work := t.TempDir()
	fixtures, err := filepath.Abs("../../fixtures")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fixtures, filepath.Join(work, "fixtures")); err != nil {
		t.Fatal(err)
	}
	out := runReadmeSection(t, "Workflows", work, filepath.Join(work, "data"))
	checkEmittedVocabulary(t, filepath.Join(work, "data"))
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
		"run api1 (api-crew, crew, strategy additive): completed",
		"approved   architect",
		"T3    triage bug 3  triager-3  completed  triager-3 did it",
		"turn-2/dispatcher  dispatcher  completed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the commands' output lacks %q:\n%s", want, out)
		}
	}
}
