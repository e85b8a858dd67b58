package builtin

import (
	"errors"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
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
func randomXPathRegex(r *rand.Rand, depth int, backrefs bool) string {
	var atom func(d int) string
	var branch func(d int) string
	atom = func(d int) string {
		var s string
		switch k := r.IntN(10); {
		case d <= 0 || k < 3:
			s = []string{"a", "b", ".", "[ab]", "[^a]", "a", "b"}[r.IntN(7)]
		case backrefs && k < 5:
			s = []string{`\1`, `\2`, `\1`}[r.IntN(3)]
		case k < 4:
			return []string{"^", "$", "()"}[r.IntN(3)]
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
		pattern := randomXPathRegex(r, 3, false)
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

// refFind is the backtracking matcher without its economies (choices
// pushed for branches that fail at once, registers restored by copies): a
// recursive interpreter of p, the oracle of TestBacktrack_RandomBackrefs.
// It returns nil, false after more than steps steps.
func refFind(p *btProg, s string, steps int) ([]int, bool) {
	var run func(pc, pos int, regs []int) []int
	run = func(pc, pos int, regs []int) []int {
		for {
			if steps--; steps < 0 {
				return nil
			}
			in := &p.inst[pc]
			switch in.op {
			case btMatch:
				regs[1] = pos
				return regs
			case btFail:
				return nil
			case btRune:
				if pos >= len(s) {
					return nil
				}
				r, w := utf8.DecodeRuneInString(s[pos:])
				if !in.rune.MatchRune(r) {
					return nil
				}
				pos, pc = pos+w, in.out
			case btEmpty:
				r1, r2 := rune(-1), rune(-1)
				if pos > 0 {
					r1, _ = utf8.DecodeLastRuneInString(s[:pos])
				}
				if pos < len(s) {
					r2, _ = utf8.DecodeRuneInString(s[pos:])
				}
				if op := syntax.EmptyOp(in.arg); syntax.EmptyOpContext(r1, r2)&op != op {
					return nil
				}
				pc = in.out
			case btSave:
				regs[in.arg], pc = pos, in.out
			case btSplit:
				if in.mark >= 0 {
					if regs[in.mark] == pos {
						return nil
					}
					regs[in.mark] = pos
				}
				if m := run(in.out, pos, slices.Clone(regs)); m != nil {
					return m
				}
				pc = in.alt
			case btBackref:
				if st, en := regs[2*in.arg], regs[2*in.arg+1]; st >= 0 && en > st {
					var ok bool
					if pos, ok = matchBackref(s, pos, s[st:en], in.fold); !ok {
						return nil
					}
				}
				pc = in.out
			}
		}
	}
	for start := 0; start <= len(s); start++ {
		regs := make([]int, p.nregs)
		for i := range regs {
			regs[i] = -1
		}
		regs[0] = start
		if m := run(p.start, start, regs); m != nil {
			return m, true
		}
		if steps < 0 {
			return nil, false
		}
		if start < len(s) {
			_, w := utf8.DecodeRuneInString(s[start:])
			start += w - 1
		}
	}
	return nil, true
}

// checkBacktrackAgreesWithRef compares the backtracking matcher with
// refFind on an expression with back-references: the first match and its
// groups.
func checkBacktrackAgreesWithRef(t *testing.T, pattern, flags, text string) bool {
	t.Helper()
	src, backrefs, err := translateRegex(pattern, flags)
	if err != nil || !backrefs {
		return false
	}
	bt, err := compileBacktrack(src, strings.Contains(flags, "i"))
	if err != nil {
		return false // RE2's limits (TestTranslateRegex)
	}
	want, ok := refFind(bt, text, 1e5)
	if !ok {
		return true
	}
	got, err := bt.machine(text).find(0)
	if err != nil {
		t.Fatalf("%q %q on %q: %v", pattern, flags, text, err)
	}
	if want != nil && got != nil {
		// The groups' registers, not the choices' marks.
		k := bt.nregs
		for _, in := range bt.inst {
			if in.mark >= 0 {
				k = min(k, in.mark)
			}
		}
		got, want = got[:k], want[:k]
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%q %q (RE2 %q) on %q: matcher %v, reference %v", pattern, flags, src, text, got, want)
	}
	return true
}

func FuzzBacktrack_Backrefs(f *testing.F) {
	for _, p := range []string{`(a*?)*b\1`, `(.{0,2})(\1*)*`, `^(.*)\1$`, `(a|b)*\1c`, `((a)|b)+\2`, `(a?)+?\1$`} {
		f.Add(p, "", "aabaab")
		f.Add(p, "i", "aAbAa")
	}
	f.Fuzz(func(t *testing.T, pattern, flags, text string) {
		if len(text) > 64 {
			return
		}
		checkBacktrackAgreesWithRef(t, pattern, flags, text)
	})
}

// TestBacktrack_RandomBackrefs compares the backtracking matcher with
// refFind on random expressions with back-references and random texts (a
// fixed seed): the first match and its groups.
func TestBacktrack_RandomBackrefs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n, tried := 3000, 0
	if testing.Short() {
		n = 300
	}
	for range n {
		// Group 1 comes first, so that most references have a group.
		pattern := "(" + randomXPathRegex(r, 2, false) + ")" + randomXPathRegex(r, 2, true)
		flags := []string{"", "", "m", "s", "i"}[r.IntN(5)]
		for range 6 {
			text := make([]byte, r.IntN(8))
			for i := range text {
				text[i] = "aAb\n"[r.IntN(4)]
			}
			if checkBacktrackAgreesWithRef(t, pattern, flags, string(text)) {
				tried++
			}
		}
	}
	if tried < 6*n/3 {
		t.Fatalf("only %d texts tried on expressions with back-references", tried)
	}
}

// TestBacktrack_StackMemory measures the bytes a match with
// back-references allocates on a text of 1 MB: the backtracking stack
// holds a frame for a choice only when both branches could go on, a frame
// for a register only once after a choice, and grows in blocks, not by
// copies (a stack that grew by copies, with a frame for every choice and
// register set, allocated 40 bytes per byte of the text for ^(.*)\1$ and
// ^(.*)x\1$, 192 for ^(?:(a)|b)*\1c$).
func TestBacktrack_StackMemory(t *testing.T) {
	const mb = 1 << 20
	ab, as := strings.Repeat("ab", mb/2), strings.Repeat("a", mb)
	for _, tc := range []struct {
		pattern, text string
		want          bool
		maxPerByte    float64 // bytes allocated per byte of the text
	}{
		{`^(.*)\1$`, ab, true, 12},         // a frame per character of .*
		{`^(.*)x\1$`, ab, false, 1},        // .* leaves a choice only before an x
		{`^(?:(a)|b)*\1c$`, as, false, 32}, // a choice and two registers per iteration
		{`^(?:(a)\1)*$`, as, true, 1},      // no choice: $ fails before the end
		{`(\w+)\s\1`, strings.Repeat("the quick brown fox ", mb/20), false, 1},
	} {
		x, err := compileXPath(tc.pattern, "")
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		got, err := x.matchString(tc.text)
		runtime.ReadMemStats(&after)
		if err != nil || got != tc.want {
			t.Fatalf("%q: %v, %v; want %v", tc.pattern, got, err, tc.want)
		}
		if perByte := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(tc.text)); perByte > tc.maxPerByte {
			t.Errorf("%q: %.1f bytes allocated per byte of the text, want at most %v", tc.pattern, perByte, tc.maxPerByte)
		}
	}
}
