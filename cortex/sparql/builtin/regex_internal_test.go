package builtin

import (
	"errors"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// btAgreementPatterns are XPath expressions without back-references on
// which the backtracking matcher must give Go's regexp's answers: the
// matches of FindAllStringSubmatchIndex, groups included.
var btAgreementPatterns = []struct{ pattern, flags string }{
	{`a`, ""}, {`abc`, "i"}, {`a|b|ab`, ""}, {`(a|ab)(c|bcd)(d*)`, ""}, {`(a*)*`, ""}, {`(a*)+`, ""},
	{`(a|)+`, ""}, {`(|a)+`, ""}, {`(|a)*`, ""}, {`(a*?)+?`, ""}, {`((a*)b)*`, ""}, {`(a?)*?b`, ""},
	{`^(a+)(a*)$`, ""}, {`(a+?)(a*)`, ""}, {`x*`, ""}, {`x+?`, ""}, {`(?:ab)+`, ""}, {`(a){2,3}`, ""},
	{`(a){0,2}?b`, ""}, {`(a|b){3,}`, ""}, {`^`, "m"}, {`$`, "m"}, {`^a$`, "m"}, {`.`, ""}, {`.`, "s"},
	{`[^a-c]+`, ""}, {`[a-z-[aeiou]]+`, ""}, {`\w+`, ""}, {`[\w-[\d]]+`, ""}, {`\s*`, ""}, {`\p{Lu}\p{Ll}*`, ""},
	{`\i\c*`, ""}, {`\p{IsBasicLatin}+`, ""}, {`[\P{IsGreek}-[\s]]+`, "i"}, {`k`, "i"}, {`(?:(a)|b)+`, ""},
	{`((a)|(b))*`, ""}, {`(a*)*b`, ""}, {`((a|b)*?)c`, ""}, {`(ab|a)(bc|c)?`, ""}, {`()`, ""}, {`(()|a)+`, ""},
	{`((a*)*)*`, ""}, {`((a|)+)+`, ""}, {`(a*|b*)*c`, ""}, {`(a|b*)+?`, ""}, {`((a)|b*)*`, ""},
	{`(a*?)*b`, ""}, {`(a*?)+b`, ""}, {`(a??)*b`, ""}, {`(a*?|b)*`, ""}, {`((a*?)*)*b`, ""},
}

var btAgreementTexts = []string{"", "a", "aa", "aaa", "ab", "abc", "abcd", "aabab", "ba", "bab", "cab",
	"AbC", "K\u212a", "a\nb\n", "\nab\r\n", "xxx", "αβγ Ab cd", "_x1 y:z", "aXbXc", "\xffa\xfe", "abababc"}

func TestBacktrack_AgreesWithRegexp(t *testing.T) {
	for _, p := range btAgreementPatterns {
		for _, s := range btAgreementTexts {
			checkBacktrackAgrees(t, p.pattern, p.flags, s)
		}
	}
}

func FuzzBacktrack_AgreesWithRegexp(f *testing.F) {
	for i, p := range btAgreementPatterns {
		f.Add(p.pattern, p.flags, btAgreementTexts[i%len(btAgreementTexts)])
	}
	f.Fuzz(func(t *testing.T, pattern, flags, text string) {
		checkBacktrackAgrees(t, pattern, flags, text)
	})
}

// checkBacktrackAgrees compares the backtracking matcher with Go's regexp
// on a translated expression without back-references.
func checkBacktrackAgrees(t *testing.T, pattern, flags, text string) {
	t.Helper()
	src, backrefs, err := translateRegex(pattern, flags)
	if err != nil || backrefs {
		return
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return
	}
	bt, err := compileBacktrack(src, false)
	if err != nil {
		t.Fatalf("%q: regexp compiles %q, the backtracker does not: %v", pattern, src, err)
	}
	x := &xpathRegex{pattern: pattern, bt: bt}
	got, err := x.findAllSubmatchIndex(text)
	if err != nil {
		return // over the budget: an error, not a wrong answer
	}
	want := re.FindAllStringSubmatchIndex(text, -1)
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("%q %q (RE2 %q) on %q: backtracker %v, regexp %v", pattern, flags, src, text, got, want)
	}
	if ok, err := x.matchString(text); err == nil && ok != re.MatchString(text) {
		t.Fatalf("%q %q on %q: backtracker matches %v, regexp %v", pattern, flags, text, ok, !ok)
	}
}

