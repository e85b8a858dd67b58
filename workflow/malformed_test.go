package workflow_test

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
	"github.com/cortexgraph/cortex/workflow"
)

// TestEngine_MalformedIDs: every call that takes a run id answers one no
// run has with ErrUnknownRun alone, and one no run can have (not 1 to 64
// of A-Z a-z 0-9 . _ @ + -) with a *namespace.IDError that matches
// namespace.ErrInvalidID and ErrUnknownRun; the calls that take a step do
// the same with ErrUnknownStep for a name no step can have (empty, a
// control character). None of them writes.
func TestEngine_MalformedIDs(t *testing.T) {
	f := newFixture(t)
	f.start(t, graphDef(), workflow.RunOptions{ID: "m1"})
	if _, err := f.e.StartStep(ctx, "m1", "analyze", "host"); err != nil {
		t.Fatal(err)
	}
	before := f.get(t, "m1")
	hist, err := f.e.History(ctx, "m1")
	if err != nil {
		t.Fatal(err)
	}
	never := workflow.RunnerFunc(func(context.Context, workflow.ReadyStep) (map[string]any, []teammanager.Finding, error) {
		t.Error("a runner ran for a run that does not exist")
		return nil, nil, nil
	})
	fs := []teammanager.Finding{finding("a", "b", quad.String("c"))}
	driver := workflow.Driver{ID: "d1", Actor: "host"}
	runCalls := map[string]func(id string) error{
		"Get":           func(id string) error { _, err := f.e.Get(ctx, id); return err },
		"History":       func(id string) error { _, err := f.e.History(ctx, id); return err },
		"Cancel":        func(id string) error { _, err := f.e.Cancel(ctx, id, "host"); return err },
		"Ready":         func(id string) error { _, err := f.e.Ready(ctx, id); return err },
		"StartStep":     func(id string) error { _, err := f.e.StartStep(ctx, id, "security", "host"); return err },
		"AddFindings":   func(id string) error { _, err := f.e.AddFindings(ctx, id, "analyze", 1, fs); return err },
		"CompleteStep":  func(id string) error { return f.e.CompleteStep(ctx, id, "analyze", 1, nil) },
		"FailStep":      func(id string) error { return f.e.FailStep(ctx, id, "analyze", 1, "no") },
		"ReleaseStep":   func(id string) error { return f.e.ReleaseStep(ctx, id, "analyze", 1, "no") },
		"ClaimDriver":   func(id string) error { _, err := f.e.ClaimDriver(ctx, id, driver, time.Minute, ""); return err },
		"ReleaseDriver": func(id string) error { return f.e.ReleaseDriver(ctx, id, "d1") },
		"Run":           func(id string) error { _, err := f.e.Run(ctx, id, never, 1); return err },
		"Drive":         func(id string) error { _, err := workflow.Drive(ctx, f.e, id, "host", never, 1); return err },
	}
	for name, call := range runCalls {
		for _, tc := range []struct {
			id        string
			malformed bool
		}{
			{"nope", false},
			{strings.Repeat("r", 64), false},
			{"a/b", true},
			{"a b", true},
			{"a\nb", true},
			{"", true},
			{strings.Repeat("r", 65), true},
		} {
			t.Run(name+" "+strconv.Quote(tc.id), func(t *testing.T) {
				checkLookup(t, call(tc.id), workflow.ErrUnknownRun, tc.malformed)
			})
		}
	}
	stepCalls := map[string]func(step string) error{
		"StartStep":    func(step string) error { _, err := f.e.StartStep(ctx, "m1", step, "host"); return err },
		"AddFindings":  func(step string) error { _, err := f.e.AddFindings(ctx, "m1", step, 1, fs); return err },
		"CompleteStep": func(step string) error { return f.e.CompleteStep(ctx, "m1", step, 1, nil) },
		"FailStep":     func(step string) error { return f.e.FailStep(ctx, "m1", step, 1, "no") },
		"ReleaseStep":  func(step string) error { return f.e.ReleaseStep(ctx, "m1", step, 1, "no") },
	}
	for name, call := range stepCalls {
		for _, tc := range []struct {
			step      string
			malformed bool
		}{
			{"nope", false},
			{"a/b c", false},
			{"", true},
			{"a\nb", true},
			{"\x00", true},
			{"a\u0085", true},
		} {
			t.Run(name+" step "+strconv.Quote(tc.step), func(t *testing.T) {
				checkLookup(t, call(tc.step), workflow.ErrUnknownStep, tc.malformed)
			})
		}
	}
	if after := f.get(t, "m1"); !reflect.DeepEqual(after, before) {
		t.Errorf("refused calls changed the run:\n%+v\nwas\n%+v", after, before)
	}
	if h, err := f.e.History(ctx, "m1"); err != nil || len(h) != len(hist) {
		t.Errorf("refused calls added transitions: %d, was %d (%v)", len(h), len(hist), err)
	}
}

// checkLookup checks that err is the lookup error unknown, and, if
// malformed, a *namespace.IDError matching namespace.ErrInvalidID too.
func checkLookup(t *testing.T, err, unknown error, malformed bool) {
	t.Helper()
	var ie *namespace.IDError
	switch {
	case !errors.Is(err, unknown):
		t.Fatalf("%v, want %v", err, unknown)
	case malformed && (!errors.As(err, &ie) || !errors.Is(err, namespace.ErrInvalidID) || ie.Unknown != unknown):
		t.Fatalf("%v, want a *namespace.IDError of %v", err, unknown)
	case !malformed && errors.Is(err, namespace.ErrInvalidID):
		t.Fatalf("%v: a well-formed id is not invalid", err)
	}
}
