package builtin

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/cayleygraph/quad"
)

// CompileRegex compiles an XPath regular expression with XPath flags
// (s, m, i, x, q) into a Go regexp, using a shared cache. It returns an
// error wrapping ErrType for invalid patterns or flags and for XPath
// constructs RE2 cannot express. It is safe for concurrent use.
func CompileRegex(pattern, flags string) (*regexp.Regexp, error) {
	key := flags + "\x00" + pattern
	regexCache.mu.RLock()
	e, ok := regexCache.m[key]
	regexCache.mu.RUnlock()
	if ok {
		return e.re, e.err
	}
	var re *regexp.Regexp
	src, err := translateRegex(pattern, flags)
	if err == nil {
		re, err = regexp.Compile(src)
		if err != nil {
			err = typeErr("regex %q: %v", pattern, err)
		}
	}
	regexCache.mu.Lock()
	if len(regexCache.m) >= regexCacheSize {
		clear(regexCache.m)
	}
	regexCache.m[key] = regexEntry{re, err}
	regexCache.mu.Unlock()
	return re, err
}

const regexCacheSize = 1024

type regexEntry struct {
	re  *regexp.Regexp
	err error
}

var regexCache = struct {
	mu sync.RWMutex
	m  map[string]regexEntry
}{m: make(map[string]regexEntry)}

// translateRegex rewrites an XPath 2.0/3.1 regular expression into RE2
// syntax with equivalent semantics.
func translateRegex(pattern, flags string) (string, error) {
	var dotAll, multi, fold, extended, literal bool
	for _, f := range flags {
		switch f {
		case 's':
			dotAll = true
		case 'm':
			multi = true
		case 'i':
			fold = true
		case 'x':
			extended = true
		case 'q':
			literal = true
		default:
			return "", typeErr("regex: invalid flag %q", f)
		}
	}
	var b strings.Builder
	if fold {
		b.WriteString("(?i)")
	}
	if literal {
		b.WriteString(regexp.QuoteMeta(pattern))
		return b.String(), nil
	}
	if dotAll || multi {
		b.WriteString("(?")
		if dotAll {
			b.WriteByte('s')
		}
		if multi {
			b.WriteByte('m')
		}
		b.WriteByte(')')
	}
	if extended {
		pattern = stripRegexWhitespace(pattern)
	}
	t := regexTranslator{src: pattern, dotAll: dotAll, fold: fold, out: &b}
	if err := t.run(); err != nil {
		return "", err
	}
	return b.String(), nil
}

type regexTranslator struct {
	src    string
	pos    int
	dotAll bool
	fold   bool // the i flag: (?i) applies to the whole expression
	out    *strings.Builder
}

func (t *regexTranslator) errf(msg string) error {
	return typeErr("regex %q at offset %d: %s", t.src, t.pos, msg)
}

func (t *regexTranslator) next() (rune, bool) {
	if t.pos >= len(t.src) {
		return 0, false
	}
	r, n := utf8.DecodeRuneInString(t.src[t.pos:])
	t.pos += n
	return r, true
}

func (t *regexTranslator) peek() (rune, bool) {
	if t.pos >= len(t.src) {
		return 0, false
	}
	r, _ := utf8.DecodeRuneInString(t.src[t.pos:])
	return r, true
}

