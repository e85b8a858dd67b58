// Package iri resolves relative IRI references against a base IRI following
// RFC 3986 §5.2 (strict mode). It is the one implementation shared by the RDF
// readers (rdfio), the SPARQL parser and the SPARQL IRI() built-in.
//
// The functions work on the generic syntax only: they do not validate
// characters, percent-decode or case-normalise. They are safe for concurrent
// use and never panic.
package iri
