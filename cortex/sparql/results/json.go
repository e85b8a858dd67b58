package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/internal/lex"
)

// JSON returns the SPARQL 1.1 Query Results JSON Format
// (application/sparql-results+json, ".srj"). The writer streams one binding
// object per line; literals carry "xml:lang" or "datatype" (never datatype
// xsd:string), blank nodes are {"type":"bnode"} with the label as given.
// The reader also accepts the SPARQL 1.0 "typed-literal" type.
func JSON() Format {
	return Format{
		Name:         "json",
		MediaType:    "application/sparql-results+json",
		Extensions:   []string{".srj", ".json"},
		NewWriter:    NewJSONWriter,
		WriteBoolean: WriteJSONBoolean,
		Read:         ReadJSON,
	}
}

type jsonWriter struct {
	rowWriter
	keys [][]byte // pre-encoded `"name":` per variable
}

// NewJSONWriter returns a streaming JSON results writer for vars. The head
// is written at once (buffered); Close writes the trailer and flushes.
func NewJSONWriter(w io.Writer, vars []string) (Writer, error) {
	if err := checkVars(vars); err != nil {
		return nil, fmt.Errorf("new json writer: %w", err)
	}
	jw := &jsonWriter{rowWriter: newRowWriter(w, vars)}
	b := []byte(`{"head":{"vars":[`)
	for i, v := range vars {
		if i > 0 {
			b = append(b, ',')
		}
		b, _ = appendJSONString(b, v) // a variable name: ASCII
		key, _ := appendJSONString(nil, v)
		jw.keys = append(jw.keys, append(key, ':'))
	}
	b = append(b, "]},\n\"results\":{\"bindings\":["...)
	jw.bw.Write(b)
	return jw, nil
}

// Write checks each term as it encodes it (appendJSONTerm), in one pass.
func (jw *jsonWriter) Write(row Row) error { return jw.writeChecked(row, jw.appendRow) }

func (jw *jsonWriter) Close() error { return jw.close("\n]}}\n") }

func (jw *jsonWriter) appendRow(b []byte, row Row) ([]byte, error) {
	if jw.n > 0 {
		b = append(b, ',')
	}
	b = append(b, "\n{"...)
	first := true
	for i, v := range row {
		if v == nil {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, jw.keys[i]...)
		var msg string
		if b, msg = appendJSONTerm(b, v); msg != "" {
			return nil, &TermError{Row: jw.n, Var: jw.vars[i], Value: v, Msg: msg}
		}
	}
	return append(b, '}'), nil
}

// WriteJSONBoolean writes {"head":{},"boolean":b}.
func WriteJSONBoolean(w io.Writer, b bool) error {
	_, err := fmt.Fprintf(w, "{\"head\":{},\"boolean\":%t}\n", b)
	return err
}

// appendJSONTerm appends v as a JSON term object, checking and normalising
// it as normTerm does: it returns normTerm's description of the problem of
// a term that is not valid (and then what it appended is to be dropped).
func appendJSONTerm(b []byte, v quad.Value) ([]byte, string) {
	var ok bool
	switch t := v.(type) {
	case quad.IRI:
		b = append(b, `{"type":"uri","value":`...)
		if b, ok = appendJSONString(b, string(t)); !ok {
			return b, msgIRIUTF8
		}
	case quad.BNode:
		if t == "" {
			return b, msgBNodeEmpty
		}
		b = append(b, `{"type":"bnode","value":`...)
		if b, ok = appendJSONString(b, string(t)); !ok {
			return b, msgBNodeUTF8
		}
	case quad.String:
		b = append(b, `{"type":"literal","value":`...)
		if b, ok = appendJSONString(b, string(t)); !ok {
			return b, msgLiteralUTF8
		}
	case quad.LangString:
		b = append(b, `{"type":"literal","xml:lang":`...)
		b, _ = appendJSONString(b, t.Lang) // checked below, after the value (normTerm's order)
		b = append(b, `,"value":`...)
		if b, ok = appendJSONString(b, string(t.Value)); !ok {
			return b, msgLiteralUTF8
		}
		if !lex.IsLangTag(t.Lang) {
			return b, msgLangTag(t.Lang)
		}
	case quad.TypedString:
		if t.Type == xsdString {
			b = append(b, `{"type":"literal","value":`...)
			if b, ok = appendJSONString(b, string(t.Value)); !ok {
				return b, msgLiteralUTF8
			}
			break
		}
		b = append(b, `{"type":"literal","datatype":`...)
		var typeOK bool
		b, typeOK = appendJSONString(b, string(t.Type))
		b = append(b, `,"value":`...)
		if b, ok = appendJSONString(b, string(t.Value)); !ok || !typeOK {
			return b, msgLiteralUTF8
		}
		if t.Type == "" {
			return b, msgDatatypeEmpty
		}
		if t.Type == rdfLangString {
			return b, msgLangStringNoTag
		}
	default:
		return b, msgUnsupported(v)
	}
	return append(b, '}'), ""
}

