// Package ctxcause reports why a context ended with the cause given to
// context.WithCancelCause (or WithTimeoutCause, WithDeadlineCause), not only
// "context canceled".
package ctxcause

import (
	"context"
	"errors"
	"fmt"
)

// Err returns nil while ctx is live, and afterwards ctx.Err() with the
// cause of context.Cause(ctx) added when there is one: errors.Is matches
// both context.Canceled (or context.DeadlineExceeded) and the cause.
func Err(ctx context.Context) error {
	err := ctx.Err()
	if err == nil {
		return nil
	}
	return With(ctx, err)
}

// With adds the cause of ctx's end to err when err comes from ctx being done
// (errors.Is(err, ctx.Err())) and does not carry the cause already. Other
// errors, and errors of a live ctx, are returned as they are.
func With(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil || !errors.Is(err, ctx.Err()) {
		return err
	}
	cause := context.Cause(ctx)
	if cause == nil || errors.Is(err, cause) {
		return err
	}
	return fmt.Errorf("%w (cause: %w)", err, cause)
}
