package engine

import (
	"bytes"

	"github.com/cortexgraph/cortex/cortex/internal/sorted"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/cortexgraph/cortex/cortex/internal/badgerkv"
	"github.com/cortexgraph/cortex/internal/pathtext"
	"github.com/cortexgraph/cortex/namespace"
)

// Store is a Cortex knowledge graph: one Badger database holding any number of
// isolated namespaces, each a cayley quadstore with its own default graph and
// named graphs.
//
// A Store is safe for concurrent use by multiple goroutines. Only one process
// may open a persistent store at a time; a second gets a *LockedError.
type Store struct {
	dir  string
	opts Options
	db   *badger.DB
	lock *dirLock
	tune Tuning // opts.tuning resolved: no field is zero
	gate *gate  // brackets every Badger transaction (see gate.go)
	// reserve is the free space kept for Badger's own writes, dropSpace
	// the part of it that a deletion may use (diskspace.go).
	reserve, dropSpace int64
	// valueThreshold is Badger's value threshold: in memory, the largest
	// value it holds (see maxTerm).
	valueThreshold int64
	// results tracks the query results not closed yet (results.go).
	results openResults
	// The RSS governor (memory_linux.go), if running, and the RSS above
	// which it pages the store's tables out (the memory budget).
	govStop, govDone chan struct{}
	govLimit         atomic.Int64

	mu     sync.Mutex // guards nss and nsBusy (never held across a transaction)
	nss    map[string]*Namespace
	nsBusy map[string]chan struct{} // names being opened, created or deleted (closed when done)

	// state guards closing, closed and broken; it is never held across a
	// transaction, so checkOpen never waits for the gate.
	state   sync.Mutex
	closing bool // Close has begun: waiting for transactions to end
	closed  bool
	broken  error // set by a failed streamed write: the store must be reopened
	// closeDone is closed when Close has released the store (its files
	// and lock): a second Close waits for it.
	closeDone chan struct{}

	// maint is held (read-locked) across the Badger operations that
	// Badger's Close must not run under, as they stop its memtable
	// flushes and compactions until they end (Close panicked on a closed
	// channel): a stream writer's life and DropPrefix. Close takes it
	// before it closes the database. cutOff is set when Close stops
	// waiting for the store's transactions (Tuning.CloseWait): a stream
	// then stops at its next buffer and is rolled back by the next Open.
	maint  sync.RWMutex
	cutOff atomic.Bool

	counters storeCounters // for tests (bulk.go)
}

// Key layout in the Badger database:
//
//	c:ns/<name>        namespace registry entry: the namespace exists iff it
//	                   does (value: JSON {"base": IRI}; empty in stores
//	                   written before bases were recorded: the default base)
//	n:<name>/<key>     the cayley quadstore of namespace <name>
//
// Namespace names follow namespace.NameRule (lower-case ASCII letters, digits
// and '-'), so they never contain '/' and the prefixes of two namespaces never
// overlap.
const (
	registryPrefix = "c:ns/"
	dataPrefix     = "n:"
)

