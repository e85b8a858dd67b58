package parser

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/cortexgraph/cortex/cortex/internal/lex"
)

type tokKind int

const (
	tEOF     tokKind = iota
	tIRI             // <...>; text is the unescaped, unresolved IRI
	tPName           // prefix:local; prefix in pfx, unescaped local part in text
	tBNode           // _:label; label in text
	tVar             // ?name or $name; name in text
	tString          // quoted string; unescaped value in text
	tLangTag         // @tag; tag in text
	tInteger         // lexical form in text
	tDecimal         // lexical form in text
	tDouble          // lexical form in text
	tWord            // bare name: keyword, 'a', true, false
	tPunct           // operator or delimiter; text is the symbol
)

type token struct {
	kind   tokKind
	text   string
	pfx    string
	off    int  // byte offset of the first character
	spaced bool // whitespace or a comment precedes the token
}

// lexer splits a query into tokens. It never panics on malformed input; errors carry the offset.
type lexer struct {
	src   string
	pos   int
	lines []int // byte offsets of line starts
}

type lexError struct {
	off int
	msg string
}

func newLexer(src string) *lexer {
	l := &lexer{src: src, lines: []int{0}}
	for i := 0; i < len(src); i++ {
		// A line ends at LF, CR LF or CR alone.
		if src[i] == '\n' || src[i] == '\r' && (i+1 == len(src) || src[i+1] != '\n') {
			l.lines = append(l.lines, i+1)
		}
	}
	return l
}

// position converts a byte offset into a 1-based line and character column.
func (l *lexer) position(off int) (line, col int) {
	if off > len(l.src) {
		off = len(l.src)
	}
	i := sort.Search(len(l.lines), func(i int) bool { return l.lines[i] > off }) - 1
	if i < 0 {
		i = 0
	}
	return i + 1, utf8.RuneCountInString(l.src[l.lines[i]:off]) + 1
}

// all returns the tokens of the text, calling look every ctxEvery tokens.
func (l *lexer) all(look func()) ([]token, *lexError) {
	var toks []token
	for {
		if len(toks)%ctxEvery == ctxEvery-1 {
			look()
		}
		t, err := l.next()
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
		if t.kind == tEOF {
			return toks, nil
		}
	}
}

func (l *lexer) errAt(off int, format string, args ...any) *lexError {
	return &lexError{off: off, msg: fmt.Sprintf(format, clipArgs(args)...)}
}

// skip skips whitespace and comments and reports whether anything was skipped.
func (l *lexer) skip() bool {
	start := l.pos
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			l.pos++
		case c == '#': // to the end of the line: CR or LF (SPARQL 1.1, 19.4)
			for l.pos < len(l.src) && l.src[l.pos] != '\n' && l.src[l.pos] != '\r' {
				l.pos++
			}
		default:
			return l.pos > start
		}
	}
	return l.pos > start
}

// peekRune decodes the character at off with lex.DecodeRuneInString: a byte
// that is not valid UTF-8, or the end of the query, is lex.Invalid.
func (l *lexer) peekRune(off int) (rune, int) {
	if off >= len(l.src) {
		return lex.Invalid, 0
	}
	return lex.DecodeRuneInString(l.src[off:])
}

