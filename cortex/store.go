package cortex

import (
	"context"

	"github.com/cortexgraph/cortex/cortex/internal/engine"
)

// Store is a Cortex knowledge graph: one Badger database holding any number of
// isolated namespaces, each a cayley quadstore with its own default graph and
// named graphs.
//
// A Store is safe for concurrent use by multiple goroutines. Only one process
// may open a persistent store at a time; a second gets a *LockedError.
type Store struct {
	e *engine.Store
}

// Open opens the store in dir, creating the directory (mode 0700, as a
// database's data directory: its files hold every namespace's data, which
// a server's tokens do not guard against other users of the machine) and
// an empty store if needed; an existing directory keeps its mode. With opts.WithInMemory(true), dir is ignored and nothing is written
// to disk. If another process has the store open, Open returns an error
// matching ErrLocked (a *LockedError naming the directory and, where known,
// the process that has it open read-write) without waiting.
//
// With opts.WithReadOnly(true) or opts.WithCreate(false) Open creates
// nothing: a directory that does not exist or holds no store is an error
// matching ErrNoStore ("no store at DIR"). A read-only Open of a store
// that a killed or crashed process left unclosed (Badger's log to replay,
// a write that a crash interrupted) fails with an error matching
// ErrRecoveryNeeded and changes nothing in dir; a read-write Open recovers
// it (replays the log, rolls the write back). Any number of
// processes may open a store read-only at once, but not while one has it
// open read-write (ErrLocked either way). A read-write Open needs the room
// that a namespace's deletion needs on a full disk (see DeleteNamespace),
// less than a write: without it, it fails with a *NoSpaceError; a read-only
// Open works on a full disk.
func Open(ctx context.Context, dir string, opts Options) (*Store, error) {
	e, err := engine.Open(ctx, dir, opts.o)
	if err != nil {
		return nil, err
	}
	return &Store{e}, nil
}

// Dir returns the directory of the store ("" for an in-memory store).
func (s *Store) Dir() string { return s.e.Dir() }

// ReadOnly reports whether the store was opened read-only (Options.WithReadOnly): every write fails with ErrReadOnly.
func (s *Store) ReadOnly() bool { return s.e.ReadOnly() }

// Close releases the store. Namespaces obtained from it become unusable:
// their operations fail with ErrClosed. Close first waits, up to 30 seconds
// (Tuning.CloseWait), for the transactions in progress to end (a write being
// committed, a streamed segment or journaled delta being written, a query
// result being read), refusing new ones meanwhile; a write cut off after
// that fails with an error matching ErrClosed (a streamed one stops at its
// next buffer of keys, a journaled one at its next transaction, which Close
// waits for) and is rolled back by the next Open if it was streamed or
// journaled. Close then returns an error matching ErrCutOff that says how
// many transactions were still open (a Dataset.Match iterator or a Tx never
// closed holds Close for the whole wait); the store is closed all the same.
// Query results that were not closed do not hold it that long: those the
// program no longer references are closed by the garbage collector, and
// once only results still referenced are left, Close waits two seconds more
// for them (Tuning.ResultsCloseWait) and then returns an error matching
// ErrResultsOpen (which also matches ErrCutOff) that says where each was opened (the store is closed all
// the same; reading such a result on fails with an error matching
// ErrClosed). Closing twice is not an error: a second Close returns once
// the first has released the store (its files and lock), nil.
func (s *Store) Close() error { return s.e.Close() }

// Namespace returns the namespace called name, creating it if it does not
// exist yet. The name must satisfy namespace.ValidateName. A new namespace
// records its IRI base: the one given with WithBase, else the default
// namespace.DefaultBasePrefix+name. For an existing namespace, a WithBase
// that differs from the recorded base is an error matching
// ErrBaseMismatch (a *BaseMismatchError naming both). On a read-only store
// a missing namespace is an error matching ErrNoNamespace. Safe for
// concurrent use; every call for one name returns the same *Namespace
// until Close, or until DeleteNamespace or DeleteNamespaceIfUnused deletes it.
func (s *Store) Namespace(ctx context.Context, name string, opts ...NamespaceOption) (*Namespace, error) {
	return s.wrap(s.e.Namespace(ctx, name, engineOptions(opts)...))
}

