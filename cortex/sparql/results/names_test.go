package results_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/results"
)

// Names made of the characters at both ends of every range of PN_CHARS_BASE
// and of the ranges PN_CHARS adds.
const (
	pnBaseEnds = "AZaz\u00C0\u00D6\u00D8\u00F6\u00F8\u02FF\u0370\u037D\u037F\u1FFF\u200C\u200D" +
		"\u2070\u218F\u2C00\u2FEF\u3001\uD7FF\uF900\uFDCF\uFDF0\uFFFD\U00010000\U000EFFFF"
	varMarks = "09_\u00B7\u0300\u036F\u203F\u2040" // VARNAME: PN_CHARS but '-'
)

// TestWriter_VariableNameBoundaries checks SPARQL VARNAME at the ends of the
// character ranges in every writer: accepted as before the classes moved to
// internal/lex; characters just outside the ranges and invalid UTF-8 are not.
func TestWriter_VariableNameBoundaries(t *testing.T) {
	good := []string{"a", "_", "0", "9a", pnBaseEnds, "a" + varMarks, "\uFFFD"}
	bad := []string{"\u00B7", "\u0300a", "a-b", "a.b", "a\u00D7", "a\u2041", "a\uFFFE", "\U000F0000", "a\xff", "\xef\xbf\xbd\xff"}
	for _, f := range allFormats(t) {
		for _, v := range good {
			t.Run(f.Name+"/good/"+v, func(t *testing.T) {
				if _, err := f.NewWriter(io.Discard, []string{v}); err != nil {
					t.Errorf("NewWriter(%q): %v", v, err)
				}
			})
		}
		for _, v := range bad {
			t.Run(f.Name+"/bad/"+v, func(t *testing.T) {
				if _, err := f.NewWriter(io.Discard, []string{v}); !errors.Is(err, results.ErrInvalidVariable) {
					t.Errorf("NewWriter(%q) = %v, want ErrInvalidVariable", v, err)
				}
			})
		}
	}
}

// TestTSV_BlankLabelBoundaries checks BLANK_NODE_LABEL at the ends of the
// character ranges: the TSV writer writes them, ReadTSV reads them back, and
// both refuse labels with characters just outside the ranges.
func TestTSV_BlankLabelBoundaries(t *testing.T) {
	good := []string{"a", "_", "0", pnBaseEnds, "a-" + varMarks + "." + pnBaseEnds, "a..b", "\uFFFD"}
	for _, l := range good {
		t.Run("good/"+l, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := results.NewTSVWriter(&buf, []string{"x"})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(results.Row{quad.BNode(l)}); err != nil {
				t.Fatalf("Write(_:%s): %v", l, err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			r, err := results.ReadTSV(&buf)
			if err != nil {
				t.Fatalf("ReadTSV: %v", err)
			}
			if len(r.Rows) != 1 || r.Rows[0][0] != quad.BNode(l) {
				t.Fatalf("read back %v, want _:%s", r.Rows, l)
			}
		})
	}
	bad := []string{"-a", "\u00B7", "a.", "a\u00D7", "a\u2041", "a\uFFFE", "a:b", "a\xff", "\xff"}
	for _, l := range bad {
		t.Run("bad/"+l, func(t *testing.T) {
			w, err := results.NewTSVWriter(io.Discard, []string{"x"})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(results.Row{quad.BNode(l)}); !errors.Is(err, results.ErrInvalidTerm) {
				t.Errorf("Write(_:%s) = %v, want ErrInvalidTerm", l, err)
			}
			if r, err := results.ReadTSV(strings.NewReader("?x\n_:" + l + "\n")); err == nil {
				t.Errorf("ReadTSV(_:%s) = %v, want an error", l, r.Rows)
			}
		})
	}
}

// TestTableWriter_LocalNameBoundaries checks that the table writer shows an
// IRI as a prefixed name exactly when its local part is a simple PN_LOCAL.
func TestTableWriter_LocalNameBoundaries(t *testing.T) {
	tests := []struct {
		local string
		short bool
	}{
		{"", true},
		{"a", true},
		{"0a", true},
		{pnBaseEnds, true},
		{"a-" + varMarks + "." + pnBaseEnds, true},
		{"\uFFFD", true},
		{"a.", false},
		{"-a", false},
		{"\u00B7", false},
		{"a\u00D7", false},
		{"a\uFFFE", false},
		{"a/b", false},
	}
	for _, tt := range tests {
		t.Run(tt.local, func(t *testing.T) {
			var buf bytes.Buffer
			opts := results.DefaultTableOptions().WithPrefixes(map[string]string{"ex": "http://ex.org/"})
			w, err := results.NewTableWriter(&buf, []string{"x"}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(results.Row{quad.IRI("http://ex.org/" + tt.local)}); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(buf.String(), " ex:"+tt.local+" "); got != tt.short {
				t.Errorf("prefixed name shown = %v, want %v:\n%s", got, tt.short, buf.String())
			}
		})
	}
}

// TestReadTSV_EscapeErrors checks the messages of bad UCHAR escapes, now
// those of the RDF readers (internal/lex).
func TestReadTSV_EscapeErrors(t *testing.T) {
	tests := []struct{ name, doc, msg string }{
		{"ShortInIRI", "?a\n<http://x/\\u12>\n", `incomplete escape sequence: "\\u12>"`},
		{"ShortInString", "?a\n\"\\u12\"\n", `incomplete escape sequence: "\\u12\""`},
		{"NotU", "?a\n<http://x/\\x>\n", `bad escape sequence \x: "\\x>"`},
		{"BadDigit", "?a\n\"\\u00G0\"\n", `bad hex digit 'G' in escape sequence: "\\u00G0"`},
		{"BadLongDigit", "?a\n\"\\U0001F60x\"\n", `bad hex digit 'x' in escape sequence: "\\U0001F60x"`},
		{"Surrogate", "?a\n\"\\uD800\"\n", `escape sequence is not a Unicode scalar value: "\\uD800"`},
		{"BadECHAR", "?a\n\"\\q\"\n", `invalid escape "\\q"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := results.ReadTSV(strings.NewReader(tt.doc))
			if !errors.Is(err, results.ErrSyntax) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("ReadTSV(%q) = %v, want a syntax error containing %q", tt.doc, err, tt.msg)
			}
		})
	}
}
