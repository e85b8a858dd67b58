package results

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
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

// ReadJSON reads a whole SPARQL JSON results document.
//
// The W3C format (SPARQL 1.1 Query Results JSON Format) leaves syntax to
// JSON. ReadJSON is strict where RFC 8259 leaves the meaning of a text
// open, and refuses (with a *SyntaxError giving the line and column) rather
// than guess:
//
//   - a name repeated in one object (RFC 8259 §4: names "SHOULD be unique",
//     and readers differ on which value wins): a variable bound twice in a
//     binding, or "type", "value", "head" ... given twice;
//   - a \u escape of a UTF-16 surrogate that is not half of a pair
//     (RFC 8259 §8.2: such a string holds no Unicode text; an RDF term is a
//     Unicode string, so there is no term to return, and U+FFFD in its place
//     would change the data silently); the position is that of the escape;
//   - anything else that is not JSON: raw control characters in strings,
//     unknown escapes, malformed numbers, a byte order mark, trailing data.
//
// Names are matched exactly, as JSON compares strings (after unescaping):
// "Type" is not "type", "A" is not the variable "a". The members of an
// object may come in any order ("results" before "head"); members the
// format does not define are skipped, and "link" must be an array of
// strings. Values of the wrong JSON type (a number or null as "value") are
// errors. The SPARQL 1.0 term type "typed-literal" is read as "literal".
//
// Returned terms may share memory with one copy of the document held until
// they are all unreachable.
func ReadJSON(r io.Reader) (*Result, error) {
	data, err := readDocument(r, "json")
	if err != nil {
		return nil, err
	}
	p := &jsonParser{s: string(data)}
	return p.document()
}

// maxJSONDepth bounds the nesting of skipped values (encoding/json's limit),
// so that hostile input cannot exhaust the stack.
const maxJSONDepth = 10000

// jsonParser is a strict recursive-descent reader of a JSON results
// document held in s; i is the offset of the next byte to read. It
// decodes only what the format defines, and skips (checking them) the
// values of other members.
type jsonParser struct {
	s   string
	i   int
	buf []byte // scratch for unescaping strings
}

