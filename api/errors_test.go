package api_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/teammanager"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		code int
		kind api.Kind
	}{
		{"nil", nil, api.ExitOK, api.KindInternal},
		{"plain", errors.New("boom"), api.ExitInternal, api.KindInternal},
		{"usage", fmt.Errorf("%w: want TEAM", api.ErrUsage), api.ExitUsage, api.KindUsage},
		{"unknown team", fmt.Errorf("get: %w", teammanager.ErrUnknownTeam), api.ExitNotFound, api.KindNotFound},
		{"no namespace", cortex.ErrNoNamespace, api.ExitNotFound, api.KindNotFound},
		{"transition", &teammanager.TransitionError{}, api.ExitConflict, api.KindConflict},
		{"syntax", api.ErrSyntax, api.ExitSyntax, api.KindSyntax},
		{"locked", &cortex.LockedError{Dir: "d"}, api.ExitLocked, api.KindUnavailable},
		{"invalid finding", teammanager.ErrInvalidFinding, api.ExitInvalid, api.KindInvalid},
		{"deadline", context.DeadlineExceeded, api.ExitTimeout, api.KindTimeout},
		{"busy", cortex.ErrBusy, api.ExitTimeout, api.KindTimeout},
		{"false", api.ErrFalse, api.ExitFalse, api.KindFalse},
		{"denied", fmt.Errorf("%w: token revoked", api.ErrDenied), api.ExitDenied, api.KindDenied},
		{"server busy", fmt.Errorf("%w: 16 queries running", api.ErrBusy), api.ExitBusy, api.KindBusy},
		{"unknown task", fmt.Errorf("team x: %w", teammanager.ErrUnknownTask), api.ExitNotFound, api.KindNotFound},
		{"unknown message", teammanager.ErrUnknownMessage, api.ExitNotFound, api.KindNotFound},
		{"task state", &teammanager.TaskStateError{Status: teammanager.TaskCompleted, Op: "claim"}, api.ExitConflict, api.KindConflict},
		{"not allowed", teammanager.ErrNotAllowed, api.ExitConflict, api.KindConflict},
		{"blocked", teammanager.ErrBlocked, api.ExitConflict, api.KindConflict},
		{"no ready task", teammanager.ErrNoReadyTask, api.ExitConflict, api.KindConflict},
		{"circuit open", teammanager.ErrCircuitOpen, api.ExitConflict, api.KindConflict},
		{"invalid task", teammanager.ErrInvalidTask, api.ExitInvalid, api.KindInvalid},
		{"task cycle", &teammanager.CycleError{Cycle: []string{"T1", "T2", "T1"}}, api.ExitInvalid, api.KindInvalid},
		{"invalid message", teammanager.ErrInvalidMessage, api.ExitInvalid, api.KindInvalid},
		{"malformed id", &teammanager.IDError{Unknown: teammanager.ErrUnknownAgent}, api.ExitInvalid, api.KindInvalid},
		{"malformed recipient", fmt.Errorf("%w: recipient: %w", teammanager.ErrInvalidMessage, &teammanager.IDError{Unknown: teammanager.ErrUnknownAgent}), api.ExitInvalid, api.KindInvalid},
		{"blocked by no task", fmt.Errorf("%w: blocked_by: %w", teammanager.ErrInvalidTask, teammanager.ErrUnknownTask), api.ExitNotFound, api.KindNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, kind := api.Classify(tc.err)
			if code != tc.code || kind != tc.kind {
				t.Errorf("Classify(%v) = %d, %q; want %d, %q", tc.err, code, kind, tc.code, tc.kind)
			}
		})
	}
}

func TestKindOf_EveryCodeHasItsOwnKind(t *testing.T) {
	seen := map[api.Kind]int{}
	for code := api.ExitInternal; code <= api.ExitBusy; code++ {
		k := api.KindOf(code)
		if prev, dup := seen[k]; dup {
			t.Errorf("codes %d and %d share kind %q", prev, code, k)
		}
		seen[k] = code
	}
	if len(seen) != len(api.Kinds()) {
		t.Errorf("%d codes have kinds, Kinds lists %d", len(seen), len(api.Kinds()))
	}
	if k := api.KindOf(42); k != api.KindInternal {
		t.Errorf("KindOf(42) = %q, want internal", k)
	}
}
