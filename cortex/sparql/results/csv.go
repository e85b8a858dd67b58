package results

import (
	"fmt"
	"io"
	"strings"

	"github.com/cayleygraph/quad"
)

// CSV returns the SPARQL 1.1 Query Results CSV Format (text/csv, ".csv").
//
// CSV is lossy: a field holds only the IRI, the lexical form of a literal
// (language tag and datatype are dropped) or "_:label" for a blank node, and
// an unbound variable is indistinguishable from an empty literal. Fields
// holding '"', ',', CR or LF are quoted per RFC 4180, and so is the one
// empty field of a row of one variable ("", not an empty line, which common
// CSV readers skip); lines end with CRLF. A row of no variables, and the
// header of none, can only be an empty line: Python's csv module (so
// rdflib) and Jena read it as a row, Go's encoding/csv skips it.
//
// The reader therefore has to guess (see ReadCSV); compare a CSV file with
// a result passed through CSVView.
func CSV() Format {
	return Format{
		Name:         "csv",
		MediaType:    "text/csv",
		Extensions:   []string{".csv"},
		NewWriter:    NewCSVWriter,
		WriteBoolean: WriteCSVBoolean,
		Read:         ReadCSV,
	}
}

type csvWriter struct{ rowWriter }

// NewCSVWriter returns a streaming CSV results writer for vars; the header
// line (names without '?') is written at once (buffered).
func NewCSVWriter(w io.Writer, vars []string) (Writer, error) {
	if err := checkVars(vars); err != nil {
		return nil, fmt.Errorf("new csv writer: %w", err)
	}
	cw := &csvWriter{newRowWriter(w, vars)}
	var b []byte
	for i, v := range vars {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCSVField(b, v)
	}
	if len(vars) == 1 && (vars[0] == "true" || vars[0] == "false" || vars[0] == askResultVar) {
		// Quote it so the header is not read back as (part of) a boolean
		// result.
		b = append(append([]byte{'"'}, b...), '"')
	}
	b = append(b, '\r', '\n')
	cw.bw.Write(b)
	return cw, nil
}

func (cw *csvWriter) Write(row Row) error { return cw.writeRow(row, appendCSVRow) }

func (cw *csvWriter) Close() error { return cw.close("") }

func appendCSVRow(b []byte, row Row) ([]byte, error) {
	if len(row) == 1 && (row[0] == nil || lexical(row[0]) == "") {
		// One empty field: quoted, since an empty line is skipped by
		// common CSV readers (encoding/csv, Python's csv.DictReader).
		return append(b, '"', '"', '\r', '\n'), nil
	}
	for i, v := range row {
		if i > 0 {
			b = append(b, ',')
		}
		if v != nil {
			b = appendCSVField(b, lexical(v))
		}
	}
	return append(b, '\r', '\n'), nil
}

// WriteCSVBoolean writes "true" or "false" and CRLF. (The W3C note defines no
// CSV form for ASK results; this follows common practice.)
func WriteCSVBoolean(w io.Writer, b bool) error {
	_, err := fmt.Fprintf(w, "%t\r\n", b)
	return err
}

