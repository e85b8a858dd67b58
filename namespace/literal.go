package namespace

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"
)

// Literal helpers give every Cortex writer one encoding per datatype: plain
// strings are quad.String, everything else quad.TypedString with the
// datatypes of vocab.go. The parsers accept exactly the values a writer of
// the matching helper would store (plus, for strings, a TypedString typed
// xsd:string) and fail with an error wrapping ErrInvalidLiteral otherwise.

// String returns s as a plain literal (xsd:string).
func String(s string) quad.String { return quad.String(s) }

// ParseString returns the lexical form of a plain literal: a quad.String or
// a quad.TypedString typed xsd:string.
func ParseString(v quad.Value) (string, error) {
	switch v := v.(type) {
	case quad.String:
		return string(v), nil
	case quad.TypedString:
		if v.Type == XSDString {
			return string(v.Value), nil
		}
	}
	return "", literalErr(v, "string")
}

// Status words are the only valid values of TeamStatus and MemberStatus.
var statuses = []string{StatusPending, StatusRunning, StatusCompleted, StatusFailed}

// ValidStatus reports whether s is one of pending, running, completed,
// failed (case-sensitive).
func ValidStatus(s string) bool {
	for _, w := range statuses {
		if s == w {
			return true
		}
	}
	return false
}

// ParseStatus returns the status word of a TeamStatus or MemberStatus value.
func ParseStatus(v quad.Value) (string, error) {
	s, err := ParseString(v)
	if err != nil || !ValidStatus(s) {
		return "", literalErr(v, "status (pending, running, completed or failed)")
	}
	return s, nil
}

// DateTime returns t as an xsd:dateTime literal in UTC with nanosecond
// precision (RFC 3339, trailing zeros of the fraction dropped).
func DateTime(t time.Time) quad.TypedString {
	return quad.TypedString{Value: quad.String(t.UTC().Format(time.RFC3339Nano)), Type: XSDDateTime}
}

// ParseDateTime parses an xsd:dateTime literal with a time zone, as written
// by DateTime.
func ParseDateTime(v quad.Value) (time.Time, error) {
	ts, ok := v.(quad.TypedString)
	if !ok || ts.Type != XSDDateTime {
		return time.Time{}, literalErr(v, "xsd:dateTime")
	}
	t, err := time.Parse(time.RFC3339Nano, string(ts.Value))
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: %w", literalErr(v, "xsd:dateTime"), err)
	}
	return t, nil
}

// Bool returns b as an xsd:boolean literal ("true" or "false").
func Bool(b bool) quad.TypedString {
	return quad.TypedString{Value: quad.String(strconv.FormatBool(b)), Type: XSDBoolean}
}

// ParseBool parses an xsd:boolean literal ("true", "false", "1", "0").
func ParseBool(v quad.Value) (bool, error) {
	ts, ok := v.(quad.TypedString)
	if ok && ts.Type == XSDBoolean {
		switch ts.Value {
		case "true", "1":
			return true, nil
		case "false", "0":
			return false, nil
		}
	}
	return false, literalErr(v, "xsd:boolean")
}

// Decimal returns f as an xsd:decimal literal in shortest form without an
// exponent ("0.75", "1"). NaN and infinities have no xsd:decimal form and
// fail with ErrInvalidLiteral.
func Decimal(f float64) (quad.TypedString, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return quad.TypedString{}, fmt.Errorf("decimal %v: %w: not a finite number", f, ErrInvalidLiteral)
	}
	if f == 0 {
		f = 0 // drop the sign of -0
	}
	return quad.TypedString{Value: quad.String(strconv.FormatFloat(f, 'f', -1, 64)), Type: XSDDecimal}, nil
}

// ParseDecimal parses an xsd:decimal literal: optional sign, digits, an
// optional '.' and fraction digits, no exponent.
func ParseDecimal(v quad.Value) (float64, error) {
	ts, ok := v.(quad.TypedString)
	if !ok || ts.Type != XSDDecimal || !decimalLexical(string(ts.Value)) {
		return 0, literalErr(v, "xsd:decimal")
	}
	f, err := strconv.ParseFloat(string(ts.Value), 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", literalErr(v, "xsd:decimal"), err)
	}
	return f, nil
}

func decimalLexical(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	digits, dot := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}

// Confidence returns c as an xsd:decimal, checking that it lies in [0, 1].
func Confidence(c float64) (quad.TypedString, error) {
	if !(c >= 0 && c <= 1) {
		return quad.TypedString{}, fmt.Errorf("confidence %v: %w: must be in [0, 1]", c, ErrInvalidLiteral)
	}
	return Decimal(c)
}

// ParseConfidence parses an xsd:decimal in [0, 1].
func ParseConfidence(v quad.Value) (float64, error) {
	c, err := ParseDecimal(v)
	if err != nil {
		return 0, err
	}
	if c < 0 || c > 1 {
		return 0, literalErr(v, "confidence in [0, 1]")
	}
	return c, nil
}

