package parser

import "strings"

// ExcerptWidth is the most characters of a line of the query that Excerpt shows.
const ExcerptWidth = 80

// Excerpt returns line (1-based) of text, as Parse numbers lines and counts columns (a leading
// byte-order mark skipped), and under it a caret under column col (1-based, in characters), each
// line indented by two spaces and ended by a newline; "" if text has no such line. Tabs are shown as
// spaces. A line longer than ExcerptWidth characters is cut to a window of ExcerptWidth characters
// around the column, with "..." on each side that is cut, so that an excerpt of a query that is one
// huge line stays short; a col past the end of the line puts the caret just after it.
func Excerpt(text string, line, col int) string {
	text = strings.TrimPrefix(text, byteOrderMark)
	if line < 1 {
		return ""
	}
	for i := 1; i < line; i++ {
		nl := strings.IndexByte(text, '\n')
		if nl < 0 {
			return ""
		}
		text = text[nl+1:]
	}
	if nl := strings.IndexByte(text, '\n'); nl >= 0 {
		text = text[:nl]
	}
	l := []rune(strings.TrimRight(text, "\r"))
	for i, r := range l {
		if r == '\t' {
			l[i] = ' '
		}
	}
	n := min(max(col-1, 0), len(l)) // characters before the caret
	start, end := 0, len(l)
	if len(l) > ExcerptWidth {
		start = max(n-ExcerptWidth/2, 0)
		end = min(start+ExcerptWidth, len(l))
		start = max(end-ExcerptWidth, 0)
	}
	var b strings.Builder
	b.WriteString("  ")
	caret := n - start
	if start > 0 {
		b.WriteString("...")
		caret += 3
	}
	b.WriteString(string(l[start:end]))
	if end < len(l) {
		b.WriteString("...")
	}
	b.WriteString("\n  ")
	b.WriteString(strings.Repeat(" ", caret))
	b.WriteString("^\n")
	return b.String()
}
