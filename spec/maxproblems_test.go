package spec_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/spec"
)

// A file with more than MaxProblems problems lists the first MaxProblems
// and one more that counts the rest, with the severity of the worst left
// out and the line of the last; the report still fails on errors, and
// counts every error and warning found, listed or not. A file
// with millions of them used to take gigabytes.
func TestLoadFiles_ProblemsBounded(t *testing.T) {
	keys := func(n int, key func(i int) string) string {
		parts := []string{`"name": "x"`}
		for i := 0; i < n; i++ {
			parts = append(parts, "\n"+key(i)+`: 1`)
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	over := spec.MaxProblems + 7
	for _, tc := range []struct {
		name     string
		files    []spec.File
		total    int // problems in the report
		last     string
		errors   int
		warnings int
	}{
		{name: "duplicate keys", files: []spec.File{{Path: "a.json", Data: keys(over+1, func(int) string { return `"k"` })}},
			total: spec.MaxProblems + 1, errors: over, warnings: 1, // the first "k" is unknown
			last: fmt.Sprintf("a.json:%d: error: 8 more problems not listed (8 errors, 0 warnings): only the first 1000 of a file are", over+2)},
		{name: "unknown keys", files: []spec.File{{Path: "a.json", Data: keys(over, func(i int) string { return fmt.Sprintf(`"k%d"`, i) })}},
			total: spec.MaxProblems + 1, warnings: over,
			last: fmt.Sprintf("a.json:%d: warning: 7 more problems not listed (0 errors, 7 warnings): only the first 1000 of a file are", over+1)},
		{name: "exactly the bound", files: []spec.File{{Path: "a.json", Data: keys(spec.MaxProblems, func(i int) string { return fmt.Sprintf(`"k%d"`, i) })}},
			total: spec.MaxProblems, warnings: spec.MaxProblems,
			last: fmt.Sprintf(`a.json:%d: warning: /k999: unknown key "k999" in agent`, spec.MaxProblems+1)},
		{name: "per file", files: []spec.File{
			{Path: "a.json", Data: keys(over, func(i int) string { return fmt.Sprintf(`"k%d"`, i) })},
			{Path: "b.json", Data: `{"name": "y", "colour": 1}`}},
			total: spec.MaxProblems + 2, warnings: over + 1,
			last: `b.json:1: warning: /colour: unknown key "colour" in agent`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, rep := spec.LoadFiles(tc.files, spec.Options{})
			if got, want := len(rep.Problems), tc.total; got != want {
				t.Fatalf("%d problems, want %d", got, want)
			}
			if got := rep.Problems[len(rep.Problems)-1].String(); got != tc.last {
				t.Errorf("last problem\n%s\nwant\n%s", got, tc.last)
			}
			if rep.Errors() != tc.errors || rep.Warnings() != tc.warnings {
				t.Errorf("%d errors, %d warnings; want %d, %d", rep.Errors(), rep.Warnings(), tc.errors, tc.warnings)
			}
			if (rep.Err() != nil) != (tc.errors > 0) {
				t.Errorf("Err() = %v", rep.Err())
			}
			// The error counts them all too.
			if err := rep.Err(); err != nil && !strings.Contains(err.Error(), fmt.Sprintf(": %d errors, the first: ", tc.errors)) {
				t.Errorf("Err() = %v, want %d errors", err, tc.errors)
			}
		})
	}
}

// BenchmarkLoadFiles_ManyProblems reads a 1 MiB file of 170,000 duplicate keys.
func BenchmarkLoadFiles_ManyProblems(b *testing.B) {
	data := `{"name": "x"` + strings.Repeat(`,"k":1`, 170_000) + "}"
	files := []spec.File{{Path: "a.json", Data: data}}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if _, rep := spec.LoadFiles(files, spec.Options{}); rep.Errors() != 170_000-1 { // the first "k" is unknown: a warning
			b.Fatalf("%d errors", rep.Errors())
		}
	}
}
