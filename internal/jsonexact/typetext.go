package jsonexact

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// TypeText returns err, an error of Unmarshal, with encoding/json's
// wording of a value of the wrong type, which names Go's types ("json:
// cannot unmarshal number into Go struct field findingRecord.subject of
// type string"), put in JSON's terms: "subject: want a string, got a
// number", "confidence: number 1e400 is out of range". Any other error
// is returned as it is. The *json.UnmarshalTypeError stays in the chain.
func TypeText(err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Type == nil {
		return err
	}
	if msg := typeText(te, te.Field); msg != "" {
		return &typeError{msg, te}
	}
	return err
}

// typeText is the message of te in JSON's terms, naming the value by path
// ("" for the top level); "" for a type that decodes itself or takes any
// value.
func typeText(te *json.UnmarshalTypeError, path string) string {
	want := wantOf(te.Type)
	if want == "" {
		return ""
	}
	field := ""
	if path != "" {
		field = path + ": "
	}
	if lit, ok := strings.CutPrefix(te.Value, "number "); ok && numberOutOfRange(te.Type, lit) {
		if len(lit) > 64 { // a JSON number: ASCII
			lit = lit[:30] + "..." + lit[len(lit)-30:]
		}
		return fmt.Sprintf("%snumber %s is out of range", field, lit)
	}
	got := te.Value
	switch got {
	case "number", "string", "bool":
		got = "a " + strings.Replace(got, "bool", "boolean", 1)
	case "object", "array":
		got = "an " + got
	}
	return fmt.Sprintf("%swant %s, got %s", field, want, got)
}

// typeError is TypeText's error.
type typeError struct {
	msg string
	te  *json.UnmarshalTypeError
}

func (e *typeError) Error() string { return e.msg }
func (e *typeError) Unwrap() error { return e.te }

// wantOf says what JSON value decodes into t ("" for a type that decodes
// itself or takes any value).
func wantOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return ""
}

// numberOutOfRange reports whether lit, a JSON number refused for t, is
// of t's form but too large (or too small, or negative for an unsigned
// t), rather than of the wrong form (1.5 for an integer).
func numberOutOfRange(t reflect.Type, lit string) bool {
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		return true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		_, err := strconv.ParseInt(lit, 10, 64)
		return err == nil || errors.Is(err, strconv.ErrRange)
	}
	return false
}
