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
// Relative IRIs are resolved only when a base IRI is known (Options.Base or BASE); otherwise they are kept
// as written. Absolute IRIs are never normalised. Codepoint escapes (\u, \U) are decoded inside IRIs and
// strings only, not anywhere in the query text as §19.2 would allow.
package parser
