package results

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/internal/lex"
)

// TSV returns the SPARQL 1.1 Query Results TSV Format
// (text/tab-separated-values, ".tsv").
//
// The header lists "?name" fields; terms are written in N-Triples syntax
// (a subset of Turtle): <iri> with \u escapes for characters IRIREF forbids,
// _:label, and double-quoted literals with \t \n \r (and other controls)
// escaped, so no term contains a raw tab or line break. Numbers are kept in
// full form ("1"^^<...#integer>), never abbreviated: the W3C note only
// recommends ("should") abbreviation, and the full form preserves every
// lexical form exactly. Lines end with LF. A blank node label that is not a
// Turtle BLANK_NODE_LABEL is rejected with a *TermError.
//
// An unbound variable is an empty field (the W3C note), and TSV has no
// quoting: a row of one unbound variable, like a row of no variables (and
// the header of none), is an empty line. That is the only form the note
// allows, and Jena writes and reads it so; ReadTSV reads each empty line
// as such a row. (rdflib 6's TSV reader skips empty lines, so it loses
// these rows; its CSV reader keeps them.)
//
// The reader accepts any Turtle term form the note allows: single or double
// quoted literals with ECHAR/UCHAR escapes, @lang, ^^<iri>, and the
// abbreviated integer, decimal, double and boolean forms (read as
// TypedStrings keeping the lexical form as written). Prefixed names are not
// supported (a TSV result has no prefix declarations).
func TSV() Format {
	return Format{
		Name:         "tsv",
		MediaType:    "text/tab-separated-values",
		Extensions:   []string{".tsv"},
		NewWriter:    NewTSVWriter,
		WriteBoolean: WriteTSVBoolean,
		Read:         ReadTSV,
	}
}

type tsvWriter struct{ rowWriter }

// NewTSVWriter returns a streaming TSV results writer for vars; the header
// line is written at once (buffered).
func NewTSVWriter(w io.Writer, vars []string) (Writer, error) {
	if err := checkVars(vars); err != nil {
		return nil, fmt.Errorf("new tsv writer: %w", err)
	}
	tw := &tsvWriter{newRowWriter(w, vars)}
	var b []byte
	for i, v := range vars {
		if i > 0 {
			b = append(b, '\t')
		}
		b = append(append(b, '?'), v...)
	}
	b = append(b, '\n')
	tw.bw.Write(b)
	return tw, nil
}

func (tw *tsvWriter) Write(row Row) error { return tw.writeRow(row, tw.appendRow) }

func (tw *tsvWriter) Close() error { return tw.close("") }

func (tw *tsvWriter) appendRow(b []byte, row Row) ([]byte, error) {
	for i, v := range row {
		if bn, ok := v.(quad.BNode); ok && !lex.IsBlankLabel(string(bn)) {
			return b, &TermError{Row: tw.n, Var: tw.vars[i], Value: v, Msg: fmt.Sprintf("blank node label %q is not valid in turtle", string(bn))}
		}
	}
	for i, v := range row {
		if i > 0 {
			b = append(b, '\t')
		}
		if v != nil {
			b = appendNTriples(b, v)
		}
	}
	return append(b, '\n'), nil
}

// WriteTSVBoolean writes "true" or "false" and LF. (The W3C note defines no
// TSV form for ASK results; this follows common practice.)
func WriteTSVBoolean(w io.Writer, b bool) error {
	_, err := fmt.Fprintf(w, "%t\n", b)
	return err
}

