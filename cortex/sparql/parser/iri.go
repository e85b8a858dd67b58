package parser

import "strings"

// iriParts are the five components of RFC 3986 §3 (has* tell an empty component from an absent one).
type iriParts struct {
	scheme, authority, path, query, fragment string
	hasAuthority, hasQuery, hasFragment      bool
}

func splitIRI(s string) iriParts {
	var p iriParts
	if i := strings.IndexByte(s, '#'); i >= 0 {
		p.fragment, p.hasFragment = s[i+1:], true
		s = s[:i]
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		p.query, p.hasQuery = s[i+1:], true
		s = s[:i]
	}
	if sch, rest, ok := cutScheme(s); ok {
		p.scheme, s = sch, rest
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

// cutScheme splits "scheme:rest" when s starts with a valid scheme.
func cutScheme(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return s[:i], s[i+1:], true
		default:
			return "", s, false
		}
	}
	return "", s, false
}

// isAbsoluteIRI reports whether s has a scheme.
func isAbsoluteIRI(s string) bool {
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	_, _, ok := cutScheme(s)
	return ok
}

// resolveIRI resolves a relative reference ref against base (RFC 3986 §5.2.2). Absolute IRIs are returned
// unchanged (not normalised), and so is every ref when base is empty or not absolute.
func resolveIRI(base, ref string) string {
	if base == "" || isAbsoluteIRI(ref) || !isAbsoluteIRI(base) {
		return ref
	}
	b, r := splitIRI(base), splitIRI(ref)
	var t iriParts
	t.scheme = b.scheme
	switch {
	case r.hasAuthority:
		t.authority, t.hasAuthority = r.authority, true
		t.path = removeDotSegments(r.path)
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
			t.path = removeDotSegments(r.path)
		} else {
			t.path = removeDotSegments(mergePaths(b, r.path))
		}
		t.query, t.hasQuery = r.query, r.hasQuery
	}
	t.fragment, t.hasFragment = r.fragment, r.hasFragment
	return t.String()
}

func mergePaths(b iriParts, ref string) string {
	if b.hasAuthority && b.path == "" {
		return "/" + ref
	}
	i := strings.LastIndexByte(b.path, '/')
	return b.path[:i+1] + ref
}

func removeDotSegments(in string) string {
	if !strings.Contains(in, ".") {
		return in
	}
	var out []string
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

func (p iriParts) String() string {
	var b strings.Builder
	if p.scheme != "" {
		b.WriteString(p.scheme)
		b.WriteByte(':')
	}
	if p.hasAuthority {
		b.WriteString("//")
		b.WriteString(p.authority)
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
