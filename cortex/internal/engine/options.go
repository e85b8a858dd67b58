package engine

import (
	"fmt"
	"strconv"

	"github.com/dgraph-io/badger/v4"
)

// Options configure Open. Build them with DefaultOptions and the WithX
// methods; they are validated once, by Open (options out of range are an
// error matching ErrInvalidArgument).
type Options struct {
	inMemory   bool
	syncWrites bool
	chunkQuads int
	readOnly   bool
	noCreate   bool
	valueCache int
	segBytes   int64 // 0: from the memory budget
	memBudget  int64
	governor   bool // WithMemoryBudget was called: trim mapped pages (memory_linux.go)

	logger           Logger
	recoveryProgress func(RecoveryProgress)

	tuning Tuning
	hooks  testHooks // set by tests only (export_test.go, *_internal_test.go)
}

// Logger receives the storage engine's warnings and errors (Badger's), one
// message per call. *log.Logger satisfies it.
type Logger interface {
	Printf(format string, v ...any)
}

// Defaults.
const (
	// DefaultChunkQuads is the number of quads an import prepares at a
	// time; a chunk that does not fit in one Badger transaction is cut
	// into pieces that do (bulkState.inPieces).
	DefaultChunkQuads = 8192
	// MaxDeltaQuads bounds the Apply or Update written in one Badger
	// transaction; a delta with more quads (additions plus removals) is
	// journaled: still atomic, but it holds the store's other transactions
	// back while it commits (see Namespace.Apply). It is the default and
	// the maximum of Tuning.MaxDeltaQuads.
	MaxDeltaQuads = 4096
	// MaxSideKey bounds the bytes of a side-table row's key (Tx.PutSide):
	// escaped and prefixed, it stays under Badger's key size limit (65,000
	// bytes).
	MaxSideKey = 16 << 10
	// DefaultImportSegmentBytes is the default memory budget of an import
	// segment's writes (see Namespace.Import): about 170k triples of the
	// bench data; beyond it they are spilled to sorted run files in the store
	// directory (docs/PERFORMANCE.md). It is an eighth of the default memory
	// budget.
	DefaultImportSegmentBytes = DefaultMemoryBudget / 8
	// DefaultMemoryBudget is the default of Options.WithMemoryBudget.
	DefaultMemoryBudget = 1 << 30
)

// DefaultOptions returns the default options: persistent, synchronous writes
// (every commit is on disk when it returns), DefaultChunkQuads per import chunk.
func DefaultOptions() Options {
	return Options{syncWrites: true, chunkQuads: DefaultChunkQuads, valueCache: 1 << 16, memBudget: DefaultMemoryBudget}
}

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
func (o Options) WithMemoryBudget(n int64) Options {
	o.memBudget, o.governor = n, true
	return o
}

// importSegmentBytes returns the import segment budget in effect.
func (o Options) importSegmentBytes() int64 {
	if o.segBytes != 0 {
		return o.segBytes
	}
	return o.memBudget / 8
}

// WithImportSegmentBytes sets the memory budget of an import segment: the
// writes of the chunks computed before they are written together, and their
// sort. When they reach it, they are sorted and spilled to a temporary run
// file in the store directory in the background while the segment goes on
// filling (so up to about twice the budget is in memory meanwhile, plus the
// sort's scratch); the runs are merged when it is written. A larger budget
// means fewer runs and more memory.
// Default an eighth of the memory budget (DefaultImportSegmentBytes with the
// default budget, see WithMemoryBudget); minimum 1 MiB (1<<20 bytes).
func (o Options) WithImportSegmentBytes(n int64) Options { o.segBytes = n; return o }

// WithInMemory keeps all data in memory (the dir argument of Open is ignored).
// Default false. Useful for quick experiments; nothing survives Close. An
// in-memory store holds terms (and side-table rows) of up to about 1 MB
// (Badger keeps every value in its memtable): a write of a larger one fails
// with ErrInvalidQuad.
func (o Options) WithInMemory(v bool) Options { o.inMemory = v; return o }

// WithSyncWrites selects whether each commit waits for fsync. Default true.
// Without it a process crash (even kill -9) loses nothing committed, but a
// machine crash may lose the last commits.
func (o Options) WithSyncWrites(v bool) Options { o.syncWrites = v; return o }

// WithChunkQuads sets the number of quads an import prepares at a time.
// Default DefaultChunkQuads; valid range 1..65536 (a chunk that Badger
// refuses as one transaction is cut into pieces that fit, and so are the
// import's later chunks).
func (o Options) WithChunkQuads(n int) Options { o.chunkQuads = n; return o }

