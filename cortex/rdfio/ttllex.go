package rdfio

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/cortexgraph/cortex/cortex/internal/lex"
)

// tokKind is the kind of a Turtle token.
type tokKind uint8

const (
	tEOF      tokKind = iota
	tIRI              // <...>: text is the unescaped IRI reference (maybe relative)
	tPName            // prefix:local: text is prefix ':' unescaped local, n the prefix length
	tBlank            // _:label: text is the label
	tString           // any of the four string forms: text is the unescaped value
	tLang             // @word: text is the word (a language tag, or "prefix"/"base")
	tInteger          // text is the lexical form
	tDecimal          // text is the lexical form
	tDouble           // text is the lexical form
	tBoolean          // true or false: text is the lexical form
	tA                // the keyword a
	tPrefix           // SPARQL-style PREFIX (any case)
	tBase             // SPARQL-style BASE (any case)
	tDot              // .
	tSemi             // ;
	tComma            // ,
	tLBracket         // [
	tRBracket         // ]
	tLParen           // (
	tRParen           // )
	tCarets           // ^^
)

// tokNames describe token kinds in error messages.
var tokNames = [...]string{
	tEOF: "end of input", tIRI: "IRI", tPName: "prefixed name", tBlank: "blank node",
	tString: "string", tLang: "language tag", tInteger: "integer", tDecimal: "decimal",
	tDouble: "double", tBoolean: "boolean", tA: "'a'", tPrefix: "PREFIX", tBase: "BASE",
	tDot: "'.'", tSemi: "';'", tComma: "','", tLBracket: "'['", tRBracket: "']'",
	tLParen: "'('", tRParen: "')'", tCarets: "'^^'",
}

// ttlToken is one lexed token. text is owned by the token and reused.
type ttlToken struct {
	kind      tokKind
	line, col int    // position of the first byte (1-based; col counts bytes)
	text      []byte // see tokKind
	n         int    // tPName: length of the prefix in text
}

// describe returns the token for an error message: its kind and, for short
// tokens, its text.
func (t *ttlToken) describe() string {
	switch t.kind {
	case tIRI:
		if len(t.text) <= 40 {
			return fmt.Sprintf("IRI <%s>", t.text)
		}
	case tPName, tBlank, tInteger, tDecimal, tDouble, tBoolean:
		if len(t.text) <= 40 {
			if t.kind == tBlank {
				return fmt.Sprintf("blank node _:%s", t.text)
			}
			return fmt.Sprintf("%s %s", tokNames[t.kind], t.text)
		}
	case tLang:
		return fmt.Sprintf("'@%s'", t.text)
	}
	return tokNames[t.kind]
}

// ttlLexer splits Turtle input into tokens. It reads one line at a time
// (readLine), a long line in pieces cut at white space between tokens:
// every token but a long string lies on one line, so a token is always
// whole in buf, and a long string reads further lines.
type ttlLexer struct {
	lines     lineReader
	file      string
	buf       []byte // current chunk: a line with its line end (the last may lack it), or a piece of one
	pos       int    // next byte in buf
	line      int    // 1-based line of buf[lineStart]
	lineStart int    // offset in buf where the current line starts (negative after a cut)
	eof       bool
	rerr      error // read error other than io.EOF, or a token too large (*SyntaxError)
	started   bool
	limit     termLimit
	tooLarge  bool // rerr is a token too large
	// eofSkip is the bytes of a comment that the end of the input ends,
	// left out of buf (lineReader.skipped): the end is after them.
	eofSkip int
}

func (l *ttlLexer) init(r io.Reader, file string, limit termLimit) {
	l.lines = lineReader{r: bufio.NewReaderSize(r, 64<<10), cut: true, max: limit.max}
	l.file = file
	l.line = 1
	l.limit = limit
}

// errAt returns a *SyntaxError at byte offset off of buf.
func (l *ttlLexer) errAt(off int, format string, args ...any) error {
	return &SyntaxError{File: l.file, Line: l.line, Col: off - l.lineStart + 1, Msg: fmt.Sprintf(format, clipArgs(args)...)}
}