// Open opens the store in dir, creating the directory and an empty store if
// needed. With opts.WithInMemory(true), dir is ignored and nothing is written
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
// open read-write (ErrLocked either way).
func Open(ctx context.Context, dir string, opts Options) (*Store, error) {
	if err := opts.validate(); err != nil {
		return nil, fmt.Errorf("open store: %w: %w", ErrInvalidArgument, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tune := opts.tuning.resolved()
	s := &Store{dir: dir, opts: opts, tune: tune, nss: map[string]*Namespace{}, nsBusy: map[string]chan struct{}{}, gate: newGate(tune), closeDone: make(chan struct{})}
	s.gate.onStall = s.collectLeakedResults
	bopts := badger.DefaultOptions(dir).
		WithLogger(badgerLogger{opts.logger}).
		WithSyncWrites(opts.syncWrites).
		WithNumVersionsToKeep(1).
		WithDetectConflicts(false). // writers are serialised per namespace by Cortex
		WithMetricsEnabled(false).  // expvar counters on every read cost ~5% of a lookup; Cortex does not export them
		// Each compaction holds table builders of tens of MB: more
		// compactors than cores add memory, not speed (2 cores, one run
		// each: a 1M-triple import with 128 MB segments peaked at 1.41 GB
		// with Badger's default 4, 1.07 GB with 2; docs/PERFORMANCE.md).
		WithNumCompactors(min(4, max(2, runtime.GOMAXPROCS(0))))
	// Tables of one size (BaseTableSize, 2 MB) on every level, not 2 MB
	// times 2^(level-1): a table builder holds about twice its table, and
	// imports stream to the lowest levels, where tables were 64 MB. Peak
	// memory of a 1M-triple import fell from 1.09 to 0.92 GB, speed within
	// noise; 8 MB tables imported 5% slower (docs/PERFORMANCE.md). The cost
	// is files: ~800 per GB on disk, each held open by Badger (Go raises the
	// process's open-file limit to its hard limit).
	bopts.TableSizeMultiplier = 1
	// Keep the tree tidy for the stream writer. A stream goes to the level
	// above the highest one holding tables, or to level 0 once every level
	// does, and the next stream must first compact level 0 away
	// (flushMemtables). With Badger's default BaseLevelSize (10 MB) a level
	// is compacted down only above it, so the ~9 MB of a merge's stream
	// stayed where it landed, and after a few the levels were all taken.
	// Sizing levels from one table moves streamed data to the last levels
	// between writes: a merge's flush went from ~480 ms to ~70 ms, its reads
	// got faster, and imports did not change (docs/PERFORMANCE.md, "Session
	// 8"). Level 0 was compacted at its first table then too; since session
	// 22 it is compacted at levelZeroTables (sizeBadger), for memory. The
	// flush before a stream (Badger's DropPrefix) still compacts level 0
	// away, now up to that many tables, while the stream holds the store's
	// gate (TestStream_FlushEmptiesLevelZero).
	bopts.BaseLevelSize = bopts.BaseTableSize
	bopts = sizeBadger(bopts, opts.memBudget)
	if opts.hooks.badger != nil {
		bopts = opts.hooks.badger(bopts)
	}
	s.reserve, s.dropSpace = spaceReserve(bopts), dropSpace(bopts)
	s.valueThreshold = bopts.ValueThreshold // (Badger's Opts() reports another in memory)
	if opts.inMemory {
		bopts = bopts.WithDir("").WithValueDir("").WithInMemory(true)
	} else {
		if dir == "" {
			return nil, errors.New("open store: empty directory name")
		}
		if opts.readOnly || opts.noCreate {
			// Create nothing: not the directory, not a store in a
			// directory that holds none.
			if err := checkStoreDir(dir); err != nil {
				return nil, err
			}
		} else if err := os.MkdirAll(dir, 0o700); err != nil {
			// 0700: the store is all of its namespaces' data, and a
			// server's tokens keep only its socket and port private.
			return nil, fmt.Errorf("open store %s: %w", pathtext.Quote(dir), err)
		}
		l, err := lockDir(dir, opts.readOnly)
		if err != nil {
			return nil, err
		}
		s.lock = l
		bopts = bopts.WithReadOnly(opts.readOnly)
		if err := emptyMemtableLogs(dir, opts.readOnly); err != nil {
			return nil, errors.Join(fmt.Errorf("open store %s: %w", pathtext.Quote(dir), err), s.lock.release())
		}
		if !opts.readOnly {
			// Opening read-write may flush a memtable left by a crash and
			// drop a deleted namespace's leftovers: what a deletion
			// writes, and a deletion needs the store opened (diskspace.go).
			if err := s.checkFree("open store read-write", s.dropSpace, false); err != nil {
				return nil, errors.Join(err, s.lock.release())
			}
		}
	}
	db, err := openBadger(bopts, s.lock != nil)
	if err != nil {
		_ = s.lock.release()
		if strings.Contains(err.Error(), "Cannot acquire directory lock") {
			return nil, &LockedError{Dir: dir, Err: err}
		}
		if opts.readOnly && strings.Contains(err.Error(), badger.ErrTruncateNeeded.Error()) { // Badger wraps it without %w
			// A killed process left a memtable log that only a read-write
			// Open truncates (it loses nothing committed).
			return nil, fmt.Errorf("open store %s: %w: open the store read-write once (Badger: %v)", pathtext.Quote(dir), ErrRecoveryNeeded, err)
		}
		return nil, fmt.Errorf("open store %s: %w", pathtext.Quote(dir), err)
	}
	s.db = db
	if !opts.inMemory {
		err := s.recoverStream(ctx)
		if err == nil {
			err = s.recoverJournal(ctx)
		}
		if err == nil && !opts.readOnly {
			err = sorted.RemoveStaleRuns(dir)
		}
		if err == nil && !opts.readOnly {
			err = s.dropFlushKey()
		}
		if err == nil && !opts.readOnly {
			// Leftovers are invisible: failing to drop them (a full disk)
			// must not keep the store from opening, unless it lost Badger.
			if derr := s.dropLeftovers(ctx); derr != nil {
				if s.lost() || ctx.Err() != nil {
					err = derr
				} else if s.opts.logger != nil {
					s.opts.logger.Printf("open: %v; they stay until the next read-write open", derr)
				}
			}
		}
		if err != nil {
			return nil, errors.Join(fmt.Errorf("open store %s: %w", pathtext.Quote(dir), err), db.Close(), s.lock.release())
		}
	}
	s.startGovernor()
	return s, nil
}

// badgerLockRetry bounds how long openBadger retries Badger's directory
// lock while the store's own lock is held.
const badgerLockRetry = 2 * time.Second

// openBadger opens Badger with opts. Badger locks its directory with a
// flock that it releases only by closing the file, so a child process
// that another goroutine of this process forks at that moment holds the
// lock too, from its fork until its exec closes the file (close-on-exec):
// a store closed and opened again in a process that starts other
// processes (a test runner, an agent host) can find it taken for that
// instant. With the store's own lock held (cortex.lock, which Cortex
// releases explicitly), no other Cortex process can hold the directory,
// so such a failure is retried for up to badgerLockRetry.
func openBadger(opts badger.Options, ownLock bool) (*badger.DB, error) {
	deadline := time.Now().Add(badgerLockRetry)
	for {
		db, err := badger.Open(opts)
		if err == nil || !ownLock || !strings.Contains(err.Error(), "Cannot acquire directory lock") || time.Now().After(deadline) {
			return db, err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// emptyMemtableLogs removes the empty logs (*.mem memtable logs and *.vlog
// value logs of size 0) in dir: a process killed right after Badger created
// such a file and before it sized it leaves one, which holds nothing, and
// Badger's Open then fails on it ("while opening fid: N err: Create a new
// file"). Read-only (nothing may be written), it reports ErrRecoveryNeeded
// instead if there is one: a read-write Open removes it.
func emptyMemtableLogs(dir string, readOnly bool) error {
	files, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	removed := false
	for _, f := range files {
		if !f.Type().IsRegular() || !strings.HasSuffix(f.Name(), ".mem") && !strings.HasSuffix(f.Name(), ".vlog") {
			continue
		}
		fi, err := f.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return err
		}
		if fi.Size() != 0 {
			continue
		}
		if readOnly {
			return fmt.Errorf("%w: the empty log %s a killed process left (open the store read-write once)", ErrRecoveryNeeded, f.Name())
		}
		if err := os.Remove(filepath.Join(dir, f.Name())); err != nil {
			return fmt.Errorf("remove the empty log a killed process left: %w", err)
		}
		removed = true
	}
	if removed {
		return syncDir(dir)
	}
	return nil
}

// checkStoreDir reports ErrNoStore unless dir holds a Badger database.
func checkStoreDir(dir string) error {
	st, err := os.Stat(dir)
	if err == nil && !st.IsDir() {
		return fmt.Errorf("%w at %s (not a directory)", ErrNoStore, pathtext.Quote(dir))
	}
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, badger.ManifestFilename))
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w at %s", ErrNoStore, pathtext.Quote(dir))
	}
	if errors.Is(err, syscall.ENOTDIR) {
		// A path under a file: there is no store, nor can there be.
		return fmt.Errorf("%w at %s (not a directory)", ErrNoStore, pathtext.Quote(dir))
	}
	if err != nil {
		return fmt.Errorf("open store %s: %w", pathtext.Quote(dir), err)
	}
	return nil
}

// Dir returns the directory of the store ("" for an in-memory store).
func (s *Store) Dir() string {
	if s.opts.inMemory {
		return ""
	}
	return s.dir
}

// ReadOnly reports whether the store was opened read-only (Options.WithReadOnly): every write fails with ErrReadOnly.
func (s *Store) ReadOnly() bool { return s.opts.readOnly }

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
func (s *Store) Close() error {
	s.state.Lock()
	if s.closing {
		s.state.Unlock()
		<-s.closeDone // the first Close's
		return nil
	}
	s.closing = true // checkOpen reports ErrClosed from now on
	s.state.Unlock()
	defer close(s.closeDone)
	s.collectLeakedResults()
	var leaked error
	start := time.Now()
	if !s.gate.closeUnless(s.tune.CloseWait, s.onlyResultsOpen) {
		s.cutOff.Store(true)
		leaked = s.cutOffErr(time.Since(start))
	}
	// A stream writer or DropPrefix still running (cut off) ends first.
	s.maint.Lock()
	defer s.maint.Unlock()
	s.stopGovernor()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state.Lock()
	s.closed = true
	s.state.Unlock()
	var errs []error
	for _, ns := range s.nss {
		errs = append(errs, ns.close())
		ns.end(fmt.Errorf("namespace %s: %w", ns.name, ErrClosed))
	}
	s.nss = nil
	errs = append(errs, leaked, s.db.Close(), s.lock.release())
	return errors.Join(errs...)
}

// cutOffErr is the error of a Close that stopped waiting, after waited,
// for the store's transactions: it matches ErrResultsOpen if query results
// were left open, else ErrCutOff, and says what was open.
func (s *Store) cutOffErr(waited time.Duration) error {
	s.gate.mu.Lock()
	open := s.gate.n
	s.gate.mu.Unlock()
	results := s.results.count()
	switch {
	case results > 0 && results >= open:
		return fmt.Errorf("close store: %w: %d left open: %s", ErrResultsOpen, results, s.results.describe())
	case results > 0:
		return fmt.Errorf("close store: %w after %s: %s", ErrResultsOpen, waited.Round(time.Millisecond), s.openTxns())
	case open > 0:
		return fmt.Errorf("close store: %w after %s: %s", ErrCutOff, waited.Round(time.Millisecond), s.openTxns())
	}
	return fmt.Errorf("close store: %w after %s: a write that holds the store to itself (a journaled or streamed delta, an import segment, a namespace's deletion) was still running",
		ErrCutOff, waited.Round(time.Millisecond))
}

// onlyResultsOpen reports whether every transaction still open is a query
// result that was not closed, for Tuning.ResultsCloseWait already (see Close).
func (s *Store) onlyResultsOpen(open int, waited time.Duration) bool {
	return open > 0 && open <= s.results.count() && waited >= s.tune.ResultsCloseWait
}

// Namespace returns the namespace called name, creating it if it does not
// exist yet. The name must satisfy namespace.ValidateName. A new namespace
// records its IRI base: the one given with WithBase, else the default
// namespace.DefaultBasePrefix+name. For an existing namespace, a WithBase
// that differs from the recorded base is an error matching
// ErrBaseMismatch (a *BaseMismatchError naming both). On a read-only store
// a missing namespace is an error matching ErrNoNamespace. Safe for
// concurrent use; every call for one name returns the same *Namespace
// until Close, or until DeleteNamespace or DeleteIfUnused deletes it.
func (s *Store) Namespace(ctx context.Context, name string, opts ...NamespaceOption) (*Namespace, error) {
	n, _, err := s.namespace(ctx, name, true, opts)
	return n, err
}

// NamespaceCreated is Namespace that also reports whether this call
// created the namespace (see DeleteIfUnused).
func (s *Store) NamespaceCreated(ctx context.Context, name string, opts ...NamespaceOption) (*Namespace, bool, error) {
	return s.namespace(ctx, name, true, opts)
}

// OpenNamespace is Namespace for a namespace that must exist: it never
// creates one, and a missing namespace is an error matching ErrNoNamespace
// (`no such namespace "x"`), which also matches ErrNotFound.
func (s *Store) OpenNamespace(ctx context.Context, name string, opts ...NamespaceOption) (*Namespace, error) {
	n, _, err := s.namespace(ctx, name, false, opts)
	return n, err
}

// NamespaceOption configures Namespace and OpenNamespace.
type NamespaceOption func(*nsOptions)

type nsOptions struct {
	base    string
	hasBase bool
}

// WithBase gives the namespace's IRI base (see namespace.WithBase for what
// is valid): recorded when Namespace creates the namespace, compared with
// the recorded base when it exists.
func WithBase(base string) NamespaceOption {
	return func(o *nsOptions) { o.base, o.hasBase = base, true }
}

func (s *Store) namespace(ctx context.Context, name string, create bool, opts []NamespaceOption) (*Namespace, bool, error) {
	if err := namespace.ValidateName(name); err != nil {
		return nil, false, &argError{err}
	}
	var o nsOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.hasBase {
		if _, err := namespace.New(name, namespace.WithBase(o.base)); err != nil {
			return nil, false, &argError{err}
		}
	}
	created := false
	ns, err := s.claimNamespace(ctx, name, func() (*Namespace, error) {
		entry, exists, err := s.registryEntry(ctx, name)
		if err != nil {
			return nil, err
		}
		switch {
		case exists:
			base, err := s.legacyBase(ctx, name, entry, o)
			if err != nil {
				return nil, err
			}
			return openNamespace(ctx, s, name, base)
		case !create:
			return nil, fmt.Errorf("%w %q", ErrNoNamespace, name)
		case s.opts.readOnly:
			return nil, fmt.Errorf("%w %q (the store is open read-only)", ErrNoNamespace, name)
		}
		base := namespace.DefaultBasePrefix + name
		if o.hasBase {
			// A new namespace's base is held to checks that bases
			// recorded before them were not (their namespaces still open).
			if err := namespace.CheckNewBase(o.base); err != nil {
				return nil, &argError{err} // (named by the caller)
			}
			base = o.base
		}
		n, err := createNamespace(ctx, s, name, base)
		created = err == nil
		return n, err
	})
	if err != nil {
		if errors.Is(err, ErrNoNamespace) || errors.Is(err, ErrClosed) {
			return nil, false, err
		}
		return nil, false, fmt.Errorf("namespace %s: %w", name, err)
	}
	if o.hasBase && o.base != ns.base {
		// The call returns no handle: it is no claim (DeleteIfUnused).
		s.mu.Lock()
		ns.claims--
		s.mu.Unlock()
		return nil, false, &BaseMismatchError{Namespace: name, Recorded: ns.base, Requested: o.base}
	}
	return ns, created, nil
}

// legacyBase returns the base of an existing namespace. A registry entry
// written before bases were recorded holds none: the namespace's base is
// then the one the caller gives (recorded now, on a writable store), else
// the default.
func (s *Store) legacyBase(ctx context.Context, name string, entry registryValue, o nsOptions) (string, error) {
	if entry.Base != "" {
		return entry.Base, nil
	}
	if !o.hasBase {
		return namespace.DefaultBasePrefix + name, nil
	}
	if !s.opts.readOnly {
		b, err := json.Marshal(registryValue{Base: o.base})
		if err != nil {
			return "", err
		}
		if err := s.update(ctx, func(txn *badger.Txn) error { return txn.Set([]byte(registryPrefix+name), b) }); err != nil {
			return "", fmt.Errorf("record base: %w", err)
		}
	}
	return o.base, nil
}

// claimNamespace returns the open namespace name, or else runs fn with the
// name to itself: no other goroutine opens, creates or deletes it meanwhile.
// fn runs without s.mu (it may wait for the store's transactions); the
// namespace it returns, if any, is kept as the open one.
func (s *Store) claimNamespace(ctx context.Context, name string, fn func() (*Namespace, error)) (*Namespace, error) {
	return s.withName(ctx, name, true, func(*Namespace) (*Namespace, error) { return fn() })
}

// withName runs fn with name to itself (see claimNamespace), giving it the
// open *Namespace of that name, if any, which fn then owns: what fn returns
// replaces it. With reuse, an open namespace is returned at once instead.
func (s *Store) withName(ctx context.Context, name string, reuse bool, fn func(open *Namespace) (*Namespace, error)) (*Namespace, error) {
	for {
		s.mu.Lock()
		if err := s.checkOpen(); err != nil {
			s.mu.Unlock()
			return nil, err
		}
		open, isOpen := s.nss[name]
		if isOpen && reuse {
			open.claims++
			s.mu.Unlock()
			return open, nil
		}
		if busy, ok := s.nsBusy[name]; ok {
			s.mu.Unlock()
			select {
			case <-busy:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		busy := make(chan struct{})
		s.nsBusy[name] = busy
		delete(s.nss, name)
		s.mu.Unlock()

		ns, err := fn(open)

		s.mu.Lock()
		delete(s.nsBusy, name)
		close(busy)
		if ns != nil {
			if cerr := s.checkOpen(); errors.Is(cerr, ErrClosed) || s.nss == nil {
				// Close ran meanwhile: it did not see this namespace,
				// which it closes and ends as Close does the others (a
				// namespace that fn kept may have holders).
				s.mu.Unlock()
				cerr := ns.close()
				ns.end(fmt.Errorf("namespace %s: %w", name, ErrClosed))
				if err != nil && !errors.Is(err, ErrClosed) {
					return nil, errors.Join(err, ErrClosed, cerr)
				}
				return nil, errors.Join(ErrClosed, cerr)
			}
			s.nss[name] = ns
			if reuse {
				ns.claims++
			}
		}
		s.mu.Unlock()
		return ns, err
	}
}

// Namespaces lists the names of the namespaces in the store, sorted.
func (s *Store) Namespaces(ctx context.Context) ([]string, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list namespaces: %w", err)
	}
	var names []string
	err := s.view(ctx, func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.PrefetchValues = false
		opts.Prefix = []byte(registryPrefix)
		it, err := newIterator(s, txn, opts)
		if err != nil {
			return err
		}
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			names = append(names, string(it.Item().Key()[len(registryPrefix):]))
		}
		return nil
	})
	sort.Strings(names)
	return names, err
}

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
	if err := namespace.ValidateName(name); err != nil {
		return &argError{err}
	}
	if s.opts.readOnly {
		return fmt.Errorf("delete namespace %s: %w", name, ErrReadOnly)
	}
	// The name is claimed while the namespace is deleted: nobody opens or
	// creates it meanwhile. s.mu is not held: dropping the keys waits for
	// every transaction of the store.
	_, err := s.withName(ctx, name, false, func(open *Namespace) (*Namespace, error) {
		_, exists, err := s.registryEntry(ctx, name)
		if err != nil {
			return open, err
		}
		if !exists {
			return open, fmt.Errorf("%w %q", ErrNoNamespace, name)
		}
		if open != nil {
			// Let the writes in progress end, unless ctx ends first.
			if err := open.lockWriteCtx(ctx); err != nil {
				return open, err
			}
		}
		err = ctx.Err()
		if err == nil {
			err = s.unregister(ctx, name, open)
		}
		if open != nil {
			open.wmu.Unlock()
		}
		if err != nil {
			return open, err // nothing deleted: open is still the namespace's
		}
		return nil, s.dropDeleted(ctx, name)
	})
	if err != nil && !errors.Is(err, ErrNoNamespace) {
		return fmt.Errorf("delete namespace %s: %w", name, err)
	}
	return err
}

