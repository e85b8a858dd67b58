package namespace_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/namespace"
)

// TestValidName checks ValidName and ValidateName against NameRule read as
// a regular expression, on names at the edges of the rule.
func TestValidName(t *testing.T) {
	rule := regexp.MustCompile(namespace.NameRule)
	names := []string{
		"", "a", "z", "`", "{", "A", "Z", "0", "-", "a0", "a9", "a-", "a/", "a:", "a`", "a{", "aA",
		"a" + strings.Repeat("-", 62), "a" + strings.Repeat("z", 62), "a" + strings.Repeat("9", 63),
		"a\n", "a\x00", "a\xff", "é", "aé", "a b",
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			want := rule.MatchString(name)
			if got := namespace.ValidName(name); got != want {
				t.Errorf("ValidName(%q) = %v, want %v (NameRule %s)", name, got, want, namespace.NameRule)
			}
			if got := namespace.ValidateName(name) == nil; got != want {
				t.Errorf("ValidateName(%q) == nil is %v, want %v", name, got, want)
			}
		})
	}
}

func TestValidateName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"a", true},
		{"acme", true},
		{"a-b", true},
		{"team-42", true},
		{"a-", true},
		{"a--b", true},
		{namespace.Default, true},
		{"a" + strings.Repeat("b", 62), true},
		{"a" + strings.Repeat("b", 63), false},
		{"", false},
		{"Acme", false},
		{"aCme", false},
		{"1abc", false},
		{"-abc", false},
		{"a_b", false},
		{"a.b", false},
		{"a b", false},
		{"a:b", false},
		{"a/b", false},
		{"é", false},
		{"aé", false},
		{"a\x00", false},
		{"a\xff", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := namespace.ValidateName(tt.name)
			if tt.ok {
				if err != nil {
					t.Fatalf("ValidateName(%q) = %v, want nil", tt.name, err)
				}
				return
			}
			if !errors.Is(err, namespace.ErrInvalidName) {
				t.Fatalf("ValidateName(%q) = %v, want ErrInvalidName", tt.name, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, "^[a-z][a-z0-9-]{0,62}$") {
				t.Errorf("error %q does not state the rule", msg)
			}
			if tt.name != "" && !strings.Contains(msg, tt.name[:1]) {
				t.Errorf("error %q does not name the input", msg)
			}
			if _, err := namespace.New(tt.name); !errors.Is(err, namespace.ErrInvalidName) {
				t.Errorf("New(%q) = %v, want ErrInvalidName", tt.name, err)
			}
		})
	}
}

func TestNew_Default(t *testing.T) {
	ns, err := namespace.New("acme")
	if err != nil {
		t.Fatal(err)
	}
	if got := ns.Name(); got != "acme" {
		t.Errorf("Name() = %q", got)
	}
	if got := ns.Base(); got != "urn:cortex:acme" {
		t.Errorf("Base() = %q", got)
	}
	if got := ns.Prefix(); got != "urn:cortex:acme:" {
		t.Errorf("Prefix() = %q", got)
	}
	if got := ns.String(); got != "acme" {
		t.Errorf("String() = %q", got)
	}
}

