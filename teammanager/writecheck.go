package teammanager

import (
	"context"

	"github.com/cortexgraph/cortex/cortex"
)

// WriteCheck is a check that a write runs first, in its own atomic write
// (see WithWriteCheck).
type WriteCheck func(ctx context.Context, tx *cortex.Tx) error

type writeCheckKey struct{}

// WithWriteCheck returns a context that carries check: every task board
// write a Manager makes with it (the task and plan calls: CreateTask,
// ClaimTask, ClaimNext, CompleteTask, FailTask, ReviewTask, CancelTask,
// RetryTask, SkipTask, DraftPlan, SubmitPlan, ..., AddTaskFindings,
// FinishTask and ApplyBoardOps) runs check first, in that same atomic write (under the
// namespace's write lock): if check returns an error, the call writes nothing and
// returns that error. A check already in ctx runs too, first. A package
// that acts on a board under a lease of its own fences its writes with it
// (package workflow: a crew or swarm driver acts only while it holds its
// run). A nil check adds nothing: ctx is returned as it is.
func WithWriteCheck(ctx context.Context, check WriteCheck) context.Context {
	if check == nil {
		return ctx
	}
	if prev := writeCheckOf(ctx); prev != nil {
		both := check
		check = func(ctx context.Context, tx *cortex.Tx) error {
			if err := prev(ctx, tx); err != nil {
				return err
			}
			return both(ctx, tx)
		}
	}
	return context.WithValue(ctx, writeCheckKey{}, check)
}

// writeCheckOf returns the check ctx carries (WithWriteCheck), or nil.
func writeCheckOf(ctx context.Context) WriteCheck {
	c, _ := ctx.Value(writeCheckKey{}).(WriteCheck)
	return c
}
