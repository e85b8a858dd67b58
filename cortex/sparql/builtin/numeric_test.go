package builtin_test

import (
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/builtin"
)

func TestArithmetic(t *testing.T) {
	type op func(a, b quad.Value) (quad.Value, error)
	add, sub, mul, div := builtin.Add, builtin.Sub, builtin.Mul, builtin.Div
	tests := []struct {
		name    string
		f       op
		a, b    quad.Value
		want    quad.Value
		wantErr error
	}{
		{"int+int", add, integer("1"), integer("2"), integer("3"), nil},
		{"int+int non-canonical", add, integer("+01"), integer("002"), integer("3"), nil},
		{"int subtypes give integer", add, typed("1", "int"), typed("2", "byte"), integer("3"), nil},
		{"nonNegativeInteger", add, typed("1", "nonNegativeInteger"), integer("-2"), integer("-1"), nil},
		{"int64 overflow", add, integer("9223372036854775807"), integer("1"), integer("9223372036854775808"), nil},
		{"negative overflow", sub, integer("-9223372036854775808"), integer("1"), integer("-9223372036854775809"), nil},
		{"big", add, integer("100000000000000000000"), integer("-1"), integer("99999999999999999999"), nil},
		{"int+decimal", add, integer("1"), decimal("1.5"), decimal("2.5"), nil},
		{"decimal result keeps .0", add, decimal("1.5"), decimal("0.5"), decimal("2.0"), nil},
		{"decimal exact", add, decimal("0.1"), decimal("0.2"), decimal("0.3"), nil},
		{"decimal+float", add, decimal("1.5"), float("1"), float("2.5E0"), nil},
		{"int+double", add, integer("1"), double("1.5"), double("2.5E0"), nil},
		{"float+double", add, float("1.5"), double("1"), double("2.5E0"), nil},
		{"double big exponent", mul, double("1e300"), double("1e10"), double("INF"), nil},
		{"sub decimals", sub, decimal("1.25"), decimal("0.25"), decimal("1.0"), nil},
		{"sub negative", sub, integer("1"), integer("3"), integer("-2"), nil},
		{"sub zero decimal", sub, decimal("0.5"), decimal("0.50"), decimal("0.0"), nil},
		{"mul ints", mul, integer("6"), integer("7"), integer("42"), nil},
		{"mul overflow", mul, integer("4294967296"), integer("4294967296"), integer("18446744073709551616"), nil},
		{"mul negative", mul, integer("-3"), integer("3"), integer("-9"), nil},
		{"mul decimals", mul, decimal("1.5"), decimal("1.5"), decimal("2.25"), nil},
		{"mul double", mul, double("2"), integer("3"), double("6.0E0"), nil},
		{"div ints gives decimal", div, integer("3"), integer("2"), decimal("1.5"), nil},
		{"div ints exact", div, integer("4"), integer("2"), decimal("2.0"), nil},
		{"div non-terminating", div, integer("1"), integer("3"), decimal("0.333333333333333333333333"), nil},
		{"div 2/3 rounds", div, integer("2"), integer("3"), decimal("0.666666666666666666666667"), nil},
		{"div decimal", div, decimal("1"), decimal("8"), decimal("0.125"), nil},
		{"div int by zero", div, integer("1"), integer("0"), nil, builtin.ErrType},
		{"div decimal by zero", div, decimal("1.0"), decimal("0.0"), nil, builtin.ErrType},
		{"div double by zero", div, double("1"), integer("0"), double("INF"), nil},
		{"div negative double by zero", div, double("-1"), double("0"), double("-INF"), nil},
		{"div zero by zero double", div, double("0"), double("0"), double("NaN"), nil},
		{"div float", div, float("1"), float("4"), float("2.5E-1"), nil},
		{"string operand", add, str("1"), integer("1"), nil, builtin.ErrType},
		{"ill-typed operand", add, integer("one"), integer("1"), nil, builtin.ErrType},
		{"out of range byte", add, typed("300", "byte"), integer("1"), nil, builtin.ErrType},
		{"boolean operand", add, T, integer("1"), nil, builtin.ErrType},
		{"IRI operand", mul, iri("http://a"), integer("1"), nil, builtin.ErrType},
		{"unbound", sub, nil, integer("1"), nil, builtin.ErrUnbound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.f(tt.a, tt.b)
			checkValue(t, got, err, tt.want, tt.wantErr)
		})
	}
}

