package builtin_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/builtin"
)

// The sparql10/regex W3C tests: which values of regex-data-quantifiers.ttl
// (and regex-data-01.ttl) each FILTER regex keeps, from the .srx files.
func TestRegex_W3C(t *testing.T) {
	quantData := []string{"ac", "abc", "abbc", "abbbc", "a\nc", "a\nb\nc", "a.c", "ABC", "a?+*.{}()[]c", "b"}
	data01 := []string{"abcDEFghiJKL", "ABCdefGHIjkl", "0123456789", "http://example.com/literal"}
	tests := []struct {
		name           string
		data           []string
		pattern, flags string
		want           []string
	}{
		{"case-insensitive", data01, "abc", "i", []string{"abcDEFghiJKL", "ABCdefGHIjkl"}},
		{"query-001", data01, "GHI", "", []string{"ABCdefGHIjkl"}},
		{"query-002", data01, "DeFghI", "i", []string{"abcDEFghiJKL", "ABCdefGHIjkl"}},
		{"query-003", data01, `example\.com`, "", []string{"http://example.com/literal"}},
		{"char-class", quantData, `a[b\n]c`, "", []string{"abc", "a\nc"}},
		{"negative-char-class", quantData, `a[^b]c`, "", []string{"a\nc", "a.c"}},
		{"dot", quantData, "a.c", "", []string{"abc", "a.c"}},
		{"dot-all", quantData, "a.c", "s", []string{"abc", "a\nc", "a.c"}},
		{"ignore-whitespace", quantData, " a\n\tc ", "x", []string{"ac"}},
		{"ignore-whitespace-class", quantData, " a\n\r\t[\\n]c ", "x", []string{"a\nc"}},
		{"no-metacharacters", quantData, "a?+*.{}()[]c", "q", []string{"a?+*.{}()[]c"}},
		{"no-metacharacters-i", quantData, "a?+*.{}()[]C", "iq", []string{"a?+*.{}()[]c"}},
		{"counted-exact", quantData, "ab{2}c", "", []string{"abbc"}},
		{"counted-lower", quantData, "ab{1,}c", "", []string{"abc", "abbc", "abbbc"}},
		{"counted-lower-upper", quantData, "ab{1,2}c", "", []string{"abc", "abbc"}},
		{"one-or-more", quantData, "ab+c", "", []string{"abc", "abbc", "abbbc"}},
		{"optional", quantData, "ab?c", "", []string{"ac", "abc"}},
		{"zero-or-more", quantData, "ab*c", "", []string{"ac", "abc", "abbc", "abbbc"}},
		{"start-end", quantData, "^b$", "", []string{"b"}},
		{"start-end-multiline", quantData, "^b$", "m", []string{"a\nb\nc", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, s := range tt.data {
				args := vals(str(s), str(tt.pattern))
				if tt.flags != "" {
					args = append(args, str(tt.flags))
				}
				v, err := builtin.Call("REGEX", args)
				if err != nil {
					t.Fatalf("REGEX(%q, %q, %q): %v", s, tt.pattern, tt.flags, err)
				}
				if v == T {
					got = append(got, s)
				}
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tt.want))
			if !slices.Equal(got, want) {
				t.Fatalf("matched %q, want %q", got, want)
			}
		})
	}
}

