package builtin

import (
	"fmt"
	"math/big"
	"strconv"
	"time"

	"github.com/cayleygraph/quad"
)

// Namespaces and datatype IRIs used by the library.
const (
	XSD = "http://www.w3.org/2001/XMLSchema#"
	RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"

	XSDString          = quad.IRI(XSD + "string")
	XSDBoolean         = quad.IRI(XSD + "boolean")
	XSDInteger         = quad.IRI(XSD + "integer")
	XSDDecimal         = quad.IRI(XSD + "decimal")
	XSDFloat           = quad.IRI(XSD + "float")
	XSDDouble          = quad.IRI(XSD + "double")
	XSDDateTime        = quad.IRI(XSD + "dateTime")
	XSDDate            = quad.IRI(XSD + "date")
	XSDDayTimeDuration = quad.IRI(XSD + "dayTimeDuration")
	RDFLangString      = quad.IRI(RDF + "langString")
)

// integerSubtypes maps the datatypes derived from xsd:integer to their value
// range check (nil for none beyond being an integer).
var integerSubtypes = map[quad.IRI]rangeCheck{
	XSDInteger:                 {},
	XSD + "nonPositiveInteger": {max: bigOf("0")},
	XSD + "negativeInteger":    {max: bigOf("-1")},
	XSD + "long":               {min: bigOf("-9223372036854775808"), max: bigOf("9223372036854775807")},
	XSD + "int":                {min: bigOf("-2147483648"), max: bigOf("2147483647")},
	XSD + "short":              {min: bigOf("-32768"), max: bigOf("32767")},
	XSD + "byte":               {min: bigOf("-128"), max: bigOf("127")},
	XSD + "nonNegativeInteger": {min: bigOf("0")},
	XSD + "unsignedLong":       {min: bigOf("0"), max: bigOf("18446744073709551615")},
	XSD + "unsignedInt":        {min: bigOf("0"), max: bigOf("4294967295")},
	XSD + "unsignedShort":      {min: bigOf("0"), max: bigOf("65535")},
	XSD + "unsignedByte":       {min: bigOf("0"), max: bigOf("255")},
	XSD + "positiveInteger":    {min: bigOf("1")},
}

// rangeCheck bounds the value space of an integer subtype; nil means
// unbounded.
type rangeCheck struct{ min, max *big.Int }

func bigOf(s string) *big.Int {
	b, _ := new(big.Int).SetString(s, 10)
	return b
}

// litKind classifies a literal by its form.
type litKind uint8

const (
	litSimple litKind = iota + 1 // simple literal or xsd:string
	litLang                      // rdf:langString
	litTyped                     // any other datatype
)

// lit is the decomposed view of an RDF literal.
type lit struct {
	kind litKind
	lex  string
	lang string
	dt   quad.IRI
}

// datatype returns the literal's datatype IRI.
func (l lit) datatype() quad.IRI {
	switch l.kind {
	case litSimple:
		return XSDString
	case litLang:
		return RDFLangString
	}
	return l.dt
}

// value rebuilds the quad value of the literal in normal form.
func (l lit) value() quad.Value {
	switch l.kind {
	case litSimple:
		return quad.String(l.lex)
	case litLang:
		return quad.LangString{Value: quad.String(l.lex), Lang: l.lang}
	}
	return quad.TypedString{Value: quad.String(l.lex), Type: l.dt}
}

