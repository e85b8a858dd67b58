package builtin_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/builtin"
)

func TestEBV(t *testing.T) {
	tests := []struct {
		name    string
		in      quad.Value
		want    bool
		wantErr error
	}{
		// SPARQL 1.1 §17.2.2 and the boolean-effective-value tests.
		{"true", T, true, nil},
		{"false", F, false, nil},
		{"boolean 1", boolean("1"), true, nil},
		{"boolean 0", boolean("0"), false, nil},
		{"invalid boolean", boolean("TRUE"), false, nil},
		{"empty string", str(""), false, nil},
		{"string", str("foo"), true, nil},
		{"xsd:string empty", xsdString(""), false, nil},
		{"xsd:string", xsdString("x"), true, nil},
		{"lang string", lang("chat", "fr"), true, nil},
		{"empty lang string", lang("", "fr"), false, nil},
		{"integer 0", integer("0"), false, nil},
		{"integer 7", integer("7"), true, nil},
		{"integer -0", integer("-0"), false, nil},
		{"decimal 0.0", decimal("0.0"), false, nil},
		{"decimal 0.01", decimal("0.01"), true, nil},
		{"double 0", double("0E0"), false, nil},
		{"double -0", double("-0.0E0"), false, nil},
		{"double NaN", double("NaN"), false, nil},
		{"double INF", double("INF"), true, nil},
		{"float 1", float("1"), true, nil},
		{"int subtype", typed("5", "int"), true, nil},
		{"ill-typed integer", integer("abc"), false, nil},
		{"ill-typed double", double("1.2.3"), false, nil},
		{"dateTime", dateTime("2010-06-21T11:28:01Z"), false, builtin.ErrType},
		{"unknown datatype", other("x", "http://example.org/t"), false, builtin.ErrType},
		{"IRI", iri("http://example.org/"), false, builtin.ErrType},
		{"bnode", bnode("b"), false, builtin.ErrType},
		{"unbound", nil, false, builtin.ErrUnbound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := builtin.EBV(tt.in)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("EBV(%#v) = %v, %v; want error %v", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("EBV(%#v) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestCompare(t *testing.T) {
	tests := []struct {
		name    string
		a, b    quad.Value
		want    int
		wantErr error
	}{
		{"int lt", integer("1"), integer("2"), -1, nil},
		{"int eq different lexical", integer("01"), integer("1"), 0, nil},
		{"int vs decimal", integer("1"), decimal("1.0"), 0, nil},
		{"decimal vs double", decimal("1.5"), double("1.5E0"), 0, nil},
		{"int vs double gt", integer("3"), double("2.9E0"), 1, nil},
		{"float vs double", float("0.5"), double("0.25"), 1, nil},
		{"byte vs integer", typed("5", "byte"), integer("6"), -1, nil},
		{"big integers", integer("123456789012345678901234567890"), integer("123456789012345678901234567891"), -1, nil},
		{"negative decimal", decimal("-1.5"), decimal("-1.25"), -1, nil},
		{"-INF", double("-INF"), integer("-99999999999"), -1, nil},
		{"NaN", double("NaN"), double("NaN"), 0, builtin.ErrType},
		{"strings", str("abc"), str("abd"), -1, nil},
		{"string code points", str("Z"), str("a"), -1, nil},
		{"string vs xsd:string", str("b"), xsdString("a"), 1, nil},
		{"non-BMP string", str("\U0001F600"), str("\uFFFF"), 1, nil},
		{"booleans", F, T, -1, nil},
		{"boolean lexical 1", boolean("1"), T, 0, nil},
		// expr-ops dateTime comparisons (data-dateTime.ttl).
		{"dateTime same tz", dateTime("2006-08-23T09:00:00+01:00"), dateTime("2006-08-23T08:00:00+01:00"), 1, nil},
		{"dateTime different tz equal instant", dateTime("2006-08-23T09:00:00+01:00"), dateTime("2006-08-23T08:00:00Z"), 0, nil},
		{"dateTime different tz", dateTime("2006-08-23T09:00:00+01:00"), dateTime("2006-08-23T09:00:00Z"), -1, nil},
		{"dateTime no tz both", dateTime("2006-08-23T09:00:00"), dateTime("2006-08-23T09:00:01"), -1, nil},
		{"dateTime tz vs none far", dateTime("2006-08-22T09:00:00Z"), dateTime("2006-08-23T09:00:00"), -1, nil},
		{"dateTime tz vs none indeterminate", dateTime("2006-08-23T09:00:00Z"), dateTime("2006-08-23T10:00:00"), 0, builtin.ErrType},
		{"date lt", typed("2024-02-28", "date"), typed("2024-02-29", "date"), -1, nil},
		{"date equal instant", typed("2024-02-29+12:00", "date"), typed("2024-02-28-12:00", "date"), 0, nil},
		{"date vs dateTime", typed("2024-02-29Z", "date"), dateTime("2024-02-29T00:00:00Z"), 0, builtin.ErrType},
		{"date vs string", typed("2024-02-29", "date"), str("2024-02-29"), 0, builtin.ErrType},
		{"dateTime fractional", dateTime("2006-08-23T09:00:00.5Z"), dateTime("2006-08-23T09:00:00.25Z"), 1, nil},
		{"dateTime 24:00", dateTime("2006-08-23T24:00:00Z"), dateTime("2006-08-24T00:00:00Z"), 0, nil},
		// xsd:dateTime seconds have any number of fractional digits (XSD 1.1 §3.3.7).
		{"dateTime beyond nanoseconds", dateTime("2006-08-23T09:00:00.1234567891Z"), dateTime("2006-08-23T09:00:00.123456789Z"), 1, nil},
		{"dateTime beyond nanoseconds less", dateTime("2006-08-23T09:00:00.123456789Z"), dateTime("2006-08-23T09:00:00.12345678901Z"), -1, nil},
		{"dateTime trailing zeros", dateTime("2006-08-23T09:00:00.1234567890000Z"), dateTime("2006-08-23T09:00:00.123456789Z"), 0, nil},
		{"dateTime beyond nanoseconds no tz", dateTime("2006-08-23T09:00:00.0000000001"), dateTime("2006-08-23T09:00:00"), 1, nil},
		{"number vs string", integer("1"), str("1"), 0, builtin.ErrType},
		{"lang strings", lang("a", "en"), lang("b", "en"), 0, builtin.ErrType},
		{"string vs lang", str("a"), lang("a", "en"), 0, builtin.ErrType},
		{"IRIs", iri("http://a"), iri("http://b"), 0, builtin.ErrType},
		{"bnode", bnode("a"), str("a"), 0, builtin.ErrType},
		{"ill-typed", integer("x"), integer("1"), 0, builtin.ErrType},
		{"unknown datatype", other("1", "http://example.org/t"), other("2", "http://example.org/t"), 0, builtin.ErrType},
		{"unbound", nil, integer("1"), 0, builtin.ErrUnbound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := builtin.Compare(tt.a, tt.b)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Compare = %d, %v; want error %v", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Compare = %d, %v; want %d", got, err, tt.want)
			}
			// Antisymmetry.
			if rev, err := builtin.Compare(tt.b, tt.a); err != nil || rev != -tt.want {
				t.Fatalf("reverse Compare = %d, %v; want %d", rev, err, -tt.want)
			}
		})
	}
}

func TestEqual(t *testing.T) {
	tests := []struct {
		name    string
		a, b    quad.Value
		want    bool
		wantErr error
	}{
		// expr-equals: eq-1 .. eq-5, eq-2-1, eq-2-2 and open-world.
		{"integer = decimal", integer("1"), decimal("1.0"), true, nil},
		{"integer = double", integer("1"), double("1.0e0"), true, nil},
		{"integer lexical forms", integer("01"), integer("1"), true, nil},
		{"integer = int", integer("1"), typed("1", "int"), true, nil},
		{"integer != integer", integer("1"), integer("2"), false, nil},
		{"float vs double", float("1.5"), double("1.5"), true, nil},
		{"NaN = NaN", double("NaN"), double("NaN"), false, nil},
		{"INF = INF", double("INF"), float("INF"), true, nil},
		{"big", integer("99999999999999999999"), decimal("99999999999999999999.0"), true, nil},
		{"strings", str("xyz"), str("xyz"), true, nil},
		{"string = xsd:string", str("xyz"), xsdString("xyz"), true, nil},
		{"different strings", str("xyz"), str("xy"), false, nil},
		{"lang tag case", lang("xyz", "en"), lang("xyz", "EN"), true, nil},
		{"different lang", lang("xyz", "en"), lang("xyz", "fr"), false, nil},
		{"lang vs simple", lang("xyz", "en"), str("xyz"), false, nil},
		{"number vs string", integer("1"), str("1"), false, nil},
		{"boolean", boolean("true"), boolean("1"), true, nil},
		{"boolean false", boolean("false"), T, false, nil},
		{"dateTime equal instants", dateTime("2002-04-02T12:00:00-01:00"), dateTime("2002-04-02T17:00:00+04:00"), true, nil},
		// xsd:date is a known datatype: equal by first instant, unequal to other value spaces; an
		// ill-typed date is an unknown literal (a type error against another literal).
		{"date equal", typed("2024-02-29", "date"), typed("2024-02-29", "date"), true, nil},
		{"date equal instants", typed("2024-02-29+12:00", "date"), typed("2024-02-28-12:00", "date"), true, nil},
		{"date differ", typed("2024-02-29Z", "date"), typed("2024-03-01Z", "date"), false, nil},
		{"date vs string", typed("2024-02-29", "date"), str("a"), false, nil},
		{"date vs integer", typed("2024-02-29", "date"), integer("2024"), false, nil},
		{"date vs dateTime", typed("2024-02-29Z", "date"), dateTime("2024-02-29T00:00:00Z"), false, nil},
		{"ill-typed date vs string", typed("2023-02-29", "date"), str("a"), false, builtin.ErrType},
		{"dateTime differ", dateTime("2005-04-04T04:04:04Z"), dateTime("2005-04-04T04:04:05Z"), false, nil},
		{"dateTime indeterminate", dateTime("2005-04-04T04:04:04Z"), dateTime("2005-04-04T04:04:04"), false, builtin.ErrType},
		{"dateTime differ beyond nanoseconds", dateTime("2005-04-04T04:04:04.0000000001Z"), dateTime("2005-04-04T04:04:04Z"), false, nil},
		{"dateTime equal beyond nanoseconds", dateTime("2005-04-04T04:04:04.00000000010Z"), dateTime("2005-04-04T04:04:04.0000000001Z"), true, nil},
		{"same unknown term", other("a", "http://example.org/t"), other("a", "http://example.org/t"), true, nil},
		{"different unknown", other("a", "http://example.org/t"), other("b", "http://example.org/t"), false, builtin.ErrType},
		{"unknown vs string", other("a", "http://example.org/t"), str("a"), false, builtin.ErrType},
		{"ill-typed same term", integer("abc"), integer("abc"), true, nil},
		{"ill-typed vs integer", integer("abc"), integer("1"), false, builtin.ErrType},
		{"IRIs", iri("http://a"), iri("http://a"), true, nil},
		{"different IRIs", iri("http://a"), iri("http://b"), false, nil},
		{"IRI vs literal", iri("http://a"), str("http://a"), false, nil},
		{"bnodes", bnode("a"), bnode("a"), true, nil},
		{"bnode vs IRI", bnode("a"), iri("a"), false, nil},
		{"unbound", str("a"), nil, false, builtin.ErrUnbound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := builtin.Equal(tt.a, tt.b)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Equal = %v, %v; want error %v", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Equal = %v, %v; want %v", got, err, tt.want)
			}
			if rev, err := builtin.Equal(tt.b, tt.a); err != nil || rev != tt.want {
				t.Fatalf("reverse Equal = %v, %v; want %v", rev, err, tt.want)
			}
		})
	}
}

