package results

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cayleygraph/quad"
)

// XML returns the SPARQL Query Results XML Format
// (application/sparql-results+xml, ".srx").
//
// Characters XML 1.0 does not allow (most C0 controls, U+FFFE, U+FFFF, lone
// surrogates) cannot be written in a well-formed document, not even as
// character references. Rather than silently dropping or replacing data, the
// writer rejects a row holding such a character with a *TermError (wrapping
// ErrInvalidTerm); nothing of that row is written and the document stays
// well-formed. Carriage returns are written as "&#xD;" so that XML line-end
// normalisation does not alter literals. The text of <uri> and <bnode> is
// read trimmed of XML white space (space, tab, CR, LF), so an IRI or a blank
// node label that starts or ends with one is refused in the same way; other
// white space (U+00A0, U+3000, ...) is kept.
func XML() Format {
	return Format{
		Name:         "xml",
		MediaType:    "application/sparql-results+xml",
		Extensions:   []string{".srx", ".xml"},
		NewWriter:    NewXMLWriter,
		WriteBoolean: WriteXMLBoolean,
		Read:         ReadXML,
	}
}

const xmlHeader = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sparql xmlns=\"" + sparqlResultNS + "\">\n"

type xmlWriter struct {
	rowWriter
	names [][]byte // pre-encoded `<binding name="x">` per variable
}

// NewXMLWriter returns a streaming XML results writer for vars. The head is
// written at once (buffered); Close writes the trailer and flushes.
func NewXMLWriter(w io.Writer, vars []string) (Writer, error) {
	if err := checkVars(vars); err != nil {
		return nil, fmt.Errorf("new xml writer: %w", err)
	}
	xw := &xmlWriter{rowWriter: newRowWriter(w, vars)}
	b := []byte(xmlHeader)
	b = append(b, "  <head>\n"...)
	for _, v := range vars {
		b = append(b, "    <variable name=\""...)
		b = appendXMLEscaped(b, v, true)
		b = append(b, "\"/>\n"...)
		nb := append([]byte("      <binding name=\""), appendXMLEscaped(nil, v, true)...)
		xw.names = append(xw.names, append(nb, "\">"...))
	}
	b = append(b, "  </head>\n  <results>\n"...)
	xw.bw.Write(b)
	return xw, nil
}

func (xw *xmlWriter) Write(row Row) error { return xw.writeRow(row, xw.appendRow) }

func (xw *xmlWriter) Close() error { return xw.close("  </results>\n</sparql>\n") }

func (xw *xmlWriter) appendRow(b []byte, row Row) ([]byte, error) {
	for i, v := range row {
		if v != nil {
			if msg := checkXMLTerm(v); msg != "" {
				return b, &TermError{Row: xw.n, Var: xw.vars[i], Value: v, Msg: msg}
			}
		}
	}
	b = append(b, "    <result>\n"...)
	for i, v := range row {
		if v == nil {
			continue
		}
		b = append(b, xw.names[i]...)
		switch t := v.(type) {
		case quad.IRI:
			b = append(b, "<uri>"...)
			b = appendXMLEscaped(b, string(t), false)
			b = append(b, "</uri>"...)
		case quad.BNode:
			b = append(b, "<bnode>"...)
			b = appendXMLEscaped(b, string(t), false)
			b = append(b, "</bnode>"...)
		case quad.String:
			b = append(b, "<literal>"...)
			b = appendXMLEscaped(b, string(t), false)
			b = append(b, "</literal>"...)
		case quad.LangString:
			b = append(b, "<literal xml:lang=\""...)
			b = appendXMLEscaped(b, t.Lang, true)
			b = append(b, "\">"...)
			b = appendXMLEscaped(b, string(t.Value), false)
			b = append(b, "</literal>"...)
		case quad.TypedString:
			b = append(b, "<literal datatype=\""...)
			b = appendXMLEscaped(b, string(t.Type), true)
			b = append(b, "\">"...)
			b = appendXMLEscaped(b, string(t.Value), false)
			b = append(b, "</literal>"...)
		}
		b = append(b, "</binding>\n"...)
	}
	return append(b, "    </result>\n"...), nil
}

// WriteXMLBoolean writes an XML results document holding <boolean>b</boolean>.
func WriteXMLBoolean(w io.Writer, b bool) error {
	_, err := fmt.Fprintf(w, "%s  <head/>\n  <boolean>%t</boolean>\n</sparql>\n", xmlHeader, b)
	return err
}

