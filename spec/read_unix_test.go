//go:build unix

package spec_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/cortexgraph/cortex/spec"
)

// TestReadFiles_OnlySmallRegularFiles: a definition file larger than
// MaxFileSize, or one that is no regular file (a FIFO would block, a
// device never end), is refused before it is read, as an invalid
// definition naming the file; ReadFiles used to read any of them whole.
func TestReadFiles_OnlySmallRegularFiles(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, spec.MaxFileSize+1); err != nil { // sparse
		t.Fatal(err)
	}
	fifoDir := filepath.Join(dir, "defs")
	if err := os.Mkdir(fifoDir, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(fifoDir, "team.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, file, want string }{
		{big, big, "file of 16777217 bytes is larger than 16777216"},
		{fifo, fifo, "not a regular file"},
		{fifoDir, fifo, "not a regular file"},
	} {
		_, err := spec.ReadFiles([]string{tc.path})
		var ve *spec.ValidationError
		if !errors.Is(err, spec.ErrInvalid) || !errors.As(err, &ve) || len(ve.Problems) != 1 ||
			ve.Problems[0].File != tc.file || !strings.Contains(ve.Problems[0].Message, tc.want) {
			t.Errorf("ReadFiles(%s) = %v, want an invalid definition %s: %s", tc.path, err, tc.file, tc.want)
		}
	}
	// A file of MaxFileSize bytes is read.
	if err := os.Truncate(big, spec.MaxFileSize); err != nil {
		t.Fatal(err)
	}
	if files, err := spec.ReadFiles([]string{big}); err != nil || len(files) != 1 || len(files[0].Data) != spec.MaxFileSize {
		t.Fatalf("ReadFiles of MaxFileSize bytes: %d files, %v", len(files), err)
	}
}

// TestReadFiles_NamesPathsQuoted: ReadFiles's errors, and problems, name a
// path that is not plain text quoted (as pathtext.Quote does): a newline, a
// quote or a bidi control in it can neither garble nor forge the message.
func TestReadFiles_NamesPathsQuoted(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "a\nload x: fine.md")
	_, err := spec.ReadFiles([]string{missing})
	q := strconv.Quote(missing)
	if want := "load " + q + ": stat " + q + ": no such file or directory"; err == nil || err.Error() != want || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFiles of a missing path: %v, want %s (matching fs.ErrNotExist)", err, want)
	}
	for _, name := range []string{`q"x.json`, "b\u202ec.json", "t\tab.json"} {
		fifo := filepath.Join(dir, name)
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := spec.ReadFiles([]string{fifo})
		if want := "invalid definition: " + strconv.Quote(fifo) + ": error: not a regular file"; err == nil || err.Error() != want {
			t.Errorf("ReadFiles of a FIFO: %v, want %s", err, want)
		}
	}
	plain := spec.Problem{File: "my defs/a.md", Line: 2, Severity: spec.SeverityError, Message: "bad"}
	if got, want := plain.String(), "my defs/a.md:2: error: bad"; got != want {
		t.Errorf("Problem.String() = %q, want %q", got, want)
	}
}
