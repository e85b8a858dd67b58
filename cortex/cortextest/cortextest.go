// Package cortextest provides helpers for tests that need a real Cortex store.
package cortextest

import (
	"context"
	"io"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
)

// NewStore opens a persistent store in a fresh t.TempDir() and closes it when
// the test ends. After the test it checks that the store closes cleanly.
func NewStore(t testing.TB, opts ...cortex.Options) *cortex.Store {
	t.Helper()
	o := cortex.DefaultOptions().WithSyncWrites(false)
	if len(opts) > 0 {
		o = opts[0]
	}
	s, err := cortex.Open(context.Background(), t.TempDir(), o)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() {
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