// unregister deletes the registry entry of namespace name, in one
// transaction (from then on the namespace does not exist), with the name
// claimed (withName), and then closes its open *Namespace, if any, whose
// write lock the caller holds: its later reads and writes fail with
// errDeleted. If the entry could not be deleted, nothing was: the
// namespace and open are as they were.
func (s *Store) unregister(ctx context.Context, name string, open *Namespace) error {
	// A deletion is allowed on a disk too full for other writes, as long
	// as its DropPrefix fits (diskspace.go); the same check before the
	// drop fails only if something else filled the disk meanwhile.
	if err := s.checkDropSpace(); err != nil {
		return err
	}
	err := s.commit(ctx, func(txn *badger.Txn) error {
		if h := s.opts.hooks.unregister; h != nil {
			if err := h(); err != nil {
				return err
			}
		}
		return txn.Delete([]byte(registryPrefix + name))
	})
	if err != nil {
		return err
	}
	if open != nil {
		// (Closing a view of the store's database cannot fail.)
		_ = open.closeDeleted()
		open.end(errDeleted(name))
	}
	return nil
}

// dropDeleted drops the keys of namespace name once unregister has deleted
// it (see DeleteNamespace for a crash between the two).
func (s *Store) dropDeleted(ctx context.Context, name string) error {
	if h := s.opts.hooks.deleteNamespace; h != nil {
		if err := h(); err != nil {
			return err // a test's crash between the two steps
		}
	}
	if err := s.dropKeys(ctx, []byte(dataPrefix+name+"/")); err != nil {
		return fmt.Errorf("drop its data: %w (the namespace is gone; its leftover keys are dropped by the next read-write Open or if it is created again)", err)
	}
	return nil
}

