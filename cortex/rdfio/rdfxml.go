package rdfio

import (
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/internal/lex"
)

// Namespaces that RDF/XML gives a meaning of their own.
const (
	rdfNS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	// xmlnsNS is the namespace of namespace declarations, which no prefix
	// may be bound to. (The xml namespace, which ends in a name character,
	// is never the namespace part of a split.)
	xmlnsNS = "http://www.w3.org/2000/xmlns/"
)

// rdfSyntaxNames are the names of the RDF namespace that RDF/XML does not
// read as a property element (RDF 1.1 XML Syntax §7.2.5 coreSyntaxTerms,
// rdf:Description, the old terms, and rdf:li, which it renumbers).
var rdfSyntaxNames = map[string]bool{
	"RDF": true, "ID": true, "about": true, "parseType": true, "resource": true, "nodeID": true,
	"datatype": true, "Description": true, "aboutEach": true, "aboutEachPrefix": true, "bagID": true, "li": true,
}

// xmlEncoder writes RDF/XML (RDF 1.1 XML Syntax): one rdf:Description per
// run of triples with the same subject (rdf:about, or rdf:nodeID for a blank
// node), one property element per triple, its object as rdf:resource,
// rdf:nodeID or text (with xml:lang or rdf:datatype). Graph labels are
// dropped.
//
// The document is held in memory and written at Close, so that a triple it
// cannot write leaves nothing written: unlike the other encoders, the first
// quad it cannot write makes it fail (Encode returns a *QuadError; every
// later call, Close included, returns that error and nothing is ever
// written). A triple cannot be written when its predicate IRI cannot be split
// into a namespace and a local name that is an XML NCName (here
// [A-Za-z_][A-Za-z0-9_.-]*, which every XML parser reads: an IRI ending in
// '/', '#', a digit or a non-ASCII character cannot), when the predicate is
// one of RDF/XML's own names (rdf:about, rdf:li, ...) or in the xmlns
// namespace, or when a term holds a character XML 1.0 cannot carry
// (control characters other than tab, line feed and carriage return,
// U+FFFE, U+FFFF), besides what every encoder refuses (relative IRIs,
// invalid UTF-8, bad language tags).
//
// Prefixes of EncodeOptions name the namespaces they match exactly (names
// that XML reserves, starting with "xml", and "rdf" for another namespace
// are not used); other namespaces get ns1, ns2, ... Blank node labels made of
// [A-Za-z0-9_.-], starting with a letter other than 'x' or with '_', are
// kept; every other label is written as "x" and the hex encoding of its
// bytes.
type xmlEncoder struct {
	w       io.Writer
	named   map[string]string // namespace → prefix name, from the options
	taken   map[string]bool   // prefix names of the options
	prefix  map[string]string // namespace → prefix declared in the document
	order   []string          // namespaces in order of first use
	next    int               // last number of a generated prefix
	body    []byte            // the rdf:Description elements written so far
	scratch []byte
	lastS   quad.Value
	err     error
	closed  bool
}

func newXMLEncoder(w io.Writer, opts EncodeOptions) (Encoder, error) {
	e := &xmlEncoder{w: w, named: map[string]string{}, taken: map[string]bool{}, prefix: map[string]string{rdfNS: "rdf"}}
	for name, ns := range opts.Prefixes {
		if !validPrefixName(name) {
			return nil, fmt.Errorf("%w: prefix name %q", ErrInvalidOption, name)
		}
		if !hasScheme(ns) || checkIRIChars(ns) != nil || !utf8.ValidString(ns) || !xmlChars(ns) {
			return nil, fmt.Errorf("%w: prefix %q namespace %q is not an absolute IRI", ErrInvalidOption, name, ns)
		}
		e.taken[name] = true
		if name == "" || name == "rdf" || strings.HasPrefix(strings.ToLower(name), "xml") || ns == rdfNS {
			continue
		}
		if old, ok := e.named[ns]; !ok || name < old {
			e.named[ns] = name
		}
	}
	return e, nil
}

func (e *xmlEncoder) Encode(q quad.Quad) error {
	if e.closed {
		return ErrEncoderClosed
	}
	if e.err != nil {
		return e.err
	}
	s, p, o, _, err := checkQuad(q)
	if err == nil {
		err = e.appendTriple(s, p.(quad.IRI), o)
	}
	if err != nil {
		e.err = &QuadError{Quad: q, Err: err}
		e.body, e.scratch = nil, nil
		return e.err
	}
	return nil
}

