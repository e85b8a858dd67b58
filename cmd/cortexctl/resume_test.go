//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// TestCLI_ImportResumes: an import prints its id when it starts; killed
// (kill -9) right after, running the same command again resumes that import
// (same id, said on stderr) and the graph is the file's, blank nodes not
// duplicated. An import that fails half-way is resumed by the same command
// too; once the file is fixed, it is imported anew.
func TestCLI_ImportResumes(t *testing.T) {
	bin := buildCLI(t)
	store := t.TempDir()
	path := filepath.Join(t.TempDir(), "findings.nt")
	var b strings.Builder
	for i := 0; i < 30_000; i++ {
		fmt.Fprintf(&b, "_:f%d <http://ex/says> \"finding %d\" .\n_:f%d <http://ex/by> <http://ex/agent%d> .\n", i, i, i, i%7)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	started := regexp.MustCompile(`importing .*findings\.nt as import ([A-Za-z0-9_-]+) \(if it is interrupted, running the same command again resumes it\)`)

	cmd := exec.Command(bin, "--data", store, "import", path)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var id string
	for sc.Scan() {
		if m := started.FindStringSubmatch(sc.Text()); m != nil {
			id = m[1]
			break
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	err = cmd.Wait()
	var ee *exec.ExitError
	if id == "" || !errors.As(err, &ee) {
		t.Fatalf("no import id printed before the kill (id %q, %v)", id, err)
	}
	var pending struct {
		UnfinishedImports []struct{ ID, Source string }
	}
	if err := json.Unmarshal([]byte(mustCLI(t, store, "stats", "--json")), &pending); err != nil ||
		len(pending.UnfinishedImports) != 1 || pending.UnfinishedImports[0].ID != id || !strings.HasSuffix(pending.UnfinishedImports[0].Source, "findings.nt") {
		t.Fatalf("stats lists unfinished imports %+v (%v), want %s", pending.UnfinishedImports, err, id)
	}

	r := runCLI(t, store, "", "import", path)
	if r.code != 0 || !strings.Contains(r.stderr, "resuming import "+id+" of ") {
		t.Fatalf("the same command again: exit %d, stderr %q; want it to resume import %s", r.code, r.stderr, id)
	}
	var st struct{ Quads int }
	if err := json.Unmarshal([]byte(mustCLI(t, store, "stats", "--json")), &st); err != nil || st.Quads != 60_000 {
		t.Fatalf("%d quads (%v), want the file's 60,000", st.Quads, err)
	}

	// Half-way failure: the same command resumes (and fails the same way,
	// adding nothing); the fixed file is a new import.
	bad := filepath.Join(t.TempDir(), "bad.nt")
	if err := os.WriteFile(bad, []byte(b.String()+"not N-Triples\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r1 := runCLI(t, store, "", "import", bad)
	m := started.FindStringSubmatch(strings.ReplaceAll(r1.stderr, "bad.nt", "findings.nt"))
	if r1.code != 5 || m == nil || !strings.Contains(r1.stderr, "importing the same input again resumes import "+m[1]) {
		t.Fatalf("import bad.nt: exit %d, stderr %q", r1.code, r1.stderr)
	}
	quads := func() int {
		t.Helper()
		if err := json.Unmarshal([]byte(mustCLI(t, store, "stats", "--json")), &st); err != nil {
			t.Fatal(err)
		}
		return st.Quads
	}
	afterFirst := quads()
	if afterFirst <= 60_000 {
		t.Fatalf("%d quads: the failed import committed nothing, the test does not test anything", afterFirst)
	}
	r2 := runCLI(t, store, "", "import", bad)
	if r2.code != 5 || !strings.Contains(r2.stderr, "resuming import "+m[1]) {
		t.Fatalf("import bad.nt again: exit %d, stderr %q; want a resumption of %s", r2.code, r2.stderr, m[1])
	}
	if n := quads(); n != afterFirst {
		t.Fatalf("%d quads after the same failed import again, want %d (blank nodes duplicated)", n, afterFirst)
	}
	if err := os.WriteFile(bad, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r3 := runCLI(t, store, "", "import", bad)
	if r3.code != 0 || !strings.Contains(r3.stderr, "changed since its import "+m[1]) {
		t.Fatalf("import the fixed bad.nt: exit %d, stderr %q", r3.code, r3.stderr)
	}
}

// TestCLI_ImportFromPipe: a named pipe (or <(...)) is read once, in full: it
// is imported as a stream (its import id printed with the hint to re-run
// with --import-id), never read twice to recognise it again.
func TestCLI_ImportFromPipe(t *testing.T) {
	store := t.TempDir()
	fifo := filepath.Join(t.TempDir(), "data.nt")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	var b strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "<http://ex/s%d> <http://ex/p> \"a value long enough to fill 64 KiB soon %d\" .\n", i, i)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		_, _ = f.WriteString(b.String())
		f.Close()
	}()
	r := runCLI(t, store, "", "import", fifo)
	if r.code != 0 || !strings.Contains(r.stderr, "a stream cannot be recognised again") {
		t.Fatalf("import from a pipe: exit %d, stderr %q", r.code, r.stderr)
	}
	var st struct{ Quads int }
	if err := json.Unmarshal([]byte(mustCLI(t, store, "stats", "--json")), &st); err != nil || st.Quads != 3000 {
		t.Fatalf("%d quads (%v), want all 3,000 of the pipe", st.Quads, err)
	}
}

// TestCLI_ImportIDCheckedFirst: a malformed --import-id is refused (exit 7)
// before the store is created.
func TestCLI_ImportIDCheckedFirst(t *testing.T) {
	store := filepath.Join(t.TempDir(), "store")
	file := writeFile(t, "a.nt", "<http://ex/s> <http://ex/p> \"o\" .\n")
	if r := runCLI(t, store, "", "import", file, "--import-id", "bad id"); r.code != exitInvalid {
		t.Fatalf("exit %d (%s), want %d", r.code, r.stderr, exitInvalid)
	}
	if _, err := os.Stat(store); !os.IsNotExist(err) {
		t.Fatalf("the store was created (%v)", err)
	}
}

// TestCLI_ImportChangedFileUnderRecordedID: a file whose import failed
// half-way, fixed and imported again with --import-id ID as cortexctl
// told, is imported under that id (converging with what it wrote):
// cortexctl says so, not that it imports it anew and that what was
// written stays, with the very command just run as the way to converge.
func TestCLI_ImportChangedFileUnderRecordedID(t *testing.T) {
	store, path, good, id := interruptedImport(t)
	if err := os.WriteFile(path, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	r2 := runCLI(t, store, "", "import", path, "--import-id", id)
	if r2.code != 0 {
		t.Fatalf("import --import-id %s: exit %d, stderr %q", id, r2.code, r2.stderr)
	}
	for _, bad := range []string{"importing it anew", "--import-id " + id + ")"} {
		if strings.Contains(r2.stderr, bad) {
			t.Errorf("import --import-id %s: stderr %q says %q", id, r2.stderr, bad)
		}
	}
	if want := "under the id of its interrupted import " + id; !strings.Contains(r2.stderr, want) {
		t.Errorf("import --import-id %s: stderr %q lacks %q", id, r2.stderr, want)
	}
	var st struct{ Quads int }
	if err := json.Unmarshal([]byte(mustCLI(t, store, "stats", "--json")), &st); err != nil || st.Quads != 20_000 {
		t.Fatalf("%d quads (%v), want the file's 20,000 once", st.Quads, err)
	}
}

// TestCLI_ImportNewIDKeepsInterrupted: an import under --import-id NEW of
// a file whose import was interrupted (as the refusal of another --graph
// says to do) leaves that import resumable: cortexctl says so, and the
// first command, run again, resumes it. The new import was recorded over
// it, and the first command was then refused (another --graph).
func TestCLI_ImportNewIDKeepsInterrupted(t *testing.T) {
	store, path, _, id := interruptedImport(t)
	if r := runCLI(t, store, "", "import", path, "-g", "http://ex/g"); r.code != exitInvalid || !strings.Contains(r.stderr, "--import-id NEW") && !strings.Contains(r.stderr, "import-id NEW") {
		t.Fatalf("import -g: exit %d, stderr %q; want a refusal", r.code, r.stderr)
	}
	r2 := runCLI(t, store, "", "import", path, "-g", "http://ex/g", "--import-id", "fresh")
	if r2.code != 5 || !strings.Contains(r2.stderr, "as import fresh") {
		t.Fatalf("import --import-id fresh: exit %d, stderr %q", r2.code, r2.stderr)
	}
	want := "import " + id + " of " + path + " (started "
	if !strings.Contains(r2.stderr, want) || !strings.Contains(r2.stderr, "stays unfinished: running the command without --import-id resumes it") ||
		!strings.Contains(r2.stderr, "re-run it with --import-id fresh") {
		t.Fatalf("import --import-id fresh: stderr %q; want it to say import %s stays resumable", r2.stderr, id)
	}
	r3 := runCLI(t, store, "", "import", path)
	if r3.code != 5 || !strings.Contains(r3.stderr, "resuming import "+id) {
		t.Fatalf("the first command again: exit %d, stderr %q; want a resumption of %s", r3.code, r3.stderr, id)
	}
}

// interruptedImport returns a store holding the committed part of an
// import that failed half-way: the file path (20,000 N-Triples, then a
// line that is not), the file's good part and the import's id.
func interruptedImport(t *testing.T) (store, path, good, id string) {
	t.Helper()
	store = t.TempDir()
	path = filepath.Join(t.TempDir(), "a.nt")
	var b strings.Builder
	for i := 0; i < 20_000; i++ {
		fmt.Fprintf(&b, "_:f%d <http://ex/says> \"finding %d\" .\n", i, i)
	}
	if err := os.WriteFile(path, []byte(b.String()+"not N-Triples\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r1 := runCLI(t, store, "", "import", path)
	m := regexp.MustCompile(`as import ([A-Za-z0-9_-]+) `).FindStringSubmatch(r1.stderr)
	if r1.code != 5 || m == nil {
		t.Fatalf("import: exit %d, stderr %q; want a failure after committed chunks", r1.code, r1.stderr)
	}
	return store, path, b.String(), m[1]
}
