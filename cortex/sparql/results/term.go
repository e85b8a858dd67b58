package results

import (
	"fmt"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/internal/lex"
	"github.com/cortexgraph/cortex/cortex/internal/ntriples"
)

// Well-known IRIs.
const (
	xsdNS          = "http://www.w3.org/2001/XMLSchema#"
	xsdString      = quad.IRI(xsdNS + "string")
	xsdInteger     = quad.IRI(xsdNS + "integer")
	xsdDecimal     = quad.IRI(xsdNS + "decimal")
	xsdDouble      = quad.IRI(xsdNS + "double")
	xsdBoolean     = quad.IRI(xsdNS + "boolean")
	rdfLangString  = quad.IRI("http://www.w3.org/1999/02/22-rdf-syntax-ns#langString")
	sparqlResultNS = "http://www.w3.org/2005/sparql-results#"
)

// The problems normTerm (and the JSON writer, which checks each term as it
// encodes it) reports.
const (
	msgIRIUTF8       = "iri is not valid utf-8"
	msgBNodeEmpty    = "empty blank node label"
	msgBNodeUTF8     = "blank node label is not valid utf-8"
	msgLiteralUTF8   = "literal is not valid utf-8"
	msgDatatypeEmpty = "empty datatype iri"
	// RDF 1.1 Concepts 3.3: datatype rdf:langString if and only if a
	// language tag, which a quad.TypedString has not.
	msgLangStringNoTag = "rdf:langString literal without a language tag"
)

// msgLangTag is the problem of a malformed language tag.
func msgLangTag(tag string) string { return fmt.Sprintf("malformed language tag %q", tag) }

// msgUnsupported is the problem of a value of another type than the five.
func msgUnsupported(v quad.Value) string { return fmt.Sprintf("unsupported value type %T", v) }

// normTerm validates v and returns it in normal form: a TypedString of type
// xsd:string becomes a quad.String. It returns a description of the problem
// when v is not one of the five supported term types or is malformed (a
// TypedString of type rdf:langString is: it has no language tag).
func normTerm(v quad.Value) (quad.Value, string) {
	switch t := v.(type) {
	case quad.IRI:
		if !utf8.ValidString(string(t)) {
			return nil, msgIRIUTF8
		}
	case quad.BNode:
		if t == "" {
			return nil, msgBNodeEmpty
		}
		if !utf8.ValidString(string(t)) {
			return nil, msgBNodeUTF8
		}
	case quad.String:
		if !utf8.ValidString(string(t)) {
			return nil, msgLiteralUTF8
		}
	case quad.LangString:
		if !utf8.ValidString(string(t.Value)) {
			return nil, msgLiteralUTF8
		}
		if !lex.IsLangTag(t.Lang) {
			return nil, msgLangTag(t.Lang)
		}
	case quad.TypedString:
		if !utf8.ValidString(string(t.Value)) || !utf8.ValidString(string(t.Type)) {
			return nil, msgLiteralUTF8
		}
		if t.Type == "" {
			return nil, msgDatatypeEmpty
		}
		switch t.Type {
		case xsdString:
			return t.Value, ""
		case rdfLangString:
			return nil, msgLangStringNoTag
		}
	default:
		return nil, msgUnsupported(v)
	}
	return v, ""
}

// normRow validates row against vars and returns it normalised (a copy only
// when a term had to change). rowIdx is used in errors.
func normRow(row Row, vars []string, rowIdx int) (Row, error) {
	if err := checkRowLength(row, vars, rowIdx); err != nil {
		return nil, err
	}
	out, copied := row, false
	for i, v := range row {
		if v == nil {
			continue
		}
		n, msg := normTerm(v)
		if msg != "" {
			return nil, &TermError{Row: rowIdx, Var: vars[i], Value: v, Msg: msg}
		}
		// The only normalisation is xsd:string TypedString → String; never
		// write into the caller's row.
		if _, typed := v.(quad.TypedString); typed {
			if _, plain := n.(quad.String); plain {
				if !copied {
					out, copied = append(Row(nil), row...), true
				}
				out[i] = n
			}
		}
	}
	return out, nil
}

// checkRowLength returns an error wrapping ErrRowLength unless row has a
// value (or nil) for each of vars.
func checkRowLength(row Row, vars []string, rowIdx int) error {
	if len(row) != len(vars) {
		return fmt.Errorf("row %d: %w: %d values for %d variables", rowIdx, ErrRowLength, len(row), len(vars))
	}
	return nil
}

// checkVars validates a variable list: every name a SPARQL VARNAME, no
// duplicates.
func checkVars(vars []string) error {
	seen := make(map[string]bool, len(vars))
	for _, v := range vars {
		if !lex.IsVarName(v) {
			return fmt.Errorf("%w: %q is not a variable name", ErrInvalidVariable, v)
		}
		if seen[v] {
			return fmt.Errorf("%w: duplicate variable %q", ErrInvalidVariable, v)
		}
		seen[v] = true
	}
	return nil
}

// isXMLChar reports whether r may appear in an XML 1.0 document.
func isXMLChar(r rune) bool {
	return r == 0x9 || r == 0xA || r == 0xD ||
		r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// ntEscape is the escaping policy of the TSV and table writers: backspace and
// form feed in literals are written as \b and \f. Their terms are normalised
// first, so they are valid UTF-8.
const ntEscape = ntriples.EscapeBF

// appendIRIRef appends <iri> in N-Triples syntax, escaping with \uXXXX every
// character IRIREF does not allow.
func appendIRIRef(b []byte, iri string) []byte { return ntriples.AppendIRI(b, iri, ntEscape) }

// appendQuoted appends s as a STRING_LITERAL_QUOTE: double quotes, with \" \\
// \n \r \t \b \f escaped and other C0 controls and DEL as \uXXXX, so the
// result never contains a raw tab or line break.
func appendQuoted(b []byte, s string) []byte { return ntriples.AppendString(b, s, ntEscape) }

// appendNTriples appends the N-Triples form of a normalised term. Blank node
// labels are written as given.
func appendNTriples(b []byte, v quad.Value) []byte { return ntriples.AppendTerm(b, v, ntEscape) }

// lexical returns the string a CSV field holds for a normalised term: the
// IRI, the lexical form, or "_:label".
func lexical(v quad.Value) string {
	switch t := v.(type) {
	case quad.IRI:
		return string(t)
	case quad.BNode:
		return "_:" + string(t)
	case quad.String:
		return string(t)
	case quad.LangString:
		return string(t.Value)
	case quad.TypedString:
		return string(t.Value)
	}
	return ""
}
