package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/cortexgraph/cortex/internal/pathtext"
)

// Every command that prints a result prints it as a table (for people) or
// as JSON (for programs): --format table|json, or --json. Commands whose
// --format names an RDF format (import, export) have --json only.

// Output formats.
const (
	formatTable = "table"
	formatJSON  = "json"
)

// outputChoice is the value of an output --format flag.
type outputChoice struct{ v string }

func (o *outputChoice) Set(s string) error {
	switch s = statusWord(s); s {
	case formatTable, formatJSON:
		o.v = s
		return nil
	}
	return errors.New("want table or json")
}

func (o *outputChoice) String() string { return o.v }

// outputFlags returns the flags of a command that prints a result:
// --format table|json (-f) and its alias --json.
func outputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.GenericFlag{Name: "format", Aliases: []string{"f"}, Usage: "output format: table|json", Value: &outputChoice{v: formatTable}},
		&cli.BoolFlag{Name: "json", Usage: "alias of --format json"},
	}
}

// summaryJSONFlag returns the --json flag of the commands whose --format
// is an RDF format (import, export, findings import): the way to ask for
// their summary as JSON.
func summaryJSONFlag() cli.Flag {
	return &cli.BoolFlag{Name: "json", Usage: "print the summary as JSON"}
}

// outputFormat returns how the command prints its result: formatTable or
// formatJSON. --json with another --format is a usage error.
func outputFormat(c *cli.Context) (string, error) {
	f := formatTable
	oc, hasFormat := c.Generic("format").(*outputChoice)
	if hasFormat {
		f = oc.v
	}
	if c.Bool("json") {
		if hasFormat && c.IsSet("format") && f != formatJSON {
			return "", usagef("--json conflicts with --format %s", f)
		}
		f = formatJSON
	}
	return f, nil
}

// printResult prints v as JSON or calls table, as the command's output
// flags ask.
func printResult(c *cli.Context, w io.Writer, v interface{}, table func() error) error {
	f, err := outputFormat(c)
	if err != nil {
		return err
	}
	if f == formatJSON {
		return writeJSON(w, v)
	}
	return table()
}

// outWriter is cortexctl's standard output. It records the first error
// of a write to it, which run returns if the command returned none: a
// command whose output was lost (a full disk, a file closed under it)
// exits 1, also where it printed without checking each write.
type outWriter struct {
	w   io.Writer
	err error
}

func (o *outWriter) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	if err != nil && o.err == nil {
		o.err = err
	}
	return n, err
}

// writeJSON writes v as indented JSON, without HTML escaping ("<http://s>",
// not "\u003chttp://s\u003e").
func writeJSON(w io.Writer, v interface{}) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// maxCell is the width, in characters, beyond which table cells are cut
// (--format json prints every value whole).
const maxCell = 60

// cell renders s for a table or a one-line message: control characters
// and bidirectional formatting characters escaped (a newline as \n, a tab
// as \t, others as \x.. or \u....; bytes that are not UTF-8 as \x..), and
// cut to maxCell characters with "…".
func cell(s string) string {
	var b strings.Builder
	n, cut := 0, -1 // runes so far; where to cut (at most maxCell-1 runes before it)
	for i := 0; i < len(s); {
		part, size := escapeRune(s[i:])
		i += size
		pn := utf8.RuneCountInString(part)
		if cut < 0 && n+pn > maxCell-1 {
			cut = b.Len()
		}
		if n += pn; n > maxCell {
			return b.String()[:cut] + "…"
		}
		b.WriteString(part)
	}
	return b.String()
}

// maxQuoted is the most characters of a quoted value (Go syntax, with
// its quotes) that an error message shows whole; a longer one is cut to
// quotedKeep characters and its length (cutQuoted).
const (
	maxQuoted  = 200
	quotedKeep = 60
)

