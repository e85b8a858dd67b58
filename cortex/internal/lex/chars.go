package lex

import "unicode/utf8"

// Invalid is the rune DecodeRune and DecodeRuneInString return for a byte
// that does not begin valid UTF-8, and for empty input. It is in no class.
const Invalid rune = -1

// DecodeRune returns the first character of b and its width in bytes, like
// utf8.DecodeRune, except that a byte that does not begin valid UTF-8 gives
// (Invalid, 1) rather than (utf8.RuneError, 1), and empty b gives
// (Invalid, 0). An encoded U+FFFD gives (U+FFFD, 3).
func DecodeRune(b []byte) (r rune, n int) {
	// An inlinable fast path for ASCII.
	if len(b) > 0 && b[0] < utf8.RuneSelf {
		return rune(b[0]), 1
	}
	r, n = decodeRune(b)
	return
}

func decodeRune(b []byte) (rune, int) {
	r, n := utf8.DecodeRune(b)
	if r == utf8.RuneError && n <= 1 {
		return Invalid, n
	}
	return r, n
}

// DecodeRuneInString is DecodeRune for a string.
func DecodeRuneInString(s string) (r rune, n int) {
	if s != "" && s[0] < utf8.RuneSelf {
		return rune(s[0]), 1
	}
	r, n = decodeRuneInString(s)
	return
}

func decodeRuneInString(s string) (rune, int) {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && n <= 1 {
		return Invalid, n
	}
	return r, n
}

// IsPNCharsBase reports whether r is a PN_CHARS_BASE character:
// [A-Z] | [a-z] | [#xC0-#xD6] | [#xD8-#xF6] | [#xF8-#x2FF] | [#x370-#x37D] |
// [#x37F-#x1FFF] | [#x200C-#x200D] | [#x2070-#x218F] | [#x2C00-#x2FEF] |
// [#x3001-#xD7FF] | [#xF900-#xFDCF] | [#xFDF0-#xFFFD] | [#x10000-#xEFFFF].
// U+FFFD is one; Invalid is not.
func IsPNCharsBase(r rune) bool {
	switch {
	case r < 0x80:
		return r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z'
	case r < 0xC0:
		return false
	case r <= 0xD6, r >= 0xD8 && r <= 0xF6, r >= 0xF8 && r <= 0x2FF, r >= 0x370 && r <= 0x37D,
		r >= 0x37F && r <= 0x1FFF, r >= 0x200C && r <= 0x200D, r >= 0x2070 && r <= 0x218F,
		r >= 0x2C00 && r <= 0x2FEF, r >= 0x3001 && r <= 0xD7FF, r >= 0xF900 && r <= 0xFDCF,
		r >= 0xFDF0 && r <= 0xFFFD, r >= 0x10000 && r <= 0xEFFFF:
		return true
	}
	return false
}

// IsPNCharsU reports whether r is a PN_CHARS_U character: PN_CHARS_BASE or
// '_' (not ':', see the package documentation).
func IsPNCharsU(r rune) bool { return r == '_' || IsPNCharsBase(r) }

// IsPNChars reports whether r is a PN_CHARS character: PN_CHARS_U, '-',
// [0-9], #xB7, [#x300-#x36F] or [#x203F-#x2040].
func IsPNChars(r rune) bool {
	return IsPNCharsU(r) || r == '-' || r >= '0' && r <= '9' || isNameMark(r)
}

// isNameMark reports the characters PN_CHARS adds to PN_CHARS_U, '-' and the
// digits, which SPARQL's VARNAME adds too: #xB7, [#x300-#x36F] and
// [#x203F-#x2040].
func isNameMark(r rune) bool {
	return r == 0xB7 || r >= 0x300 && r <= 0x36F || r >= 0x203F && r <= 0x2040
}

// IsLabelStart reports whether r may begin a BLANK_NODE_LABEL (after "_:")
// or a SPARQL VARNAME: PN_CHARS_U or [0-9].
func IsLabelStart(r rune) bool { return IsPNCharsU(r) || r >= '0' && r <= '9' }

// IsVarNameChar reports whether r may follow the first character of a SPARQL
// VARNAME: PN_CHARS_U, [0-9], #xB7, [#x300-#x36F] or [#x203F-#x2040], that
// is PN_CHARS without '-'.
func IsVarNameChar(r rune) bool {
	return IsPNCharsU(r) || r >= '0' && r <= '9' || isNameMark(r)
}

// IsVarName reports whether s is a SPARQL VARNAME (the name of a variable
// without its '?' or '$'). Invalid UTF-8 never is one.
func IsVarName(s string) bool {
	r, n := DecodeRuneInString(s)
	if !IsLabelStart(r) {
		return false
	}
	for i := n; i < len(s); i += n {
		if r, n = DecodeRuneInString(s[i:]); !IsVarNameChar(r) {
			return false
		}
	}
	return true
}

// IsBlankLabel reports whether s is a BLANK_NODE_LABEL without its "_:":
// (PN_CHARS_U | [0-9]) ((PN_CHARS | '.')* PN_CHARS)?. Invalid UTF-8 never is
// one.
func IsBlankLabel(s string) bool {
	r, n := DecodeRuneInString(s)
	if !IsLabelStart(r) {
		return false
	}
	for i := n; i < len(s); i += n {
		if r, n = DecodeRuneInString(s[i:]); !IsPNChars(r) && r != '.' {
			return false
		}
	}
	return r != '.'
}

// IsHex reports whether c is a HEX character: [0-9], [A-F] or [a-f].
func IsHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// IsPNLocalEsc reports whether c may follow '\' in a local name
// (PN_LOCAL_ESC): one of _~.-!$&'()*+,;=/?#@%.
func IsPNLocalEsc(c byte) bool {
	switch c {
	case '_', '~', '.', '-', '!', '$', '&', '\'', '(', ')', '*', '+', ',', ';', '=', '/', '?', '#', '@', '%':
		return true
	}
	return false
}

// IsLangTag reports whether s is a LANGTAG without its '@':
// [a-zA-Z]+ ('-' [a-zA-Z0-9]+)*.
func IsLangTag(s string) bool {
	if s == "" {
		return false
	}
	first, n := true, 0 // in the first subtag; length of the current subtag
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z', c >= '0' && c <= '9' && !first:
			n++
		case c == '-' && n > 0:
			first, n = false, 0
		default:
			return false
		}
	}
	return n > 0
}

// notInIRI marks the bytes that IRIREF (N-Triples, Turtle, SPARQL) excludes:
// U+0000–U+0020 and <>"{}|^`\. DEL (0x7F) and every character beyond ASCII
// are allowed.
var notInIRI = func() (t [256]bool) {
	for c := 0; c <= 0x20; c++ {
		t[c] = true
	}
	for _, c := range "<>\"{}|^`\\" {
		t[c] = true
	}
	return t
}()

// NotInIRI reports whether the ASCII character c is one that IRIREF
// excludes (U+0000–U+0020 and <>"{}|^`\), raw or as a UCHAR. Bytes of 0x80
// and above, which UTF-8 uses for characters beyond ASCII, are not.
func NotInIRI(c byte) bool { return c < 0x80 && notInIRI[c] }

// IRIChars reports whether s is valid UTF-8 without a character that
// IRIREF excludes: what an IRI written in N-Triples, Turtle or SPARQL may
// hold. It does not check that s is absolute.
func IRIChars(s string) bool {
	for i := 0; i < len(s); i++ {
		if NotInIRI(s[i]) {
			return false
		}
	}
	return utf8.ValidString(s)
}