// NamespaceCreated is Namespace that also reports whether this call
// created the namespace. A caller that creates a namespace for a write
// calls DeleteNamespaceIfUnused when the write fails, so that a failed
// write leaves no empty namespace behind:
//
//	n, created, err := s.NamespaceCreated(ctx, name)
//	...
//	if err := write(n); err != nil {
//		if created {
//			s.DeleteNamespaceIfUnused(ctx, n)
//		}
//		return err
//	}
func (s *Store) NamespaceCreated(ctx context.Context, name string, opts ...NamespaceOption) (*Namespace, bool, error) {
	e, created, err := s.e.NamespaceCreated(ctx, name, engineOptions(opts)...)
	n, err := s.wrap(e, err)
	return n, created && err == nil, err
}

// DeleteNamespaceIfUnused deletes namespace n, which NamespaceCreated
// created for a write that then failed, if nothing else may be using it,
// and reports whether it deleted it. It keeps n (false, nil) when another
// call of Namespace, NamespaceCreated or OpenNamespace returned n since it
// was created (whether or not that caller has written to it yet), when a
// write to n is in progress, or when n holds anything its creation did not
// write (a chunk of the failed write that was committed, an import
// record); and when n was not created by this Store (an earlier process
// created it) or was deleted meanwhile. The check and the deletion are done with the
// namespace's write lock held and its name claimed: a concurrent Namespace
// call for the name waits, then creates the namespace anew, so a writer
// that has not obtained n never writes into the deleted namespace, and one
// that has keeps it. It runs even if ctx has ended (the failure it cleans
// up after is often ctx's). The deletion is DeleteNamespace's, crash-safe
// in the same way: the registry entry goes first, atomically; keys a crash
// leaves behind belong to no namespace and are dropped when the name is
// created again. After it returns true, n must not be used.
func (s *Store) DeleteNamespaceIfUnused(ctx context.Context, n *Namespace) (bool, error) {
	if n == nil || n.s != s {
		return false, nil
	}
	return s.e.DeleteIfUnused(ctx, n.e)
}

// OpenNamespace is Namespace for a namespace that must exist: it never
// creates one, and a missing namespace is an error matching ErrNoNamespace
// (`no such namespace "x"`), which also matches ErrNotFound.
func (s *Store) OpenNamespace(ctx context.Context, name string, opts ...NamespaceOption) (*Namespace, error) {
	return s.wrap(s.e.OpenNamespace(ctx, name, engineOptions(opts)...))
}

// wrap returns the one *Namespace of the engine's namespace e.
func (s *Store) wrap(e *engine.Namespace, err error) (*Namespace, error) {
	if err != nil {
		return nil, err
	}
	return e.Wrapper(func() any { return &Namespace{s: s, e: e} }).(*Namespace), nil
}

// NamespaceOption configures Namespace and OpenNamespace.
type NamespaceOption func(*nsOptions)

type nsOptions struct {
	base    string
	hasBase bool
}

// WithBase gives the namespace's IRI base (see namespace.WithBase for what
// is valid, and namespace.CheckNewBase for what a new namespace's base must
// also be): recorded when Namespace creates the namespace, compared with
// the recorded base when it exists.
func WithBase(base string) NamespaceOption {
	return func(o *nsOptions) { o.base, o.hasBase = base, true }
}

func engineOptions(opts []NamespaceOption) []engine.NamespaceOption {
	var o nsOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if !o.hasBase {
		return nil
	}
	return []engine.NamespaceOption{engine.WithBase(o.base)}
}

// Namespaces lists the names of the namespaces in the store, sorted. If ctx has ended when it is called, it returns an error wrapping ctx's
// error (context.Canceled or context.DeadlineExceeded) and reads nothing.
func (s *Store) Namespaces(ctx context.Context) ([]string, error) { return s.e.Namespaces(ctx) }