func TestUnary(t *testing.T) {
	tests := []struct {
		name    string
		f       func(quad.Value) (quad.Value, error)
		in      quad.Value
		want    quad.Value
		wantErr error
	}{
		// expr-ops unminus/unplus.
		{"neg int", builtin.Neg, integer("3"), integer("-3"), nil},
		{"neg neg", builtin.Neg, integer("-3"), integer("3"), nil},
		{"neg min int64", builtin.Neg, integer("-9223372036854775808"), integer("9223372036854775808"), nil},
		{"neg decimal", builtin.Neg, decimal("1.50"), decimal("-1.5"), nil},
		{"neg zero decimal", builtin.Neg, decimal("0.0"), decimal("0.0"), nil},
		{"neg double", builtin.Neg, double("1e0"), double("-1.0E0"), nil},
		{"neg double zero", builtin.Neg, double("0"), double("-0.0E0"), nil},
		{"plus int", builtin.Plus, integer("+3"), integer("3"), nil},
		{"plus short", builtin.Plus, typed("3", "short"), integer("3"), nil},
		{"plus double", builtin.Plus, double("100"), double("1.0E2"), nil},
		{"neg string", builtin.Neg, str("3"), nil, builtin.ErrType},
		{"plus unbound", builtin.Plus, nil, nil, builtin.ErrUnbound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.f(tt.in)
			checkValue(t, got, err, tt.want, tt.wantErr)
		})
	}
}

func TestLiteralHelpers(t *testing.T) {
	dec := func(s string) quad.Value {
		v, err := builtin.Decimal(s)
		if err != nil {
			t.Fatalf("Decimal(%q): %v", s, err)
		}
		return v
	}
	tests := []struct {
		name      string
		got, want quad.Value
	}{
		{"Integer", builtin.Integer(-42), integer("-42")},
		{"Boolean true", builtin.Boolean(true), T},
		{"Boolean false", builtin.Boolean(false), F},
		{"String", builtin.String("x"), str("x")},
		{"Double 1.5", builtin.Double(1.5), double("1.5E0")},
		{"Double 100", builtin.Double(100), double("1.0E2")},
		{"Double 0.001", builtin.Double(0.001), double("1.0E-3")},
		{"Double 123456.789", builtin.Double(123456.789), double("1.23456789E5")},
		{"Double -0", builtin.Double(negZero()), double("-0.0E0")},
		{"Float 0.1", builtin.Float(0.1), float("1.0E-1")},
		{"Decimal 2", dec("2"), decimal("2.0")},
		{"Decimal +002.500", dec("+002.500"), decimal("2.5")},
		{"Decimal .5", dec(".5"), decimal("0.5")},
		{"Decimal -0.0", dec("-0.0"), decimal("0.0")},
		{"Decimal -3.", dec("-3."), decimal("-3.0")},
		{"Normalize xsd:string", builtin.Normalize(xsdString("a")), str("a")},
		{"Normalize quad.Int", builtin.Normalize(quad.Int(5)), integer("5")},
		{"Normalize quad.Bool", builtin.Normalize(quad.Bool(true)), T},
		{"Normalize IRI", builtin.Normalize(iri("x")), iri("x")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Fatalf("got %#v, want %#v", tt.got, tt.want)
			}
		})
	}
	if _, err := builtin.Decimal("1e3"); err == nil {
		t.Error(`Decimal("1e3") succeeded`)
	}
}

func negZero() float64 {
	z := 0.0
	return -z
}

