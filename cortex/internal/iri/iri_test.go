package iri_test

import (
	"errors"
	"testing"

	"github.com/cortexgraph/cortex/cortex/internal/iri"
)

// TestResolve_RFC3986 checks every example of RFC 3986 §5.4.1 (normal) and
// §5.4.2 (abnormal, strict parser).
func TestResolve_RFC3986(t *testing.T) {
	const base = "http://a/b/c/d;p?q"
	tests := []struct{ ref, want string }{
		// §5.4.1
		{"g:h", "g:h"},
		{"g", "http://a/b/c/g"},
		{"./g", "http://a/b/c/g"},
		{"g/", "http://a/b/c/g/"},
		{"/g", "http://a/g"},
		{"//g", "http://g"},
		{"?y", "http://a/b/c/d;p?y"},
		{"g?y", "http://a/b/c/g?y"},
		{"#s", "http://a/b/c/d;p?q#s"},
		{"g#s", "http://a/b/c/g#s"},
		{"g?y#s", "http://a/b/c/g?y#s"},
		{";x", "http://a/b/c/;x"},
		{"g;x", "http://a/b/c/g;x"},
		{"g;x?y#s", "http://a/b/c/g;x?y#s"},
		{"", "http://a/b/c/d;p?q"},
		{".", "http://a/b/c/"},
		{"./", "http://a/b/c/"},
		{"..", "http://a/b/"},
		{"../", "http://a/b/"},
		{"../g", "http://a/b/g"},
		{"../..", "http://a/"},
		{"../../", "http://a/"},
		{"../../g", "http://a/g"},
		// §5.4.2
		{"../../../g", "http://a/g"},
		{"../../../../g", "http://a/g"},
		{"/./g", "http://a/g"},
		{"/../g", "http://a/g"},
		{"g.", "http://a/b/c/g."},
		{".g", "http://a/b/c/.g"},
		{"g..", "http://a/b/c/g.."},
		{"..g", "http://a/b/c/..g"},
		{"./../g", "http://a/b/g"},
		{"./g/.", "http://a/b/c/g/"},
		{"g/./h", "http://a/b/c/g/h"},
		{"g/../h", "http://a/b/c/h"},
		{"g;x=1/./y", "http://a/b/c/g;x=1/y"},
		{"g;x=1/../y", "http://a/b/c/y"},
		{"g?y/./x", "http://a/b/c/g?y/./x"},
		{"g?y/../x", "http://a/b/c/g?y/../x"},
		{"g#s/./x", "http://a/b/c/g#s/./x"},
		{"g#s/../x", "http://a/b/c/g#s/../x"},
		{"http:g", "http:g"}, // strict
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			got, err := iri.Resolve(base, tt.ref)
			if err != nil || got != tt.want {
				t.Fatalf("Resolve(%q, %q) = %q, %v; want %q", base, tt.ref, got, err, tt.want)
			}
		})
	}
}

func TestResolve_Bases(t *testing.T) {
	tests := []struct{ name, base, ref, want string }{
		{"URNBaseFragment", "urn:x:y", "#frag", "urn:x:y#frag"},
		{"URNBaseRelativePath", "urn:x:y", "z", "urn:z"},
		{"AuthorityWithoutPath", "http://a", "g", "http://a/g"},
		{"AuthorityWithoutPathQuery", "http://a", "?q", "http://a?q"},
		{"EmptyAuthority", "file:///d/f.ttl", "../g", "file:///g"},
		{"BaseWithFragment", "http://a/b#f", "", "http://a/b"},
		{"AbsoluteNeedsNoBase", "", "http://x/a/./b", "http://x/a/b"},
		{"AbsoluteIgnoresRelativeBase", "rel", "http://x/../b?q/../#f/..", "http://x/b?q/../#f/.."},
		// Without an authority a path must not start with "//" (§3.3), or
		// it would read as one: "/." keeps the path and its meaning.
		{"NoAuthorityDoubleSlashPath", "file:/.//d/e.ttl", "rel", "file:/.//d/rel"},
		{"NoAuthorityRootlessDoubleSlash", "file:.///d/e.ttl", "rel", "file:/.//d/rel"},
		{"NoAuthorityAbsolutePathRef", "urn:a", "/.//x", "urn:/.//x"},
		{"AuthorityKeepsDoubleSlash", "http://h/a", "/.//x", "http://h//x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := iri.Resolve(tt.base, tt.ref)
			if err != nil || got != tt.want {
				t.Fatalf("Resolve(%q, %q) = %q, %v; want %q", tt.base, tt.ref, got, err, tt.want)
			}
		})
	}
}

