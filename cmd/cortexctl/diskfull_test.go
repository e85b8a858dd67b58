//go:build linux

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
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// mountTmpfs mounts a tmpfs of size bytes on a new directory and returns it;
// it skips the test when this process may not mount (not root, or no
// CAP_SYS_ADMIN), unless CORTEX_REQUIRE_TMPFS=1 (.ci/run sets it where
// mounting works).
func mountTmpfs(t *testing.T, size int64) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput()
	if err != nil {
		if os.Getenv("CORTEX_REQUIRE_TMPFS") == "1" {
			t.Fatalf("mount a tmpfs: %v: %s", err, out)
		}
		t.Skipf("cannot mount a tmpfs here (%v: %s): the full-disk test runs where it can (root in .ci/run); the injected full disk of cortex's TestDiskSpace_* runs everywhere", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// ntFile writes n distinct triples to a file outside the tmpfs.
func ntFile(t *testing.T, name string, n int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, "<http://example.org/%s/s%d> <http://example.org/p%d> \"value %d of %s, padded to look like a finding's note\" .\n", name, i, i%13, i, name)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// fill writes zeros to a new file in dir until the file system has at most
// leave bytes free.
func fill(t *testing.T, dir string, leave int64) string {
	t.Helper()
	f, err := os.CreateTemp(dir, "filler")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for {
		var st syscall.Statfs_t
		if err := syscall.Statfs(dir, &st); err != nil {
			t.Fatal(err)
		}
		free := int64(st.Bavail) * st.Bsize
		if free <= leave {
			return f.Name()
		}
		if _, err := f.Write(buf[:min(int64(len(buf)), free-leave)]); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return f.Name()
		}
	}
}

// TestCLI_DiskFull runs the real cortexctl on a small tmpfs: an import that
// does not fit fails with a clear error (exit 1, "no space left on
// device"), never a crash, and writes nothing half; with the disk then
// completely full, stats, export and query work and a write fails cleanly;
// once space is freed, writes work again.
func TestCLI_DiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("writes ~100 MB")
	}
	bin := buildCLI(t)
	disk := mountTmpfs(t, 512<<20)
	cli := diskCLI(t, bin, filepath.Join(disk, "store"))
	count := func() int { t.Helper(); return diskCount(t, cli) }

	if code, _, errb := cli("import", ntFile(t, "small.nt", 1000)); code != 0 {
		t.Fatalf("import small.nt: exit %d: %s", code, errb)
	}
	code, _, errb := cli("import", ntFile(t, "big.nt", 1_000_000))
	noSpace(t, "import big.nt", code, errb)
	if n := count(); n != 1000 {
		t.Fatalf("%d quads after the refused import, want 1000 (nothing of big.nt)", n)
	}

	// Nearly full: an import small enough to be committed through Badger's
	// memtable (whose log is a memory map: ~25 MB of it here) would fault
	// once the few free pages are used.
	almost := fill(t, disk, 8<<20)
	code, _, errb = cli("import", ntFile(t, "mid.nt", 15_000))
	noSpace(t, "import on a nearly full disk", code, errb)
	if n := count(); n != 1000 {
		t.Fatalf("%d quads after the refused import, want 1000", n)
	}

	// Full: reading commands work, writing ones are refused.
	filler := fill(t, disk, 0)
	if n := count(); n != 1000 {
		t.Fatalf("stats on a full disk: %d quads, want 1000", n)
	}
	code, out, errb := cli("export", "-f", "nt")
	if code != 0 || strings.Count(out, "\n") != 1000 {
		t.Fatalf("export on a full disk: exit %d, %d lines: %s", code, strings.Count(out, "\n"), errb)
	}
	code, out, errb = cli("query", "--format", "csv", "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
	if code != 0 || !strings.Contains(out, "1000") {
		t.Fatalf("query on a full disk: exit %d, %q: %s", code, out, errb)
	}
	small2 := ntFile(t, "small2.nt", 500)
	code, _, errb = cli("import", small2)
	noSpace(t, "import on a full disk", code, errb)

	if err := os.Remove(almost); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if code, _, errb := cli("import", small2); code != 0 {
		t.Fatalf("import once space is free: exit %d: %s", code, errb)
	}
	if n := count(); n != 1500 {
		t.Fatalf("%d quads, want 1500", n)
	}
}

// diskCLI returns a function that runs the built cortexctl bin on the store
// in dir at --memory-limit 256MiB, failing the test if it crashed, and
// returns its exit code, stdout and stderr.
func diskCLI(t *testing.T, bin, store string) func(args ...string) (int, string, string) {
	return func(args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--data", store, "--memory-limit", "256MiB"}, args...)...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		for _, crash := range []string{"fatal error", "SIGBUS", "goroutine ", "panic:"} {
			if strings.Contains(errb.String(), crash) {
				t.Fatalf("cortexctl %v crashed (%q):\n%s", args, crash, errb.String())
			}
		}
		return code, out.String(), errb.String()
	}
}