func TestValidLexicalAndIsNumeric(t *testing.T) {
	tests := []struct {
		in          quad.Value
		valid, isNr bool
	}{
		{integer("12"), true, true},
		{integer("+12"), true, true},
		{integer("-0"), true, true},
		{integer("1.0"), false, false},
		{integer(""), false, false},
		{integer(" 1"), false, false},
		{typed("127", "byte"), true, true},
		{typed("128", "byte"), false, false},
		{typed("1200", "byte"), false, false}, // isnumeric01
		{typed("-1", "nonNegativeInteger"), false, false},
		{typed("0", "positiveInteger"), false, false},
		{typed("18446744073709551615", "unsignedLong"), true, true},
		{typed("18446744073709551616", "unsignedLong"), false, false},
		{typed("-2147483649", "int"), false, false},
		{decimal("1."), true, true},
		{decimal(".5"), true, true},
		{decimal("."), false, false},
		{decimal("1e2"), false, false},
		{double("1e2"), true, true},
		{double("1.E-2"), true, true},
		{double(".5e+1"), true, true},
		{double("INF"), true, true},
		{double("-INF"), true, true},
		{double("NaN"), true, true},
		{double("nan"), false, false},
		{double("Infinity"), false, false},
		{double("1e"), false, false},
		{double("0x10"), false, false},
		{float("1.5"), true, true},
		{boolean("true"), true, false},
		{boolean("1"), true, false},
		{boolean("yes"), false, false},
		{dateTime("2010-06-21T11:28:01Z"), true, false},
		{dateTime("2010-06-21T11:28:01.123-05:30"), true, false},
		{dateTime("-0044-03-15T12:00:00"), true, false},
		{dateTime("12010-06-21T11:28:01Z"), true, false},
		{dateTime("2010-02-29T00:00:00Z"), false, false},
		{dateTime("2012-02-29T00:00:00Z"), true, false},
		{dateTime("2010-06-21T24:00:00Z"), true, false},
		{dateTime("2010-06-21T24:00:01Z"), false, false},
		{dateTime("2010-06-21T11:28Z"), false, false},
		{dateTime("2010-06-21"), false, false},
		{dateTime("2010-06-21T11:28:01+15:00"), false, false},
		{dateTime("02010-06-21T11:28:01Z"), false, false},
		{str("x"), true, false},
		{lang("x", "en"), true, false},
		{iri("x"), true, false},
		{other("x", "http://example.org/t"), true, false},
	}
	for _, tt := range tests {
		t.Run(termName(tt.in), func(t *testing.T) {
			if got := builtin.ValidLexical(tt.in); got != tt.valid {
				t.Errorf("ValidLexical = %v, want %v", got, tt.valid)
			}
			if got := builtin.IsNumeric(tt.in); got != tt.isNr {
				t.Errorf("IsNumeric = %v, want %v", got, tt.isNr)
			}
		})
	}
}

func termName(v quad.Value) string {
	if v == nil {
		return "unbound"
	}
	return v.String()
}

func TestNumericValue(t *testing.T) {
	n, ok := builtin.NumericValue(typed("12", "short"))
	if !ok || n.Kind() != builtin.IntegerKind || n.Float64() != 12 {
		t.Fatalf("NumericValue(short 12) = %v, %v", n, ok)
	}
	if n.Value() != integer("12") {
		t.Fatalf("Value() = %#v", n.Value())
	}
	if k := builtin.NumericKindOf(decimal("x")); k != builtin.DecimalKind {
		t.Fatalf("NumericKindOf(ill-typed decimal) = %v", k)
	}
	if k := builtin.NumericKindOf(str("1")); k != builtin.NotNumeric {
		t.Fatalf("NumericKindOf(string) = %v", k)
	}
	r, ok := mustNumeric(t, decimal("-1.25")).Rat()
	if !ok || r.String() != "-5/4" {
		t.Fatalf("Rat = %v, %v", r, ok)
	}
	if _, ok := mustNumeric(t, double("NaN")).Rat(); ok {
		t.Fatal("NaN has a Rat")
	}
}

func mustNumeric(t *testing.T, v quad.Value) builtin.Numeric {
	t.Helper()
	n, ok := builtin.NumericValue(v)
	if !ok {
		t.Fatalf("not numeric: %v", v)
	}
	return n
}