// FuzzTranslateRegex checks that a translation either fails with a type
// error or compiles: with Go's regexp, or with the backtracking matcher when
// it has back-references. Go's regexp may still refuse a translation for
// what the translator leaves to it to check (quantifiers without an atom or
// on a quantifier, repeat counts, size, ranges such as z-a).
func FuzzTranslateRegex(f *testing.F) {
	for _, p := range []string{`(a)\1`, `(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\10`, `(a\1)`, `\1(a)`, `[\i-[\c]]`,
		`[^\I\p{IsGreek}]`, `\P{IsBasicLatin}`, `\p{IsFoo}`, `[\1]`, `(a)|\1`, `((a)\2)*\1`, `[\c-[a-z]]+`} {
		f.Add(p, "", "abc")
		f.Add(p, "ix", "aA")
	}
	f.Fuzz(func(t *testing.T, pattern, flags, text string) {
		src, backrefs, err := translateRegex(pattern, flags)
		if err != nil {
			if !errors.Is(err, ErrType) {
				t.Fatalf("%q: error %v does not wrap ErrType", pattern, err)
			}
			return
		}
		if backrefs {
			bt, err := compileBacktrack(src, false)
			if err != nil {
				if !re2Limit(err) {
					t.Fatalf("%q: translation %q does not compile: %v", pattern, src, err)
				}
				return
			}
			_, _ = bt.machine(text).find(0)
			return
		}
		if _, err := regexp.Compile(src); err != nil && !re2Limit(err) {
			t.Fatalf("%q: translation %q does not compile: %v", pattern, src, err)
		}
	})
}

// re2Limit reports whether err is one of the RE2 errors the translator
// leaves to Go's regexp to report.
func re2Limit(err error) bool {
	var se *syntax.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code {
	case syntax.ErrInvalidRepeatSize, syntax.ErrInvalidRepeatOp, syntax.ErrMissingRepeatArgument,
		syntax.ErrLarge, syntax.ErrNestingDepth, syntax.ErrInvalidCharRange:
		return true
	}
	return false
}

// The block table is of the Unicode version of Go's unicode package, which
// gives \p{L} and the other categories: when the toolchain moves to another
// version, regenerate unicode_blocks.go from that version's Blocks.txt.
// Every block is a whole number of 16-code-point columns (as Blocks.txt
// promises), and no two overlap.
func TestUnicodeBlocks_Version(t *testing.T) {
	if unicodeBlocksVersion != unicode.Version {
		t.Errorf("block table of Unicode %s, Go's unicode package is %s", unicodeBlocksVersion, unicode.Version)
	}
	ranges := make([][2]rune, 0, len(unicodeBlocks))
	for name, r := range unicodeBlocks {
		if r[0]%16 != 0 || r[1]%16 != 15 || r[0] > r[1] || r[1] > unicode.MaxRune {
			t.Errorf("%s: bad range %U..%U", name, r[0], r[1])
		}
		ranges = append(ranges, r)
	}
	slices.SortFunc(ranges, func(a, b [2]rune) int { return int(a[0] - b[0]) })
	for i := 1; i < len(ranges); i++ {
		if ranges[i][0] <= ranges[i-1][1] {
			t.Errorf("%U..%U overlaps %U..%U", ranges[i-1][0], ranges[i-1][1], ranges[i][0], ranges[i][1])
		}
	}
	if len(unicodeBlocks) != 327 { // Blocks-15.0.0.txt lists 327 blocks
		t.Errorf("%d blocks, want 327", len(unicodeBlocks))
	}
}

// randomXPathRegex writes a random XPath expression of about depth levels
// over the letters a and b, within the syntax that Go's regexp shares:
// groups, non-capturing groups, alternatives (empty ones too), classes,
// anchors and every quantifier, greedy and reluctant.
func randomXPathRegex(r *rand.Rand, depth int) string {
	var atom func(d int) string
	var branch func(d int) string
	atom = func(d int) string {
		var s string
		switch k := r.IntN(10); {
		case d <= 0 || k < 3:
			s = []string{"a", "b", ".", "[ab]", "[^a]", "a", "b"}[r.IntN(7)]
		case k < 4:
			s = []string{"^", "$", "()"}[r.IntN(3)]
			return s
		case k < 8:
			s = "(" + branch(d-1) + ")"
		default:
			s = "(?:" + branch(d-1) + ")"
		}
		q := []string{"", "", "", "*", "+", "?", "*?", "+?", "??", "{2}", "{0,2}", "{1,}?", "{0,1}"}[r.IntN(13)]
		return s + q
	}
	branch = func(d int) string {
		var b strings.Builder
		for range r.IntN(3) + 1 {
			b.WriteString(atom(d))
		}
		if r.IntN(4) == 0 {
			b.WriteString("|" + []string{"", "a", atom(d)}[r.IntN(3)])
		}
		return b.String()
	}
	return branch(depth)
}

// TestBacktrack_RandomAgreesWithRegexp compares the backtracking matcher
// with Go's regexp, groups included, on random expressions without
// back-references and random texts over their letters (a fixed seed).
func TestBacktrack_RandomAgreesWithRegexp(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 4000
	if testing.Short() {
		n = 400
	}
	for range n {
		pattern := randomXPathRegex(r, 3)
		flags := []string{"", "", "m", "s"}[r.IntN(4)]
		for range 6 {
			text := make([]byte, r.IntN(7))
			for i := range text {
				text[i] = "aab\n"[r.IntN(4)]
			}
			checkBacktrackAgrees(t, pattern, flags, string(text))
		}
	}
}