func (l *lexer) next() (token, *lexError) {
	spaced := l.skip()
	start := l.pos
	tok := func(k tokKind, text string) (token, *lexError) {
		return token{kind: k, text: text, off: start, spaced: spaced}, nil
	}
	if l.pos >= len(l.src) {
		return tok(tEOF, "")
	}
	c := l.src[l.pos]
	switch c {
	case '<':
		if err := l.doubledIRI(); err != nil {
			return token{}, err
		}
		if iri, ok, err := l.iriRef(); err != nil {
			return token{}, err
		} else if ok {
			return tok(tIRI, iri)
		}
		if strings.HasPrefix(l.src[l.pos:], "<=") {
			l.pos += 2
			return tok(tPunct, "<=")
		}
		l.pos++
		return tok(tPunct, "<")
	case '"', '\'':
		s, err := l.str()
		if err != nil {
			return token{}, err
		}
		return tok(tString, s)
	case '?', '$':
		r, _ := l.peekRune(l.pos + 1)
		if lex.IsLabelStart(r) {
			l.pos++
			name := l.scanWhile(lex.IsVarNameChar)
			return tok(tVar, name)
		}
		if c == '$' {
			return token{}, l.errAt(start, "expected a variable name after '$'")
		}
		l.pos++
		return tok(tPunct, "?")
	case '@':
		l.pos++
		tag := l.scanLangTag()
		if tag == "" {
			return token{}, l.errAt(start, "expected a language tag after '@'")
		}
		return tok(tLangTag, tag)
	case '_':
		if strings.HasPrefix(l.src[l.pos:], "_:") {
			l.pos += 2
			label, ok := l.bnodeLabel()
			if !ok {
				return token{}, l.errAt(start, "expected a blank node label after '_:'")
			}
			return tok(tBNode, label)
		}
	case ':':
		l.pos++
		local, err := l.localName()
		if err != nil {
			return token{}, err
		}
		t, _ := tok(tPName, local)
		return t, nil
	}
	if c >= '0' && c <= '9' || c == '.' && l.pos+1 < len(l.src) && isDigit(l.src[l.pos+1]) {
		return l.number(spaced)
	}
	r, _ := l.peekRune(l.pos)
	if lex.IsPNCharsU(r) {
		return l.name(spaced)
	}
	for _, p := range []string{"^^", "&&", "||", "!=", ">=", "<=", "{", "}", "(", ")", "[", "]", ";", ",", ".",
		"=", ">", "!", "+", "-", "*", "/", "^", "|"} {
		if strings.HasPrefix(l.src[l.pos:], p) {
			l.pos += len(p)
			return tok(tPunct, p)
		}
	}
	if r == lex.Invalid {
		return token{}, l.errAt(start, "invalid UTF-8 in query")
	}
	return token{}, l.errAt(start, "unexpected character %q", r)
}

// scanWhile advances over the characters for which f holds; f never sees a
// byte that is not valid UTF-8 (it is lex.Invalid, which no class holds).
func (l *lexer) scanWhile(f func(rune) bool) string {
	start := l.pos
	for l.pos < len(l.src) {
		r, n := lex.DecodeRuneInString(l.src[l.pos:])
		if !f(r) {
			break
		}
		l.pos += n
	}
	return l.src[start:l.pos]
}

func (l *lexer) scanLangTag() string {
	start := l.pos
	isAlpha := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	for l.pos < len(l.src) && isAlpha(l.src[l.pos]) {
		l.pos++
	}
	if l.pos == start {
		return ""
	}
	for l.pos+1 < len(l.src) && l.src[l.pos] == '-' && (isAlpha(l.src[l.pos+1]) || isDigit(l.src[l.pos+1])) {
		l.pos++
		for l.pos < len(l.src) && (isAlpha(l.src[l.pos]) || isDigit(l.src[l.pos])) {
			l.pos++
		}
	}
	return l.src[start:l.pos]
}

// doubledIRI reports "<<iri>>" at l.pos, an IRI in angle brackets twice. It is never SPARQL 1.1 (a
// comparison cannot be chained, so "a < <iri> > b" is no expression) and is what fmt.Sprintf("<%s>", v)
// gives for a quad.IRI v, whose String() has the brackets already.
func (l *lexer) doubledIRI() *lexError {
	if !strings.HasPrefix(l.src[l.pos:], "<<") {
		return nil
	}
	start := l.pos
	l.pos++
	iri, ok, _ := l.iriRef()
	doubled := ok && l.pos < len(l.src) && l.src[l.pos] == '>'
	l.pos = start
	if !doubled {
		return nil
	}
	return l.errAt(start, "'<<%s>>' is not an IRI: its angle brackets are doubled, as when a quad.IRI (which prints "+
		"with its own <>) is formatted with \"<%%s>\"; write <%s> (format the quad.IRI with %%v, without <>) or, "+
		"better, bind the value as a query parameter", iri, iri)
}

