package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"syscall"
	"unicode/utf8"
)

// readInput reads the file path that command (e.g. "teams create") was
// given. A directory is an invalid value (exit 7), as it is for import; a
// missing file is not found (exit 3, the error matches fs.ErrNotExist).
func readInput(command, path string) ([]byte, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%w: %s: %s is a directory", errInvalid, command, pathText(path))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", command, quotePath(err))
	}
	return data, nil
}

// firstInvalidUTF8 returns the line and column (1-based) of the first byte
// of data that is not valid UTF-8, and false if data is valid UTF-8. They
// are counted as rdfio's syntax errors count them: a line ends at LF, CR LF
// or CR alone, a column counts bytes, and a leading byte order mark is not
// counted.
func firstInvalidUTF8(data []byte) (line, col int, bad bool) {
	if utf8.Valid(data) {
		return 0, 0, false
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	line, col = 1, 1
	for len(data) > 0 {
		r, n := utf8.DecodeRune(data)
		switch {
		case r == utf8.RuneError && n <= 1:
			return line, col, true
		case r == '\r' && len(data) > 1 && data[1] == '\n':
			n = 2
			fallthrough
		case r == '\n' || r == '\r':
			line, col = line+1, 1
		default:
			col += n
		}
		data = data[n:]
	}
	return line, col, true // not reached: data is not valid
}

// notDir reports whether path is a file, or a path under a file: no
// directory can be there.
func notDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() || errors.Is(err, syscall.ENOTDIR)
}
