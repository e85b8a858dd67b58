package api

import (
	"context"
	"errors"

	"github.com/cortexgraph/cortex/config"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/defstore"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/spec"
	"github.com/cortexgraph/cortex/teammanager"
	"github.com/cortexgraph/cortex/workflow"
)

// errorNames names the sentinel errors that a kind is too coarse to tell
// apart (not_found: an unknown team, agent or conflict, a missing
// namespace ...), so that a client can restore them from their names
// (the "errors" of a JSON-RPC error's data). The more specific comes
// first; names are a public contract: added, never renamed.
var errorNames = []struct {
	name string
	err  error
}{
	{"invalid_id", teammanager.ErrInvalidID},
	{"unknown_team", teammanager.ErrUnknownTeam},
	{"unknown_agent", teammanager.ErrUnknownAgent},
	{"unknown_conflict", teammanager.ErrUnknownConflict},
	{"invalid_transition", teammanager.ErrInvalidTransition},
	{"team_finished", teammanager.ErrTeamFinished},
	{"team_paused", teammanager.ErrTeamPaused},
	{"team_disbanded", teammanager.ErrTeamDisbanded},
	{"team_active", teammanager.ErrTeamActive},
	{"member_finished", teammanager.ErrMemberFinished},
	{"team_exists", teammanager.ErrTeamExists},
	{"already_resolved", teammanager.ErrAlreadyResolved},
	{"concurrent_merge", teammanager.ErrConcurrentMerge},
	{"unknown_task", teammanager.ErrUnknownTask},
	{"unknown_message", teammanager.ErrUnknownMessage},
	{"task_state", teammanager.ErrTaskState},
	{"not_allowed", teammanager.ErrNotAllowed},
	{"task_blocked", teammanager.ErrBlocked},
	{"no_ready_task", teammanager.ErrNoReadyTask},
	{"circuit_open", teammanager.ErrCircuitOpen},
	{"invalid_task", teammanager.ErrInvalidTask},
	{"task_cycle", teammanager.ErrTaskCycle},
	{"invalid_message", teammanager.ErrInvalidMessage},
	{"plan_not_approved", teammanager.ErrPlanNotApproved},
	{"no_plan", teammanager.ErrNoPlan},
	{"plan_state", teammanager.ErrPlanState},
	{"invalid_plan", teammanager.ErrInvalidPlan},
	{"unknown_snapshot", teammanager.ErrUnknownSnapshot},
	{"invalid_event_id", teammanager.ErrInvalidEventID},
	{"strategy_panicked", teammanager.ErrStrategyPanicked},
	{"invalid_team", teammanager.ErrInvalidTeam},
	{"invalid_finding", teammanager.ErrInvalidFinding},
	{"invalid_status", teammanager.ErrInvalidStatus},
	{"invalid_resolution", teammanager.ErrInvalidResolution},
	{"invalid_team_config", teammanager.ErrInvalidConfig},
	{"team_corrupt", teammanager.ErrCorrupt},
	{"unknown_strategy", merge.ErrUnknownStrategy},
	{"unknown_run", workflow.ErrUnknownRun},
	{"unknown_step", workflow.ErrUnknownStep},
	{"run_exists", workflow.ErrRunExists},
	{"run_finished", workflow.ErrRunFinished},
	{"stale_attempt", workflow.ErrStaleAttempt},
	{"step_transition", workflow.ErrInvalidTransition},
	{"driver_busy", workflow.ErrDriverBusy},
	{"invalid_run", workflow.ErrInvalidRun},
	{"invalid_output", workflow.ErrInvalidOutput},
	{"invalid_workflow", workflow.ErrInvalidDef},
	{"invalid_namespace_name", namespace.ErrInvalidName},
	{"invalid_namespace_base", namespace.ErrInvalidBase},
	{"base_mismatch", cortex.ErrBaseMismatch},
	{"no_namespace", cortex.ErrNoNamespace},
	{"no_store", cortex.ErrNoStore},
	{"locked", cortex.ErrLocked},
	{"closed", cortex.ErrClosed},
	{"busy", cortex.ErrBusy},
	{"read_only", cortex.ErrReadOnly},
	{"store_corrupt", cortex.ErrCorrupt},
	{"invalid_quad", cortex.ErrInvalidQuad},
	{"invalid_argument", cortex.ErrInvalidArgument},
	{"rdf_syntax", rdfio.ErrSyntax},
	{"unknown_rdf_format", rdfio.ErrUnknownFormat},
	{"invalid_definition", spec.ErrInvalid},
	{"unknown_definition_format", spec.ErrUnknownFormat},
	{"unknown_definition", defstore.ErrNotFound},
	{"definition_in_use", defstore.ErrInUse},
	{"ambiguous_definition", defstore.ErrAmbiguous},
	{"invalid_config", config.ErrInvalid},
	{"deadline_exceeded", context.DeadlineExceeded},
	{"canceled", context.Canceled},
}

// ErrorNames returns the names of the named sentinel errors err matches
// ("unknown_team", "invalid_transition", ...), most specific first; nil if
// it matches none.
func ErrorNames(err error) []string {
	if err == nil {
		return nil
	}
	var out []string
	for _, n := range errorNames {
		if errors.Is(err, n.err) {
			out = append(out, n.name)
		}
	}
	return out
}

// NamedError returns the sentinel error named name (see ErrorNames), or
// nil for a name it does not know (one a newer server added).
func NamedError(name string) error {
	for _, n := range errorNames {
		if n.name == name {
			return n.err
		}
	}
	return nil
}

// KindError returns the error of this package that kind k classifies as
// (ErrNotFound for not_found, ...; context.DeadlineExceeded for timeout),
// or nil for internal or an unknown kind: an error wrapping it has k's
// exit code (ExitCode).
func KindError(k Kind) error {
	switch k {
	case KindUsage:
		return ErrUsage
	case KindNotFound:
		return ErrNotFound
	case KindConflict:
		return ErrConflict
	case KindSyntax:
		return ErrSyntax
	case KindUnavailable:
		return ErrUnavailable
	case KindInvalid:
		return ErrInvalid
	case KindTimeout:
		return context.DeadlineExceeded
	case KindFalse:
		return ErrFalse
	case KindDenied:
		return ErrDenied
	case KindBusy:
		return ErrBusy
	}
	return nil
}