func TestNew_WithBase(t *testing.T) {
	tests := []struct {
		base   string
		prefix string // empty: invalid
	}{
		{"urn:cortex:acme", "urn:cortex:acme:"},
		{"urn:x:", "urn:x:"},
		{"http://example.org/cortex", "http://example.org/cortex:"},
		{"https://example.org/cortex/", "https://example.org/cortex/"},
		{"https://example.org/cortex#", "https://example.org/cortex#"},
		{"https://example.org/c%C3%A9", "https://example.org/c%C3%A9:"},
		{"https://example.org/café", "https://example.org/café:"},
		{"tag:example.org,2024:cortex", "tag:example.org,2024:cortex:"},
		{"", ""},
		{"cortex", ""},
		{":cortex", ""},
		{"1urn:x", ""},
		{"ur_n:x", ""},
		{"urn:", ""},
		{"urn:a b", ""},
		{"urn:a<b", ""},
		{"urn:a>b", ""},
		{"urn:a\"b", ""},
		{"urn:a{b", ""},
		{"urn:a|b", ""},
		{"urn:a^b", ""},
		{"urn:a`b", ""},
		{"urn:a\\b", ""},
		{"urn:a\nb", ""},
		{"urn:a\x7fb", ""},
		{"http://x/?q=1", ""},
		{"http://x/#a#b", ""},
		{"http://x/%zz", ""},
		{"http://x/%4", ""},
		{"http://x/\xff", ""},
	}
	for _, tt := range tests {
		t.Run(tt.base, func(t *testing.T) {
			ns, err := namespace.New("acme", namespace.WithBase(tt.base))
			if tt.prefix == "" {
				if !errors.Is(err, namespace.ErrInvalidBase) {
					t.Fatalf("New(WithBase(%q)) = %v, want ErrInvalidBase", tt.base, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("New(WithBase(%q)) = %v", tt.base, err)
			}
			if ns.Base() != tt.base || ns.Prefix() != tt.prefix {
				t.Errorf("Base, Prefix = %q, %q; want %q, %q", ns.Base(), ns.Prefix(), tt.base, tt.prefix)
			}
			iri := ns.Team("t")
			if want := tt.prefix + "team:t"; string(iri) != want {
				t.Errorf("Team = %q, want %q", iri, want)
			}
			ref, err := ns.Parse(iri)
			if err != nil || ref.Kind != namespace.KindTeam || ref.Team != "t" {
				t.Errorf("Parse(%q) = %+v, %v", iri, ref, err)
			}
		})
	}
}

func TestNew_NilOption(t *testing.T) {
	if _, err := namespace.New("acme", nil); err != nil {
		t.Fatal(err)
	}
}

// TestCheckNewBase: a new namespace's base is held to checks that New
// does not make (New also takes the recorded bases of existing
// namespaces): after an authority there must be a path or fragment, '['
// and ']' only in a host, and no non-ASCII character an IRI's path may not
// hold. Without them some IRIs are not RFC 3987 IRIs
// ("http://example.org:team:t" reads "team:t" as a port).
func TestCheckNewBase(t *testing.T) {
	for _, tc := range []struct {
		base string
		ok   bool
	}{
		{"urn:cortex:acme", true},
		{"urn:x:", true},
		{"http://example.org/", true},
		{"http://example.org/kb#", true},
		{"http://example.org#", true},
		{"https://h:8080/p/", true},
		{"http://[::1]/x/", true},
		{"http://example.org/caf\u00e9/", true},
		{"http://example.org", false},
		{"http://h:8080", false},
		{"file://", false},
		{"http://h/a[b]/", false},
		{"urn:a[b]:", false},
		{"http://h/\ue000/", false},
		{"http://h/\ufffe/", false},
		{"http://h/\U0001FFFF/", false},
	} {
		err := namespace.CheckNewBase(tc.base)
		if tc.ok != (err == nil) || err != nil && !errors.Is(err, namespace.ErrInvalidBase) {
			t.Errorf("CheckNewBase(%q) = %v, want ok %v", tc.base, err, tc.ok)
		}
		// New takes them all: an existing namespace may have recorded one.
		if _, err := namespace.New("acme", namespace.WithBase(tc.base)); err != nil {
			t.Errorf("New(WithBase(%q)) = %v, want the namespace", tc.base, err)
		}
	}
}

func TestCheckIRI(t *testing.T) {
	for _, tc := range []struct {
		iri string
		ok  bool
	}{
		{"http://example.org/", true},
		{"urn:x", true},
		{"http://example.org/caf%C3%a9", true},
		{"http://example.org/a?b=c#d#e", true}, // not a base: a query and two '#' are fine
		{"", false},
		{"example.org/", false},
		{"1http://example.org/", false},
		{"http://example.org/a b", false},
		{"http://example.org/<", false},
		{"http://example.org/%zz", false},
		{"http://example.org/%4", false},
		{"http://example.org/%", false},
		{"http://example.org/\xff", false},
	} {
		t.Run(tc.iri, func(t *testing.T) {
			if err := namespace.CheckIRI(tc.iri); (err == nil) != tc.ok {
				t.Fatalf("CheckIRI(%q) = %v, want ok %v", tc.iri, err, tc.ok)
			}
		})
	}
}