// DeleteIfUnused undoes the creation of namespace n by NamespaceCreated
// after the write it was created for failed: it deletes n, as
// DeleteNamespace does, if n is still as its creation left it, and
// reports whether it did. It keeps n (and returns false) if anything may
// use it: another call of Namespace or OpenNamespace returned it since
// (whether or not that caller has written yet), a write is in progress,
// or any of its keys differs from those its creation wrote (a chunk of
// the failed write was committed, say). The check and the deletion are
// done with the name claimed and n's write lock held: no other goroutine
// obtains, writes or deletes n meanwhile; one that asks for the namespace
// then waits, and creates it anew. It runs even if ctx has ended (the
// failure it cleans up after is often ctx's). Deleting is crash-safe as
// DeleteNamespace's is. An error is one of the deletion; n is then gone
// or kept as DeleteNamespace says.
func (s *Store) DeleteIfUnused(ctx context.Context, n *Namespace) (bool, error) {
	if n == nil || n.s != s || n.pristine == nil || s.opts.readOnly {
		return false, nil
	}
	ctx = context.WithoutCancel(ctx)
	deleted := false
	_, err := s.withName(ctx, n.name, false, func(open *Namespace) (*Namespace, error) {
		if open != n || n.claims != 1 || !n.wmu.TryLock() {
			return open, nil // deleted, closed or re-created; or in use
		}
		if _, err := s.prefixKeys(ctx, []byte(dataPrefix+n.name+"/"), n.pristine); err != nil {
			n.wmu.Unlock()
			if errors.Is(err, errChanged) {
				err = nil
			}
			return open, err
		}
		err := s.unregister(ctx, n.name, n)
		n.wmu.Unlock()
		if err != nil {
			return open, err // nothing deleted: n is still the namespace's
		}
		deleted = true
		return nil, s.dropDeleted(ctx, n.name)
	})
	if err != nil {
		return deleted, fmt.Errorf("delete unused namespace %s: %w", n.name, err)
	}
	return deleted, nil
}

