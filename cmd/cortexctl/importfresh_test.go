package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImport_FailedFirstImportLeavesNoStore: an import that fails with
// nothing imported into a store it created (--data absent, or an empty
// directory) leaves --data as it was: absent (its missing parents too), or
// empty; it left an empty store behind. A store that was there, or one a
// file before the failing one was imported into, stays.
func TestImport_FailedFirstImportLeavesNoStore(t *testing.T) {
	bad := writeFile(t, "bad.ttl", "<a> <b> .\n")
	good := writeFile(t, "good.nt", "<http://x/a> <http://x/b> <http://x/c> .\n")
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string) // before the import; dir does not exist
		args  []string
		code  int
		after func(t *testing.T, dir string)
	}{
		{"absent", nil, []string{"import", bad}, exitSyntax, absent},
		{"absent with parents", nil, []string{"import", bad}, exitSyntax, absent},
		{"empty directory", func(t *testing.T, dir string) {
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}, []string{"import", bad}, exitSyntax, func(t *testing.T, dir string) {
			if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
				t.Errorf("%s: %v, %v; want an empty directory", dir, ents, err)
			}
		}},
		{"existing store", func(t *testing.T, dir string) {
			mustCLI(t, dir, "import", good)
		}, []string{"import", bad}, exitSyntax, holdsOneQuad},
		{"a file imported before", nil, []string{"import", good, bad}, exitSyntax, holdsOneQuad},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, "store")
			if tc.name == "absent with parents" {
				dir = filepath.Join(base, "a", "b", "store")
			}
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			if r := runCLI(t, dir, "", tc.args...); r.code != tc.code {
				t.Fatalf("%q: exit %d, want %d: %s", tc.args, r.code, tc.code, r.stderr)
			}
			tc.after(t, dir)
			if tc.name == "absent with parents" {
				if _, err := os.Lstat(filepath.Join(base, "a")); !os.IsNotExist(err) {
					t.Errorf("%s/a: %v; want it absent, as before", base, err)
				}
			}
		})
	}
}

func absent(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("%s: %v; want it absent, as before", dir, err)
	}
}

func holdsOneQuad(t *testing.T, dir string) {
	t.Helper()
	if out := mustCLI(t, dir, "query", "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", "--format", "csv"); !strings.Contains(out, "\n1") {
		t.Errorf("the store: %q; want its one quad", out)
	}
}
