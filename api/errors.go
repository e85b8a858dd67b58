package api

import (
	"context"
	"errors"
	"os"

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

// Error kinds that callers above the library (the CLI, the server's
// handlers) wrap. Compare with errors.Is.
var (
	// ErrUsage means a bad command line or request shape: an unknown
	// command, flag or method, a missing argument or parameter.
	ErrUsage = errors.New("usage")
	// ErrNotFound means something named does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict means the operation does not fit the current state.
	ErrConflict = errors.New("conflict")
	// ErrSyntax means malformed RDF, SPARQL, JSON or a malformed term.
	ErrSyntax = errors.New("syntax error")
	// ErrInvalid means a well-formed but invalid value.
	ErrInvalid = errors.New("invalid value")
	// ErrUnavailable means a resource is held by another process (a
	// listen address in use) or is going away (a server shutting down).
	ErrUnavailable = errors.New("unavailable")
	// ErrFalse means an ASK query answered false (cortexctl query --exit-status).
	ErrFalse = errors.New("false")
	// ErrDenied means a server refused a request: no valid bearer token
	// (HTTP 401), or a token of another namespace or too low a role (403).
	ErrDenied = errors.New("permission denied")
	// ErrBusy means a server is at its limit of requests running at once
	// (concurrent queries) and the request waited its turn in vain: retry
	// later (HTTP 503 with Retry-After).
	ErrBusy = errors.New("server busy")
)

// Exit codes of cortexctl. They are a public contract: never renumbered.
// The server reports the code of each error too (see Classify).
const (
	ExitOK       = 0  // success
	ExitInternal = 1  // unexpected failure (a bug, an I/O error)
	ExitUsage    = 2  // bad command line: unknown command or flag, missing argument
	ExitNotFound = 3  // a well-formed name of nothing: unknown team, agent, task, message, graph, conflict, snapshot, definition, token or file; no store in --data; no such namespace
	ExitConflict = 4  // the operation does not fit the current state (e.g. a wrong status transition, a task its status or the board's rules refuse, no ready task)
	ExitSyntax   = 5  // malformed RDF, SPARQL or term
	ExitLocked   = 6  // the store (or another resource: a listen address) is in use by another process, or closed
	ExitInvalid  = 7  // invalid value: identifier (a malformed id: namespace.ErrInvalidID, teammanager.ErrInvalidID), namespace, config file or value in it, option value, agent or team definition
	ExitTimeout  = 8  // timed out or interrupted
	ExitFalse    = 9  // ASK query answered false (only with --exit-status)
	ExitDenied   = 10 // a server refused the request: no valid token, another namespace's, or too low a role
	ExitBusy     = 11 // a server is at its limit of concurrent queries: retry later
)

// Kind names a class of error in the server's replies (the "kind" of a
// JSON-RPC error's data, the Cortex-Error-Kind header of the HTTP APIs).
// Each exit code has one kind, so a client maps both the same way. The
// list is a public contract: kinds are added, never renamed.
type Kind string

// Error kinds.
const (
	KindInternal    Kind = "internal"    // exit 1: a bug, an I/O error
	KindUsage       Kind = "usage"       // exit 2: a malformed request: unknown method, missing or unknown parameter
	KindNotFound    Kind = "not_found"   // exit 3: no such team, agent, conflict, graph or namespace
	KindConflict    Kind = "conflict"    // exit 4: does not fit the current state
	KindSyntax      Kind = "syntax"      // exit 5: malformed RDF, SPARQL, JSON or term
	KindUnavailable Kind = "unavailable" // exit 6: the store is held by another process, closed or shutting down
	KindInvalid     Kind = "invalid"     // exit 7: invalid value
	KindTimeout     Kind = "timeout"     // exit 8: timed out or interrupted
	KindFalse       Kind = "false"       // exit 9: an ASK answered false (the CLI's --exit-status only)
	KindDenied      Kind = "denied"      // exit 10: no valid bearer token (HTTP 401), or not allowed with it (403)
	KindBusy        Kind = "busy"        // exit 11: the server is at its limit of concurrent queries (HTTP 503, Retry-After)
)

// Kinds lists every kind, in exit-code order.
func Kinds() []Kind {
	return []Kind{KindInternal, KindUsage, KindNotFound, KindConflict, KindSyntax, KindUnavailable, KindInvalid, KindTimeout, KindFalse, KindDenied, KindBusy}
}

// errorCodes maps sentinel errors (matched with errors.Is) to exit codes;
// the first match wins.
var errorCodes = []struct {
	err  error
	code int
}{
	{cortex.ErrLocked, ExitLocked},
	{ErrUnavailable, ExitLocked},
	{cortex.ErrClosed, ExitLocked},
	{ErrFalse, ExitFalse},
	{ErrDenied, ExitDenied},
	{ErrBusy, ExitBusy},
	{context.DeadlineExceeded, ExitTimeout},
	{context.Canceled, ExitTimeout},
	{rdfio.ErrSyntax, ExitSyntax},
	{ErrSyntax, ExitSyntax},
	{teammanager.ErrInvalidID, ExitInvalid}, // before the lookup errors it also wraps
	{cortex.ErrNotFound, ExitNotFound},
	{os.ErrNotExist, ExitNotFound},
	{ErrNotFound, ExitNotFound},
	{ErrConflict, ExitConflict},
	{teammanager.ErrUnknownTeam, ExitNotFound},
	{teammanager.ErrUnknownAgent, ExitNotFound},
	{teammanager.ErrUnknownConflict, ExitNotFound},
	{teammanager.ErrInvalidTransition, ExitConflict},
	{teammanager.ErrTeamFinished, ExitConflict},
	{teammanager.ErrTeamPaused, ExitConflict},
	{teammanager.ErrTeamDisbanded, ExitConflict},
	{teammanager.ErrTeamActive, ExitConflict},
	{teammanager.ErrMemberFinished, ExitConflict},
	{teammanager.ErrTeamExists, ExitConflict},
	{teammanager.ErrAlreadyResolved, ExitConflict},
	{teammanager.ErrConcurrentMerge, ExitConflict},
	{teammanager.ErrUnknownTask, ExitNotFound},
	{teammanager.ErrUnknownMessage, ExitNotFound},
	{teammanager.ErrTaskState, ExitConflict},
	{teammanager.ErrNotAllowed, ExitConflict},
	{teammanager.ErrBlocked, ExitConflict},
	{teammanager.ErrNoReadyTask, ExitConflict},
	{teammanager.ErrCircuitOpen, ExitConflict},
	{teammanager.ErrInvalidTask, ExitInvalid},
	{teammanager.ErrTaskCycle, ExitInvalid},
	{teammanager.ErrInvalidMessage, ExitInvalid},
	{teammanager.ErrInvalidTeam, ExitInvalid},
	{teammanager.ErrInvalidFinding, ExitInvalid},
	{teammanager.ErrInvalidStatus, ExitInvalid},
	{teammanager.ErrInvalidConfig, ExitInvalid},
	{teammanager.ErrInvalidResolution, ExitInvalid},
	{teammanager.ErrInvalidEventID, ExitInvalid},
	{teammanager.ErrUnknownSnapshot, ExitNotFound},
	{teammanager.ErrNoPlan, ExitNotFound},
	{teammanager.ErrPlanState, ExitConflict},
	{teammanager.ErrPlanNotApproved, ExitConflict},
	{teammanager.ErrInvalidPlan, ExitInvalid},
	{merge.ErrUnknownStrategy, ExitInvalid},
	{workflow.ErrInvalidDef, ExitInvalid},
	{workflow.ErrInvalidRun, ExitInvalid},
	{workflow.ErrInvalidOutput, ExitInvalid},
	{workflow.ErrUnknownRun, ExitNotFound},
	{workflow.ErrUnknownStep, ExitNotFound},
	{workflow.ErrRunExists, ExitConflict},
	{workflow.ErrRunFinished, ExitConflict},
	{workflow.ErrInvalidTransition, ExitConflict},
	{workflow.ErrDriverBusy, ExitConflict},
	{namespace.ErrInvalidName, ExitInvalid},
	{namespace.ErrInvalidBase, ExitInvalid},
	{cortex.ErrBaseMismatch, ExitInvalid},
	{config.ErrInvalid, ExitInvalid},
	{cortex.ErrInvalidQuad, ExitInvalid},
	{cortex.ErrInvalidArgument, ExitInvalid},
	{cortex.ErrBusy, ExitTimeout},
	{ErrInvalid, ExitInvalid},
	{rdfio.ErrUnknownFormat, ExitUsage},
	{spec.ErrInvalid, ExitInvalid},
	{spec.ErrUnknownFormat, ExitUsage},
	{defstore.ErrNotFound, ExitNotFound},
	{defstore.ErrInUse, ExitConflict},
	{defstore.ErrAmbiguous, ExitUsage},
}

// ExitCode returns cortexctl's exit code for err: ExitOK for nil, the
// code of the first sentinel err matches, else ExitInternal.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, ErrUsage) {
		return ExitUsage
	}
	for _, ec := range errorCodes {
		if errors.Is(err, ec.err) {
			return ec.code
		}
	}
	return ExitInternal
}

// KindOf returns the kind of exit code code (KindInternal for a code
// without one, such as ExitOK).
func KindOf(code int) Kind {
	if k := Kinds(); code >= ExitInternal && code <= ExitBusy {
		return k[code-ExitInternal]
	}
	return KindInternal
}

// Classify returns the exit code and the kind of err, as ExitCode and
// KindOf give them. It is the one classification of errors that the CLI
// and the server share.
func Classify(err error) (code int, kind Kind) {
	code = ExitCode(err)
	return code, KindOf(code)
}