func TestRegex(t *testing.T) {
	E := builtin.ErrType
	runCalls(t, nil, []callCase{
		{"REGEX", vals(lang("chat", "fr"), str("^ch")), T, nil},
		{"REGEX", vals(xsdString("abc"), str("B"), str("i")), T, nil},
		{"REGEX", vals(str("a\rb"), str("a.b")), F, nil}, // F&O 3.1 §5.6.1.1: '.' excludes \r too
		{"REGEX", vals(str("a\nb"), str("a.b")), F, nil},
		{"REGEX", vals(str("a\u2028b"), str("a.b")), T, nil}, // only \n and \r are excluded
		{"REGEX", vals(str("a\rb"), str("a[^x]b")), T, nil},  // a negated class is not '.'
		{"REGEX", vals(str("a\rb"), str("a.b"), str("s")), T, nil},
		{"REGEX", vals(str("x\n"), str("x$")), F, nil},
		{"REGEX", vals(str("٣"), str(`^\d$`)), T, nil}, // \d is Unicode Nd
		{"REGEX", vals(str("\f"), str(`\s`)), F, nil},  // \s is [ \t\n\r] only
		{"REGEX", vals(str("é"), str(`^\w$`)), T, nil},
		{"REGEX", vals(str("!"), str(`^\w$`)), F, nil},
		{"REGEX", vals(str("!"), str(`^\W$`)), T, nil},
		{"REGEX", vals(str("a b"), str(`a[\s]b`)), T, nil},
		{"REGEX", vals(str("Ab"), str(`^\p{Lu}\p{Ll}$`)), T, nil},
		{"REGEX", vals(str("[:alpha:]"), str(`[[:alpha:]]`)), nil, E}, // XPath: nested '[' in class
		{"REGEX", vals(str("a-"), str(`^a[-]$`)), T, nil},
		{"REGEX", vals(str("x"), str(`(?:x)`)), T, nil},
		{"REGEX", vals(str("aaa"), str(`a{2,}?`)), T, nil},
		{"REGEX", vals(str("ab"), str(`a b`), str("x")), T, nil},
		{"REGEX", vals(str("a b"), str(`a[ ]b`), str("x")), T, nil},
		// x removes whitespace everywhere but in classes before the expression is read (F&O 3.1
		// §5.6.1.1): in quantifiers, property names, group openers and after a backslash too.
		{"REGEX", vals(str("aaa"), str(`^a{2, 3}$`), str("x")), T, nil},
		{"REGEX", vals(str("A"), str(`^\p{ Lu }$`), str("x")), T, nil},
		{"REGEX", vals(str("ab"), str(`^( ?: a ) b$`), str("x")), T, nil},
		{"REGEX", vals(str("1"), str(`^\ d$`), str("x")), T, nil},
		{"REGEX", vals(str("[b"), str(`^\ [b$`), str("x")), T, nil},
		{"REGEX", vals(str("]"), str(`^[ \] ]$`), str("x")), T, nil},
		{"REGEX", vals(str(" "), str(`^[a-z-[ b]]$`), str("x")), F, nil},
		{"REGEX", vals(str("aaa"), str(`^a{2, 3}$`)), nil, E},
		// Unsupported or invalid syntax is an error, never a wrong match.
		{"REGEX", vals(str("aa"), str(`(a)\1`)), T, nil},
		// Character class subtraction (XML Schema Part 2 §F.1.1, charClassSub).
		{"REGEX", vals(str("b"), str(`^[a-z-[aeiou]]$`)), T, nil},
		{"REGEX", vals(str("a"), str(`^[a-z-[aeiou]]$`)), F, nil},
		{"REGEX", vals(str("x"), str(`^[\w-[\d]]$`)), T, nil},
		{"REGEX", vals(str("1"), str(`^[\w-[\d]]$`)), F, nil},
		{"REGEX", vals(str("1"), str(`^[^a-z-[b]]$`)), T, nil},
		{"REGEX", vals(str("b"), str(`^[^a-z-[b]]$`)), F, nil},
		{"REGEX", vals(str("c"), str(`^[^a-z-[b]]$`)), F, nil},
		{"REGEX", vals(str("c"), str(`^[a-z-[b-y-[c]]]$`)), T, nil},
		{"REGEX", vals(str("d"), str(`^[a-z-[b-y-[c]]]$`)), F, nil},
		{"REGEX", vals(str("B"), str(`^[a-z-[b]]$`), str("i")), F, nil},
		{"REGEX", vals(str("C"), str(`^[a-z-[b]]$`), str("i")), T, nil},
		{"REGEX", vals(str("ab"), str(`^[a-c-[b]]+$`)), F, nil},
		{"REGEX", vals(str("a"), str(`[a-z-[a]x]`)), nil, E}, // the subtraction ends the class
		{"REGEX", vals(str("a"), str(`[-[a]]`)), nil, E},
		{"REGEX", vals(str("a"), str(`[a-[a`)), nil, E},
		{"REGEX", vals(str("a"), str(`\p{IsBasicLatin}`)), T, nil},
		{"REGEX", vals(str("a"), str(`\i\c*`)), T, nil},
		// \w and \S in a character class (XML Schema Part 2 §F: a class may
		// hold multi-character escapes): a member of either part matches.
		{"REGEX", vals(str("a.b-c"), str(`^[\w.-]+$`)), T, nil},
		{"REGEX", vals(str("a b"), str(`^[\w]+$`)), F, nil},
		{"REGEX", vals(str("+é1"), str(`^[\w]+$`)), T, nil}, // \w is all but P, Z and C
		{"REGEX", vals(str("_"), str(`^[\w]$`)), F, nil},
		{"REGEX", vals(str("_"), str(`^[\w_]$`)), T, nil},
		{"REGEX", vals(str("x+y"), str(`^[\S]+$`)), T, nil},
		{"REGEX", vals(str("x y"), str(`^[\S]+$`)), F, nil},
		{"REGEX", vals(str("x y"), str(`^[\S ]+$`)), T, nil},
		{"REGEX", vals(str("A-"), str(`^[\wa]-$`), str("i")), T, nil},
		{"REGEX", vals(str("a"), str(`[^\w]`)), F, nil},
		{"REGEX", vals(str("+"), str(`[^\w]`)), F, nil},
		{"REGEX", vals(str("_"), str(`^[^\w]$`)), T, nil},
		{"REGEX", vals(str("_"), str(`^[^\w_]$`)), F, nil},
		{"REGEX", vals(str("."), str(`^[^\w\s]$`)), T, nil},
		{"REGEX", vals(str(" "), str(`^[^\w\s]$`)), F, nil},
		{"REGEX", vals(str(" "), str(`^[^\S]$`)), T, nil},
		{"REGEX", vals(str("\u00a0"), str(`^[^\S]$`)), F, nil}, // \s is [ \t\n\r] only
		{"REGEX", vals(str("x"), str(`^[^\Sx]$`)), F, nil},
		{"REGEX", vals(str("B"), str(`^[^\Wb]$`), str("i")), F, nil}, // i folds the whole class
		{"REGEX", vals(str("B"), str(`^[^\Wb]$`)), T, nil},
		{"REGEX", vals(str("-"), str(`^[^\w\W]$`)), F, nil},
		{"REGEX", vals(str("\U0001F600"), str(`^[^\S\p{L}]$`)), F, nil},
		{"REGEX", vals(str("\t"), str(`^[^\S\p{L}]$`)), T, nil},
		{"REGEX", vals(str("\U0001F600"), str(`^[^\w\p{Lu}]$`)), F, nil},
		{"REGEX", vals(str("\U0001F600"), str(`^[^\S]$`)), F, nil},
		{"REGEX", vals(str("a"), str(`\ba`)), nil, E},
		{"REGEX", vals(str("a"), str(`\A`)), nil, E},
		{"REGEX", vals(str("a"), str(`(?i)a`)), nil, E},
		{"REGEX", vals(str("a"), str(`a{`)), nil, E},
		{"REGEX", vals(str("a"), str(`a]`)), nil, E},
		{"REGEX", vals(str("a"), str(`(a`)), nil, E},
		{"REGEX", vals(str("a"), str(`a)`)), nil, E},
		{"REGEX", vals(str("a"), str(`[]`)), nil, E},
		{"REGEX", vals(str("a"), str(`a**`)), nil, E},
		{"REGEX", vals(str("a"), str(`a{2000}`)), nil, E},
		{"REGEX", vals(str("a"), str("a"), str("g")), nil, E},
		{"REGEX", vals(str("a"), lang("a", "en")), nil, E},
		{"REGEX", vals(integer("1"), str("1")), nil, E},
		{"REGEX", vals(iri("http://a"), str("a")), nil, E},
	})
}

