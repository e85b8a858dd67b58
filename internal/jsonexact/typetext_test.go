package jsonexact_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/cortexgraph/cortex/internal/jsonexact"
)

// TestTypeText: a value of the wrong type is named by its JSON path, with
// what is wanted and what was given in JSON's terms, not Go's ("cannot
// unmarshal number into Go struct field rec.subject of type string").
func TestTypeText(t *testing.T) {
	type rec struct {
		Subject    *string  `json:"subject"`
		Confidence *float64 `json:"confidence"`
		Timeout    int64    `json:"timeout"`
		Level      uint8    `json:"level"`
		OK         bool     `json:"ok"`
		Members    []struct {
			Agent string `json:"agent"`
		} `json:"members"`
	}
	for _, tc := range []struct{ in, want string }{
		{`{"subject": 5}`, "subject: want a string, got a number"},
		{`{"subject": {}}`, "subject: want a string, got an object"},
		{`{"confidence": "high"}`, "confidence: want a number, got a string"},
		{`{"confidence": 1e400}`, "confidence: number 1e400 is out of range"},
		{`{"timeout": 1.5}`, "timeout: want a whole number, got number 1.5"},
		{`{"timeout": 99999999999999999999}`, "timeout: number 99999999999999999999 is out of range"},
		{`{"level": 300}`, "level: number 300 is out of range"},
		{`{"level": -1}`, "level: number -1 is out of range"},
		{`{"ok": "yes"}`, "ok: want true or false, got a string"},
		{`{"members": [{"agent": true}]}`, "members.agent: want a string, got a boolean"},
		{`{"members": {}}`, "members: want an array, got an object"},
		{`[1]`, "want an object, got an array"},
		{`5`, "want an object, got a number"},
	} {
		var r rec
		err := jsonexact.TypeText(jsonexact.Unmarshal([]byte(tc.in), &r))
		var te *json.UnmarshalTypeError
		if err == nil || err.Error() != tc.want || !errors.As(err, &te) {
			t.Errorf("%s: %v; want %q, an *json.UnmarshalTypeError", tc.in, err, tc.want)
		}
	}
	other := errors.New("other")
	if err := jsonexact.TypeText(other); err != other {
		t.Errorf("TypeText of another error: %v", err)
	}
	if err := jsonexact.TypeText(nil); err != nil {
		t.Errorf("TypeText(nil): %v", err)
	}
}
