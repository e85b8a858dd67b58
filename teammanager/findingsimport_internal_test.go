package teammanager

import (
	"bytes"
	"fmt"
	"testing"
)

// TestLineCounter_Linear checks the lines lineCounter gives for the start
// of each record of a JSON Lines document (white space and blank lines
// between them), and that telling them all reads the document once: the
// import of n records is not quadratic.
func TestLineCounter_Linear(t *testing.T) {
	var data bytes.Buffer
	var offs []int64
	var want []int
	line := 1
	for i := range 2000 {
		offs = append(offs, int64(data.Len()))
		if i%3 == 0 { // a blank line, then the record
			data.WriteString("\n  ")
			line++
		}
		want = append(want, line)
		fmt.Fprintf(&data, `{"subject": "<http://ex/s%d>"}`+"\n", i)
		line++
	}
	c := &lineCounter{data: data.Bytes(), line: 1}
	for i, off := range offs {
		if got := c.lineAt(off); got != want[i] {
			t.Fatalf("record %d at offset %d: line %d, want %d", i+1, off, got, want[i])
		}
	}
	if c.scanned > int64(data.Len()) {
		t.Fatalf("counted %d bytes for a document of %d: not one pass", c.scanned, data.Len())
	}
	// An earlier offset is counted again from the start.
	if got := c.lineAt(offs[1]); got != want[1] {
		t.Fatalf("earlier offset: line %d, want %d", got, want[1])
	}
}
