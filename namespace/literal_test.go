package namespace_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/namespace"
)

func TestString(t *testing.T) {
	if v := namespace.String("x"); v != quad.String("x") {
		t.Errorf("String = %#v", v)
	}
	tests := []struct {
		v    quad.Value
		want string
		ok   bool
	}{
		{quad.String("a"), "a", true},
		{quad.TypedString{Value: "b", Type: namespace.XSDString}, "b", true},
		{quad.TypedString{Value: "1", Type: namespace.XSDInteger}, "", false},
		{quad.LangString{Value: "c", Lang: "en"}, "", false},
		{quad.IRI("urn:x"), "", false},
		{nil, "", false},
	}
	for _, tt := range tests {
		got, err := namespace.ParseString(tt.v)
		if tt.ok != (err == nil) || got != tt.want {
			t.Errorf("ParseString(%#v) = %q, %v", tt.v, got, err)
		}
		if err != nil && !errors.Is(err, namespace.ErrInvalidLiteral) {
			t.Errorf("ParseString(%#v) error %v does not wrap ErrInvalidLiteral", tt.v, err)
		}
	}
}

func TestParseStatus(t *testing.T) {
	for _, s := range []string{namespace.StatusPending, namespace.StatusRunning, namespace.StatusCompleted, namespace.StatusFailed} {
		if !namespace.ValidStatus(s) {
			t.Errorf("ValidStatus(%q) = false", s)
		}
		got, err := namespace.ParseStatus(quad.String(s))
		if err != nil || got != s {
			t.Errorf("ParseStatus(%q) = %q, %v", s, got, err)
		}
	}
	if got := []string{namespace.StatusPending, namespace.StatusRunning, namespace.StatusCompleted, namespace.StatusFailed}; got[0] != "pending" || got[1] != "running" || got[2] != "completed" || got[3] != "failed" {
		t.Errorf("status words changed: %q", got)
	}
	for _, v := range []quad.Value{quad.String("Running"), quad.String(""), quad.String("done"), quad.IRI("running")} {
		if _, err := namespace.ParseStatus(v); !errors.Is(err, namespace.ErrInvalidLiteral) {
			t.Errorf("ParseStatus(%#v) = %v, want ErrInvalidLiteral", v, err)
		}
	}
}

func TestDateTime(t *testing.T) {
	loc := time.FixedZone("X", 5*3600)
	tests := []struct {
		in   time.Time
		want string
	}{
		{time.Date(2024, 3, 1, 12, 30, 0, 0, time.UTC), "2024-03-01T12:30:00Z"},
		{time.Date(2024, 3, 1, 12, 30, 0, 500_000_000, loc), "2024-03-01T07:30:00.5Z"},
		{time.Date(1999, 12, 31, 23, 59, 59, 1, time.UTC), "1999-12-31T23:59:59.000000001Z"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			v := namespace.DateTime(tt.in)
			if v.Type != namespace.XSDDateTime || string(v.Value) != tt.want {
				t.Fatalf("DateTime = %#v, want %q", v, tt.want)
			}
			back, err := namespace.ParseDateTime(v)
			if err != nil || !back.Equal(tt.in) {
				t.Fatalf("ParseDateTime(%#v) = %v, %v", v, back, err)
			}
		})
	}
	for _, v := range []quad.Value{
		quad.String("2024-03-01T12:30:00Z"),
		quad.TypedString{Value: "2024-03-01", Type: namespace.XSDDateTime},
		quad.TypedString{Value: "2024-03-01T12:30:00Z", Type: namespace.XSDString},
	} {
		if _, err := namespace.ParseDateTime(v); !errors.Is(err, namespace.ErrInvalidLiteral) {
			t.Errorf("ParseDateTime(%#v) = %v, want ErrInvalidLiteral", v, err)
		}
	}
}

