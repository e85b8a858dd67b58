package api_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/teammanager"
	"github.com/cortexgraph/cortex/workflow"
)

func TestErrorNames(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want []string
	}{
		{nil, nil},
		{errors.New("boom"), nil},
		{fmt.Errorf("get: %w", teammanager.ErrUnknownTeam), []string{"unknown_team"}},
		{&teammanager.TransitionError{}, []string{"invalid_transition"}},
		{fmt.Errorf("create: %w: %w", teammanager.ErrInvalidTeam, merge.ErrUnknownStrategy), []string{"invalid_team", "unknown_strategy"}},
		{fmt.Errorf("namespace x: %w", cortex.ErrNoNamespace), []string{"no_namespace"}},
		{fmt.Errorf("team x: %w", teammanager.ErrUnknownTask), []string{"unknown_task"}},
		{teammanager.ErrUnknownMessage, []string{"unknown_message"}},
		{&teammanager.TaskStateError{}, []string{"task_state"}},
		{fmt.Errorf("claim: %w", teammanager.ErrNotAllowed), []string{"not_allowed"}},
		{teammanager.ErrBlocked, []string{"task_blocked"}},
		{teammanager.ErrNoReadyTask, []string{"no_ready_task"}},
		{teammanager.ErrCircuitOpen, []string{"circuit_open"}},
		{teammanager.ErrInvalidTask, []string{"invalid_task"}},
		{&teammanager.CycleError{}, []string{"task_cycle"}},
		{teammanager.ErrInvalidMessage, []string{"invalid_message"}},
		{&workflow.AttemptError{}, []string{"stale_attempt", "step_transition"}},
		{fmt.Errorf("team t: snapshot S9: %w", teammanager.ErrUnknownSnapshot), []string{"unknown_snapshot"}},
		{teammanager.ErrPlanState, []string{"plan_state"}},
		{teammanager.ErrInvalidPlan, []string{"invalid_plan"}},
		{teammanager.ErrInvalidEventID, []string{"invalid_event_id"}},
		{teammanager.ErrStrategyPanicked, []string{"strategy_panicked"}},
		{fmt.Errorf("team %q: %w", "a/b", &teammanager.IDError{Unknown: teammanager.ErrUnknownTeam}), []string{"invalid_id", "unknown_team"}},
	} {
		got := api.ErrorNames(tc.err)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("ErrorNames(%v) = %q, want %q", tc.err, got, tc.want)
		}
		for _, name := range got {
			if s := api.NamedError(name); s == nil || !errors.Is(tc.err, s) {
				t.Errorf("NamedError(%q) = %v, which %v does not match", name, s, tc.err)
			}
		}
	}
	if s := api.NamedError("from_a_newer_server"); s != nil {
		t.Errorf("NamedError of an unknown name = %v", s)
	}
}

// TestKindError checks that an error wrapping KindError(k) has k's exit
// code, for every kind but internal.
func TestKindError(t *testing.T) {
	for code := api.ExitInternal; code <= api.ExitBusy; code++ {
		k := api.KindOf(code)
		e := api.KindError(k)
		if k == api.KindInternal {
			if e != nil {
				t.Errorf("KindError(internal) = %v", e)
			}
			continue
		}
		if got := api.ExitCode(fmt.Errorf("x: %w", e)); got != code {
			t.Errorf("KindError(%s) = %v, exit code %d, want %d", k, e, got, code)
		}
	}
}
