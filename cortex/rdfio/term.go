package rdfio

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/internal/lex"
	"github.com/cortexgraph/cortex/cortex/internal/ntriples"
)

// Well-known datatype IRIs.
const (
	xsdString     = "http://www.w3.org/2001/XMLSchema#string"
	xsdBoolean    = "http://www.w3.org/2001/XMLSchema#boolean"
	rdfLangString = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
)

// msgLangStringNoTag is the problem of a literal with datatype
// rdf:langString, which RDF 1.1 Concepts (3.3) gives a literal if and only
// if it has a language tag: written "text"^^rdf:langString (or, in Go, a
// quad.TypedString of that type), it has none and is no RDF literal.
const msgLangStringNoTag = "rdf:langString literal without a language tag"

// TermBytes is the size of v that DecodeOptions.MaxTermBytes bounds: the
// bytes of its text (an IRI's, a blank node's label, a literal's lexical
// form with its language tag or datatype IRI).
func TermBytes(v quad.Value) int {
	switch t := v.(type) {
	case quad.IRI:
		return len(t)
	case quad.BNode:
		return len(t)
	case quad.String:
		return len(t)
	case quad.LangString:
		return len(t.Value) + len(t.Lang)
	case quad.TypedString:
		return len(t.Value) + len(t.Type)
	}
	return 0
}

// DefaultMaxTermBytes bounds the size of a term (TermBytes) when
// DecodeOptions.MaxTermBytes is 0: 64 MiB.
const DefaultMaxTermBytes = 64 << 20

// termLimit is the bound of a term's size that a decoder applies.
type termLimit struct {
	max   int  // 0: none
	store bool // the caller's bound (a store's), not DefaultMaxTermBytes
}

func (o DecodeOptions) termLimit() termLimit {
	switch {
	case o.MaxTermBytes > 0:
		return termLimit{max: o.MaxTermBytes, store: true}
	case o.MaxTermBytes < 0:
		return termLimit{}
	}
	return termLimit{max: DefaultMaxTermBytes}
}

// check returns the message of a term v larger than the bound, else "".
func (l termLimit) check(v quad.Value) string {
	if n := TermBytes(v); l.max > 0 && n > l.max {
		return l.msg(n)
	}
	return ""
}

// msg is the message of a term of n bytes larger than the bound (n < 0:
// not read to its end).
func (l termLimit) msg(n int) string {
	size := "term" // (not read to its end)
	if n >= 0 {
		size = fmt.Sprintf("term of %d bytes,", n)
	}
	if l.store {
		return fmt.Sprintf("%s larger than the largest the store holds (%d bytes)", size, l.max)
	}
	return fmt.Sprintf("%s larger than the largest term read (%d bytes)", size, l.max)
}

// normalizeTerm maps v to one of the five term types used throughout Cortex:
// quad.IRI, quad.BNode, quad.String, quad.LangString and quad.TypedString
// (never with datatype xsd:string). Values that have a TypedString method
// (quad.Int, quad.Float, quad.Time) are converted to it; quad.Bool becomes
// "true" or "false" typed xsd:boolean.
func normalizeTerm(v quad.Value) (quad.Value, error) {
	switch t := v.(type) {
	case nil:
		return nil, fmt.Errorf("%w: nil value", ErrInvalidTerm)
	case quad.IRI, quad.BNode, quad.String:
		return v, nil
	case quad.LangString:
		return t, nil
	case quad.TypedString:
		if t.Type == xsdString || t.Type == "" {
			return t.Value, nil
		}
		return t, nil
	case quad.Bool: // cayley writes "True", not a valid xsd:boolean
		return quad.TypedString{Value: quad.String(strconv.FormatBool(bool(t))), Type: xsdBoolean}, nil
	case interface{ TypedString() quad.TypedString }:
		ts := t.TypedString()
		ts.Type = ts.Type.Full() // cayley uses short forms such as xsd:integer
		return normalizeTerm(ts)
	default:
		return nil, fmt.Errorf("%w: unsupported value type %T", ErrInvalidTerm, v)
	}
}

// blankLabel returns the label written for a blank node. Labels made only of
// [A-Za-z0-9_-], not starting with '-' or 'x', are kept; every other label is
// written as "x" followed by the hex encoding of its bytes. The mapping is
// injective and its output is valid in N-Triples, N-Quads and Turtle.
func blankLabel(l string) string {
	if plainLabel(l) {
		return l
	}
	return "x" + hex.EncodeToString([]byte(l))
}

// ParseFormattedTerm is ParseTerm for text that FormatTerm wrote (a term
// that Cortex printed, sent or stored as text): a blank node's label is
// read with FormattedBlankLabel, so ParseFormattedTerm(FormatTerm(v)) is v
// for every term FormatTerm writes faithfully.
func ParseFormattedTerm(s string) (quad.Value, error) {
	v, err := ParseTerm(s)
	if b, ok := v.(quad.BNode); ok && err == nil {
		return quad.BNode(FormattedBlankLabel(string(b))), nil
	}
	return v, err
}

// FormattedBlankLabel returns the label of the blank node that FormatTerm
// writes as _:written: written itself, unless it is the hex encoding that
// FormatTerm (and the encoders) give a label that is not plain ("x"
// followed by the lower-case hex of a valid UTF-8 label it would encode
// so); that label is then returned. So
// FormattedBlankLabel(label of FormatTerm(b)) is b's label for every blank
// node b whose label is non-empty and valid UTF-8, and a label that
// FormatTerm never writes (_:x41: FormatTerm writes the label "A" as _:A)
// is returned as written. The empty label, which FormatTerm writes as _:x,
// is the exception: "x" is returned as written, so that _:x typed by hand
// is the blank node x, never one with an empty label (which SPARQL results
// cannot carry).
func FormattedBlankLabel(written string) string {
	if len(written) < 3 || written[0] != 'x' || len(written)%2 != 1 {
		return written
	}
	b, err := hex.DecodeString(written[1:])
	if err != nil || !utf8.Valid(b) {
		return written
	}
	if l := string(b); blankLabel(l) == written {
		return l
	}
	return written
}

