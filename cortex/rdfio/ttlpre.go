package rdfio

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// ttlPre is a streaming, line-preserving rewriter that sits between the
// caller's reader and knakk/rdf's Turtle decoder. It works around knakk's
// defects exactly:
//
//   - strips a leading byte order mark;
//   - resolves every IRI reference against the current base (RFC 3986) and
//     writes it absolute, tracking @base/BASE, so knakk's string concatenation
//     of base and reference never happens;
//   - rewrites explicit blank node labels _:x to _:ex, so they never collide
//     with the _:bN labels knakk generates for [] and collections;
//   - escapes quote characters inside long strings ("""a"b"""" and a quote
//     before a line break are misread by knakk) and a '#' starting a line
//     inside a long string (knakk drops such lines);
//   - blanks a ';' (or a run of them) directly before ']' — valid Turtle
//     ("[ <p> <o> ; ]") that knakk rejects — holding lines back while a ';'
//     waits for the next token;
//   - reports undefined prefixes, bad IRIs and relative IRIs without a base
//     with exact positions.
//
// It never adds or removes line breaks, and records per-line column shifts so
// knakk's error positions can be mapped back to the input.
type ttlPre struct {
	r    *bufio.Reader
	file string
	base string

	out    []byte // transformed line being handed out
	outPos int
	long   []byte

	// Transformed lines not handed out yet: a ';' in them (semis) waits for
	// the next token, which decides whether it is blanked.
	held    []heldLine
	free    [][]byte
	semis   []semiRef // top-level ';' since the last other token
	prevTok byte      // first byte of the last top-level token other than ';'
	eof     bool

	line int // number of the line being transformed (1-based)
	bom  bool

	// mu guards the fields shared with the goroutine calling Next: Read runs
	// on knakk's lexer goroutine.
	mu       sync.Mutex
	pubLine  int // last line handed out
	lineEdit map[int][]colPair
	editQ    []int
	err      error // *SyntaxError or read error found by the rewriter
	closed   atomic.Bool

	// lexical state carried across lines
	inLong    bool
	longQuote byte
	word      wordKind
	wordText  []byte
	wordCol   int
	wordOut   int
	edits     []colPair
	wordColon bool

	expectBase   bool
	expectPrefix bool
	prefixes     map[string]bool
}

type wordKind int

const (
	wNone wordKind = iota
	wName
	wLang
	wBlank
)

// colPair says that output offset out of a line corresponds to input offset in.
type colPair struct{ out, in int }

// heldLine is a transformed line waiting to be handed out.
type heldLine struct {
	line int
	buf  []byte
}

// semiRef locates a ';' in the output: line number and byte offset.
type semiRef struct{ line, off int }

func newTTLPre(r io.Reader, file, base string) *ttlPre {
	return &ttlPre{
		r:        bufio.NewReaderSize(r, 64<<10),
		file:     file,
		base:     base,
		lineEdit: map[int][]colPair{},
		prefixes: map[string]bool{},
		bom:      true,
	}
}

// Read hands out at most one transformed line per call, so that the line
// knakk's lexer is on stays close to the line handed out last.
func (p *ttlPre) Read(b []byte) (int, error) {
	if p.closed.Load() {
		return 0, io.EOF
	}
	for p.outPos >= len(p.out) {
		if p.release() {
			continue
		}
		if p.eof {
			p.closed.Store(true)
			return 0, io.EOF
		}
		if err := p.nextLine(); err != nil {
			if err == io.EOF {
				p.eof = true
				p.semis = p.semis[:0] // nothing follows: hand everything out
				continue
			}
			p.mu.Lock()
			if p.err == nil {
				p.err = err
			}
			p.mu.Unlock()
			p.closed.Store(true)
			return 0, io.EOF
		}
	}
	n := copy(b, p.out[p.outPos:])
	p.outPos += n
	return n, nil
}

// release moves the first held line into out when no pending ';' is in it.
func (p *ttlPre) release() bool {
	if len(p.held) == 0 || len(p.semis) > 0 && p.semis[0].line <= p.held[0].line {
		return false
	}
	h := p.held[0]
	copy(p.held, p.held[1:])
	p.held = p.held[:len(p.held)-1]
	if cap(p.out) > 0 && len(p.free) < 4 {
		p.free = append(p.free, p.out[:0])
	}
	p.out, p.outPos = h.buf, 0
	p.mu.Lock()
	p.pubLine = h.line
	p.mu.Unlock()
	return true
}

