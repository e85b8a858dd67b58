package engine

import (
	"fmt"
	"time"
)

// Tuning holds the engine's finer settings: thresholds and waits. It is
// cortex.Tuning, where each field is documented with its default (the
// facade converts one into the other, so the two structs must keep the
// same fields). A zero field means the default (DefaultTuning).
type Tuning struct {
	MaxDeltaQuads                                  int
	JournalTxnEntries                              int
	JournalGateWait                                time.Duration
	DropGateWait                                   time.Duration
	CloseWait                                      time.Duration
	ResultsCloseWait                               time.Duration
	StreamMinEntries                               int
	StreamFlattenRatio                             int64
	StreamWriteBuffer                              int
	StreamGateWait                                 time.Duration
	SegmentMaxQuads                                int
	SegmentMaxRuns                                 int
	SegmentIdle, SegmentStall                      time.Duration
	ImportMaxNodes, ImportMaxKeys, ImportMaxQuads  int
	ParallelReadMin                                int
	RollbackStreamMin                              int
	RollbackProgressEvery                          int
	GateFirstClosed, GateMaxClosed, GateOpenWindow time.Duration
	GovernorEvery                                  time.Duration
}

// DefaultTuning returns the default value of every Tuning field.
func DefaultTuning() Tuning {
	return Tuning{
		MaxDeltaQuads:         MaxDeltaQuads,
		JournalTxnEntries:     20_000,
		JournalGateWait:       10 * time.Second,
		DropGateWait:          10 * time.Second,
		CloseWait:             30 * time.Second,
		ResultsCloseWait:      2 * time.Second,
		StreamMinEntries:      200_000,
		StreamFlattenRatio:    1,
		StreamWriteBuffer:     16 << 20,
		StreamGateWait:        2 * time.Second,
		SegmentMaxQuads:       2 << 20,
		SegmentMaxRuns:        64,
		SegmentIdle:           100 * time.Millisecond,
		SegmentStall:          time.Second,
		ImportMaxNodes:        4 << 20,
		ImportMaxKeys:         8 << 20,
		ImportMaxQuads:        4 << 20,
		ParallelReadMin:       8192,
		RollbackStreamMin:     200_000,
		RollbackProgressEvery: 1 << 15,
		GateFirstClosed:       200 * time.Millisecond,
		GateMaxClosed:         3 * time.Second,
		GateOpenWindow:        50 * time.Millisecond,
		GovernorEvery:         500 * time.Millisecond,
	}
}

// WithTuning sets the engine's finer settings (see Tuning); zero fields keep
// their defaults. Default DefaultTuning().
func (o Options) WithTuning(t Tuning) Options { o.tuning = t; return o }

// resolved returns t with every zero field set to its default.
func (t Tuning) resolved() Tuning {
	d := DefaultTuning()
	orDefault(&t.MaxDeltaQuads, d.MaxDeltaQuads)
	orDefault(&t.JournalTxnEntries, d.JournalTxnEntries)
	orDefault(&t.JournalGateWait, d.JournalGateWait)
	orDefault(&t.DropGateWait, d.DropGateWait)
	orDefault(&t.CloseWait, d.CloseWait)
	orDefault(&t.ResultsCloseWait, d.ResultsCloseWait)
	orDefault(&t.StreamMinEntries, d.StreamMinEntries)
	orDefault(&t.StreamFlattenRatio, d.StreamFlattenRatio)
	orDefault(&t.StreamWriteBuffer, d.StreamWriteBuffer)
	orDefault(&t.StreamGateWait, d.StreamGateWait)
	orDefault(&t.SegmentMaxQuads, d.SegmentMaxQuads)
	orDefault(&t.SegmentMaxRuns, d.SegmentMaxRuns)
	orDefault(&t.SegmentIdle, d.SegmentIdle)
	orDefault(&t.SegmentStall, d.SegmentStall)
	orDefault(&t.ImportMaxNodes, d.ImportMaxNodes)
	orDefault(&t.ImportMaxKeys, d.ImportMaxKeys)
	orDefault(&t.ImportMaxQuads, d.ImportMaxQuads)
	orDefault(&t.ParallelReadMin, d.ParallelReadMin)
	orDefault(&t.RollbackStreamMin, d.RollbackStreamMin)
	orDefault(&t.RollbackProgressEvery, d.RollbackProgressEvery)
	orDefault(&t.GateFirstClosed, d.GateFirstClosed)
	orDefault(&t.GateMaxClosed, d.GateMaxClosed)
	orDefault(&t.GateOpenWindow, d.GateOpenWindow)
	orDefault(&t.GovernorEvery, d.GovernorEvery)
	return t
}

