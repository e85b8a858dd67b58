// Package rdfio reads and writes RDF as quad.Quad values: N-Triples, N-Quads
// and Turtle, chosen by name, file extension or media type through a small
// format registry (Lookup, ByExtension, ByMediaType, Names, Register).
//
// Terms are always one of quad.IRI, quad.BNode, quad.String (xsd:string),
// quad.LangString and quad.TypedString (any other datatype, lexical form kept
// exactly: "01"^^xsd:integer stays "01").
//
// N-Triples and N-Quads use our own line parser (streaming, one line in
// memory, strict per the W3C grammar: absolute IRIs only). Turtle uses
// github.com/knakk/rdf behind a streaming rewriter that fixes its known
// defects: relative IRIs are resolved per RFC 3986 against the base
// (DecodeOptions.Base, else the file:// URL of DecodeOptions.File), a leading
// byte order mark is accepted, explicit blank node labels cannot collide with
// the labels knakk generates for [] and collections, long strings with quotes
// or lines starting with '#' are read correctly, numbers and booleans keep
// their lexical form, and undefined prefixes are reported with their position.
// Our own Turtle writer is used for output (knakk's encoder can produce
// invalid Turtle).
//
// # Blank nodes
//
// Decoders prepend DecodeOptions.BlankPrefix to every label so that blank
// nodes of different imports never merge; choose a fresh prefix per import.
// In Turtle, an explicit label _:x becomes "e"+"x" and a generated one "g"+N.
// Encoders keep labels made of [A-Za-z0-9_-] (not starting with 'x' or '-')
// and hex-encode every other label as "x"+hex, an injective mapping.
//
// # Concurrency
//
// Decoders and encoders are not safe for concurrent use; distinct ones may be
// used from different goroutines. The registry is safe for concurrent use.
//
// # Caveats
//
// The Turtle decoder runs knakk's lexer on a goroutine of its own; call
// Decoder.Close when abandoning a decoder before io.EOF or an error so that
// goroutine can finish. Turtle error columns are exact for errors found by the
// rewriter and mapped back from knakk's positions otherwise; a few knakk errors
// carry no column (Col 0, printed as file:line: message). Turtle has no
// graphs: the Turtle encoder, like the N-Triples one, drops graph labels.
// Turtle is slower than N-Triples (knakk passes every token over a channel).
package rdfio
