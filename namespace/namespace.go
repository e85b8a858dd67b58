package namespace

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Default is the name of the namespace used when none is given.
const Default = "default"

// DefaultBasePrefix is prepended to the namespace name to form the default
// IRI base: namespace "acme" has base "urn:cortex:acme".
const DefaultBasePrefix = "urn:cortex:"

// NameRule is the syntax of a namespace name, as a regular expression: a
// lower-case ASCII letter, then up to 62 lower-case ASCII letters, digits and
// '-'. ValidName and ValidateName implement it; other names that follow the
// same rule (cortex side tables) use them rather than a copy.
const NameRule = "^[a-z][a-z0-9-]{0,62}$"

// MaxNameLen is the maximum length of a namespace name in bytes.
const MaxNameLen = 63

// ValidName reports whether name follows NameRule.
func ValidName(name string) bool { return ValidateName(name) == nil }

// ValidateName reports whether name is a valid namespace name, matching
// NameRule. The error wraps ErrInvalidName and names the offending input, the
// rule and the first violation.
func ValidateName(name string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w %q: %s (must match %s)", ErrInvalidName, name, why, NameRule)
	}
	switch {
	case name == "":
		return bad("empty")
	case len(name) > MaxNameLen:
		return bad(fmt.Sprintf("%d bytes long, at most %d allowed", len(name), MaxNameLen))
	case name[0] < 'a' || name[0] > 'z':
		return bad("must start with a lower-case ascii letter")
	}
	for i := 1; i < len(name); i++ {
		c := name[i]
		if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' {
			continue
		}
		r, _ := utf8.DecodeRuneInString(name[i:])
		return bad(fmt.Sprintf("character %q at offset %d not allowed", r, i))
	}
	return nil
}

// NS is a Cortex namespace: a validated name plus the IRI base under which
// every Cortex IRI of that namespace is built.
//
// An NS is an immutable value, safe for concurrent use and cheap to copy.
// The zero NS is not usable; obtain one from New.
type NS struct {
	name   string
	base   string
	prefix string // base + separator; every IRI of the namespace starts with it
}

// Option configures New.
type Option func(*options)

type options struct {
	base    string
	hasBase bool
}

// WithBase sets the IRI base of the namespace. The default is
// "urn:cortex:" + name.
//
// base must be an absolute IRI (scheme ':' ...) without characters that are
// forbidden in an N-Triples IRIREF, without a query part and with at most one
// '#'. Local parts are joined to it with ':' unless it already ends in ':',
// '/' or '#'. Two namespaces given the same base share IRIs: with a custom
// base, keeping bases distinct (and not prefixes of each other followed by
// a Cortex layout) is the caller's job.
func WithBase(base string) Option {
	return func(o *options) { o.base, o.hasBase = base, true }
}

// New returns the namespace called name. It fails with an error wrapping
// ErrInvalidName for a bad name and ErrInvalidBase for a bad WithBase value.
func New(name string, opts ...Option) (NS, error) {
	if err := ValidateName(name); err != nil {
		return NS{}, err
	}
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	base := DefaultBasePrefix + name
	if o.hasBase {
		if err := validateBase(o.base); err != nil {
			return NS{}, fmt.Errorf("namespace %s: %w", name, err)
		}
		base = o.base
	}
	prefix := base
	switch base[len(base)-1] {
	case ':', '/', '#':
	default:
		prefix += ":"
	}
	return NS{name: name, base: base, prefix: prefix}, nil
}

