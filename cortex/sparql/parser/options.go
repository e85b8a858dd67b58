package parser

import "maps"

// Options configure Parse. The zero value has no base IRI and no predeclared prefixes.
type Options struct {
	// Base is the base IRI against which relative IRIs are resolved (RFC 3986) until a BASE declaration
	// replaces it. Default "": no base, so that a relative IRI reference in the query is an error
	// (ErrRelativeIRI), as it is when Base is itself relative. A Base holding a character that no IRI
	// holds (white space, a control character, <>"{}|^`\, bytes that are not UTF-8) is a syntax error.
	Base string
	// Prefixes are predeclared prefixes (name without ':' → namespace IRI); PREFIX declarations in the
	// query override them. Default: none (DefaultOptions uses DefaultPrefixes).
	Prefixes map[string]string
}

// DefaultPrefixes returns a fresh map with the prefixes rdf, rdfs, xsd, owl and prov.
func DefaultPrefixes() map[string]string {
	return map[string]string{
		"rdf":  "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
		"rdfs": "http://www.w3.org/2000/01/rdf-schema#",
		"xsd":  "http://www.w3.org/2001/XMLSchema#",
		"owl":  "http://www.w3.org/2002/07/owl#",
		"prov": "http://www.w3.org/ns/prov#",
	}
}

// DefaultOptions returns options with DefaultPrefixes and no base IRI.
func DefaultOptions() Options { return Options{Prefixes: DefaultPrefixes()} }

// WithBase returns a copy of o with the base IRI set.
func (o Options) WithBase(base string) Options {
	o.Base = base
	return o
}

// WithPrefix returns a copy of o with one more predeclared prefix (replacing one of the same name).
func (o Options) WithPrefix(prefix, iri string) Options {
	m := maps.Clone(o.Prefixes)
	if m == nil {
		m = map[string]string{}
	}
	m[prefix] = iri
	o.Prefixes = m
	return o
}

// WithPrefixes returns a copy of o with all of ps added to the predeclared prefixes.
func (o Options) WithPrefixes(ps map[string]string) Options {
	m := maps.Clone(o.Prefixes)
	if m == nil {
		m = map[string]string{}
	}
	maps.Copy(m, ps)
	o.Prefixes = m
	return o
}
