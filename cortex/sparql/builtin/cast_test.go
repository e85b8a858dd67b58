package builtin_test

import (
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/builtin"
)

// Cases follow the sparql11/cast and sparql10/cast W3C tests (data.ttl and
// the .srx results), with results in canonical lexical form.
func TestCast(t *testing.T) {
	const (
		S   = builtin.XSDString
		I   = builtin.XSDInteger
		DEC = builtin.XSDDecimal
		FL  = builtin.XSDFloat
		DB  = builtin.XSDDouble
		B   = builtin.XSDBoolean
		DT  = builtin.XSDDateTime
	)
	E := builtin.ErrType
	tests := []struct {
		to      quad.IRI
		in      quad.Value
		want    quad.Value
		wantErr error
	}{
		// xsd:string
		{S, iri("http://example.org/z"), str("http://example.org/z"), nil},
		{S, str("string"), str("string"), nil},
		{S, str("-10.2E3"), str("-10.2E3"), nil},
		{S, str("+33.3300"), str("+33.3300"), nil},
		{S, xsdString(" x "), str(" x "), nil},
		{S, T, str("true"), nil},
		{S, boolean("0"), str("false"), nil},
		{S, integer("0"), str("0"), nil},
		{S, integer("-1"), str("-1"), nil},
		{S, integer("007"), str("7"), nil},
		{S, decimal("0.0"), str("0"), nil},
		{S, decimal("-1.0"), str("-1"), nil},
		{S, decimal("2.50"), str("2.5"), nil},
		{S, double("0E1"), str("0"), nil},
		{S, double("1E0"), str("1"), nil},
		{S, float("1.25"), str("1.25"), nil},
		{S, float("-7.875"), str("-7.875"), nil},
		{S, double("1e7"), str("1.0E7"), nil},
		{S, double("-INF"), str("-INF"), nil},
		{S, dateTime("2002-10-10T17:00:00Z"), str("2002-10-10T17:00:00Z"), nil},
		// a dateTime casts to its canonical form (F&O §19.1.2.2): seconds without trailing zeros,
		// a zero offset as Z, other offsets kept, 24:00:00 as the next day's 00:00:00
		{S, dateTime("2002-10-10T17:00:00.000Z"), str("2002-10-10T17:00:00Z"), nil},
		{S, dateTime("2002-10-10T17:00:05.250+00:00"), str("2002-10-10T17:00:05.25Z"), nil},
		{S, dateTime("2002-10-10T17:00:00-00:00"), str("2002-10-10T17:00:00Z"), nil},
		{S, dateTime("2002-10-10T17:00:00.5-05:00"), str("2002-10-10T17:00:00.5-05:00"), nil},
		{S, dateTime("2002-12-31T24:00:00"), str("2003-01-01T00:00:00"), nil},
		{S, dateTime("-0044-03-15T12:00:00.0000000000001+14:00"), str("-0044-03-15T12:00:00.0000000000001+14:00"), nil},
		{S, dateTime("12345-01-01T00:00:00Z"), str("12345-01-01T00:00:00Z"), nil},
		// an xsd:date casts to xsd:string (its canonical form) and to the xsd:dateTime of its first
		// instant (F&O §19.1.5), to nothing else; an ill-typed one casts to nothing
		{S, typed("2024-02-29", "date"), str("2024-02-29"), nil},
		{S, typed("2024-02-29+00:00", "date"), str("2024-02-29Z"), nil},
		{S, typed("-0044-03-15-05:00", "date"), str("-0044-03-15-05:00"), nil},
		{S, typed("2023-02-29", "date"), nil, E},
		{S, typed("2024-02-29T00:00:00", "date"), nil, E},
		{DT, typed("2024-02-29Z", "date"), dateTime("2024-02-29T00:00:00Z"), nil},
		{I, typed("2024-02-29", "date"), nil, E},
		{B, typed("2024-02-29", "date"), nil, E},
		{DB, typed("2024-02-29", "date"), nil, E},
		{S, bnode("b"), nil, E},
		{S, lang("chat", "fr"), nil, E},
		{S, other("x", "http://example.org/t"), nil, E},
		// xsd:integer
		{I, str("0"), integer("0"), nil},
		{I, str("13"), integer("13"), nil},
		{I, str(" 13 "), integer("13"), nil},
		{I, str("+013"), integer("13"), nil},
		{I, str("1.5"), nil, E},
		{I, str("1E0"), nil, E},
		{I, str("string"), nil, E},
		{I, str("2002-10-10T17:00:00Z"), nil, E},
		{I, T, integer("1"), nil},
		{I, boolean("0"), integer("0"), nil},
		{I, integer("-1"), integer("-1"), nil},
		{I, typed("5", "byte"), integer("5"), nil},
		{I, decimal("1.0"), integer("1"), nil},
		{I, decimal("2.5"), integer("2"), nil},
		{I, decimal("-2.5"), integer("-2"), nil},
		{I, double("1E0"), integer("1"), nil},
		{I, double("1.0E0"), integer("1"), nil},
		{I, float("1.25"), integer("1"), nil},
		{I, float("-7.875"), integer("-7"), nil},
		{I, double("1e20"), integer("100000000000000000000"), nil},
		{I, double("NaN"), nil, E},
		{I, double("INF"), nil, E},
		{I, dateTime("2002-10-10T17:00:00Z"), nil, E},
		{I, iri("http://example.org/z"), nil, E},
		{I, integer("x"), nil, E},
		// xsd:decimal
		{DEC, str("+33.3300"), decimal("33.33"), nil},
		{DEC, str("0.0"), decimal("0.0"), nil},
		{DEC, str("1"), decimal("1.0"), nil},
		{DEC, str("-10.2E3"), nil, E},
		{DEC, str("0E1"), nil, E},
		{DEC, str("string"), nil, E},
		{DEC, T, decimal("1.0"), nil},
		{DEC, F, decimal("0.0"), nil},
		{DEC, integer("-1"), decimal("-1.0"), nil},
		{DEC, decimal("2.5"), decimal("2.5"), nil},
		{DEC, double("1E0"), decimal("1.0"), nil},
		{DEC, float("1.25"), decimal("1.25"), nil},
		{DEC, float("-7.875"), decimal("-7.875"), nil},
		{DEC, double("0.1"), decimal("0.1"), nil},
		{DEC, double("NaN"), nil, E},
		// xsd:double
		{DB, str("-10.2E3"), double("-1.02E4"), nil},
		{DB, str("+33.3300"), double("3.333E1"), nil},
		{DB, str("0.0"), double("0.0E0"), nil},
		{DB, str("1"), double("1.0E0"), nil},
		{DB, str("INF"), double("INF"), nil},
		{DB, str("string"), nil, E},
		{DB, str("2002-10-10T17:00:00Z"), nil, E},
		{DB, T, double("1.0E0"), nil},
		{DB, F, double("0.0E0"), nil},
		{DB, integer("-1"), double("-1.0E0"), nil},
		{DB, decimal("2.5"), double("2.5E0"), nil},
		{DB, float("-7.875"), double("-7.875E0"), nil},
		// xsd:float
		{FL, str("-10.2E3"), float("-1.02E4"), nil},
		{FL, str("1.5"), float("1.5E0"), nil},
		{FL, T, float("1.0E0"), nil},
		{FL, decimal("-2.5"), float("-2.5E0"), nil},
		{FL, double("0.1"), float("1.0E-1"), nil},
		{FL, str("string"), nil, E},
		// xsd:boolean
		{B, str("true"), T, nil},
		{B, str("false"), F, nil},
		{B, str("1"), T, nil},
		{B, str("0"), F, nil},
		{B, str("0.0"), nil, E},
		{B, str("TRUE"), nil, E},
		{B, boolean("0"), F, nil},
		{B, integer("0"), F, nil},
		{B, integer("-1"), T, nil},
		{B, decimal("0.0"), F, nil},
		{B, decimal("1.5"), T, nil},
		{B, double("0E1"), F, nil},
		{B, double("NaN"), F, nil},
		{B, float("1.25"), T, nil},
		{B, dateTime("2002-10-10T17:00:00Z"), nil, E},
		// xsd:dateTime
		{DT, str("2002-10-10T17:00:00Z"), dateTime("2002-10-10T17:00:00Z"), nil},
		{DT, dateTime("2002-10-10T17:00:00Z"), dateTime("2002-10-10T17:00:00Z"), nil},
		{DT, dateTime("2002-10-10T17:00:00.10+00:00"), dateTime("2002-10-10T17:00:00.1Z"), nil},
		{DT, dateTime("2002-10-10T24:00:00"), dateTime("2002-10-11T00:00:00"), nil},
		{DT, str("string"), nil, E},
		{DT, str("2002-10-10"), nil, E},
		{DT, integer("1"), nil, E},
		{DT, T, nil, E},
		// unsupported target, unbound
		{quad.IRI(xsd + "date"), str("2002-10-10"), nil, E},
		{I, nil, nil, builtin.ErrUnbound},
	}
	for _, tt := range tests {
		t.Run(string(tt.to[len(xsd):])+"("+termName(tt.in)+")", func(t *testing.T) {
			got, err := builtin.Cast(tt.to, tt.in)
			checkValue(t, got, err, tt.want, tt.wantErr)
		})
	}
}

func TestIsCast(t *testing.T) {
	for _, dt := range []string{"string", "integer", "decimal", "float", "double", "boolean", "dateTime"} {
		if !builtin.IsCast(quad.IRI(xsd + dt)) {
			t.Errorf("IsCast(xsd:%s) = false", dt)
		}
	}
	for _, dt := range []quad.IRI{xsd + "date", xsd + "int", "http://example.org/f", ""} {
		if builtin.IsCast(dt) {
			t.Errorf("IsCast(%s) = true", dt)
		}
	}
	// Casts are reachable through Call by IRI.
	v, err := builtin.Call(xsd+"integer", vals(str("12")))
	checkValue(t, v, err, integer("12"), nil)
}