// fill loads the next line. It reports false at the end of the input, or
// after a read error (kept in rerr) once the data before it is used.
func (l *ttlLexer) fill() bool {
	if l.eof {
		return false
	}
	line, err := l.lines.readLine()
	l.lineStart -= len(l.buf)
	l.buf, l.pos = line, 0
	if !l.started {
		l.started = true
		if len(line) >= 3 && line[0] == 0xEF && line[1] == 0xBB && line[2] == 0xBF {
			l.pos, l.lineStart = 3, 3 // columns do not count the byte order mark
		}
	}
	if err != nil {
		l.eof = true
		l.eofSkip = l.lines.skipped
		if err != io.EOF {
			// Reported once the data read before it is used, where that
			// data ends (it holds no line end: readLine returns a line
			// that one ends without the error), where a token too large
			// starts.
			col := len(line) - l.lineStart + 1
			if _, ok := err.(tokenTooLarge); ok {
				l.rerr, l.tooLarge = &SyntaxError{File: l.file, Line: l.line, Col: col, Msg: l.limit.msg(-1)}, true
			} else {
				l.rerr = &ReadError{File: l.file, Line: l.line, Col: col + l.lines.skipped, Offset: l.lines.off, Err: err}
			}
		}
	}
	return len(line) > 0
}

// newline records that a line ends just before buf[pos].
func (l *ttlLexer) newline() {
	l.line++
	l.lineStart = l.pos
}

// skipSpace skips white space and comments. It reports false at the end of
// the input (or on a read error).
func (l *ttlLexer) skipSpace() bool {
	for {
		for l.pos < len(l.buf) {
			switch l.buf[l.pos] {
			case ' ', '\t':
				l.pos++
			case '\n':
				l.pos++
				l.newline()
			case '\r':
				l.pos++
				if l.pos < len(l.buf) && l.buf[l.pos] == '\n' {
					l.pos++
				}
				l.newline()
			case '#':
				for l.pos < len(l.buf) && l.buf[l.pos] != '\n' && l.buf[l.pos] != '\r' {
					l.pos++
				}
			default:
				return true
			}
		}
		if !l.fill() {
			return false
		}
	}
}

// whole is next, but for a token that no white space separates from
// where a read error cut the input: it may be another token in the
// input ("abc"@e of "abc"@en, 1 of 1.5, :a of :abc), so the read error
// is returned instead.
func (l *ttlLexer) whole(t *ttlToken) error {
	if err := l.next(t); err != nil {
		return err
	}
	// rerr is set as the last chunk is read: buf is that chunk.
	if l.rerr != nil && t.kind != tEOF && !bytes.ContainsAny(l.buf[l.pos:], " \t\r\n") {
		return l.rerr
	}
	return nil
}

