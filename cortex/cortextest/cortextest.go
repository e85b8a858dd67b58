// Package cortextest provides helpers for tests that need a real Cortex store.
//
// Every store it opens is checked when the test ends: its cleanup runs
// Store.Check (the on-disk invariants: indexes, sizes, reference counts,
// orphan terms, side tables...) and fails the test with the problems found,
// then closes the store. Tests that run the CLI (or anything else that opens
// a store itself) against a directory ask for the same check with CheckDir.
// A test that leaves a store inconsistent on purpose opts out with NoCheck.
package cortextest

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
)

// NewStore opens a persistent store in a fresh t.TempDir() (see OpenStore).
func NewStore(t testing.TB, opts ...cortex.Options) *cortex.Store {
	t.Helper()
	return OpenStore(t, t.TempDir(), opts...)
}

// OpenStore opens the store in dir with opts[0] (default:
// cortex.DefaultOptions().WithSyncWrites(false)) and checks and closes it
// when the test ends. The check (Store.Check) fails the test with the
// problems found, unless NoCheck(t) was called; a failed Close fails it too.
// A persistent store that the test closed itself is checked all the same,
// by opening its directory read-only as CheckDir does; each directory is
// checked once per test, however many times the test opened it.
func OpenStore(t testing.TB, dir string, opts ...cortex.Options) *cortex.Store {
	t.Helper()
	o := cortex.DefaultOptions().WithSyncWrites(false)
	if len(opts) > 0 {
		o = opts[0]
	}
	st := state(t)
	s, err := cortex.Open(context.Background(), dir, o)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() {
		if err := st.checkStore(s); err != nil {
			t.Errorf("check store %s after the test: %v", dir, err)
		}
		if err := s.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return s
}

// NewNamespace returns namespace name of a fresh store (see NewStore).
func NewNamespace(t testing.TB, name string) *cortex.Namespace {
	t.Helper()
	ns, err := NewStore(t).Namespace(context.Background(), name)
	if err != nil {
		t.Fatalf("namespace %s: %v", name, err)
	}
	return ns
}

// CheckDir checks the store in dir when the test ends: it opens it
// read-only, runs Store.Check and fails the test with the problems found
// (unless NoCheck(t) was called). It is for tests that run the CLI or
// other code that opens and closes a store itself. Each directory is
// checked once per test (see OpenStore). A directory that holds no store
// (cortex.ErrNoStore) has nothing to check; a store that another handle
// still holds (cortex.ErrLocked) is left to that handle's cleanup, if it
// came from OpenStore; a store that a crash left needing recovery
// (cortex.ErrRecoveryNeeded: a test killed a process writing it) is not
// checked, since only a read-write Open recovers it: a test that wants it
// checked opens it (OpenStore) once the crash is over.
func CheckDir(t testing.TB, dir string) {
	t.Helper()
	st := state(t)
	st.mu.Lock()
	registered := st.registered[dir]
	st.registered[dir] = true
	st.mu.Unlock()
	if registered {
		return
	}
	t.Cleanup(func() {
		if err := st.checkDir(dir); err != nil {
			t.Errorf("check store %s after the test: %v", dir, err)
		}
	})
}

// NoCheck turns off the end-of-test checks of t's stores (OpenStore,
// NewStore, NewNamespace, CheckDir): for tests that leave a store
// inconsistent, or needing recovery, on purpose. The stores are still
// closed.
func NoCheck(t testing.TB) {
	st := state(t)
	st.mu.Lock()
	st.noCheck = true
	st.mu.Unlock()
}

// testState is what cortextest keeps about a test while it runs.
type testState struct {
	mu         sync.Mutex
	noCheck    bool
	registered map[string]bool // directories given to CheckDir
	checked    map[string]bool // directories checked by a cleanup
}

// states maps a running test (testing.TB) to its *testState.
var states sync.Map

// state returns t's state, creating it on first use with a cleanup that
// forgets it. It is called before the caller registers its own cleanup,
// which therefore runs first.
func state(t testing.TB) *testState {
	v, loaded := states.LoadOrStore(t, &testState{registered: map[string]bool{}, checked: map[string]bool{}})
	if !loaded {
		t.Cleanup(func() { states.Delete(t) })
	}
	return v.(*testState)
}

// claim reports whether dir is still to be checked, and if so marks it
// checked.
func (st *testState) claim(dir string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.noCheck || st.checked[dir] {
		return false
	}
	st.checked[dir] = true
	return true
}

func (st *testState) unclaim(dir string) {
	st.mu.Lock()
	delete(st.checked, dir)
	st.mu.Unlock()
}

// checkStore checks s if it is open, else its directory (a persistent
// store the test closed).
func (st *testState) checkStore(s *cortex.Store) error {
	dir := s.Dir()
	if dir == "" { // in memory: nothing outlives it
		st.mu.Lock()
		off := st.noCheck
		st.mu.Unlock()
		if err := s.Check(context.Background()); err != nil && !off && !errors.Is(err, cortex.ErrClosed) {
			return err
		}
		return nil
	}
	if !st.claim(dir) {
		return nil
	}
	err := s.Check(context.Background())
	if errors.Is(err, cortex.ErrClosed) {
		st.unclaim(dir)
		return st.checkDir(dir)
	}
	return err
}

// checkDir opens the store in dir read-only and checks it, unless it was
// checked already.
func (st *testState) checkDir(dir string) error {
	if !st.claim(dir) {
		return nil
	}
	ctx := context.Background()
	s, err := cortex.Open(ctx, dir, cortex.DefaultOptions().WithReadOnly(true))
	if errors.Is(err, cortex.ErrLocked) {
		st.unclaim(dir) // held by another handle: its cleanup checks it
		return nil
	}
	if errors.Is(err, cortex.ErrNoStore) || errors.Is(err, cortex.ErrRecoveryNeeded) {
		// Nothing to check; or a crash (of a child process) left it, and
		// only a read-write Open, which a cleanup must not do, recovers it.
		return nil
	}
	if err != nil {
		return err
	}
	return errors.Join(s.Check(ctx), s.Close())
}

// AllQuads returns every quad of ns.
func AllQuads(t testing.TB, ns *cortex.Namespace) []quad.Quad {
	t.Helper()
	qs, err := ns.Quads(context.Background(), cortex.Pattern{})
	if err != nil {
		t.Fatalf("read quads: %v", err)
	}
	return qs
}

// SliceSource is a cortex.QuadSource over a slice, optionally failing with
// Err after the quads.
type SliceSource struct {
	Quads []quad.Quad
	Err   error
	i     int
}

// Next implements cortex.QuadSource.
func (s *SliceSource) Next() (quad.Quad, error) {
	if s.i < len(s.Quads) {
		s.i++
		return s.Quads[s.i-1], nil
	}
	if s.Err != nil {
		return quad.Quad{}, s.Err
	}
	return quad.Quad{}, io.EOF
}
