package iri

import (
	"fmt"
	"strings"
)

// HasScheme reports whether s starts with an RFC 3986 scheme followed by ':'
// (ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"), that is whether s is an
// absolute IRI (possibly with a fragment) rather than a relative reference.
func HasScheme[S ~string | ~[]byte](s S) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return true
		default:
			return false
		}
	}
	return false
}

// Resolve returns the target IRI of reference ref against base (RFC 3986
// §5.2.2, strict: a ref with a scheme is never treated as relative). A ref
// with a scheme needs no base; it is returned with dot segments removed from
// its path. Otherwise base must be absolute: Resolve returns an error wrapping
// ErrNoBase when base is empty and ErrRelativeBase when it has no scheme.
//
// Callers that want absolute references kept exactly as written test
// HasScheme(ref) first.
func Resolve(base, ref string) (string, error) {
	r := split(ref)
	if r.scheme != "" {
		r.path = RemoveDotSegments(r.path)
		return r.String(), nil
	}
	if base == "" {
		return "", fmt.Errorf("resolve %q: %w", ref, ErrNoBase)
	}
	b := split(base)
	if b.scheme == "" {
		return "", fmt.Errorf("resolve %q against %q: %w", ref, base, ErrRelativeBase)
	}
	t := parts{scheme: b.scheme, fragment: r.fragment, hasFragment: r.hasFragment}
	switch {
	case r.hasAuthority:
		t.authority, t.hasAuthority = r.authority, true
		t.path = RemoveDotSegments(r.path)
		t.query, t.hasQuery = r.query, r.hasQuery
	case r.path == "":
		t.authority, t.hasAuthority = b.authority, b.hasAuthority
		t.path = b.path
		if r.hasQuery {
			t.query, t.hasQuery = r.query, true
		} else {
			t.query, t.hasQuery = b.query, b.hasQuery
		}
	default:
		t.authority, t.hasAuthority = b.authority, b.hasAuthority
		if strings.HasPrefix(r.path, "/") {
			t.path = RemoveDotSegments(r.path)
		} else {
			t.path = RemoveDotSegments(mergePaths(b, r.path))
		}
		t.query, t.hasQuery = r.query, r.hasQuery
	}
	return t.String(), nil
}

// ResolveOrKeep is the policy of the RDF readers (rdfio): a ref with a scheme is returned exactly as written (not
// normalised, unlike Resolve), a relative ref is resolved against base with
// Resolve, and ref is returned unchanged when it cannot be (base empty or
// relative: the reference stays relative).
func ResolveOrKeep(base, ref string) string {
	if HasScheme(ref) {
		return ref
	}
	s, err := Resolve(base, ref)
	if err != nil {
		return ref
	}
	return s
}

// parts are the five components of RFC 3986 §3; the has* fields tell an empty
// component from an absent one (an empty scheme is an absent one).
type parts struct {
	scheme, authority, path, query, fragment string
	hasAuthority, hasQuery, hasFragment      bool
}

// split breaks s into its components (RFC 3986 appendix B).
func split(s string) parts {
	var p parts
	if i := strings.IndexByte(s, '#'); i >= 0 {
		p.fragment, p.hasFragment = s[i+1:], true
		s = s[:i]
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		p.query, p.hasQuery = s[i+1:], true
		s = s[:i]
	}
	if HasScheme(s) {
		i := strings.IndexByte(s, ':')
		p.scheme, s = s[:i], s[i+1:]
	}
	if strings.HasPrefix(s, "//") {
		s = s[2:]
		i := strings.IndexByte(s, '/')
		if i < 0 {
			i = len(s)
		}
		p.authority, p.hasAuthority = s[:i], true
		s = s[i:]
	}
	p.path = s
	return p
}

// String recomposes the components (RFC 3986 §5.3).
func (p parts) String() string {
	var b strings.Builder
	if p.scheme != "" {
		b.WriteString(p.scheme)
		b.WriteByte(':')
	}
	if p.hasAuthority {
		b.WriteString("//")
		b.WriteString(p.authority)
	} else if strings.HasPrefix(p.path, "//") {
		// RFC 3986 §3.3: without an authority the path cannot start with
		// "//"; a "/." segment keeps it from reading as an authority.
		b.WriteString("/.")
	}
	b.WriteString(p.path)
	if p.hasQuery {
		b.WriteByte('?')
		b.WriteString(p.query)
	}
	if p.hasFragment {
		b.WriteByte('#')
		b.WriteString(p.fragment)
	}
	return b.String()
}

// mergePaths is RFC 3986 §5.2.3.
func mergePaths(b parts, ref string) string {
	if b.hasAuthority && b.path == "" {
		return "/" + ref
	}
	i := strings.LastIndexByte(b.path, '/') // -1 keeps nothing of the base path
	return b.path[:i+1] + ref
}

// RemoveDotSegments removes the "." and ".." segments of path (RFC 3986
// §5.2.4). A path without '.' is returned as it is.
func RemoveDotSegments(path string) string {
	if !strings.Contains(path, ".") {
		return path
	}
	in := path
	var out []string // output segments, each beginning with '/' except maybe the first
	for in != "" {
		switch {
		case strings.HasPrefix(in, "../"):
			in = in[3:]
		case strings.HasPrefix(in, "./"):
			in = in[2:]
		case strings.HasPrefix(in, "/./"):
			in = in[2:]
		case in == "/.":
			in = "/"
		case strings.HasPrefix(in, "/../"):
			in = in[3:]
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "/..":
			in = "/"
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "." || in == "..":
			in = ""
		default:
			// move the first segment (with its leading '/', if any) to the output
			i := strings.IndexByte(in[1:], '/')
			if i < 0 {
				out = append(out, in)
				in = ""
			} else {
				out = append(out, in[:i+1])
				in = in[i+1:]
			}
		}
	}
	return strings.Join(out, "")
}
