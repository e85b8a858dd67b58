package engine

import (
	"context"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/eval"
)

// Test support: settings and counters that the tests of the public package
// (cortex/export_test.go) reach through these functions. None is used by
// the facade's non-test code.

// WithStreamTuning returns o with the segment-mode thresholds lowered for
// a test (or a test's child process): segments of about segBytes, streamed
// from minEntries entries whatever the shape of Badger's tree.
func WithStreamTuning(o Options, segBytes int64, minEntries int) Options {
	o.hooks.segmentBytes = segBytes
	o.tuning.StreamMinEntries, o.tuning.StreamFlattenRatio = minEntries, 1<<40
	return o
}

// WithStreamHook returns o with fn called at points of a streamed write
// ("prepared", "group-done", "flushed").
func WithStreamHook(o Options, fn func(stage string)) Options { o.hooks.stream = fn; return o }

// WithJournalHook returns o with fn called at points of a journaled delta
// ("written"; "committed" after each of its transactions).
func WithJournalHook(o Options, fn func(stage string)) Options { o.hooks.journal = fn; return o }

// WithSpillTuning returns o with import segments spilling their writes to
// run files once they hold spill bytes in memory, and ending after maxQuads
// quads.
func WithSpillTuning(o Options, spill int64, maxQuads int) Options {
	o.hooks.spillBytes, o.tuning.SegmentMaxQuads = spill, maxQuads
	return o
}

// JournalFile is the name of the journal of a delta in progress.
const JournalFile = journalFile

// StreamedSegments returns the number of segments the store wrote through
// the stream writer.
func (s *Store) StreamedSegments() int64 { return s.counters.streamed.Load() }

// ParallelReads returns the number of key ranges the store's journaled
// deltas read on their own goroutine.
func (s *Store) ParallelReads() int64 { return s.counters.parallelReads.Load() }

// StreamedRollbacks returns the number of roll-backs Open wrote through the
// stream writer.
func (s *Store) StreamedRollbacks() int64 { return s.counters.rollbacks.Load() }

// Pins returns the namespace's pins (Delta.Pin): node id → term.
func (n *Namespace) Pins(ctx context.Context) (map[eval.ID]quad.Value, error) { return n.pins(ctx) }