func TestReplace(t *testing.T) {
	E := builtin.ErrType
	runCalls(t, nil, []callCase{
		// replace01/02/03, replace-case-insensitive, XPath fn:replace examples.
		{"REPLACE", vals(str("123"), str("[^a-z0-9]"), str("-")), str("123"), nil},
		{"REPLACE", vals(lang("日本語", "ja"), str("[^a-z0-9]"), str("-")), lang("---", "ja"), nil},
		{"REPLACE", vals(lang("english", "en"), str("[^a-z0-9]"), str("-")), lang("english", "en"), nil},
		{"REPLACE", vals(lang("français", "fr"), str("[^a-z0-9]"), str("-")), lang("fran-ais", "fr"), nil},
		{"REPLACE", vals(str("banana"), str("ana"), str("*")), str("b*na"), nil},
		{"REPLACE", vals(str("abcd"), str("(ab)|(a)"), str("[1=$1][2=$2]")), str("[1=ab][2=]cd"), nil},
		{"REPLACE", vals(str("aAbBaC"), str("a"), str("~/"), str("i")), str("~/~/bB~/C"), nil},
		{"REPLACE", vals(str("abracadabra"), str("bra"), str("*")), str("a*cada*"), nil},
		{"REPLACE", vals(str("abracadabra"), str("a.*a"), str("*")), str("*"), nil},
		{"REPLACE", vals(str("abracadabra"), str("a.*?a"), str("*")), str("*c*bra"), nil},
		{"REPLACE", vals(str("abracadabra"), str("a"), str("")), str("brcdbr"), nil},
		{"REPLACE", vals(str("abracadabra"), str("a(.)"), str("a$1$1")), str("abbraccaddabbra"), nil},
		{"REPLACE", vals(str("darted"), str("^(.*?)d(.*)$"), str("$1c$2")), str("carted"), nil},
		{"REPLACE", vals(str("abc"), str("(b)"), str(`\$1=$1`)), str("a$1=bc"), nil},
		{"REPLACE", vals(str("abc"), str("(b)"), str(`\\`)), str(`a\c`), nil},
		{"REPLACE", vals(str("abc"), str("(b)"), str("$12")), str("ab2c"), nil}, // only one group: $1 then "2"
		{"REPLACE", vals(str("abc"), str("b"), str("$1")), str("ac"), nil},      // no such group: empty
		{"REPLACE", vals(str("a.c"), str("."), str("$0"), str("q")), str("a$0c"), nil},
		{"REPLACE", vals(str("abracadabra"), str(".*?"), str("$1")), nil, E}, // matches ""
		{"REPLACE", vals(str("abc"), str("b"), str("$")), nil, E},
		{"REPLACE", vals(str("abc"), str("b"), str(`\x`)), nil, E},
		{"REPLACE", vals(str("abc"), str("("), str("x")), nil, E},
		{"REPLACE", vals(integer("1"), str("1"), str("2")), nil, E},
	})
}

