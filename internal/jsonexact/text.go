package jsonexact

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
)

// Text returns err, an error of Unmarshal(data, v), in JSON's terms
// rather than Go's, placed in data:
//
//   - a value of the wrong type, as TypeText says it, named by its path
//     in data, array elements and map entries included, as a NameError's
//     Path writes it: "findings[2].confidence: want a number, got a
//     string" (encoding/json names "findingParams.findings.confidence",
//     the Go struct and field names, elements left out), a path longer
//     than 256 bytes shortened as a NameError's is;
//   - a syntax error, as SyntaxText says it.
//
// Any other error is returned as it is. The encoding/json error stays in
// the chain.
func Text(data []byte, v any, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Type != nil {
		path := TypePath(data, v, te)
		if head, tail, cut := elide(path); cut {
			path = head + "..." + tail
		}
		if msg := typeText(te, path); msg != "" {
			return &typeError{msg, te}
		}
		return err
	}
	return SyntaxText(data, err)
}

// TypePath returns the path in data of the value that te, an error of
// Unmarshal(data, v), refuses, as a NameError's Path writes it:
// "findings[2].confidence", `inputs["x"]`, "" for the top level. A type
// error of a value that decodes itself (a json.Unmarshaler) carries no
// offset: its path is that of the first such value of data that does not
// decode alone. If the value is not found, TypePath returns te.Field.
func TypePath(data []byte, v any, te *json.UnmarshalTypeError) string {
	if !json.Valid(data) {
		return te.Field
	}
	w := walker{data: data, at: int(te.Offset)}
	if te.Offset <= 0 {
		w.at, w.selfDecoding = -1, true
	}
	if err := w.value(reflect.TypeOf(v)); !errors.Is(err, errFound) {
		return te.Field
	}
	return joinPath(w.path)
}

// errFound is the walker's error when it finds the value it looks for
// (walker.at, walker.selfDecoding).
var errFound = errors.New("found")

// found reports whether the value of data[start:w.i], decoded into t, is
// the one the walker looks for.
func (w *walker) found(t reflect.Type, start int) bool {
	if w.at > 0 {
		// encoding/json's offset of a value of the wrong type is just after
		// a literal, or just after the { or [ of an object or array; the
		// innermost value that holds it is found first.
		return start < w.at && w.at <= w.i
	}
	if !w.selfDecoding || t == nil || t.Kind() == reflect.Interface {
		return false
	}
	if !decodesItself(t) && !decodesItself(reflect.PointerTo(t)) {
		return false
	}
	var te *json.UnmarshalTypeError
	return errors.As(json.Unmarshal(w.data[start:w.i], reflect.New(t).Interface()), &te)
}

// SyntaxText returns err, a *json.SyntaxError of data, or encoding/json's
// error of data cut short, placed and worded in JSON's terms: `line 2,
// column 9 (offset 17): invalid character 'x', want a value` for
// encoding/json's "invalid character 'x' looking for beginning of value",
// "line 1, column 15 (offset 14): the JSON ends too early" for its
// "unexpected end of JSON input". Columns count
// characters, from 1; the offset counts bytes, from 0. Any other error
// is returned as it is. The *json.SyntaxError stays in the chain.
func SyntaxText(data []byte, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return err
	}
	off := int(se.Offset) - 1 // the byte refused
	msg := se.Error()
	if msg == "unexpected end of JSON input" {
		off = len(data)
		msg = "the JSON ends too early"
		if len(strings.Trim(string(data), " \t\r\n")) == 0 {
			msg = "no JSON value, want one"
		}
	} else if rest, ok := strings.CutPrefix(msg, "invalid character "); ok {
		if i := strings.LastIndexByte(rest[:min(len(rest), 8)], '\''); i > 0 {
			char, context := rest[:i+1], strings.TrimPrefix(rest[i+1:], " ")
			msg = "invalid character " + char
			if char == "' '" && int(se.Offset) == len(data) && (len(data) == 0 || data[len(data)-1] != ' ') {
				// The space encoding/json reads after the end of data, to
				// end a number or find a literal cut short.
				off, msg = len(data), "the JSON ends too early"
			}
			if w := syntaxContext[context]; strings.HasPrefix(w, "in ") {
				msg += " " + w
			} else if w != "" {
				msg += ", " + w
			} else if context != "" {
				msg += " " + context
			}
		}
	}
	off = max(0, min(off, len(data)))
	line, col := 1, 1
	lineStart := 0
	for i := 0; i < off; i++ {
		if data[i] == '\n' {
			line++
			lineStart = i + 1
		}
	}
	col += utf8.RuneCount(data[lineStart:off])
	return &syntaxError{fmt.Sprintf("line %d, column %d (offset %d): %s", line, col, off, msg), se}
}

// syntaxContext words encoding/json's contexts of an invalid character in
// JSON's terms.
var syntaxContext = map[string]string{
	"looking for beginning of value":             "want a value",
	"looking for beginning of object key string": `want a member name (a string in "")`,
	"after object key":                           "want ':' after a member name",
	"after object key:value pair":                "want ',' or '}' after an object member",
	"after array element":                        "want ',' or ']' after an array element",
	"after top-level value":                      "want nothing after the value",
	"in string literal":                          `in a string (a control character must be escaped, as \n or \u0000)`,
	"in string escape code":                      `in a string: not an escape after \`,
	`in \u hexadecimal character escape`:         `in a string: want 4 hexadecimal digits after \u`,
	"in numeric literal":                         "in a number",
	"exceeded max depth":                         "nested more than 10000 arrays and objects deep",
	"after decimal point in numeric literal":     "in a number: want a digit after the decimal point",
	"in exponent of numeric literal":             "in a number: want a digit in the exponent",
	"in literal true (expecting 'r')":            "want true",
	"in literal true (expecting 'u')":            "want true",
	"in literal true (expecting 'e')":            "want true",
	"in literal false (expecting 'a')":           "want false",
	"in literal false (expecting 'l')":           "want false",
	"in literal false (expecting 's')":           "want false",
	"in literal false (expecting 'e')":           "want false",
	"in literal null (expecting 'u')":            "want null",
	"in literal null (expecting 'l')":            "want null",
}

// syntaxError is SyntaxText's error.
type syntaxError struct {
	msg string
	se  *json.SyntaxError
}

func (e *syntaxError) Error() string { return e.msg }
func (e *syntaxError) Unwrap() error { return e.se }
