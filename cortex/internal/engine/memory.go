package engine

import "github.com/dgraph-io/badger/v4"

// Badger's sizes at the default memory budget; see sizeBadger.
const (
	memTableBytes = 16 << 20
	// levelZeroTables is Badger's NumLevelZeroTables: level 0 is compacted
	// into level 1 once it holds this many tables.
	levelZeroTables = 10
)

// sizeBadger sizes Badger's memory from the store's memory budget (see
// Options.WithMemoryBudget) and sets when it compacts level 0. Measured with
// the host workload (cmd/hostload, docs/PERFORMANCE.md "Session 22"):
//
//   - Memtables of 16 MiB, one per 512 MiB of budget, 2 to 5 of them (2 at
//     the default budget). A memtable's arena (~21 MB for 16 MiB) lives on
//     the Go heap, which the collector lets grow to twice what is live:
//     with Badger's 64 MiB memtables the host workload peaked at 550–600 MB
//     RSS. A memtable also bounds the largest Badger transaction, 15% of it
//     (~26,000 entries or ~2.5 MB at 16 MiB): a delta that does not fit is
//     journaled (Namespace.Apply), and an import cuts its chunks to fit
//     (bulkState.inPieces).
//   - A block cache of budget/128 (8 MiB at the default; at least 4 MiB).
//     It holds decompressed blocks; the benchmark queries at 1M quads ran as
//     fast with 8 MiB as with 64 MiB.
//   - Level 0 compacted at levelZeroTables tables instead of at its first:
//     each flush of a memtable no longer starts a compaction of its own,
//     whose table builders took another ~150 MB at the peak.
func sizeBadger(b badger.Options, budget int64) badger.Options {
	b.MemTableSize = memTableBytes
	b.NumMemtables = int(min(max(budget/(512<<20), 2), 5))
	b.BlockCacheSize = max(budget/128, 4<<20)
	b.NumLevelZeroTables = levelZeroTables
	b.NumLevelZeroTablesStall = 2 * levelZeroTables
	return b
}