// appendTriple checks the triple and appends it to the body; it appends
// nothing when it fails.
func (e *xmlEncoder) appendTriple(s quad.Value, p quad.IRI, o quad.Value) error {
	for _, v := range [...]quad.Value{s, p, o} {
		if err := xmlTerm(v); err != nil {
			return err
		}
	}
	ns, local, err := splitPredicate(string(p))
	if err != nil {
		return err
	}
	b := e.scratch[:0]
	if s != e.lastS {
		if e.lastS != nil {
			b = append(b, "</rdf:Description>\n"...)
		}
		b = append(b, "<rdf:Description "...)
		b = appendNodeAttr(b, s, "rdf:about")
		b = append(b, ">\n"...)
	}
	b = append(b, "  <"...)
	name := e.prefixFor(ns) + ":" + local
	b = append(b, name...)
	switch t := o.(type) {
	case quad.IRI, quad.BNode:
		b = append(b, ' ')
		b = appendNodeAttr(b, t, "rdf:resource")
		b = append(b, "/>\n"...)
		e.commit(b, s)
		return nil
	case quad.String:
		b = append(b, '>')
		b = appendXMLText(b, string(t), false)
	case quad.LangString:
		b = append(b, ` xml:lang="`...)
		b = appendXMLText(b, t.Lang, true)
		b = append(b, `">`...)
		b = appendXMLText(b, string(t.Value), false)
	case quad.TypedString:
		b = append(b, ` rdf:datatype="`...)
		b = appendXMLText(b, string(t.Type), true)
		b = append(b, `">`...)
		b = appendXMLText(b, string(t.Value), false)
	}
	b = append(b, "</"...)
	b = append(b, name...)
	b = append(b, ">\n"...)
	e.commit(b, s)
	return nil
}

func (e *xmlEncoder) commit(b []byte, s quad.Value) {
	e.body = append(e.body, b...)
	e.scratch = b
	e.lastS = s
}

// prefixFor returns the prefix declared for namespace ns, declaring one.
func (e *xmlEncoder) prefixFor(ns string) string {
	if p, ok := e.prefix[ns]; ok {
		return p
	}
	p, ok := e.named[ns]
	for !ok {
		e.next++
		p = "ns" + strconv.Itoa(e.next)
		ok = !e.taken[p]
	}
	e.prefix[ns] = p
	e.order = append(e.order, ns)
	return p
}

// appendNodeAttr appends attr="iri" for an IRI, rdf:nodeID="id" for a blank
// node.
func appendNodeAttr(b []byte, v quad.Value, attr string) []byte {
	if bn, ok := v.(quad.BNode); ok {
		b = append(b, `rdf:nodeID="`...)
		b = append(b, xmlNodeID(string(bn))...)
		return append(b, '"')
	}
	b = append(b, attr...)
	b = append(b, `="`...)
	b = appendXMLText(b, string(v.(quad.IRI)), true)
	return append(b, '"')
}

// xmlNodeID returns the rdf:nodeID written for blank node label l: an XML
// NCName, distinct for distinct labels.
func xmlNodeID(l string) string {
	ok := l != "" && l[0] != 'x' && (isASCIILetter(l[0]) || l[0] == '_')
	for i := 0; ok && i < len(l); i++ {
		ok = isNameByte(l[i])
	}
	if ok {
		return l
	}
	return "x" + hex.EncodeToString([]byte(l))
}