// noSpace fails the test unless a command (what) exited 1 saying "no space
// left on device".
func noSpace(t *testing.T, what string, code int, stderr string) {
	t.Helper()
	if code != 1 || !strings.Contains(stderr, "no space left on device") {
		t.Fatalf("%s: exit %d, stderr %q; want exit 1 and \"no space left on device\"", what, code, stderr)
	}
}

// diskCount returns the quads of the namespace that cli's args (if any)
// select, from stats --json.
func diskCount(t *testing.T, cli func(args ...string) (int, string, string), args ...string) int {
	t.Helper()
	code, out, errb := cli(append(args, "stats", "--json")...)
	if code != 0 {
		t.Fatalf("stats: exit %d: %s", code, errb)
	}
	var st struct{ Quads int }
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("stats %q: %v", out, err)
	}
	return st.Quads
}

// freeBytes returns the bytes free in the file system of dir.
func freeBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bavail) * st.Bsize
}

// TestCLI_DiskFull_DeleteNamespace: on a disk too full for writes,
// `namespaces delete` was refused as a write (its read-write open first),
// so a user could not free space through Cortex. It now deletes the
// namespace and the space comes back, as long as the disk has room for
// the storage engine's flush and compaction (the guard's reserve less the
// rest of a memtable log); on a completely full disk it fails with "no
// space left on device" and deletes nothing.
func TestCLI_DiskFull_DeleteNamespace(t *testing.T) {
	if testing.Short() {
		t.Skip("writes ~100 MB")
	}
	bin := buildCLI(t)
	disk := mountTmpfs(t, 512<<20)
	cli := diskCLI(t, bin, filepath.Join(disk, "store"))

	if code, _, errb := cli("-n", "keep", "import", ntFile(t, "keep.nt", 1000)); code != 0 {
		t.Fatalf("import keep.nt: exit %d: %s", code, errb)
	}
	before := freeBytes(t, disk)
	if code, _, errb := cli("-n", "scratch", "import", ntFile(t, "scratch.nt", 100_000)); code != 0 {
		t.Fatalf("import scratch.nt: exit %d: %s", code, errb)
	}
	scratch := before - freeBytes(t, disk)
	if scratch <= 0 {
		t.Fatalf("the import of scratch.nt took %d bytes", scratch)
	}

	// What a read-write open (and a deletion) needs, from the refusal of a
	// tiny import: the guard's reserve less a memtable (16 MiB).
	tiny := ntFile(t, "tiny.nt", 1)
	probe := fill(t, disk, 8<<20)
	code, _, errb := cli("-n", "keep", "import", tiny)
	noSpace(t, "import on a nearly full disk", code, errb)
	if !strings.Contains(errb, "open store read-write") {
		t.Fatalf("import on a nearly full disk: %q, want the read-write open refused", errb)
	}
	m := regexp.MustCompile(`needs about ([0-9.]+) MB`).FindStringSubmatch(errb)
	if m == nil {
		t.Fatalf("no size in %q", errb)
	}
	mb, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(probe); err != nil {
		t.Fatal(err)
	}
	// 8 MiB more free space: writes are refused (they need 8 MiB more), a
	// deletion is not.
	filler := fill(t, disk, int64(mb*1e6)+8<<20)
	code, _, errb = cli("-n", "keep", "import", tiny)
	noSpace(t, "import at the guard", code, errb)
	atGuard := freeBytes(t, disk)

	code, out, errb := cli("namespaces", "delete", "scratch", "--yes")
	if code != 0 || !strings.Contains(out, "deleted namespace scratch") {
		t.Fatalf("namespaces delete at the guard: exit %d, %q: %s", code, out, errb)
	}
	freed := freeBytes(t, disk) - atGuard
	t.Logf("scratch took %.1f MB; %.1f MB free at the guard; its deletion freed %.1f MB", float64(scratch)/1e6, float64(atGuard)/1e6, float64(freed)/1e6)
	if freed < scratch/2 {
		t.Fatalf("deleting scratch (%d bytes) freed %d bytes", scratch, freed)
	}
	if n := diskCount(t, cli, "-n", "keep"); n != 1000 {
		t.Fatalf("%d quads in keep after deleting scratch, want 1000", n)
	}
	code, out, _ = cli("namespaces", "list", "--json")
	if code != 0 || strings.Contains(out, "scratch") {
		t.Fatalf("namespaces list after the deletion: exit %d: %s", code, out)
	}

	// Completely full: no room to delete; nothing is deleted.
	full := fill(t, disk, 0)
	code, _, errb = cli("namespaces", "delete", "keep", "--yes")
	noSpace(t, "namespaces delete on a full disk", code, errb)
	if n := diskCount(t, cli, "-n", "keep"); n != 1000 {
		t.Fatalf("%d quads in keep after its refused deletion, want 1000", n)
	}
	for _, f := range []string{full, filler} {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, errb := cli("-n", "keep", "import", tiny); code != 0 {
		t.Fatalf("import once space is free: exit %d: %s", code, errb)
	}
}