func TestBool(t *testing.T) {
	for _, b := range []bool{true, false} {
		v := namespace.Bool(b)
		if got, err := namespace.ParseBool(v); err != nil || got != b {
			t.Errorf("ParseBool(Bool(%v)) = %v, %v", b, got, err)
		}
	}
	if v := namespace.Bool(true); v.Value != "true" || v.Type != namespace.XSDBoolean {
		t.Errorf("Bool(true) = %#v", v)
	}
	for lex, want := range map[string]bool{"1": true, "0": false} {
		if got, err := namespace.ParseBool(quad.TypedString{Value: quad.String(lex), Type: namespace.XSDBoolean}); err != nil || got != want {
			t.Errorf("ParseBool(%q) = %v, %v", lex, got, err)
		}
	}
	for _, v := range []quad.Value{quad.String("true"), quad.TypedString{Value: "TRUE", Type: namespace.XSDBoolean}} {
		if _, err := namespace.ParseBool(v); !errors.Is(err, namespace.ErrInvalidLiteral) {
			t.Errorf("ParseBool(%#v) = %v, want ErrInvalidLiteral", v, err)
		}
	}
}

func TestDecimal(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {0.75, "0.75"}, {-2.5, "-2.5"},
		{1e21, "1000000000000000000000"}, {1e-7, "0.0000001"},
	}
	for _, tt := range tests {
		v, err := namespace.Decimal(tt.in)
		if err != nil || string(v.Value) != tt.want || v.Type != namespace.XSDDecimal {
			t.Errorf("Decimal(%v) = %#v, %v; want %q", tt.in, v, err, tt.want)
			continue
		}
		if back, err := namespace.ParseDecimal(v); err != nil || back != tt.in {
			t.Errorf("ParseDecimal(%#v) = %v, %v", v, back, err)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := namespace.Decimal(f); !errors.Is(err, namespace.ErrInvalidLiteral) {
			t.Errorf("Decimal(%v) = %v, want ErrInvalidLiteral", f, err)
		}
	}
	for _, lex := range []string{"", ".", "+", "1e3", "1.2.3", "0x10", "NaN", "INF", " 1"} {
		v := quad.TypedString{Value: quad.String(lex), Type: namespace.XSDDecimal}
		if _, err := namespace.ParseDecimal(v); !errors.Is(err, namespace.ErrInvalidLiteral) {
			t.Errorf("ParseDecimal(%q) = %v, want ErrInvalidLiteral", lex, err)
		}
	}
	for lex, want := range map[string]float64{"+1.5": 1.5, ".5": 0.5, "5.": 5, "-0": 0, "007": 7} {
		v := quad.TypedString{Value: quad.String(lex), Type: namespace.XSDDecimal}
		if got, err := namespace.ParseDecimal(v); err != nil || got != want {
			t.Errorf("ParseDecimal(%q) = %v, %v; want %v", lex, got, err, want)
		}
	}
}

func TestConfidence(t *testing.T) {
	for _, c := range []float64{0, 0.5, 1} {
		v, err := namespace.Confidence(c)
		if err != nil {
			t.Fatalf("Confidence(%v): %v", c, err)
		}
		if got, err := namespace.ParseConfidence(v); err != nil || got != c {
			t.Errorf("ParseConfidence(%#v) = %v, %v", v, got, err)
		}
	}
	for _, c := range []float64{-0.1, 1.01, math.NaN(), math.Inf(1)} {
		if _, err := namespace.Confidence(c); !errors.Is(err, namespace.ErrInvalidLiteral) {
			t.Errorf("Confidence(%v) = %v, want ErrInvalidLiteral", c, err)
		}
	}
	if _, err := namespace.ParseConfidence(quad.TypedString{Value: "1.5", Type: namespace.XSDDecimal}); !errors.Is(err, namespace.ErrInvalidLiteral) {
		t.Errorf("ParseConfidence(1.5) = %v, want ErrInvalidLiteral", err)
	}
}

