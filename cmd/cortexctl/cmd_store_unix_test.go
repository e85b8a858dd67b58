//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestCLI_ExportToPipe: export -o of a named pipe (or a device, such as
// /dev/stdout) writes into it, as the shell's > does; it used to write a
// temporary file and rename it over the pipe, which replaced the pipe
// with a regular file (and would have replaced /dev/null for root) while
// its reader waited for data that never came.
func TestCLI_ExportToPipe(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "import", writeFile(t, "a.nt", "<http://example.org/s> <http://example.org/p> \"o\" .\n"))
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// A reader opened without waiting for a writer: export's open for
	// writing does not block, and what it writes waits in the pipe.
	fd, err := syscall.Open(fifo, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	rd := os.NewFile(uintptr(fd), fifo)
	defer rd.Close()
	r := runCLI(t, dir, "", "export", "-f", "nt", "-o", fifo)
	if r.code != 0 {
		t.Fatalf("export -o PIPE: exit %d\n%s", r.code, r.stderr)
	}
	b, err := io.ReadAll(rd)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); s != "<http://example.org/s> <http://example.org/p> \"o\" .\n" {
		t.Fatalf("the pipe's reader read %q", s)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the pipe was replaced: %v, %v", fi.Mode(), err)
	}
}

// TestCLI_ImportStreamNamedOneLine: the line saying which import id an
// import of a stream (a device, a pipe) uses names a hostile path
// escaped, as the lines of other imports do; it was written raw, so a
// newline in the name broke the line and an escape sequence reached the
// terminal.
func TestCLI_ImportStreamNamedOneLine(t *testing.T) {
	dir := t.TempDir()
	for _, name := range hostileNames {
		link := filepath.Join(t.TempDir(), name+".nt")
		if err := os.Symlink(os.DevNull, link); err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			r := runCLI(t, dir, "", "import", link)
			if why := safeLines(r.stderr, 1); why != "" || r.code != 0 {
				t.Fatalf("exit %d, stderr %s:\n%q", r.code, why, r.stderr)
			}
		})
	}
}
