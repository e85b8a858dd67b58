package cortex

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
)

// SetStreamTuning lowers the segment-mode thresholds for a test (or a test's
// child process): segments of about segBytes, streamed from minEntries
// entries. It returns a function restoring the defaults.
func SetStreamTuning(segBytes int64, minEntries int) (restore func()) {
	b, m, r := streamSegmentBytes, streamMinEntries, streamFlattenRatio
	streamSegmentBytes, streamMinEntries, streamFlattenRatio = segBytes, minEntries, 1<<40
	return func() { streamSegmentBytes, streamMinEntries, streamFlattenRatio = b, m, r }
}

// SetStreamHook sets the hook called at points of a streamed write
// ("prepared", "group-done", "flushed").
func SetStreamHook(fn func(stage string)) { streamTestHook = fn }

// StreamedSegments returns the number of segments written by the stream
// writer so far in this process.
func StreamedSegments() int64 { return bulkCounters.streamed.Load() }

// CheckFormat fails the test unless the namespace passes Namespace.Check.
func CheckFormat(t *testing.T, n *Namespace) { bulkCheckFormat(t, n) }

// SetJournalHook sets the hook called at points of a journaled delta
// ("committed", after each of its transactions).
func SetJournalHook(fn func(stage string)) { journalTestHook = fn }

// SetJournalGateWait sets how long a journaled delta waits for open
// transactions; it returns a function restoring the default.
func SetJournalGateWait(d time.Duration) (restore func()) {
	old := journalGateWait
	journalGateWait = d
	return func() { journalGateWait = old }
}

// JournalFile is the name of the journal of a delta in progress.
const JournalFile = journalFile

// SetSpillTuning makes import segments spill their writes to run files once
// they hold spill bytes in memory, and end after maxQuads quads.
func SetSpillTuning(spill int64, maxQuads int) (restore func()) {
	b, q := spillBytes, segmentMaxQuads
	spillBytes, segmentMaxQuads = spill, maxQuads
	return func() { spillBytes, segmentMaxQuads = b, q }
}

// Pins returns the namespace's pins (Delta.Pin): node id → term.
func Pins(t testing.TB, n *Namespace) map[ID]quad.Value {
	t.Helper()
	pins, err := n.Pins(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return pins
}

// SetParallelReads makes a journaled delta read its keys ahead in ranges of
// at least minKeys keys, on up to procs goroutines (GOMAXPROCS is set to
// procs); it returns a function restoring both.
func SetParallelReads(minKeys, procs int) (restore func()) {
	old, oldProcs := parallelReadMin, runtime.GOMAXPROCS(procs)
	parallelReadMin = minKeys
	return func() { parallelReadMin = old; runtime.GOMAXPROCS(oldProcs) }
}

// ParallelReads returns the number of key ranges read on their own
// goroutine so far in this process.
func ParallelReads() int64 { return parallelReads.Load() }

// SetRollbackTuning makes Open roll back through the stream writer from
// streamMin keys and report progress (and check its context) every every
// keys; it returns a function restoring the defaults.
func SetRollbackTuning(streamMin, every int) (restore func()) {
	m, e := streamRollbackMin, rollbackProgressEvery
	streamRollbackMin, rollbackProgressEvery = streamMin, every
	return func() { streamRollbackMin, rollbackProgressEvery = m, e }
}

// StreamedRollbacks returns the number of roll-backs written through the
// stream writer so far in this process.
func StreamedRollbacks() int64 { return bulkCounters.rollbacks.Load() }