// token is called for every top-level token character c of the current line
// (not inside a comment, string or IRI) before it is written at output offset
// len(o). It tracks ';' runs and blanks them when ']' follows.
func (p *ttlPre) token(o []byte, c byte) {
	switch c {
	case ';':
		// "[ ;" is not valid Turtle: leave such a ';' for knakk to reject.
		if p.prevTok != '[' {
			p.semis = append(p.semis, semiRef{line: p.line, off: len(o)})
		}
		return
	case ']':
		for _, s := range p.semis {
			if s.line == p.line {
				o[s.off] = ' '
				continue
			}
			for k := range p.held {
				if p.held[k].line == s.line {
					p.held[k].buf[s.off] = ' '
					break
				}
			}
		}
	}
	p.semis = p.semis[:0]
	p.prevTok = c
}

func (p *ttlPre) nextLine() error {
	line, err := p.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		p.long = append(p.long[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = p.r.ReadSlice('\n')
			p.long = append(p.long, line...)
		}
		line = p.long
	}
	if len(line) == 0 {
		if err == nil {
			err = io.EOF
		}
		return err
	}
	if err != nil && err != io.EOF {
		return err
	}
	p.line++
	var buf []byte
	if n := len(p.free); n > 0 {
		buf, p.free = p.free[n-1], p.free[:n-1]
	}
	p.edits = p.edits[:0]
	in := line
	off := 0
	if p.bom {
		p.bom = false
		if len(in) >= 3 && in[0] == 0xEF && in[1] == 0xBB && in[2] == 0xBF {
			off = 3 // columns do not count the byte order mark
		}
	}
	out, terr := p.transform(buf, in[off:], 0)
	if terr != nil {
		return terr
	}
	p.held = append(p.held, heldLine{line: p.line, buf: out})
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.edits) > 0 {
		p.lineEdit[p.line] = append([]colPair(nil), p.edits...)
		p.editQ = append(p.editQ, p.line)
		for len(p.editQ) > 0 && p.editQ[0] < p.line-20000 {
			delete(p.lineEdit, p.editQ[0])
			p.editQ = p.editQ[1:]
		}
	}
	return nil
}

// inputCol maps a 0-based output byte offset on line to a 1-based input column.
func (p *ttlPre) inputCol(line, outCol int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	in := outCol
	for _, e := range p.lineEdit[line] {
		if e.out <= outCol {
			in = e.in + outCol - e.out
		}
	}
	return in + 1
}

// failure returns the error found by the rewriter, if any.
func (p *ttlPre) failure() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// lastLine returns the number of the line handed out last.
func (p *ttlPre) lastLine() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pubLine
}

