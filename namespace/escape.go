package namespace

import (
	"fmt"
	"strings"

	"github.com/cayleygraph/quad"
)

// reserved lists the words that appear as path segments in Cortex vocabulary
// IRIs (see vocab.go). Escape never outputs one of them verbatim: it
// percent-encodes the first byte instead, so that a user identifier such as
// "status" can never produce the predicate IRI {ns}:team:status.
//
// The list is frozen: adding a word changes how that identifier is escaped.
// TestVocab_ReservedWords checks that every vocabulary segment is listed
// (classes added since, such as FactSet, are exempt: see that test).
var reserved = map[string]bool{
	// roots and structural words
	"team": true, "member": true, "agent": true, "finding": true, "conflict": true,
	"merge": true, "fact": true, "graph": true,
	// graph kinds
	"state": true, "shared": true, "provenance": true, "conflicts": true, "findings": true,
	// team predicates
	"name": true, "description": true, "status": true, "strategy": true,
	"createdAt": true, "updatedAt": true, "completedAt": true, "timeout": true,
	// member predicates
	"role": true, "task": true, "joinedAt": true, "result": true, "critical": true, "error": true,
	// finding predicates
	"assertedBy": true, "assertedAt": true, "confidence": true,
	// conflict predicates
	"subject": true, "predicate": true, "candidate": true, "chosen": true, "reason": true,
	"detectedAt": true,
	// classes
	"Team": true, "Member": true, "Agent": true, "Finding": true, "Conflict": true,
	"Merge": true, "Fact": true,
}

const upperHex = "0123456789ABCDEF"

// unreservedByte reports whether c is kept verbatim by Escape: the RFC 3986
// unreserved set [A-Za-z0-9._~-].
func unreservedByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// Escape encodes a user-supplied identifier (team id, agent id, finding id,
// ...) as a local part of a Cortex IRI.
//
// Every byte outside [A-Za-z0-9._~-] is percent-encoded as %XX with
// upper-case hex (UTF-8 bytes, so any Go string, even invalid UTF-8, is
// representable). In addition, an identifier that equals one of the words
// used by the Cortex vocabulary (such as "name" or "status") has its first
// byte percent-encoded ("name" → "%6Eame"), so a user identifier can never
// spell a vocabulary IRI. The empty string escapes to the empty string.
//
// The result never contains ':', '/', '#', '?' or any character that is
// forbidden in an N-Triples IRIREF. Escape is injective and Unescape
// reverses it exactly.
func Escape(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if !unreservedByte(s[i]) {
			n++
		}
	}
	if n == 0 {
		if reserved[s] {
			return fmt.Sprintf("%%%02X", s[0]) + s[1:]
		}
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if unreservedByte(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(upperHex[c>>4])
		b.WriteByte(upperHex[c&15])
	}
	return b.String()
}

// Unescape reverses Escape. It accepts exactly the strings Escape produces:
// any other input (a character outside [A-Za-z0-9._~%-], a malformed or
// lower-case %XX sequence, an unnecessary escape) is rejected with an error
// wrapping ErrInvalidEscape, so that every identifier has exactly one
// escaped form.
func Unescape(s string) (string, error) {
	if strings.IndexByte(s, '%') < 0 {
		for i := 0; i < len(s); i++ {
			if !unreservedByte(s[i]) {
				return "", fmt.Errorf("unescape %q: %w: byte %q at offset %d", s, ErrInvalidEscape, s[i], i)
			}
		}
		if reserved[s] {
			return "", fmt.Errorf("unescape %q: %w: reserved word must be escaped", s, ErrInvalidEscape)
		}
		return s, nil
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case unreservedByte(c):
			b = append(b, c)
		case c == '%':
			if i+2 >= len(s) {
				return "", fmt.Errorf("unescape %q: %w: truncated escape at offset %d", s, ErrInvalidEscape, i)
			}
			hi, ok1 := hexVal(s[i+1])
			lo, ok2 := hexVal(s[i+2])
			if !ok1 || !ok2 {
				return "", fmt.Errorf("unescape %q: %w: bad escape %q at offset %d (want upper-case hex)", s, ErrInvalidEscape, s[i:i+3], i)
			}
			b = append(b, hi<<4|lo)
			i += 2
		default:
			return "", fmt.Errorf("unescape %q: %w: byte %q at offset %d", s, ErrInvalidEscape, c, i)
		}
	}
	out := string(b)
	if Escape(out) != s {
		return "", fmt.Errorf("unescape %q: %w: not in canonical form (want %q)", s, ErrInvalidEscape, Escape(out))
	}
	return out, nil
}

func hexVal(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// iriForbidden reports whether r may not appear in an N-Triples IRIREF
// (controls, space, <>"{}|^`\).
func iriForbidden(r rune) bool {
	if r <= 0x20 {
		return true
	}
	switch r {
	case '<', '>', '"', '{', '}', '|', '^', '`', '\\':
		return true
	}
	return false
}

// ntIRI formats an IRI in N-Triples syntax for error messages, escaping
// characters that are not allowed in an IRIREF as \uXXXX / \UXXXXXXXX.
func ntIRI(iri quad.IRI) string {
	var b strings.Builder
	b.WriteByte('<')
	for _, r := range string(iri) {
		switch {
		case iriForbidden(r) || r == 0x7f:
			if r > 0xffff {
				fmt.Fprintf(&b, `\U%08X`, r)
			} else {
				fmt.Fprintf(&b, `\u%04X`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('>')
	return b.String()
}
