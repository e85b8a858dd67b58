package parser

import "testing"

// TestResolveIRI checks the parser's policy around iri.Resolve (which has the RFC 3986 §5.4 examples):
// absolute references are kept as written, and references stay relative when there is no usable base.
func TestResolveIRI(t *testing.T) {
	tests := []struct{ name, base, ref, want string }{
		{"Relative", "http://a/b/c/d;p?q", "../g?y#s", "http://a/b/g?y#s"},
		{"Empty", "http://a/b/c/d;p?q", "", "http://a/b/c/d;p?q"},
		{"URNBase", "urn:x:y", "#frag", "urn:x:y#frag"},
		{"AbsoluteNotNormalised", "http://a/b/", "http://x/a/./b", "http://x/a/./b"},
		{"NoBase", "", "rel", "rel"},
		{"RelativeBase", "rel/base", "x", "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := resolveIRI(tt.base, tt.ref); got != tt.want {
				t.Errorf("resolveIRI(%q, %q) = %q, want %q", tt.base, tt.ref, got, tt.want)
			}
		})
	}
}
