package results

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/internal/lex"
)

// DefaultTableBufferRows is the default number of rows a table writer buffers
// to compute column widths.
const DefaultTableBufferRows = 1000

// TableOptions configure the human-readable table format. Build them with
// DefaultTableOptions and the With methods; the zero value is equivalent to
// DefaultTableOptions().
type TableOptions struct {
	prefixes   map[string]string
	bufferRows int
}

// DefaultTableOptions returns options with no prefixes and a buffer of
// DefaultTableBufferRows rows.
func DefaultTableOptions() TableOptions {
	return TableOptions{bufferRows: DefaultTableBufferRows}
}

// WithPrefixes returns a copy of o that shows IRIs starting with one of the
// namespaces as prefixed names (prefix → namespace IRI, e.g. "ex" →
// "http://example.org/"). The longest matching namespace wins; the local part
// must be a valid Turtle local name, otherwise the IRI is shown in full.
// Default: none.
func (o TableOptions) WithPrefixes(prefixes map[string]string) TableOptions {
	o.prefixes = make(map[string]string, len(prefixes))
	for p, ns := range prefixes {
		o.prefixes[p] = ns
	}
	return o
}

// WithBufferRows returns a copy of o that buffers up to n rows before fixing
// column widths; 0 means DefaultTableBufferRows (the default), a negative n
// makes NewTableWriter fail.
func (o TableOptions) WithBufferRows(n int) TableOptions {
	o.bufferRows = n
	return o
}

// Table returns the human-readable "table" format (text/plain) configured by
// opts. It cannot be read back (Read is nil).
//
// The writer buffers the first rows (1000 by default, see WithBufferRows) to
// size the columns, then streams: a later cell wider than its column is
// printed in full and pushes the rest of its line to the right. Terms are
// shown compactly: IRIs as prefixed names when a prefix applies, otherwise
// <iri>; literals quoted with escapes (so every row is one line; control
// characters, line separators and bidirectional formatting characters of
// every term are \u escapes, never raw on a terminal), numbers and
// booleans of the canonical Turtle shapes bare, unbound as an empty cell.
// A boolean result prints "true" or "false".
func Table(opts TableOptions) Format {
	return Format{
		Name:       "table",
		MediaType:  "text/plain",
		Extensions: nil,
		NewWriter: func(w io.Writer, vars []string) (Writer, error) {
			return NewTableWriter(w, vars, opts)
		},
		WriteBoolean: func(w io.Writer, b bool) error {
			_, err := fmt.Fprintf(w, "%t\n", b)
			return err
		},
	}
}

type tableWriter struct {
	bw      *bufio.Writer
	vars    []string
	opts    TableOptions
	ns      []nsEntry
	pending [][]string // rendered rows not yet written
	widths  []int      // nil until fixed
	n       int
	closed  bool
	lineBuf []byte
}

type nsEntry struct{ prefix, ns string }

// NewTableWriter returns a table writer for vars configured by opts. Output
// is buffered; Close flushes it (and, if fewer rows than the buffer size were
// written, is the first point at which anything is written).
func NewTableWriter(w io.Writer, vars []string, opts TableOptions) (Writer, error) {
	if err := checkVars(vars); err != nil {
		return nil, fmt.Errorf("new table writer: %w", err)
	}
	if opts.bufferRows == 0 {
		opts.bufferRows = DefaultTableBufferRows
	}
	if opts.bufferRows < 1 {
		return nil, fmt.Errorf("new table writer: buffer rows must not be negative, got %d", opts.bufferRows)
	}
	tw := &tableWriter{bw: bufio.NewWriter(w), vars: append([]string(nil), vars...), opts: opts}
	for p, ns := range opts.prefixes {
		tw.ns = append(tw.ns, nsEntry{p, ns})
	}
	// Longest namespace first; ties by prefix for determinism.
	sort.Slice(tw.ns, func(i, j int) bool {
		if len(tw.ns[i].ns) != len(tw.ns[j].ns) {
			return len(tw.ns[i].ns) > len(tw.ns[j].ns)
		}
		return tw.ns[i].prefix < tw.ns[j].prefix
	})
	return tw, nil
}

func (tw *tableWriter) Write(row Row) error {
	if tw.closed {
		return ErrClosed
	}
	row, err := normRow(row, tw.vars, tw.n)
	if err != nil {
		return err
	}
	tw.n++
	cells := make([]string, len(row))
	for i, v := range row {
		if v != nil {
			cells[i] = tw.cell(v)
		}
	}
	if tw.widths == nil {
		tw.pending = append(tw.pending, cells)
		if len(tw.pending) >= tw.opts.bufferRows {
			return tw.flushPending()
		}
		return nil
	}
	return tw.line(cells)
}

func (tw *tableWriter) flushPending() error {
	tw.widths = make([]int, len(tw.vars))
	for i, v := range tw.vars {
		tw.widths[i] = displayWidth(escapeControls(v)) + 1
	}
	for _, cells := range tw.pending {
		for i, c := range cells {
			if w := displayWidth(c); w > tw.widths[i] {
				tw.widths[i] = w
			}
		}
	}
	head := make([]string, len(tw.vars))
	for i, v := range tw.vars {
		head[i] = "?" + escapeControls(v)
	}
	tw.line(head)
	tw.separator()
	for _, cells := range tw.pending {
		if err := tw.line(cells); err != nil {
			return err
		}
	}
	tw.pending = nil
	return nil
}

