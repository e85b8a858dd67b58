package workflow

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
)

// How a run is stored: its record without the steps (the head) is the
// run's row of runTable, each step a row of stepTable (stepKey), so that a
// write stores what it changed (the head and the steps it changed), not
// the whole run: the cost of a step's transitions does not grow with the
// run's size. A record written before step rows (StepRows 0) holds its
// steps in its row; the first write of such a run moves them to step rows.
//
// The Engine keeps the last record it read or wrote of each open run
// (cacheSize at most), which a read uses while the stored head's Rev is
// its own: a record is never changed once read or written (update changes
// a copy), so readers share it.
const (
	stepTable = "workflow-steps"
	cacheSize = 64
)

// stepKey is the key of step i of run id in stepTable: run ids hold no
// ':', and the index is fixed-width, so a run's rows are the StepRows keys
// after id+":", in step order.
func stepKey(id string, i int) string { return fmt.Sprintf("%s:%05d", id, i) }

func newRev() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// encodeHead returns the row of rec in runTable: rec without its steps.
func encodeHead(rec *record) ([]quad.Value, error) {
	h := *rec
	h.Steps = nil
	b, err := json.Marshal(&h)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", rec.ID, err)
	}
	return []quad.Value{quad.String(b)}, nil
}

func encodeStep(id string, s *StepState) ([]quad.Value, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("run %s: step %s: %w", id, s.Name, err)
	}
	return []quad.Value{quad.String(b)}, nil
}

// sameStep reports whether b is a as stored: a write replaces a step's
// maps and slices (Outputs, Findings, Votes) instead of changing them in
// place, so comparing their identity is enough.
func sameStep(a, b *StepState) bool {
	return a.Name == b.Name && a.Agent == b.Agent && a.Status == b.Status && a.Reason == b.Reason &&
		a.Actor == b.Actor && a.StartedAt.Equal(b.StartedAt) && a.StartedAt.Location() == b.StartedAt.Location() &&
		a.CompletedAt.Equal(b.CompletedAt) && a.CompletedAt.Location() == b.CompletedAt.Location() &&
		a.Attempt == b.Attempt && sameMap(a.Outputs, b.Outputs) && sameSlice(a.Findings, b.Findings) &&
		sameSlice(a.Votes, b.Votes)
}

func sameMap(a, b map[string]any) bool {
	return (a == nil) == (b == nil) && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (a == nil) == (b == nil) && (len(a) == 0 || &a[0] == &b[0])
}

// next returns a copy of r for update to change: the steps' slice and the
// members' map are copied (a write sets fields of steps and entries of
// members); the steps' own maps and slices are replaced when changed,
// never changed in place.
func (r *record) next() *record {
	c := *r
	c.Steps = slices.Clone(r.Steps)
	c.Members = maps.Clone(r.Members)
	c.desired = nil
	return &c
}

// seal computes what readers of r ask often (desiredMembers); r is not
// changed after.
func (r *record) seal() *record {
	r.desired = r.computeDesiredMembers()
	return r
}

// public returns a copy of r's Run that shares nothing with r, for a
// caller to keep.
func (r *record) public() Run {
	b, err := json.Marshal(&r.Run)
	if err != nil {
		return r.Run
	}
	var out Run
	if err := json.Unmarshal(b, &out); err != nil {
		return r.Run
	}
	return out
}

