package results

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
)

// appendXMLEscapedByte is the byte-at-a-time escaper that appendXMLEscaped
// replaced: the reference its output must equal.
func appendXMLEscapedByte(b []byte, s string, attr bool) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '"':
			esc = "&quot;"
		case '\r':
			esc = "&#xD;"
		case '\n':
			if attr {
				esc = "&#xA;"
			}
		case '\t':
			if attr {
				esc = "&#x9;"
			}
		}
		if esc == "" {
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, esc...)
		start = i + 1
	}
	return append(b, s[start:]...)
}

// checkXMLRune is the rune-by-rune check that checkXMLTerm's replaced.
func checkXMLRune(s string) string {
	for _, r := range s {
		if !isXMLChar(r) {
			return fmt.Sprintf("character %U is not allowed in xml 1.0", r)
		}
	}
	return ""
}

// checkXMLString fails t unless appendXMLEscaped and checkXMLTerm agree
// with the references on s.
func checkXMLString(t *testing.T, s string) {
	t.Helper()
	for _, attr := range []bool{false, true} {
		got, want := appendXMLEscaped([]byte("x"), s, attr), appendXMLEscapedByte([]byte("x"), s, attr)
		if !bytes.Equal(got, want) {
			t.Fatalf("appendXMLEscaped(%q, %v) = %q, want %q", s, attr, got, want)
		}
	}
	if got, want := checkXMLTerm(quad.String(s)), checkXMLRune(s); got != want {
		t.Fatalf("checkXMLTerm(%q) = %q, want %q", s, got, want)
	}
}

// Every byte (and valid multi-byte characters) at every offset of a word,
// in strings of every length around the word size.
func TestXMLEscapeAndCheck_EveryByteAtEveryOffset(t *testing.T) {
	for n := 0; n <= 17; n++ {
		for pos := 0; pos < n; pos++ {
			for c := 0; c < 0x100; c++ {
				b := []byte(strings.Repeat("a", n))
				b[pos] = byte(c)
				checkXMLString(t, string(b))
			}
			for _, r := range []string{"é", "\ufffe", "𝄞", "\u0085", "\ufffd"} {
				checkXMLString(t, strings.Repeat("a", pos)+r+strings.Repeat("b", n-pos))
			}
		}
	}
}

func FuzzXMLEscapeAndCheck(f *testing.F) {
	for _, s := range []string{"", "urn:ex:issue/1", `a&b<c>d"e` + "\r\n\t", "é𝄞\x7f\x80\xff\ufffe"} {
		f.Add(s)
	}
	f.Fuzz(checkXMLString)
}
