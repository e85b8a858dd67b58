package workflow

import (
	"context"
	"errors"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/teammanager"
)

// TestEngine_AddFindingsAttemptEndsBeforeWrite: a runner whose attempt is
// given back, and its step started again, after AddFindings checked the
// attempt and before the findings are written (findingsHook makes that
// interleaving) is refused (ErrStaleAttempt), and its findings reach
// neither the agent's member graph nor the step: the check and the write
// are one atomic step. So is a step failed meanwhile (a *TransitionError).
func TestEngine_AddFindingsAttemptEndsBeforeWrite(t *testing.T) {
	ctx := context.Background()
	fs := []teammanager.Finding{{Subject: quad.IRI("https://ex.org/s"), Predicate: quad.IRI("https://ex.org/p"), Object: quad.String("stale")}}
	cases := []struct {
		name    string
		between func(e *Engine, attempt int) error
		want    error
	}{
		{"restarted", func(e *Engine, attempt int) error {
			if err := e.ReleaseStep(ctx, "r", "a", attempt, "given back"); err != nil {
				return err
			}
			_, err := e.StartStep(ctx, "r", "a", "driver-2")
			return err
		}, ErrStaleAttempt},
		{"failed", func(e *Engine, attempt int) error {
			return e.FailStep(ctx, "r", "a", attempt, "failed elsewhere")
		}, ErrInvalidTransition},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, tm, e := newInternalEngine(t)
			d := Def{Name: "two", Steps: []Step{{Name: "a", Agent: "x"}, {Name: "b", Agent: "x"}}} // x works on after a
			if _, err := e.Start(ctx, d, RunOptions{ID: "r"}); err != nil {
				t.Fatal(err)
			}
			attempt, err := e.StartStep(ctx, "r", "a", "driver-1")
			if err != nil {
				t.Fatal(err)
			}
			var herr error
			e.findingsHook = func() {
				e.findingsHook = nil
				herr = tc.between(e, attempt)
			}
			ids, err := e.AddFindings(ctx, "r", "a", attempt, fs)
			if herr != nil {
				t.Fatal(herr)
			}
			if !errors.Is(err, tc.want) || ids != nil {
				t.Fatalf("AddFindings of the ended attempt: %v, %v; want an error matching %v", ids, err, tc.want)
			}
			got, err := tm.Findings(ctx, "r", teammanager.FindingFilter{})
			if err != nil || len(got) != 0 {
				t.Fatalf("the team's findings: %+v, %v; want none", got, err)
			}
			r, err := e.Get(ctx, "r")
			if err != nil {
				t.Fatal(err)
			}
			if s, _ := r.Step("a"); len(s.Findings) != 0 {
				t.Fatalf("step a: %+v, want no findings", s)
			}
		})
	}
}