// asLit decomposes v if it is a literal. Legacy cayley native values
// (quad.Int, quad.Float, quad.Bool, quad.Time) are accepted as typed
// literals so that values from other code paths never crash us.
func asLit(v quad.Value) (lit, bool) {
	switch t := v.(type) {
	case quad.String:
		return lit{kind: litSimple, lex: string(t)}, true
	case quad.LangString:
		if t.Lang == "" {
			return lit{kind: litSimple, lex: string(t.Value)}, true
		}
		return lit{kind: litLang, lex: string(t.Value), lang: t.Lang}, true
	case quad.TypedString:
		if t.Type == XSDString || t.Type == "" {
			return lit{kind: litSimple, lex: string(t.Value)}, true
		}
		if t.Type == RDFLangString {
			// A langString without a tag is ill-formed; keep it opaque.
			return lit{kind: litTyped, lex: string(t.Value), dt: t.Type}, true
		}
		return lit{kind: litTyped, lex: string(t.Value), dt: t.Type}, true
	case quad.Int:
		return lit{kind: litTyped, lex: strconv.FormatInt(int64(t), 10), dt: XSDInteger}, true
	case quad.Float:
		return lit{kind: litTyped, lex: formatDouble(float64(t), 64), dt: XSDDouble}, true
	case quad.Bool:
		return lit{kind: litTyped, lex: strconv.FormatBool(bool(t)), dt: XSDBoolean}, true
	case quad.Time:
		return lit{kind: litTyped, lex: time.Time(t).Format(time.RFC3339Nano), dt: XSDDateTime}, true
	}
	return lit{}, false
}

// Normalize returns v in the canonical term representation of this package:
// a TypedString with datatype xsd:string becomes quad.String, a LangString
// without a tag becomes quad.String, and legacy cayley native values
// (quad.Int, quad.Float, quad.Bool, quad.Time) become TypedStrings. Other
// values are returned unchanged.
func Normalize(v quad.Value) quad.Value {
	switch v.(type) {
	case quad.IRI, quad.BNode, quad.String, nil:
		return v
	}
	if l, ok := asLit(v); ok {
		return l.value()
	}
	return v
}

// String returns the simple literal s (xsd:string).
func String(s string) quad.Value { return quad.String(s) }

// Boolean returns the canonical xsd:boolean literal for b.
func Boolean(b bool) quad.Value {
	if b {
		return quad.TypedString{Value: "true", Type: XSDBoolean}
	}
	return quad.TypedString{Value: "false", Type: XSDBoolean}
}

// Integer returns the canonical xsd:integer literal for n.
func Integer(n int64) quad.Value {
	return quad.TypedString{Value: quad.String(strconv.FormatInt(n, 10)), Type: XSDInteger}
}

// Double returns the canonical xsd:double literal for f (e.g. "1.5E0").
func Double(f float64) quad.Value {
	return quad.TypedString{Value: quad.String(formatDouble(f, 64)), Type: XSDDouble}
}

// Float returns the canonical xsd:float literal for f.
func Float(f float32) quad.Value {
	return quad.TypedString{Value: quad.String(formatDouble(float64(f), 32)), Type: XSDFloat}
}

// Decimal returns the canonical xsd:decimal literal for the decimal value s,
// given in xsd:decimal lexical form ("1.50", "-3", ".5"). It returns an
// error wrapping ErrType if s is not a valid xsd:decimal lexical form.
func Decimal(s string) (quad.Value, error) {
	r, ok := parseDecimal(s)
	if !ok {
		return nil, fmt.Errorf("decimal %q: invalid lexical form: %w", s, ErrType)
	}
	return decimalValue(r), nil
}

// ValidLexical reports whether v is a well-formed term: IRIs, blank nodes,
// simple and language-tagged literals are always valid; a typed literal of a
// datatype this package understands (numerics including the xsd:integer
// subtypes and their ranges, xsd:boolean, xsd:dateTime) is valid when its
// lexical form is in the lexical space. Literals of other datatypes are
// reported valid. Ill-typed literals compare only by term equality.
func ValidLexical(v quad.Value) bool {
	l, ok := asLit(v)
	if !ok {
		return v != nil
	}
	if l.kind != litTyped {
		return true
	}
	switch {
	case l.dt == XSDBoolean:
		_, ok := parseBoolean(l.lex)
		return ok
	case l.dt == XSDDateTime:
		_, ok := parseDateTime(l.lex)
		return ok
	case l.dt == RDFLangString:
		return false
	}
	if numericKindOf(l.dt) != NotNumeric {
		_, ok := parseNumeric(l)
		return ok
	}
	return true
}

func parseBoolean(s string) (bool, bool) {
	switch s {
	case "true", "1":
		return true, true
	case "false", "0":
		return false, true
	}
	return false, false
}

// isXMLSpace reports XML whitespace (#x20 | #x9 | #xD | #xA).
func isXMLSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }
