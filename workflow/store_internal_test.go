package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
)

// writeOlderRecord rewrites run id as a version before step rows stored
// it: the whole record, steps included, in the run's row, and no step
// rows; edit changes each step first.
func writeOlderRecord(t *testing.T, e *Engine, id string, edit func(*StepState)) {
	t.Helper()
	ctx := context.Background()
	rec, err := e.load(ctx, e.n, id, readWriter)
	if err != nil {
		t.Fatal(err)
	}
	old := rec.next()
	for i := range old.Steps {
		edit(&old.Steps[i])
	}
	n := old.StepRows
	old.Rev, old.Gen, old.StepRows = "", 0, 0
	b, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.n.Update(ctx, func(tx *cortex.Tx) error {
		tx.PutSide(runTable, id, []quad.Value{quad.String(b)})
		for i := range n {
			tx.DeleteSide(stepTable, stepKey(id, i))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// stepRows returns the keys of the step rows of run id.
func stepRows(t *testing.T, e *Engine, id string) []string {
	t.Helper()
	rows, err := e.n.SideRowsAfter(context.Background(), stepTable, id+":", 0)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range rows {
		if strings.HasPrefix(r.Key, id+":") {
			keys = append(keys, r.Key)
		}
	}
	return keys
}

// TestEngine_OlderRecordMovesToStepRows: a run stored with its steps in its
// own row (before step rows) reads as it was, and its next write moves its
// steps to step rows, all of them, changed or not: the run then reads the
// same through this Engine and a fresh one, and runs to its end.
func TestEngine_OlderRecordMovesToStepRows(t *testing.T) {
	ctx := context.Background()
	s, tm, e := newInternalEngine(t)
	d := Def{Name: "three", Type: Chain, Steps: []Step{{Name: "a", Agent: "x"}, {Name: "b", Agent: "y"}, {Name: "c", Agent: "x"}}}
	if _, err := e.Start(ctx, d, RunOptions{ID: "old"}); err != nil {
		t.Fatal(err)
	}
	n, err := e.StartStep(ctx, "old", "a", "host")
	if err != nil {
		t.Fatal(err)
	}
	writeOlderRecord(t, e, "old", func(*StepState) {})
	if keys := stepRows(t, e, "old"); len(keys) != 0 {
		t.Fatalf("step rows of the older record: %v", keys)
	}
	r, err := e.Get(ctx, "old")
	if err != nil || len(r.Steps) != 3 || r.Steps[0].Status != StepRunning || r.Steps[1].Status != StepPending {
		t.Fatalf("older record reads as %+v, %v", r.Steps, err)
	}

	if err := e.CompleteStep(ctx, "old", "a", n, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"old:00000", "old:00001", "old:00002"}
	if keys := stepRows(t, e, "old"); fmt.Sprint(keys) != fmt.Sprint(want) {
		t.Fatalf("step rows after the first write: %v, want %v", keys, want)
	}
	row, _, err := e.n.SideRow(ctx, runTable, "old")
	if err != nil {
		t.Fatal(err)
	}
	if raw := quadString(row[0]); strings.Contains(raw, `"name":"a"`) {
		t.Fatalf("the run's row still holds its steps: %s", raw)
	}
	fresh, err := New(ctx, s, tm, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for name, eng := range map[string]*Engine{"same engine": e, "fresh engine": fresh} {
		r, err := eng.Get(ctx, "old")
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprint(r.Steps[0].Status, r.Steps[1].Status, r.Steps[2].Status)
		if got != fmt.Sprint(StepCompleted, StepReady, StepPending) {
			t.Fatalf("%s: steps %s", name, got)
		}
	}
	for _, step := range []string{"b", "c"} {
		n, err := fresh.StartStep(ctx, "old", step, "host")
		if err != nil {
			t.Fatal(err)
		}
		if err := fresh.CompleteStep(ctx, "old", step, n, nil); err != nil {
			t.Fatal(err)
		}
	}
	if r, err := e.Get(ctx, "old"); err != nil || r.Status != RunCompleted {
		t.Fatalf("run %s, %v; want completed", r.Status, err)
	}
}

// TestEngine_RemovedRunLeavesNoStepRows: a run whose team is refused is
// removed with its step rows.
func TestEngine_RemovedRunLeavesNoStepRows(t *testing.T) {
	ctx := context.Background()
	_, _, e := newInternalEngine(t)
	var d Def
	d.Name, d.Type = "wide", Graph
	for i := range 20 { // more agents than a team may have (8)
		d.Steps = append(d.Steps, Step{Name: fmt.Sprint("s", i), Agent: fmt.Sprint("a", i)})
	}
	if _, err := e.Start(ctx, d, RunOptions{ID: "big"}); err == nil {
		t.Fatal("start of a run with more agents than a team may have: no error")
	}
	if keys := stepRows(t, e, "big"); len(keys) != 0 {
		t.Fatalf("removed run left step rows: %v", keys[:min(3, len(keys))])
	}
}

// TestEngine_RunRemovedWhileRead: a run removed (Start's removal of a run
// whose team is refused) between the read of its row and that of its step
// rows reads as unknown (ErrUnknownRun), not as a run with missing step
// rows, and a listing leaves it out.
func TestEngine_RunRemovedWhileRead(t *testing.T) {
	ctx := context.Background()
	s, tm, e := newInternalEngine(t)
	d := Def{Name: "three", Type: Chain, Steps: []Step{{Name: "a", Agent: "x"}, {Name: "b", Agent: "y"}, {Name: "c", Agent: "x"}}}
	// A run each read removes (Start refuses the id of a team, which
	// removal leaves: a removed run never had one).
	for _, id := range []string{"gone-get", "gone-list", "kept"} {
		if _, err := e.Start(ctx, d, RunOptions{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	for name, read := range map[string]func(e *Engine) error{
		"get": func(e *Engine) error { _, err := e.Get(ctx, "gone-get"); return err },
		"list": func(e *Engine) error {
			rs, err := e.List(ctx, "")
			ids := map[string]bool{}
			for _, r := range rs {
				ids[r.ID] = true
			}
			if err == nil && (ids["gone-list"] || !ids["kept"]) {
				t.Errorf("list: %v, want kept and not gone-list", ids)
			}
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			gone := "gone-" + name
			fresh, err := New(ctx, s, tm, DefaultConfig()) // reads the step rows
			if err != nil {
				t.Fatal(err)
			}
			fresh.headHook = func(id string) {
				if id != gone {
					return
				}
				fresh.headHook = nil
				if err := e.remove(ctx, gone, len(d.Steps)); err != nil {
					t.Error(err)
				}
			}
			err = read(fresh)
			if name == "get" && !errors.Is(err, ErrUnknownRun) || name == "list" && err != nil {
				t.Fatalf("%s of a run removed meanwhile: %v", name, err)
			}
		})
	}
}

// TestEngine_RunsKeptAreBounded: an Engine keeps at most cacheSize runs'
// records, and none of a finished run (cancelled here), not even after
// reading it again.
func TestEngine_RunsKeptAreBounded(t *testing.T) {
	ctx := context.Background()
	_, _, e := newInternalEngine(t)
	d := Def{Name: "one", Type: Chain, Steps: []Step{{Name: "a", Agent: "x"}}}
	kept := func() int {
		e.mu.Lock()
		defer e.mu.Unlock()
		return len(e.runs)
	}
	for i := range cacheSize + 8 {
		if _, err := e.Start(ctx, d, RunOptions{ID: fmt.Sprint("r", i)}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Get(ctx, fmt.Sprint("r", i)); err != nil {
			t.Fatal(err)
		}
		if n := kept(); n > cacheSize {
			t.Fatalf("%d runs kept after %d starts, at most %d", n, i+1, cacheSize)
		}
	}
	last := fmt.Sprint("r", cacheSize+7)
	if _, err := e.Cancel(ctx, last, "host"); err != nil {
		t.Fatal(err)
	}
	if r, err := e.Get(ctx, last); err != nil || r.Status != RunCancelled {
		t.Fatalf("run %s, %v", r.Status, err)
	}
	e.mu.Lock()
	_, ok := e.runs[last]
	e.mu.Unlock()
	if ok {
		t.Fatal("the record of a cancelled run is kept")
	}
}

// TestSameStep_EveryField: a step that differs in any one field from
// another is not the same step (so a write stores its row): a field added
// to StepState and not to sameStep fails here.
func TestSameStep_EveryField(t *testing.T) {
	base := StepState{Name: "a", Agent: "x", Status: StepRunning, Reason: "r", Actor: "host",
		StartedAt: time.Unix(1, 0).UTC(), CompletedAt: time.Unix(2, 0).UTC(), Outputs: map[string]any{"o": "v"},
		Findings: []string{"f"}, Votes: []Vote{{Subject: "<s>"}}, Attempt: 1}
	if b := base; !sameStep(&base, &b) {
		t.Fatal("a step is not the same as its copy")
	}
	typ := reflect.TypeOf(base)
	for i := range typ.NumField() {
		other := base
		f := reflect.ValueOf(&other).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(f.String() + "'")
		case reflect.Int:
			f.SetInt(f.Int() + 1)
		case reflect.Map:
			f.Set(reflect.MakeMap(f.Type())) // a new map
		case reflect.Slice:
			f.Set(reflect.AppendSlice(reflect.MakeSlice(f.Type(), 0, f.Len()), f)) // the same values, a new slice
		case reflect.Struct:
			if tm, ok := f.Addr().Interface().(*time.Time); ok {
				*tm = tm.Add(time.Second)
				break
			}
			t.Fatalf("field %s: kind %s not covered by this test", typ.Field(i).Name, f.Kind())
		default:
			t.Fatalf("field %s: kind %s not covered by this test", typ.Field(i).Name, f.Kind())
		}
		if sameStep(&base, &other) {
			t.Errorf("steps that differ in %s are the same", typ.Field(i).Name)
		}
	}
}

// TestEngine_OlderRecordListedAndCancelled: a run stored with its steps in
// its own row is listed with its steps, beside a run with step rows, and
// is cancelled like any other (its steps then move to step rows).
func TestEngine_OlderRecordListedAndCancelled(t *testing.T) {
	ctx := context.Background()
	_, _, e := newInternalEngine(t)
	d := Def{Name: "three", Type: Chain, Steps: []Step{{Name: "a", Agent: "x"}, {Name: "b", Agent: "y"}, {Name: "c", Agent: "x"}}}
	for _, id := range []string{"new", "old"} {
		if _, err := e.Start(ctx, d, RunOptions{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	writeOlderRecord(t, e, "old", func(*StepState) {})
	rs, err := e.List(ctx, RunPending)
	if err != nil || len(rs) != 2 {
		t.Fatalf("list: %d runs, %v", len(rs), err)
	}
	for _, r := range rs {
		if len(r.Steps) != 3 || r.Steps[0].Status != StepReady {
			t.Fatalf("run %s listed with steps %+v", r.ID, r.Steps)
		}
	}
	if r, err := e.Cancel(ctx, "old", "host"); err != nil || r.Status != RunCancelled || len(r.Steps) != 3 {
		t.Fatalf("cancel: %s, %d steps, %v", r.Status, len(r.Steps), err)
	}
	if keys := stepRows(t, e, "old"); len(keys) != 3 {
		t.Fatalf("step rows of the cancelled run: %v", keys)
	}
	rs, err = e.List(ctx, RunCancelled)
	if err != nil || len(rs) != 1 || rs[0].ID != "old" || len(rs[0].Steps) != 3 {
		t.Fatalf("cancelled runs: %+v, %v", rs, err)
	}
}

// newHead stages the head of run id with a new revision: a write of the
// run, as a reader sees it.
func newHead(ctx context.Context, tx *cortex.Tx, id string) error {
	row, _, err := tx.Namespace().SideRow(ctx, runTable, id)
	if err != nil {
		return err
	}
	rec, err := decodeRecord(id, row)
	if err != nil {
		return err
	}
	rec.Rev = newRev()
	rec.Gen++
	head, err := encodeHead(rec)
	if err != nil {
		return err
	}
	tx.PutSide(runTable, id, head)
	tx.KeepSide(runTable)
	return nil
}

// TestEngine_ReadsNeverTakeWriteLock: Get, List and History only read, as
// a read-only caller (the server's read role, cortexctl's read-only
// commands) needs: a read whose run is written between the read of its
// row and that of its step rows, more times in a row than the quick tries
// (here six), reads again without the namespace's write lock, and returns
// the run as the last write left it. The only writes (LockAcquired) are
// the hook's.
func TestEngine_ReadsNeverTakeWriteLock(t *testing.T) {
	ctx := context.Background()
	s, tm, e := newInternalEngine(t)
	d := Def{Name: "three", Type: Chain, Steps: []Step{{Name: "a", Agent: "x"}, {Name: "b", Agent: "y"}, {Name: "c", Agent: "x"}}}
	if _, err := e.Start(ctx, d, RunOptions{ID: "busy"}); err != nil {
		t.Fatal(err)
	}
	const writes = 6
	for name, read := range map[string]func(e *Engine) error{
		"get": func(e *Engine) error {
			r, err := e.Get(ctx, "busy")
			if err == nil && len(r.Steps) != 3 {
				t.Errorf("get: %d steps", len(r.Steps))
			}
			return err
		},
		"list": func(e *Engine) error {
			rs, err := e.List(ctx, "")
			if err == nil && (len(rs) != 1 || len(rs[0].Steps) != 3) {
				t.Errorf("list: %+v", rs)
			}
			return err
		},
		"history": func(e *Engine) error { _, err := e.History(ctx, "busy"); return err },
	} {
		t.Run(name, func(t *testing.T) {
			fresh, err := New(ctx, s, tm, DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			wrote := 0
			fresh.headHook = func(id string) {
				if wrote == writes {
					return
				}
				// A write of the run's head (a new revision) between the
				// read's two reads of it; TryUpdate, as a read under the
				// lock (the old fallback) must not wait for itself.
				ok, err := e.n.TryUpdate(ctx, func(tx *cortex.Tx) error { return newHead(ctx, tx, id) })
				if err != nil {
					t.Error(err)
				}
				if ok {
					wrote++
				}
			}
			before := e.n.WriteStats().LockAcquired
			if err := read(fresh); err != nil {
				t.Fatalf("%s of a run written during each of %d reads: %v", name, writes, err)
			}
			if took := e.n.WriteStats().LockAcquired - before; took != int64(wrote) || wrote != writes {
				t.Fatalf("%s took the write lock %d times for the hook's %d writes (want %d): a read took it", name, took, wrote, writes)
			}
		})
	}
}

// TestEngine_ReadRacedUntilContextEnds: a Get whose run is written during
// every read keeps reading, without the write lock, until its context
// ends, and then returns the context's error.
func TestEngine_ReadRacedUntilContextEnds(t *testing.T) {
	s, tm, e := newInternalEngine(t)
	d := Def{Name: "one", Type: Chain, Steps: []Step{{Name: "a", Agent: "x"}}}
	if _, err := e.Start(context.Background(), d, RunOptions{ID: "busy"}); err != nil {
		t.Fatal(err)
	}
	fresh, err := New(context.Background(), s, tm, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reads := 0
	fresh.headHook = func(id string) {
		if reads++; reads == 2*quickTries+2 {
			cancel()
		}
		bg := context.Background()
		if err := e.n.Update(bg, func(tx *cortex.Tx) error { return newHead(bg, tx, id) }); err != nil {
			t.Error(err)
		}
	}
	before := e.n.WriteStats().LockAcquired
	if _, err := fresh.Get(ctx, "busy"); !errors.Is(err, context.Canceled) {
		t.Fatalf("get of a run written during every read: %v, want context.Canceled", err)
	}
	if took := e.n.WriteStats().LockAcquired - before; took != int64(reads) {
		t.Fatalf("the write lock was taken %d times for the hook's %d writes", took, reads)
	}
}
