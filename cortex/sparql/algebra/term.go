package algebra

import (
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/internal/ntriples"
)

// Well-known IRIs used by the translation.
const (
	XSD            = "http://www.w3.org/2001/XMLSchema#"
	RDF            = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	XSDString      = quad.IRI(XSD + "string")
	XSDInteger     = quad.IRI(XSD + "integer")
	XSDDecimal     = quad.IRI(XSD + "decimal")
	XSDDouble      = quad.IRI(XSD + "double")
	XSDBoolean     = quad.IRI(XSD + "boolean")
	RDFType        = quad.IRI(RDF + "type")
	RDFFirst       = quad.IRI(RDF + "first")
	RDFRest        = quad.IRI(RDF + "rest")
	RDFNil         = quad.IRI(RDF + "nil")
	RDFLangString  = quad.IRI(RDF + "langString")
	freshVarPrefix = "?"
)

// Var is a SPARQL variable name without its leading '?' or '$'. A Var is also an [Expr].
type Var string

// Projectable reports whether v is a user variable. Variables introduced by the translation (blank nodes
// in patterns, path and collection helpers, aggregate results) start with '?' and are not projectable.
func (v Var) Projectable() bool { return !strings.HasPrefix(string(v), freshVarPrefix) }

// String returns the variable in SSE form, "?name".
func (v Var) String() string { return "?" + string(v) }

func (Var) isExpr() {}

// Term is one position of a triple pattern: a variable (Var non-empty) or a constant RDF term (Value
// non-nil). Exactly one of the two is set. Constants are quad.IRI, quad.String, quad.LangString or
// quad.TypedString; quad.BNode appears only in CONSTRUCT templates. Term is comparable.
type Term struct {
	Var   Var
	Value quad.Value
}

// VarTerm returns a variable term.
func VarTerm(v Var) Term { return Term{Var: v} }

// ValueTerm returns a constant term.
func ValueTerm(v quad.Value) Term { return Term{Value: v} }

// IsVar reports whether t is a variable.
func (t Term) IsVar() bool { return t.Value == nil }

// String returns the SSE form of t.
func (t Term) String() string {
	if t.Value == nil {
		return t.Var.String()
	}
	return FormatTerm(t.Value)
}

// TriplePattern is a triple whose positions may be variables.
type TriplePattern struct {
	Subject, Predicate, Object Term
}

// String returns "(triple s p o)".
func (tp TriplePattern) String() string {
	return "(triple " + tp.Subject.String() + " " + tp.Predicate.String() + " " + tp.Object.String() + ")"
}

// FormatTerm writes an RDF term in N-Triples syntax (valid output: IRIs and strings are escaped). Plain
// literals print as "x", language literals as "x"@lang, typed literals as "x"^^<type>, except that
// xsd:integer, xsd:decimal, xsd:double and xsd:boolean literals whose lexical form is a SPARQL numeric or
// boolean token print in the short form (1, -2.5, 1e3, true). A nil value prints as UNDEF.
func FormatTerm(v quad.Value) string {
	var buf [64]byte
	return string(appendTerm(buf[:0], v))
}

// ntEscape is the algebra's escaping policy: besides what N-Triples requires,
// U+FFFD and bytes of invalid UTF-8 are written as \uFFFD, so a printed term
// shows where its text was bad.
const ntEscape = ntriples.EscapeReplacement

func writeTerm(b *strings.Builder, v quad.Value) {
	var buf [64]byte
	b.Write(appendTerm(buf[:0], v))
}

func appendTerm(b []byte, v quad.Value) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "UNDEF"...)
	case quad.IRI, quad.BNode, quad.String, quad.LangString:
		return ntriples.AppendTerm(b, v, ntEscape)
	case quad.TypedString:
		if IsShortLiteral(string(v.Value), v.Type) {
			return append(b, v.Value...)
		}
		return ntriples.AppendTerm(b, v, ntEscape)
	default:
		// Other quad types are never produced; print something readable and unambiguous.
		return ntriples.AppendString(b, quad.StringOf(v), ntEscape)
	}
}

// WriteIRI writes <iri>, escaping characters not allowed in an N-Triples IRIREF as \uXXXX / \UXXXXXXXX.
func WriteIRI(b *strings.Builder, s string) {
	var buf [64]byte
	b.Write(ntriples.AppendIRI(buf[:0], s, ntEscape))
}

// WriteString writes a double-quoted N-Triples string literal with escapes.
func WriteString(b *strings.Builder, s string) {
	var buf [64]byte
	b.Write(ntriples.AppendString(buf[:0], s, ntEscape))
}

// IsShortLiteral reports whether lex with datatype dt can be written as a bare SPARQL numeric or boolean
// token that reads back as exactly the same literal.
func IsShortLiteral(lex string, dt quad.IRI) bool {
	switch dt {
	case XSDBoolean:
		return lex == "true" || lex == "false"
	case XSDInteger:
		return NumericKind(lex) == XSDInteger
	case XSDDecimal:
		return NumericKind(lex) == XSDDecimal
	case XSDDouble:
		return NumericKind(lex) == XSDDouble
	}
	return false
}

// NumericKind classifies a SPARQL numeric token (INTEGER, DECIMAL, DOUBLE, optionally signed) and returns
// its datatype, or "" when s is not such a token.
func NumericKind(s string) quad.IRI {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	intDigits := digits()
	fracDigits, dot := 0, false
	if i < len(s) && s[i] == '.' {
		dot = true
		i++
		fracDigits = digits()
	}
	if intDigits == 0 && fracDigits == 0 {
		return ""
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 || i != len(s) {
			return ""
		}
		return XSDDouble
	}
	if i != len(s) {
		return ""
	}
	if !dot {
		return XSDInteger
	}
	if fracDigits == 0 {
		return ""
	}
	return XSDDecimal
}