func (p *ttlPre) errAt(col int, format string, args ...any) error {
	return &SyntaxError{File: p.file, Line: p.line, Col: col + 1, Msg: fmt.Sprintf(format, args...)}
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '-' || c == ':' || c == '.' || c == '%' || c >= 0x80
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// edit records that output offset len(o) corresponds to input offset in.
func (p *ttlPre) edit(o []byte, in int) {
	if len(o) != in || len(p.edits) > 0 {
		p.edits = append(p.edits, colPair{len(o), in})
	}
}

const (
	xsdNS = "http://www.w3.org/2001/XMLSchema#"
)

// number returns the end of the longest Turtle INTEGER, DECIMAL or DOUBLE
// starting at in[i] and its xsd datatype, or kind "" when there is none.
func number(in []byte, i int) (int, string) {
	j := i
	if j < len(in) && (in[j] == '+' || in[j] == '-') {
		j++
	}
	d1 := j
	for d1 < len(in) && isDigit(in[d1]) {
		d1++
	}
	exponent := func(k int) int {
		if k >= len(in) || in[k] != 'e' && in[k] != 'E' {
			return -1
		}
		k++
		if k < len(in) && (in[k] == '+' || in[k] == '-') {
			k++
		}
		s := k
		for k < len(in) && isDigit(in[k]) {
			k++
		}
		if k == s {
			return -1
		}
		return k
	}
	end, kind := i, ""
	if d1 > j {
		end, kind = d1, "integer"
	}
	if d1 < len(in) && in[d1] == '.' {
		d2 := d1 + 1
		for d2 < len(in) && isDigit(in[d2]) {
			d2++
		}
		if d2 > d1+1 {
			end, kind = d2, "decimal"
		}
		if d2 > d1+1 || d1 > j {
			if e := exponent(d2); e > 0 {
				return e, "double"
			}
		}
	} else if d1 > j {
		if e := exponent(d1); e > 0 {
			return e, "double"
		}
	}
	return end, kind
}

// transform rewrites one input line starting at in[i].
func (p *ttlPre) transform(o, in []byte, i int) ([]byte, error) {
	var err error
	for i < len(in) {
		c := in[i]
		if p.inLong {
			q := p.longQuote
			switch {
			case c == '\\':
				if err := p.checkEscape(in, i); err != nil {
					return o, err
				}
				o = append(o, c)
				i++
				if i < len(in) && in[i] != '\n' && in[i] != '\r' {
					o = append(o, in[i])
					i++
				}
			case c == q:
				k := 0
				for i+k < len(in) && in[i+k] == q {
					k++
				}
				// A long string ends at the first three quotes: content
				// quotes must be followed by something else (grammar of
				// STRING_LITERAL_LONG_*), so """a"""" is """a""" and '"'.
				content := k
				if k >= 3 {
					content = 0
				}
				for j := 0; j < content; j++ {
					o = append(o, '\\', q)
				}
				i += content
				if k >= 3 {
					o = append(o, q, q, q)
					i += 3
					p.inLong = false
				}
				p.edit(o, i)
			case c == '#' && i == 0:
				o = append(o, `\u0023`...)
				i++
				p.edit(o, i)
			default:
				o = append(o, c)
				i++
			}
			continue
		}
		if p.word != wNone {
			cont := false
			switch p.word {
			case wBlank:
				if c == ':' {
					return o, p.errAt(i, "':' not allowed in blank node label")
				}
				cont = isNameByte(c)
			case wName:
				cont = isNameByte(c) || c == '\\'
			case wLang:
				cont = isAlnum(c) || c == '-'
			}
			if cont {
				switch {
				case c == '\\':
					o = append(o, c)
					i++
					if i < len(in) && in[i] != '\n' && in[i] != '\r' {
						o = append(o, in[i])
						i++
					}
					continue
				case c == ':' && p.word == wName && !p.wordColon:
					// Every prefix label gets a 'z' in front: knakk misreads
					// labels starting with "base", "prefix", "true", "false".
					p.wordColon = true
					p.wordText = append(p.wordText, c)
					o = append(o, 0)
					copy(o[p.wordOut+1:], o[p.wordOut:])
					o[p.wordOut] = 'z'
					p.edits = append(p.edits, colPair{p.wordOut + 1, p.wordCol})
				case !p.wordColon && len(p.wordText) < 64:
					p.wordText = append(p.wordText, c)
				}
				o = append(o, c)
				i++
				continue
			}
			if o, err = p.endWord(o, i); err != nil {
				return o, err
			}
		}
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '#' {
			p.token(o, c)
		}
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			o = append(o, c)
			i++
		case c == '#':
			o = append(o, in[i:]...)
			i = len(in)
		case c == '<':
			if o, i, err = p.iri(o, in, i); err != nil {
				return o, err
			}
			p.edit(o, i)
		case c == '"' || c == '\'':
			p.expectBase, p.expectPrefix = false, false
			if i+2 < len(in) && in[i+1] == c && in[i+2] == c {
				o = append(o, c, c, c)
				i += 3
				p.inLong, p.longQuote = true, c
				continue
			}
			j := i + 1
			for j < len(in) && in[j] != c && in[j] != '\n' && in[j] != '\r' {
				if in[j] == '\\' {
					if err := p.checkEscape(in, j); err != nil {
						return o, err
					}
					j++
				}
				j++
			}
			if j < len(in) && in[j] == c {
				j++
			}
			j = min(j, len(in))
			o = append(o, in[i:j]...)
			i = j
		case c == '_' && i+1 < len(in) && in[i+1] == ':':
			p.expectBase, p.expectPrefix = false, false
			o = append(o, '_', ':', 'e')
			i += 2
			p.edit(o, i)
			p.startWord(wBlank, i, len(o))
		case c == '@':
			p.startWord(wLang, i, len(o))
			p.wordText = append(p.wordText, c)
			o = append(o, c)
			i++
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == ':' || c >= 0x80:
			p.startWord(wName, i, len(o))
		case isDigit(c) || c == '+' || c == '-' || c == '.':
			end, kind := number(in, i)
			if kind == "" {
				o = append(o, c)
				i++
				break
			}
			// knakk misreads some numbers (-.5, a number before a tab or a
			// line break); the explicit typed form keeps the lexical form.
			p.expectBase, p.expectPrefix = false, false
			o = append(o, '"')
			o = append(o, in[i:end]...)
			o = append(o, `"^^<`+xsdNS...)
			o = append(o, kind...)
			o = append(o, '>')
			i = end
			p.edit(o, i)
		default:
			o = append(o, c)
			i++
		}
	}
	if p.word != wNone && !p.inLong {
		// a line break ends every word
		if o, err = p.endWord(o, i); err != nil {
			return o, err
		}
	}
	return o, nil
}