// WithLogger sends Badger's warnings and errors to l. Default nil: they are
// dropped (what matters to a caller is returned as an error).
func (o Options) WithLogger(l Logger) Options { o.logger = l; return o }

// WithRecoveryProgress sets a function that Open calls while it rolls back a
// streamed import segment or a large write that a crash interrupted: once
// when it starts, once the keys to roll back are counted, every few
// thousand keys, and once when it is done. It runs on Open's goroutine.
// Default nil. Open's context cancels a roll-back (the next Open does it
// again).
func (o Options) WithRecoveryProgress(fn func(RecoveryProgress)) Options {
	o.recoveryProgress = fn
	return o
}

// WithReadOnly opens the store read-only. Default false. A read-only Open
// never creates anything (see Open).
func (o Options) WithReadOnly(v bool) Options { o.readOnly = v; return o }

// WithCreate selects whether Open creates the directory and an empty store
// when dir holds none. Default true; without it, such an Open fails with
// an error matching ErrNoStore. A read-only Open never creates.
func (o Options) WithCreate(v bool) Options { o.noCreate = !v; return o }

func (o Options) validate() error {
	if err := o.tuning.validate(); err != nil {
		return fmt.Errorf("tuning: %w", err)
	}
	if o.chunkQuads < 1 || o.chunkQuads > 65536 {
		return fmt.Errorf("chunk size %d out of range 1..65536", o.chunkQuads)
	}
	if o.memBudget < 256<<20 {
		return fmt.Errorf("memory budget %d bytes is below 256 MiB", o.memBudget)
	}
	if o.importSegmentBytes() < 1<<20 {
		return fmt.Errorf("import segment budget %d bytes is below 1 MiB (1048576)", o.importSegmentBytes())
	}
	if o.inMemory && o.readOnly {
		return fmt.Errorf("an in-memory store cannot be read-only")
	}
	return nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// testHooks are settings and hooks that only tests set (export_test.go and
// the white-box tests); none is part of the API. The zero value is the
// store's normal behaviour.
type testHooks struct {
	// segmentBytes, if not 0, ends an import segment once it holds that
	// many bytes in memory (tests that need tiny segments).
	segmentBytes int64
	// spillBytes, if not 0, lowers the spill threshold of import segments
	// below Options.importSegmentBytes.
	spillBytes int64
	// noReportEarly keeps the import loop from reporting a completed commit
	// while it waits for the next chunk (forces the speculative path).
	noReportEarly bool
	// noSegments turns segment mode off (tests of the chunked path).
	noSegments bool

	// journal is called at points of a journaled delta ("written",
	// "committed" after each of its transactions); stream at points of a
	// streamed write ("prepared", "group-done", "flushed"). The crash tests
	// stop a process there.
	journal, stream func(stage string)
	// spill runs at the start of each spill's goroutine, with the count of
	// chunks the store had accumulated when the spill was detached; an
	// error fails the spill.
	spill func(detached int64) error
	// delta runs in a one-transaction delta (writeDelta) before its commit.
	delta func()
	// rollback runs before the in-process roll-back of a journaled delta
	// that failed; an error stands for a failed roll-back.
	rollback func() error
	// unregister runs in the transaction that deletes a namespace's
	// registry entry (DeleteNamespace, DeleteIfUnused), before its commit;
	// an error stands for a failed commit.
	unregister func() error
	// deleteNamespace runs between the two steps of DeleteNamespace; an
	// error stops it there, as a crash would.
	deleteNamespace func() error
	// dropLeftovers runs before Open drops a deleted namespace's leftover
	// keys; an error stands for a failed drop (a full disk).
	dropLeftovers func() error
	// badger adjusts the Badger options (e.g. small memtables, to make
	// level-0 tables cheaply).
	badger func(badger.Options) badger.Options
	// freeSpace replaces statfsFree (an injected full disk).
	freeSpace func(dir string) (int64, error)
	// undoRenamed runs when a streamed segment's undo file has been
	// renamed into place, before the directory is synced; an error stands
	// for a failed sync.
	undoRenamed func() error
	// dirSync runs before each sync of the store's directory that makes a
	// journal or undo file appear or disappear; an error stands for a
	// failed sync.
	dirSync func() error
}

func (h *testHooks) atJournal(stage string) {
	if h.journal != nil {
		h.journal(stage)
	}
}

func (h *testHooks) atStream(stage string) {
	if h.stream != nil {
		h.stream(stage)
	}
}