func TestCompileRegex_Cache(t *testing.T) {
	a, err := builtin.CompileRegex("a+b", "i")
	if err != nil {
		t.Fatal(err)
	}
	b, err := builtin.CompileRegex("a+b", "i")
	if err != nil || a != b {
		t.Fatalf("second compile returned %p, %v; want cached %p", b, err, a)
	}
	_, err1 := builtin.CompileRegex(`(a)\1`, "")
	_, err2 := builtin.CompileRegex(`(a)\1`, "")
	if !errors.Is(err1, builtin.ErrType) || !errors.Is(err2, builtin.ErrType) {
		t.Fatalf("errors %v, %v", err1, err2)
	}
}

// TestRegex_NegatedClassIsComplement checks that [^X] matches exactly the
// characters [X] does not, with and without the i flag, for classes that
// hold \w or \S (written out as the complement of ranges) and others.
func TestRegex_NegatedClassIsComplement(t *testing.T) {
	classes := []string{`\w`, `\S`, `\w\s`, `\S\p{L}`, `\wb`, `\Wb`, `\w_`, `a-z\S`, `\w\W`, `\d\S`, `\w\-`}
	chars := []rune("aAbBzZ_-+. \t\n\r\u00a0éÉ٣\u212a\U0001F600\u0000\U0010FFFF")
	for _, class := range classes {
		for _, flags := range []string{"", "i"} {
			pos, err := builtin.CompileRegex("^["+class+"]$", flags)
			if err != nil {
				t.Fatalf("[%s] %q: %v", class, flags, err)
			}
			neg, err := builtin.CompileRegex("^[^"+class+"]$", flags)
			if err != nil {
				t.Fatalf("[^%s] %q: %v", class, flags, err)
			}
			for _, c := range chars {
				if pos.MatchString(string(c)) == neg.MatchString(string(c)) {
					t.Errorf("[%s] and [^%s] with flags %q agree on %q", class, class, flags, c)
				}
			}
		}
	}
}