// DeleteNamespace deletes the namespace called name with all its data. A
// missing namespace is an error matching ErrNoNamespace; a read-only store
// refuses.
//
// It is atomic for readers: the namespace's registry entry is deleted
// first, in one transaction, and from then on the namespace does not exist
// (Namespaces omits it, OpenNamespace fails); its keys are dropped next
// (Badger's DropPrefix), with the store's other transactions held back
// meanwhile. If that second step is cut short (a crash, an error), the
// leftover keys belong to no namespace and are dropped by the next
// read-write Open (which seeks once per namespace to find them) or when a
// namespace of that name is created again, whichever comes first: it
// starts empty, never with old data.
// Dropping the keys needs the store to itself: it waits for the store's
// open transactions to end (query results, Dataset.Match iterators and Tx
// values not closed yet hold it), up to ten seconds (Tuning.DropGateWait),
// and then fails with an error matching ErrBusy that says what was open;
// the namespace is then deleted and its keys are left, as after a crash.
// Creating a namespace over such leftovers waits for them in the same way
// and, after that bound, fails with ErrBusy and creates nothing.
// If Badger cannot flush its memtable or create the one that DropPrefix
// replaces it with, the store becomes unusable: every later operation
// fails with that error until it is closed and opened again.
// On a disk too full for writes (a *NoSpaceError), a deletion, which frees
// space, still works while the disk has room for Badger's flush and
// compaction (the free-space reserve less a memtable); with less it fails
// with a *NoSpaceError before it deletes anything (or, if the disk filled
// between the two steps, after the first, as above).
//
// A *Namespace obtained for name before the call must not be used after
// it. DeleteNamespace waits for the writes in progress on it to end
// (the chunk or segment of an import); its later reads and writes, the
// rest of an import included, fail with an error matching ErrNoNamespace,
// also once a namespace of that name is created again. If ctx ends before the
// registry entry is deleted (while it waits for those writes, say), it
// fails with ctx's error and deletes nothing; so does a failure to delete
// the entry. Either way the *Namespace values obtained before stay the
// namespace's, and usable.
func (s *Store) DeleteNamespace(ctx context.Context, name string) error {
	return s.e.DeleteNamespace(ctx, name)
}

// DiskSize returns the bytes the store uses on disk: the space allocated to
// the files of its directory (Badger preallocates sparse value-log and
// memtable files, so their length overstates it where the system reports
// allocated blocks). It is current, unlike Badger's own size estimate, which
// is refreshed once a minute and reads 0 after Open. For an in-memory store
// it is Badger's estimate. A file that vanishes while it is measured is
// skipped.
func (s *Store) DiskSize() int64 { return s.e.DiskSize() }

// Check verifies the store's on-disk invariants (see "Storage" in the
// package documentation): every index holds exactly the live quads, sizes
// and reference counts are exact, no term is orphaned, pins, import records
// and side tables decode and are consistent, and every key belongs
// somewhere. It returns nil when the store is consistent, a *CheckError
// (matching ErrCorrupt) listing the first problems and their count when it
// is not, and another error when it cannot read the store (ErrClosed, the
// context's error, I/O).
//
// Check never writes: it works on a store opened read-only. It is safe for
// concurrent use. Each namespace is checked in one read transaction, a
// consistent snapshot, while writes go on: like a query, that transaction
// holds back a journaled delta or streamed import segment of another
// goroutine (see "Concurrency" in the package documentation) until it ends.
//
// Cost: Check reads every key and value of the store once, decodes every
// term, and holds a record of every term (with its text) and every live
// quad of the namespace being checked in memory. BenchmarkCheck (100,000
// quads of team data in one namespace, on a shared 2-core machine): 0.36 to
// 0.48 s per check, 63 MB and 0.4 million allocations.
func (s *Store) Check(ctx context.Context) error { return s.e.Check(ctx) }
