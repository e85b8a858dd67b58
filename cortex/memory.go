package cortex

import "github.com/dgraph-io/badger/v4"

// sizeBadger sizes Badger's memory from the store's memory budget (see
// Options.WithMemoryBudget): three memtables of budget/32 (4 to 64 MiB) and
// a block cache of budget/16. Badger's defaults (five 64 MiB memtables, a
// 256 MiB block cache) alone took more than cortexctl's default limit.
func sizeBadger(b badger.Options, budget int64) badger.Options {
	b.MemTableSize = min(max(budget/32, 4<<20), 64<<20)
	b.NumMemtables = 3
	b.BlockCacheSize = budget / 16
	return b
}
