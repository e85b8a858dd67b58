package workflow

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestEngine_StepStartedBeforeAttempts: a running step stored by a version
// that did not count attempts (no "attempt" in its record) is attempt 0:
// the record reads, a call naming attempt 0 (what such a version's driver
// sends) finishes it, one naming another attempt is refused and writes
// nothing, and the step's next start is attempt 1.
func TestEngine_StepStartedBeforeAttempts(t *testing.T) {
	ctx := context.Background()
	_, _, e := newInternalEngine(t)
	d := Def{Name: "two", Steps: []Step{{Name: "a", Agent: "x"}, {Name: "b", Agent: "y"}}}
	if _, err := e.Start(ctx, d, RunOptions{ID: "old"}); err != nil {
		t.Fatal(err)
	}
	for _, step := range []string{"a", "b"} {
		if _, err := e.StartStep(ctx, "old", step, "old-driver"); err != nil {
			t.Fatal(err)
		}
	}
	// The record as the older version wrote it: no attempts, the steps in
	// the run's own row.
	writeOlderRecord(t, e, "old", func(s *StepState) { s.Attempt = 0 })
	row, _, err := e.n.SideRow(ctx, runTable, "old")
	if err != nil || len(row) != 1 {
		t.Fatalf("row: %v, %v", row, err)
	}
	if raw := quadString(row[0]); strings.Contains(raw, `"attempt"`) || !strings.Contains(raw, `"status":"running"`) {
		t.Fatalf("the record has attempts, or no steps: %s", raw)
	}

	err = e.CompleteStep(ctx, "old", "a", 1, nil)
	var ae *AttemptError
	if !errors.As(err, &ae) || ae.Attempt != 1 || ae.Current != 0 {
		t.Fatalf("complete attempt 1 of a step started before attempts: %v", err)
	}
	if r, _ := e.Get(ctx, "old"); r.Steps[0].Status != StepRunning {
		t.Fatalf("the refused call changed step a: %+v", r.Steps[0])
	}
	if err := e.CompleteStep(ctx, "old", "a", 0, nil); err != nil {
		t.Fatalf("complete attempt 0: %v", err)
	}
	if err := e.ReleaseStep(ctx, "old", "b", 0, "older driver stopped"); err != nil {
		t.Fatalf("release attempt 0: %v", err)
	}
	if n, err := e.StartStep(ctx, "old", "b", "new-driver"); err != nil || n != 1 {
		t.Fatalf("restart of b: attempt %d, %v; want 1", n, err)
	}
	if err := e.FailStep(ctx, "old", "b", 0, "late"); !errors.Is(err, ErrStaleAttempt) {
		t.Fatalf("fail attempt 0 of a restarted step: %v", err)
	}
	if err := e.CompleteStep(ctx, "old", "b", 1, nil); err != nil {
		t.Fatal(err)
	}
	if r, _ := e.Get(ctx, "old"); r.Status != RunCompleted {
		t.Fatalf("run %s, want completed", r.Status)
	}
}
