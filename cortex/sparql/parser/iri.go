package parser

import "github.com/cortexgraph/cortex/cortex/internal/iri"

// resolveIRI resolves a relative reference ref against base (RFC 3986 §5.2.2). Absolute IRIs are returned
// unchanged (not normalised), and so is every ref when base is empty or not absolute.
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
