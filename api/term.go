package api

import (
	"fmt"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/namespace"
)

// ParseTerm reads a term written as text, as cortexctl's arguments and the
// server's JSON-RPC parameters write them: an N-Triples term (<iri>, _:b,
// "lit"@en, "1"^^<...>, and "1"^^xsd:integer: a datatype may be a prefixed
// name), a prefixed name whose prefix is in prefixes
// (teammanager.Prefixes gives a namespace's), an absolute IRI without
// brackets (http://x/y, urn:x), or else a plain string literal. Errors
// match ErrSyntax (an empty or malformed term) or ErrInvalid (an unknown
// prefix).
func ParseTerm(s string, prefixes map[string]string) (quad.Value, error) {
	if s == "" {
		return nil, fmt.Errorf("%w: empty term", ErrSyntax)
	}
	if strings.HasPrefix(s, "<") || strings.HasPrefix(s, "\"") || strings.HasPrefix(s, "_:") {
		s, err := namespace.ExpandDatatype(s, prefixes) // "1"^^xsd:integer
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		v, err := rdfio.ParseFormattedTerm(s)
		if err != nil {
			return nil, err
		}
		return v, nil
	}
	if p, local, ok := strings.Cut(s, ":"); ok && !strings.HasPrefix(local, "//") {
		if base, ok := prefixes[p]; ok {
			return quad.IRI(base + local), nil
		}
		if HasScheme(s) && strings.Contains(local, "/") || p == "urn" {
			return quad.IRI(s), nil
		}
		return nil, fmt.Errorf("%w: unknown prefix %q in %q", ErrInvalid, p, s)
	} else if ok {
		return quad.IRI(s), nil
	}
	return quad.String(s), nil
}

// HasScheme reports whether s starts with an IRI scheme and its colon
// (RFC 3987: a letter, then letters, digits, '+', '-' or '.').
func HasScheme(s string) bool {
	for i, r := range s {
		switch {
		case r == ':' && i > 0:
			return true
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.'):
		default:
			return false
		}
	}
	return false
}
