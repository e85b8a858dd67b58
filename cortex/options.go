package cortex

import "github.com/cortexgraph/cortex/cortex/internal/engine"

// Options configure Open. Build them with DefaultOptions and the WithX
// methods; they are validated once, by Open (options out of range are an
// error matching ErrInvalidArgument).
type Options struct {
	o engine.Options
}

// Logger receives the storage engine's warnings and errors (Badger's), one
// message per call. *log.Logger satisfies it.
type Logger interface {
	Printf(format string, v ...any)
}

// Defaults.
const (
	// DefaultChunkQuads is the number of quads an import prepares at a
	// time (8192); a chunk that does not fit in one Badger transaction is
	// cut into pieces that do, and the import's later chunks with it.
	DefaultChunkQuads = engine.DefaultChunkQuads
	// MaxDeltaQuads bounds the Apply or Update written in one Badger
	// transaction (4096); a delta with more quads (additions plus removals)
	// is journaled: still atomic, but it holds the store's other
	// transactions back while it commits (see Namespace.Apply). It is the
	// default and the maximum of Tuning.MaxDeltaQuads.
	MaxDeltaQuads = engine.MaxDeltaQuads
	// MaxSideKey bounds the bytes of a side-table row's key (16 KiB, see
	// Tx.PutSide): Badger bounds a key's size.
	MaxSideKey = engine.MaxSideKey
	// DefaultImportSegmentBytes is the default memory budget of an import
	// segment's writes (see Namespace.Import): about 170k triples of the
	// bench data; beyond it they are spilled to sorted run files in the store
	// directory (docs/PERFORMANCE.md). It is an eighth of the default memory
	// budget.
	DefaultImportSegmentBytes = engine.DefaultImportSegmentBytes
	// DefaultMemoryBudget is the default of Options.WithMemoryBudget (1 GiB).
	DefaultMemoryBudget = engine.DefaultMemoryBudget
)

// DefaultOptions returns the default options: persistent, synchronous writes
// (every commit is on disk when it returns), DefaultChunkQuads per import chunk.
func DefaultOptions() Options { return Options{engine.DefaultOptions()} }

// WithMemoryBudget sizes the store's memory from n bytes, the memory the
// process may use for it:
//
//   - Badger's memtables: one of 16 MiB per 512 MiB of budget, 2 to 5 (their
//     logs are memory-mapped files; each costs ~40 MB of heap with the Go
//     collector's default target);
//   - Badger's block cache: n/128, at least 4 MiB;
//   - an import segment's writes: n/8 (unless WithImportSegmentBytes is
//     given), up to twice that while a spill runs (Namespace.Import);
//   - the rest is for the Go heap: queries, merges, an import's maps. The
//     store does not bound the heap itself; a host sets a soft limit
//     (GOMEMLIMIT or runtime/debug.SetMemoryLimit), as cortexctl does.
//
// When it is called, the store also keeps the process's resident memory
// near n on Linux: Badger reads and writes its tables through memory maps,
// whose resident pages count in the process's RSS and grow with the store
// (a 1 GB import mapped about as much again). When the process's RSS passes
// n and mapped files make up more than an eighth of n, the store asks the
// kernel to page its table files out (madvise MADV_PAGEOUT: a hint that
// never loses data; the pages are read from disk again when needed). It
// looks twice a second.
//
// Default DefaultMemoryBudget for the sizes, without the RSS governor;
// minimum 256 MiB.
func (o Options) WithMemoryBudget(n int64) Options { o.o = o.o.WithMemoryBudget(n); return o }

// WithImportSegmentBytes sets the memory budget of an import segment: the
// writes of the chunks computed before they are written together, and their
// sort. When they reach it, they are sorted and spilled to a temporary run
// file in the store directory in the background while the segment goes on
// filling (so up to about twice the budget is in memory meanwhile, plus the
// sort's scratch); the runs are merged when it is written. A larger budget
// means fewer runs and more memory.
// Default an eighth of the memory budget (DefaultImportSegmentBytes with the
// default budget, see WithMemoryBudget); minimum 1 MiB (1<<20 bytes).
func (o Options) WithImportSegmentBytes(n int64) Options {
	o.o = o.o.WithImportSegmentBytes(n)
	return o
}

// WithInMemory keeps all data in memory (the dir argument of Open is ignored).
// Default false. Useful for quick experiments; nothing survives Close. An
// in-memory store holds terms (and side-table rows) of up to about 1 MB
// (Badger keeps every value in its memtable): a write of a larger one fails
// with ErrInvalidQuad.
func (o Options) WithInMemory(v bool) Options { o.o = o.o.WithInMemory(v); return o }

// WithSyncWrites selects whether each commit waits for fsync. Default true.
// Without it a process crash (even kill -9) loses nothing committed, but a
// machine crash may lose the last commits.
func (o Options) WithSyncWrites(v bool) Options { o.o = o.o.WithSyncWrites(v); return o }

// WithChunkQuads sets the number of quads an import prepares at a time.
// Default DefaultChunkQuads; valid range 1..65536 (a chunk that Badger
// refuses as one transaction is cut into pieces that fit, and so are the
// import's later chunks).
func (o Options) WithChunkQuads(n int) Options { o.o = o.o.WithChunkQuads(n); return o }

// WithLogger sends Badger's warnings and errors to l. Default nil: they are
// dropped (what matters to a caller is returned as an error).
func (o Options) WithLogger(l Logger) Options {
	if l == nil {
		o.o = o.o.WithLogger(nil) // not a non-nil interface holding nil
	} else {
		o.o = o.o.WithLogger(l)
	}
	return o
}

// RecoveryProgress reports a roll-back that Open performs (see
// Options.WithRecoveryProgress).
type RecoveryProgress struct {
	// What was interrupted: "import segment" (a streamed import segment) or
	// "write" (a journaled delta, e.g. a large merge).
	What      string
	Namespace string
	// Keys restored or removed so far, out of Total. Total is 0 until the
	// keys have been counted.
	Keys, Total int64
	// Done is set on the last report, when the roll-back is durable.
	Done bool
}

// WithRecoveryProgress sets a function that Open calls while it rolls back a
// streamed import segment or a large write that a crash interrupted: once
// when it starts, once the keys to roll back are counted, every few
// thousand keys, and once when it is done. It runs on Open's goroutine.
// Default nil. Open's context cancels a roll-back (the next Open does it
// again).
func (o Options) WithRecoveryProgress(fn func(RecoveryProgress)) Options {
	var efn func(engine.RecoveryProgress)
	if fn != nil {
		efn = func(p engine.RecoveryProgress) { fn(RecoveryProgress(p)) }
	}
	o.o = o.o.WithRecoveryProgress(efn)
	return o
}

// WithReadOnly opens the store read-only. Default false. A read-only Open
// never creates anything (see Open).
func (o Options) WithReadOnly(v bool) Options { o.o = o.o.WithReadOnly(v); return o }

// WithCreate selects whether Open creates the directory and an empty store
// when dir holds none. Default true; without it, such an Open fails with
// an error matching ErrNoStore. A read-only Open never creates.
func (o Options) WithCreate(v bool) Options { o.o = o.o.WithCreate(v); return o }