func TestSameTerm(t *testing.T) {
	tests := []struct {
		name string
		a, b quad.Value
		want bool
	}{
		{"same integer", integer("1"), integer("1"), true},
		{"integer lexical differs", integer("1"), integer("01"), false},
		{"integer vs decimal", integer("1"), decimal("1.0"), false},
		{"string vs xsd:string", str("a"), xsdString("a"), true},
		{"lang case", lang("a", "en-US"), lang("a", "en-us"), true},
		{"IRI", iri("x"), iri("x"), true},
		{"IRI vs bnode", iri("x"), bnode("x"), false},
		{"IRI vs string", iri("x"), str("x"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := builtin.SameTerm(tt.a, tt.b); got != tt.want {
				t.Fatalf("SameTerm = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestOrderCompare(t *testing.T) {
	// The expected order, written by hand: unbound, blank nodes, IRIs, then
	// literals grouped numbers, strings, language strings, booleans,
	// dateTimes, others.
	want := []quad.Value{
		nil,
		bnode("a"),
		bnode("b"),
		iri("http://example.org/a"),
		iri("http://example.org/b"),
		double("NaN"),
		double("-INF"),
		integer("-5"),
		integer("1"), // ties broken by lexical form: "1" < "1.0"
		decimal("1.0"),
		double("1.5E0"),
		integer("2"),
		integer("10000000000000000000000"),
		double("INF"),
		str(""),
		str("a"),
		str("b"),
		lang("a", "en"),
		lang("a", "fr"),
		lang("b", "de"),
		F,
		T,
		dateTime("2000-01-01T00:00:00"), // no timezone read as UTC; tie broken lexically
		dateTime("2000-01-01T00:00:00Z"),
		dateTime("2001-01-01T00:00:00Z"),
		integer("abc"),
		other("x", "http://example.org/t"),
	}
	got := slices.Clone(want)
	slices.Reverse(got)
	slices.SortStableFunc(got, builtin.OrderCompare)
	for i := range want {
		if !builtin.SameTerm(got[i], want[i]) {
			t.Fatalf("position %d: got %#v, want %#v\nfull order: %v", i, got[i], want[i], got)
		}
	}
	for i, a := range want {
		for j, b := range want {
			c := builtin.OrderCompare(a, b)
			switch {
			case i < j && c >= 0, i > j && c <= 0, i == j && c != 0:
				t.Errorf("OrderCompare(%#v, %#v) = %d", a, b, c)
			}
		}
	}
}

// TestUnordered: numbers of which one is NaN are unordered (the operators < <= > >= are false); any
// other pair, a NaN against a non-number included, is not.
func TestUnordered(t *testing.T) {
	tests := []struct {
		name string
		a, b quad.Value
		want bool
	}{
		{"NaN NaN", double("NaN"), double("NaN"), true},
		{"NaN integer", double("NaN"), integer("1"), true},
		{"decimal float NaN", decimal("1.5"), float("NaN"), true},
		{"NaN INF", double("NaN"), double("INF"), true},
		{"numbers", double("1"), integer("1"), false},
		{"NaN string", double("NaN"), str("NaN"), false},
		{"NaN ill-typed integer", double("NaN"), integer("x"), false},
		{"NaN unbound", double("NaN"), nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := builtin.Unordered(tc.a, tc.b); got != tc.want {
				t.Errorf("Unordered = %v, want %v", got, tc.want)
			}
			if got := builtin.Unordered(tc.b, tc.a); got != tc.want {
				t.Errorf("Unordered (swapped) = %v, want %v", got, tc.want)
			}
		})
	}
}
