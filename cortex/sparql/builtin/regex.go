package builtin

import (
	"errors"
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
// error wrapping ErrType for invalid patterns or flags and for expressions
// with back-references, which Go's regexp cannot run (REGEX and REPLACE
// run those with a backtracking matcher). It is safe for concurrent use.
func CompileRegex(pattern, flags string) (*regexp.Regexp, error) {
	x, err := compileXPath(pattern, flags)
	if err != nil {
		return nil, err
	}
	if x.re == nil {
		return nil, typeErr("regex %q: back-references cannot be run by Go's regexp", pattern)
	}
	return x.re, nil
}

// xpathRegex is a compiled XPath regular expression: a Go regexp, or for
// an expression with back-references a backtracking matcher.
type xpathRegex struct {
	pattern string
	re      *regexp.Regexp
	bt      *btProg
}

// compileXPath compiles an XPath regular expression, using a shared cache.
func compileXPath(pattern, flags string) (*xpathRegex, error) {
	key := flags + "\x00" + pattern
	regexCache.mu.RLock()
	e, ok := regexCache.m[key]
	regexCache.mu.RUnlock()
	if ok {
		return e.re, e.err
	}
	x := &xpathRegex{pattern: pattern}
	src, backrefs, err := translateRegex(pattern, flags)
	switch {
	case err != nil:
	case backrefs:
		x.bt, err = compileBacktrack(src, strings.Contains(flags, "i"))
	default:
		x.re, err = regexp.Compile(src)
	}
	if err != nil {
		if !errors.Is(err, ErrType) {
			err = typeErr("regex %q: %v", pattern, err)
		}
		x = nil
	}
	regexCache.mu.Lock()
	if len(regexCache.m) >= regexCacheSize {
		clear(regexCache.m)
	}
	regexCache.m[key] = regexEntry{x, err}
	regexCache.mu.Unlock()
	return x, err
}

const regexCacheSize = 1024

type regexEntry struct {
	re  *xpathRegex
	err error
}

var regexCache = struct {
	mu sync.RWMutex
	m  map[string]regexEntry
}{m: make(map[string]regexEntry)}

// numSubexp is the number of the expression's groups.
func (x *xpathRegex) numSubexp() int {
	if x.re != nil {
		return x.re.NumSubexp()
	}
	return len(x.bt.caps) - 1
}

// budgetErr is the error of a backtracking match on s that ran out of steps
// or stack (err: errBudget or errStack).
func (x *xpathRegex) budgetErr(s string, err error) error {
	if errors.Is(err, errStack) {
		return typeErr("regex %q on a text of %d bytes: a backtracking stack of more than %d entries (%d and %d per byte of the text; an expression with back-references is matched by backtracking)", x.pattern, len(s), btStackBase+btStackPerByte*len(s), btStackBase, btStackPerByte)
	}
	return typeErr("regex %q on a text of %d bytes: more than %d matching steps (%d and %d per byte of the text; an expression with back-references is matched by backtracking)", x.pattern, len(s), btBudget(len(s)), btStepBudget, btStepsPerByte)
}

// matchString reports whether s holds a match.
func (x *xpathRegex) matchString(s string) (bool, error) {
	if x.re != nil {
		return x.re.MatchString(s), nil
	}
	m, err := x.bt.machine(s).find(0)
	if err != nil {
		return false, x.budgetErr(s, err)
	}
	return m != nil, nil
}

// findAllSubmatchIndex is regexp's FindAllStringSubmatchIndex(s, -1).
func (x *xpathRegex) findAllSubmatchIndex(s string) ([][]int, error) {
	if x.re != nil {
		return x.re.FindAllStringSubmatchIndex(s, -1), nil
	}
	var out [][]int
	m := x.bt.machine(s)
	// As regexp's allMatches: an empty match right after the previous
	// match is skipped, and the search goes on a character further.
	prevEnd := -1
	for pos := 0; pos <= len(s); {
		regs, err := m.find(pos)
		if err != nil {
			return nil, x.budgetErr(s, err)
		}
		if regs == nil {
			break
		}
		accept := true
		if regs[1] == pos {
			if regs[0] == prevEnd {
				accept = false
			}
			if pos < len(s) {
				_, w := utf8.DecodeRuneInString(s[pos:])
				pos += w
			} else {
				pos = len(s) + 1
			}
		} else {
			pos = regs[1]
		}
		prevEnd = regs[1]
		if accept {
			idx := make([]int, 0, 2*len(x.bt.caps))
			for _, c := range x.bt.caps {
				idx = append(idx, regs[2*c], regs[2*c+1])
			}
			out = append(out, idx)
		}
	}
	return out, nil
}

// translateRegex rewrites an XPath 2.0/3.1 regular expression into RE2
// syntax with equivalent semantics, and reports whether it has
// back-references, which it writes as empty named groups (?P<brK_N>) for
// the backtracking matcher (K counts them, N is the group).
func translateRegex(pattern, flags string) (string, bool, error) {
	if !utf8.ValidString(pattern) {
		return "", false, typeErr("regex %q: not valid UTF-8", pattern)
	}
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
			return "", false, typeErr("regex: invalid flag %q", f)
		}
	}
	var b strings.Builder
	if fold {
		b.WriteString("(?i)")
	}
	if literal {
		b.WriteString(regexp.QuoteMeta(pattern))
		return b.String(), false, nil
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
		return "", false, err
	}
	return b.String(), t.backrefs > 0, nil
}

