// Package engine is Cortex's storage engine: the code under the public
// package cortex, which wraps it (cortex/doc.go describes the format, the
// atomicity and concurrency contracts, and the layers; read it first).
//
// Its exported names are the API the facade wraps and nothing else:
// Open, Options and Tuning, Store, Namespace and Tx with their methods,
// the data types they take and return (converted to the facade's field
// for field), the errors (which the facade re-exports as they are), and a
// few settings and counters for the facade's tests (hooks.go).
//
// The engine is one package, not several, because its parts work on the
// same Store and Namespace state (the namespace's write lock and write
// generations, the store's gate, term cache and counters) and call each
// other in both directions: a streamed import segment is written by the
// sorted writer (stream.go) under the gate, rolled back at Open by the
// recovery (undo.go, recover.go), and read back by the checker. The file
// names say what each part is:
//
//   - open and locks: store.go, lock_*.go, options.go, tuning.go
//   - the gate that brackets every Badger transaction: gate.go
//   - reads: snapshots and scans (scan.go, scan_extra.go, match.go,
//     prefetch.go), terms and caches (terms.go, read.go, cache.go),
//     planner statistics (stats.go)
//   - writes: deltas (namespace.go, write.go), large deltas (journal.go),
//     side tables and pins (side.go, teamsupport.go)
//   - imports: the pipeline (import.go, bulk_prep.go, bulk.go), segments
//     (segments.go), streamed writes under the gate (stream.go, undo.go; the
//     batches, their sort and spill run files are package
//     cortex/internal/sorted's), RDF and resumable imports (rdf.go,
//     resume.go)
//   - recovery at Open: recover.go, undo.go, journal.go
//   - the checker: check.go
//   - memory and disk guards: memory*.go, diskspace.go, diskusage*.go
//   - the SPARQL adapter: dataset.go, query.go, results.go
//
// Cayley's on-disk layout is package cortex/internal/layout's; the data of
// sorted writes (batches, segments, their sort, spill runs) is package
// cortex/internal/sorted's; Badger
// transactions go through cortex/internal/badgerkv.
package engine
