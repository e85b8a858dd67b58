package rdfio

import (
	"net/url"
	"path/filepath"
	"strings"
)

// FileBase returns the file:// URL of path (made absolute), the default base
// IRI for relative references in a file.
func FileBase(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	return u.String(), nil
}

// hasScheme reports whether s starts with an RFC 3986 scheme followed by ':'.
func hasScheme(s string) bool {
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

type iriRef struct {
	scheme, authority, path, query, fragment string
	hasScheme, hasAuth, hasQuery, hasFrag    bool
}

func parseIRIRef(s string) iriRef {
	var r iriRef
	if hasScheme(s) {
		i := strings.IndexByte(s, ':')
		r.scheme, r.hasScheme = s[:i], true
		s = s[i+1:]
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		r.fragment, r.hasFrag = s[i+1:], true
		s = s[:i]
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		r.query, r.hasQuery = s[i+1:], true
		s = s[:i]
	}
	if strings.HasPrefix(s, "//") {
		s = s[2:]
		i := strings.IndexByte(s, '/')
		if i < 0 {
			i = len(s)
		}
		r.authority, r.hasAuth = s[:i], true
		s = s[i:]
	}
	r.path = s
	return r
}

func (r iriRef) String() string {
	var b strings.Builder
	if r.hasScheme {
		b.WriteString(r.scheme)
		b.WriteByte(':')
	}
	if r.hasAuth {
		b.WriteString("//")
		b.WriteString(r.authority)
	}
	b.WriteString(r.path)
	if r.hasQuery {
		b.WriteByte('?')
		b.WriteString(r.query)
	}
	if r.hasFrag {
		b.WriteByte('#')
		b.WriteString(r.fragment)
	}
	return b.String()
}

// resolveIRI resolves ref against the absolute IRI base following RFC 3986
// section 5.2 (strict mode). An absolute ref is returned unchanged.
func resolveIRI(base, ref string) string {
	if hasScheme(ref) {
		return ref
	}
	b := parseIRIRef(base)
	r := parseIRIRef(ref)
	var t iriRef
	t.hasScheme, t.scheme = true, b.scheme
	switch {
	case r.hasAuth:
		t.authority, t.hasAuth = r.authority, true
		t.path = removeDotSegments(r.path)
		t.query, t.hasQuery = r.query, r.hasQuery
	case r.path == "":
		t.path = b.path
		t.authority, t.hasAuth = b.authority, b.hasAuth
		if r.hasQuery {
			t.query, t.hasQuery = r.query, true
		} else {
			t.query, t.hasQuery = b.query, b.hasQuery
		}
	default:
		if strings.HasPrefix(r.path, "/") {
			t.path = removeDotSegments(r.path)
		} else {
			t.path = removeDotSegments(mergePaths(b, r.path))
		}
		t.query, t.hasQuery = r.query, r.hasQuery
		t.authority, t.hasAuth = b.authority, b.hasAuth
	}
	t.fragment, t.hasFrag = r.fragment, r.hasFrag
	return t.String()
}

func mergePaths(b iriRef, rpath string) string {
	if b.hasAuth && b.path == "" {
		return "/" + rpath
	}
	i := strings.LastIndexByte(b.path, '/')
	if i < 0 {
		return rpath
	}
	return b.path[:i+1] + rpath
}

// removeDotSegments implements RFC 3986 section 5.2.4.
func removeDotSegments(in string) string {
	if !strings.Contains(in, ".") {
		return in
	}
	var out []string // output segments, each starting with '/' except maybe the first
	for len(in) > 0 {
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
			start := 0
			if in[0] == '/' {
				start = 1
			}
			i := strings.IndexByte(in[start:], '/')
			if i < 0 {
				i = len(in)
			} else {
				i += start
			}
			out = append(out, in[:i])
			in = in[i:]
		}
	}
	return strings.Join(out, "")
}