// TestRegex_XMLNameEscapes checks \i and \c (XML 1.0 Fifth Edition's
// NameStartChar and NameChar) and their complements \I and \C, alone, in
// classes, negated classes and subtractions.
func TestRegex_XMLNameEscapes(t *testing.T) {
	runCalls(t, nil, []callCase{
		{"REGEX", vals(str("x:a-b.c_1"), str(`^\i\c*$`)), T, nil},
		{"REGEX", vals(str("1abc"), str(`^\i\c*$`)), F, nil},
		{"REGEX", vals(str("-a"), str(`^\i`)), F, nil},
		{"REGEX", vals(str("_"), str(`^\i$`)), T, nil},
		{"REGEX", vals(str(":"), str(`^\i$`)), T, nil},
		{"REGEX", vals(str("\u00b7"), str(`^\c$`)), T, nil}, // middle dot: a NameChar only
		{"REGEX", vals(str("\u00b7"), str(`^\i$`)), F, nil},
		{"REGEX", vals(str("\u0300"), str(`^\c$`)), T, nil},
		{"REGEX", vals(str("\u00d7"), str(`^\c$`)), F, nil},     // multiplication sign
		{"REGEX", vals(str("\u037e"), str(`^\c$`)), F, nil},     // Greek question mark
		{"REGEX", vals(str("\U00010000"), str(`^\i$`)), T, nil}, // Fifth Edition: [#x10000-#xEFFFF]
		{"REGEX", vals(str("\U000f0000"), str(`^\i$`)), F, nil}, //
		{"REGEX", vals(str("\u2070"), str(`^\i$`)), T, nil},     // not a letter, yet a NameStartChar in the Fifth Edition
		{"REGEX", vals(str(" "), str(`^\I$`)), T, nil},
		{"REGEX", vals(str("a"), str(`^\I$`)), F, nil},
		{"REGEX", vals(str("1"), str(`^\I$`)), T, nil},
		{"REGEX", vals(str("1"), str(`^\C$`)), F, nil},
		{"REGEX", vals(str("!"), str(`^\C$`)), T, nil},
		{"REGEX", vals(str("a1"), str(`^[\i\d]+$`)), T, nil},
		{"REGEX", vals(str("-"), str(`^[\i]$`)), F, nil},
		{"REGEX", vals(str("-"), str(`^[^\i]$`)), T, nil},
		{"REGEX", vals(str("a"), str(`^[^\i]$`)), F, nil},
		{"REGEX", vals(str("a"), str(`^[^\I]$`)), T, nil},
		{"REGEX", vals(str("1"), str(`^[^\I]$`)), F, nil},
		{"REGEX", vals(str("1"), str(`^[\I-[\s]]$`)), T, nil},
		{"REGEX", vals(str(" "), str(`^[\I-[\s]]$`)), F, nil},
		{"REGEX", vals(str("1"), str(`^[\c-[\i]]$`)), T, nil},
		{"REGEX", vals(str("a"), str(`^[\c-[\i]]$`)), F, nil},
		{"REGEX", vals(str("b"), str(`^[\i-[a]]$`)), T, nil},
		{"REGEX", vals(str("A"), str(`^[\i-[a]]$`), str("i")), F, nil},
		{"REGEX", vals(str("!"), str(`^[\C\w]$`)), T, nil},
		{"REGEX", vals(str("!"), str(`^[^\C\w]$`)), F, nil},
		{"REGEX", vals(str("a"), str(`^[^\C\w]$`)), F, nil},
		{"REGEX", vals(str("-"), str(`^[^\C\w]$`)), T, nil}, // a NameChar, punctuation
		{"REGEX", vals(str("a"), str(`[\i-z]`)), T, nil},    // - after a multi-character escape is a character
		{"REGEX", vals(str("-"), str(`^[\i-]$`)), T, nil},
	})
}