func TestResolve_Errors(t *testing.T) {
	tests := []struct {
		name, base, ref string
		want            error
	}{
		{"NoBase", "", "relative", iri.ErrNoBase},
		{"NoBaseEmptyRef", "", "", iri.ErrNoBase},
		{"RelativeBase", "relative/base", "x", iri.ErrRelativeBase},
		{"SchemeAfterSlash", "a/b:c", "x", iri.ErrRelativeBase},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := iri.Resolve(tt.base, tt.ref); !errors.Is(err, tt.want) {
				t.Fatalf("Resolve(%q, %q) = %q, %v; want %v", tt.base, tt.ref, got, err, tt.want)
			}
		})
	}
}

// TestResolveOrKeep checks the policy around Resolve: absolute references
// are kept as written, and references stay relative when there is no usable
// base. (These were the cases of the SPARQL parser's own resolveIRI.)
func TestResolveOrKeep(t *testing.T) {
	tests := []struct{ name, base, ref, want string }{
		{"Relative", "http://a/b/c/d;p?q", "../g?y#s", "http://a/b/g?y#s"},
		{"Empty", "http://a/b/c/d;p?q", "", "http://a/b/c/d;p?q"},
		{"URNBase", "urn:x:y", "#frag", "urn:x:y#frag"},
		{"FileBase", "file:///d/f.ttl", "../g", "file:///g"},
		{"AbsoluteNotNormalised", "http://a/b/", "http://x/a/./b", "http://x/a/./b"},
		{"AbsoluteWithoutBase", "", "http://x/a/../b", "http://x/a/../b"},
		{"NoBase", "", "rel", "rel"},
		{"RelativeBase", "rel/base", "x", "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := iri.ResolveOrKeep(tt.base, tt.ref); got != tt.want {
				t.Errorf("ResolveOrKeep(%q, %q) = %q, want %q", tt.base, tt.ref, got, tt.want)
			}
		})
	}
}

func TestHasScheme(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"http://a", true},
		{"g:h", true},
		{"a+b-c.d1:x", true},
		{"urn:", true},
		{"", false},
		{":x", false},
		{"1a:x", false},
		{"+a:x", false},
		{"a_b:x", false},
		{"noscheme", false},
		{"a/b:c", false},
		{"a?b:c", false},
		{"a#b:c", false},
		{"é:x", false},
	}
	for _, tt := range tests {
		t.Run(tt.s, func(t *testing.T) {
			if got := iri.HasScheme(tt.s); got != tt.want {
				t.Errorf("HasScheme(%q) = %v, want %v", tt.s, got, tt.want)
			}
			if got := iri.HasScheme([]byte(tt.s)); got != tt.want {
				t.Errorf("HasScheme([]byte(%q)) = %v, want %v", tt.s, got, tt.want)
			}
		})
	}
}

// TestRemoveDotSegments uses the examples of RFC 3986 §5.2.4 and a few edges.
func TestRemoveDotSegments(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/a/b/c/./../../g", "/a/g"},
		{"mid/content=5/../6", "mid/6"},
		{"", ""},
		{"/", "/"},
		{".", ""},
		{"..", ""},
		{"/.", "/"},
		{"/..", "/"},
		{"a/..", "/"},
		{"../a", "a"},
		{"/a/b/..", "/a/"},
		{"/a.b/c", "/a.b/c"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := iri.RemoveDotSegments(tt.in); got != tt.want {
				t.Errorf("RemoveDotSegments(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzResolve checks that Resolve never panics, that a relative reference
// resolved against an absolute base gives an absolute IRI, and that resolving
// is idempotent: the result resolves to itself.
func FuzzResolve(f *testing.F) {
	f.Add("http://a/b/c/d;p?q", "../g?y#s")
	f.Add("urn:x:y", "#f")
	f.Add("", "rel")
	f.Add("file:///tmp/x.ttl", "//h/./p/..")
	f.Fuzz(func(t *testing.T, base, ref string) {
		got, err := iri.Resolve(base, ref)
		if err != nil {
			if iri.HasScheme(ref) || iri.HasScheme(base) {
				t.Fatalf("Resolve(%q, %q): unexpected %v", base, ref, err)
			}
			return
		}
		if !iri.HasScheme(got) {
			t.Fatalf("Resolve(%q, %q) = %q, not absolute", base, ref, got)
		}
		if again, err := iri.Resolve(base, got); err != nil || again != got {
			t.Fatalf("Resolve(%q, %q) = %q, %v; want it unchanged", base, got, again, err)
		}
	})
}

func BenchmarkResolve(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := iri.Resolve("http://example.org/a/b/c", "../d/./e?q#f"); err != nil {
			b.Fatal(err)
		}
	}
}