// dropKeys drops every key starting with prefix, holding the store's other
// transactions back meanwhile (Badger's DropPrefix makes concurrent writes
// fail rather than wait). It does nothing when no key has the prefix. It
// waits up to Tuning.DropGateWait for the store's open transactions to
// end (a query result, an iterator or a Tx left open by its program would
// hold it for ever), and then fails with an error matching ErrBusy that
// says which were open, having dropped nothing. It refuses with a
// *NoSpaceError, dropping nothing, when the disk lacks room for what
// DropPrefix writes (checkDropSpace). If DropPrefix fails (Badger
// could not flush its memtable or create the next one), the store is lost
// (see lose): every later operation fails with that error.
func (s *Store) dropKeys(ctx context.Context, prefix []byte) error {
	var any bool
	err := s.view(ctx, func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.PrefetchValues = false
		opts.Prefix = prefix
		it, err := newIterator(s, txn, opts)
		if err != nil {
			return err
		}
		defer it.Close()
		it.Rewind()
		any = it.Valid()
		return nil
	})
	if err != nil || !any {
		return err
	}
	if err := s.gate.exclusiveWait(ctx, s.tune.DropGateWait); err != nil {
		if ctx.Err() != nil {
			return err
		}
		return s.busyErr("dropping a namespace's keys", s.tune.DropGateWait)
	}
	defer s.gate.release()
	s.maint.RLock()
	defer s.maint.RUnlock()
	if err := s.checkOpen(); err != nil {
		return err
	}
	if err := s.checkDropSpace(); err != nil {
		return err // on a full disk, DropPrefix's flush would fault (diskspace.go)
	}
	// DropPrefix flushes Badger's memtable and replaces it. If it cannot
	// create the next one, Badger has none left; if the flush fails (the
	// table file cannot be created, the manifest not written), Badger keeps
	// the memtable as its current one and in its list of those flushed,
	// and the next flush of it releases a memtable still listed: the next
	// DropPrefix or read panics (badger v4.9.6 db.go, DropPrefix: db.imm =
	// append(db.imm, db.mt), then "return err" without undoing it). Its
	// error does not say which step failed (a failed drop from the levels,
	// after the memtable was replaced, leaves Badger whole), so any error
	// loses the store (see lose), as a failed flush before a stream does.
	if err := s.db.DropPrefix(prefix); err != nil {
		return s.lose(err)
	}
	return nil
}