// quoted matches a value quoted in Go syntax ("a\"b").
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// cutQuoted returns msg with each quoted value longer than maxQuoted
// characters cut to its start and its length: `team "aaaa…" (102400
// bytes)`, so that a hostile value (an id of 100 KB) does not fill the
// terminal. Messages of ordinary values are returned unchanged.
func cutQuoted(msg string) string {
	if len(msg) <= maxQuoted {
		return msg
	}
	return quoted.ReplaceAllStringFunc(msg, func(q string) string {
		if utf8.RuneCountInString(q) <= maxQuoted {
			return q
		}
		v, err := strconv.Unquote(q)
		if err != nil {
			return q
		}
		// Cut the quoted form at a character, not inside an escape.
		var b strings.Builder
		n := 0
		for i := 1; i < len(q)-1 && n < quotedKeep; {
			size := 1
			if q[i] == '\\' {
				size = escapeLen(q[i:])
			} else {
				_, size = utf8.DecodeRuneInString(q[i:])
			}
			b.WriteString(q[i : i+size])
			i += size
			n++
		}
		return fmt.Sprintf(`"%s…" (%d bytes)`, b.String(), len(v))
	})
}

// escapeLen returns the length of the escape sequence (Go syntax) that s
// starts with.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	n := 2
	switch s[1] {
	case 'x':
		n = 4
	case 'u':
		n = 6
	case 'U':
		n = 10
	case '0', '1', '2', '3', '4', '5', '6', '7':
		n = 4
	}
	return min(n, len(s))
}

// oneLine renders s for a message line as cell does, escaped, but whole (a
// file path in a message must not be cut).
func oneLine(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		part, size := escapeRune(s[i:])
		i += size
		b.WriteString(part)
	}
	return b.String()
}

// escapeRune returns the first character of s as a table shows it, and its
// length in s.
func escapeRune(s string) (string, int) {
	r, size := utf8.DecodeRuneInString(s)
	switch {
	case r == utf8.RuneError && size == 1:
		return fmt.Sprintf(`\x%02x`, s[0]), 1
	case r == '\n':
		return `\n`, size
	case r == '\r':
		return `\r`, size
	case r == '\t':
		return `\t`, size
	case r < 0x20 || r == 0x7f:
		return fmt.Sprintf(`\x%02x`, r), size
	case r >= 0x80 && r <= 0x9f, r == '\u2028', r == '\u2029', bidiControl(r):
		return fmt.Sprintf(`\u%04x`, r), size
	}
	return s[:size], size
}

// bidiControl reports whether r is a bidirectional formatting character
// (an embedding, override or isolate, or a directional mark), which
// reorders how the text after it is shown: a value could hide or forge
// the rest of its line.
func bidiControl(r rune) bool {
	return r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069' || r == '\u200e' || r == '\u200f' || r == '\u061c'
}

// table writes aligned columns; every cell goes through cell, so no value
// can break a row or widen the table beyond maxCell per column.
type table struct {
	tw    *tabwriter.Writer
	right bool
}

// newTable starts a table on w with the given column headers (none: no
// header line). rightAlign aligns every column to the right (for counts).
func newTable(w io.Writer, rightAlign bool, header ...string) *table {
	var flags uint
	if rightAlign {
		flags = tabwriter.AlignRight
	}
	t := &table{tw: tabwriter.NewWriter(w, 0, 4, 2, ' ', flags), right: rightAlign}
	if len(header) > 0 {
		t.raw(header)
	}
	return t
}

// row adds a row.
func (t *table) row(cells ...string) {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = cell(c)
	}
	t.raw(out)
}

func (t *table) raw(cells []string) {
	end := "\n" // the last column is not padded
	if t.right {
		end = "\t\n" // but right-aligned like the others
	}
	fmt.Fprint(t.tw, strings.Join(cells, "\t")+end)
}

// flush writes the table.
func (t *table) flush() error { return t.tw.Flush() }

// pathText returns a file path, or another value a message names that is
// no id (a TEAMDEF, a --data directory, a --listen address), as messages
// name it: as it is if it is plain text (UTF-8 of printable
// characters, spaces only between others, no double quote), quoted (%q)
// otherwise, as teammanager.IDText names an id: a path with a newline, an
// escape sequence, bytes that are not UTF-8 or a quote can neither garble
// nor forge the message, nor reach the terminal raw. It is
// pathtext.Quote, which the library's messages use too.
func pathText(p string) string { return pathtext.Quote(p) }

// quotePath returns err, if it is an *fs.PathError (what os.Open, os.Stat
// ... return) or an *os.LinkError (os.Rename), with its paths named by
// pathText; another error as it is (pathtext.Error).
func quotePath(err error) error { return pathtext.Error(err) }
