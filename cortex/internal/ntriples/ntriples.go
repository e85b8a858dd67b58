// Package ntriples writes RDF terms in N-Triples syntax. It is the one
// implementation of IRIREF and STRING_LITERAL_QUOTE escaping shared by rdfio
// (N-Triples, N-Quads and Turtle encoders), sparql/results (TSV and table
// output) and sparql/algebra (SSE printing). The UCHAR escape itself is
// internal/lex's AppendUCHAR, beside its decoder.
//
// Those callers escape slightly differently, and their outputs are pinned by
// golden files; the differences are opt-in flags of type Escape, so each
// caller names its own policy once. Every policy gives valid N-Triples.
//
// The functions append to a byte slice, never fail and are safe for concurrent
// use.
package ntriples

import (
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/internal/lex"
)

// Escape selects optional escapes. The zero value escapes, in IRIs, the
// characters IRIREF excludes (U+0000–U+0020 and <>"{}|^`\, as \uXXXX); in
// strings '"', '\\', line feed, carriage return and tab (as \" \\ \n \r \t)
// and the other C0 controls and DEL (as \uXXXX).
type Escape uint8

const (
	// EscapeIRIDEL also writes DEL (U+007F) in IRIs as \u007F (used by rdfio).
	EscapeIRIDEL Escape = 1 << iota
	// EscapeBF writes backspace and form feed in strings as \b and \f
	// rather than \u0008 and \u000C (used by sparql/results).
	EscapeBF
	// EscapeReplacement writes U+FFFD, and every byte that is not part of
	// valid UTF-8, as \uFFFD in IRIs and strings (used by sparql/algebra).
	// Without it bytes from 0x80 up are copied as they are, so the caller
	// must pass valid UTF-8 to get valid output.
	EscapeReplacement
)

// AppendIRI appends <iri>, writing as UCHAR every character that IRIREF does
// not allow, and those esc adds.
func AppendIRI(b []byte, iri string, esc Escape) []byte {
	b = append(b, '<')
	b = appendEscaped(b, iri, esc, true)
	return append(b, '>')
}

// AppendString appends s as a STRING_LITERAL_QUOTE: in double quotes, with
// the escapes described for Escape. The result never holds a raw control
// character, so it fits on one line.
func AppendString(b []byte, s string, esc Escape) []byte {
	b = append(b, '"')
	b = appendEscaped(b, s, esc, false)
	return append(b, '"')
}

// appendEscaped appends the body of an IRIREF (inIRI) or of a string literal:
// s with the characters that need it escaped. Runs of characters that need no
// escape are copied at once.
func appendEscaped(b []byte, s string, esc Escape, inIRI bool) []byte {
	start := 0
	for i := 0; i < len(s); {
		c, n := s[i], 1
		keep := true
		switch {
		case c < utf8.RuneSelf:
			keep = !mustEscape(c, esc, inIRI)
		case esc&EscapeReplacement != 0:
			var r rune
			r, n = utf8.DecodeRuneInString(s[i:])
			keep = r != utf8.RuneError
		}
		if !keep {
			b = append(b, s[start:i]...)
			b = appendEscape(b, c, esc, inIRI)
			start = i + n
		}
		i += n
	}
	return append(b, s[start:]...)
}

// mustEscape reports whether the ASCII character c is escaped.
func mustEscape(c byte, esc Escape, inIRI bool) bool {
	switch c {
	case '"', '\\':
		return true
	case ' ', '<', '>', '{', '}', '|', '^', '`':
		return inIRI
	case 0x7F:
		return !inIRI || esc&EscapeIRIDEL != 0
	}
	return c < 0x20
}

// appendEscape appends the escape of c, an ASCII character that must be
// escaped, or that of U+FFFD when c is from 0x80 up.
func appendEscape(b []byte, c byte, esc Escape, inIRI bool) []byte {
	if c >= utf8.RuneSelf {
		return lex.AppendUCHAR(b, utf8.RuneError)
	}
	if !inIRI {
		switch {
		case c == '"' || c == '\\':
			return append(b, '\\', c)
		case c == '\n':
			return append(b, '\\', 'n')
		case c == '\r':
			return append(b, '\\', 'r')
		case c == '\t':
			return append(b, '\\', 't')
		case c == '\b' && esc&EscapeBF != 0:
			return append(b, '\\', 'b')
		case c == '\f' && esc&EscapeBF != 0:
			return append(b, '\\', 'f')
		}
	}
	return lex.AppendUCHAR(b, rune(c))
}

// AppendTerm appends the N-Triples form of v, one of quad.IRI, quad.BNode,
// quad.String, quad.LangString and quad.TypedString; it appends nothing for
// any other value. Blank node labels and language tags are written as given:
// the caller checks or maps them.
func AppendTerm(b []byte, v quad.Value, esc Escape) []byte {
	switch t := v.(type) {
	case quad.IRI:
		return AppendIRI(b, string(t), esc)
	case quad.BNode:
		return append(append(b, '_', ':'), t...)
	case quad.String:
		return AppendString(b, string(t), esc)
	case quad.LangString:
		b = AppendString(b, string(t.Value), esc)
		return append(append(b, '@'), t.Lang...)
	case quad.TypedString:
		b = AppendString(b, string(t.Value), esc)
		b = append(b, '^', '^')
		return AppendIRI(b, string(t.Type), esc)
	}
	return b
}
