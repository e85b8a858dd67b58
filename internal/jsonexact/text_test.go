package jsonexact_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"testing"

	"github.com/cortexgraph/cortex/internal/jsonexact"
)

// level decodes itself, refusing anything but a number as a value of the
// wrong type, without an offset (as a json.Unmarshaler's error has none).
type level int

func (l *level) UnmarshalJSON(b []byte) error {
	n, err := strconv.Atoi(string(b))
	if err != nil {
		return &json.UnmarshalTypeError{Value: "string", Type: reflect.TypeFor[int]()}
	}
	*l = level(n)
	return nil
}

// TestText: a value of the wrong type is named by its path in the data,
// elements and map entries included, whatever Go names it (fields of
// embedded structs, a type that decodes itself); a syntax error by its
// line, column and offset, in JSON's words.
func TestText(t *testing.T) {
	type Common struct {
		Subject string `json:"subject"`
	}
	type finding struct {
		Common
		Confidence float64 `json:"confidence"`
		Level      *level  `json:"level"`
	}
	type rec struct {
		Findings []finding         `json:"findings"`
		Inputs   map[string][]bool `json:"inputs"`
		Any      any               `json:"any"`
		Team     string            `json:"team"`
	}
	for _, tc := range []struct{ in, want string }{
		{`{"findings":[{},{},{"confidence":"x"}]}`, "findings[2].confidence: want a number, got a string"},
		{`{"findings":[{"subject":"s"},{"subject":5}]}`, "findings[1].subject: want a string, got a number"},
		{`{"findings":[{"level":1},{"level":"high"}]}`, "findings[1].level: want a whole number, got a string"},
		{`{"findings":{}}`, "findings: want an array, got an object"},
		{`{"findings":[[]]}`, "findings[0]: want an object, got an array"},
		{`{"inputs":{"a":[true],"b c":[true,1]}}`, `inputs["b c"][1]: want true or false, got a number`},
		{`{"any":{"x":[1]},"team":{"a":[1,2]}}`, "team: want a string, got an object"},
		{`{"findings":[{"confidence":1e400}]}`, "findings[0].confidence: number 1e400 is out of range"},
		{`[1]`, "want an object, got an array"},
		{"{\n  \"team\": x}", "line 2, column 11 (offset 12): invalid character 'x', want a value"},
		{`{"team":"a",}`, `line 1, column 13 (offset 12): invalid character '}', want a member name (a string in "")`},
		{`{"team" "a"}`, "line 1, column 9 (offset 8): invalid character '\"', want ':' after a member name"},
		{`["é" 1]`, "line 1, column 6 (offset 6): invalid character '1', want ',' or ']' after an array element"},
		{`{"team":"a"`, "line 1, column 12 (offset 11): the JSON ends too early"},
		{`{} {}`, "line 1, column 4 (offset 3): invalid character '{', want nothing after the value"},
		{`{"team":tru}`, "line 1, column 12 (offset 11): invalid character '}', want true"},
		{` `, "line 1, column 2 (offset 1): no JSON value, want one"},
	} {
		var r rec
		err := jsonexact.Text([]byte(tc.in), &r, jsonexact.Unmarshal([]byte(tc.in), &r))
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		if err == nil || err.Error() != tc.want || !errors.As(err, &te) && !errors.As(err, &se) {
			t.Errorf("%s: %v; want %q, an encoding/json error in the chain", tc.in, err, tc.want)
		}
	}
	other := errors.New("other")
	if err := jsonexact.Text(nil, nil, other); err != other {
		t.Errorf("Text of another error: %v", err)
	}
	if err := jsonexact.Text(nil, nil, nil); err != nil {
		t.Errorf("Text(nil): %v", err)
	}
}
