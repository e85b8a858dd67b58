package results

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// appendJSONStringByte is the byte-at-a-time encoder that appendJSONString
// replaced: the reference its output must equal.
func appendJSONStringByte(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// checkJSONString fails t unless appendJSONString(s) is byte-identical to
// the reference and, for valid UTF-8, decodes back to s.
func checkJSONString(t *testing.T, s string) {
	t.Helper()
	got, want := appendJSONString([]byte("x"), s), appendJSONStringByte([]byte("x"), s)
	if !bytes.Equal(got, want) {
		t.Fatalf("appendJSONString(%q) = %s, want %s", s, got, want)
	}
	if !utf8.ValidString(s) {
		return
	}
	var back string
	if err := json.Unmarshal(got[1:], &back); err != nil || back != s {
		t.Fatalf("appendJSONString(%q) = %s: decodes to %q, %v", s, got, back, err)
	}
}

// Every byte that needs an escape (and its neighbours on either side) at
// every offset of a word, in strings of every length around the word size.
func TestAppendJSONString_EveryByteAtEveryOffset(t *testing.T) {
	var special []byte
	for c := 0; c < 0x100; c++ {
		special = append(special, byte(c))
	}
	for n := 0; n <= 17; n++ {
		for pos := 0; pos < n; pos++ {
			for _, c := range special {
				b := []byte(strings.Repeat("a", n))
				b[pos] = c
				checkJSONString(t, string(b))
				b[pos] = 'a'
			}
		}
	}
	for _, s := range []string{
		"", "urn:cortex:acme:team:T0001", `say "hi"\`, "tab\there\nand\r\x00\x1f\x7f",
		"é𝄞 and \u2028", "\x20\x20\x20\x20\x20\x20\x20\x1f", "\x1f\x20\x20\x20\x20\x20\x20\x20",
		"\x21\x21\x21\x21\x21\x21\x21\x20", "\x80\x80\x80\x80\x80\x80\x80\x22", "\xff\xff\xff\xff\xff\xff\xff\xff",
	} {
		checkJSONString(t, s)
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "urn:ex:issue/1", `"\` + "\x00\x1f\n", "é𝄞\x7f\x80\xff"} {
		f.Add(s)
	}
	f.Fuzz(checkJSONString)
}