func (t *regexTranslator) run() error {
	depth := 0
	for {
		r, ok := t.next()
		if !ok {
			break
		}
		switch r {
		case '\\':
			if err := t.escape(false); err != nil {
				return err
			}
		case '.':
			// F&O 3.1 §5.6.1.1 (flags): without s, . matches any character
			// but newline (#x0A) and carriage return (#x0D), which is XML
			// Schema's wildcard ([^\n\r], the character class escapes of
			// Part 2's regular expression appendix). F&O 1.0 (XPath 2.0)
			// excluded only the newline; we follow 3.1, as for the x flag.
			if t.dotAll {
				t.out.WriteByte('.')
			} else {
				t.out.WriteString(`[^\n\r]`)
			}
		case '[':
			if err := t.class(); err != nil {
				return err
			}
		case '(':
			if p, _ := t.peek(); p == '?' {
				if !strings.HasPrefix(t.src[t.pos:], "?:") {
					return t.errf("unsupported group syntax")
				}
				t.pos += 2
				t.out.WriteString("(?:")
			} else {
				t.out.WriteByte('(')
			}
			depth++
		case ')':
			depth--
			if depth < 0 {
				return t.errf("unbalanced ')'")
			}
			t.out.WriteByte(')')
		case '{':
			end := strings.IndexByte(t.src[t.pos:], '}')
			if end < 0 || !validQuantifier(t.src[t.pos:t.pos+end]) {
				return t.errf("invalid quantifier")
			}
			t.out.WriteString("{" + t.src[t.pos:t.pos+end] + "}")
			t.pos += end + 1
		case ']', '}':
			return t.errf("unescaped " + string(r))
		case '|', '?', '*', '+', '^', '$':
			t.out.WriteRune(r)
		default:
			t.out.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	if depth != 0 {
		return t.errf("unbalanced '('")
	}
	return nil
}

func validQuantifier(s string) bool {
	lo, hi, comma := strings.Cut(s, ",")
	if !digits(lo) {
		return false
	}
	return !comma || hi == "" || digits(hi)
}

// escape translates the escape after a backslash. In a character class it
// writes class members only.
func (t *regexTranslator) escape(inClass bool) error {
	r, ok := t.next()
	if !ok {
		return t.errf("trailing backslash")
	}
	switch r {
	case 'n':
		t.out.WriteString(`\n`)
	case 'r':
		t.out.WriteString(`\r`)
	case 't':
		t.out.WriteString(`\t`)
	case '\\', '|', '.', '?', '*', '+', '(', ')', '{', '}', '-', '[', ']', '^', '$':
		t.out.WriteByte('\\')
		t.out.WriteRune(r)
	case 'd':
		t.out.WriteString(`\p{Nd}`)
	case 'D':
		t.out.WriteString(`\P{Nd}`)
	case 's':
		if inClass {
			t.out.WriteString(`\t\n\r `)
		} else {
			t.out.WriteString(`[\t\n\r ]`)
		}
	case 'S', 'w':
		if inClass { // class handles them
			return t.errf(`\` + string(r) + ` inside a character class is not supported`)
		}
		t.out.WriteString(classEscapes[r])
	case 'W':
		if inClass {
			t.out.WriteString(`\p{P}\p{Z}\p{C}`)
		} else {
			t.out.WriteString(`[\p{P}\p{Z}\p{C}]`)
		}
	case 'p', 'P':
		if p, _ := t.peek(); p != '{' {
			return t.errf(`\p needs {name}`)
		}
		end := strings.IndexByte(t.src[t.pos:], '}')
		if end < 0 {
			return t.errf("unterminated property name")
		}
		name := t.src[t.pos+1 : t.pos+end]
		if !unicodeCategories[name] {
			return t.errf("unsupported property " + strconv.Quote(name))
		}
		t.pos += end + 1
		t.out.WriteString(`\` + string(r) + "{" + name + "}")
	default:
		if r >= '1' && r <= '9' {
			return t.errf("back-references are not supported")
		}
		return t.errf("invalid escape \\" + string(r))
	}
	return nil
}

// unicodeCategories are the XPath general categories Go's regexp supports.
var unicodeCategories = map[string]bool{
	"L": true, "Lu": true, "Ll": true, "Lt": true, "Lm": true, "Lo": true,
	"M": true, "Mn": true, "Mc": true, "Me": true,
	"N": true, "Nd": true, "Nl": true, "No": true,
	"P": true, "Pc": true, "Pd": true, "Ps": true, "Pe": true, "Pi": true, "Pf": true, "Po": true,
	"Z": true, "Zs": true, "Zl": true, "Zp": true,
	"S": true, "Sm": true, "Sc": true, "Sk": true, "So": true,
	"C": true, "Cc": true, "Cf": true, "Co": true,
}

// stripRegexWhitespace applies the x flag: it removes the whitespace
// characters (#x9, #xA, #xD, #x20) of an expression before it is read,
// except those inside character classes (F&O 3.1 §5.6.1.1), so that
// "a{2, 3}" is a{2,3} and "\ d" is \d.
func stripRegexWhitespace(p string) string {
	var b strings.Builder
	depth := 0 // of nested character classes
	escaped := false
	for _, r := range p {
		if depth == 0 && (r == ' ' || r == '\t' || r == '\n' || r == '\r') {
			continue
		}
		b.WriteRune(r)
		if escaped {
			escaped = false
			continue
		}
		switch r {
		case '\\':
			escaped = true
		case '[':
			depth++
		case ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return b.String()
}

// classEscapes are RE2 classes for the multi-character escapes RE2 cannot
// write inside a character class: \w (every character but punctuation,
// separators and others, XML Schema Part 2 §F.1.1) and \S.
var classEscapes = map[rune]string{'w': `[^\p{P}\p{Z}\p{C}]`, 'S': `[^\t\n\r ]`}

// class translates a character class after its '['. A class that holds \w
// or \S becomes an alternative of the rest of the class and their RE2
// classes, (?:[...]|[^\p{P}\p{Z}\p{C}]); a negated one becomes the
// complement of that union, written out as code point ranges, and so does a
// subtraction [X-[Y]] (X and not Y).
func (t *regexTranslator) class() error {
	c, err := t.classExpr()
	if err != nil {
		return err
	}
	t.out.WriteString(c)
	return nil
}

// classExpr returns the RE2 translation of the character class after its
// '['.
func (t *regexTranslator) classExpr() (string, error) {
	saved := t.out
	var cb strings.Builder
	t.out = &cb
	defer func() { t.out = saved }()
	cb.WriteByte('[')
	negated := false
	if p, _ := t.peek(); p == '^' {
		t.pos++
		cb.WriteByte('^')
		negated = true
	}
	first := true
	var alts []string // RE2 classes of the \w and \S escapes met
	members := 0      // members written inside the brackets
	// finish returns the translation of the class read so far.
	finish := func() (string, error) {
		s := cb.String()
		if len(alts) == 0 {
			return s + "]", nil
		}
		if negated {
			// The complement of the union, written out as ranges.
			if members > 0 {
				alts = append(alts, "["+s[2:]+"]")
			}
			c, err := complementClass(alts, t.fold)
			if err != nil {
				return "", t.errf(err.Error())
			}
			return c, nil
		}
		if members > 0 {
			return "(?:" + s + "]|" + strings.Join(alts, "|") + ")", nil
		}
		return "(?:" + strings.Join(alts, "|") + ")", nil
	}
	for {
		r, ok := t.next()
		if !ok {
			return "", t.errf("unterminated character class")
		}
		if r == ']' {
			if first {
				return "", t.errf("empty character class")
			}
			return finish()
		}
		if r == '-' && !first {
			if p, _ := t.peek(); p == '[' {
				// A subtraction ends the class: [X-[Y]].
				t.pos++
				y, err := t.classExpr()
				if err != nil {
					return "", err
				}
				if r, ok := t.next(); !ok || r != ']' {
					return "", t.errf("a character class subtraction must end its class")
				}
				x, err := finish()
				if err != nil {
					return "", err
				}
				notX, err := complementClass([]string{x}, t.fold)
				if err != nil {
					return "", t.errf(err.Error())
				}
				c, err := complementClass([]string{notX, y}, t.fold)
				if err != nil {
					return "", t.errf(err.Error())
				}
				return c, nil
			}
		}
		first = false
		if r == '\\' {
			if p, _ := t.peek(); classEscapes[p] != "" {
				t.pos++
				alts = append(alts, classEscapes[p])
				continue
			}
		}
		members++
		if r == '[' {
			return "", t.errf("unescaped [ in a character class (a subtraction is -[...] at its end)")
		}
		if r == '-' {
			if p, _ := t.peek(); p == '[' {
				return "", t.errf("a character class subtraction needs something to subtract from")
			}
		}
		if r == '\\' {
			start := cb.Len()
			if err := t.escape(true); err != nil {
				return "", err
			}
			// A single-character escape may start a range.
			esc := cb.String()[start:]
			if single := len(esc) == 2 && esc[0] == '\\' && esc[1] != 'p' && esc[1] != 'P'; single {
				if err := t.rangeTail(); err != nil {
					return "", err
				}
			}
			continue
		}
		writeClassChar(&cb, r)
		if err := t.rangeTail(); err != nil {
			return "", err
		}
	}
}

// rangeTail handles "-x" after a range start, if present.
func (t *regexTranslator) rangeTail() error {
	if !strings.HasPrefix(t.src[t.pos:], "-") || strings.HasPrefix(t.src[t.pos:], "-]") {
		return nil
	}
	if strings.HasPrefix(t.src[t.pos:], "-[") {
		return nil // a subtraction, which classExpr reads
	}
	t.pos++
	r, ok := t.next()
	if !ok {
		return t.errf("unterminated character class")
	}
	t.out.WriteByte('-')
	if r == '\\' {
		start := t.out.Len()
		if err := t.escape(true); err != nil {
			return err
		}
		if esc := t.out.String()[start:]; len(esc) != 2 || esc[1] == 'p' || esc[1] == 'P' {
			return t.errf("invalid range end")
		}
		return nil
	}
	if r == '[' {
		return t.errf("invalid range end")
	}
	writeClassChar(t.out, r)
	return nil
}

func writeClassChar(b *strings.Builder, r rune) {
	switch r {
	case '\\', '[', ']', '^', '-':
		b.WriteByte('\\')
	}
	b.WriteRune(r)
}

func fnRegex(_ *Context, a []quad.Value) (quad.Value, error) {
	text, err := stringArg(a[0])
	if err != nil {
		return nil, err
	}
	pattern, err := simpleArg(a[1])
	if err != nil {
		return nil, err
	}
	flags := ""
	if len(a) == 3 {
		if flags, err = simpleArg(a[2]); err != nil {
			return nil, err
		}
	}
	re, err := CompileRegex(pattern, flags)
	if err != nil {
		return nil, err
	}
	return Boolean(re.MatchString(text.lex)), nil
}

func fnReplace(_ *Context, a []quad.Value) (quad.Value, error) {
	text, err := stringArg(a[0])
	if err != nil {
		return nil, err
	}
	pattern, err := simpleArg(a[1])
	if err != nil {
		return nil, err
	}
	repl, err := simpleArg(a[2])
	if err != nil {
		return nil, err
	}
	flags := ""
	if len(a) == 4 {
		if flags, err = simpleArg(a[3]); err != nil {
			return nil, err
		}
	}
	re, err := CompileRegex(pattern, flags)
	if err != nil {
		return nil, err
	}
	if re.MatchString("") {
		return nil, typeErr("regex %q matches the empty string", pattern)
	}
	pieces, err := parseReplacement(repl, re.NumSubexp(), strings.Contains(flags, "q"))
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringSubmatchIndex(text.lex, -1) {
		b.WriteString(text.lex[last:m[0]])
		for _, p := range pieces {
			if p.group < 0 {
				b.WriteString(p.text)
			} else if s, e := m[2*p.group], m[2*p.group+1]; s >= 0 {
				b.WriteString(text.lex[s:e])
			}
		}
		last = m[1]
	}
	b.WriteString(text.lex[last:])
	return withLex(text, b.String()), nil
}

type replPiece struct {
	text  string
	group int // -1 for literal text
}

// parseReplacement parses an XPath replacement string: $N refers to group N
// (the first digit always, further digits while the number stays within the
// group count), \$ and \\ are literal, any other $ or \ is an error. With
// the q flag the replacement is literal.
func parseReplacement(s string, groups int, literal bool) ([]replPiece, error) {
	if literal {
		return []replPiece{{text: s, group: -1}}, nil
	}
	var out []replPiece
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			out = append(out, replPiece{text: lit.String(), group: -1})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 >= len(s) || (s[i+1] != '\\' && s[i+1] != '$') {
				return nil, typeErr("replacement %q: invalid backslash", s)
			}
			i++
			lit.WriteByte(s[i])
		case '$':
			if i+1 >= len(s) || s[i+1] < '0' || s[i+1] > '9' {
				return nil, typeErr("replacement %q: $ must be followed by a digit", s)
			}
			i++
			n := int(s[i] - '0')
			for i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
				m := n*10 + int(s[i+1]-'0')
				if m > groups {
					break
				}
				n = m
				i++
			}
			flush()
			if n <= groups {
				out = append(out, replPiece{group: n})
			}
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return out, nil
}

// complementClass returns an RE2 character class of the code points that
// none of the RE2 classes of members matches, case-insensitively when fold
// is set (the complement of a case-closed set is case-closed, so the (?i)
// the expression starts with adds nothing to it).
func complementClass(members []string, fold bool) (string, error) {
	flags := syntax.Perl
	if fold {
		flags |= syntax.FoldCase
	}
	var ranges [][2]rune
	var add func(re *syntax.Regexp) bool
	add = func(re *syntax.Regexp) bool {
		switch re.Op {
		case syntax.OpCharClass:
			for i := 0; i+1 < len(re.Rune); i += 2 {
				ranges = append(ranges, [2]rune{re.Rune[i], re.Rune[i+1]})
			}
		case syntax.OpLiteral:
			if len(re.Rune) != 1 {
				return false
			}
			r := re.Rune[0]
			ranges = append(ranges, [2]rune{r, r})
			if re.Flags&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					ranges = append(ranges, [2]rune{f, f})
				}
			}
		case syntax.OpAnyChar:
			ranges = append(ranges, [2]rune{0, unicode.MaxRune})
		case syntax.OpAnyCharNotNL:
			ranges = append(ranges, [2]rune{0, '\n' - 1}, [2]rune{'\n' + 1, unicode.MaxRune})
		case syntax.OpNoMatch:
		case syntax.OpAlternate:
			for _, sub := range re.Sub {
				if !add(sub) {
					return false
				}
			}
		default:
			return false
		}
		return true
	}
	for _, m := range members {
		re, err := syntax.Parse(m, flags)
		if err != nil {
			return "", err
		}
		if !add(re) {
			return "", fmt.Errorf("character class %s is no set of characters", m)
		}
	}
	slices.SortFunc(ranges, func(a, b [2]rune) int { return int(a[0] - b[0]) })
	var b strings.Builder
	b.WriteByte('[')
	next := rune(0) // the first code point not yet known to be covered
	for _, r := range ranges {
		if r[0] > next {
			fmt.Fprintf(&b, `\x{%x}-\x{%x}`, next, r[0]-1)
		}
		next = max(next, r[1]+1)
	}
	if next <= unicode.MaxRune {
		fmt.Fprintf(&b, `\x{%x}-\x{%x}`, next, unicode.MaxRune)
	}
	if b.Len() == 1 {
		return `[^\x{0}-\x{10ffff}]`, nil // matches nothing
	}
	return b.String() + "]", nil
}
