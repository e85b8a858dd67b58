package results

import (
	"bufio"
	"fmt"
	"io"
	"unicode/utf8"
)

// rowWriter is the streaming skeleton shared by the CSV, TSV, JSON and XML
// writers: each row is checked and normalised (normRow), encoded by the format
// into a buffer reused across rows, and written to a bufio.Writer. A format
// embeds it and implements Write and Close with writeRow and close.
type rowWriter struct {
	bw     *bufio.Writer
	vars   []string
	n      int // rows written so far
	closed bool
	buf    []byte
}

// newRowWriter returns a rowWriter on w for a copy of vars.
func newRowWriter(w io.Writer, vars []string) rowWriter {
	return rowWriter{bw: bufio.NewWriter(w), vars: append([]string(nil), vars...)}
}

// writeRow is Writer.Write: encode appends the normalised row to b, or fails
// (with a *TermError) and then nothing of the row is written.
func (rw *rowWriter) writeRow(row Row, encode func(b []byte, row Row) ([]byte, error)) error {
	if rw.closed {
		return ErrClosed
	}
	row, err := normRow(row, rw.vars, rw.n)
	if err != nil {
		return err
	}
	b, err := encode(rw.buf[:0], row)
	if err != nil {
		return err
	}
	rw.buf = b
	rw.n++
	_, err = rw.bw.Write(b)
	return err
}

// writeChecked is Writer.Write for a format whose encode checks and
// normalises each term as it encodes it (as normTerm does, with its
// messages, in a *TermError): the row is not checked first. On an error
// nothing of the row is written.
func (rw *rowWriter) writeChecked(row Row, encode func(b []byte, row Row) ([]byte, error)) error {
	if rw.closed {
		return ErrClosed
	}
	if err := checkRowLength(row, rw.vars, rw.n); err != nil {
		return err
	}
	b, err := encode(rw.buf[:0], row)
	if err != nil {
		return err
	}
	rw.buf = b
	rw.n++
	_, err = rw.bw.Write(b)
	return err
}

// close is Writer.Close: the first call writes trailer and flushes.
func (rw *rowWriter) close(trailer string) error {
	if rw.closed {
		return nil
	}
	rw.closed = true
	rw.bw.WriteString(trailer)
	return rw.bw.Flush()
}

// utf8BOM is the byte order mark U+FEFF in UTF-8, which some tools (Excel's
// "CSV UTF-8") write at the start of a document.
const utf8BOM = "\ufeff"

// trimBOM returns data without a leading byte order mark.
func trimBOM(data []byte) []byte {
	if len(data) >= len(utf8BOM) && string(data[:len(utf8BOM)]) == utf8BOM {
		return data[len(utf8BOM):]
	}
	return data
}

// readDocument reads the whole of r, a document in format ("csv", ...) that
// must be valid UTF-8.
func readDocument(r io.Reader, format string) ([]byte, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", format, err)
	}
	if !utf8.Valid(data) {
		return nil, &SyntaxError{Format: format, Msg: "input is not valid utf-8"}
	}
	return data, nil
}
