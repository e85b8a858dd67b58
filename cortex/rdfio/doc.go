// Package rdfio reads and writes RDF as quad.Quad values: N-Triples, N-Quads
// and Turtle, chosen by name, file extension or media type through a small
// format registry (Lookup, ByExtension, ByMediaType, Names, Register). It also
// writes, but does not read, RDF/XML (RDFXML, application/rdf+xml, for
// clients such as rdflib's SPARQLStore that ask for it): Format.Readable tells
// which formats can be read, ReadableNames lists them.
//
// Terms are always one of quad.IRI, quad.BNode, quad.String (xsd:string),
// quad.LangString and quad.TypedString (any other datatype, lexical form kept
// exactly: "01"^^xsd:integer stays "01").
//
// N-Triples and N-Quads use our own line parser (streaming, a line in
// memory at a time, strict per the W3C grammar: absolute IRIs only). Both readers take
// LF, CR LF and CR alone as line ends, mixed in any way, and read any of them
// a line at a time. Turtle uses our own
// streaming parser of the RDF 1.1 Turtle grammar: it reads a line at a time,
// keeps the open collections and blank node property lists on an explicit
// stack (nesting costs heap, never goroutine stack) and hands out each triple
// as soon as it is complete. Relative IRIs are resolved per RFC 3986 against
// the base (DecodeOptions.Base, else the file:// URL of DecodeOptions.File,
// then @base/BASE); a relative reference with a ':' in its first segment is an
// error (RFC 3986 §4.2). Numbers and booleans keep their lexical form, and a
// leading byte order mark is skipped. Our own Turtle writer is used for output.
//
// Malformed input of any syntax fails with a *SyntaxError carrying the line
// and the column of the offending token; input that ends early fails at the
// end of the input. An error of the reader (a disk or a network error) is a
// *ReadError that wraps it and says where it cut the input (line, column
// and byte offset). A literal with datatype rdf:langString, which RDF 1.1
// Concepts (3.3) gives a literal if and only if it has a language tag, is
// malformed written with ^^ ("1"^^rdf:langString: no tag): it fails at its
// datatype, and encoders refuse a quad.TypedString of that datatype with
// ErrInvalidTerm. (The W3C RDF 1.1 test suites have no test of it.) The differential test (differential_test.go) compares all
// three readers with N3.js over generated documents; its skip list records
// where N3.js departs from the grammar.
//
// # Blank nodes
//
// Decoders prepend DecodeOptions.BlankPrefix to every label so that blank
// nodes of different imports never merge; choose a fresh prefix per import.
// In Turtle, an explicit label _:x becomes "e"+"x" and a generated one (for []
// and collections) "g"+N, so they never collide.
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
// Columns count bytes from the start of the line (a tab is one column; the
// byte order mark is not counted). The readers read a line longer than
// their 64 KiB buffer in pieces cut at white space between tokens (a Turtle
// document on one line, which the grammar allows, streams too), and skip
// the rest of a comment that does not fit in it without holding it: only a
// single token, such as a long string, is held whole, and none larger than
// DecodeOptions.MaxTermBytes (64 MiB by default), which is refused as soon
// as that much of it is read. Turtle and RDF/XML have no graphs: their
// encoders, like the N-Triples one, drop graph labels. The RDF/XML encoder
// holds the whole document in memory until Close, and fails, writing nothing,
// on a graph RDF/XML cannot carry (a predicate IRI that does not end in an XML
// name, such as one ending in '/' or a digit; see the RDFXML format).
package rdfio
