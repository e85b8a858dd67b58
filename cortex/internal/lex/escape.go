package lex

import (
	"fmt"
	"unicode/utf8"
)

// UCHAR decodes the UCHAR at the start of s ('\u' and four HEX, or '\U' and
// eight) and returns the character and the length of the escape. s[0] must
// be '\'. The error wraps ErrIncompleteEscape when s ends inside the escape,
// ErrBadEscape when s[1] is neither 'u' nor 'U', ErrBadHexDigit for a digit
// that is not HEX and ErrNotScalar for a surrogate or a value above U+10FFFF.
func UCHAR[S ~string | ~[]byte](s S) (rune, int, error) {
	if len(s) < 2 {
		return 0, 0, ErrIncompleteEscape
	}
	var n int
	switch s[1] {
	case 'u':
		n = 4
	case 'U':
		n = 8
	default:
		return 0, 0, fmt.Errorf("%w \\%c", ErrBadEscape, s[1])
	}
	if len(s) < 2+n {
		return 0, 0, ErrIncompleteEscape
	}
	var r uint32 // eight hex digits overflow a rune
	for i := 2; i < 2+n; i++ {
		c := s[i]
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, 0, fmt.Errorf("%w %q in escape sequence", ErrBadHexDigit, c)
		}
		r = r<<4 | uint32(d)
	}
	if r > utf8.MaxRune || r >= 0xD800 && r <= 0xDFFF {
		return 0, 0, ErrNotScalar
	}
	return rune(r), 2 + n, nil
}

// ECHAR returns the character the string escape '\' c stands for (ECHAR:
// \t \b \n \r \f \" \' \\), and false when '\' c is no ECHAR.
func ECHAR(c byte) (byte, bool) {
	switch c {
	case 't':
		return '\t', true
	case 'b':
		return '\b', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 'f':
		return '\f', true
	case '"', '\'', '\\':
		return c, true
	}
	return 0, false
}

const hexDigits = "0123456789ABCDEF"

// AppendUCHAR appends r as a UCHAR: \uXXXX, or \UXXXXXXXX when r is above
// U+FFFF, with upper-case hex digits.
func AppendUCHAR(b []byte, r rune) []byte {
	n := 4
	b = append(b, '\\', 'u')
	if r > 0xFFFF {
		n = 8
		b[len(b)-1] = 'U'
	}
	for s := 4 * (n - 1); s >= 0; s -= 4 {
		b = append(b, hexDigits[(r>>uint(s))&0xF])
	}
	return b
}
