// Package parser is a hand-written lexer and recursive-descent parser for the SPARQL 1.1 Query language
// (https://www.w3.org/TR/sparql11-query/#grammar). Parse translates a query to the algebra of package
// algebra following §18.2 of the specification.
//
// Supported: the prologue (BASE, PREFIX, predeclared prefixes from Options), SELECT / ASK / CONSTRUCT
// (template and CONSTRUCT WHERE) / DESCRIBE, FROM and FROM NAMED, basic graph patterns with the full
// Turtle-like term syntax, OPTIONAL, UNION, MINUS, FILTER, [NOT] EXISTS, BIND, VALUES (inline and
// trailing), GRAPH, sub-selects, property paths, the SPARQL 1.1 operators and built-in calls, IRI function
// calls (casts), aggregates, GROUP BY, HAVING, ORDER BY, LIMIT and OFFSET.
//
// Not supported (reported as *SyntaxError wrapping ErrNotSupported): SPARQL Update, SERVICE, custom
// aggregates (DISTINCT in an IRI function call).
//
// # Concurrency
//
// Parse is safe for concurrent use; it keeps no state between calls.
//
// # Caveats
//
// Every IRI reference (terms, BASE, PREFIX) is resolved against an absolute base (Options.Base or BASE);
// a relative one with no absolute base is a *SyntaxError wrapping ErrRelativeIRI at its line and column.
// Absolute IRIs are never normalised. One leading byte-order mark (U+FEFF) is skipped. A syntax error's
// message quotes at most 80 characters of a token; Excerpt shows a bounded window of the failing line. Codepoint escapes (\u, \U) are decoded inside IRIs and
// strings only, not anywhere in the query text as §19.2 would allow.
package parser