// dropLeftovers drops, at a read-write Open, the keys under the data prefix
// of every name that no registry entry names: those of a deletion cut short
// (a crash between its two steps, an ErrBusy of DropGateWait, a failed
// DropPrefix) and those of a creation a crash interrupted (its entry is
// written last). It seeks once per name, over no key of a namespace, so a
// store without leftovers opens about as fast as before. A crash while it
// drops leaves them to the next Open, and so does a failure that did not
// lose the store (a full disk): Open then logs it and opens, since the
// leftovers are invisible. The dropping itself is dropKeys, as
// DeleteNamespace's.
func (s *Store) dropLeftovers(ctx context.Context) error {
	var gone []string
	err := s.view(ctx, func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.PrefetchValues = false
		opts.Prefix = []byte(dataPrefix)
		it, err := newIterator(s, txn, opts)
		if err != nil {
			return err
		}
		defer it.Close()
		for it.Seek(opts.Prefix); it.Valid(); {
			k := it.Item().Key()[len(dataPrefix):]
			i := bytes.IndexByte(k, '/')
			if i < 0 { // no namespace's key
				it.Next()
				continue
			}
			name := string(k[:i])
			if _, err := getItem(s, txn, []byte(registryPrefix+name)); errors.Is(err, badger.ErrKeyNotFound) {
				gone = append(gone, name)
			} else if err != nil {
				return err
			}
			it.Seek([]byte(dataPrefix + name + "0")) // past name + "/" ('0' is '/'+1)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("look for the leftovers of deleted namespaces: %w", err)
	}
	for _, name := range gone {
		if h := s.opts.hooks.dropLeftovers; h != nil {
			if err := h(); err != nil {
				return fmt.Errorf("drop the leftovers of deleted namespace %s: %w", name, err)
			}
		}
		if err := s.dropKeys(ctx, []byte(dataPrefix+name+"/")); err != nil {
			return fmt.Errorf("drop the leftovers of deleted namespace %s: %w", name, err)
		}
	}
	return nil
}

// registryValue is the value of a namespace's registry entry (JSON). An
// empty value, written before bases were recorded, means the default base.
type registryValue struct {
	Base string `json:"base,omitempty"`
}

// registryEntry reads the registry entry of namespace name.
func (s *Store) registryEntry(ctx context.Context, name string) (registryValue, bool, error) {
	var r registryValue
	var exists bool
	err := s.view(ctx, func(txn *badger.Txn) error {
		item, err := getItem(s, txn, []byte(registryPrefix+name))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		exists = true
		return item.Value(func(v []byte) error {
			if len(v) == 0 {
				return nil
			}
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("%w: registry entry: %v", ErrCorrupt, err)
			}
			return nil
		})
	})
	return r, exists, err
}

