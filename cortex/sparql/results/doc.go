// Package results reads and writes SPARQL query results: the W3C JSON
// (".srj"), XML (".srx"), CSV and TSV formats, and a human-readable table.
//
// A Format bundles a streaming row writer (NewWriter → Write(row) … Close),
// a boolean writer for ASK results and, except for the table, a reader that
// loads a whole document into a Result. Formats live in a Registry keyed by
// name; the package's default registry holds the built-ins "csv", "json",
// "table", "tsv" and "xml" and is reached through Register, Lookup,
// ByExtension and Names.
//
// Terms are github.com/cayleygraph/quad values of exactly five types:
// quad.IRI, quad.BNode, quad.String (xsd:string), quad.LangString and
// quad.TypedString. Writers accept a TypedString of type xsd:string and write
// it as a plain literal; readers never return one. Lexical forms are kept
// exactly as given.
//
// Equivalent (and EquivalenceOptions) compares results the way the W3C test
// suites require, up to a blank node bijection, with a bounded search
// (Compare tells a search that gave up from a difference); CSVView reduces
// a result to what survives the lossy CSV format.
//
// # Concurrency
//
// Formats and Registries are safe for concurrent use. A Writer is not: one
// goroutine at a time per Writer.
//
// # Caveats
//
//   - Writers buffer output; nothing is guaranteed to reach the io.Writer
//     before Close (or, for JSON/XML/CSV/TSV, before the internal buffer
//     fills). Close does not close the io.Writer.
//   - XML 1.0 cannot carry most C0 control characters; the XML writer rejects
//     such rows with a *TermError instead of corrupting the document.
//   - CSV is lossy (no term kinds, no datatypes or language tags, unbound ==
//     empty string); ReadCSV guesses term kinds.
//   - The table writer sizes columns from the first rows it buffers (1000 by
//     default); later, wider cells break the alignment rather than being
//     cut.
//   - Readers load the whole document in memory; they are meant for test
//     expectations and modest results, not for streaming large inputs.
package results