// checkEscape validates the string escape sequence at in[i] ('\\').
func (p *ttlPre) checkEscape(in []byte, i int) error {
	if i+1 >= len(in) {
		return p.errAt(i, "incomplete escape sequence")
	}
	switch in[i+1] {
	case 't', 'b', 'n', 'r', 'f', '"', '\'', '\\':
		return nil
	case 'u', 'U':
		sc := scanner{line: p.line, file: p.file}
		_, _, err := sc.uchar(in, i, 0)
		return err
	}
	return p.errAt(i, "bad escape sequence \\%c", in[i+1])
}

func (p *ttlPre) startWord(k wordKind, col, out int) {
	p.word, p.wordCol, p.wordOut, p.wordColon = k, col, out, false
	p.wordText = p.wordText[:0]
}

// endWord finishes the word that ended at input offset in.
func (p *ttlPre) endWord(o []byte, in int) ([]byte, error) {
	k, text := p.word, string(p.wordText)
	p.word = wNone
	switch k {
	case wLang:
		switch text {
		case "@prefix":
			p.expectPrefix = true
		case "@base":
			p.expectBase = true
		}
		return o, nil
	case wName:
		if p.expectPrefix {
			p.expectPrefix = false
			if p.wordColon && strings.HasSuffix(text, ":") {
				p.prefixes[text[:len(text)-1]] = true
			}
			return o, nil
		}
		if !p.wordColon {
			switch text {
			case "a":
				// knakk reads 'a' as rdf:type only before ' ', '\t', '<', '"'
				// or '\''; give it a space in front of anything else.
				o = append(o, ' ')
				p.edit(o, in)
				return o, nil
			case "true", "false":
				o = append(o[:p.wordOut], '"')
				o = append(o, text...)
				o = append(o, `"^^<`+xsdNS+`boolean>`...)
				p.edit(o, in)
				return o, nil
			}
			switch strings.ToUpper(text) {
			case "PREFIX":
				p.expectPrefix = true
			case "BASE":
				p.expectBase = true
			}
			return o, nil
		}
		p.expectBase = false
		prefix := text[:len(text)-1]
		if !p.prefixes[prefix] {
			return o, p.errAt(p.wordCol, "undefined prefix %q", prefix)
		}
	default:
		p.expectBase, p.expectPrefix = false, false
	}
	return o, nil
}

// iri rewrites the IRI reference starting at in[i] ('<') as an absolute IRI.
func (p *ttlPre) iri(o, in []byte, i int) ([]byte, int, error) {
	start := i
	j := i + 1
	var val []byte
	for {
		if j >= len(in) || in[j] == '\n' || in[j] == '\r' {
			return o, j, p.errAt(start, "unterminated IRI")
		}
		c := in[j]
		if c == '>' {
			break
		}
		if c == '\\' {
			sc := scanner{line: p.line, file: p.file}
			r, n, err := sc.uchar(in, j, 0)
			if err != nil {
				return o, j, err
			}
			// IRIREF allows DEL raw and as UCHAR; a UCHAR must not give
			// a character IRIREF excludes.
			if r < 0x80 && badIRIByte(byte(r)) {
				return o, j, p.errAt(j, "escaped character %q not allowed in IRI", r)
			}
			val = utf8.AppendRune(val, r)
			j += n
			continue
		}
		if c < 0x80 && badIRIByte(c) {
			return o, j, p.errAt(j, "character %q not allowed in IRI", c)
		}
		val = append(val, c)
		j++
	}
	j++ // '>'
	if !utf8.Valid(val) {
		return o, j, p.errAt(start, "IRI is not valid UTF-8")
	}
	iri := string(val)
	if !hasScheme(iri) {
		if p.base == "" {
			return o, j, p.errAt(start, "relative IRI <%s> and no base IRI", iri)
		}
		iri = resolveIRI(p.base, iri)
	}
	if p.expectBase {
		p.base = iri
		p.expectBase = false
	}
	p.expectPrefix = false
	return appendIRI(o, iri), j, nil
}