// errAt returns a *SyntaxError at byte offset off.
func (p *jsonParser) errAt(off int, format string, args ...any) error {
	line, col := position([]byte(p.s[:off]))
	return &SyntaxError{Format: "json", Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// found describes the input at p.i for an error message.
func (p *jsonParser) found() string {
	if p.i >= len(p.s) {
		return "end of document"
	}
	c, _ := utf8.DecodeRuneInString(p.s[p.i:])
	return fmt.Sprintf("%q", c)
}

// ws skips JSON white space.
func (p *jsonParser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// eat skips white space and then c, reporting whether c was there.
func (p *jsonParser) eat(c byte) bool {
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// object reads an object, calling member for each member with the
// decoded name, the offset of the name and p.i at the value (white space
// skipped); member must read the value. what names the object in errors.
func (p *jsonParser) object(what string, member func(name string, off int) error) error {
	if !p.eat('{') {
		return p.errAt(p.i, "expected %s object, found %s", what, p.found())
	}
	if p.eat('}') {
		return nil
	}
	for {
		p.ws()
		off := p.i
		name, err := p.str()
		if err != nil {
			return err
		}
		if !p.eat(':') {
			return p.errAt(p.i, "expected ':' after member name, found %s", p.found())
		}
		p.ws()
		if err := member(name, off); err != nil {
			return err
		}
		if p.eat(',') {
			continue
		}
		if p.eat('}') {
			return nil
		}
		return p.errAt(p.i, "expected ',' or '}' in %s object, found %s", what, p.found())
	}
}

// array reads an array, calling elem with p.i at each element (white
// space skipped); elem must read the element.
func (p *jsonParser) array(what string, elem func() error) error {
	if !p.eat('[') {
		return p.errAt(p.i, "expected %s array, found %s", what, p.found())
	}
	if p.eat(']') {
		return nil
	}
	for {
		p.ws()
		if err := elem(); err != nil {
			return err
		}
		if p.eat(',') {
			continue
		}
		if p.eat(']') {
			return nil
		}
		return p.errAt(p.i, "expected ',' or ']' in %s array, found %s", what, p.found())
	}
}

// str reads a string at p.i. A string without escapes is returned as a
// substring of the document, without copying.
func (p *jsonParser) str() (string, error) {
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		return "", p.errAt(p.i, "expected string, found %s", p.found())
	}
	start := p.i + 1
	i := start
	// Skip eight bytes at a time while none is '"', '\\' or a control
	// character (jsonPlain8); then the next such byte is among the eight.
	for i+8 <= len(p.s) && jsonPlain8(load8(p.s[i:i+8])) {
		i += 8
	}
	for ; i < len(p.s); i++ {
		switch c := p.s[i]; {
		case c == '"':
			p.i = i + 1
			return p.s[start:i], nil
		case c == '\\':
			return p.strEscaped(start, i)
		case c < 0x20:
			return "", p.errAt(i, "control character %U in string", c)
		}
	}
	return "", p.errAt(p.i, "unterminated string")
}

// strEscaped reads the rest of the string that starts at start and has
// its first escape at i.
func (p *jsonParser) strEscaped(start, i int) (string, error) {
	b := append(p.buf[:0], p.s[start:i]...)
	for i < len(p.s) {
		c := p.s[i]
		switch {
		case c == '"':
			p.buf, p.i = b, i+1
			return string(b), nil
		case c < 0x20:
			return "", p.errAt(i, "control character %U in string", c)
		case c != '\\':
			b = append(b, c)
			i++
			continue
		}
		if i+1 >= len(p.s) {
			break
		}
		switch e := p.s[i+1]; e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := hex4(p.s, i+2)
			if !ok {
				return "", p.errAt(i, "malformed escape %q", p.s[i:min(i+6, len(p.s))])
			}
			n := 6
			if utf16.IsSurrogate(r) {
				// A high surrogate must be followed by the escape of a low one.
				if r < 0xDC00 && i+12 <= len(p.s) && p.s[i+6] == '\\' && p.s[i+7] == 'u' {
					if lo, ok := hex4(p.s, i+8); ok && lo >= 0xDC00 && lo <= 0xDFFF {
						r, n = utf16.DecodeRune(r, lo), 12
					}
				}
				if n == 6 {
					return "", p.errAt(i, "lone utf-16 surrogate %s: not a unicode character", p.s[i:i+6])
				}
			}
			b = utf8.AppendRune(b, r)
			i += n
			continue
		default:
			return "", p.errAt(i, "invalid escape %q", p.s[i:i+2])
		}
		i += 2
	}
	return "", p.errAt(start-1, "unterminated string")
}

// hex4 decodes the four hex digits at s[i:].
func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// skip reads and discards any JSON value at p.i, checking its syntax (not
// the uniqueness of names in its objects, which nothing reads).
func (p *jsonParser) skip(depth int) error {
	if depth > maxJSONDepth {
		return p.errAt(p.i, "exceeded max depth of %d", maxJSONDepth)
	}
	if p.i >= len(p.s) {
		return p.errAt(p.i, "expected value, found end of document")
	}
	switch c := p.s[p.i]; {
	case c == '"':
		_, err := p.str()
		return err
	case c == '{':
		return p.object("", func(string, int) error { return p.skip(depth + 1) })
	case c == '[':
		return p.array("", func() error { return p.skip(depth + 1) })
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	for _, lit := range []string{"true", "false", "null"} {
		if strings.HasPrefix(p.s[p.i:], lit) {
			p.i += len(lit)
			return nil
		}
	}
	return p.errAt(p.i, "expected value, found %s", p.found())
}

// number reads a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *jsonParser) number() error {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.s[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.s) && p.s[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return p.errAt(start, "malformed number")
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return p.errAt(start, "malformed number")
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return p.errAt(start, "malformed number")
		}
	}
	if p.i < len(p.s) && (p.s[p.i] >= '0' && p.s[p.i] <= '9' || p.s[p.i] == '.') {
		return p.errAt(start, "malformed number")
	}
	return nil
}

