// Package eval evaluates SPARQL 1.1 algebra (package algebra) over a Dataset: a small interface for
// interning and externing terms, matching quads by a pattern of term ids in a graph scope, listing named
// graphs and estimating match sizes. The Cortex store implements it ((*cortex.Namespace).Dataset);
// MemDataset is an in-memory implementation for tests.
//
// # Evaluation
//
// Solutions are rows of term ids; terms are fetched from the dataset only when an expression or the
// output needs them, and terms computed by expressions get query-local ids unless the dataset holds
// them. Operators stream: each passes solutions to its parent as they are produced. A pattern that can
// take the bindings of its left-hand side (basic graph patterns, paths, VALUES, unions, joins, GRAPH,
// and filters, BIND, OPTIONAL and MINUS whose meaning does not change) is evaluated once per left row
// with those bindings injected (an index nested-loop join); any other pattern (sub-selects, groups,
// filters over variables the pattern may leave unbound, ...) is evaluated once on its own and joined
// through a hash index. Memory is bounded by what the query needs: ORDER BY with LIMIT k keeps k rows,
// DISTINCT and GROUP BY keep a hash set or table, hash joins keep the scanned side, a negated property
// set (which matches each pair of nodes once, §18.4) keeps the pairs it has matched in one scan.
//
// # Planning
//
// Basic graph patterns are ordered by estimated cost (Dataset.Estimate and sampled fan-outs, cached
// between queries by datasets that implement StatsCacher): exhaustively, by dynamic programming over
// subsets, for up to 10 triple patterns, greedily beyond. Each step is an index lookup with the
// bindings so far or a probe into a hash table built by scanning the pattern once, whichever is
// estimated cheaper. FILTER conjuncts run as soon as their variables are bound; a filter that reads only
// the variables of a hashed pattern is applied while its table is built. Explain prints the plan.
//
// # Execution
//
// A filter over one variable is evaluated once per distinct term (remembered by id). When it fails on a
// term that a scan groups by (the object of a predicate scan, for instance), the scan is asked to skip
// the rest of that group (GroupSkipper). Hash tables keep their quads in one array grouped by key. COUNT
// of a variable, GROUP BY variables and DISTINCT compare ids, not terms; ORDER BY over variables ranks
// the distinct terms of each key once and sorts rows by rank; DISTINCT over an ORDER BY of projected
// variables removes duplicates before sorting.
//
// # Default graph
//
// Options.DefaultGraph selects the default graph: UnionGraph (all graphs RDF-merged: a triple held in
// several graphs is one solution), OwnDefaultGraph, or a named graph. FROM / FROM NAMED override it.
// GRAPH ranges over named graphs only. Datasets whose scans of all graphs already report each triple
// once (TripleMerger) spare the evaluator a set per scan.
//
// # Concurrency
//
// Eval and Explain are safe for concurrent use (each query has its own state). Rows and Quads are
// produced by one goroutine per result and read by one consumer goroutine; they are not safe for
// concurrent use. Close stops the producer and waits for it.
//
// # Caveats
//
//   - Only xsd:dateTime and xsd:date are compared as dates (builtin limits).
//   - A language-tagged literal in a pattern matches stored literals whose tag differs only in case
//     only when the exact form is absent from the dataset.
//   - GROUP_CONCAT of literals sharing a language tag yields a simple literal, as the W3C tests expect.
//   - Functions named by IRI other than the XSD casts are rejected with ErrNotSupported.
//   - REDUCED removes all duplicates, like DISTINCT.
//   - DISTINCT, COUNT(DISTINCT ?x), GROUP BY and joins compare terms by id: literals whose language
//     tags differ only in case are different terms there when both are held by the dataset, written
//     in the query (VALUES { "a"@en "a"@EN }) or computed, though sameTerm and = find them equal.
package eval
