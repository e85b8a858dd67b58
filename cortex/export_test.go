package cortex

import (
	"context"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/internal/engine"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
)

// WithStreamTuning returns o with the segment-mode thresholds lowered for
// a test (or a test's child process): segments of about segBytes, streamed
// from minEntries entries whatever the shape of Badger's tree.
func WithStreamTuning(o Options, segBytes int64, minEntries int) Options {
	o.o = engine.WithStreamTuning(o.o, segBytes, minEntries)
	return o
}

// WithStreamHook returns o with fn called at points of a streamed write
// ("prepared", "group-done", "flushed").
func WithStreamHook(o Options, fn func(stage string)) Options {
	o.o = engine.WithStreamHook(o.o, fn)
	return o
}

// StreamedSegments returns the number of segments the store wrote through
// the stream writer.
func (s *Store) StreamedSegments() int64 { return s.e.StreamedSegments() }

// CheckFormat fails the test unless the namespace passes Namespace.Check.
func CheckFormat(t *testing.T, n *Namespace) {
	t.Helper()
	if err := n.Check(context.Background()); err != nil {
		t.Error(err)
	}
}

// WithJournalHook returns o with fn called at points of a journaled delta
// ("written"; "committed" after each of its transactions).
func WithJournalHook(o Options, fn func(stage string)) Options {
	o.o = engine.WithJournalHook(o.o, fn)
	return o
}

// JournalFile is the name of the journal of a delta in progress.
const JournalFile = engine.JournalFile

// WithSpillTuning returns o with import segments spilling their writes to
// run files once they hold spill bytes in memory, and ending after maxQuads
// quads.
func WithSpillTuning(o Options, spill int64, maxQuads int) Options {
	o.o = engine.WithSpillTuning(o.o, spill, maxQuads)
	return o
}

// Pins returns the namespace's pins (Delta.Pin): node id → term.
func Pins(t testing.TB, n *Namespace) map[eval.ID]quad.Value {
	t.Helper()
	pins, err := n.e.Pins(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return pins
}

// ParallelReads returns the number of key ranges the store's journaled
// deltas read on their own goroutine.
func (s *Store) ParallelReads() int64 { return s.e.ParallelReads() }

// StreamedRollbacks returns the number of roll-backs Open wrote through the
// stream writer.
func (s *Store) StreamedRollbacks() int64 { return s.e.StreamedRollbacks() }
