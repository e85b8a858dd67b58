package rdfio

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/cayleygraph/quad"
)

// EncodeOptions configure an Encoder. The zero value is usable.
type EncodeOptions struct {
	// Prefixes maps prefix names to namespace IRIs. Only the Turtle encoder
	// uses them: it writes the @prefix directives first and abbreviates IRIs
	// whose local part is a simple name ([A-Za-z_][A-Za-z0-9_-]*). Prefix names
	// must match [A-Za-z][A-Za-z0-9_-]* or be empty.
	Prefixes map[string]string
}

// Encoder writes quads one at a time. Output is buffered: Close flushes it
// (it does not close the underlying writer).
//
// An Encoder is not safe for concurrent use. Encode returns a *QuadError
// (wrapping ErrInvalidTerm or ErrInvalidQuad) for a quad it cannot write
// faithfully and writes nothing for it; the encoder stays usable (except the
// RDF/XML one, which then fails as a whole and writes nothing at all). Write
// errors are sticky.
//
// Blank node labels made of [A-Za-z0-9_-] that do not start with 'x' or '-'
// are written unchanged; every other label is written as "x" followed by the
// hex encoding of its bytes, so distinct labels stay distinct. IRIs must be
// absolute, valid UTF-8 and free of the characters IRIREF excludes
// (U+0000–U+0020 and <>"{}|^`\); DEL (U+007F), which IRIREF allows, is written
// as \u007F. Literals must be valid UTF-8, and a literal of datatype
// rdf:langString must have a language tag (RDF 1.1 Concepts 3.3): a
// quad.TypedString of that datatype has none and is refused with
// ErrInvalidTerm.
type Encoder interface {
	Encode(q quad.Quad) error
	Close() error
}

// NewEncoder returns an encoder for the named format (see Lookup) writing w.
func NewEncoder(w io.Writer, format string, opts EncodeOptions) (Encoder, error) {
	f, err := Lookup(format)
	if err != nil {
		return nil, err
	}
	if f.NewEncoder == nil {
		return nil, fmt.Errorf("%w %q: no encoder", ErrUnknownFormat, f.Name)
	}
	return f.NewEncoder(w, opts)
}

// WriteAll encodes qs to w and closes the encoder.
func WriteAll(w io.Writer, format string, opts EncodeOptions, qs []quad.Quad) error {
	e, err := NewEncoder(w, format, opts)
	if err != nil {
		return err
	}
	for _, q := range qs {
		if err := e.Encode(q); err != nil {
			e.Close()
			return err
		}
	}
	return e.Close()
}

// checkIRIChars rejects IRIs that no reader accepts back: those holding a
// character IRIREF excludes (U+0000–U+0020 and <>"{}|^`\), which must not be
// written raw nor as UCHAR. DEL is allowed: it is written as \u007F.
func checkIRIChars(s string) error {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x80 && badIRIByte(c) {
			return fmt.Errorf("%w: IRI %q contains %q", ErrInvalidTerm, s, c)
		}
	}
	return nil
}

// checkQuad normalizes the terms of q and checks their positions.
func checkQuad(q quad.Quad) (s, p, o, g quad.Value, err error) {
	if s, err = normalizeTerm(q.Subject); err != nil {
		return
	}
	if p, err = normalizeTerm(q.Predicate); err != nil {
		return
	}
	if o, err = normalizeTerm(q.Object); err != nil {
		return
	}
	if q.Label != nil {
		if g, err = normalizeTerm(q.Label); err != nil {
			return
		}
	}
	switch s.(type) {
	case quad.IRI, quad.BNode:
	default:
		err = fmt.Errorf("%w: subject %s is not an IRI or blank node", ErrInvalidQuad, FormatTerm(s))
		return
	}
	if _, ok := p.(quad.IRI); !ok {
		err = fmt.Errorf("%w: predicate %s is not an IRI", ErrInvalidQuad, FormatTerm(p))
		return
	}
	switch g.(type) {
	case nil, quad.IRI, quad.BNode:
	default:
		err = fmt.Errorf("%w: graph %s is not an IRI or blank node", ErrInvalidQuad, FormatTerm(g))
		return
	}
	if t, ok := o.(quad.TypedString); ok && t.Type == rdfLangString {
		err = fmt.Errorf("%w: %s", ErrInvalidTerm, msgLangStringNoTag)
		return
	}
	for _, v := range [...]quad.Value{s, p, o, g} {
		var iri quad.IRI
		switch t := v.(type) {
		case quad.IRI:
			iri = t
		case quad.TypedString:
			iri = t.Type
		default:
			continue
		}
		if err = checkIRIChars(string(iri)); err != nil {
			return
		}
	}
	return
}

// lineEncoder writes N-Triples or N-Quads.
type lineEncoder struct {
	w      *bufio.Writer
	quads  bool
	buf    []byte
	err    error
	closed bool
}

func newLineEncoder(w io.Writer, _ EncodeOptions, quads bool) Encoder {
	return &lineEncoder{w: bufio.NewWriterSize(w, 64<<10), quads: quads}
}