// checkXMLTerm returns a description of the first character of v that XML
// 1.0 does not allow, or "".
func checkXMLTerm(v quad.Value) string {
	check := func(s string) string {
		// Eight ASCII bytes none of which is a control character are
		// allowed: skip them, then read the rest rune by rune.
		i := 0
		for ; i+8 <= len(s); i += 8 {
			if x := load8(s[i : i+8]); x&msb8 != 0 || below8(x, 0x20) != 0 {
				break
			}
		}
		for _, r := range s[i:] {
			if !isXMLChar(r) {
				return fmt.Sprintf("character %U is not allowed in xml 1.0", r)
			}
		}
		return ""
	}
	switch t := v.(type) {
	case quad.IRI:
		if m := checkTrimmed(string(t)); m != "" {
			return m
		}
		return check(string(t))
	case quad.BNode:
		if m := checkTrimmed(string(t)); m != "" {
			return m
		}
		return check(string(t))
	case quad.String:
		return check(string(t))
	case quad.LangString:
		return check(string(t.Value))
	case quad.TypedString:
		if m := check(string(t.Value)); m != "" {
			return m
		}
		return check(string(t.Type))
	}
	return ""
}

// xmlSpace is XML 1.0's white space (production S), which the reader trims
// from the text of <uri> and <bnode>.
const xmlSpace = " \t\r\n"

// checkTrimmed returns a description of the problem of the text of a <uri>
// or <bnode> that starts or ends with XML white space, which the reader
// trims, or "".
func checkTrimmed(s string) string {
	if s != strings.Trim(s, xmlSpace) {
		return "leading or trailing white space (space, tab, cr, lf) of a uri or bnode does not survive xml results"
	}
	return ""
}

// appendXMLEscaped escapes & < > and '"', and "\r" always (as a character
// reference, to survive line-end normalisation); in attribute values also
// "\t" and "\n" (to survive attribute-value normalisation).
func appendXMLEscaped(b []byte, s string, attr bool) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		// Eight bytes none of which is a control character or one of
		// & < > " need no escape.
		for i+8 <= len(s) && xmlPlain8(load8(s[i:i+8])) {
			i += 8
		}
		if i == len(s) {
			break
		}
		var esc string
		switch s[i] {
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '"':
			esc = "&quot;"
		case '\r':
			esc = "&#xD;"
		case '\n':
			if attr {
				esc = "&#xA;"
			}
		case '\t':
			if attr {
				esc = "&#x9;"
			}
		}
		if esc == "" {
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, esc...)
		start = i + 1
	}
	return append(b, s[start:]...)
}

// xmlPlain8 reports whether none of the eight bytes of x needs an escape
// in XML text or an attribute value (appendXMLEscaped): no control
// character and none of & < > ".
func xmlPlain8(x uint64) bool {
	return below8(x, 0x20)|equal8(x, '&')|equal8(x, '<')|equal8(x, '>')|equal8(x, '"') == 0
}

// ReadXML reads a whole SPARQL XML results document. Elements outside the
// results namespace are rejected; <link> elements are ignored; the text of
// <uri> and <bnode> is trimmed of surrounding XML white space (space, tab,
// CR, LF; not U+00A0 and other Unicode white space, which an IRI may end
// with), literal text is kept exactly. Beyond what encoding/xml checks, a
// repeated attribute and a character reference to a UTF-16 surrogate
// (&#xD800;, which encoding/xml reads as U+FFFD) are errors, as XML 1.0
// says. A leading byte order mark is skipped, as XML 1.0 (§4.3.3) requires
// of a processor; encoding/xml reads it as text before the root element.
func ReadXML(r io.Reader) (*Result, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read xml: %w", err)
	}
	data = trimBOM(data)
	p := &xmlParser{data: data, dec: xml.NewDecoder(bytes.NewReader(data))}
	res, err := p.document()
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			return nil, err
		}
		var xe *xml.SyntaxError
		if errors.As(err, &xe) {
			return nil, p.errorf("%s", xe.Msg)
		}
		return nil, p.errorf("%v", err)
	}
	return res, nil
}

type xmlParser struct {
	data []byte
	dec  *xml.Decoder
}