// TestRegex_BlockEscapes checks \p{IsX} and \P{IsX}: the Unicode blocks of
// Blocks.txt (15.0, the version of Go's unicode package) with spaces
// removed, and XML Schema 1.0's older names.
func TestRegex_BlockEscapes(t *testing.T) {
	E := builtin.ErrType
	runCalls(t, nil, []callCase{
		{"REGEX", vals(str("abc~"), str(`^\p{IsBasicLatin}+$`)), T, nil},
		{"REGEX", vals(str("\u0080"), str(`^\p{IsBasicLatin}$`)), F, nil},
		{"REGEX", vals(str("\u0080"), str(`^\P{IsBasicLatin}$`)), T, nil},
		{"REGEX", vals(str("a"), str(`^\P{IsBasicLatin}$`)), F, nil},
		{"REGEX", vals(str("é"), str(`^\p{IsLatin-1Supplement}$`)), T, nil},
		{"REGEX", vals(str("\u0100"), str(`^\p{IsLatinExtended-A}$`)), T, nil},
		{"REGEX", vals(str("α"), str(`^\p{IsGreek}$`)), T, nil},      // XSD 1.0's name
		{"REGEX", vals(str("\u0374"), str(`^\p{IsGreek}$`)), T, nil}, // a block, not the Greek script
		{"REGEX", vals(str("α"), str(`^\p{IsGreekandCoptic}$`)), T, nil},
		{"REGEX", vals(str("ἀ"), str(`^\p{IsGreek}$`)), F, nil}, // Greek Extended
		{"REGEX", vals(str("ἀ"), str(`^\p{IsGreekExtended}$`)), T, nil},
		{"REGEX", vals(str("\u20d0"), str(`^\p{IsCombiningMarksforSymbols}$`)), T, nil},
		{"REGEX", vals(str("\ue000"), str(`^\p{IsPrivateUse}$`)), T, nil},
		{"REGEX", vals(str("\U00100000"), str(`^\p{IsPrivateUse}$`)), T, nil},
		{"REGEX", vals(str("\ue000"), str(`^\p{IsPrivateUseArea}$`)), T, nil},
		{"REGEX", vals(str("\ufeff"), str(`^\p{IsSpecials}$`)), T, nil},
		{"REGEX", vals(str("\U0001F600"), str(`^\p{IsEmoticons}$`)), T, nil},
		{"REGEX", vals(str("日本"), str(`^\p{IsCJKUnifiedIdeographs}+$`)), T, nil},
		{"REGEX", vals(str("a"), str(`^[\p{IsGreek}a]$`)), T, nil},
		{"REGEX", vals(str("b"), str(`^[^\p{IsGreek}a]$`)), T, nil},
		{"REGEX", vals(str("α"), str(`^[^\p{IsGreek}a]$`)), F, nil},
		{"REGEX", vals(str("a"), str(`^[^\P{IsBasicLatin}]$`)), T, nil},
		{"REGEX", vals(str("é"), str(`^[^\P{IsBasicLatin}]$`)), F, nil},
		{"REGEX", vals(str("b"), str(`^[\p{IsBasicLatin}-[a]]$`)), T, nil},
		{"REGEX", vals(str("a"), str(`^[\p{IsBasicLatin}-[a]]$`)), F, nil},
		{"REGEX", vals(str("é"), str(`^[\P{IsBasicLatin}-[\p{IsGreek}]]$`)), T, nil},
		{"REGEX", vals(str("α"), str(`^[\P{IsBasicLatin}-[\p{IsGreek}]]$`)), F, nil},
		// The blocks Unicode 15.0 added, and the one it extended.
		{"REGEX", vals(str("\U00010EFD"), str(`^\p{IsArabicExtended-C}$`)), T, nil},
		{"REGEX", vals(str("\U00011B00"), str(`^\p{IsDevanagariExtended-A}$`)), T, nil},
		{"REGEX", vals(str("\U00011F04"), str(`^\p{IsKawi}$`)), T, nil},
		{"REGEX", vals(str("\U0001D2C0"), str(`^\p{IsKaktovikNumerals}$`)), T, nil},
		{"REGEX", vals(str("\U0001E030"), str(`^\p{IsCyrillicExtended-D}$`)), T, nil},
		{"REGEX", vals(str("\U0001E4D0"), str(`^\p{IsNagMundari}$`)), T, nil},
		{"REGEX", vals(str("\U00031350\U000323AF"), str(`^\p{IsCJKUnifiedIdeographsExtensionH}+$`)), T, nil},
		{"REGEX", vals(str("\U000323B0"), str(`^\p{IsCJKUnifiedIdeographsExtensionH}$`)), F, nil},
		{"REGEX", vals(str("\U00013440"), str(`^\p{IsEgyptianHieroglyphFormatControls}$`)), T, nil},
		{"REGEX", vals(str("\U00013460"), str(`^\p{IsEgyptianHieroglyphFormatControls}$`)), F, nil},
		// Unicode 15.1's block is not one of Go's unicode package (15.0).
		{"REGEX", vals(str("a"), str(`\p{IsCJKUnifiedIdeographsExtensionI}`)), nil, E},
		{"REGEX", vals(str("a"), str(`\p{IsFoo}`)), nil, E}, // an unknown block is an error
		{"REGEX", vals(str("a"), str(`\p{Isbasiclatin}`)), nil, E},
		{"REGEX", vals(str("a"), str(`\p{IsBasic Latin}`)), nil, E},
		{"REGEX", vals(str("a"), str(`[\P{IsFoo}]`)), nil, E},
		{"REGEX", vals(str("a"), str(`\p{Is}`)), nil, E},
		{"REGEX", vals(str("a"), str(`\p{ IsBasicLatin }`), str("x")), T, nil},
	})
}

