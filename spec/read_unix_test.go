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
// A path that cannot be read is named once (it was "load P: stat P: no
// such file or directory").
func TestReadFiles_NamesPathsQuoted(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "a\nload x: fine.md")
	_, err := spec.ReadFiles([]string{missing})
	q := strconv.Quote(missing)
	var pe *fs.PathError
	if want := "load " + q + ": no such file or directory"; err == nil || err.Error() != want || !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) {
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

// TestReadFiles_DirectoryThroughSymlink: a definitions directory named
// through a symbolic link (defs -> ~/dotfiles/defs) is read as the
// directory it links to, its files named under the link: it was read as
// no file at all, without a word (filepath.WalkDir does not follow a
// link, the root's either). Links inside it are not followed to
// directories (a link to its own directory would loop), and a link loop
// named as a definition file is an error naming it.
func TestReadFiles_DirectoryThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.MkdirAll(filepath.Join(real, "agents", "qa"), 0o755); err != nil {
		t.Fatal(err)
	}
	agent := "---\nname: unit\ndescription: d\n---\nbody\n"
	if err := os.WriteFile(filepath.Join(real, "agents", "qa", "unit.md"), []byte(agent), 0o644); err != nil {
		t.Fatal(err)
	}
	link, link2 := filepath.Join(dir, "defs"), filepath.Join(dir, "defs2")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("defs", link2); err != nil { // a link to a link
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(real, "self")); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{link, link2, link + "/"} {
		files, err := spec.ReadFiles([]string{root})
		want := filepath.Join(root, "agents", "qa", "unit.md")
		if err != nil || len(files) != 1 || files[0].Path != want || files[0].Namespace != "qa" || !files[0].InDir || files[0].Data != agent {
			t.Errorf("ReadFiles(%s) = %+v, %v, want %s in namespace qa", root, files, err, want)
		}
	}
	loop := filepath.Join(real, "loop.md")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	if _, err := spec.ReadFiles([]string{link}); err == nil || !strings.Contains(err.Error(), filepath.Join(link, "loop.md")) || !errors.Is(err, syscall.ELOOP) {
		t.Errorf("ReadFiles of a directory with a link loop: %v, want an error naming %s", err, filepath.Join(link, "loop.md"))
	}
}
