package parser

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ExcerptWidth is the most characters of a line of the query that Excerpt shows.
const ExcerptWidth = 80

// Excerpt returns line (1-based) of text, as Parse numbers lines and counts columns (a leading
// byte-order mark skipped), and under it a caret under column col (1-based, in characters), each
// line indented by two spaces and ended by a newline; "" if text has no such line. Tabs are shown as
// spaces. A line longer than ExcerptWidth characters is cut to a window of ExcerptWidth characters
// around the column, with "..." on each side that is cut, so that an excerpt of a query that is one
// huge line stays short; a col past the end of the line puts the caret just after it. A control
// character is shown escaped (ESC as \x1b, U+0085 as \u0085), and so are a bidirectional
// formatting character (U+202E as \u202e) and a byte that is not UTF-8 (\xff), as cortexctl's
// tables show them, so that an excerpt written to a terminal can neither drive it nor reorder the
// line; the caret is under the escaped character.
func Excerpt(text string, line, col int) string {
	text = strings.TrimPrefix(text, byteOrderMark)
	if line < 1 {
		return ""
	}
	// A line ends at LF, CR LF or CR alone, as Parse counts lines.
	for i := 1; i < line; i++ {
		nl := strings.IndexAny(text, "\r\n")
		if nl < 0 {
			return ""
		}
		if text[nl] == '\r' && nl+1 < len(text) && text[nl+1] == '\n' {
			nl++
		}
		text = text[nl+1:]
	}
	if nl := strings.IndexAny(text, "\r\n"); nl >= 0 {
		text = text[:nl]
	}
	l := excerptChars(text)
	n := min(max(col-1, 0), len(l)) // characters before the caret
	start, end := 0, len(l)
	if len(l) > ExcerptWidth {
		start = max(n-ExcerptWidth/2, 0)
		end = min(start+ExcerptWidth, len(l))
		start = max(end-ExcerptWidth, 0)
	}
	var b strings.Builder
	b.WriteString("  ")
	caret := 0
	for _, c := range l[start:n] {
		caret += utf8.RuneCountInString(c)
	}
	if start > 0 {
		b.WriteString("...")
		caret += 3
	}
	for _, c := range l[start:end] {
		b.WriteString(c)
	}
	if end < len(l) {
		b.WriteString("...")
	}
	b.WriteString("\n  ")
	b.WriteString(strings.Repeat(" ", caret))
	b.WriteString("^\n")
	return b.String()
}

// excerptChars returns the characters of line (a byte that is not UTF-8
// counted as one, as Parse counts columns) as Excerpt shows them: a tab
// as a space, other control characters, bidirectional formatting
// characters and bytes that are not UTF-8 escaped.
func excerptChars(line string) []string {
	var cs []string
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRuneInString(line[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			cs = append(cs, fmt.Sprintf("\\x%02x", line[i]))
		case r == '\t':
			cs = append(cs, " ")
		case r < 0x20 || r == 0x7f:
			cs = append(cs, fmt.Sprintf("\\x%02x", r))
		case r >= 0x80 && r < 0xa0 || r == 0x2028 || r == 0x2029 || bidiControl(r):
			cs = append(cs, fmt.Sprintf("\\u%04x", r))
		default:
			cs = append(cs, line[i:i+size])
		}
		i += size
	}
	return cs
}

// bidiControl reports whether r is a bidirectional formatting character
// (an embedding, override or isolate, or a directional mark): shown raw,
// it reorders the rest of the line on a terminal.
func bidiControl(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}