func appendCSVField(b []byte, s string) []byte {
	if !strings.ContainsAny(s, "\",\r\n") {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}

// ReadCSV reads a whole SPARQL CSV results document (CRLF or LF line ends).
// Because CSV drops term kinds, each non-empty field is guessed: "_:label"
// becomes a blank node, a string that looks like an absolute IRI (a scheme,
// ':' and no white space, '<', '>' or '"') becomes an IRI, anything else a
// plain literal (quad.String; numbers are not recognised). An empty field is
// unbound.
//
// Two forms are read as a boolean (ASK) result: the single unquoted line
// "true" or "false" (as WriteCSVBoolean writes it), and Jena's form, the
// unquoted header "_askResult" followed by exactly one unquoted line "true"
// or "false" (Jena's reader also accepts "yes" and "no", in any case; so
// does this one; spaces around it are part of the field). Jena writes a SELECT result binding a sole variable
// _askResult to such a value in the same way, and reads it back as a
// boolean; so does ReadCSV. This package's writer quotes a sole header
// "_askResult" (as it quotes a sole "true" or "false"), so what it writes
// reads back as a SELECT result.
//
// A leading byte order mark (U+FEFF, as Excel writes it) is skipped: it
// would otherwise be read as the start of the first variable's name, which
// SPARQL allows.
//
// An empty line is a row: of one unbound variable (as Jena writes it; this
// package's writer writes ""), or of no variables (the only way to write
// one); an empty first line is the header of no variables. A quoted empty
// field is a field, never an empty line.
func ReadCSV(r io.Reader) (*Result, error) {
	data, err := readDocument(r, "csv")
	if err != nil {
		return nil, err
	}
	data = trimBOM(data)
	records, err := parseCSV(string(data))
	if err != nil {
		return nil, err
	}
	if len(records) == 0 {
		return nil, &SyntaxError{Format: "csv", Line: 1, Col: 1, Msg: "missing header line"}
	}
	if len(records) == 1 && len(records[0].fields) == 1 && !records[0].quoted {
		switch records[0].fields[0] {
		case "true", "false":
			b := records[0].fields[0] == "true"
			return &Result{Boolean: &b}, nil
		}
	}
	if len(records) == 2 && len(records[0].fields) == 1 && !records[0].quoted && records[0].fields[0] == askResultVar &&
		len(records[1].fields) == 1 && !records[1].quoted && strings.TrimSpace(records[1].fields[0]) == records[1].fields[0] {
		if b, ok := jenaBoolean(records[1].fields[0]); ok {
			return &Result{Boolean: &b}, nil
		}
	}
	vars := records[0].fields
	if records[0].empty() {
		vars = []string{}
	}
	if err := checkVars(vars); err != nil {
		return nil, &SyntaxError{Format: "csv", Line: 1, Col: 1, Msg: err.Error()}
	}
	res := &Result{Vars: vars, Rows: make([]Row, 0, len(records)-1)}
	for _, rec := range records[1:] {
		fields := rec.fields
		if len(vars) == 0 && rec.empty() {
			fields = nil
		}
		if len(fields) != len(vars) {
			return nil, &SyntaxError{Format: "csv", Line: rec.line, Col: 1,
				Msg: fmt.Sprintf("%d fields for %d variables", len(fields), len(vars))}
		}
		row := make(Row, len(vars))
		for i, f := range fields {
			row[i] = csvTerm(f)
		}
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}

func csvTerm(f string) quad.Value {
	switch {
	case f == "":
		return nil
	case strings.HasPrefix(f, "_:") && len(f) > 2:
		return quad.BNode(f[2:])
	case looksLikeIRI(f):
		return quad.IRI(f)
	}
	return quad.String(f)
}

// looksLikeIRI reports whether s starts with a URI scheme and ':' and holds
// no white space, '<', '>' or '"'.
func looksLikeIRI(s string) bool {
	colon := strings.IndexByte(s, ':')
	if colon < 1 {
		return false
	}
	for i := 0; i < colon; i++ {
		c := s[i]
		alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alpha && (i == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	for _, r := range s[colon+1:] {
		if r <= 0x20 || r == '<' || r == '>' || r == '"' || r == 0x7F {
			return false
		}
	}
	return true
}

// CSVView returns r as it reads back after a CSV round trip: every term
// reduced as ReadCSV guesses it. The conformance runner compares an expected
// .csv file with CSVView(actual). A boolean result is returned unchanged.
func CSVView(r *Result) *Result {
	if r.Boolean != nil {
		b := *r.Boolean
		return &Result{Boolean: &b}
	}
	out := &Result{Vars: append([]string{}, r.Vars...), Rows: make([]Row, len(r.Rows))}
	for i, row := range r.Rows {
		nr := make(Row, len(row))
		for j, v := range row {
			if v == nil {
				continue
			}
			if n, msg := normTerm(v); msg == "" {
				nr[j] = csvTerm(lexical(n))
			}
		}
		out.Rows[i] = nr
	}
	return out
}

type csvRecord struct {
	fields []string
	line   int
	quoted bool // whether any field was quoted
}

// empty reports whether the record is an empty line: no field, as the
// header of no variables and their rows are written. A quoted empty
// field ("") is one field.
func (r csvRecord) empty() bool {
	return len(r.fields) == 1 && r.fields[0] == "" && !r.quoted
}

// parseCSV splits data into RFC 4180 records. A final line end is optional;
// LF alone is accepted as a line end.
func parseCSV(data string) ([]csvRecord, error) {
	var records []csvRecord
	line, col := 1, 1
	i := 0
	for i < len(data) {
		rec := csvRecord{line: line}
		for {
			var field strings.Builder
			if i < len(data) && data[i] == '"' {
				rec.quoted = true
				qLine, qCol := line, col
				i++
				col++
				closed := false
				for i < len(data) {
					c := data[i]
					if c == '"' {
						if i+1 < len(data) && data[i+1] == '"' {
							field.WriteByte('"')
							i += 2
							col += 2
							continue
						}
						i++
						col++
						closed = true
						break
					}
					field.WriteByte(c)
					i++
					if c == '\n' {
						line++
						col = 1
					} else if c < 0x80 || c >= 0xC0 {
						col++
					}
				}
				if !closed {
					return nil, &SyntaxError{Format: "csv", Line: qLine, Col: qCol, Msg: "unterminated quoted field"}
				}
				if i < len(data) && data[i] != ',' && data[i] != '\r' && data[i] != '\n' {
					return nil, &SyntaxError{Format: "csv", Line: line, Col: col, Msg: "unexpected character after quoted field"}
				}
			} else {
				for i < len(data) && data[i] != ',' && data[i] != '\r' && data[i] != '\n' {
					if data[i] == '"' {
						return nil, &SyntaxError{Format: "csv", Line: line, Col: col, Msg: "quote in unquoted field"}
					}
					field.WriteByte(data[i])
					if data[i] < 0x80 || data[i] >= 0xC0 {
						col++
					}
					i++
				}
			}
			rec.fields = append(rec.fields, field.String())
			if i < len(data) && data[i] == ',' {
				i++
				col++
				continue
			}
			break
		}
		// At end of data or a line end.
		if i < len(data) && data[i] == '\r' {
			i++
			if i >= len(data) || data[i] != '\n' {
				return nil, &SyntaxError{Format: "csv", Line: line, Col: col, Msg: "carriage return not followed by line feed"}
			}
		}
		if i < len(data) && data[i] == '\n' {
			i++
		}
		line++
		col = 1
		records = append(records, rec)
	}
	return records, nil
}