const hexDigits = "0123456789ABCDEF"

// appendJSONString appends s as a JSON string, escaping '"', '\\' and
// control characters only; false if s is not valid UTF-8 (then what it
// appended is to be dropped). It looks at s eight bytes at a time
// (jsonPlain8), copies the runs that need no escape whole, and checks
// that s is valid UTF-8 from its first byte past ASCII on (the ASCII
// before it is).
func appendJSONString(b []byte, s string) ([]byte, bool) {
	b = append(b, '"')
	start, i, checked := 0, 0, false
	for i < len(s) {
		if i+8 <= len(s) {
			x := load8(s[i : i+8])
			if x&msb8 != 0 && !checked {
				if !utf8.ValidString(s[i:]) {
					return b, false
				}
				checked = true
			}
			if jsonPlain8(x) {
				i += 8
				continue
			}
		}
		// One of the next eight bytes (or of the last few) may need an
		// escape: look at them one by one.
		end := min(i+8, len(s))
		for ; i < end; i++ {
			c := s[i]
			if c >= 0x80 && !checked {
				if !utf8.ValidString(s[i:]) {
					return b, false
				}
				checked = true
			}
			if c >= 0x20 && c != '"' && c != '\\' {
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			start = i + 1
		}
	}
	b = append(b, s[start:]...)
	return append(b, '"'), true
}

// Bytes repeated in each of the eight bytes of a word.
const (
	lsb8 = 0x0101010101010101
	msb8 = 0x8080808080808080
)

// load8 returns the eight bytes of w (len(w) == 8) as a little-endian
// word.
func load8(w string) uint64 {
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// below8 has the top bit of some byte set iff some byte of x is below n
// (n ≤ 0x80): the classic hasless — a borrow starts only at such a byte,
// so the answer "some byte" is exact though which byte is not.
func below8(x uint64, n byte) uint64 { return (x - uint64(n)*lsb8) &^ x & msb8 }

// equal8 has the top bit of some byte set iff some byte of x is c.
func equal8(x uint64, c byte) uint64 { return below8(x^(uint64(c)*lsb8), 1) }

// jsonPlain8 reports whether none of the eight bytes of x needs an escape
// in a JSON string: no control character (< 0x20), '"' or '\\'. Bytes of
// 0x80 and above (UTF-8 sequences) need none.
func jsonPlain8(x uint64) bool {
	return below8(x, 0x20)|equal8(x, '"')|equal8(x, '\\') == 0
}

type jsonDoc struct {
	Head *struct {
		Vars []string `json:"vars"`
	} `json:"head"`
	Results *struct {
		Bindings []map[string]jsonTerm `json:"bindings"`
	} `json:"results"`
	Boolean *bool `json:"boolean"`
}

type jsonTerm struct {
	Type     string  `json:"type"`
	Value    *string `json:"value"`
	Lang     *string `json:"xml:lang"`
	Datatype *string `json:"datatype"`
}

// ReadJSON reads a whole SPARQL JSON results document.
func ReadJSON(r io.Reader) (*Result, error) {
	data, err := readDocument(r, "json")
	if err != nil {
		return nil, err
	}
	var doc jsonDoc
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, jsonSyntaxError(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &SyntaxError{Format: "json", Msg: "trailing data after document"}
	}
	if doc.Head == nil {
		return nil, &SyntaxError{Format: "json", Msg: `missing "head"`}
	}
	if doc.Boolean != nil {
		if doc.Results != nil {
			return nil, &SyntaxError{Format: "json", Msg: `both "boolean" and "results"`}
		}
		return &Result{Boolean: doc.Boolean}, nil
	}
	if doc.Results == nil {
		return nil, &SyntaxError{Format: "json", Msg: `missing "results" or "boolean"`}
	}
	vars := doc.Head.Vars
	if vars == nil {
		vars = []string{}
	}
	if err := checkVars(vars); err != nil {
		return nil, &SyntaxError{Format: "json", Msg: err.Error()}
	}
	index := make(map[string]int, len(vars))
	for i, v := range vars {
		index[v] = i
	}
	res := &Result{Vars: vars, Rows: make([]Row, 0, len(doc.Results.Bindings))}
	for n, binding := range doc.Results.Bindings {
		row := make(Row, len(vars))
		for name, jt := range binding {
			i, ok := index[name]
			if !ok {
				return nil, &SyntaxError{Format: "json", Msg: fmt.Sprintf("binding %d: variable %q not in head", n, name)}
			}
			v, err := jt.term()
			if err != nil {
				return nil, &SyntaxError{Format: "json", Msg: fmt.Sprintf("binding %d, ?%s: %v", n, name, err)}
			}
			row[i] = v
		}
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}

func (jt jsonTerm) term() (quad.Value, error) {
	if jt.Value == nil {
		return nil, fmt.Errorf(`missing "value"`)
	}
	val := *jt.Value
	var v quad.Value
	switch jt.Type {
	case "uri":
		v = quad.IRI(val)
	case "bnode":
		v = quad.BNode(val)
	case "literal", "typed-literal":
		v = literal(val, jt.Lang, jt.Datatype)
		if v == nil {
			return nil, fmt.Errorf("literal with both language tag and datatype %q", *jt.Datatype)
		}
	default:
		return nil, fmt.Errorf("unsupported term type %q", jt.Type)
	}
	n, msg := normTerm(v)
	if msg != "" {
		return nil, fmt.Errorf("%s", msg)
	}
	return n, nil
}

// literal builds a literal term from a lexical form and optional language
// tag and datatype; nil when both a tag and a datatype other than
// rdf:langString are given. An empty tag counts as none (xml:lang="" means
// "no language" in XML). The result is not yet validated.
func literal(val string, lang, datatype *string) quad.Value {
	if lang != nil && *lang == "" {
		lang = nil
	}
	switch {
	case lang != nil:
		if datatype != nil && quad.IRI(*datatype) != rdfLangString {
			return nil
		}
		return quad.LangString{Value: quad.String(val), Lang: *lang}
	case datatype != nil && quad.IRI(*datatype) != xsdString:
		return quad.TypedString{Value: quad.String(val), Type: quad.IRI(*datatype)}
	}
	return quad.String(val)
}

func jsonSyntaxError(data []byte, err error) error {
	var off int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
	}
	if err == io.EOF {
		return &SyntaxError{Format: "json", Msg: "empty document"}
	}
	if off < 0 || off > int64(len(data)) {
		return &SyntaxError{Format: "json", Msg: strings.TrimPrefix(err.Error(), "json: ")}
	}
	line, col := position(data[:off])
	return &SyntaxError{Format: "json", Line: line, Col: col, Msg: strings.TrimPrefix(err.Error(), "json: ")}
}

// position returns the 1-based line and column just after prefix.
func position(prefix []byte) (line, col int) {
	line = 1 + bytes.Count(prefix, []byte{'\n'})
	lastNL := bytes.LastIndexByte(prefix, '\n')
	col = utf8.RuneCount(prefix[lastNL+1:]) + 1
	return line, col
}