// TestRegex_BackReferences checks back-references (F&O 3.1 §5.6.1): the
// number is as long as the groups opened before it allow, a group that did
// not take part matches the empty string, the i flag compares
// case-insensitively, and a reference to a group not closed before it is an
// error.
func TestRegex_BackReferences(t *testing.T) {
	E := builtin.ErrType
	ten := `(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)`
	runCalls(t, nil, []callCase{
		{"REGEX", vals(str("abab"), str(`^(ab)\1$`)), T, nil},
		{"REGEX", vals(str("abac"), str(`^(ab)\1$`)), F, nil},
		{"REGEX", vals(str(`"x"`), str(`^('|").*\1$`)), T, nil},
		{"REGEX", vals(str(`"x'`), str(`^('|").*\1$`)), F, nil},
		{"REGEX", vals(str("abcabc"), str(`^(.+)\1$`)), T, nil},
		{"REGEX", vals(str("abcab"), str(`^(.+)\1$`)), F, nil},
		{"REGEX", vals(str("b"), str(`^(a)?b\1$`)), T, nil}, // group 1 took no part: \1 matches ""
		{"REGEX", vals(str("bc"), str(`^(?:(a)|b)\1c$`)), T, nil},
		{"REGEX", vals(str("abc"), str(`^(c)*ab\1c$`)), T, nil},
		{"REGEX", vals(str("aab"), str(`^(a*)b\1$`)), F, nil},
		{"REGEX", vals(str("aabaa"), str(`^(a*)b\1$`)), T, nil},
		{"REGEX", vals(str("abAB"), str(`^(ab)\1$`), str("i")), T, nil},
		{"REGEX", vals(str("abAB"), str(`^(ab)\1$`)), F, nil},
		{"REGEX", vals(str("k\u212a"), str(`^(k)\1$`), str("i")), T, nil},
		{"REGEX", vals(str("abab"), str(`^(ab)\1$`), str("x")), T, nil},
		{"REGEX", vals(str("ab ab"), str(`^(ab) \ 1$`), str("x")), F, nil},
		{"REGEX", vals(str("abab"), str(`^(ab) \ 1$`), str("x")), T, nil},
		{"REGEX", vals(str("ababab"), str(`^(ab)\1{2}$`)), T, nil},
		{"REGEX", vals(str("abababab"), str(`^(ab)\1*$`)), T, nil},
		{"REGEX", vals(str("aXbXcXd"), str(`^a(.)b\1c\1d$`)), T, nil},
		{"REGEX", vals(str("xyyx"), str(`^(x)(y)\2\1$`)), T, nil},
		{"REGEX", vals(str("abba"), str(`^((a)(b))\3\2$`)), T, nil},
		// Multi-digit references: \10 is group 10 when ten groups open
		// before it, else \1 and a 0.
		{"REGEX", vals(str("abcdefghijj"), str("^"+ten+`\10$`)), T, nil},
		{"REGEX", vals(str("abcdefghija0"), str("^"+ten+`\10$`)), F, nil},
		{"REGEX", vals(str("aa0"), str(`^(a)\10$`)), T, nil},
		{"REGEX", vals(str("abcdefghija1"), str("^"+ten+`\11$`)), T, nil},
		{"REGEX", vals(str("aab"), str(`^(a)\1b$`), str("q")), F, nil}, // q: literal
		{"REGEX", vals(str("(a)\\1"), str(`(a)\1`), str("q")), T, nil},
		{"REGEX", vals(str("aa"), str(`(a\1)`)), nil, E},   // inside its group
		{"REGEX", vals(str("aa"), str(`\1(a)`)), nil, E},   // before its group
		{"REGEX", vals(str("aa"), str(`(a)\2`)), nil, E},   // no group 2
		{"REGEX", vals(str("aa"), str(`(?:a)\1`)), nil, E}, // a non-capturing group has no number
		{"REGEX", vals(str("a1"), str(`(a)[\1]`)), nil, E}, // not in a class
		{"REGEX", vals(str("a"), str(`\0`)), nil, E},
		{"REGEX", vals(str("aa"), str(`((a)\2)`)), T, nil}, // group 2 is closed
		// A group in a loop holds what its last iteration matched, as in
		// Go's regexp: (a*?)* on aa ends with one iteration of aa.
		{"REGEX", vals(str("aabaa"), str(`^(a*?)*b\1$`)), T, nil},
		{"REGEX", vals(str("aaba"), str(`^(a*?)*b\1$`)), F, nil},
	})
}

