package engine

import "github.com/dgraph-io/badger/v4"

// sizeBadger sizes Badger's memory from the store's memory budget (see
// Options.WithMemoryBudget): memtables of 64 MiB (Badger's default: it bounds
// the largest transaction, which MaxDeltaQuads relies on), one per 256 MiB of
// budget, 2 to 5 of them, and a block cache of budget/16. Badger's defaults
// (five memtables, a 256 MiB block cache) alone took most of cortexctl's
// default limit.
func sizeBadger(b badger.Options, budget int64) badger.Options {
	b.MemTableSize = 64 << 20
	b.NumMemtables = int(min(max(budget/(256<<20), 2), 5))
	b.BlockCacheSize = budget / 16
	return b
}