func (p *xmlParser) errorf(format string, args ...any) error {
	off := p.dec.InputOffset()
	if off < 0 || off > int64(len(p.data)) {
		off = int64(len(p.data))
	}
	line, col := position(p.data[:off])
	return &SyntaxError{Format: "xml", Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// token returns the next token, checking what encoding/xml does not: no
// attribute repeated in a start tag (XML 1.0 WFC: Unique Att Spec, and
// Namespaces in XML 6.3, by expanded name), and no character reference to a
// surrogate (WFC: Legal Character), which encoding/xml reads as U+FFFD.
func (p *xmlParser) token() (xml.Token, error) {
	start := p.dec.InputOffset()
	tok, err := p.dec.Token()
	if err != nil {
		return tok, err
	}
	switch t := tok.(type) {
	case xml.StartElement:
		for i, a := range t.Attr {
			for _, b := range t.Attr[:i] {
				if a.Name == b.Name {
					return nil, p.errorf("attribute %q repeated in <%s>", a.Name.Local, t.Name.Local)
				}
			}
		}
		if err := p.checkCharRefs(start); err != nil {
			return nil, err
		}
	case xml.CharData:
		if !bytes.HasPrefix(p.data[start:], []byte("<![CDATA[")) {
			if err := p.checkCharRefs(start); err != nil {
				return nil, err
			}
		}
	}
	return tok, nil
}

// checkCharRefs returns an error for a character reference to a surrogate
// in the input from start to the decoder's offset (the text of one token).
func (p *xmlParser) checkCharRefs(start int64) error {
	raw := p.data[start:p.dec.InputOffset()]
	for i := 0; ; {
		j := bytes.Index(raw[i:], []byte("&#"))
		if j < 0 {
			return nil
		}
		i += j + 2
		digits, base := raw[i:], 10
		if len(digits) > 0 && digits[0] == 'x' {
			digits, base = digits[1:], 16
		}
		end := bytes.IndexByte(digits, ';')
		if end < 0 {
			return nil // encoding/xml has refused it
		}
		n, err := strconv.ParseUint(string(digits[:end]), base, 32)
		if err == nil && n >= 0xD800 && n <= 0xDFFF {
			ref := raw[i-2 : len(raw)-len(digits)+end+1]
			line, col := position(p.data[:int(start)+i-2])
			return &SyntaxError{Format: "xml", Line: line, Col: col,
				Msg: fmt.Sprintf("character reference %s to a utf-16 surrogate: not a character", ref)}
		}
	}
}

// next returns the next start or end element, skipping white space,
// comments, processing instructions and directives; non-blank text is an
// error.
func (p *xmlParser) next() (xml.Token, error) {
	for {
		tok, err := p.token()
		if err != nil {
			if err == io.EOF {
				return nil, p.errorf("unexpected end of document")
			}
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space != sparqlResultNS {
				return nil, p.errorf("element %q not in namespace %s", t.Name.Local, sparqlResultNS)
			}
			return t, nil
		case xml.EndElement:
			return t, nil
		case xml.CharData:
			if len(bytes.TrimSpace(t)) != 0 {
				return nil, p.errorf("unexpected text %q", truncate(string(t)))
			}
		}
	}
}

func (p *xmlParser) expectStart(local string) (xml.StartElement, error) {
	tok, err := p.next()
	if err != nil {
		return xml.StartElement{}, err
	}
	se, ok := tok.(xml.StartElement)
	if !ok || se.Name.Local != local {
		return xml.StartElement{}, p.errorf("expected <%s>, found %s", local, describe(tok))
	}
	return se, nil
}

func describe(tok xml.Token) string {
	switch t := tok.(type) {
	case xml.StartElement:
		return "<" + t.Name.Local + ">"
	case xml.EndElement:
		return "</" + t.Name.Local + ">"
	}
	return "text"
}

func truncate(s string) string {
	if len(s) > 40 {
		s = s[:40]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		return s + "..."
	}
	return s
}

func attr(se xml.StartElement, space, local string) (string, bool) {
	for _, a := range se.Attr {
		if a.Name.Local == local && (a.Name.Space == space || space == "xml" && a.Name.Space == "http://www.w3.org/XML/1998/namespace") {
			return a.Value, true
		}
	}
	return "", false
}

// text reads character data up to the end of the current element; nested
// elements are an error.
func (p *xmlParser) text() (string, error) {
	var sb strings.Builder
	for {
		tok, err := p.token()
		if err != nil {
			if err == io.EOF {
				return "", p.errorf("unexpected end of document")
			}
			return "", err
		}
		switch t := tok.(type) {
		case xml.CharData:
			sb.Write(t)
		case xml.EndElement:
			return sb.String(), nil
		case xml.StartElement:
			return "", p.errorf("unexpected element <%s> in term", t.Name.Local)
		}
	}
}

func (p *xmlParser) document() (*Result, error) {
	p.dec.Strict = true
	if _, err := p.expectStart("sparql"); err != nil {
		return nil, err
	}
	if _, err := p.expectStart("head"); err != nil {
		return nil, err
	}
	vars := []string{}
	for {
		tok, err := p.next()
		if err != nil {
			return nil, err
		}
		if _, ok := tok.(xml.EndElement); ok {
			break
		}
		se := tok.(xml.StartElement)
		switch se.Name.Local {
		case "variable":
			name, ok := attr(se, "", "name")
			if !ok {
				return nil, p.errorf("<variable> without name")
			}
			vars = append(vars, name)
		case "link":
		default:
			return nil, p.errorf("unexpected <%s> in <head>", se.Name.Local)
		}
		if err := p.dec.Skip(); err != nil {
			return nil, err
		}
	}
	tok, err := p.next()
	if err != nil {
		return nil, err
	}
	se, ok := tok.(xml.StartElement)
	if !ok {
		return nil, p.errorf("expected <results> or <boolean>, found %s", describe(tok))
	}
	var res *Result
	switch se.Name.Local {
	case "boolean":
		s, err := p.text()
		if err != nil {
			return nil, err
		}
		var b bool
		switch strings.Trim(s, xmlSpace) {
		case "true":
			b = true
		case "false":
		default:
			return nil, p.errorf("boolean value %q", truncate(s))
		}
		res = &Result{Boolean: &b}
	case "results":
		if err := checkVars(vars); err != nil {
			return nil, p.errorf("%v", err)
		}
		res, err = p.results(vars)
		if err != nil {
			return nil, err
		}
	default:
		return nil, p.errorf("expected <results> or <boolean>, found <%s>", se.Name.Local)
	}
	tok, err = p.next()
	if err != nil {
		return nil, err
	}
	if _, ok := tok.(xml.EndElement); !ok {
		return nil, p.errorf("expected </sparql>, found %s", describe(tok))
	}
	for {
		tok, err := p.token()
		if err == io.EOF {
			return res, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.CharData:
			if len(bytes.TrimSpace(t)) != 0 {
				return nil, p.errorf("text after document element")
			}
		case xml.StartElement:
			return nil, p.errorf("element after document element")
		}
	}
}

func (p *xmlParser) results(vars []string) (*Result, error) {
	index := make(map[string]int, len(vars))
	for i, v := range vars {
		index[v] = i
	}
	res := &Result{Vars: vars, Rows: []Row{}}
	for {
		tok, err := p.next()
		if err != nil {
			return nil, err
		}
		if _, ok := tok.(xml.EndElement); ok {
			return res, nil
		}
		if se := tok.(xml.StartElement); se.Name.Local != "result" {
			return nil, p.errorf("expected <result>, found <%s>", se.Name.Local)
		}
		row := make(Row, len(vars))
		for {
			tok, err := p.next()
			if err != nil {
				return nil, err
			}
			if _, ok := tok.(xml.EndElement); ok {
				break
			}
			se := tok.(xml.StartElement)
			if se.Name.Local != "binding" {
				return nil, p.errorf("expected <binding>, found <%s>", se.Name.Local)
			}
			name, _ := attr(se, "", "name")
			i, ok := index[name]
			if !ok {
				return nil, p.errorf("binding of %q, not a variable in <head>", name)
			}
			if row[i] != nil {
				return nil, p.errorf("variable %q bound twice in one result", name)
			}
			if row[i], err = p.term(); err != nil {
				return nil, err
			}
			tok, err = p.next()
			if err != nil {
				return nil, err
			}
			if _, ok := tok.(xml.EndElement); !ok {
				return nil, p.errorf("expected </binding>, found %s", describe(tok))
			}
		}
		res.Rows = append(res.Rows, row)
	}
}

func (p *xmlParser) term() (quad.Value, error) {
	se, err := p.next()
	if err != nil {
		return nil, err
	}
	start, ok := se.(xml.StartElement)
	if !ok {
		return nil, p.errorf("empty <binding>")
	}
	s, err := p.text()
	if err != nil {
		return nil, err
	}
	var v quad.Value
	switch start.Name.Local {
	case "uri":
		v = quad.IRI(strings.Trim(s, xmlSpace))
	case "bnode":
		v = quad.BNode(strings.Trim(s, xmlSpace))
	case "literal":
		var lang, dt *string
		if l, ok := attr(start, "xml", "lang"); ok {
			lang = &l
		}
		if d, ok := attr(start, "", "datatype"); ok {
			dt = &d
		}
		if v = literal(s, lang, dt); v == nil {
			return nil, p.errorf("literal with both xml:lang and datatype")
		}
	default:
		return nil, p.errorf("unsupported term element <%s>", start.Name.Local)
	}
	n, msg := normTerm(v)
	if msg != "" {
		return nil, p.errorf("%s", msg)
	}
	return n, nil
}
