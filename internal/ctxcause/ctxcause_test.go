package ctxcause_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/internal/ctxcause"
)

func TestWith(t *testing.T) {
	cause := errors.New("agent shut down")
	cancelled, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	plain, cancelPlain := context.WithCancel(context.Background())
	cancelPlain()
	live := context.Background()
	wrapped := fmt.Errorf("read: %w", context.Canceled)
	for _, tc := range []struct {
		name      string
		ctx       context.Context
		err       error
		wantCause bool // the result matches cause and names it
		same      bool // the result is err itself
	}{
		{"nil error", cancelled, nil, false, true},
		{"live context", live, context.Canceled, false, true},
		{"other error", cancelled, io.EOF, false, true},
		{"cancellation", cancelled, wrapped, true, false},
		{"cause already there", cancelled, fmt.Errorf("%w: %w", wrapped, cause), true, true},
		{"no cause given", plain, wrapped, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ctxcause.With(tc.ctx, tc.err)
			if tc.same && got != tc.err {
				t.Fatalf("With = %v, want %v unchanged", got, tc.err)
			}
			if tc.wantCause {
				if !errors.Is(got, context.Canceled) || !errors.Is(got, cause) || strings.Count(got.Error(), cause.Error()) != 1 {
					t.Fatalf("With = %v, want context.Canceled with the cause once", got)
				}
			}
		})
	}
}

func TestErr(t *testing.T) {
	if err := ctxcause.Err(context.Background()); err != nil {
		t.Fatalf("Err of a live context = %v", err)
	}
	cause := errors.New("deadline of the agent")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	if err := ctxcause.Err(ctx); !errors.Is(err, context.Canceled) || !errors.Is(err, cause) {
		t.Fatalf("Err = %v, want context.Canceled and the cause", err)
	}
}