// iriRef scans <...> at l.pos. It returns ok=false (without consuming) when the text cannot be an IRI
// reference, so that '<' is read as an operator.
func (l *lexer) iriRef() (string, bool, *lexError) {
	i := l.pos + 1
	var b strings.Builder
	for i < len(l.src) {
		r, n := lex.DecodeRuneInString(l.src[i:])
		switch {
		case r == '>':
			l.pos = i + 1
			return b.String(), true, nil
		case r == '\\':
			u, m, err := lex.UCHAR(l.src[i:])
			if err != nil {
				return "", false, nil
			}
			if u < 0x80 && lex.NotInIRI(byte(u)) {
				return "", false, l.errAt(i, "character %q not allowed in an IRI", u)
			}
			b.WriteRune(u)
			i += m
			continue
		case r < 0x80 && lex.NotInIRI(byte(r)): // '\\' is a UCHAR's, above
			return "", false, nil
		case r == lex.Invalid:
			return "", false, nil
		}
		b.WriteRune(r)
		i += n
	}
	return "", false, nil
}

func (l *lexer) str() (string, *lexError) {
	start := l.pos
	q := l.src[l.pos]
	long := strings.HasPrefix(l.src[l.pos:], strings.Repeat(string(q), 3))
	if long {
		l.pos += 3
	} else {
		l.pos++
	}
	var b strings.Builder
	for {
		if l.pos >= len(l.src) {
			return "", l.errAt(start, "unterminated string")
		}
		c := l.src[l.pos]
		switch {
		case c == q && !long:
			l.pos++
			return b.String(), nil
		case c == q && long && strings.HasPrefix(l.src[l.pos:], strings.Repeat(string(q), 3)):
			l.pos += 3
			return b.String(), nil
		case (c == '\n' || c == '\r') && !long:
			return "", l.errAt(l.pos, "line break in a short string")
		case c == '\\':
			if l.pos+1 >= len(l.src) {
				return "", l.errAt(l.pos, "unterminated escape sequence")
			}
			e := l.src[l.pos+1]
			if c, ok := lex.ECHAR(e); ok {
				b.WriteByte(c)
				l.pos += 2
				continue
			}
			if e != 'u' && e != 'U' {
				return "", l.errAt(l.pos, "unknown escape sequence \\%c", e)
			}
			r, n, err := lex.UCHAR(l.src[l.pos:])
			if err != nil {
				return "", l.errAt(l.pos, "bad \\%c escape", e)
			}
			b.WriteRune(r)
			l.pos += n
		default:
			r, n := lex.DecodeRuneInString(l.src[l.pos:])
			if r == lex.Invalid {
				return "", l.errAt(l.pos, "invalid UTF-8 in string")
			}
			b.WriteRune(r)
			l.pos += n
		}
	}
}

func (l *lexer) bnodeLabel() (string, bool) {
	start := l.pos
	r, n := l.peekRune(l.pos)
	if !lex.IsLabelStart(r) {
		return "", false
	}
	l.pos += n
	l.scanWhile(func(r rune) bool { return lex.IsPNChars(r) || r == '.' })
	for l.pos > start+n && l.src[l.pos-1] == '.' {
		l.pos--
	}
	return l.src[start:l.pos], true
}

