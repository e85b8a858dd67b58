package teammanager_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestWithWriteCheck_Nil: a nil check adds nothing: a context with a
// check and a nil one on top still runs the first (a refusal writes
// nothing), and one with only a nil check writes; the write does not
// panic on the nil.
func TestWithWriteCheck_Nil(t *testing.T) {
	f, team := boardFixture(t)
	refuse := errors.New("refused")
	no := teammanager.WithWriteCheck(ctx, func(context.Context, *cortex.Tx) error { return refuse })
	yes := teammanager.WithWriteCheck(ctx, func(context.Context, *cortex.Tx) error { return nil })
	for _, tc := range []struct {
		name string
		ctx  context.Context
		want error
	}{
		{"nil over a refusing check", teammanager.WithWriteCheck(no, nil), refuse},
		{"nil over a passing check", teammanager.WithWriteCheck(yes, nil), nil},
		{"nil alone", teammanager.WithWriteCheck(ctx, nil), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, err := f.m.ListTasks(ctx, team, teammanager.TaskFilter{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.m.CreateTask(tc.ctx, team, "lead", teammanager.NewTask{Subject: "x"})
			if !errors.Is(err, tc.want) || (err == nil) != (tc.want == nil) {
				t.Fatalf("CreateTask: %v, want %v", err, tc.want)
			}
			after, _ := f.m.ListTasks(ctx, team, teammanager.TaskFilter{})
			if wrote := len(after) != len(before); wrote != (tc.want == nil) {
				t.Fatalf("tasks %d → %d", len(before), len(after))
			}
		})
	}
}
