package cortex

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/cortexgraph/cortex/cortex/internal/badgerkv"
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
	gate *gate // brackets every Badger transaction (see gate.go)
	// reserve is the free space kept for Badger's own writes (diskspace.go).
	reserve int64
	// The RSS governor (memory_linux.go), if running.
	govStop, govDone chan struct{}

	mu  sync.Mutex // guards nss (held while a namespace is opened)
	nss map[string]*Namespace

	// state guards closing, closed and broken; it is never held across a
	// transaction, so checkOpen never waits for the gate.
	state   sync.Mutex
	closing bool // Close has begun: waiting for transactions to end
	closed  bool
	broken  error // set by a failed streamed write: the store must be reopened
}

// Key layout in the Badger database:
//
//	c:ns/<name>        namespace registry entry (value: reserved, empty)
//	n:<name>/<key>     the cayley quadstore of namespace <name>
//
// Namespace names match ^[a-z][a-z0-9-]{0,62}$, so they never contain '/' and
// the prefixes of two namespaces never overlap.
const (
	registryPrefix = "c:ns/"
	dataPrefix     = "n:"
)

// badgerTestOptions, if set, adjusts the Badger options of stores opened by
// tests (e.g. small memtables, to make level-0 tables cheaply).
var badgerTestOptions func(badger.Options) badger.Options

// Open opens the store in dir, creating the directory and an empty store if
// needed. With opts.WithInMemory(true), dir is ignored and nothing is written
// to disk. If another process has the store open, Open returns an error
// matching ErrLocked (a *LockedError naming the directory) without waiting.
func Open(ctx context.Context, dir string, opts Options) (*Store, error) {
	if err := opts.validate(); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := &Store{dir: dir, opts: opts, nss: map[string]*Namespace{}, gate: newGate()}
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
	// (flushMemtables). With Badger's defaults neither happened in the
	// background: level 0 is compacted only at 5 tables, and a level is
	// compacted down only above BaseLevelSize (10 MB), so the ~9 MB of a
	// merge's stream stayed where it landed, and after a few the levels were
	// all taken. Compacting level 0 at its first table and sizing levels
	// from one table moves streamed data to the last levels between writes:
	// a merge's flush went from ~480 ms to ~70 ms, its reads got faster, and
	// imports did not change (docs/PERFORMANCE.md, "Session 8").
	bopts.BaseLevelSize = bopts.BaseTableSize
	bopts.NumLevelZeroTables = 1
	bopts = sizeBadger(bopts, opts.memBudget)
	if badgerTestOptions != nil {
		bopts = badgerTestOptions(bopts)
	}
	s.reserve = spaceReserve(bopts)
	if opts.inMemory {
		bopts = bopts.WithDir("").WithValueDir("").WithInMemory(true)
	} else {
		if dir == "" {
			return nil, errors.New("open store: empty directory name")
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("open store %s: %w", dir, err)
		}
		l, err := lockDir(dir, opts.readOnly)
		if err != nil {
			return nil, err
		}
		s.lock = l
		bopts = bopts.WithReadOnly(opts.readOnly)
		if !opts.readOnly {
			// Opening read-write may flush a memtable left by a crash.
			if err := s.checkSpace("open store read-write", 0); err != nil {
				return nil, errors.Join(err, s.lock.release())
			}
		}
	}
	db, err := badger.Open(bopts)
	if err != nil {
		_ = s.lock.release()
		if strings.Contains(err.Error(), "Cannot acquire directory lock") {
			return nil, &LockedError{Dir: dir, Err: err}
		}
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	s.db = db
	if !opts.inMemory {
		err := s.recoverStream(ctx)
		if err == nil {
			err = s.recoverJournal(ctx)
		}
		if err == nil && !opts.readOnly {
			err = removeStaleRuns(dir)
		}
		if err != nil {
			return nil, errors.Join(fmt.Errorf("open store %s: %w", dir, err), db.Close(), s.lock.release())
		}
	}
	s.startGovernor()
	return s, nil
}

// Dir returns the directory of the store ("" for an in-memory store).
func (s *Store) Dir() string {
	if s.opts.inMemory {
		return ""
	}
	return s.dir
}

// closeWait bounds how long Close waits for the store's transactions to end.
var closeWait = 30 * time.Second

// Close releases the store. Namespaces obtained from it become unusable:
// their operations fail with ErrClosed. Close first waits, up to 30 seconds,
// for the transactions in progress to end (a query not yet closed, a write
// being committed, a streamed segment or journaled delta being written),
// refusing new ones meanwhile; a write cut off after that is rolled back by
// the next Open if it was streamed or journaled. Closing twice is not an
// error.
func (s *Store) Close() error {
	s.state.Lock()
	if s.closing {
		s.state.Unlock()
		return nil
	}
	s.closing = true // checkOpen reports ErrClosed from now on
	s.state.Unlock()
	s.gate.close(closeWait)
	s.stopGovernor()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state.Lock()
	s.closed = true
	s.state.Unlock()
	var errs []error
	for _, ns := range s.nss {
		errs = append(errs, ns.close())
	}
	s.nss = nil
	errs = append(errs, s.db.Close(), s.lock.release())
	return errors.Join(errs...)
}

// Namespace returns the namespace called name, creating it if it does not
// exist yet. The name must satisfy namespace.ValidateName.
func (s *Store) Namespace(ctx context.Context, name string) (*Namespace, error) {
	if err := namespace.ValidateName(name); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	if ns, ok := s.nss[name]; ok {
		return ns, nil
	}
	ns, err := openNamespace(ctx, s, name)
	if err != nil {
		return nil, fmt.Errorf("namespace %s: %w", name, err)
	}
	s.nss[name] = ns
	return ns, nil
}

// Namespaces lists the names of the namespaces in the store, sorted.
func (s *Store) Namespaces(ctx context.Context) ([]string, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	var names []string
	err := s.view(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.PrefetchValues = false
		opts.Prefix = []byte(registryPrefix)
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			names = append(names, string(it.Item().Key()[len(registryPrefix):]))
		}
		return nil
	})
	sort.Strings(names)
	return names, err
}

func (s *Store) checkOpen() error {
	s.state.Lock()
	defer s.state.Unlock()
	if s.closed || s.closing {
		return ErrClosed
	}
	return s.broken
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

func (s *Store) nsView(name string) *badgerkv.DB {
	return badgerkv.NewGated(s.db, []byte(dataPrefix+name+"/"), writeGate{s.gate, s})
}

// view and update run fn in a Badger transaction admitted by the store's gate.
func (s *Store) view(fn func(txn *badger.Txn) error) error {
	if err := s.gate.Enter(); err != nil {
		return err
	}
	defer s.gate.Leave()
	return s.db.View(fn)
}

func (s *Store) update(fn func(txn *badger.Txn) error) error {
	if err := s.checkSpace("write", 0); err != nil {
		return err
	}
	if err := s.gate.Enter(); err != nil {
		return err
	}
	defer s.gate.Leave()
	return s.db.Update(fn)
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
