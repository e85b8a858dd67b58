package main

import (
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTailWriter_LastLine: a failed --exec command's error quotes the last
// line that is not blank of its stderr, whatever the writes' sizes, at
// most tailBytes bytes of it and valid UTF-8.
func TestTailWriter_LastLine(t *testing.T) {
	long := strings.Repeat("é", tailBytes) // 2 bytes a character
	for _, tc := range []struct {
		name   string
		writes []string
		want   string
	}{
		{"nothing", nil, ""},
		{"blank", []string{"\n \n\t\n"}, ""},
		{"one line", []string{"no database\n"}, "no database"},
		{"last of several, blank ones after", []string{"warming up\n", "no data", "base\n\n  \n"}, "no database"},
		{"no newline at the end", []string{"a\nb"}, "b"},
		{"spaces trimmed", []string{"  x y  \r\n"}, "x y"},
		{"many writes past the buffer", append(strings.Split(strings.Repeat("noise\n", 1000), "x"), "the end\n"), "the end"},
		{"a long line: its end, from a character's start", []string{"start " + long + " end\n"}, long[len(long)-tailBytes+len(" end")+2:] + " end"},
		{"not UTF-8", []string{"bad \xff byte\n"}, "bad \uFFFD byte"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tw := &tailWriter{w: io.Discard}
			for _, w := range tc.writes {
				if n, err := tw.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			got := tw.lastLine()
			if got != tc.want || !utf8.ValidString(got) || len(got) > tailBytes+2 {
				t.Fatalf("lastLine = %q (%d bytes), want %q", got, len(got), tc.want)
			}
		})
	}
}