// CheckNewBase checks base as the IRI base of a namespace being created:
// New's checks (a base New accepts may be the recorded base of an existing
// namespace), and those that bases recorded earlier were not held to,
// without which some of its IRIs would not be RFC 3987 IRIs. After an
// authority ("scheme://host") there must be a path or fragment:
// "http://example.org" would give "http://example.org:team:t", whose
// "team:t" reads as a port ("http://example.org/" is fine). '[' and ']' may
// appear only in a host, and non-ASCII characters only those an IRI's path
// allows (not private-use characters or non-characters). Errors wrap
// ErrInvalidBase.
func CheckNewBase(base string) error {
	if err := validateBase(base); err != nil {
		return err
	}
	bad := func(why string) error {
		return fmt.Errorf("%w %q: %s", ErrInvalidBase, base, why)
	}
	for i, r := range base {
		if r >= 0x80 && !ucschar(r) {
			return bad(fmt.Sprintf("character %q at offset %d not allowed in an iri's path", r, i))
		}
	}
	path := base[strings.IndexByte(base, ':')+1:] // validateBase: there is a scheme
	if auth, ok := strings.CutPrefix(path, "//"); ok {
		end := strings.IndexAny(auth, "/#")
		if end < 0 {
			return bad("no path after the authority: add a trailing '/' (ids would be read as a port or host)")
		}
		path = auth[end:]
	}
	if strings.ContainsAny(path, "[]") {
		return bad("'[' and ']' are only allowed in a host")
	}
	return nil
}

// ucschar reports whether r, a non-ASCII rune, may appear in the path or
// fragment of an IRI (RFC 3987 ucschar; private-use characters, allowed
// only in a query, and non-characters are not).
func ucschar(r rune) bool {
	switch {
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xF900 && r <= 0xFDCF, r >= 0xFDF0 && r <= 0xFFEF:
		return true
	case r >= 0x10000 && r <= 0xEFFFD:
		return r&0xFFFF <= 0xFFFD
	}
	return false
}

// validateBase checks that base is an absolute IRI usable as a prefix.
func validateBase(base string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w %q: %s", ErrInvalidBase, base, why)
	}
	if why := iriProblem(base); why != "" {
		return bad("not an absolute iri: " + why)
	}
	if strings.IndexByte(base, ':') == len(base)-1 {
		return bad("nothing after the scheme")
	}
	if strings.IndexByte(base, '?') >= 0 {
		return bad("must not contain a query ('?')")
	}
	if strings.Count(base, "#") > 1 {
		return bad("more than one '#'")
	}
	return nil
}

// CheckIRI reports whether s is an absolute IRI as far as Cortex checks
// one: valid UTF-8, a scheme (a letter, then letters, digits, '+', '-' or
// '.') and ':', none of the characters an IRI cannot hold (controls,
// space, <>"{}|^`\), and '%' only as the start of a percent-encoding (two
// hex digits, either case). It is the check of a namespace base (New,
// WithBase) without the rules of a base, for IRIs given by users, such as
// a config file's prefixes. The error says why and wraps no sentinel.
func CheckIRI(s string) error {
	if why := iriProblem(s); why != "" {
		return fmt.Errorf("%q is not an absolute iri: %s", s, why)
	}
	return nil
}

// iriProblem returns why s is not an absolute IRI (CheckIRI), or "".
func iriProblem(s string) string {
	if s == "" {
		return "empty"
	}
	if !utf8.ValidString(s) {
		return "not valid utf-8"
	}
	colon := strings.IndexByte(s, ':')
	if colon <= 0 {
		return "no scheme"
	}
	for i := 0; i < colon; i++ {
		c := s[i]
		isAlpha := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if i == 0 && !isAlpha || !isAlpha && !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.') {
			return "invalid scheme"
		}
	}
	for i, r := range s {
		switch {
		case iriForbidden(r) || r == 0x7f || r >= 0x80 && r <= 0x9f:
			return fmt.Sprintf("character %q at offset %d not allowed in an iri", r, i)
		case r == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return fmt.Sprintf("bad percent-encoding at offset %d", i)
			}
		}
	}
	return ""
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// Name returns the namespace name.
func (ns NS) Name() string { return ns.name }

// Base returns the IRI base, "urn:cortex:"+Name() unless set with WithBase.
func (ns NS) Base() string { return ns.base }

// Prefix returns the string every IRI of the namespace starts with: Base()
// followed by ':' unless Base() already ends in ':', '/' or '#'. It is
// suitable for a SPARQL PREFIX declaration.
func (ns NS) Prefix() string { return ns.prefix }

// String returns the namespace name.
func (ns NS) String() string { return ns.name }