// Duration returns d as an xsd:duration literal using seconds only, e.g.
// "PT90S", "PT0.5S", "-PT1S", "PT0S".
func Duration(d time.Duration) quad.TypedString {
	var b strings.Builder
	u := uint64(d)
	if d < 0 {
		b.WriteByte('-')
		u = -u
	}
	b.WriteString("PT")
	b.WriteString(strconv.FormatUint(u/1e9, 10))
	if frac := u % 1e9; frac != 0 {
		b.WriteByte('.')
		b.WriteString(strings.TrimRight(fmt.Sprintf("%09d", frac), "0"))
	}
	b.WriteByte('S')
	return quad.TypedString{Value: quad.String(b.String()), Type: XSDDuration}
}

// ParseDuration parses an xsd:duration literal made of days, hours, minutes
// and (fractional) seconds, such as "PT90S", "P1DT2H" or "-PT0.5S"; the
// seconds are an XSD 1.1 decimal numeral, so "PT.5S" and "PT1.S" are valid
// too. Years and months have no fixed length and are rejected, as are
// values that overflow time.Duration or need more than nanosecond
// precision.
func ParseDuration(v quad.Value) (time.Duration, error) {
	ts, ok := v.(quad.TypedString)
	if !ok || ts.Type != XSDDuration {
		return 0, literalErr(v, "xsd:duration")
	}
	d, ok := parseDayTimeDuration(string(ts.Value))
	if !ok {
		return 0, literalErr(v, "xsd:duration in days, hours, minutes and seconds")
	}
	return d, nil
}

func parseDayTimeDuration(s string) (time.Duration, bool) {
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	s, ok := strings.CutPrefix(s, "P")
	if !ok || s == "" {
		return 0, false
	}
	var total uint64 // nanoseconds
	add := func(n, unit uint64) bool {
		if n > math.MaxInt64/unit {
			return false
		}
		total += n * unit
		return total <= math.MaxInt64
	}
	inTime, seen := false, false
	order := 0 // D=1, H=2, M=3, S=4; designators must increase
	for s != "" {
		if s[0] == 'T' {
			if inTime || len(s) == 1 {
				return 0, false
			}
			inTime, s = true, s[1:]
			continue
		}
		i := 0
		for i < len(s) && ('0' <= s[i] && s[i] <= '9') {
			i++
		}
		// Seconds are an XSD decimal numeral without a sign: digits,
		// a '.' and digits, either side of the '.' possibly empty but
		// not both ("1.", ".5"; duSecondFrag, unsignedDecimalPtNumeral).
		intPart := s[:i]
		fracPart, dot := "", false
		if i < len(s) && s[i] == '.' {
			j := i + 1
			for j < len(s) && ('0' <= s[j] && s[j] <= '9') {
				j++
			}
			fracPart, dot = s[i+1:j], true
			i = j
		}
		if intPart == "" && fracPart == "" || i == len(s) {
			return 0, false
		}
		var n uint64
		if intPart != "" {
			var err error
			if n, err = strconv.ParseUint(intPart, 10, 64); err != nil {
				return 0, false
			}
		}
		des := s[i]
		s = s[i+1:]
		var unit uint64
		var o int
		switch {
		case des == 'D' && !inTime:
			unit, o = uint64(24*time.Hour), 1
		case des == 'H' && inTime:
			unit, o = uint64(time.Hour), 2
		case des == 'M' && inTime:
			unit, o = uint64(time.Minute), 3
		case des == 'S' && inTime:
			unit, o = uint64(time.Second), 4
		default:
			return 0, false
		}
		if o <= order || dot && des != 'S' {
			return 0, false
		}
		order, seen = o, true
		if !add(n, unit) {
			return 0, false
		}
		if fracPart != "" {
			if f := strings.TrimRight(fracPart, "0"); len(f) > 9 {
				return 0, false
			} else if f != "" {
				ns, _ := strconv.ParseUint(f+strings.Repeat("0", 9-len(f)), 10, 64)
				if !add(ns, 1) {
					return 0, false
				}
			}
		}
	}
	if !seen || inTime && order < 2 {
		return 0, false
	}
	if neg {
		return -time.Duration(total), true
	}
	return time.Duration(total), true
}

func literalErr(v quad.Value, want string) error {
	return fmt.Errorf("%w %s: want %s", ErrInvalidLiteral, describe(v), want)
}

// describe renders a value for error messages without trusting its String.
func describe(v quad.Value) string {
	switch v := v.(type) {
	case nil:
		return "<nil>"
	case quad.IRI:
		return ntIRI(v)
	case quad.String:
		return strconv.Quote(string(v))
	case quad.TypedString:
		return strconv.Quote(string(v.Value)) + "^^" + ntIRI(v.Type)
	case quad.LangString:
		return strconv.Quote(string(v.Value)) + "@" + v.Lang
	case quad.BNode:
		return "_:" + string(v)
	}
	return fmt.Sprintf("%T", v)
}
