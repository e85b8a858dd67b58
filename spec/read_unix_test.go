//go:build unix

package spec_test

import (
	"errors"
	"os"
	"path/filepath"
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