// next reads the next token into t. At the end of the input t.kind is tEOF.
// Errors are *SyntaxError values, or read errors.
func (l *ttlLexer) next(t *ttlToken) error {
	t.text = t.text[:0]
	if !l.skipSpace() {
		if l.rerr != nil {
			return l.rerr
		}
		t.kind, t.line, t.col = tEOF, l.line, l.pos-l.lineStart+1+l.eofSkip
		return nil
	}
	b := l.buf
	i := l.pos
	t.line, t.col = l.line, i-l.lineStart+1
	c := b[i]
	switch c {
	case '<':
		return l.iriRef(t)
	case '"', '\'':
		if i+2 < len(b) && b[i+1] == c && b[i+2] == c {
			return l.longString(t, c)
		}
		return l.shortString(t, c)
	case '_':
		if i+1 < len(b) && b[i+1] == ':' {
			return l.blank(t)
		}
		return l.errAt(i, "unexpected '_' (a blank node label starts with \"_:\")")
	case '@':
		j := i + 1
		for j < len(b) && isLetter(b[j]) {
			j++
		}
		if j == i+1 {
			return l.errAt(i, "expected a language tag or a directive after '@'")
		}
		for j+1 < len(b) && b[j] == '-' && isAlnum(b[j+1]) {
			j += 2
			for j < len(b) && isAlnum(b[j]) {
				j++
			}
		}
		t.kind, t.text = tLang, append(t.text, b[i+1:j]...)
		l.pos = j
		return nil
	case '^':
		if i+1 < len(b) && b[i+1] == '^' {
			t.kind = tCarets
			l.pos = i + 2
			return nil
		}
		return l.errAt(i, "unexpected '^' (a datatype follows \"^^\")")
	case '.', '+', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		end, kind := number(b, i)
		if kind == "" {
			if c == '.' {
				t.kind = tDot
				l.pos = i + 1
				return nil
			}
			return l.errAt(i, "unexpected %s", describeByte(b, i))
		}
		switch kind {
		case "integer":
			t.kind = tInteger
		case "decimal":
			t.kind = tDecimal
		default:
			t.kind = tDouble
		}
		t.text = append(t.text, b[i:end]...)
		l.pos = end
		return nil
	case ';':
		t.kind = tSemi
	case ',':
		t.kind = tComma
	case '[':
		t.kind = tLBracket
	case ']':
		t.kind = tRBracket
	case '(':
		t.kind = tLParen
	case ')':
		t.kind = tRParen
	default:
		if c == ':' || isLetter(c) {
			return l.name(t)
		}
		if c >= 0x80 {
			if r, _ := lex.DecodeRune(b[i:]); lex.IsPNCharsBase(r) {
				return l.name(t)
			}
		}
		return l.errAt(i, "unexpected %s", describeByte(b, i))
	}
	l.pos = i + 1
	return nil
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// iriRef reads <...> at pos, unescaping \u and \U.
func (l *ttlLexer) iriRef(t *ttlToken) error {
	b := l.buf
	start := l.pos
	high := false
	for j := start + 1; ; {
		if j >= len(b) || b[j] == '\n' || b[j] == '\r' {
			return l.errAt(start, "unterminated IRI")
		}
		c := b[j]
		switch {
		case c == '>':
			if high && !utf8.Valid(t.text) {
				return l.errAt(start, "IRI is not valid UTF-8")
			}
			t.kind = tIRI
			l.pos = j + 1
			return nil
		case c == '\\':
			r, n, err := lex.UCHAR(b[j:])
			if err != nil {
				return l.errAt(j, "%v", err)
			}
			// IRIREF allows DEL raw and as UCHAR; a UCHAR must not give
			// a character IRIREF excludes.
			if r < 0x80 && badIRIByte(byte(r)) {
				return l.errAt(j, "escaped character %q not allowed in IRI", r)
			}
			t.text = utf8.AppendRune(t.text, r)
			j += n
		case c >= 0x80:
			high = true
			t.text = append(t.text, c)
			j++
		case badIRIByte(c):
			return l.errAt(j, "character %q not allowed in IRI", c)
		default:
			t.text = append(t.text, c)
			j++
		}
	}
}

// escape decodes the string escape (ECHAR or UCHAR) at b[j] ('\\'), appending
// the character to t.text, and returns the offset after it.
func (l *ttlLexer) escape(t *ttlToken, b []byte, j int) (int, error) {
	if j+1 >= len(b) {
		return j, l.errAt(j, "incomplete escape sequence")
	}
	if c, ok := lex.ECHAR(b[j+1]); ok {
		t.text = append(t.text, c)
		return j + 2, nil
	}
	switch b[j+1] {
	case 'u', 'U':
		r, n, err := lex.UCHAR(b[j:])
		if err != nil {
			return j, l.errAt(j, "%v", err)
		}
		t.text = utf8.AppendRune(t.text, r)
		return j + n, nil
	case '\n', '\r':
		return j, l.errAt(j, "incomplete escape sequence")
	}
	r, _ := lex.DecodeRune(b[j+1:])
	if r == lex.Invalid {
		return j, l.errAt(j, "bad escape sequence: '\\' followed by %s", describeByte(b, j+1))
	}
	return j, l.errAt(j, "bad escape sequence \\%c", r)
}

// shortString reads "..." or '...' at pos.
func (l *ttlLexer) shortString(t *ttlToken, q byte) error {
	b := l.buf
	start := l.pos
	high := false
	for j := start + 1; ; {
		if j >= len(b) || b[j] == '\n' || b[j] == '\r' {
			return l.errAt(start, "unterminated string literal")
		}
		c := b[j]
		switch {
		case c == q:
			if high && !utf8.Valid(t.text) {
				return l.errAt(start, "string literal is not valid UTF-8")
			}
			t.kind = tString
			l.pos = j + 1
			return nil
		case c == '\\':
			var err error
			if j, err = l.escape(t, b, j); err != nil {
				return err
			}
		default:
			high = high || c >= 0x80
			t.text = append(t.text, c)
			j++
		}
	}
}

// longString reads a long string (three quotes or three apostrophes) at pos;
// it may span lines. The string ends at the first three unescaped quotes
// (content quotes must be followed by another character:
// STRING_LITERAL_LONG_QUOTE).
func (l *ttlLexer) longString(t *ttlToken, q byte) error {
	startLine, startCol := l.line, l.pos-l.lineStart+1
	unterminated := func() error {
		return &SyntaxError{File: l.file, Line: startLine, Col: startCol, Msg: "unterminated long string literal"}
	}
	tooLarge := func() error {
		return &SyntaxError{File: l.file, Line: startLine, Col: startCol, Msg: l.limit.msg(-1)}
	}
	high := false
	l.pos += 3
	for {
		if l.pos >= len(l.buf) {
			if l.limit.max > 0 && len(t.text) > l.limit.max {
				// (each line of it is bounded by readLine: so is the string)
				return tooLarge()
			}
			l.lines.longQ = q // the next line starts inside this string
			if !l.fill() {
				if l.tooLarge {
					// at the string's start, not where the line is cut
					l.rerr = tooLarge()
					return l.rerr
				}
				if l.rerr != nil {
					return l.rerr
				}
				return unterminated()
			}
			continue
		}
		b := l.buf
		c := b[l.pos]
		switch c {
		case q:
			k := 1
			for l.pos+k < len(b) && b[l.pos+k] == q && k < 3 {
				k++
			}
			if k == 3 {
				l.pos += 3
				if high && !utf8.Valid(t.text) {
					return &SyntaxError{File: l.file, Line: startLine, Col: startCol, Msg: "string literal is not valid UTF-8"}
				}
				t.kind = tString
				return nil
			}
			t.text = append(t.text, b[l.pos:l.pos+k]...)
			l.pos += k
		case '\\':
			j, err := l.escape(t, b, l.pos)
			if err != nil {
				return err
			}
			l.pos = j
		case '\n':
			t.text = append(t.text, c)
			l.pos++
			l.newline()
		case '\r':
			t.text = append(t.text, c)
			l.pos++
			if l.pos < len(b) && b[l.pos] == '\n' {
				t.text = append(t.text, '\n')
				l.pos++
			}
			l.newline()
		default:
			high = high || c >= 0x80
			t.text = append(t.text, c)
			l.pos++
		}
	}
}

// blank reads _:label at pos: BLANK_NODE_LABEL, which cannot end with '.'.
func (l *ttlLexer) blank(t *ttlToken) error {
	b := l.buf
	i := l.pos + 2
	r, n := lex.DecodeRune(b[i:])
	if !lex.IsLabelStart(r) {
		return l.errAt(i, "blank node label must start with a letter, a digit or '_', not %s", describeByte(b, i))
	}
	i += n
	end := i
	for i < len(b) {
		c := b[i]
		if c < 0x80 {
			switch {
			case c == '.':
				i++
				continue
			case isAlnum(c) || c == '_' || c == '-':
				i++
				end = i
				continue
			}
			break
		}
		r, n := lex.DecodeRune(b[i:])
		if !lex.IsPNChars(r) {
			break
		}
		i += n
		end = i
	}
	t.kind, t.text = tBlank, append(t.text, b[l.pos+2:end]...)
	l.pos = end
	return nil
}

// name reads a prefixed name (PNAME_NS or PNAME_LN) or a keyword (a, true,
// false, PREFIX, BASE) at pos, which holds ':' or a PN_CHARS_BASE character.
func (l *ttlLexer) name(t *ttlToken) error {
	b := l.buf
	start := l.pos
	i := start
	if b[i] != ':' {
		// PN_PREFIX ::= PN_CHARS_BASE ((PN_CHARS | '.')* PN_CHARS)?
		_, n := lex.DecodeRune(b[i:])
		i += n
		end := i
		for i < len(b) {
			c := b[i]
			if c == '.' {
				i++
				continue
			}
			if c < 0x80 {
				if !(isAlnum(c) || c == '_' || c == '-') {
					break
				}
				i++
				end = i
				continue
			}
			r, n := lex.DecodeRune(b[i:])
			if !lex.IsPNChars(r) {
				break
			}
			i += n
			end = i
		}
		i = end
		if i >= len(b) || b[i] != ':' {
			if r, _ := lex.DecodeRune(b[i:]); r == lex.Invalid && i < len(b) {
				return l.errAt(i, "unexpected %s", describeByte(b, i))
			}
			return l.keyword(t, b[start:i])
		}
	}
	t.text = append(t.text, b[start:i+1]...)
	t.n = i - start
	// PN_LOCAL ::= (PN_CHARS_U | ':' | [0-9] | PLX)
	//              ((PN_CHARS | '.' | ':' | PLX)* (PN_CHARS | ':' | PLX))?
	i++
	end, kept := i, len(t.text)
	for first := true; i < len(b); first = false {
		prev := i
		switch c := b[i]; {
		case c == '.':
			if !first {
				t.text = append(t.text, c)
				i++
				continue // a '.' cannot end the name: end stays before it
			}
		case c == ':':
			t.text = append(t.text, c)
			i++
		case c == '%':
			if i+2 < len(b) && lex.IsHex(b[i+1]) && lex.IsHex(b[i+2]) {
				t.text = append(t.text, b[i:i+3]...)
				i += 3
			}
		case c == '\\':
			if i+1 < len(b) && lex.IsPNLocalEsc(b[i+1]) {
				t.text = append(t.text, b[i+1])
				i += 2
			}
		case c < 0x80:
			if isAlnum(c) || c == '_' || c == '-' && !first {
				t.text = append(t.text, c)
				i++
			}
		default:
			if r, n := lex.DecodeRune(b[i:]); lex.IsPNCharsBase(r) || !first && lex.IsPNChars(r) {
				t.text = append(t.text, b[i:i+n]...)
				i += n
			}
		}
		if i == prev {
			break
		}
		end, kept = i, len(t.text)
	}
	t.text = t.text[:kept] // a local name does not end with '.'
	t.kind = tPName
	l.pos = end
	return nil
}

// keyword classifies a word without ':'.
func (l *ttlLexer) keyword(t *ttlToken, w []byte) error {
	switch string(w) {
	case "a":
		t.kind = tA
	case "true", "false":
		t.kind, t.text = tBoolean, append(t.text, w...)
	default:
		switch {
		case len(w) == 6 && (string(w) == "PREFIX" || asciiEqualFold(w, "prefix")):
			t.kind = tPrefix
		case len(w) == 4 && (string(w) == "BASE" || asciiEqualFold(w, "base")):
			t.kind = tBase
		default:
			if len(w) > 40 {
				w = append(w[:40:40], "..."...)
			}
			return l.errAt(l.pos, "unexpected word %q (a prefixed name needs a ':')", w)
		}
	}
	l.pos += len(w)
	return nil
}

func asciiEqualFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := range b {
		c := b[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

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

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
