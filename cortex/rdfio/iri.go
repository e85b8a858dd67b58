package rdfio

import (
	"net/url"
	"path/filepath"

	"github.com/cortexgraph/cortex/cortex/internal/iri"
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

// hasScheme reports whether s is an absolute IRI (see iri.HasScheme).
func hasScheme(s string) bool { return iri.HasScheme(s) }

// resolveIRI resolves ref against base following RFC 3986 section 5.2
// (strict mode). An absolute ref is returned unchanged, and so is ref when base
// is not absolute (the decoder never lets that happen: its base is validated
// or itself resolved).
func resolveIRI(base, ref string) string {
	if iri.HasScheme(ref) {
		return ref
	}
	s, err := iri.Resolve(base, ref)
	if err != nil {
		return ref
	}
	return s
}
