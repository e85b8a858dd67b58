package algebra

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cayleygraph/quad"
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
	var b strings.Builder
	writeTerm(&b, v)
	return b.String()
}

func writeTerm(b *strings.Builder, v quad.Value) {
	switch v := v.(type) {
	case nil:
		b.WriteString("UNDEF")
	case quad.IRI:
		WriteIRI(b, string(v))
	case quad.BNode:
		b.WriteString("_:")
		b.WriteString(string(v))
	case quad.String:
		WriteString(b, string(v))
	case quad.LangString:
		WriteString(b, string(v.Value))
		b.WriteByte('@')
		b.WriteString(v.Lang)
	case quad.TypedString:
		if IsShortLiteral(string(v.Value), v.Type) {
			b.WriteString(string(v.Value))
			return
		}
		WriteString(b, string(v.Value))
		b.WriteString("^^")
		WriteIRI(b, string(v.Type))
	default:
		// Other quad types are never produced; print something readable and unambiguous.
		WriteString(b, quad.StringOf(v))
	}
}

// WriteIRI writes <iri>, escaping characters not allowed in an N-Triples IRIREF as \uXXXX / \UXXXXXXXX.
func WriteIRI(b *strings.Builder, s string) {
	b.WriteByte('<')
	for _, r := range s {
		switch {
		case r <= 0x20, r == '<', r == '>', r == '"', r == '{', r == '}', r == '|', r == '^', r == '`',
			r == '\\', r == utf8.RuneError:
			writeUEscape(b, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('>')
}

// WriteString writes a double-quoted N-Triples string literal with escapes.
func WriteString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 || r == 0x7f || r == utf8.RuneError {
				writeUEscape(b, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

func writeUEscape(b *strings.Builder, r rune) {
	h := strconv.FormatInt(int64(r), 16)
	h = strings.ToUpper(h)
	if r <= 0xffff {
		b.WriteString(`\u`)
		b.WriteString(strings.Repeat("0", 4-len(h)))
	} else {
		b.WriteString(`\U`)
		b.WriteString(strings.Repeat("0", 8-len(h)))
	}
	b.WriteString(h)
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
