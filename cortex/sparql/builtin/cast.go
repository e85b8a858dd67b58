package builtin

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/cayleygraph/quad"
)

// IsCast reports whether fn is the IRI of a supported XSD constructor
// function: xsd:string, xsd:integer, xsd:decimal, xsd:float, xsd:double,
// xsd:boolean or xsd:dateTime.
func IsCast(fn quad.IRI) bool {
	switch fn {
	case XSDString, XSDInteger, XSDDecimal, XSDFloat, XSDDouble, XSDBoolean, XSDDateTime:
		return true
	}
	return false
}

// Cast converts v to datatype following the SPARQL 1.1 §17.5 cast table
// and XPath casting rules. IRIs cast only to xsd:string; blank nodes,
// language-tagged strings, literals of unknown datatypes and ill-typed
// literals do not cast. Strings are whitespace-trimmed and must be in the
// target's lexical space ("1.5" does not cast to xsd:integer, "1e3" not to
// xsd:decimal). Numbers cast to xsd:integer by truncation (NaN and INF are
// errors), to xsd:boolean as false iff zero or NaN; booleans cast to numbers
// as 1 and 0. Results use canonical lexical forms, except that casting a
// string to xsd:string or xsd:dateTime keeps the (trimmed) lexical form.
// An xsd:date casts to xsd:string (its canonical form) and to xsd:dateTime
// (its first instant), as in XPath, and to no other type.
func Cast(datatype quad.IRI, v quad.Value) (quad.Value, error) {
	if v == nil {
		return nil, fmt.Errorf("cast to %s: %w", datatype, ErrUnbound)
	}
	if !IsCast(datatype) {
		return nil, fmt.Errorf("cast to %s: unsupported datatype: %w", datatype, ErrType)
	}
	out, err := cast(datatype, v)
	if err != nil {
		return nil, fmt.Errorf("cast %s to %s: %w", termString(v), datatype, err)
	}
	return out, nil
}

func cast(dt quad.IRI, v quad.Value) (quad.Value, error) {
	if iri, ok := v.(quad.IRI); ok {
		if dt == XSDString {
			return quad.String(string(iri)), nil
		}
		return nil, ErrType
	}
	l, ok := asLit(v)
	if !ok || l.kind == litLang {
		return nil, ErrType
	}
	src := classify(l)
	if l.kind == litSimple {
		if dt == XSDString {
			return quad.String(l.lex), nil
		}
		return castFromString(dt, strings.TrimFunc(l.lex, isXMLSpace))
	}
	switch src.cat {
	case catNumeric:
		return castFromNumeric(dt, src.num)
	case catBoolean:
		switch dt {
		case XSDString:
			return quad.String(strconv.FormatBool(src.b)), nil
		case XSDBoolean:
			return Boolean(src.b), nil
		case XSDDateTime:
			return nil, ErrType
		}
		n := int64(0)
		if src.b {
			n = 1
		}
		return castFromNumeric(dt, Numeric{kind: IntegerKind, small: n})
	case catDateTime:
		switch dt {
		case XSDString:
			return quad.String(src.dtv.canonical()), nil
		case XSDDateTime:
			return quad.TypedString{Value: quad.String(src.dtv.canonical()), Type: XSDDateTime}, nil
		}
	case catDate:
		// XPath F&O §19.1.5: a date casts to a string and to the dateTime
		// of its first instant, to no number or boolean.
		switch dt {
		case XSDString:
			return quad.String(src.dtv.canonicalDate()), nil
		case XSDDateTime:
			return quad.TypedString{Value: quad.String(src.dtv.canonical()), Type: XSDDateTime}, nil
		}
	}
	return nil, ErrType
}

func castFromString(dt quad.IRI, s string) (quad.Value, error) {
	switch dt {
	case XSDInteger:
		if n, ok := parseInteger(s); ok {
			return n.Value(), nil
		}
	case XSDDecimal:
		if r, ok := parseDecimal(s); ok {
			return decimalValue(r), nil
		}
	case XSDFloat:
		if f, ok := parseDouble(s, true); ok {
			return floatNumeric(f).Value(), nil
		}
	case XSDDouble:
		if f, ok := parseDouble(s, false); ok {
			return doubleNumeric(f).Value(), nil
		}
	case XSDBoolean:
		if b, ok := parseBoolean(s); ok {
			return Boolean(b), nil
		}
	case XSDDateTime:
		if _, ok := parseDateTime(s); ok {
			return quad.TypedString{Value: quad.String(s), Type: XSDDateTime}, nil
		}
	}
	return nil, ErrType
}

func castFromNumeric(dt quad.IRI, n Numeric) (quad.Value, error) {
	isFloat := n.kind == FloatKind || n.kind == DoubleKind
	switch dt {
	case XSDString:
		return quad.String(numericString(n)), nil
	case XSDBoolean:
		switch n.kind {
		case IntegerKind:
			return Boolean(n.big != nil || n.small != 0), nil
		case DecimalKind:
			return Boolean(n.dec.Sign() != 0), nil
		}
		return Boolean(n.f != 0 && !math.IsNaN(n.f)), nil
	case XSDInteger:
		switch n.kind {
		case IntegerKind:
			return n.Value(), nil
		case DecimalKind:
			return intNumeric(new(big.Int).Quo(n.dec.Num(), n.dec.Denom())).Value(), nil
		}
		if math.IsNaN(n.f) || math.IsInf(n.f, 0) {
			return nil, ErrType
		}
		i, _ := big.NewFloat(math.Trunc(n.f)).Int(nil)
		return intNumeric(i).Value(), nil
	case XSDDecimal:
		if !isFloat {
			return n.to(DecimalKind).Value(), nil
		}
		if math.IsNaN(n.f) || math.IsInf(n.f, 0) {
			return nil, ErrType
		}
		bits := 64
		if n.kind == FloatKind {
			bits = 32
		}
		r, ok := parseDecimal(strconv.FormatFloat(n.f, 'f', -1, bits))
		if !ok {
			return nil, ErrType
		}
		return decimalValue(r), nil
	case XSDFloat:
		return floatNumeric(n.Float64()).Value(), nil
	case XSDDouble:
		return doubleNumeric(n.Float64()).Value(), nil
	}
	return nil, ErrType
}

// numericString is the XPath cast of a number to xs:string: integers and
// integral decimals without a point, other decimals minimally, floats and
// doubles in plain notation when 1e-6 <= |v| < 1e6 and in canonical
// exponent notation otherwise.
func numericString(n Numeric) string {
	switch n.kind {
	case IntegerKind:
		return string(n.Value().(quad.TypedString).Value)
	case DecimalKind:
		if n.dec.IsInt() {
			return n.dec.Num().String()
		}
		return formatDecimal(n.dec)
	}
	bits := 64
	if n.kind == FloatKind {
		bits = 32
	}
	a := math.Abs(n.f)
	switch {
	case math.IsNaN(n.f) || math.IsInf(n.f, 0):
		return formatDouble(n.f, bits)
	case n.f == 0:
		if math.Signbit(n.f) {
			return "-0"
		}
		return "0"
	case a >= 1e-6 && a < 1e6:
		return strconv.FormatFloat(n.f, 'f', -1, bits)
	}
	return formatDouble(n.f, bits)
}
