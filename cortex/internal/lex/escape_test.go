package lex_test

import (
	"errors"
	"testing"

	"github.com/cortexgraph/cortex/cortex/internal/lex"
)

func TestUCHAR(t *testing.T) {
	tests := []struct {
		name, in string
		r        rune
		n        int
		err      error
		msg      string // the whole error message, when err is set
	}{
		{"Short", `\u00e9x`, 'é', 6, nil, ""},
		{"ShortUpper", `\u00E9`, 'é', 6, nil, ""},
		{"Long", `\U0001F600`, 0x1F600, 10, nil, ""},
		{"Zero", `\u0000`, 0, 6, nil, ""},
		{"LastBMP", `\uFFFF`, 0xFFFF, 6, nil, ""},
		{"Replacement", `\uFFFD`, 0xFFFD, 6, nil, ""},
		{"MaxRune", `\U0010FFFF`, 0x10FFFF, 10, nil, ""},
		{"BeforeSurrogates", `\uD7FF`, 0xD7FF, 6, nil, ""},
		{"AfterSurrogates", `\uE000`, 0xE000, 6, nil, ""},
		{"Backslash", `\`, 0, 0, lex.ErrIncompleteEscape, "incomplete escape sequence"},
		{"NotU", `\x41`, 0, 0, lex.ErrBadEscape, `bad escape sequence \x`},
		{"TooFewDigits", `\u12`, 0, 0, lex.ErrIncompleteEscape, "incomplete escape sequence"},
		{"TooFewLongDigits", `\U0001F60`, 0, 0, lex.ErrIncompleteEscape, "incomplete escape sequence"},
		{"BadDigit", `\u12"4`, 0, 0, lex.ErrBadHexDigit, `bad hex digit '"' in escape sequence`},
		{"SignIsNoDigit", `\u+123`, 0, 0, lex.ErrBadHexDigit, `bad hex digit '+' in escape sequence`},
		{"FirstSurrogate", `\uD800`, 0, 0, lex.ErrNotScalar, "escape sequence is not a Unicode scalar value"},
		{"LastSurrogate", `\uDFFF`, 0, 0, lex.ErrNotScalar, "escape sequence is not a Unicode scalar value"},
		{"AboveMaxRune", `\U00110000`, 0, 0, lex.ErrNotScalar, "escape sequence is not a Unicode scalar value"},
		{"BeyondInt32", `\UFFFFFFFF`, 0, 0, lex.ErrNotScalar, "escape sequence is not a Unicode scalar value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for kind, decode := range map[string]func(string) (rune, int, error){
				"string": func(s string) (rune, int, error) { return lex.UCHAR(s) },
				"bytes":  func(s string) (rune, int, error) { return lex.UCHAR([]byte(s)) },
			} {
				r, n, err := decode(tt.in)
				if tt.err != nil {
					if !errors.Is(err, tt.err) || err.Error() != tt.msg {
						t.Errorf("%s: UCHAR(%q) error = %v, want %q wrapping %v", kind, tt.in, err, tt.msg, tt.err)
					}
					continue
				}
				if err != nil || r != tt.r || n != tt.n {
					t.Errorf("%s: UCHAR(%q) = %U, %d, %v; want %U, %d", kind, tt.in, r, n, err, tt.r, tt.n)
				}
			}
		})
	}
}

func TestECHAR(t *testing.T) {
	want := map[byte]byte{'t': '\t', 'b': '\b', 'n': '\n', 'r': '\r', 'f': '\f', '"': '"', '\'': '\'', '\\': '\\'}
	for c := 0; c < 256; c++ {
		got, ok := lex.ECHAR(byte(c))
		w, wok := want[byte(c)]
		if ok != wok || got != w {
			t.Errorf("ECHAR(%q) = %q, %v; want %q, %v", byte(c), got, ok, w, wok)
		}
	}
}

func TestAppendUCHAR(t *testing.T) {
	tests := []struct {
		r    rune
		want string
	}{
		{0, `\u0000`},
		{0x7F, `\u007F`},
		{0xE9, `\u00E9`},
		{0xFFFD, `\uFFFD`},
		{0xFFFF, `\uFFFF`},
		{0x10000, `\U00010000`},
		{0x10FFFF, `\U0010FFFF`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			got := lex.AppendUCHAR([]byte("x"), tt.r)
			if string(got) != "x"+tt.want {
				t.Errorf("AppendUCHAR(%U) = %s, want x%s", tt.r, got, tt.want)
			}
			if r, n, err := lex.UCHAR(got[1:]); err != nil || r != tt.r || n != len(tt.want) {
				t.Errorf("UCHAR(%s) = %U, %d, %v; want %U, %d", got[1:], r, n, err, tt.r, len(tt.want))
			}
		})
	}
}