// localName scans PN_LOCAL after the ':' of a prefixed name and returns it unescaped.
func (l *lexer) localName() (string, *lexError) {
	var b strings.Builder
	first := true
	lastGood := l.pos // position after the last character that may end a local name
	goodLen := 0
	for l.pos < len(l.src) {
		r, n := lex.DecodeRuneInString(l.src[l.pos:])
		switch {
		case r == '%':
			if l.pos+2 < len(l.src) && lex.IsHex(l.src[l.pos+1]) && lex.IsHex(l.src[l.pos+2]) {
				b.WriteString(l.src[l.pos : l.pos+3])
				l.pos += 3
				lastGood, goodLen = l.pos, b.Len()
				first = false
				continue
			}
			return "", l.errAt(l.pos, "bad percent escape in prefixed name")
		case r == '\\':
			if l.pos+1 < len(l.src) && lex.IsPNLocalEsc(l.src[l.pos+1]) {
				b.WriteByte(l.src[l.pos+1])
				l.pos += 2
				lastGood, goodLen = l.pos, b.Len()
				first = false
				continue
			}
			return "", l.errAt(l.pos, "bad escape in prefixed name")
		case first && (lex.IsLabelStart(r) || r == ':'),
			!first && (lex.IsPNChars(r) || r == ':'):
			b.WriteRune(r)
			l.pos += n
			lastGood, goodLen = l.pos, b.Len()
		case !first && r == '.':
			b.WriteRune(r)
			l.pos += n
		default:
			l.pos = lastGood
			return b.String()[:goodLen], nil
		}
		first = false
	}
	l.pos = lastGood
	return b.String()[:goodLen], nil
}

// name scans a prefixed name or a bare word.
func (l *lexer) name(spaced bool) (token, *lexError) {
	start := l.pos
	l.scanWhile(func(r rune) bool { return lex.IsPNChars(r) || r == '.' })
	for l.pos > start && l.src[l.pos-1] == '.' {
		l.pos--
	}
	word := l.src[start:l.pos]
	if l.pos < len(l.src) && l.src[l.pos] == ':' {
		if word[0] == '_' {
			return token{}, l.errAt(start, "prefix name may not start with '_'")
		}
		l.pos++
		local, err := l.localName()
		if err != nil {
			return token{}, err
		}
		return token{kind: tPName, pfx: word, text: local, off: start, spaced: spaced}, nil
	}
	// A bare word: keywords, 'a', true, false. Only ASCII letters, digits and '_'.
	end := start
	for end < l.pos && (isDigit(l.src[end]) || l.src[end] == '_' || l.src[end] >= 'a' && l.src[end] <= 'z' ||
		l.src[end] >= 'A' && l.src[end] <= 'Z') {
		end++
	}
	if end == start {
		return token{}, l.errAt(start, "unexpected %q", word)
	}
	l.pos = end
	return token{kind: tWord, text: l.src[start:end], off: start, spaced: spaced}, nil
}

func (l *lexer) number(spaced bool) (token, *lexError) {
	start := l.pos
	digits := func() int {
		s := l.pos
		for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
			l.pos++
		}
		return l.pos - s
	}
	kind := tInteger
	digits()
	if l.pos+1 < len(l.src) && l.src[l.pos] == '.' && isDigit(l.src[l.pos+1]) {
		l.pos++
		digits()
		kind = tDecimal
	} else if l.pos < len(l.src) && l.src[l.pos] == '.' && l.pos+1 < len(l.src) &&
		(l.src[l.pos+1] == 'e' || l.src[l.pos+1] == 'E') {
		// "1.e5" is a DOUBLE.
		save := l.pos
		l.pos++
		if l.exponent() {
			return token{kind: tDouble, text: l.src[start:l.pos], off: start, spaced: spaced}, nil
		}
		l.pos = save
	}
	if l.pos < len(l.src) && (l.src[l.pos] == 'e' || l.src[l.pos] == 'E') {
		save := l.pos
		if l.exponent() {
			kind = tDouble
		} else {
			l.pos = save
		}
	}
	return token{kind: kind, text: l.src[start:l.pos], off: start, spaced: spaced}, nil
}

func (l *lexer) exponent() bool {
	if l.pos >= len(l.src) || (l.src[l.pos] != 'e' && l.src[l.pos] != 'E') {
		return false
	}
	l.pos++
	if l.pos < len(l.src) && (l.src[l.pos] == '+' || l.src[l.pos] == '-') {
		l.pos++
	}
	s := l.pos
	for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
		l.pos++
	}
	return l.pos > s
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
