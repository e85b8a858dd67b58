package builtin_test

import (
	"errors"
	"testing"

	"github.com/cortexgraph/cortex/cortex/sparql/builtin"
)

// ResolveIRI delegates to cortex/internal/iri, whose tests hold all the
// RFC 3986 §5.4 examples; these check the delegation and strict parsing.
func TestResolveIRI_RFC3986(t *testing.T) {
	const base = "http://a/b/c/d;p?q"
	tests := []struct{ ref, want string }{
		{"g:h", "g:h"},
		{"g", "http://a/b/c/g"},
		{"//g", "http://g"},
		{"?y", "http://a/b/c/d;p?y"},
		{"#s", "http://a/b/c/d;p?q#s"},
		{"", "http://a/b/c/d;p?q"},
		{"../../../g", "http://a/g"},
		{"g;x=1/../y", "http://a/b/c/y"},
		{"g?y/../x", "http://a/b/c/g?y/../x"},
		{"http:g", "http:g"},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			got, err := builtin.ResolveIRI(base, tt.ref)
			if err != nil || got != tt.want {
				t.Fatalf("ResolveIRI(%q) = %q, %v; want %q", tt.ref, got, err, tt.want)
			}
		})
	}
}

func TestResolveIRI_Errors(t *testing.T) {
	tests := []struct{ base, ref string }{
		{"", "relative"},
		{"relative/base", "x"},
		{"http://a/", "has space"},
		{"http://a/", "a<b"},
		{"http://a/", "a\\b"},
		{"http://a/", "a\x01"},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			if got, err := builtin.ResolveIRI(tt.base, tt.ref); !errors.Is(err, builtin.ErrType) {
				t.Fatalf("ResolveIRI(%q, %q) = %q, %v; want type error", tt.base, tt.ref, got, err)
			}
		})
	}
	// An absolute IRI needs no base.
	if got, err := builtin.ResolveIRI("", "http://x/a/./b"); err != nil || got != "http://x/a/b" {
		t.Fatalf("absolute without base = %q, %v", got, err)
	}
}
