// Package cortex is the Cortex knowledge-graph store: a cayley graph/kv
// quadstore per namespace, on one embedded Badger v4 database.
//
// Open a store with Open, pick a namespace with Store.Namespace, then write
// with Namespace.Apply, Update or Import and read with Quads, EachQuad,
// Graphs or Query (SPARQL). ImportRDF and Export speak N-Triples, N-Quads and
// Turtle (package rdfio). Namespace.Dataset is the id-level view (the SPARQL
// evaluator's ids, patterns and quads) for hosts that read their own
// structures by id, as Cortex's team manager does.
//
// Store.Namespace creates a namespace on first use and records its IRI base
// (WithBase); Store.OpenNamespace opens only an existing one
// (ErrNoNamespace otherwise), Store.Namespaces lists them and
// Store.DeleteNamespace deletes one with its data. A write that creates
// its namespace uses Store.NamespaceCreated and, if it fails, calls
// Store.DeleteNamespaceIfUnused, which deletes the namespace again unless
// something else obtained it or wrote to it meanwhile: a failed write
// leaves no empty namespace behind. A store opened with
// Options.WithReadOnly creates nothing: no directory, no store, no
// namespace (ErrNoStore, ErrNoNamespace). Namespace.WriteStats counts a
// namespace's committed deltas, the Badger keys they wrote and the waits
// for its write lock since the store opened it.
//
// # Layers
//
// Each package imports only the ones below it; TestLayers (layers_test.go)
// checks the module's import graph against this list, edge by edge:
//
//   - Importing nothing of the module: internal/pathtext (file paths as
//     messages name them, quoted unless plain text, for the messages of
//     spec, config, rdfio, the engine, the server and the CLI),
//     internal/ctxcause (a context's cause in an error), internal/proc
//     (whether a process of this machine is alive: stale discovery files, a
//     dead driver's hold of a run, the holder of a store's lock named), internal/jsonexact (JSON decoded with
//     member names matched exactly and none given twice: the server's
//     params, the CLI's files, teammanager's JSON findings), namespace (the
//     namespace-name rule, IRIs and graph names), merge (the merge
//     strategies: pure functions over findings, never storage) and
//     fixtures (the embedded vocabulary and sample data).
//   - cortex/internal/layout: Cayley's on-disk layout and nothing else —
//     buckets, meta keys, node, log, pin and index keys, their escaping, the
//     decoder of log entries. The only code that knows the bytes.
//   - cortex/internal/badgerkv: hidalgo's KV interface over Badger, with the
//     store's gate on every transaction. cortex/internal/lex,
//     cortex/internal/iri and cortex/internal/ntriples (over lex): the
//     lexical pieces shared by the parsers (one copy each).
//   - cortex/rdfio: RDF parsers and writers (N-Triples, N-Quads, Turtle;
//     RDF/XML written only); cortex/rdfio/rdftest: helpers for tests of
//     RDF (isomorphism, diffs, rdflib's reading), importing nothing of the module.
//   - cortex/sparql: parser → algebra → eval → results, a package each:
//     cortex/sparql/algebra (the algebra tree), cortex/sparql/parser (text
//     to algebra), cortex/sparql/builtin (the functions),
//     cortex/sparql/eval (the planner and evaluator, over algebra and
//     builtin), cortex/sparql/results (the result formats), and
//     cortex/sparql over them. The evaluator reads an eval.Dataset: ids,
//     patterns, quads and scopes are defined there, once, and are what
//     Namespace.Dataset serves.
//   - cortex/internal/sorted: the data of sorted writes, without the store:
//     batches of Badger entries, segments of batches, their radix sort into
//     disjoint key groups, spill run files and their merge, the stream
//     writer's record encoding.
//   - cortex/internal/engine: the storage engine, one package because its
//     parts share the Store and Namespace state (the write lock, the gate,
//     the caches) and call each other both ways: open and locks (store.go,
//     lock_*.go, which name a live holder with internal/proc), the gate (gate.go), snapshots and scans (scan*.go,
//     match.go, prefetch.go), terms and caches (terms.go, read.go,
//     cache.go, stats.go), writes and the journal (write.go, journal.go),
//     side tables and pins (side.go, teamsupport.go), imports (import.go,
//     bulk*.go, segments.go; streamed writes in stream.go and undo.go, on
//     package sorted), recovery (recover.go, resume.go), the checker
//     (check.go), memory and disk guards (memory*.go, diskspace.go), the
//     SPARQL adapter (dataset.go, query.go, results.go). Its exported names
//     are what this package wraps, and nothing else imports it. Bulk
//     loading stays in it: it computes its writes under the namespace's
//     write lock from the namespace's term cache and write generations,
//     and ends in the journal's and the stream's code.
//   - cortex (this package): the public API only — Open, Options and
//     Tuning, Store, Namespace and its reads, writes, imports, exports and
//     queries, Delta and Tx, Pattern, Dataset, errors — as thin wrappers of
//     the engine's types. Plain data types (Delta, Pattern, ImportOptions,
//     ...) are declared here and converted field for field (Tuning too;
//     its default values are the engine's, engine/tuning.go); the error
//     types are the engine's, under aliases, so that errors.Is and
//     errors.As match whichever layer made the error. Over it,
//     cortex/cortextest: the test stores whose cleanup runs Store.Check.
//   - Beside them: spec (multi-agent-spec definitions: parse, validate,
//     marshal; it imports internal/pathtext only) and config (the JSON5
//     config file: spec, namespace, internal/pathtext).
//   - Above cortex: teammanager (of cortex's API, Namespace, Tx and
//     Dataset only; merge for the strategies, config, namespace,
//     internal/jsonexact for JSON findings files),
//     defstore (definitions stored as RDF), workflow (runs of team
//     definitions, over teammanager), api (the JSON shapes and error
//     classes of the CLI and the server), server, client; cmd/ holds the
//     commands.
//
// # Storage
//
// (The files named from here on are those of cortex/internal/engine.)
//
// Each namespace lives under its own key prefix in cayley's on-disk format
// (node, log, index and meta buckets; package cortex/internal/layout),
// initialised with cayley's kv.Init and readable by cayley's kv.New. Cortex writes that format itself: bulk imports
// without per-quad reads, bounded deltas in one transaction (the engine's
// bulk.go and write.go). Its four indexes each cover all four quad positions (SPOG,
// POSG, OSPG, GSPO) and are kept exact — a removed quad's index keys are
// deleted and terms no quad uses are garbage-collected — so pattern matching
// reads index keys only (scan.go). Beside cayley's buckets, Cortex keeps one
// of its own, the pins (Delta.Pin): the id → term entries of terms a host
// lists often, so that Dataset.PinnedTermsBatch reads them from a small table
// instead of the quad log; cayley's readers ignore it. And side tables
// (side.go): rows of terms a host keeps beside the quads, written by Update
// atomically with its delta, with a stamp that tells whether any write has
// changed the quads since the host last kept the table in step (SideRows,
// SideCurrent); Cortex's team manager lists teams from one.
//
// Store.Check and Namespace.Check verify these invariants (check.go): every
// index holds exactly the live quads, sizes and reference counts are exact,
// no term is orphaned, pins, import records and side tables are consistent
// and every key belongs somewhere. They read the whole store, never write,
// and work on a store opened read-only; package cortextest runs Check after
// every test that opens a store.
//
// # Atomicity
//
// Apply and Update are all or nothing at any size, and readers see all of a
// delta or none of it: up to MaxDeltaQuads quads (Tuning.MaxDeltaQuads) are
// one Badger transaction if they fit in one (~26,000 entries or 2.5 MB with
// the default 16 MiB memtables);
// a larger delta is journaled (journal.go): it holds the store's other
// transactions back while it is written (streamed when large) and a crash in
// the middle is rolled back by the next Open. Update is an atomic
// read-modify-write: writers of a namespace are serialised and the function
// sees the latest committed state. Since they are serialised, a namespace's
// delta reuses the term nodes (ids, reference counts) its previous delta
// read and wrote, when Badger's timestamps show that nothing else was
// committed in between (nodecache.go).
// Import on a persistent store works in segments (segments.go): chunks of
// DefaultChunkQuads quads are computed under the namespace's write lock and
// written together when the segment is full (~2M quads,
// Tuning.SegmentMaxQuads), the source ends or is slow. Its writes beyond the import budget (128 MB by default) are
// sorted and spilled to temporary run files in the store directory, in the
// background while the segment goes on filling (so up to about twice the
// budget is held meanwhile), and merged when the segment is written. A large
// segment is written through Badger's StreamWriter (stream.go): sorted
// tables instead of memtable inserts, all or nothing even across a crash (an
// undo file rolls it back on the next Open). A small one is committed one transaction per chunk. A
// source error in the first chunk writes nothing; a later one reports what
// was committed in an *ImportError; re-running an import converges (quads
// are a set; blank nodes are scoped by the import id). Commits are fsync'd
// unless the store is opened WithSyncWrites(false); a killed process never
// loses a commit. In-memory stores use the chunked, pipelined writer
// (bulk.go).
//
// # Tuning
//
// Options set what a program usually chooses (memory budget, chunk size,
// durability); the engine's finer thresholds and waits are fields of Tuning,
// given with Options.WithTuning, each documented with its default. A store
// keeps the values it was opened with: there is no package-level setting.
//
// # Concurrency
//
// A Store and its Namespaces are safe for concurrent use by many goroutines.
// Reads see committed data; a query (Namespace.Query) reads one consistent
// snapshot until its result is closed. Only one process may open a persistent
// store at a time: another gets a *LockedError (errors.Is ErrLocked) at once.
// A write waiting for its namespace's write lock (Apply, Update, an
// import's segments and chunks) gives up with its context's error when
// the context ends, having written nothing. Every read of data (Quads,
// Query, Size, the side tables, the methods of Dataset, Namespaces, Check...;
// not Store.Namespace or OpenNamespace, which open a handle) called with a context
// that has already ended returns an error wrapping the context's error
// (errors.Is context.Canceled or context.DeadlineExceeded) and reads
// nothing; a context that ends while a scan runs stops it.
// Iterators (of Dataset.Match) and Tx values are for one goroutine. Close may be
// called while other goroutines work: it waits (up to 30 seconds,
// Tuning.CloseWait) for the
// transactions in progress, and everything started after it fails with
// ErrClosed. A query result that is dropped without being closed is closed
// by the garbage collector; one still referenced and never closed is
// reported by Close (ErrResultsOpen, with where it was opened) after two
// seconds (Tuning.ResultsCloseWait) instead of holding it for 30. Anything
// else still open when the 30 seconds run out (a Dataset.Match iterator or
// a Tx never closed, a write) is cut off, and Close reports it with an
// error matching ErrCutOff.
//
// A streamed segment and a streamed delta (~200k Badger entries and more)
// need the store to themselves for the seconds they take to write (up to
// tens of seconds for a spilled segment of 2M quads): they wait until no
// Badger transaction of the store is open (queries not yet closed included)
// and hold new ones back meanwhile (gate.go). If that takes more than two
// seconds (Tuning.StreamGateWait; an open query
// may belong to a goroutine waiting for the importing namespace), a segment
// is committed chunk by chunk instead; a segment that spilled to run files
// and a streamed delta wait up to ten seconds (Tuning.JournalGateWait) and
// then fail with ErrBusy,
// having written nothing. A journaled delta written transaction by
// transaction waits for nothing: it holds new transactions back while it is
// written and lets the open ones go on, as their snapshots are older than
// it. So nothing deadlocks; close queries before
// writing large deltas or importing large files. Store.DeleteNamespace (and
// the creation of a namespace over the leftovers of a deletion cut short)
// needs the store to itself too, to drop the namespace's keys: it waits up to
// ten seconds (Tuning.DropGateWait) and then fails with ErrBusy, naming what
// was open. While they wait, they run
// the garbage collector, which closes query results that were dropped
// without being closed: a reader that is gone does not hold them.
//
// # Caveats
//
//   - Import throughput is bounded by Badger's per-entry cost: about 6 Badger
//     entries per triple in cayley's format (see docs/PERFORMANCE.md), each
//     decoded by Badger's StreamWriter with the reflective protobuf decoder
//     (docs/badger-streamwriter.md proposes a faster one to upstream).
//   - Before a stream, the memtables are flushed and Badger compacts level 0
//     into the level below while the store's other transactions wait; that
//     compaction is the cost of streaming into a large store. Badger
//     compacts level 0 in the background once it holds 10 tables (fewer
//     compactions hold less memory), and levels down from a one-table size,
//     so that streamed data moves to the last levels between writes
//     (Badger's defaults left it where it landed). Streaming pays off for large loads;
//     segments of fewer than ~200k Badger entries (Tuning.StreamMinEntries)
//     are committed chunk by chunk (slower, not atomic as a whole).
//   - An import's budget bounds its own buffers, not the process: Go's
//     collector lets the heap grow to about twice what is live. A host that
//     must stay within a memory bound sets a soft limit (GOMEMLIMIT or
//     runtime/debug.SetMemoryLimit); cortexctl sets 768 MiB by default, with
//     which a 1 GB N-Triples file imports within 1 GB (docs/PERFORMANCE.md).
//   - A large import needs free disk space in the store directory for its
//     run files: about 300 bytes per quad of a segment (~600 MB for 2M
//     quads of the bench data) at most, removed when the segment is written.
//   - Literals are stored exactly as given: language tags keep their case, so
//     "x"@EN and "x"@en are two terms. A literal that export could not write
//     (text not valid UTF-8, a malformed language tag, a relative datatype
//     IRI), or that RDF 1.1 does not allow (datatype rdf:langString without
//     a language tag, as a quad.TypedString of that type is), is refused
//     with ErrInvalidQuad; lookups and removals do not check,
//     so a term stored before can still be found and removed.
//   - A query result holds a read transaction until it is closed.
package cortex