func (e *lineEncoder) Encode(q quad.Quad) error {
	if e.closed {
		return ErrEncoderClosed
	}
	if e.err != nil {
		return e.err
	}
	s, p, o, g, err := checkQuad(q)
	if err != nil {
		return &QuadError{Quad: q, Err: err}
	}
	b := e.buf[:0]
	for i, v := range [...]quad.Value{s, p, o, g} {
		if v == nil || i == 3 && !e.quads {
			continue
		}
		if b, err = appendTerm(b, v, true); err != nil {
			e.buf = b
			return &QuadError{Quad: q, Err: err}
		}
		b = append(b, ' ')
	}
	b = append(b, '.', '\n')
	e.buf = b
	if _, err := e.w.Write(b); err != nil {
		e.err = err
		return err
	}
	return nil
}

func (e *lineEncoder) Close() error {
	if e.closed {
		return e.err
	}
	e.closed = true
	if e.err != nil {
		return e.err
	}
	e.err = e.w.Flush()
	return e.err
}

// turtleEncoder writes Turtle. Graph labels are dropped (Turtle has no
// graphs). Consecutive triples with the same subject are grouped with ';',
// and with the same predicate too with ','.
type turtleEncoder struct {
	w        *bufio.Writer
	prefixes []turtlePrefix // longest namespace first
	header   bool
	lastS    quad.Value
	lastP    quad.Value
	buf      []byte
	err      error
	closed   bool
}

type turtlePrefix struct{ name, ns string }

func validPrefixName(n string) bool {
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '_' || c == '-')) {
			return false
		}
	}
	return true
}

func newTurtleEncoder(w io.Writer, opts EncodeOptions) (Encoder, error) {
	e := &turtleEncoder{w: bufio.NewWriterSize(w, 64<<10)}
	for name, ns := range opts.Prefixes {
		if !validPrefixName(name) {
			return nil, fmt.Errorf("%w: prefix name %q", ErrInvalidOption, name)
		}
		if !hasScheme(ns) || checkIRIChars(ns) != nil {
			return nil, fmt.Errorf("%w: prefix %q namespace %q is not an absolute IRI", ErrInvalidOption, name, ns)
		}
		e.prefixes = append(e.prefixes, turtlePrefix{name, ns})
	}
	sort.Slice(e.prefixes, func(i, j int) bool {
		a, b := e.prefixes[i], e.prefixes[j]
		if len(a.ns) != len(b.ns) {
			return len(a.ns) > len(b.ns)
		}
		return a.name < b.name
	})
	return e, nil
}

func (e *turtleEncoder) writeHeader() {
	if e.header {
		return
	}
	e.header = true
	sorted := append([]turtlePrefix(nil), e.prefixes...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].name < sorted[j].name })
	b := e.buf[:0]
	for _, p := range sorted {
		b = append(b, "@prefix "...)
		b = append(b, p.name...)
		b = append(b, ": "...)
		b = appendIRI(b, p.ns)
		b = append(b, " .\n"...)
	}
	if len(sorted) > 0 {
		b = append(b, '\n')
	}
	e.buf = b
	e.write(b)
}

func (e *turtleEncoder) write(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}

// simpleLocal reports whether l can be written as a local name that every
// Turtle reader, even a simple one, reads back unchanged.
func simpleLocal(l string) bool {
	if l == "" {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || i > 0 && (c >= '0' && c <= '9' || c == '-')) {
			return false
		}
	}
	return true
}

func (e *turtleEncoder) appendTerm(b []byte, v quad.Value) ([]byte, error) {
	switch t := v.(type) {
	case quad.IRI:
		for _, p := range e.prefixes {
			if strings.HasPrefix(string(t), p.ns) && simpleLocal(string(t)[len(p.ns):]) {
				b = append(b, p.name...)
				b = append(b, ':')
				return append(b, string(t)[len(p.ns):]...), nil
			}
		}
	case quad.TypedString:
		s, err := validText(string(t.Value), true)
		if err != nil {
			return b, err
		}
		b = appendString(b, s)
		b = append(b, '^', '^')
		return e.appendTerm(b, t.Type)
	}
	return appendTerm(b, v, true)
}

func (e *turtleEncoder) Encode(q quad.Quad) error {
	if e.closed {
		return ErrEncoderClosed
	}
	if e.err != nil {
		return e.err
	}
	s, p, o, _, err := checkQuad(q)
	if err != nil {
		return &QuadError{Quad: q, Err: err}
	}
	e.writeHeader()
	b := e.buf[:0]
	switch {
	case e.lastS != nil && s == e.lastS && p == e.lastP:
		b = append(b, " ,\n\t\t"...)
	case e.lastS != nil && s == e.lastS:
		b = append(b, " ;\n\t"...)
		if b, err = e.appendTerm(b, p); err != nil {
			return &QuadError{Quad: q, Err: err}
		}
		b = append(b, ' ')
	default:
		if e.lastS != nil {
			b = append(b, " .\n"...)
		}
		if b, err = e.appendTerm(b, s); err != nil {
			return &QuadError{Quad: q, Err: err}
		}
		b = append(b, ' ')
		if b, err = e.appendTerm(b, p); err != nil {
			return &QuadError{Quad: q, Err: err}
		}
		b = append(b, ' ')
	}
	if b, err = e.appendTerm(b, o); err != nil {
		return &QuadError{Quad: q, Err: err}
	}
	e.buf = b
	e.lastS, e.lastP = s, p
	e.write(b)
	return e.err
}

func (e *turtleEncoder) Close() error {
	if e.closed {
		return e.err
	}
	e.closed = true
	e.writeHeader()
	if e.lastS != nil {
		e.write([]byte(" .\n"))
	}
	if e.err == nil {
		e.err = e.w.Flush()
	}
	return e.err
}