type regexTranslator struct {
	src    string
	pos    int
	dotAll bool
	fold   bool // the i flag: (?i) applies to the whole expression
	out    *strings.Builder

	groups   int    // capturing groups opened so far
	open     []int  // the groups open at pos, innermost last (0: non-capturing)
	closed   []bool // closed[n]: group n is closed at pos
	backrefs int    // back-references written
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
				t.open = append(t.open, 0)
			} else {
				t.out.WriteByte('(')
				t.groups++
				t.open = append(t.open, t.groups)
			}
			depth++
		case ')':
			depth--
			if depth < 0 {
				return t.errf("unbalanced ')'")
			}
			if n := t.open[len(t.open)-1]; n > 0 {
				for len(t.closed) <= n {
					t.closed = append(t.closed, false)
				}
				t.closed[n] = true
			}
			t.open = t.open[:len(t.open)-1]
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
	case 'i', 'I', 'c', 'C':
		set := xmlNameStartChars
		if r == 'c' || r == 'C' {
			set = xmlNameChars
		}
		t.writeSet(set, r == 'I' || r == 'C', inClass)
	case 'p', 'P':
		if p, _ := t.peek(); p != '{' {
			return t.errf(`\p needs {name}`)
		}
		end := strings.IndexByte(t.src[t.pos:], '}')
		if end < 0 {
			return t.errf("unterminated property name")
		}
		name := t.src[t.pos+1 : t.pos+end]
		if block, ok := strings.CutPrefix(name, "Is"); ok {
			set := blockRanges(block)
			if set == nil {
				return t.errf("unknown Unicode block " + strconv.Quote(name))
			}
			t.pos += end + 1
			t.writeSet(set, r == 'P', inClass)
			return nil
		}
		if !unicodeCategories[name] {
			return t.errf("unsupported property " + strconv.Quote(name))
		}
		t.pos += end + 1
		t.out.WriteString(`\` + string(r) + "{" + name + "}")
	default:
		if r >= '1' && r <= '9' && !inClass {
			return t.backref(r)
		}
		if r >= '1' && r <= '9' {
			return t.errf("a back-reference cannot be in a character class")
		}
		return t.errf("invalid escape \\" + string(r))
	}
	return nil
}

// backref translates the back-reference that starts with the digit d
// (F&O 3.1 §5.6.1): further digits belong to it while the number stays
// within the groups opened before it, and the group must be closed before
// it. It writes an empty group named for the backtracking matcher.
func (t *regexTranslator) backref(d rune) error {
	n := int(d - '0')
	for t.pos < len(t.src) && t.src[t.pos] >= '0' && t.src[t.pos] <= '9' {
		m := n*10 + int(t.src[t.pos]-'0')
		if m > t.groups {
			break
		}
		n = m
		t.pos++
	}
	if n > t.groups {
		return t.errf(fmt.Sprintf("back-reference \\%d to a group that does not exist before it", n))
	}
	if n >= len(t.closed) || !t.closed[n] {
		return t.errf(fmt.Sprintf("back-reference \\%d inside the group it refers to", n))
	}
	t.backrefs++
	fmt.Fprintf(t.out, "(?P<%s%d_%d>)", backrefPrefix, t.backrefs, n)
	return nil
}

// writeSet writes a set of code points (sorted, disjoint ranges), or its
// complement when negated, as a class or, in a class, as class members.
func (t *regexTranslator) writeSet(set [][2]rune, negated, inClass bool) {
	if negated && inClass {
		set = complementRanges(set)
		negated = false
	}
	if !inClass {
		t.out.WriteByte('[')
		if negated {
			t.out.WriteByte('^')
		}
	}
	for _, r := range set {
		if r[0] == r[1] {
			fmt.Fprintf(t.out, `\x{%x}`, r[0])
		} else {
			fmt.Fprintf(t.out, `\x{%x}-\x{%x}`, r[0], r[1])
		}
	}
	if !inClass {
		t.out.WriteByte(']')
	}
}

// complementRanges returns the code points (0 to U+10FFFF) that are in none
// of the sorted, disjoint ranges of set.
func complementRanges(set [][2]rune) [][2]rune {
	var out [][2]rune
	next := rune(0)
	for _, r := range set {
		if r[0] > next {
			out = append(out, [2]rune{next, r[0] - 1})
		}
		next = r[1] + 1
	}
	if next <= unicode.MaxRune {
		out = append(out, [2]rune{next, unicode.MaxRune})
	}
	return out
}

// xmlNameStartChars and xmlNameChars are \i and \c: XML 1.0 Fifth
// Edition's NameStartChar and NameChar (productions [4] and [4a]). XML
// Schema 1.0 Part 2 defines them by XML 1.0's Letter, '_' and ':' (and
// NameChar) of the edition of its day, whose Unicode 2.0 tables left out
// most characters added since; XSD 1.1 lets a processor use the Fifth
// Edition's, which we do.
var (
	xmlNameStartChars = [][2]rune{
		{':', ':'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}, {0xC0, 0xD6}, {0xD8, 0xF6}, {0xF8, 0x2FF},
		{0x370, 0x37D}, {0x37F, 0x1FFF}, {0x200C, 0x200D}, {0x2070, 0x218F}, {0x2C00, 0x2FEF},
		{0x3001, 0xD7FF}, {0xF900, 0xFDCF}, {0xFDF0, 0xFFFD}, {0x10000, 0xEFFFF},
	}
	xmlNameChars = [][2]rune{
		{'-', '.'}, {'0', ':'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}, {0xB7, 0xB7}, {0xC0, 0xD6},
		{0xD8, 0xF6}, {0xF8, 0x37D}, {0x37F, 0x1FFF}, {0x200C, 0x200D}, {0x203F, 0x2040},
		{0x2070, 0x218F}, {0x2C00, 0x2FEF}, {0x3001, 0xD7FF}, {0xF900, 0xFDCF}, {0xFDF0, 0xFFFD},
		{0x10000, 0xEFFFF},
	}
)

// xsd10Blocks are the block names of XML Schema 1.0's list (Unicode 3.1)
// that Unicode has since renamed, and the ranges that list gives blocks
// Unicode has since resized: \p{IsX} is the union of both lists' ranges.
var xsd10Blocks = map[string][][2]rune{
	"Greek":                    {{0x370, 0x3FF}},
	"CombiningMarksforSymbols": {{0x20D0, 0x20FF}},
	"PrivateUse":               {{0xE000, 0xF8FF}, {0xF0000, 0xFFFFD}, {0x100000, 0x10FFFD}},
	"Specials":                 {{0xFEFF, 0xFEFF}, {0xFFF0, 0xFFFD}},
}

// blockRanges returns the sorted, disjoint ranges of the Unicode block
// named name (\p{IsName}), or nil for an unknown block.
func blockRanges(name string) [][2]rune {
	var set [][2]rune
	if r, ok := unicodeBlocks[name]; ok {
		set = append(set, r)
	}
	set = append(set, xsd10Blocks[name]...)
	if set == nil {
		return nil
	}
	slices.SortFunc(set, func(a, b [2]rune) int { return int(a[0] - b[0]) })
	out := set[:1]
	for _, r := range set[1:] {
		if last := &out[len(out)-1]; r[0] <= last[1]+1 {
			last[1] = max(last[1], r[1])
		} else {
			out = append(out, r)
		}
	}
	return out
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
	re, err := compileXPath(pattern, flags)
	if err != nil {
		return nil, err
	}
	ok, err := re.matchString(text.lex)
	if err != nil {
		return nil, err
	}
	return Boolean(ok), nil
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
	re, err := compileXPath(pattern, flags)
	if err != nil {
		return nil, err
	}
	if empty, err := re.matchString(""); err != nil {
		return nil, err
	} else if empty {
		return nil, typeErr("regex %q matches the empty string", pattern)
	}
	pieces, err := parseReplacement(repl, re.numSubexp(), strings.Contains(flags, "q"))
	if err != nil {
		return nil, err
	}
	matches, err := re.findAllSubmatchIndex(text.lex)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	last := 0
	for _, m := range matches {
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