func TestReplace_BackReferences(t *testing.T) {
	E := builtin.ErrType
	runCalls(t, nil, []callCase{
		{"REPLACE", vals(str("aabbcd"), str(`(.)\1`), str("<$1>")), str("<a><b>cd"), nil},
		{"REPLACE", vals(lang("hello  world", "en"), str(`(\w+)\s+\1?`), str("$1_")), lang("hello_world", "en"), nil},
		{"REPLACE", vals(str("abab-cdcd"), str(`(\w)(\w)\1\2`), str("$2$1")), str("ba-dc"), nil},
		{"REPLACE", vals(str("xAax"), str(`(a)\1`), str("[$0]"), str("i")), str("x[Aa]x"), nil},
		{"REPLACE", vals(str("a"), str(`(a)?\1`), str("x")), nil, E}, // matches ""
		{"REPLACE", vals(str("aXa"), str(`(a)X\1`), str("$2")), str(""), nil},
		{"REPLACE", vals(str("aab"), str(`(a*?)*b()\2`), str("[$1]")), str("[aa]"), nil},
	})
}

// TestRegex_BackReferenceBudget checks that an expression that makes the
// backtracking matcher take exponential time is an error, not a hang.
func TestRegex_BackReferenceBudget(t *testing.T) {
	text := strings.Repeat("a", 40) + "!"
	for _, fn := range []string{"REGEX", "REPLACE"} {
		args := vals(str(text), str(`^(a|a?)+\1b$`))
		if fn == "REPLACE" {
			args = append(args, str("x"))
		}
		_, err := builtin.Call(fn, args)
		if !errors.Is(err, builtin.ErrType) || !strings.Contains(err.Error(), "matching steps") {
			t.Fatalf("%s: got %v, want a type error about the step budget", fn, err)
		}
	}
}

// TestRegex_BackReferenceLongText checks that the step budget grows with
// the text: expressions with back-references that take a few steps per
// byte run on texts of megabytes (a fixed budget of 4M steps made them
// errors), and one that backtracks without end on such a text is still an
// error.
func TestRegex_BackReferenceLongText(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		name           string
		fn, text, pat  string
		flags, replace string
		want           quad.Value
	}{
		{"MatchAtEnd", "REGEX", strings.Repeat("ab", 5*mb/2) + "aa", `(a)\1`, "", "", T},
		{"NoMatch", "REGEX", strings.Repeat("ab", 5*mb/2), `(a)\1`, "", "", F},
		{"Fold", "REGEX", strings.Repeat("ab", 5*mb/2) + "aA", `(a)\1`, "i", "", T},
		{"RepeatedWord", "REGEX", strings.Repeat("the quick brown fox ", mb/20) + "jumps jumps", `(\w+)\s\1`, "", "", T},
		{"Replace", "REPLACE", strings.Repeat("aab", 5*mb/3), `(a)\1`, "", "x", str(strings.Repeat("xb", 5*mb/3))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := vals(str(tc.text), str(tc.pat))
			if tc.fn == "REPLACE" {
				args = append(args, str(tc.replace))
			}
			if tc.flags != "" {
				args = append(args, str(tc.flags))
			}
			got, err := builtin.Call(tc.fn, args)
			checkValue(t, got, err, tc.want, nil)
		})
	}
	t.Run("Pathological", func(t *testing.T) {
		// (a*)\1c tries, at each position, every split of the run of a:
		// a number of steps cubic in its length.
		_, err := builtin.Call("REGEX", vals(str(strings.Repeat("a", mb/4)), str(`(a*)\1c`)))
		if !errors.Is(err, builtin.ErrType) || !strings.Contains(err.Error(), "matching steps") {
			t.Fatalf("got %v, want a type error about the step budget", err)
		}
	})
	t.Run("DeepStack", func(t *testing.T) {
		// Each a repeated over leaves a dozen entries on the backtracking
		// stack (the five groups' bounds, the loop's): in steps within the
		// budget, a stack beyond its bound.
		_, err := builtin.Call("REGEX", vals(str(strings.Repeat("a", mb)), str(`(((((a)))))+\1b`)))
		if !errors.Is(err, builtin.ErrType) || !strings.Contains(err.Error(), "backtracking stack of more than") {
			t.Fatalf("got %v, want a type error about the stack", err)
		}
	})
}

// TestRegex_BackReferenceAnchored checks that an expression with
// back-references anchored by ^ is tried at the start of the text only: on
// a long text, trying it at every position would use up the step budget.
func TestRegex_BackReferenceAnchored(t *testing.T) {
	text := strings.Repeat("b", 4<<20)
	for _, tc := range []struct {
		pattern string
		want    quad.Value
	}{{`^(a)\1`, F}, {`^(b)\1`, T}, {`^(?:(a)\1|c)`, F}} {
		got, err := builtin.Call("REGEX", vals(str(text), str(tc.pattern)))
		checkValue(t, got, err, tc.want, nil)
	}
}
