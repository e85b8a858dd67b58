package lex_test

import (
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/cortexgraph/cortex/cortex/internal/lex"
)

// TestClasses checks every class at both ends of every range of the
// grammars, and just outside them.
func TestClasses(t *testing.T) {
	const (
		base  = 1 << iota // PN_CHARS_BASE
		u                 // PN_CHARS_U
		chars             // PN_CHARS
		start             // PN_CHARS_U | [0-9]
		vchar             // VARNAME after the first character
	)
	const name = base | u | chars | start | vchar // a PN_CHARS_BASE character is in every class
	tests := []struct {
		r    rune
		want int
	}{
		{lex.Invalid, 0},
		{0, 0},
		{'\t', 0},
		{' ', 0},
		{'-', chars},
		{'.', 0},
		{'/', 0},
		{'0', chars | start | vchar},
		{'9', chars | start | vchar},
		{':', 0}, // in PN_CHARS_U only in the RDF 1.1 N-Triples text
		{'@', 0},
		{'A', name},
		{'Z', name},
		{'[', 0},
		{'_', u | chars | start | vchar},
		{'`', 0},
		{'a', name},
		{'z', name},
		{'{', 0},
		{0x7F, 0},
		{0xB6, 0},
		{0xB7, chars | vchar},
		{0xB8, 0},
		{0xBF, 0},
		{0xC0, name},
		{0xD6, name},
		{0xD7, 0},
		{0xD8, name},
		{0xF6, name},
		{0xF7, 0},
		{0xF8, name},
		{0x2FF, name},
		{0x300, chars | vchar},
		{0x36F, chars | vchar},
		{0x370, name},
		{0x37D, name},
		{0x37E, 0},
		{0x37F, name},
		{0x1FFF, name},
		{0x2000, 0},
		{0x200B, 0},
		{0x200C, name},
		{0x200D, name},
		{0x200E, 0},
		{0x203E, 0},
		{0x203F, chars | vchar},
		{0x2040, chars | vchar},
		{0x2041, 0},
		{0x206F, 0},
		{0x2070, name},
		{0x218F, name},
		{0x2190, 0},
		{0x2BFF, 0},
		{0x2C00, name},
		{0x2FEF, name},
		{0x2FF0, 0},
		{0x3000, 0},
		{0x3001, name},
		{0xD7FF, name},
		{0xD800, 0},
		{0xDFFF, 0},
		{0xE000, 0},
		{0xF8FF, 0},
		{0xF900, name},
		{0xFDCF, name},
		{0xFDD0, 0},
		{0xFDEF, 0},
		{0xFDF0, name},
		{0xFFFD, name}, // U+FFFD itself is a name character
		{0xFFFE, 0},
		{0xFFFF, 0},
		{0x10000, name},
		{0xEFFFF, name},
		{0xF0000, 0},
		{0x10FFFF, 0},
		{0x110000, 0},
	}
	classes := []struct {
		bit int
		f   func(rune) bool
		n   string
	}{
		{base, lex.IsPNCharsBase, "IsPNCharsBase"},
		{u, lex.IsPNCharsU, "IsPNCharsU"},
		{chars, lex.IsPNChars, "IsPNChars"},
		{start, lex.IsLabelStart, "IsLabelStart"},
		{vchar, lex.IsVarNameChar, "IsVarNameChar"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%U", tt.r), func(t *testing.T) {
			for _, c := range classes {
				if got, want := c.f(tt.r), tt.want&c.bit != 0; got != want {
					t.Errorf("%s(%U) = %v, want %v", c.n, tt.r, got, want)
				}
			}
		})
	}
}

// TestDecodeRune checks that a byte that does not begin valid UTF-8 decodes
// as Invalid, which no class holds, while an encoded U+FFFD stays U+FFFD.
func TestDecodeRune(t *testing.T) {
	tests := []struct {
		name, in string
		r        rune
		n        int
	}{
		{"Empty", "", lex.Invalid, 0},
		{"ASCII", "a:", 'a', 1},
		{"TwoBytes", "é", 'é', 2},
		{"FourBytes", "\U00010000", 0x10000, 4},
		{"ReplacementCharacter", "\uFFFDx", 0xFFFD, 3},
		{"ContinuationByte", "\x80a", lex.Invalid, 1},
		{"InvalidByte", "\xff", lex.Invalid, 1},
		{"Truncated", "\xef\xbf", lex.Invalid, 1},
		{"EncodedSurrogate", "\xed\xa0\x80", lex.Invalid, 1},
		{"Overlong", "\xc0\xaf", lex.Invalid, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if r, n := lex.DecodeRuneInString(tt.in); r != tt.r || n != tt.n {
				t.Errorf("DecodeRuneInString(%q) = %U, %d; want %U, %d", tt.in, r, n, tt.r, tt.n)
			}
			if r, n := lex.DecodeRune([]byte(tt.in)); r != tt.r || n != tt.n {
				t.Errorf("DecodeRune(%q) = %U, %d; want %U, %d", tt.in, r, n, tt.r, tt.n)
			}
			// The trap DecodeRune avoids: utf8 reports the bad byte as
			// U+FFFD, which is a PN_CHARS_BASE character.
			if r, n := utf8.DecodeRuneInString(tt.in); r == utf8.RuneError && n == 1 && !lex.IsPNCharsBase(r) {
				t.Errorf("U+FFFD is not PN_CHARS_BASE")
			}
		})
	}
}