func plainLabel(l string) bool {
	if l == "" || l[0] == 'x' || l[0] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// ntEscape is the escaping policy of rdfio's writers: besides what IRIREF
// excludes, DEL is written as \u007F in IRIs too.
const ntEscape = ntriples.EscapeIRIDEL

// appendIRI writes <iri> escaping every character not allowed in IRIREF, and
// DEL, as \uXXXX. iri must be valid UTF-8.
func appendIRI(b []byte, iri string) []byte { return ntriples.AppendIRI(b, iri, ntEscape) }

// appendString writes "s" with N-Triples/Turtle escapes: \" \\ \n \r \t and
// \u00XX for other control characters and DEL. s must be valid UTF-8.
func appendString(b []byte, s string) []byte { return ntriples.AppendString(b, s, ntEscape) }

// appendTerm appends the N-Triples form of v. In strict mode it fails with
// ErrInvalidTerm for values that cannot be written faithfully (invalid UTF-8,
// relative IRIs, bad language tags, unsupported types); otherwise it does its
// best (replacing invalid UTF-8, writing what it has).
func appendTerm(b []byte, v quad.Value, strict bool) ([]byte, error) {
	v, err := normalizeTerm(v)
	if err != nil {
		return b, err
	}
	switch t := v.(type) {
	case quad.IRI:
		s := string(t)
		if !utf8.ValidString(s) {
			if strict {
				return b, fmt.Errorf("%w: IRI %q is not valid UTF-8", ErrInvalidTerm, s)
			}
			s = strings.ToValidUTF8(s, "\uFFFD")
		}
		if strict && !hasScheme(s) {
			return b, fmt.Errorf("%w: relative IRI %q", ErrInvalidTerm, s)
		}
		return appendIRI(b, s), nil
	case quad.BNode:
		b = append(b, '_', ':')
		return append(b, blankLabel(string(t))...), nil
	case quad.String:
		s, err := validText(string(t), strict)
		if err != nil {
			return b, err
		}
		return appendString(b, s), nil
	case quad.LangString:
		s, err := validText(string(t.Value), strict)
		if err != nil {
			return b, err
		}
		if lex.IsLangTag(t.Lang) {
			b = appendString(b, s)
			b = append(b, '@')
			return append(b, t.Lang...), nil
		}
		if strict {
			return b, fmt.Errorf("%w: bad language tag %q", ErrInvalidTerm, t.Lang)
		}
		// No tag to write faithfully: its characters other than letters,
		// digits and '-' are written as \u escapes (invalid UTF-8 as
		// U+FFFD), so that no control character goes out raw.
		b = appendString(b, s)
		b = append(b, '@')
		for _, r := range t.Lang {
			if r < utf8.RuneSelf && (isAlnum(byte(r)) || r == '-') {
				b = append(b, byte(r))
			} else {
				b = lex.AppendUCHAR(b, r)
			}
		}
		return b, nil
	case quad.TypedString:
		s, err := validText(string(t.Value), strict)
		if err != nil {
			return b, err
		}
		b = appendString(b, s)
		b = append(b, '^', '^')
		return appendTerm(b, t.Type, strict)
	}
	return b, fmt.Errorf("%w: unsupported value type %T", ErrInvalidTerm, v)
}

func validText(s string, strict bool) (string, error) {
	if utf8.ValidString(s) {
		return s, nil
	}
	if strict {
		return "", fmt.Errorf("%w: literal %q is not valid UTF-8", ErrInvalidTerm, s)
	}
	return strings.ToValidUTF8(s, "\uFFFD"), nil
}

// FormatTerm returns v as an N-Triples term, for example
// <http://ex/a>, _:b1, "chat"@fr or "01"^^<http://www.w3.org/2001/XMLSchema#integer>.
// It never fails: invalid UTF-8 is replaced by U+FFFD, a language tag that
// is none has its characters other than letters, digits and '-' written as
// \uXXXX (no control character is written raw), quad.Int, quad.Float,
// quad.Bool and quad.Time are written as typed literals, blank node labels are
// written as described for encoders (labels outside [A-Za-z0-9_-] or starting
// with 'x' are hex-encoded), and values that are no RDF term (nil, quad.Raw)
// give "".
func FormatTerm(v quad.Value) string {
	b, err := appendTerm(nil, v, false)
	if err != nil {
		return ""
	}
	return string(b)
}

// ParseTerm parses one N-Triples term (IRI, blank node or literal), allowing
// surrounding white space. Blank node labels are kept as written (see
// FormattedBlankLabel to read back one that FormatTerm encoded). Errors are
// *SyntaxError values with line 1 and the column of the problem.
func ParseTerm(s string) (quad.Value, error) {
	sc := scanner{buf: []byte(s), line: 1}
	sc.skipSpace()
	if sc.pos == len(sc.buf) {
		return nil, sc.errf(sc.pos, "empty term")
	}
	v, err := sc.term(false)
	if err != nil {
		return nil, err
	}
	sc.skipSpace()
	if sc.pos != len(sc.buf) {
		return nil, sc.errf(sc.pos, "unexpected %q after term", sc.buf[sc.pos])
	}
	return v, nil
}
