package parser_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cortexgraph/cortex/cortex/sparql/parser"
)

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("a", 100) + "X" + strings.Repeat("b", 100) // X is column 101
	tests := []struct {
		name, text string
		line, col  int
		want       string
	}{
		{"Short", "SELECT ?s\nWHERE { ?s ?p }", 2, 15, "  WHERE { ?s ?p }\n                ^\n"},
		{"Tab", "\tASK {", 1, 7, "   ASK {\n        ^\n"},
		{"CR", "ASK {\r\n}", 1, 6, "  ASK {\n       ^\n"},
		// Lines end at LF, CR LF or CR alone, as Parse counts them.
		{"CRLFSecondLine", "ASK {\r\n ?s }", 2, 5, "   ?s }\n      ^\n"},
		{"CRAlone", "SELECT *\r# c\rWHERE {\r ?x ?y }", 4, 8, "   ?x ?y }\n         ^\n"},
		{"CRAloneFirstLine", "ASK {\r}", 1, 6, "  ASK {\n       ^\n"},
		{"CRAloneNoSuchLine", "ASK {\r}", 3, 1, ""},
		{"PastEnd", "ASK {", 1, 99, "  ASK {\n       ^\n"},
		{"NoSuchLine", "ASK {", 2, 1, ""},
		{"LineZero", "ASK {", 0, 1, ""},
		{"ByteOrderMark", "\uFEFFASK {", 1, 6, "  ASK {\n       ^\n"},
		{"LongMiddle", long, 1, 101,
			"  ..." + strings.Repeat("a", 40) + "X" + strings.Repeat("b", 39) + "...\n  " + strings.Repeat(" ", 43) + "^\n"},
		{"LongStart", long, 1, 1, "  " + long[:80] + "...\n  ^\n"},
		{"LongEnd", long, 1, 202, "  ..." + long[len(long)-80:] + "\n  " + strings.Repeat(" ", 83) + "^\n"},
		// Control characters and bytes that are not UTF-8 are escaped (they
		// were written raw to the terminal); the caret is under the
		// character of the column as shown.
		{"Control", "ASK { \x1b[31m \x07 }", 1, 7, "  ASK { \\x1b[31m \\x07 }\n        ^\n"},
		{"ControlBeforeCaret", "ASK {\x1b x", 1, 8, "  ASK {\\x1b x\n            ^\n"},
		{"NotUTF8", "ASK \xff\xfe x", 1, 8, "  ASK \\xff\\xfe x\n               ^\n"},
		{"C1", "ASK \u0085 x", 1, 7, "  ASK \\u0085 x\n             ^\n"},
		{"LongMultibyte", strings.Repeat("é", 200), 1, 100,
			"  ..." + strings.Repeat("é", 80) + "...\n  " + strings.Repeat(" ", 43) + "^\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parser.Excerpt(tt.text, tt.line, tt.col); got != tt.want {
				t.Errorf("Excerpt(%d:%d) =\n%q\nwant\n%q", tt.line, tt.col, got, tt.want)
			}
		})
	}
}

// TestParse_LongTokensKeepMessagesShort: a syntax error message quotes at
// most a bounded part of a token, however long the token is, and never
// splits a character, while its line and column stay exact.
func TestParse_LongTokensKeepMessagesShort(t *testing.T) {
	word := strings.Repeat("é", 100000)
	tests := []struct {
		name, query string
		col         int
	}{
		{"UnexpectedWord", "SELECT * { ?s ?p " + word + " }", 18},
		{"UnknownFunction", "SELECT * { ?s ?p ?o FILTER(" + word + "(?o)) }", 28},
		{"CustomAggregate", "SELECT * { ?s ?p ?o FILTER(<urn:" + word + ">(DISTINCT ?o)) }", 100035},
		{"VariableInScope", "SELECT * { ?s ?p ?" + word + " BIND(1 AS ?" + word + ") }", 100030},
		{"UndefinedPrefix", "SELECT * { ?s ?p " + word + ":x }", 18},
		{"RelativeIRI", "SELECT * { ?s ?p <" + word + "> }", 18},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parser.Parse(tt.query, parser.DefaultOptions())
			var se *parser.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse: %v, want a *SyntaxError", err)
			}
			if se.Line != 1 || se.Col != tt.col {
				t.Errorf("position %d:%d, want 1:%d", se.Line, se.Col, tt.col)
			}
			if n := utf8.RuneCountInString(se.Msg); n > 300 || !utf8.ValidString(se.Msg) {
				t.Errorf("message of %d characters (valid UTF-8: %v): %.300s", n, utf8.ValidString(se.Msg), se.Msg)
			}
		})
	}
}