func TestIsVarName(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"", false},
		{"x", true},
		{"_", true},
		{"0", true},
		{"a1_b", true},
		{"a\u00B7\u0300\u036F\u203F\u2040", true},
		{"\u00B7", false},
		{"\u0300a", false},
		{"a-b", false},
		{"a.b", false},
		{"a:b", false},
		{"é\U000EFFFF", true},
		{"a\uFFFD", true},
		{"\uFFFD", true},
		{"a\xff", false},
		{"\xff", false},
		{"a\xef\xbf", false},
		{"?x", false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.s), func(t *testing.T) {
			if got := lex.IsVarName(tt.s); got != tt.want {
				t.Errorf("IsVarName(%q) = %v, want %v", tt.s, got, tt.want)
			}
		})
	}
}

func TestIsBlankLabel(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"", false},
		{"b", true},
		{"0", true},
		{"_", true},
		{"-", false},
		{".", false},
		{"a.b", true},
		{"a..b", true},
		{"a.", false},
		{"a-", true},
		{"a-b\u00B7\u0300\u203F", true},
		{"\u00B7", false},
		{"a:b", false},
		{"a b", false},
		{"\uFFFD", true},
		{"a\uFFFDb", true},
		{"\xff", false},
		{"a\xffb", false},
		{"a\x80", false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.s), func(t *testing.T) {
			if got := lex.IsBlankLabel(tt.s); got != tt.want {
				t.Errorf("IsBlankLabel(%q) = %v, want %v", tt.s, got, tt.want)
			}
		})
	}
}

func TestIsHex(t *testing.T) {
	for c := 0; c < 256; c++ {
		want := c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
		if got := lex.IsHex(byte(c)); got != want {
			t.Errorf("IsHex(%q) = %v, want %v", byte(c), got, want)
		}
	}
}

func TestIsPNLocalEsc(t *testing.T) {
	const esc = "_~.-!$&'()*+,;=/?#@%"
	n := 0
	for c := 0; c < 256; c++ {
		if lex.IsPNLocalEsc(byte(c)) {
			n++
		}
	}
	for i := 0; i < len(esc); i++ {
		if !lex.IsPNLocalEsc(esc[i]) {
			t.Errorf("IsPNLocalEsc(%q) = false", esc[i])
		}
	}
	if n != len(esc) {
		t.Errorf("IsPNLocalEsc holds for %d bytes, want the %d of %s", n, len(esc), esc)
	}
}

func TestIsLangTag(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"", false},
		{"en", true},
		{"EN", true},
		{"en-US", true},
		{"de-CH-1996", true},
		{"x-1-a2", true},
		{"abcdefghijk", true}, // LANGTAG has no length limit
		{"1en", false},
		{"en-", false},
		{"-en", false},
		{"en--US", false},
		{"en_US", false},
		{"en US", false},
		{"é", false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.s), func(t *testing.T) {
			if got := lex.IsLangTag(tt.s); got != tt.want {
				t.Errorf("IsLangTag(%q) = %v, want %v", tt.s, got, tt.want)
			}
		})
	}
}

// TestIRIChars: the characters IRIREF excludes (U+0000–U+0020 and
// <>"{}|^`\), each byte of every other ASCII character and of UTF-8 beyond
// ASCII allowed, and bytes that are not UTF-8 refused by IRIChars.
func TestIRIChars(t *testing.T) {
	for c := 0; c < 256; c++ {
		want := c <= 0x20 || c < 0x80 && containsByte(`<>"{}|^`+"`"+`\`, byte(c))
		if got := lex.NotInIRI(byte(c)); got != want {
			t.Errorf("NotInIRI(%#x) = %v, want %v", c, got, want)
		}
	}
	for _, tc := range []struct {
		s  string
		ok bool
	}{
		{"http://ex.org/a", true}, {"", true}, {"http://ex.org/é\x7f~%20", true}, {"urn:😀", true},
		{"http://ex.org/a b", false}, {"a\tb", false}, {"a\x00", false}, {"<a>", false}, {`a"b`, false},
		{"a{b}", false}, {"a|b", false}, {"a^b", false}, {"a`b", false}, {`a\b`, false}, {"a\xff", false}, {"\xc3", false},
	} {
		if got := lex.IRIChars(tc.s); got != tc.ok {
			t.Errorf("IRIChars(%q) = %v, want %v", tc.s, got, tc.ok)
		}
	}
}

func containsByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}
