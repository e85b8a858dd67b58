package namespace_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cortexgraph/cortex/namespace"
)

// checkIRIRef fails t if s contains a character that is forbidden in an
// N-Triples IRIREF, or is not valid UTF-8.
func checkIRIRef(t testing.TB, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("%q is not valid utf-8", s)
	}
	for i, r := range s {
		if r <= 0x20 || strings.ContainsRune("<>\"{}|^`\\", r) {
			t.Fatalf("%q contains forbidden IRIREF character %q at %d", s, r, i)
		}
	}
}

// checkEscaped fails t if e is not a valid escaped local part.
func checkEscaped(t testing.TB, e string) {
	t.Helper()
	for i := 0; i < len(e); i++ {
		c := e[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~%", c) >= 0) {
			t.Fatalf("escaped %q contains %q", e, c)
		}
	}
}

func TestEscape(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", ""},
		{"alice", "alice"},
		{"Agent-7_b.c~d", "Agent-7_b.c~d"},
		{"a b", "a%20b"},
		{"a:b", "a%3Ab"},
		{"a/b", "a%2Fb"},
		{"50%", "50%25"},
		{"%20", "%2520"},
		{"<x>", "%3Cx%3E"},
		{`"q"`, "%22q%22"},
		{"a#b?c", "a%23b%3Fc"},
		{"{|}^`\\", "%7B%7C%7D%5E%60%5C"},
		{"tab\there", "tab%09here"},
		{"nl\n", "nl%0A"},
		{"\x00", "%00"},
		{"\x7f", "%7F"},
		{"é", "%C3%A9"},
		{"日本", "%E6%97%A5%E6%9C%AC"},
		{"😀", "%F0%9F%98%80"},
		{"\xff\xfe", "%FF%FE"},
		{"+", "%2B"},
		// vocabulary words get their first byte escaped
		{"name", "%6Eame"},
		{"status", "%73tatus"},
		{"member", "%6Dember"},
		{"graph", "%67raph"},
		{"Team", "%54eam"},
		// but not when they differ
		{"names", "names"},
		{"Status", "Status"},
		{"name ", "name%20"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := namespace.Escape(tt.in)
			if got != tt.want {
				t.Fatalf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
			}
			checkEscaped(t, got)
			back, err := namespace.Unescape(got)
			if err != nil || back != tt.in {
				t.Fatalf("Unescape(%q) = %q, %v; want %q", got, back, err, tt.in)
			}
		})
	}
}

func TestUnescape_Invalid(t *testing.T) {
	tests := []string{
		"a b",
		"a:b",
		"a/b",
		"%",
		"%2",
		"a%",
		"%zz",
		"%2f",       // lower-case hex
		"%61",       // unnecessary escape of 'a'
		"%41lice",   // unnecessary escape of 'A'
		"name",      // reserved word must be escaped
		"%6Eame%20", // escaped first byte but not a reserved word
		"é",
		"\xff",
	}
	for _, in := range tests {
		t.Run(in, func(t *testing.T) {
			got, err := namespace.Unescape(in)
			if !errors.Is(err, namespace.ErrInvalidEscape) {
				t.Fatalf("Unescape(%q) = %q, %v; want ErrInvalidEscape", in, got, err)
			}
		})
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "alice", "a b", "a:b/c", "50%", "%41", "name", "<>\"{}|^`\\", "日本", "\xff", "\x00\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := namespace.Escape(s)
		checkEscaped(t, e)
		checkIRIRef(t, e)
		back, err := namespace.Unescape(e)
		if err != nil {
			t.Fatalf("Unescape(Escape(%q)) error: %v", s, err)
		}
		if back != s {
			t.Fatalf("Unescape(Escape(%q)) = %q", s, back)
		}
		// Unescape accepts only canonical forms: whatever it accepts
		// re-escapes to the same string.
		if u, err := namespace.Unescape(s); err == nil && namespace.Escape(u) != s {
			t.Fatalf("Unescape(%q) = %q, which escapes to %q", s, u, namespace.Escape(u))
		}
	})
}

func BenchmarkEscape(b *testing.B) {
	b.ReportAllocs()
	for _, in := range []string{"research-agent-7", "a team/with:odd <chars> é"} {
		b.Run(in, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = namespace.Escape(in)
			}
		})
	}
}
