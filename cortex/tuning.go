package cortex

import (
	"time"

	"github.com/cortexgraph/cortex/cortex/internal/engine"
)

// Tuning holds the storage engine's finer settings: thresholds and waits
// that trade memory, latency and throughput against each other. The
// defaults (DefaultTuning) are what the store was measured with
// (docs/PERFORMANCE.md); most programs never change them. A zero field means
// "the default", so a Tuning literal names only what it changes:
//
//	opts := cortex.DefaultOptions().WithTuning(cortex.Tuning{CloseWait: 5 * time.Second})
//
// A negative field, or one outside the range its comment gives, makes Open
// fail with an error naming it.
type Tuning struct {
	// MaxDeltaQuads is the largest Apply or Update (additions, removals and
	// side-table rows) written in one Badger transaction; a larger one is
	// journaled: still atomic, but it holds the store's other transactions
	// back while it commits (see Namespace.Apply). Lower means more
	// journaled writes and smaller transactions. Default and maximum
	// MaxDeltaQuads. A delta that does not fit in one Badger transaction
	// (about 26,000 entries or 2.5 MB with the 16 MiB memtables of
	// Options.WithMemoryBudget: a quad writes five entries and a new term
	// three more, so ~1,800 triples of three new terms, or long literals)
	// is journaled whatever its number of quads.
	MaxDeltaQuads int
	// JournalTxnEntries bounds the Badger entries of each transaction of a
	// journaled delta (fewer if Badger's size limit comes first).
	// Default 20,000.
	JournalTxnEntries int
	// JournalGateWait bounds how long a streamed delta (a journaled one of
	// at least StreamMinEntries Badger entries) waits for the store's other
	// transactions to end before it fails with ErrBusy (one may belong to a
	// goroutine waiting for the namespace this delta writes); a smaller
	// journaled delta does not wait for them. Default 10s.
	JournalGateWait time.Duration
	// DropGateWait bounds how long Store.DeleteNamespace (and
	// DeleteNamespaceIfUnused, and Store.Namespace creating a namespace
	// over the leftovers of a deletion cut short) waits for the store's
	// open transactions to end before it drops the namespace's keys, which
	// needs the store to itself: a query result, a Dataset.Match iterator
	// or a Tx that its program never closes would hold it for ever. After
	// it, the call fails with an error matching ErrBusy that says what was
	// open. Default 10s.
	DropGateWait time.Duration

	// CloseWait bounds how long Store.Close waits for the store's
	// transactions to end (a write cut off after it is rolled back by the
	// next Open if it was streamed or journaled; Close then returns an
	// error matching ErrCutOff). Default 30s.
	CloseWait time.Duration
	// ResultsCloseWait is how long Close waits for query results that were
	// not closed once they are the only transactions left, before it
	// returns ErrResultsOpen. Default 2s.
	ResultsCloseWait time.Duration

	// StreamMinEntries is the fewest Badger entries an import segment or a
	// journaled delta must have to be written through Badger's stream
	// writer (all or nothing, but it holds the store's other transactions
	// back); smaller ones are committed transaction by transaction. A
	// segment that spilled to run files is always streamed. Default 200,000.
	StreamMinEntries int
	// StreamFlattenRatio: when Badger's level 0 still holds tables after
	// the memtable flush that precedes a stream (its level-0 compaction
	// could not run), the whole LSM tree would be flattened first, at a
	// CPU cost per byte close to that of writing the segment through the
	// memtable; that is done only when the tree is at most this many times
	// the segment's size in memory, otherwise a segment that did not spill
	// is committed transaction by transaction. Default 1.
	StreamFlattenRatio int64
	// StreamWriteBuffer is the size in bytes of the batches handed to
	// Badger's stream writer (by streamed writes and roll-backs). Larger
	// means fewer, bigger batches and more memory. Default 16 MiB.
	StreamWriteBuffer int
	// StreamGateWait bounds the wait for the store's other transactions to
	// end before a stream; after it the segment is committed transaction by
	// transaction instead (a spilled segment waits up to JournalGateWait).
	// Default 2s.
	StreamGateWait time.Duration

	// SegmentMaxQuads bounds the quads an import segment inserts: the
	// import remembers each of them (~60 bytes) until the segment ends.
	// Default 2,097,152.
	SegmentMaxQuads int
	// SegmentMaxRuns bounds the run files an import segment spills to
	// (Options.WithImportSegmentBytes) before it is written. Default 64.
	SegmentMaxRuns int
	// SegmentIdle is how long an open import segment waits for the source's
	// next chunk before it is written when another writer waits for the
	// namespace; SegmentStall, when none does. Shorter means other writers
	// wait less, longer means larger segments from a slow source.
	// Defaults 100ms and 1s.
	SegmentIdle, SegmentStall time.Duration

	// ImportMaxNodes, ImportMaxKeys and ImportMaxQuads bound the maps an
	// import keeps of the nodes (~60 bytes each), index keys and quads
	// (~12 bytes each) it wrote; when one is exceeded they are all cleared
	// and the import reads back what it needs. Defaults 4Mi, 8Mi and 4Mi.
	ImportMaxNodes, ImportMaxKeys, ImportMaxQuads int

	// ParallelReadMin is the fewest keys per range when a journaled delta
	// reads its keys ahead in ranges on several goroutines: below it a
	// goroutine and an iterator cost more than they save. Default 8192.
	ParallelReadMin int

	// RollbackStreamMin is the fewest keys for which Open rolls back an
	// interrupted write through the stream writer; smaller roll-backs go
	// through a write batch. Default 200,000.
	RollbackStreamMin int
	// RollbackProgressEvery is how many keys pass between the progress
	// reports of a roll-back (Options.WithRecoveryProgress) and its context
	// checks. Default 32,768.
	RollbackProgressEvery int

	// A write that needs the store to itself (a stream, a streamed delta,
	// DeleteNamespace; not a journaled delta written transaction by
	// transaction, which waits for no open transaction) waits for the open
	// transactions to end by turns: it
	// holds new transactions back for a closed window, starting at
	// GateFirstClosed and doubling each round up to GateMaxClosed, and if
	// they have not ended admits new ones again for GateOpenWindow. Holding
	// back lets a store under continuous reads drain; admitting again keeps
	// a goroutine that opens a second transaction while it holds one from
	// deadlocking against the writer. Defaults 200ms, 3s and 50ms;
	// GateFirstClosed may not exceed GateMaxClosed.
	GateFirstClosed, GateMaxClosed, GateOpenWindow time.Duration

	// GovernorEvery is how often the RSS governor (Options.WithMemoryBudget,
	// Linux) looks at the process's resident memory. Default 500ms.
	GovernorEvery time.Duration
}

// DefaultTuning returns the default value of every Tuning field.
func DefaultTuning() Tuning { return Tuning(engine.DefaultTuning()) }

// WithTuning sets the engine's finer settings (see Tuning); zero fields keep
// their defaults. Default DefaultTuning().
func (o Options) WithTuning(t Tuning) Options { o.o = o.o.WithTuning(engine.Tuning(t)); return o }