// busyErr is the error of a write that needs the store to itself and gave
// up after waiting wait for the store's open transactions to end
// (gate.exclusiveWait): it matches ErrBusy and says what was open.
func (s *Store) busyErr(what string, wait time.Duration) error {
	return fmt.Errorf("%w: %s waited %s for the store's open transactions to end: %s", ErrBusy, what, wait, s.openTxns())
}

// openTxns says which of the store's transactions are open: the query
// results not closed (where each was opened) and how many others.
func (s *Store) openTxns() string {
	s.gate.mu.Lock()
	open := s.gate.n
	s.gate.mu.Unlock()
	results := min(s.results.count(), open)
	var b strings.Builder
	fmt.Fprintf(&b, "%d open", open)
	if results > 0 {
		fmt.Fprintf(&b, "; %d query result%s not closed: %s", results, plural(results), s.results.describe())
	}
	if other := open - results; other > 0 {
		fmt.Fprintf(&b, "; %d other%s (a Dataset.Match iterator or a Tx not closed, a read, export or write in progress)", other, plural(other))
	}
	return b.String()
}

// plural returns "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func (s *Store) checkOpen() error {
	s.state.Lock()
	defer s.state.Unlock()
	if s.closed || s.closing {
		return ErrClosed
	}
	return s.broken
}

// closedErr returns err, or, if it is Badger's refusal of a database that
// Close closed under the operation (Close stopped waiting for it: see
// Tuning.CloseWait and ErrResultsOpen), an error matching ErrClosed that
// wraps it.
func (s *Store) closedErr(err error) error {
	if err == nil || !s.cutOff.Load() || errors.Is(err, ErrClosed) {
		return err
	}
	// (Badger wraps some without %w: "DB::Get key: ... err: DB Closed".)
	for _, berr := range []error{badger.ErrDBClosed, badger.ErrBlockedWrites, badgerkv.ErrClosed} {
		if errors.Is(err, berr) || strings.Contains(err.Error(), berr.Error()) {
			return fmt.Errorf("%w: %w", ErrClosed, err)
		}
	}
	return err
}

// poison records that a streamed write failed half-way: Badger's state is
// then unknown until the store is reopened (which rolls the write back, see
// recoverStream), so every later operation fails with err.
func (s *Store) poison(err error) error {
	s.state.Lock()
	defer s.state.Unlock()
	if s.broken == nil {
		s.broken = fmt.Errorf("%w (close and reopen the store to roll it back)", err)
	}
	return s.broken
}

// lose records that Badger can serve no transaction any more: a failed
// flush of its memtables (DropPrefix, which may also leave a memtable it
// failed to flush listed twice; or a memtable it could not create
// when the current one filled up: too many open files, a file size limit,
// a file system remounted read-only) leaves it without a memtable, on which
// every transaction would panic. The store is poisoned and its gate admits
// no transaction: every later operation fails with err until the store is
// reopened (which rolls back what a journal or an undo file records). The
// caller may hold the gate. Transactions already open when it happens may
// still reach Badger; those of the failed write are not. A read among them
// fails with err at its next lookup or new iterator, where Badger would
// panic (lostPanic: through badgerkv's transactions, query snapshots,
// newIterator and getItem); a write among them is not covered (Badger's
// write goroutine asserts a memtable and exits the process).
func (s *Store) lose(err error) error {
	s.state.Lock()
	if s.broken == nil {
		s.broken = fmt.Errorf("%w (the storage engine can serve no transaction: close and reopen the store)", err)
	}
	err = s.broken
	s.state.Unlock()
	s.gate.refuse(err)
	return err
}

