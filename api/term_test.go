package api_test

import (
	"errors"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/api"
)

func TestParseTerm(t *testing.T) {
	prefixes := map[string]string{"ex": "http://ex.org/"}
	for _, tc := range []struct {
		in   string
		want quad.Value
		err  error
	}{
		{"<http://a/b>", quad.IRI("http://a/b"), nil},
		{`"high"@en`, quad.LangString{Value: "high", Lang: "en"}, nil},
		{"ex:main.go", quad.IRI("http://ex.org/main.go"), nil},
		{"http://x/y", quad.IRI("http://x/y"), nil},
		{"urn:x:y", quad.IRI("urn:x:y"), nil},
		{"plain words", quad.String("plain words"), nil},
		{"nope:x", nil, api.ErrInvalid},
		{"", nil, api.ErrSyntax},
		{`"unterminated`, nil, nil}, // a syntax error of rdfio
	} {
		got, err := api.ParseTerm(tc.in, prefixes)
		switch {
		case tc.want != nil && (err != nil || got != tc.want):
			t.Errorf("ParseTerm(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		case tc.want == nil && err == nil:
			t.Errorf("ParseTerm(%q) = %v, want an error", tc.in, got)
		case tc.err != nil && !errors.Is(err, tc.err):
			t.Errorf("ParseTerm(%q): %v, want %v", tc.in, err, tc.err)
		}
	}
}
