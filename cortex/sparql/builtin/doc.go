// Package builtin is the SPARQL 1.1 operator and function library over RDF
// terms: effective boolean value, comparison and equality, arithmetic, the
// plain functions of SPARQL 1.1 §17.4, XSD casts (§17.5) and aggregate
// accumulators (§18.5).
//
// Terms are github.com/cayleygraph/quad values of exactly five types:
// quad.IRI, quad.BNode, quad.String (a simple literal, i.e. xsd:string),
// quad.LangString and quad.TypedString. A TypedString with datatype
// xsd:string is accepted on input and treated as quad.String; results never
// use it. A nil quad.Value stands for an unbound variable. Results are
// always one of the five types, with canonical lexical forms for computed
// numbers ("3"^^xsd:integer, "1.5"^^xsd:decimal, "2.0"^^xsd:decimal,
// "1.5E0"^^xsd:double).
//
// # Errors
//
// Every error wraps ErrType or ErrUnbound (see errors.go); callers compare
// with errors.Is. No function panics on any input.
//
// # Concurrency
//
// All functions are safe for concurrent use. The compiled-regular-expression
// cache is shared and internally synchronised. A Context is read-only during
// evaluation except its BNodeScope and Rand, which must not be shared by
// goroutines evaluating concurrently (give each its own Context), and an
// Aggregate is not safe for concurrent use.
//
// # Caveats
//
//   - Among the date/time types only xsd:dateTime and xsd:date are
//     understood (compared by value, cast to xsd:string; ORDER BY sorts
//     dates with the unknown datatypes, by lexical form); xsd:time and
//     durations are treated as unknown datatypes (compared only by term
//     equality), and there is no xsd:date() constructor.
//   - Decimal division that does not terminate is rounded to 24 fractional
//     digits.
//   - Regular expressions are translated to Go's RE2 syntax (a character
//     class holding \w or \S becomes an alternative, or when negated the
//     complement written out as ranges, and so does a class subtraction
//     [a-z-[aeiou]]). \i and \c (and \I, \C) are XML 1.0 Fifth Edition's
//     NameStartChar and NameChar (XML Schema 1.0 cites the older editions'
//     Letter tables; XSD 1.1 allows the Fifth Edition's). \p{IsX} and
//     \P{IsX} are the Unicode 15.0 blocks (the version of Go's unicode
//     package, so of \p{L} and the other categories), named as in
//     Blocks.txt with the spaces removed and compared exactly
//     (\p{IsLatinExtended-A}), and XML
//     Schema 1.0's names Unicode has since changed (IsGreek,
//     IsCombiningMarksforSymbols, IsPrivateUse); an unknown block name is
//     an error, not a class that matches nothing. An expression with
//     back-references (\1, and \10 when ten groups open before it, F&O 3.1
//     §5.6.1) is run by a backtracking matcher that otherwise agrees with
//     Go's regexp: a reference to a group that took no part in the match
//     matches the empty string (F&O 3.1), with the i flag it compares
//     case-insensitively, a reference to a group not closed before it is
//     an error, and a call that takes more than 4,194,304 matching steps
//     plus 32 per byte of the text (common expressions take a few per
//     byte: (a)\1 on a text of 5 MB works) is an error rather than a hang.
//     CompileRegex refuses back-references
//     (it returns a Go regexp). The x flag removes whitespace before the
//     expression is read (so "a{2, 3}" is a{2,3} and "\ d" is \d) but keeps
//     it inside character classes and, without the s flag, . matches
//     neither newline nor carriage return (F&O 3.1 wording, §5.6.1.1; F&O
//     1.0, which SPARQL 1.1 cites, differs on the class and the carriage
//     return).
package builtin
