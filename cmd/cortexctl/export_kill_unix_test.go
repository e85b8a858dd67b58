//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// dirNames returns the names in dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// TestCLI_ExportKilledTemporary: `export -o FILE` killed with SIGKILL
// half-way leaves its temporary file beside FILE (nothing can remove it
// then); the next export to FILE removes it, and nothing else: not the
// user's files with similar names, not the temporary file of an export
// to FILE still running.
func TestCLI_ExportKilledTemporary(t *testing.T) {
	store := t.TempDir()
	data := filepath.Join(t.TempDir(), "big.nt")
	var b strings.Builder
	for i := range 100_000 {
		fmt.Fprintf(&b, "<http://ex/s%d> <http://ex/p> \"a rather long literal to make the export take a while %d\" .\n", i, i)
	}
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, store, "import", data)

	outDir := t.TempDir()
	out := filepath.Join(outDir, "all.nq")
	// Files of the user, named as no temporary file of an export to
	// all.nq is, or not regular files.
	users := []string{".all.nq.keep", ".all.nq.1234", ".all.nq.cortexctl-tmp", ".all.nq.KEEP.cortexctl-tmp",
		".all.nq.a-b.cortexctl-tmp", ".all.nq.0123456789abcd.cortexctl-tmp", ".other.nq.abc.cortexctl-tmp", "abc.cortexctl-tmp", "all.nq~", "mine"}
	for _, u := range users {
		if err := os.WriteFile(filepath.Join(outDir, u), []byte("mine\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	users = append(users, ".all.nq.abc.cortexctl-tmp", ".all.nq.dir.cortexctl-tmp")
	if err := os.Symlink("mine", filepath.Join(outDir, ".all.nq.abc.cortexctl-tmp")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(outDir, ".all.nq.dir.cortexctl-tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(buildCLI(t), "--data", store, "export", "-o", out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// Wait until the export writes its temporary file, then kill it.
	var temp string
	for temp == "" {
		select {
		case err := <-exited:
			t.Fatalf("the export ended before it was killed (%v): the test tests nothing", err)
		default:
		}
		for _, n := range dirNames(t, outDir) {
			if fi, err := os.Lstat(filepath.Join(outDir, n)); err == nil && fi.Size() > 0 && !slices.Contains(users, n) {
				temp = n
			}
		}
		time.Sleep(time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	err := <-exited
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the export was not killed (%v): the test tests nothing", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s exists after the killed export (%v)", out, err)
	}
	if !slices.Contains(dirNames(t, outDir), temp) {
		t.Fatalf("no temporary file left (%v): the test tests nothing", dirNames(t, outDir))
	}

	// An export to FILE that is running: its temporary file stays.
	live, err := createExportFile(out)
	if err != nil {
		t.Fatal(err)
	}
	defer live.abort()
	if _, err := live.WriteString("<http://ex/live> <http://ex/p> \"o\" .\n"); err != nil {
		t.Fatal(err)
	}

	mustCLI(t, store, "export", "-o", out, "-g", "default")
	want := append(slices.Clone(users), "all.nq", filepath.Base(live.Name()))
	slices.Sort(want)
	if got := dirNames(t, outDir); !slices.Equal(got, want) {
		t.Fatalf("after the next export: %q, want %q", got, want)
	}
	if err := live.commit(); err != nil {
		t.Fatalf("the running export's commit: %v", err)
	}
	want = slices.DeleteFunc(want, func(n string) bool { return n == filepath.Base(live.Name()) })
	if got := dirNames(t, outDir); !slices.Equal(got, want) {
		t.Fatalf("after the running export's commit: %q, want %q", got, want)
	}
	if got, _ := os.ReadFile(out); string(got) != "<http://ex/live> <http://ex/p> \"o\" .\n" {
		t.Fatalf("%s holds %q", out, got)
	}
	for _, u := range users {
		if got, err := os.ReadFile(filepath.Join(outDir, u)); u != ".all.nq.dir.cortexctl-tmp" && string(got) != "mine\n" {
			t.Fatalf("%s holds %q (%v)", u, got, err)
		}
	}
}

// TestCLI_ExportLongFileName: export -o of a file whose name is as long
// as a name may be (255 bytes) writes it; the temporary file's name,
// longer by its prefix and suffix, failed with "file name too long".
func TestCLI_ExportLongFileName(t *testing.T) {
	store := t.TempDir()
	mustCLI(t, store, "import", writeFile(t, "a.nt", "<http://ex/s> <http://ex/p> \"o\" .\n"))
	for _, name := range []string{strings.Repeat("a", 252) + ".nt", strings.Repeat("é", 126) + ".nt"} {
		out := filepath.Join(t.TempDir(), name)
		r := runCLI(t, store, "", "export", "-o", out)
		if got, err := os.ReadFile(out); r.code != 0 || string(got) != "<http://ex/s> <http://ex/p> \"o\" .\n" {
			t.Fatalf("export -o %s: exit %d, stderr %q, file %q (%v)", name, r.code, r.stderr, got, err)
		}
		if names := dirNames(t, filepath.Dir(out)); len(names) != 1 {
			t.Fatalf("the directory holds %q", names)
		}
	}
}

// TestCLI_ExportIntoStore: export -o of a file in the store directory
// (--data), directly, through a symbolic link or in a directory under it,
// is an invalid value (exit 7) and writes nothing: export -o DATA/MANIFEST
// replaced the store's manifest with the export, and the store no longer
// opened ("manifest has bad magic").
func TestCLI_ExportIntoStore(t *testing.T) {
	store := t.TempDir()
	mustCLI(t, store, "import", writeFile(t, "a.nt", "<http://ex/s> <http://ex/p> \"o\" .\n"))
	if err := os.Mkdir(filepath.Join(store, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	links := t.TempDir()
	if err := os.Symlink(filepath.Join(store, "MANIFEST"), filepath.Join(links, "m.nq")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(store, filepath.Join(links, "data")); err != nil {
		t.Fatal(err)
	}
	before := dirFiles(t, store)
	for _, out := range []string{
		filepath.Join(store, "MANIFEST"),
		filepath.Join(store, "new.nq"),
		filepath.Join(store, "sub", "x.nq"),
		filepath.Join(links, "m.nq"),
		filepath.Join(links, "data", "KEYREGISTRY"),
	} {
		r := runCLI(t, store, "", "export", "-o", out, "-f", "nq")
		if r.code != exitInvalid || !strings.Contains(r.stderr, "is in the store directory") {
			t.Errorf("export -o %s: exit %d, stderr %q; want %d", out, r.code, r.stderr, exitInvalid)
		}
	}
	if now := dirFiles(t, store); now != before {
		t.Fatalf("the store directory changed:\n%s\n->\n%s", before, now)
	}
	if got := mustCLI(t, store, "export"); got != "<http://ex/s> <http://ex/p> \"o\" .\n" {
		t.Fatalf("export: %q", got)
	}
}