// lostPanic returns the error of a read that panicked with r inside Badger
// because Badger had lost its memtable (see lose) while the read's
// transaction was open: at its next Get or NewIterator Badger dereferences
// the missing memtable. That error is the store's lost error, wrapped;
// lostPanic returns nil for any other panic, which the caller raises
// again. The read may get there before the write that lost the memtable has
// returned and called lose: a nil-pointer fault in Badger's getMemTables
// is recognised by its stack, and the store is lost here.
func (s *Store) lostPanic(r any) error {
	if re, ok := r.(runtime.Error); !ok || !strings.Contains(re.Error(), "nil pointer") {
		return nil
	}
	if !s.lost() && !bytes.Contains(debug.Stack(), []byte("badger/v4.(*DB).getMemTables(")) {
		return nil
	}
	err := s.lose(errNoMemtable)
	return fmt.Errorf("%w (a read was cut short: %v)", err, r)
}

// errNoMemtable is what lostPanic loses the store with when a read finds
// Badger without a memtable before the write that lost it has said why.
var errNoMemtable = errors.New("the storage engine has no memtable: a write could not create one")

// lost reports whether lose was called.
func (s *Store) lost() bool {
	s.gate.mu.Lock()
	defer s.gate.mu.Unlock()
	return s.gate.lost != nil
}

// checkCommit returns err, the error of a commit; if it says that Badger
// could not create a memtable (it has none left, see lose), the store is
// lost first and the error returned says so. (Badger formats the cause
// into its message: there is no error value to match.)
func (s *Store) checkCommit(err error) error {
	if err != nil && strings.Contains(err.Error(), "cannot create new mem table") {
		return s.lose(err)
	}
	return err
}

func (s *Store) nsView(name string) *badgerkv.DB {
	return badgerkv.NewGated(s.db, []byte(dataPrefix+name+"/"), writeGate{s.gate, s})
}

// nextVersion returns a version newer than every key in the database:
// the read timestamp of a new transaction, plus one. Badger gives a new
// transaction the timestamp of the newest commit and waits for every
// commit in flight up to it, so no commit so far has a newer version, and
// every commit from now on has this one or a newer one. (DB.MaxVersion
// reads the memtables without waiting for the commits in flight.) The
// transaction does not go through the gate: its holder calls it.
func (s *Store) nextVersion() uint64 {
	txn := s.db.NewTransaction(false)
	defer txn.Discard()
	return txn.ReadTs() + 1
}

// newIterator is txn.NewIterator, which panics with badger.ErrDBClosed
// once Close has closed the database under a transaction it stopped
// waiting for (Tuning.CloseWait): that is an error matching ErrClosed
// here. It panics too when Badger has lost its memtable while txn was open
// (see lose): that is s's lost error (lostPanic). A transaction that opens
// iterators as it goes (Check, a parallel read) opens them with it.
func newIterator(s *Store, txn *badger.Txn, opts badger.IteratorOptions) (it *badger.Iterator, err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok && errors.Is(e, badger.ErrDBClosed) {
				it, err = nil, fmt.Errorf("%w: %w", ErrClosed, e)
				return
			}
			if lerr := s.lostPanic(r); lerr != nil {
				it, err = nil, lerr
				return
			}
			panic(r)
		}
	}()
	return txn.NewIterator(opts), nil
}

// getItem is txn.Get, failing with s's lost error where Badger would panic
// (see newIterator).
func getItem(s *Store, txn *badger.Txn, key []byte) (_ *badger.Item, err error) {
	defer func() {
		if r := recover(); r != nil {
			lerr := s.lostPanic(r)
			if lerr == nil {
				panic(r)
			}
			err = lerr
		}
	}()
	return txn.Get(key)
}

// view and update run fn in a Badger transaction admitted by the store's
// gate (ctx bounds the wait to be admitted), which they tell when it has its
// read timestamp (gate.Started).
func (s *Store) view(ctx context.Context, fn func(txn *badger.Txn) error) error {
	if err := s.gate.Enter(ctx); err != nil {
		return err
	}
	defer s.gate.Leave()
	txn := s.db.NewTransaction(false)
	s.gate.Started()
	defer txn.Discard()
	return fn(txn)
}

func (s *Store) update(ctx context.Context, fn func(txn *badger.Txn) error) error {
	if err := s.checkSpace("write", 0); err != nil {
		return err
	}
	return s.commit(ctx, fn)
}

// commit is update without the free-space guard: the caller has checked.
func (s *Store) commit(ctx context.Context, fn func(txn *badger.Txn) error) error {
	if err := s.gate.Enter(ctx); err != nil {
		return err
	}
	defer s.gate.Leave()
	txn := s.db.NewTransaction(true)
	s.gate.Started()
	defer txn.Discard()
	if err := fn(txn); err != nil {
		return err
	}
	return s.checkCommit(txn.Commit())
}

// badgerLogger passes Badger's warnings and errors to the store's Logger
// (none by default) and drops its informational chatter.
type badgerLogger struct{ l Logger }

func (b badgerLogger) Errorf(f string, a ...interface{})   { b.printf("error: "+f, a...) }
func (b badgerLogger) Warningf(f string, a ...interface{}) { b.printf("warning: "+f, a...) }
func (badgerLogger) Infof(string, ...interface{})          {}
func (badgerLogger) Debugf(string, ...interface{})         {}

func (b badgerLogger) printf(f string, a ...interface{}) {
	if b.l != nil {
		b.l.Printf("badger "+strings.TrimSuffix(f, "\n"), a...)
	}
}