func (tw *tableWriter) separator() {
	b := tw.lineBuf[:0]
	b = append(b, '|')
	for _, w := range tw.widths {
		b = append(b, strings.Repeat("-", w+2)...)
		b = append(b, '|')
	}
	b = append(b, '\n')
	tw.lineBuf = b
	tw.bw.Write(b)
}

func (tw *tableWriter) line(cells []string) error {
	b := tw.lineBuf[:0]
	b = append(b, '|')
	for i, c := range cells {
		b = append(b, ' ')
		b = append(b, c...)
		for pad := tw.widths[i] - displayWidth(c); pad > 0; pad-- {
			b = append(b, ' ')
		}
		b = append(b, ' ', '|')
	}
	b = append(b, '\n')
	tw.lineBuf = b
	_, err := tw.bw.Write(b)
	return err
}

func (tw *tableWriter) Close() error {
	if tw.closed {
		return nil
	}
	tw.closed = true
	if tw.widths == nil {
		tw.flushPending()
	}
	return tw.bw.Flush()
}

// cell renders a normalised term compactly; no character escapeControls
// escapes is left raw.
func (tw *tableWriter) cell(v quad.Value) string {
	switch t := v.(type) {
	case quad.IRI:
		return tw.iri(string(t))
	case quad.BNode:
		return "_:" + escapeControls(string(t))
	case quad.String:
		return escapeControls(string(appendQuoted(nil, string(t))))
	case quad.LangString:
		return escapeControls(string(appendQuoted(nil, string(t.Value)))) + "@" + t.Lang
	case quad.TypedString:
		lex := string(t.Value)
		switch t.Type {
		case xsdInteger, xsdDecimal, xsdDouble:
			if numberType(lex) == t.Type {
				return lex
			}
		case xsdBoolean:
			if lex == "true" || lex == "false" {
				return lex
			}
		}
		return escapeControls(string(appendQuoted(nil, lex))) + "^^" + tw.iri(string(t.Type))
	}
	return ""
}

func (tw *tableWriter) iri(s string) string {
	for _, e := range tw.ns {
		if strings.HasPrefix(s, e.ns) && isLocalName(s[len(e.ns):]) && strings.IndexFunc(e.prefix+s[len(e.ns):], terminalControl) < 0 {
			return e.prefix + ":" + s[len(e.ns):]
		}
	}
	return escapeControls(string(appendIRIRef(nil, s)))
}

// isLocalName reports whether s is a simple Turtle PN_LOCAL (no escapes,
// percent encodings or ':'): empty, or shaped as a blank node label
// (PN_CHARS_U or a digit first, then PN_CHARS or '.', not ending with '.').
func isLocalName(s string) bool {
	return s == "" || lex.IsBlankLabel(s)
}

// terminalControl reports whether r, shown raw on a terminal, could break
// or garble a row: a C0 or C1 control (U+009B starts an escape sequence),
// DEL, a line or paragraph separator, or a bidirectional formatting
// character (an embedding, override or isolate, or a directional mark,
// which reorders the text after it).
func terminalControl(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r >= '\u202a' && r <= '\u202e' ||
		r >= '\u2066' && r <= '\u2069' || r == '\u200e' || r == '\u200f' || r == '\u061c'
}

// escapeControls writes every terminalControl character of s as a UCHAR
// (\uXXXX), valid in a string literal, an IRIREF and, for the table, a
// blank node label.
func escapeControls(s string) string {
	if strings.IndexFunc(s, terminalControl) < 0 {
		return s
	}
	var b []byte
	for _, r := range s {
		if terminalControl(r) {
			b = lex.AppendUCHAR(b, r)
		} else {
			b = utf8.AppendRune(b, r)
		}
	}
	return string(b)
}

// displayWidth approximates the terminal width of s: combining marks and
// zero-width characters count 0, East Asian wide and fullwidth characters 2,
// everything else 1.
func displayWidth(s string) int {
	w := 0
	for _, r := range s {
		switch {
		case r < 0x300:
			w++
		case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		case isWide(r):
			w += 2
		default:
			w++
		}
	}
	return w
}

func isWide(r rune) bool {
	return r >= 0x1100 && r <= 0x115F || r >= 0x2E80 && r <= 0x303E || r >= 0x3041 && r <= 0x33FF ||
		r >= 0x3400 && r <= 0x4DBF || r >= 0x4E00 && r <= 0x9FFF || r >= 0xA000 && r <= 0xA4CF ||
		r >= 0xAC00 && r <= 0xD7A3 || r >= 0xF900 && r <= 0xFAFF || r >= 0xFE30 && r <= 0xFE4F ||
		r >= 0xFF00 && r <= 0xFF60 || r >= 0xFFE0 && r <= 0xFFE6 || r >= 0x1F300 && r <= 0x1F64F ||
		r >= 0x1F900 && r <= 0x1F9FF || r >= 0x20000 && r <= 0x3FFFD
}
