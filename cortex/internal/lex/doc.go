// Package lex holds the lexical pieces that the RDF 1.1 grammars (N-Triples,
// N-Quads, Turtle) and the SPARQL 1.1 query grammar share, so that rdfio, the
// SPARQL parser and the SPARQL result readers and writers agree on them:
//
//   - the name character classes PN_CHARS_BASE, PN_CHARS_U and PN_CHARS, and
//     the productions built only from them (BLANK_NODE_LABEL, SPARQL VARNAME);
//   - HEX, PN_LOCAL_ESC and LANGTAG;
//   - the escapes: UCHAR (decoded and written) and ECHAR (decoded).
//
// # Where the grammars differ
//
// PN_CHARS_BASE, PN_CHARS_U (PN_CHARS_BASE | '_') and PN_CHARS are the same
// in Turtle 1.1 and SPARQL 1.1, and so are BLANK_NODE_LABEL, PN_PREFIX,
// PN_LOCAL, PLX, ECHAR and LANGTAG. The differences kept explicit here:
//
//   - The RDF 1.1 N-Triples and N-Quads texts list ':' in PN_CHARS_U (hence
//     in PN_CHARS and in blank node labels). Their own test suites reject it
//     (nt-syntax-bad-bnode-02: "Colon in bnode label not allowed"), as Turtle
//     and SPARQL do and as the RDF 1.2 grammars write it, so ':' is not a
//     name character here: IsPNCharsU and IsPNChars never hold for ':'.
//     PN_LOCAL allows ':' itself; its scanners test ':' on their own.
//   - SPARQL has variables: VARNAME starts like a blank node label
//     (IsLabelStart: PN_CHARS_U or a digit) but continues with IsVarNameChar,
//     PN_CHARS without '-', and may not contain '.'.
//   - UCHAR: the RDF grammars allow it in IRIREF and in strings; SPARQL 1.1
//     defines \u and \U as codepoint escapes processed before the grammar
//     (section 19.2), which the parser decodes in IRIs and strings. ECHAR is
//     the same string escape everywhere. Where to try them is the callers'.
//
// # Invalid UTF-8
//
// The classes are defined on characters. A byte that does not begin valid
// UTF-8 is not a character: it belongs to no class. utf8.DecodeRune reports
// such a byte as U+FFFD (utf8.RuneError) with width 1, and U+FFFD itself is a
// PN_CHARS_BASE character (range #xFDF0-#xFFFD), so decoding with the utf8
// package would let an invalid byte into a name. Decode with DecodeRune or
// DecodeRuneInString instead: they return Invalid for such a byte, and
// Invalid is in no class. An explicit U+FFFD (the bytes EF BF BD) is a name
// character, as the grammars say.
//
// # Concurrency
//
// Everything here is a pure function: safe for concurrent use, never panics.
package lex