// cached returns the Engine's record of run id if it is the one stored
// with rev.
func (e *Engine) cached(id, rev string) *record {
	if rev == "" {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if rec := e.runs[id]; rec != nil && rec.Rev == rev {
		return rec
	}
	return nil
}

// remember keeps rec as the Engine's record of its run: always when
// authoritative (read or written under the namespace's write lock), else
// unless the Engine holds a later one. A finished run is forgotten.
func (e *Engine) remember(rec *record, authoritative bool) {
	if rec.Rev == "" {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if rec.Status.Finished() {
		delete(e.runs, rec.ID)
		return
	}
	if old := e.runs[rec.ID]; old != nil && !authoritative && old.Gen >= rec.Gen {
		return
	}
	if _, ok := e.runs[rec.ID]; !ok && len(e.runs) >= cacheSize {
		for k := range e.runs { // any one
			delete(e.runs, k)
			break
		}
	}
	e.runs[rec.ID] = rec
}

func (e *Engine) forget(id string) {
	e.mu.Lock()
	delete(e.runs, id)
	e.mu.Unlock()
}

// How load reads a run.
type readMode int

const (
	// readWriter: a caller that writes (Ready, AddFindings, a driver):
	// after quickTries reads raced by writes, it reads under the
	// namespace's write lock.
	readWriter readMode = iota
	// readOnly: a caller that only reads (Get, List, History: the
	// server's read role, cortexctl's read-only commands): it never
	// takes the write lock; after quickTries raced reads, it reads again
	// after a pause, until a read falls between two writes or ctx ends.
	readOnly
	// readLocked: n is an Update's: no write can come between.
	readLocked
)

// quickTries is the number of raced reads of a run before load waits
// (readOnly) or takes the lock (readWriter); maxReadPause bounds a
// readOnly pause between two raced reads.
const (
	quickTries   = 3
	maxReadPause = 64 * time.Millisecond
)

// load reads the record of run id through n as mode says: unless
// readLocked, it reads the head again after the steps and starts over if
// a write or the run's removal came between: a run removed meanwhile is
// unknown (ErrUnknownRun), not one with missing step rows; an id no run
// can have is a *namespace.IDError (unknownRun).
func (e *Engine) load(ctx context.Context, n *cortex.Namespace, id string, mode readMode) (*record, error) {
	locked := mode == readLocked
	for try := 0; ; try++ {
		if mode == readWriter && try == quickTries {
			var rec *record
			err := n.Update(ctx, func(tx *cortex.Tx) error {
				var err error
				rec, err = e.load(ctx, tx.Namespace(), id, readLocked)
				return err
			})
			return rec, err
		}
		if mode == readOnly && try >= quickTries {
			if err := readPause(ctx, try-quickTries); err != nil {
				return nil, fmt.Errorf("run %q: %w", id, err)
			}
		}
		row, found, err := n.SideRow(ctx, runTable, id)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, fmt.Errorf("run %q: %w", id, unknownRun(id))
		}
		rec, err := decodeRecord(id, row)
		if err != nil {
			return nil, err
		}
		if c := e.cached(id, rec.Rev); c != nil {
			return c, nil
		}
		if rec.StepRows == 0 {
			return rec.seal(), nil // as an older version stored it: steps and all
		}
		if e.headHook != nil {
			e.headHook(id)
		}
		serr := e.loadSteps(ctx, n, rec)
		if !locked {
			again, found, err := n.SideRow(ctx, runTable, id)
			if err != nil {
				return nil, err
			}
			if !found || quadString(again[0]) != quadString(row[0]) {
				// Written or removed meanwhile: the step rows read may be
				// of another write, or missing (read again: a removed run
				// is unknown).
				continue
			}
		}
		if serr != nil {
			return nil, serr
		}
		rec.seal()
		e.remember(rec, locked)
		return rec, nil
	}
}

// readPause waits before the n-th (from 0) readOnly read after the quick
// tries: 1 ms, doubling up to maxReadPause, or until ctx ends (its error).
func readPause(ctx context.Context, n int) error {
	d := min(time.Millisecond<<min(n, 10), maxReadPause)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// loadSteps reads the step rows of rec.
func (e *Engine) loadSteps(ctx context.Context, n *cortex.Namespace, rec *record) error {
	rows, err := n.SideRowsAfter(ctx, stepTable, rec.ID+":", rec.StepRows)
	if err != nil {
		return err
	}
	if len(rows) != rec.StepRows {
		return fmt.Errorf("run %s: %d of %d step rows", rec.ID, len(rows), rec.StepRows)
	}
	rec.Steps = make([]StepState, len(rows))
	for i, row := range rows {
		if row.Key != stepKey(rec.ID, i) || len(row.Vals) != 1 {
			return fmt.Errorf("run %s: malformed step row %q", rec.ID, row.Key)
		}
		if err := json.Unmarshal([]byte(quadString(row.Vals[0])), &rec.Steps[i]); err != nil {
			return fmt.Errorf("run %s: step row %s: %w", rec.ID, row.Key, err)
		}
	}
	return nil
}

// stageRecord stages the rows of rec (old: as stored before, nil for a new
// run): its head with a new Rev and Gen, and the rows of the steps that
// changed (all of them for a new run or one stored without step rows).
// It returns the indexes of the changed steps.
func stageRecord(tx *cortex.Tx, old, rec *record) ([]int, error) {
	all := old == nil || old.StepRows == 0
	var changed []int
	for i := range rec.Steps {
		if all || !sameStep(&old.Steps[i], &rec.Steps[i]) {
			vals, err := encodeStep(rec.ID, &rec.Steps[i])
			if err != nil {
				return nil, err
			}
			tx.PutSide(stepTable, stepKey(rec.ID, i), vals)
			if old == nil || !sameStep(&old.Steps[i], &rec.Steps[i]) {
				changed = append(changed, i)
			}
		}
	}
	rec.Rev, rec.StepRows = newRev(), len(rec.Steps)
	rec.Gen++
	head, err := encodeHead(rec)
	if err != nil {
		return nil, err
	}
	tx.PutSide(runTable, rec.ID, head)
	tx.KeepSide(runTable)
	tx.KeepSide(stepTable)
	return changed, nil
}

// stepsChanged reports whether a step of rec differs from old's.
func stepsChanged(old, rec *record) bool {
	for i := range rec.Steps {
		if !sameStep(&old.Steps[i], &rec.Steps[i]) {
			return true
		}
	}
	return false
}

// headEqual reports whether the heads of a and b are equal.
func headEqual(a, b *record) bool {
	x, _ := encodeHead(a)
	y, _ := encodeHead(b)
	return quadString(x[0]) == quadString(y[0])
}

// view returns run id with only its ready and running steps: what a
// driver looks at between two steps (Drive), read without copying the
// run's other steps.
func (e *Engine) view(ctx context.Context, id string) (Run, error) {
	rec, err := e.load(ctx, e.n, id, readWriter)
	if err != nil {
		return Run{}, err
	}
	r := rec.Run
	r.Steps = nil
	for _, s := range rec.Steps {
		if s.Status == StepReady || s.Status == StepRunning {
			s.Outputs, s.Findings, s.Votes = nil, nil, nil
			r.Steps = append(r.Steps, s)
		}
	}
	r.Inputs, r.NonCritical, r.Rounds, r.Driver = nil, nil, nil, nil
	return r, nil
}