// orDefault sets *v to d if it is zero.
func orDefault[T int | int64 | time.Duration](v *T, d T) {
	if *v == 0 {
		*v = d
	}
}

// validate checks the fields of t that are set (zero means the default).
func (t Tuning) validate() error {
	type field struct {
		name string
		v    int64
		show any // v as its type prints it
	}
	for _, f := range []field{
		{"MaxDeltaQuads", int64(t.MaxDeltaQuads), t.MaxDeltaQuads},
		{"JournalTxnEntries", int64(t.JournalTxnEntries), t.JournalTxnEntries},
		{"JournalGateWait", int64(t.JournalGateWait), t.JournalGateWait},
		{"DropGateWait", int64(t.DropGateWait), t.DropGateWait},
		{"CloseWait", int64(t.CloseWait), t.CloseWait},
		{"ResultsCloseWait", int64(t.ResultsCloseWait), t.ResultsCloseWait},
		{"StreamMinEntries", int64(t.StreamMinEntries), t.StreamMinEntries},
		{"StreamFlattenRatio", t.StreamFlattenRatio, t.StreamFlattenRatio},
		{"StreamWriteBuffer", int64(t.StreamWriteBuffer), t.StreamWriteBuffer},
		{"StreamGateWait", int64(t.StreamGateWait), t.StreamGateWait},
		{"SegmentMaxQuads", int64(t.SegmentMaxQuads), t.SegmentMaxQuads},
		{"SegmentMaxRuns", int64(t.SegmentMaxRuns), t.SegmentMaxRuns},
		{"SegmentIdle", int64(t.SegmentIdle), t.SegmentIdle},
		{"SegmentStall", int64(t.SegmentStall), t.SegmentStall},
		{"ImportMaxNodes", int64(t.ImportMaxNodes), t.ImportMaxNodes},
		{"ImportMaxKeys", int64(t.ImportMaxKeys), t.ImportMaxKeys},
		{"ImportMaxQuads", int64(t.ImportMaxQuads), t.ImportMaxQuads},
		{"ParallelReadMin", int64(t.ParallelReadMin), t.ParallelReadMin},
		{"RollbackStreamMin", int64(t.RollbackStreamMin), t.RollbackStreamMin},
		{"RollbackProgressEvery", int64(t.RollbackProgressEvery), t.RollbackProgressEvery},
		{"GateFirstClosed", int64(t.GateFirstClosed), t.GateFirstClosed},
		{"GateMaxClosed", int64(t.GateMaxClosed), t.GateMaxClosed},
		{"GateOpenWindow", int64(t.GateOpenWindow), t.GateOpenWindow},
		{"GovernorEvery", int64(t.GovernorEvery), t.GovernorEvery},
	} {
		if f.v < 0 {
			return fmt.Errorf("%s %v is negative", f.name, f.show)
		}
	}
	r := t.resolved()
	if r.MaxDeltaQuads > MaxDeltaQuads {
		return fmt.Errorf("MaxDeltaQuads %d out of range 1..%d", r.MaxDeltaQuads, MaxDeltaQuads)
	}
	if r.GateFirstClosed > r.GateMaxClosed {
		return fmt.Errorf("GateFirstClosed %v exceeds GateMaxClosed %v", r.GateFirstClosed, r.GateMaxClosed)
	}
	return nil
}
