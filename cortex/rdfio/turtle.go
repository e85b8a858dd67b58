package rdfio

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/internal/iri"
)

// RDF vocabulary the Turtle reader produces.
const (
	rdfFirst = quad.IRI("http://www.w3.org/1999/02/22-rdf-syntax-ns#first")
	rdfRest  = quad.IRI("http://www.w3.org/1999/02/22-rdf-syntax-ns#rest")
	rdfNil   = quad.IRI("http://www.w3.org/1999/02/22-rdf-syntax-ns#nil")
	rdfTypeI = quad.IRI("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
	xsdNS    = "http://www.w3.org/2001/XMLSchema#"
)

// frame kinds and states of the Turtle parser's explicit stack. A frame is an
// open predicate-object list (of a statement's subject or of a '[' blank
// node) or an open collection.
const (
	fPOL  = iota // predicate-object list
	fList        // collection
)

const (
	stVerb        = iota // a verb is required
	stVerbOpt            // after ';': a verb, another ';' or the closing token
	stObject             // an object is required
	stAfterObject        // ',', ';' or the closing token
	stAfterBNPL          // after a "[ ... ]" subject: a verb or '.'
	stSubject            // waiting for a collection subject to be delivered
)

type ttlFrame struct {
	kind, state int
	close       tokKind    // fPOL: tDot for a statement, tRBracket for '[ ... ]'
	subj, pred  quad.Value // fPOL
	last        quad.Value // fList: the last cell, nil while the list is empty
	line, col   int        // where the '[' or '(' is
}

// turtleDecoder is a streaming Turtle parser (RDF 1.1 Turtle grammar) with
// an explicit stack, so that nesting depth costs heap, not goroutine stack.
// Triples are queued as they are recognised and handed out one per Next.
type turtleDecoder struct {
	lex      ttlLexer
	tok      ttlToken
	peek     ttlToken
	hasPeek  bool
	opts     DecodeOptions
	base     string
	prefixes map[string]string
	stack    []ttlFrame
	out      []quad.Quad
	outHead  int
	blanks   int // generated blank nodes so far
	intern   map[string]string
	scratch  []byte
	lastIRI  string
	err      error
	closed   bool
}

func newTurtleDecoder(r io.Reader, opts DecodeOptions) (Decoder, error) {
	opts, err := opts.validate()
	if err != nil {
		return nil, err
	}
	d := &turtleDecoder{
		opts:     opts,
		base:     opts.Base,
		prefixes: map[string]string{},
		intern:   map[string]string{},
	}
	d.lex.init(r, opts.File, opts.termLimit())
	return d, nil
}

func (d *turtleDecoder) Next() (quad.Quad, error) {
	if d.closed {
		return quad.Quad{}, ErrDecoderClosed
	}
	for d.outHead == len(d.out) {
		if d.err != nil {
			return quad.Quad{}, d.err
		}
		d.out, d.outHead = d.out[:0], 0
		if err := d.step(); err != nil {
			var se *SyntaxError
			if d.lex.rerr != nil && errors.As(err, &se) {
				// A read error cut the input: what looks malformed at
				// its end (an unterminated IRI or literal, a keyword cut
				// short) may be whole in the input. The read error is
				// the error.
				err = d.lex.rerr
			}
			d.err = err
		}
	}
	q := d.out[d.outHead]
	d.out[d.outHead] = quad.Quad{}
	d.outHead++
	return q, nil
}

func (d *turtleDecoder) Close() error {
	d.closed = true
	return nil
}

// next moves the following token into d.tok.
func (d *turtleDecoder) next() error {
	if d.hasPeek {
		d.hasPeek = false
		d.tok, d.peek = d.peek, d.tok
		return nil
	}
	return d.lex.whole(&d.tok)
}

// lookahead lexes the token after d.tok into d.peek.
func (d *turtleDecoder) lookahead() (*ttlToken, error) {
	if !d.hasPeek {
		if err := d.lex.whole(&d.peek); err != nil {
			return nil, err
		}
		d.hasPeek = true
	}
	return &d.peek, nil
}

func (d *turtleDecoder) errTok(t *ttlToken, format string, args ...any) error {
	return &SyntaxError{File: d.opts.File, Line: t.line, Col: t.col, Msg: fmt.Sprintf(format, clipArgs(args)...)}
}

func (d *turtleDecoder) emit(s, p, o quad.Value) {
	d.out = append(d.out, quad.Quad{Subject: s, Predicate: p, Object: o})
}

func (d *turtleDecoder) newBlank() quad.Value {
	d.blanks++
	return quad.BNode(d.opts.BlankPrefix + "g" + strconv.Itoa(d.blanks))
}

// step reads one token and acts on it; it queues zero or more triples, or
// returns io.EOF at the end of a well-formed input.
func (d *turtleDecoder) step() error {
	if err := d.next(); err != nil {
		return err
	}
	t := &d.tok
	if len(d.stack) == 0 {
		return d.statement(t)
	}
	fi := len(d.stack) - 1
	f := &d.stack[fi]
	if f.kind == fList {
		if t.kind == tRParen {
			last := f.last
			d.stack = d.stack[:fi]
			if last == nil {
				d.deliver(fi-1, rdfNil)
			} else {
				d.emit(last, rdfRest, rdfNil)
			}
			return nil
		}
		if !isObjectStart(t.kind) {
			return d.errTok(t, "unexpected %s in the collection opened at %d:%d, expected an object or ')'", t.describe(), f.line, f.col)
		}
		return d.object(t, fi)
	}
	switch f.state {
	case stVerb, stVerbOpt, stAfterBNPL:
		switch {
		case t.kind == tIRI || t.kind == tPName || t.kind == tA:
			p, err := d.verb(t)
			if err != nil {
				return err
			}
			f.pred, f.state = p, stObject
			return nil
		case f.state == stVerbOpt && t.kind == tSemi:
			return nil
		case f.state == stVerbOpt && t.kind == f.close, f.state == stAfterBNPL && t.kind == tDot:
			d.stack = d.stack[:fi]
			return nil
		}
		return d.errTok(t, "unexpected %s, expected %s", t.describe(), d.expected(f))
	case stObject:
		if !isObjectStart(t.kind) {
			return d.errTok(t, "unexpected %s, expected %s", t.describe(), d.expected(f))
		}
		f.state = stAfterObject
		return d.object(t, fi)
	case stAfterObject:
		switch t.kind {
		case tComma:
			f.state = stObject
			return nil
		case tSemi:
			f.state = stVerbOpt
			return nil
		case f.close:
			d.stack = d.stack[:fi]
			return nil
		}
		return d.errTok(t, "unexpected %s, expected %s", t.describe(), d.expected(f))
	}
	return d.errTok(t, "unexpected %s", t.describe()) // stSubject: unreachable
}

// expected describes what the frame f waits for, for error messages.
func (d *turtleDecoder) expected(f *ttlFrame) string {
	closing := "'.'"
	if f.close == tRBracket {
		closing = fmt.Sprintf("']' to close the '[' opened at %d:%d", f.line, f.col)
	}
	switch f.state {
	case stVerb:
		return "a predicate"
	case stVerbOpt:
		return "a predicate, ';' or " + closing
	case stAfterBNPL:
		return "a predicate or '.'"
	case stObject:
		return "an object"
	}
	return "',', ';' or " + closing
}

func isObjectStart(k tokKind) bool {
	switch k {
	case tIRI, tPName, tBlank, tString, tInteger, tDecimal, tDouble, tBoolean, tLBracket, tLParen:
		return true
	}
	return false
}

// statement handles the first token of a statement (the stack is empty).
func (d *turtleDecoder) statement(t *ttlToken) error {
	switch t.kind {
	case tEOF:
		return io.EOF
	case tLang:
		switch string(t.text) {
		case "prefix":
			return d.prefixDirective(true)
		case "base":
			return d.baseDirective(true)
		}
		return d.errTok(t, "unknown directive '@%s' (expected @prefix or @base)", t.text)
	case tPrefix:
		return d.prefixDirective(false)
	case tBase:
		return d.baseDirective(false)
	case tIRI, tPName, tBlank:
		s, err := d.term(t, false)
		if err != nil {
			return err
		}
		d.stack = append(d.stack, ttlFrame{kind: fPOL, state: stVerb, close: tDot, subj: s})
		return nil
	case tLBracket:
		line, col := t.line, t.col
		p, err := d.lookahead()
		if err != nil {
			return err
		}
		b := d.newBlank()
		if p.kind == tRBracket { // [] subject: a predicate list must follow
			d.hasPeek = false
			d.stack = append(d.stack, ttlFrame{kind: fPOL, state: stVerb, close: tDot, subj: b})
			return nil
		}
		d.stack = append(d.stack,
			ttlFrame{kind: fPOL, state: stAfterBNPL, close: tDot, subj: b},
			ttlFrame{kind: fPOL, state: stVerb, close: tRBracket, subj: b, line: line, col: col})
		return nil
	case tLParen:
		d.stack = append(d.stack,
			ttlFrame{kind: fPOL, state: stSubject, close: tDot},
			ttlFrame{kind: fList, line: t.line, col: t.col})
		return nil
	}
	return d.errTok(t, "unexpected %s, expected a subject or a directive", t.describe())
}

// prefixDirective reads the rest of @prefix (with its '.') or PREFIX.
func (d *turtleDecoder) prefixDirective(dot bool) error {
	if err := d.next(); err != nil {
		return err
	}
	t := &d.tok
	if t.kind != tPName || len(t.text) != t.n+1 {
		return d.errTok(t, "unexpected %s, expected a prefix name ending in ':'", t.describe())
	}
	name := string(t.text[:t.n])
	if err := d.next(); err != nil {
		return err
	}
	if t.kind != tIRI {
		return d.errTok(t, "unexpected %s, expected the namespace IRI of prefix %q", t.describe(), name)
	}
	ns, err := d.resolve(t)
	if err != nil {
		return err
	}
	d.prefixes[name] = ns
	if dot {
		return d.directiveDot("@prefix")
	}
	return nil
}

// baseDirective reads the rest of @base (with its '.') or BASE.
func (d *turtleDecoder) baseDirective(dot bool) error {
	if err := d.next(); err != nil {
		return err
	}
	t := &d.tok
	if t.kind != tIRI {
		return d.errTok(t, "unexpected %s, expected the base IRI", t.describe())
	}
	b, err := d.resolve(t)
	if err != nil {
		return err
	}
	d.base = b
	if dot {
		return d.directiveDot("@base")
	}
	return nil
}

func (d *turtleDecoder) directiveDot(name string) error {
	if err := d.next(); err != nil {
		return err
	}
	if d.tok.kind != tDot {
		return d.errTok(&d.tok, "unexpected %s, expected '.' after the %s directive", d.tok.describe(), name)
	}
	return nil
}

// resolve returns the absolute IRI of the IRIREF token t.
func (d *turtleDecoder) resolve(t *ttlToken) (string, error) {
	if iri.HasScheme(t.text) {
		return string(t.text), nil
	}
	if d.base == "" {
		return "", d.errTok(t, "relative IRI <%s> and no base IRI", t.text)
	}
	// RFC 3986 §4.2: the first segment of a relative-path reference has no
	// ':' (it would read as a scheme); there is no sound way to resolve one.
	for _, c := range t.text {
		if c == '/' || c == '?' || c == '#' {
			break
		}
		if c == ':' {
			return "", d.errTok(t, "relative IRI reference <%s> has a ':' in its first segment (write it as <./%s> or as an absolute IRI)", t.text, t.text)
		}
	}
	return iri.ResolveOrKeep(d.base, string(t.text)), nil
}

// iri returns the IRI of an IRIREF or prefixed name token (iriOf), refusing
// one larger than DecodeOptions.MaxTermBytes.
func (d *turtleDecoder) iri(t *ttlToken, intern bool) (quad.IRI, error) {
	v, err := d.iriOf(t, intern)
	if err == nil {
		err = d.sized(v, t.line, t.col)
	}
	return v, err
}

// sized refuses a term v larger than DecodeOptions.MaxTermBytes, at line
// and col where it starts.
func (d *turtleDecoder) sized(v quad.Value, line, col int) error {
	if msg := d.lex.limit.check(v); msg != "" {
		return &SyntaxError{File: d.opts.File, Line: line, Col: col, Msg: msg}
	}
	return nil
}

// iriOf returns the IRI of an IRIREF or prefixed name token. Interned IRIs
// (predicates, datatypes) share their string.
func (d *turtleDecoder) iriOf(t *ttlToken, intern bool) (quad.IRI, error) {
	var b []byte
	switch t.kind {
	case tIRI:
		if !iri.HasScheme(t.text) {
			s, err := d.resolve(t)
			return quad.IRI(s), err
		}
		b = t.text
	case tPName:
		ns, ok := d.prefixes[string(t.text[:t.n])]
		if !ok {
			return "", d.errTok(t, "undefined prefix %q", t.text[:t.n])
		}
		d.scratch = append(append(d.scratch[:0], ns...), t.text[t.n+1:]...)
		b = d.scratch
	}
	if intern {
		if s, ok := d.intern[string(b)]; ok {
			return quad.IRI(s), nil
		}
		s := string(b)
		if len(d.intern) < maxIntern {
			d.intern[s] = s
		}
		return quad.IRI(s), nil
	}
	// consecutive statements usually share their subject
	if string(b) != d.lastIRI {
		d.lastIRI = string(b)
	}
	return quad.IRI(d.lastIRI), nil
}

func (d *turtleDecoder) verb(t *ttlToken) (quad.Value, error) {
	if t.kind == tA {
		return rdfTypeI, nil
	}
	return d.iri(t, true)
}

// term converts a single-token subject or object: IRI, prefixed name, blank
// node label, number or boolean.
func (d *turtleDecoder) term(t *ttlToken, intern bool) (quad.Value, error) {
	switch t.kind {
	case tIRI, tPName:
		return d.iri(t, intern)
	case tBlank:
		v := quad.BNode(d.opts.BlankPrefix + "e" + string(t.text))
		return v, d.sized(v, t.line, t.col)
	case tInteger, tDecimal, tDouble:
		v := quad.TypedString{Value: quad.String(t.text), Type: xsdNS + "integer"}
		switch t.kind {
		case tDecimal:
			v.Type = xsdNS + "decimal"
		case tDouble:
			v.Type = xsdNS + "double"
		}
		return v, d.sized(v, t.line, t.col)
	case tBoolean:
		if t.text[0] == 't' {
			return quad.TypedString{Value: "true", Type: xsdBoolean}, nil
		}
		return quad.TypedString{Value: "false", Type: xsdBoolean}, nil
	}
	return nil, d.errTok(t, "unexpected %s", t.describe())
}

// object handles an object (or collection item) starting with token t, to be
// delivered to frame fi.
func (d *turtleDecoder) object(t *ttlToken, fi int) error {
	switch t.kind {
	case tLBracket:
		line, col := t.line, t.col
		p, err := d.lookahead()
		if err != nil {
			return err
		}
		b := d.newBlank()
		d.deliver(fi, b)
		if p.kind == tRBracket {
			d.hasPeek = false
			return nil
		}
		d.stack = append(d.stack, ttlFrame{kind: fPOL, state: stVerb, close: tRBracket, subj: b, line: line, col: col})
		return nil
	case tLParen:
		d.stack = append(d.stack, ttlFrame{kind: fList, line: t.line, col: t.col})
		return nil
	case tString:
		v, err := d.literal()
		if err != nil {
			return err
		}
		d.deliver(fi, v)
		return nil
	}
	v, err := d.term(t, false)
	if err != nil {
		return err
	}
	d.deliver(fi, v)
	return nil
}

// literal finishes the string in d.tok with its language tag or datatype
// (literalOf), refusing a literal larger than DecodeOptions.MaxTermBytes.
func (d *turtleDecoder) literal() (quad.Value, error) {
	line, col := d.tok.line, d.tok.col
	v, err := d.literalOf()
	if err == nil {
		err = d.sized(v, line, col)
	}
	return v, err
}

// literalOf finishes the string in d.tok with its language tag or datatype.
func (d *turtleDecoder) literalOf() (quad.Value, error) {
	val := quad.String(d.tok.text)
	p, err := d.lookahead()
	if err != nil {
		return nil, err
	}
	switch p.kind {
	case tLang:
		d.hasPeek = false
		return quad.LangString{Value: val, Lang: string(p.text)}, nil
	case tCarets:
		d.hasPeek = false
		if err := d.next(); err != nil {
			return nil, err
		}
		t := &d.tok
		if t.kind != tIRI && t.kind != tPName {
			return nil, d.errTok(t, "unexpected %s, expected a datatype IRI after '^^'", t.describe())
		}
		dt, err := d.iri(t, true)
		if err != nil {
			return nil, err
		}
		switch dt {
		case xsdString:
			return val, nil
		case rdfLangString:
			return nil, d.errTok(t, msgLangStringNoTag)
		}
		return quad.TypedString{Value: val, Type: dt}, nil
	}
	return val, nil
}

// deliver hands the term v, now complete, to frame fi: the object of its
// current predicate, the subject it waits for, or the next item of a
// collection (whose first cell is in turn delivered to the frame below).
func (d *turtleDecoder) deliver(fi int, v quad.Value) {
	for {
		f := &d.stack[fi]
		if f.kind == fPOL {
			if f.state == stSubject {
				f.subj, f.state = v, stVerb
				return
			}
			d.emit(f.subj, f.pred, v)
			return
		}
		cell := d.newBlank()
		d.emit(cell, rdfFirst, v)
		last := f.last
		f.last = cell
		if last != nil {
			d.emit(last, rdfRest, cell)
			return
		}
		v, fi = cell, fi-1 // the first cell is the collection's term
	}
}
