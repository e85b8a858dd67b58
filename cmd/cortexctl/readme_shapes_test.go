package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeShapes returns the README's "`--json` shapes" table: each command
// of a row's first column mapped to the row's shape (its first code span).
func readmeShapes(t *testing.T) map[string]string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "### `--json` shapes")
	if !ok {
		t.Fatal("README.md has no \"`--json` shapes\" section")
	}
	section, _, _ = strings.Cut(section, "\n\n"+"Statuses are")
	row := regexp.MustCompile("(?m)^\\| (.*?) \\| `([^`]*)`")
	code := regexp.MustCompile("`([^`]*)`")
	shapes := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		for _, c := range code.FindAllStringSubmatch(m[1], -1) {
			shapes[c[1]] = strings.ReplaceAll(m[2], `\|`, "|")
		}
	}
	return shapes
}

// TestREADME_JSONShapes runs the commands of the README's "`--json` shapes"
// table and checks their output against it: every top-level field printed
// is named, and every field named without "?" is printed.
func TestREADME_JSONShapes(t *testing.T) {
	shapes := readmeShapes(t)
	dir := t.TempDir()
	tmp := t.TempDir()
	nt := filepath.Join(tmp, "f.nt")
	if err := os.WriteFile(nt, []byte("<https://ex.org/s> <https://ex.org/q> \"z\" .\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(tmp, "defs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "defs", "lead.md"), []byte("---\nname: lead\n---\nLead.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		shape string   // the table's command; "" only sets the scene
		args  []string // run with --json appended when shape is set
	}{
		{"import", []string{"import", nt}},
		{"export -o FILE", []string{"export", "-o", filepath.Join(tmp, "out.nq")}},
		{"graphs", []string{"graphs"}},
		{"stats", []string{"stats"}},
		{"namespaces list", []string{"namespaces", "list"}},
		{"teams create", []string{"teams", "create", "--id", "t", "--name", "t", "--strategy", "conflict-flag", "--member", "a:lead", "--member", "b"}},
		{"teams member-status", []string{"teams", "member-status", "t", "a", "running"}},
		{"", []string{"teams", "member-status", "t", "b", "running"}},
		{"findings add", []string{"findings", "add", "t", "a", "<https://ex.org/s>", "<https://ex.org/p>", `"x"`}},
		{"", []string{"findings", "add", "t", "b", "<https://ex.org/s>", "<https://ex.org/p>", `"y"`}},
		{"findings import", []string{"findings", "import", "t", "a", nt}},
		{"findings list", []string{"findings", "list", "t"}},
		{"plans draft", []string{"plans", "draft", "t", "--by", "a", "--title", "p", "--step", "s | what"}},
		{"plans submit", []string{"plans", "submit", "t", "--by", "a"}},
		{"plans approve", []string{"plans", "approve", "t", "--revision", "1", "--feedback", "ok"}},
		{"plans get", []string{"plans", "get", "t"}},
		{"plans list", []string{"plans", "list", "t"}},
		{"", []string{"plans", "draft", "t", "--by", "a", "--title", "p2", "--step", "s"}},
		{"", []string{"plans", "submit", "t", "--by", "a"}},
		{"plans reject", []string{"plans", "reject", "t", "--revision", "2", "--feedback", "no"}},
		{"teams snapshot create", []string{"teams", "snapshot", "create", "t", "--note", "n"}},
		{"teams snapshot get", []string{"teams", "snapshot", "get", "t", "S1"}},
		{"teams snapshot list", []string{"teams", "snapshot", "list", "t"}},
		{"teams snapshot restore", []string{"teams", "snapshot", "restore", "t", "S1"}},
		{"teams snapshot delete", []string{"teams", "snapshot", "delete", "t", "S1"}},
		{"", []string{"teams", "member-status", "t", "a", "completed"}},
		{"teams member-status", []string{"teams", "member-status", "t", "b", "completed"}},
		{"teams merge", []string{"teams", "merge", "t"}},
		{"facts list", []string{"facts", "list", "t"}},
		{"conflicts list", []string{"conflicts", "list", "t"}},
		{"teams get", []string{"teams", "get", "t"}},
		{"defs validate", []string{"defs", "validate", filepath.Join(tmp, "defs")}},
		{"defs import", []string{"defs", "import", filepath.Join(tmp, "defs")}},
		{"defs list", []string{"defs", "list"}},
		{"defs delete", []string{"defs", "delete", "lead"}},
		{"teams delete", []string{"teams", "delete", "t"}},
		{"", []string{"-n", "scratch", "import", nt}},
		{"namespaces delete", []string{"namespaces", "delete", "scratch", "--yes"}},
	}
	for _, s := range steps {
		if s.shape == "" {
			mustCLI(t, dir, s.args...)
			continue
		}
		shape, ok := shapes[s.shape]
		if !ok {
			t.Fatalf("the README's --json shapes table has no row for %q", s.shape)
		}
		// A listing's row may refer to another's shape: "[{…as plans get}]".
		if ref, ok := strings.CutPrefix(shape, "[{…as "); ok {
			if shape, ok = shapes[strings.TrimSuffix(ref, "}]")]; !ok {
				t.Fatalf("the README's shape of %q refers to %q, which has no row", s.shape, ref)
			}
		}
		documented := helpShapeKeys(t, shape)
		run := append(slices.Clone(s.args), "--json")
		checkShape(t, run, mustCLI(t, dir, run...), documented, "the README's shape of "+s.shape+", "+shape+",")
	}
}
