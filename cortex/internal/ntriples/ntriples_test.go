package ntriples_test

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/internal/ntriples"
)

func TestAppendIRI(t *testing.T) {
	tests := []struct {
		name, in string
		esc      ntriples.Escape
		want     string
	}{
		{"Plain", "http://ex/a#b", 0, `<http://ex/a#b>`},
		{"Empty", "", 0, `<>`},
		{"Excluded", "a <>\"{}|^`\\b", 0, `<a\u0020\u003C\u003E\u0022\u007B\u007D\u007C\u005E\u0060\u005Cb>`},
		{"Controls", "\x00\t\x1f", 0, `<\u0000\u0009\u001F>`},
		{"DELKept", "a\x7fb", 0, "<a\x7fb>"},
		{"DELEscaped", "a\x7fb", ntriples.EscapeIRIDEL, `<a\u007Fb>`},
		{"NonASCIIKept", "http://ex/é😀", 0, "<http://ex/é😀>"},
		{"ReplacementKept", "a\uFFFD\xffb", 0, "<a\uFFFD\xffb>"},
		{"ReplacementEscaped", "é\uFFFD\xff\xc3😀", ntriples.EscapeReplacement, `<é\uFFFD\uFFFD\uFFFD😀>`},
		{"BFNoEffect", "a\bb", ntriples.EscapeBF, `<a\u0008b>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(ntriples.AppendIRI([]byte(nil), tt.in, tt.esc)); got != tt.want {
				t.Errorf("AppendIRI(%q, %d) = %s, want %s", tt.in, tt.esc, got, tt.want)
			}
		})
	}
}

func TestAppendString(t *testing.T) {
	tests := []struct {
		name, in string
		esc      ntriples.Escape
		want     string
	}{
		{"Plain", "chat", 0, `"chat"`},
		{"Empty", "", 0, `""`},
		{"ECHAR", "\"\\\n\r\t", 0, `"\"\\\n\r\t"`},
		{"OtherControls", "\x00\b\f\x1f\x7f", 0, `"\u0000\u0008\u000C\u001F\u007F"`},
		{"BF", "\b\f\x01", ntriples.EscapeBF, `"\b\f\u0001"`},
		{"IRICharsKept", "<a b>{}|^`", 0, "\"<a b>{}|^`\""},
		{"NonASCIIKept", "é😀\uFFFD", 0, "\"é😀\uFFFD\""},
		{"ReplacementEscaped", "é\uFFFD\xff😀", ntriples.EscapeReplacement, `"é\uFFFD\uFFFD😀"`},
		{"DELNeverRaw", "\x7f", ntriples.EscapeBF, `"\u007F"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(ntriples.AppendString(nil, tt.in, tt.esc)); got != tt.want {
				t.Errorf("AppendString(%q, %d) = %s, want %s", tt.in, tt.esc, got, tt.want)
			}
		})
	}
}

func TestAppendTerm(t *testing.T) {
	tests := []struct {
		name string
		v    quad.Value
		want string
	}{
		{"IRI", quad.IRI("http://ex/a b"), `<http://ex/a\u0020b>`},
		{"BNodeAsGiven", quad.BNode("b 1"), `_:b 1`},
		{"String", quad.String("a\"b"), `"a\"b"`},
		{"LangString", quad.LangString{Value: "chat", Lang: "fr-BE"}, `"chat"@fr-BE`},
		{"TypedString", quad.TypedString{Value: "01", Type: "http://www.w3.org/2001/XMLSchema#integer"},
			`"01"^^<http://www.w3.org/2001/XMLSchema#integer>`},
		{"Unsupported", quad.Int(1), ``},
		{"Nil", nil, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(ntriples.AppendTerm([]byte("x "), tt.v, 0)); got != "x "+tt.want {
				t.Errorf("AppendTerm(%#v) = %s, want x %s", tt.v, got, tt.want)
			}
		})
	}
}

// unescape undoes the escapes AppendIRI and AppendString write.
func unescape(t *testing.T, s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'u', 'U':
			n := 4
			if s[i] == 'U' {
				n = 8
			}
			r, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
			if err != nil {
				t.Fatalf("bad UCHAR in %q: %v", s, err)
			}
			b.WriteRune(rune(r))
			i += n
		default:
			b.WriteByte(map[byte]byte{'"': '"', '\\': '\\', 'n': '\n', 'r': '\r', 't': '\t', 'b': '\b', 'f': '\f'}[s[i]])
		}
	}
	return b.String()
}

// FuzzAppend checks, for every escape policy, that the output holds no
// character its production forbids and that unescaping it gives back the input.
func FuzzAppend(f *testing.F) {
	f.Add("http://ex/a b<>\"{}|^`\\\x00\x7f\b\f\n\r\té\uFFFD😀")
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		for esc := ntriples.Escape(0); esc < 8; esc++ {
			iri := string(ntriples.AppendIRI(nil, s, esc))
			body := iri[1 : len(iri)-1]
			if strings.ContainsAny(body, "<>\"{}|^`") || strings.ContainsFunc(body, func(r rune) bool { return r <= 0x20 }) {
				t.Fatalf("AppendIRI(%q, %d) = %q holds a forbidden character", s, esc, iri)
			}
			if got := unescape(t, body); got != s {
				t.Fatalf("AppendIRI(%q, %d) = %q unescapes to %q", s, esc, iri, got)
			}
			str := string(ntriples.AppendString(nil, s, esc))
			body = str[1 : len(str)-1]
			unquoted := strings.ReplaceAll(strings.ReplaceAll(body, `\\`, ``), `\"`, ``)
			if strings.ContainsFunc(body, func(r rune) bool { return r < 0x20 || r == 0x7F }) || strings.Contains(unquoted, `"`) {
				t.Fatalf("AppendString(%q, %d) = %q holds a raw control character or quote", s, esc, str)
			}
			if got := unescape(t, body); got != s {
				t.Fatalf("AppendString(%q, %d) = %q unescapes to %q", s, esc, str, got)
			}
		}
	})
}

func BenchmarkAppendTerm(b *testing.B) {
	v := quad.TypedString{Value: "a \"quoted\"\nvalue with é", Type: "http://www.w3.org/2001/XMLSchema#token"}
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = ntriples.AppendTerm(buf[:0], v, 0)
	}
}