// names finds repeated names in one object: those the format defines by
// bit, others in a set made on first use.
type names struct {
	known uint32
	other map[string]bool
}

// repeated records name (bit: its bit, 0 for a name the format does not
// define) and reports whether it was already seen.
func (n *names) repeated(name string, bit uint32) bool {
	if bit != 0 {
		seen := n.known&bit != 0
		n.known |= bit
		return seen
	}
	if n.other == nil {
		n.other = map[string]bool{}
	}
	seen := n.other[name]
	n.other[name] = true
	return seen
}

func (p *jsonParser) errRepeated(off int, name, what string) error {
	return p.errAt(off, "duplicate name %q in %s object", name, what)
}

func (p *jsonParser) document() (*Result, error) {
	p.ws()
	if p.i == len(p.s) {
		return nil, &SyntaxError{Format: "json", Msg: "empty document"}
	}
	const (
		bitHead = 1 << iota
		bitResults
		bitBoolean
	)
	var (
		seen       names
		vars       []string
		res        *Result
		resultsOff = -1 // offset of "results" read before "head"
		boolean    *bool
	)
	err := p.object("document", func(name string, off int) error {
		var bit uint32
		switch name {
		case "head":
			bit = bitHead
		case "results":
			bit = bitResults
		case "boolean":
			bit = bitBoolean
		}
		if seen.repeated(name, bit) {
			return p.errRepeated(off, name, "document")
		}
		switch bit {
		case bitHead:
			var err error
			vars, err = p.head()
			return err
		case bitResults:
			if seen.known&bitHead == 0 {
				resultsOff = p.i
				return p.skip(0)
			}
			var err error
			res, err = p.results(vars)
			return err
		case bitBoolean:
			switch {
			case strings.HasPrefix(p.s[p.i:], "true"):
				boolean = new(bool)
				*boolean = true
				p.i += 4
			case strings.HasPrefix(p.s[p.i:], "false"):
				boolean = new(bool)
				p.i += 5
			default:
				return p.errAt(p.i, "expected true or false as \"boolean\", found %s", p.found())
			}
			return nil
		}
		return p.skip(0)
	})
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(p.s) {
		return nil, p.errAt(p.i, "trailing data after document")
	}
	switch {
	case seen.known&bitHead == 0:
		return nil, &SyntaxError{Format: "json", Msg: `missing "head"`}
	case boolean != nil:
		if seen.known&bitResults != 0 {
			return nil, &SyntaxError{Format: "json", Msg: `both "boolean" and "results"`}
		}
		return &Result{Boolean: boolean}, nil
	case seen.known&bitResults == 0:
		return nil, &SyntaxError{Format: "json", Msg: `missing "results" or "boolean"`}
	case resultsOff >= 0:
		p.i = resultsOff
		return p.results(vars)
	}
	return res, nil
}

// head reads the "head" object and returns its variables, checked.
func (p *jsonParser) head() ([]string, error) {
	const (
		bitVars = 1 << iota
		bitLink
	)
	var seen names
	vars := []string{}
	varsOff := p.i
	err := p.object("head", func(name string, off int) error {
		var bit uint32
		switch name {
		case "vars":
			bit = bitVars
		case "link":
			bit = bitLink
		}
		if seen.repeated(name, bit) {
			return p.errRepeated(off, name, "head")
		}
		switch bit {
		case bitVars:
			varsOff = p.i
			return p.array("vars", func() error {
				v, err := p.str()
				vars = append(vars, v)
				return err
			})
		case bitLink:
			return p.array("link", func() error {
				_, err := p.str()
				return err
			})
		}
		return p.skip(0)
	})
	if err != nil {
		return nil, err
	}
	if err := checkVars(vars); err != nil {
		return nil, p.errAt(varsOff, "%v", err)
	}
	return vars, nil
}

