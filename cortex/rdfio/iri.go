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