func TestDuration(t *testing.T) {
	tests := []struct {
		in   time.Duration
		want string
	}{
		{0, "PT0S"},
		{time.Second, "PT1S"},
		{90 * time.Second, "PT90S"},
		{1500 * time.Millisecond, "PT1.5S"},
		{time.Nanosecond, "PT0.000000001S"},
		{-time.Second, "-PT1S"},
		{2 * time.Hour, "PT7200S"},
		{math.MaxInt64, "PT9223372036.854775807S"},
		{math.MinInt64, "-PT9223372036.854775808S"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			v := namespace.Duration(tt.in)
			if string(v.Value) != tt.want || v.Type != namespace.XSDDuration {
				t.Fatalf("Duration(%v) = %#v, want %q", tt.in, v, tt.want)
			}
			if tt.in == math.MinInt64 {
				return // |MinInt64| overflows on parse; documented
			}
			back, err := namespace.ParseDuration(v)
			if err != nil || back != tt.in {
				t.Fatalf("ParseDuration(%q) = %v, %v", tt.want, back, err)
			}
		})
	}
}

func TestParseDuration(t *testing.T) {
	ok := map[string]time.Duration{
		"P1D":           24 * time.Hour,
		"P1DT2H":        26 * time.Hour,
		"PT1H30M":       90 * time.Minute,
		"PT1M0.25S":     time.Minute + 250*time.Millisecond,
		"P0D":           0,
		"-PT0.5S":       -500 * time.Millisecond,
		"PT1.50000000S": 1500 * time.Millisecond,
		// XSD 1.1 Part 2: duSecondFrag ::= (unsignedNoDecimalPtNumeral |
		// unsignedDecimalPtNumeral) 'S', and unsignedDecimalPtNumeral ::=
		// (unsignedNoDecimalPtNumeral '.' fracFrag?) | ('.' fracFrag).
		"PT.5S":     500 * time.Millisecond,
		"PT1.S":     time.Second,
		"-PT.25S":   -250 * time.Millisecond,
		"PT1M.5S":   time.Minute + 500*time.Millisecond,
		"P1DT2H3.S": 26*time.Hour + 3*time.Second,
	}
	for lex, want := range ok {
		got, err := namespace.ParseDuration(quad.TypedString{Value: quad.String(lex), Type: namespace.XSDDuration})
		if err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", lex, got, err, want)
		}
	}
	bad := []string{
		"", "P", "PT", "P1DT", "1S", "PT1", "P1Y", "P1M", "PT1D", "P1H", "PT1S1M", "PT1M1M",
		"PT.S", "PT.", "P.5D", "P1.D", "PT1.M", "PT.5M", "PT1..5S", "PT1.5.S", "PT1.5M", "PT0.0000000001S", "PT9223372037S", "P106752D", "--PT1S", "PT-1S",
		"PT99999999999999999999S",
	}
	for _, lex := range bad {
		if got, err := namespace.ParseDuration(quad.TypedString{Value: quad.String(lex), Type: namespace.XSDDuration}); !errors.Is(err, namespace.ErrInvalidLiteral) {
			t.Errorf("ParseDuration(%q) = %v, %v; want ErrInvalidLiteral", lex, got, err)
		}
	}
	if _, err := namespace.ParseDuration(quad.String("PT1S")); !errors.Is(err, namespace.ErrInvalidLiteral) {
		t.Errorf("ParseDuration(plain) = %v, want ErrInvalidLiteral", err)
	}
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"PT1S", "P1DT2H3M4.5S", "-PT0S", "PT9223372036.854775807S", "P1Y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, lex string) {
		d, err := namespace.ParseDuration(quad.TypedString{Value: quad.String(lex), Type: namespace.XSDDuration})
		if err != nil {
			return
		}
		back, err := namespace.ParseDuration(namespace.Duration(d))
		if err != nil || back != d {
			t.Fatalf("%q → %v → %q → %v, %v", lex, d, namespace.Duration(d).Value, back, err)
		}
	})
}