// splitPredicate splits a predicate IRI into the namespace and the local
// name of its property element: the local name is the longest suffix of the
// form [A-Za-z_][A-Za-z0-9_.-]*.
func splitPredicate(iri string) (ns, local string, err error) {
	i := len(iri)
	for i > 0 && isNameByte(iri[i-1]) {
		i--
	}
	for i < len(iri) && !isASCIILetter(iri[i]) && iri[i] != '_' {
		i++
	}
	ns, local = iri[:i], iri[i:]
	switch {
	case local == "":
		return "", "", fmt.Errorf("%w: predicate <%s> cannot be written in RDF/XML: it does not end in an XML name ([A-Za-z_][A-Za-z0-9_.-]*) to split it into a namespace and a local name", ErrInvalidQuad, iri)
	case ns == rdfNS && rdfSyntaxNames[local]:
		return "", "", fmt.Errorf("%w: predicate rdf:%s cannot be written in RDF/XML, which reserves that name", ErrInvalidQuad, local)
	case ns == xmlnsNS:
		return "", "", fmt.Errorf("%w: predicate <%s> cannot be written in RDF/XML: its namespace %s is reserved by XML", ErrInvalidQuad, iri, ns)
	}
	return ns, local, nil
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// isNameByte reports whether c may be in the local names and node IDs
// written: [A-Za-z0-9_.-].
func isNameByte(c byte) bool {
	return isASCIILetter(c) || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

// xmlTerm checks that term v (normalized, its IRIs checked by checkQuad)
// can be written in XML 1.0: valid UTF-8, absolute IRIs, valid language
// tags, only characters XML allows.
func xmlTerm(v quad.Value) error {
	var texts []string
	switch t := v.(type) {
	case quad.IRI:
		if !hasScheme(string(t)) {
			return fmt.Errorf("%w: relative IRI %q", ErrInvalidTerm, string(t))
		}
		texts = []string{string(t)}
	case quad.BNode:
		return nil
	case quad.String:
		texts = []string{string(t)}
	case quad.LangString:
		if !lex.IsLangTag(t.Lang) {
			return fmt.Errorf("%w: bad language tag %q", ErrInvalidTerm, t.Lang)
		}
		texts = []string{string(t.Value)}
	case quad.TypedString:
		if !hasScheme(string(t.Type)) {
			return fmt.Errorf("%w: relative IRI %q", ErrInvalidTerm, string(t.Type))
		}
		texts = []string{string(t.Value), string(t.Type)}
	default:
		return fmt.Errorf("%w: unsupported value type %T", ErrInvalidTerm, v)
	}
	for _, s := range texts {
		if !utf8.ValidString(s) {
			return fmt.Errorf("%w: %q is not valid UTF-8", ErrInvalidTerm, s)
		}
		if !xmlChars(s) {
			return fmt.Errorf("%w: %q holds a character that XML 1.0 cannot carry", ErrInvalidTerm, s)
		}
	}
	return nil
}

// xmlChars reports whether valid UTF-8 s holds only characters of XML 1.0's
// Char production.
func xmlChars(s string) bool {
	for _, r := range s {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
		case r < 0x20, r == 0xFFFE, r == 0xFFFF:
			return false
		}
	}
	return true
}

// appendXMLText appends s escaped for XML character data, or for a
// double-quoted attribute value when attr is set (white space other than
// the space as character references, which attribute value normalization
// would otherwise turn into spaces). A carriage return is always a
// reference: a parser turns a raw one into a line feed.
func appendXMLText(b []byte, s string, attr bool) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '&':
			b = append(b, "&amp;"...)
		case c == '<':
			b = append(b, "&lt;"...)
		case c == '>':
			b = append(b, "&gt;"...)
		case c == '\r':
			b = append(b, "&#13;"...)
		case attr && c == '"':
			b = append(b, "&quot;"...)
		case attr && c == '\n':
			b = append(b, "&#10;"...)
		case attr && c == '\t':
			b = append(b, "&#9;"...)
		default:
			b = append(b, c)
		}
	}
	return b
}

func (e *xmlEncoder) Close() error {
	if e.closed {
		return e.err
	}
	e.closed = true
	if e.err != nil {
		return e.err
	}
	b := make([]byte, 0, len(e.body)+256)
	b = append(b, `<?xml version="1.0" encoding="utf-8"?>`+"\n"...)
	b = append(b, `<rdf:RDF xmlns:rdf="`+rdfNS+`"`...)
	order := append([]string(nil), e.order...)
	sort.Slice(order, func(i, j int) bool { return e.prefix[order[i]] < e.prefix[order[j]] })
	for _, ns := range order {
		b = append(b, "\n    xmlns:"...)
		b = append(b, e.prefix[ns]...)
		b = append(b, `="`...)
		b = appendXMLText(b, ns, true)
		b = append(b, '"')
	}
	b = append(b, ">\n"...)
	b = append(b, e.body...)
	if e.lastS != nil {
		b = append(b, "</rdf:Description>\n"...)
	}
	b = append(b, "</rdf:RDF>\n"...)
	e.body = nil
	if _, err := e.w.Write(b); err != nil {
		e.err = err
	}
	return e.err
}