// results reads the "results" object, for the variables vars.
func (p *jsonParser) results(vars []string) (*Result, error) {
	index := make(map[string]int, len(vars))
	for i, v := range vars {
		index[v] = i
	}
	res := &Result{Vars: vars, Rows: []Row{}}
	var seen names
	err := p.object("results", func(name string, off int) error {
		bit := uint32(0)
		if name == "bindings" {
			bit = 1
		}
		if seen.repeated(name, bit) {
			return p.errRepeated(off, name, "results")
		}
		if bit == 0 {
			return p.skip(0)
		}
		return p.array("bindings", func() error {
			row, err := p.binding(vars, index, len(res.Rows))
			res.Rows = append(res.Rows, row)
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// binding reads the n-th binding object.
func (p *jsonParser) binding(vars []string, index map[string]int, n int) (Row, error) {
	row := make(Row, len(vars))
	err := p.object("binding", func(name string, off int) error {
		i, ok := index[name]
		if !ok {
			return p.errAt(off, "binding %d: variable %q not in head", n, name)
		}
		if row[i] != nil {
			return p.errAt(off, "binding %d: duplicate name %q: variable bound twice", n, name)
		}
		v, err := p.term(n, name)
		row[i] = v
		return err
	})
	return row, err
}

// term reads a term object, the value of variable name in the n-th
// binding.
func (p *jsonParser) term(n int, name string) (quad.Value, error) {
	const (
		bitType = 1 << iota
		bitValue
		bitLang
		bitDatatype
	)
	var (
		seen               names
		typ, val, lang, dt string
		typOff             int
	)
	off := p.i
	err := p.object("term", func(key string, keyOff int) error {
		var bit uint32
		var dst *string
		switch key {
		case "type":
			bit, dst, typOff = bitType, &typ, p.i
		case "value":
			bit, dst = bitValue, &val
		case "xml:lang":
			bit, dst = bitLang, &lang
		case "datatype":
			bit, dst = bitDatatype, &dt
		}
		if seen.repeated(key, bit) {
			return p.errRepeated(keyOff, key, "term")
		}
		if dst == nil {
			return p.skip(0)
		}
		s, err := p.str()
		*dst = s
		return err
	})
	if err != nil {
		return nil, err
	}
	fail := func(off int, format string, args ...any) error {
		return p.errAt(off, "binding %d, ?%s: %s", n, name, fmt.Sprintf(format, args...))
	}
	if seen.known&bitType == 0 {
		return nil, fail(off, `missing "type"`)
	}
	if seen.known&bitValue == 0 {
		return nil, fail(off, `missing "value"`)
	}
	var v quad.Value
	switch typ {
	case "uri":
		v = quad.IRI(val)
	case "bnode":
		v = quad.BNode(val)
	case "literal", "typed-literal":
		var lp, dp *string
		if seen.known&bitLang != 0 {
			lp = &lang
		}
		if seen.known&bitDatatype != 0 {
			dp = &dt
		}
		if v = literal(val, lp, dp); v == nil {
			return nil, fail(off, "literal with both language tag and datatype %q", dt)
		}
	default:
		return nil, fail(typOff, "unsupported term type %q", typ)
	}
	nv, msg := normTerm(v)
	if msg != "" {
		return nil, fail(off, "%s", msg)
	}
	return nv, nil
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

// position returns the 1-based line and column just after prefix.
func position(prefix []byte) (line, col int) {
	line = 1 + bytes.Count(prefix, []byte{'\n'})
	lastNL := bytes.LastIndexByte(prefix, '\n')
	col = utf8.RuneCount(prefix[lastNL+1:]) + 1
	return line, col
}
