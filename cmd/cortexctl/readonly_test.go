package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// treeState describes every file under dir: name, mode, size, modification
// time and a hash of the content, and dir's own mode and modification
// time, to see that a command left the directory byte for byte as it was.
func treeState(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %v %d %s", path, fi.Mode(), fi.Size(), fi.ModTime().Format("2006-01-02T15:04:05.000000000"))
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			h := sha256.Sum256(b)
			line += " " + hex.EncodeToString(h[:8])
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// populatedStore returns a store made by the CLI with a team merged with
// a conflict, a led team's tasks, mail and plan, a snapshot and a token.
func populatedStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"import", writeFile(t, "a.nt", "<http://ex/s> <http://ex/p> \"o\" .\n")},
		{"teams", "create", "--id", "t2", "--name", "rev", "--strategy", "conflict-flag", "--member", "a1", "--member", "a2"},
		{"findings", "add", "t2", "a1", "<http://ex/x>", "<http://ex/p>", `"1"`},
		{"findings", "add", "t2", "a2", "<http://ex/x>", "<http://ex/p>", `"2"`},
		{"teams", "member-status", "t2", "a1", "running"},
		{"teams", "member-status", "t2", "a1", "completed"},
		{"teams", "member-status", "t2", "a2", "running"},
		{"teams", "member-status", "t2", "a2", "completed"},
		{"teams", "create", "--id", "crew", "--name", "crew", "--member", "ann:lead", "--member", "bob:dev"},
		{"tasks", "create", "crew", "write the parser"},
		{"mail", "send", "crew", "hello", "--as", "ann", "--to", "bob"},
		{"plans", "draft", "crew", "--by", "ann", "--title", "plan", "--step", "one"},
		{"teams", "snapshot", "create", "crew"},
		{"tokens", "create", "--role", "read"},
	} {
		mustCLI(t, dir, args...)
	}
	return dir
}

// readOnlyCommands are commands that only read, run on populatedStore.
var readOnlyCommands = [][]string{
	{"stats"}, {"graphs"}, {"export"}, {"query", "SELECT * { ?s ?p ?o }"}, {"teams", "list"},
	{"teams", "get", "t2"}, {"findings", "list", "t2"}, {"conflicts", "list", "t2"}, {"facts", "list", "t2"},
	{"namespaces", "list"}, {"strategies"}, {"tokens", "list"}, {"tasks", "list", "crew"}, {"tasks", "get", "crew", "T1"},
	{"tasks", "history", "crew", "T1"}, {"tasks", "board", "crew"}, {"mail", "inbox", "crew", "--as", "bob"},
	{"mail", "history", "crew"}, {"mail", "retention", "crew"}, {"plans", "get", "crew"}, {"plans", "list", "crew"},
	{"teams", "snapshot", "list", "crew"}, {"teams", "snapshot", "restore", "crew", "S1"}, {"workflows", "list"},
	{"defs", "list"},
}

// TestCLI_ReadCommands_LeaveLeftoverJournalTemp: a journal header that a
// crash left unrenamed (cortex-delta.journal.tmp: nothing was written) is
// no recovery to do; a read-only command leaves it, and every other file,
// as it was (the next write removes it).
func TestCLI_ReadCommands_LeaveLeftoverJournalTemp(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "import", writeFile(t, "a.nt", "<http://ex/s> <http://ex/p> \"o\" .\n"))
	if err := os.WriteFile(filepath.Join(dir, "cortex-delta.journal.tmp"), []byte("cortex-journal1"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := treeState(t, dir)
	if r := runCLI(t, dir, "", "stats"); r.code != 0 || r.stderr != "" {
		t.Fatalf("stats: exit %d, stderr %q", r.code, r.stderr)
	}
	if after := treeState(t, dir); after != before {
		t.Fatalf("stats changed the store:\n%s\n---\n%s", before, after)
	}
}

// TestCLI_ReadCommands_NoLockFile: on a store without cortex.lock (copied
// without it), read-only commands create none.
func TestCLI_ReadCommands_NoLockFile(t *testing.T) {
	dir := populatedStore(t)
	if err := os.Remove(filepath.Join(dir, "cortex.lock")); err != nil {
		t.Fatal(err)
	}
	for _, args := range readOnlyCommands {
		before := treeState(t, dir)
		if r := runCLI(t, dir, "", args...); r.code != 0 {
			t.Fatalf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
		if after := treeState(t, dir); after != before {
			t.Fatalf("%v changed the store:\n%s\n---\n%s", args, before, after)
		}
	}
}

// TestCLI_TokensList_MissingData: tokens list with a --data that does not
// exist says there is no store (exit 3), as other reads do, and creates
// nothing; an existing directory without tokens lists none.
func TestCLI_TokensList_MissingData(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	r := runCLI(t, missing, "", "tokens", "list")
	if r.code != exitNotFound || !strings.Contains(r.stderr, "no store at "+missing) {
		t.Fatalf("exit %d, stderr %q; want %d, no store at %s", r.code, r.stderr, exitNotFound, missing)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Fatalf("%s was created (%v)", missing, err)
	}
	empty := t.TempDir()
	if out := mustCLI(t, empty, "tokens", "list", "--json"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("tokens list of an empty directory: %q", out)
	}
	if ents, _ := os.ReadDir(empty); len(ents) != 0 {
		t.Fatalf("tokens list created %v", ents)
	}
}
