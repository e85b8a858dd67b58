package results

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cayleygraph/quad"
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

// checkJSONString fails t unless appendJSONString(s) refuses s exactly
// when it is not valid UTF-8, and otherwise is byte-identical to the
// reference and decodes back to s.
func checkJSONString(t *testing.T, s string) {
	t.Helper()
	got, ok := appendJSONString([]byte("x"), s)
	if ok != utf8.ValidString(s) {
		t.Fatalf("appendJSONString(%q): ok = %v, want %v", s, ok, !ok)
	}
	if !ok {
		return
	}
	if want := appendJSONStringByte([]byte("x"), s); !bytes.Equal(got, want) {
		t.Fatalf("appendJSONString(%q) = %s, want %s", s, got, want)
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
	for n := 0; n <= 17; n++ {
		for pos := 0; pos < n; pos++ {
			for _, r := range []string{"é", "€", "𝄞", "\u2028"} {
				checkJSONString(t, strings.Repeat("a", pos)+r+strings.Repeat("b", n-pos))
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

// appendJSONTermByte is the encoder of a normalised term that
// appendJSONTerm replaced (which ran after normTerm): the reference.
func appendJSONTermByte(b []byte, v quad.Value) []byte {
	switch t := v.(type) {
	case quad.IRI:
		b = append(b, `{"type":"uri","value":`...)
		b = appendJSONStringByte(b, string(t))
	case quad.BNode:
		b = append(b, `{"type":"bnode","value":`...)
		b = appendJSONStringByte(b, string(t))
	case quad.String:
		b = append(b, `{"type":"literal","value":`...)
		b = appendJSONStringByte(b, string(t))
	case quad.LangString:
		b = append(b, `{"type":"literal","xml:lang":`...)
		b = appendJSONStringByte(b, t.Lang)
		b = append(b, `,"value":`...)
		b = appendJSONStringByte(b, string(t.Value))
	case quad.TypedString:
		b = append(b, `{"type":"literal","datatype":`...)
		b = appendJSONStringByte(b, string(t.Type))
		b = append(b, `,"value":`...)
		b = appendJSONStringByte(b, string(t.Value))
	}
	return append(b, '}')
}

// checkJSONTerm fails t unless appendJSONTerm(v) finds the problem normTerm
// finds, or else writes what the reference writes of normTerm's term.
func checkJSONTerm(t *testing.T, v quad.Value) {
	t.Helper()
	got, msg := appendJSONTerm([]byte("x"), v)
	n, wantMsg := normTerm(v)
	if msg != wantMsg {
		t.Fatalf("appendJSONTerm(%#v): problem %q, normTerm's %q", v, msg, wantMsg)
	}
	if msg != "" {
		return
	}
	if want := appendJSONTermByte([]byte("x"), n); !bytes.Equal(got, want) {
		t.Fatalf("appendJSONTerm(%#v) = %s, want %s", v, got, want)
	}
}

// jsonTerms are terms of every kind, valid or not in every way normTerm
// tells apart.
func jsonTerms() []quad.Value {
	strs := []string{"", "plain", `q"b\s`, "ctl\x00\x1f\n", "é𝄞\u2028", "bad\xff", "\xc3", "0123456789abcdef\x80"}
	langs := []string{"en", "en-GB", "", "1x", "en\xff", "en_GB"}
	types := []quad.IRI{xsdString, xsdInteger, rdfLangString, "", "http://ex/\xfe", "http://ex/t\"q"}
	var out []quad.Value
	for _, s := range strs {
		out = append(out, quad.IRI(s), quad.BNode(s), quad.String(s))
		for _, l := range langs {
			out = append(out, quad.LangString{Value: quad.String(s), Lang: l})
		}
		for _, ty := range types {
			out = append(out, quad.TypedString{Value: quad.String(s), Type: ty})
		}
	}
	return append(out, quad.Int(7), quad.Bool(true))
}

// The JSON writer checks each term as it encodes it: it refuses what
// normTerm refuses, with normTerm's message, and writes every other term
// as the writer that checked the row first did.
func TestAppendJSONTerm_AsNormTermThenEncode(t *testing.T) {
	for _, v := range jsonTerms() {
		checkJSONTerm(t, v)
	}
}

func FuzzAppendJSONTerm(f *testing.F) {
	f.Add(0, "urn:ex:a", "")
	f.Add(3, "chat", "fr")
	f.Add(4, "1", string(xsdInteger))
	f.Add(4, "x\xff", string(xsdString))
	f.Fuzz(func(t *testing.T, kind int, a, b string) {
		var v quad.Value
		switch kind & 7 {
		case 0:
			v = quad.IRI(a)
		case 1:
			v = quad.BNode(a)
		case 2:
			v = quad.String(a)
		case 3:
			v = quad.LangString{Value: quad.String(a), Lang: b}
		default:
			v = quad.TypedString{Value: quad.String(a), Type: quad.IRI(b)}
		}
		checkJSONTerm(t, v)
	})
}
