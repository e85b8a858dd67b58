package namespace

import (
	"fmt"
	"strings"
)

// ExpandDatatype returns term, a literal in N-Triples form whose datatype is
// written as a prefixed name ("1"^^xsd:integer), with the datatype expanded
// to an IRI in angle brackets ("1"^^<http://www.w3.org/2001/XMLSchema#integer>),
// which an N-Triples parser reads. prefixes maps each prefix (without its
// colon) to its IRI. Any other text, a literal whose datatype is already an
// IRI, and text that is not a well-formed literal are returned unchanged
// (the parser then says what is wrong with them). A prefix missing from
// prefixes is an error wrapping ErrUnknownPrefix.
func ExpandDatatype(term string, prefixes map[string]string) (string, error) {
	if !strings.HasPrefix(term, `"`) {
		return term, nil
	}
	end := -1 // the closing quote
	for i := 1; i < len(term); i++ {
		if term[i] == '\\' {
			i++
		} else if term[i] == '"' {
			end = i
			break
		}
	}
	if end < 0 {
		return term, nil
	}
	// White space may separate the string, "^^" and the datatype, as in
	// N-Triples; it is kept.
	i := skipBlanks(term, end+1)
	if !strings.HasPrefix(term[i:], "^^") {
		return term, nil
	}
	i = skipBlanks(term, i+2)
	dt := strings.TrimRight(term[i:], " \t\r\n")
	if dt == "" || dt[0] == '<' {
		return term, nil
	}
	p, local, ok := strings.Cut(dt, ":")
	if !ok {
		return term, nil
	}
	base, known := prefixes[p]
	if !known {
		return "", fmt.Errorf("%w %q in datatype %s", ErrUnknownPrefix, p, dt)
	}
	return term[:i] + "<" + base + local + ">", nil
}

// skipBlanks returns the index of the first byte of s from i on that is
// not a space or a tab.
func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}