// ReadTSV reads a whole SPARQL TSV results document (LF or CRLF line ends).
// An empty line is a row of one unbound variable or of no variables (an
// error for more); an empty first line is the header of no variables. A
// leading byte order mark (U+FEFF) is skipped.
//
// Two forms are read as a boolean (ASK) result: the single line "true" or
// "false" (as WriteTSVBoolean writes it), and Jena's form, the header
// "?_askResult" followed by exactly one line "true" or "false" (Jena's
// reader also accepts "yes" and "no", in any case; so does this one). The
// second form is also a SELECT result binding a variable named _askResult
// to one abbreviated xsd:boolean; it is read, as Jena reads it, as the
// boolean. Every other document with a variable _askResult (no row, two
// rows, a value in another form such as "true"^^<...#boolean>, which is how
// this package writes booleans) is a SELECT result.
func ReadTSV(r io.Reader) (*Result, error) {
	data, err := readDocument(r, "tsv")
	if err != nil {
		return nil, err
	}
	data = trimBOM(data)
	lines := strings.Split(string(data), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	if len(lines) == 0 {
		return nil, &SyntaxError{Format: "tsv", Line: 1, Col: 1, Msg: "missing header line"}
	}
	if len(lines) == 1 {
		switch strings.TrimSpace(lines[0]) {
		case "true", "false":
			b := strings.TrimSpace(lines[0]) == "true"
			return &Result{Boolean: &b}, nil
		}
	}
	if len(lines) == 2 && strings.TrimSpace(lines[0]) == "?"+askResultVar {
		if b, ok := jenaBoolean(lines[1]); ok {
			return &Result{Boolean: &b}, nil
		}
	}
	vars := []string{}
	if lines[0] != "" {
		col := 1
		for _, f := range strings.Split(lines[0], "\t") {
			name := strings.TrimSpace(f)
			if !strings.HasPrefix(name, "?") && !strings.HasPrefix(name, "$") {
				return nil, &SyntaxError{Format: "tsv", Line: 1, Col: col, Msg: fmt.Sprintf("header field %q does not start with '?'", truncate(f))}
			}
			vars = append(vars, name[1:])
			col += utf8.RuneCountInString(f) + 1
		}
	}
	if err := checkVars(vars); err != nil {
		return nil, &SyntaxError{Format: "tsv", Line: 1, Col: 1, Msg: err.Error()}
	}
	res := &Result{Vars: vars, Rows: make([]Row, 0, len(lines)-1)}
	for n, l := range lines[1:] {
		lineNo := n + 2
		var fields []string
		if len(vars) > 0 || l != "" {
			fields = strings.Split(l, "\t")
		}
		if len(fields) != len(vars) {
			return nil, &SyntaxError{Format: "tsv", Line: lineNo, Col: 1,
				Msg: fmt.Sprintf("%d fields for %d variables", len(fields), len(vars))}
		}
		row := make(Row, len(vars))
		col := 1
		for i, f := range fields {
			v, err := parseTurtleTerm(f)
			if err != nil {
				return nil, &SyntaxError{Format: "tsv", Line: lineNo, Col: col, Msg: err.Error()}
			}
			row[i] = v
			col += utf8.RuneCountInString(f) + 1
		}
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}

// askResultVar is the variable Jena names in the header of an ASK result
// written as TSV ("?_askResult") or CSV ("_askResult").
const askResultVar = "_askResult"

// jenaBoolean reads the value line of Jena's TSV or CSV form of an ASK
// result: true, yes, false or no in any case, surrounding white space
// ignored (as Jena's readers do).
func jenaBoolean(s string) (b, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes":
		return true, true
	case "false", "no":
		return false, true
	}
	return false, false
}

// parseTurtleTerm parses one TSV field: empty (nil), an IRI, a blank node, a
// quoted literal or an abbreviated number or boolean. Surrounding spaces are
// ignored.
func parseTurtleTerm(f string) (quad.Value, error) {
	s := strings.Trim(f, " ")
	if s == "" {
		return nil, nil
	}
	var v quad.Value
	switch c := s[0]; {
	case c == '<':
		iri, rest, err := parseIRIRef(s)
		if err != nil {
			return nil, err
		}
		if rest != "" {
			return nil, fmt.Errorf("unexpected %q after iri", truncate(rest))
		}
		v = quad.IRI(iri)
	case strings.HasPrefix(s, "_:"):
		if !lex.IsBlankLabel(s[2:]) {
			return nil, fmt.Errorf("malformed blank node label %q", truncate(s))
		}
		v = quad.BNode(s[2:])
	case c == '"' || c == '\'':
		val, rest, err := parseQuotedString(s)
		if err != nil {
			return nil, err
		}
		switch {
		case rest == "":
			v = quad.String(val)
		case rest[0] == '@':
			if !lex.IsLangTag(rest[1:]) {
				return nil, fmt.Errorf("malformed language tag %q", truncate(rest[1:]))
			}
			v = quad.LangString{Value: quad.String(val), Lang: rest[1:]}
		case strings.HasPrefix(rest, "^^<"):
			dt, rest2, err := parseIRIRef(rest[2:])
			if err != nil {
				return nil, err
			}
			if rest2 != "" {
				return nil, fmt.Errorf("unexpected %q after datatype", truncate(rest2))
			}
			v = quad.TypedString{Value: quad.String(val), Type: quad.IRI(dt)}
		case strings.HasPrefix(rest, "^^"):
			return nil, fmt.Errorf("prefixed datatype %q not supported", truncate(rest[2:]))
		default:
			return nil, fmt.Errorf("unexpected %q after literal", truncate(rest))
		}
	case s == "true" || s == "false":
		v = quad.TypedString{Value: quad.String(s), Type: xsdBoolean}
	default:
		dt := numberType(s)
		if dt == "" {
			return nil, fmt.Errorf("unrecognised term %q", truncate(s))
		}
		v = quad.TypedString{Value: quad.String(s), Type: dt}
	}
	n, msg := normTerm(v)
	if msg != "" {
		return nil, fmt.Errorf("%s", msg)
	}
	return n, nil
}

// numberType returns the datatype of a Turtle INTEGER, DECIMAL or DOUBLE
// token, or "" if s is none of them.
func numberType(s string) quad.IRI {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	intDigits := digits()
	fracDigits, dot := 0, false
	if i < len(s) && s[i] == '.' {
		dot = true
		i++
		fracDigits = digits()
	}
	if i == len(s) {
		switch {
		case !dot && intDigits > 0:
			return xsdInteger
		case dot && fracDigits > 0:
			return xsdDecimal
		}
		return ""
	}
	if s[i] != 'e' && s[i] != 'E' || intDigits+fracDigits == 0 {
		return ""
	}
	i++
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if digits() == 0 || i != len(s) {
		return ""
	}
	return xsdDouble
}

// parseIRIRef parses a leading <...> (with UCHAR escapes) from s and returns
// the IRI and the rest of s.
func parseIRIRef(s string) (iri, rest string, err error) {
	var sb strings.Builder
	for i := 1; i < len(s); {
		c := s[i]
		switch {
		case c == '>':
			return sb.String(), s[i+1:], nil
		case c == '\\':
			r, n, err := parseUCHAR(s[i:])
			if err != nil {
				return "", "", err
			}
			sb.WriteRune(r)
			i += n
		case c <= 0x20 || c == '<' || c == '"' || c == '{' || c == '}' || c == '|' || c == '^' || c == '`':
			return "", "", fmt.Errorf("character %q not allowed in iri", c)
		default:
			sb.WriteByte(c)
			i++
		}
	}
	return "", "", fmt.Errorf("unterminated iri")
}

// parseUCHAR decodes the UCHAR at the start of s (lex.UCHAR); its errors
// quote the escape.
func parseUCHAR(s string) (rune, int, error) {
	r, n, err := lex.UCHAR(s)
	if err != nil {
		n = 6
		if len(s) > 1 && s[1] == 'U' {
			n = 10
		}
		return 0, 0, fmt.Errorf("%w: %q", err, s[:min(n, len(s))])
	}
	return r, n, nil
}

// parseQuotedString parses a leading '...' or "..." literal with ECHAR and
// UCHAR escapes and returns its value and the rest of s. Raw line breaks
// are not allowed (and cannot occur in a TSV field anyway).
func parseQuotedString(s string) (val, rest string, err error) {
	q := s[0]
	if strings.HasPrefix(s, string([]byte{q, q, q})) && len(s) > 3 {
		return "", "", fmt.Errorf("long string forms are not allowed in tsv")
	}
	var sb strings.Builder
	for i := 1; i < len(s); {
		c := s[i]
		switch {
		case c == q:
			return sb.String(), s[i+1:], nil
		case c == '\\':
			if i+1 >= len(s) {
				return "", "", fmt.Errorf("truncated escape")
			}
			if c, ok := lex.ECHAR(s[i+1]); ok {
				sb.WriteByte(c)
				i += 2
				continue
			}
			if e := s[i+1]; e != 'u' && e != 'U' {
				return "", "", fmt.Errorf("invalid escape %q", s[i:i+2])
			}
			r, n, err := parseUCHAR(s[i:])
			if err != nil {
				return "", "", err
			}
			sb.WriteRune(r)
			i += n
		case c == '\n' || c == '\r':
			return "", "", fmt.Errorf("raw line break in literal")
		default:
			sb.WriteByte(c)
			i++
		}
	}
	return "", "", fmt.Errorf("unterminated literal")
}
