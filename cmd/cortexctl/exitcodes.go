package main

import (
	"context"
	"errors"
	"os"

	"github.com/cortexgraph/cortex/config"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

// Exit codes of cortexctl. They are a public contract: never renumber them.
const (
	exitOK       = 0 // success
	exitInternal = 1 // unexpected failure (a bug, an I/O error)
	exitUsage    = 2 // bad command line: unknown command or flag, missing argument
	exitNotFound = 3 // unknown team, agent, graph, conflict or file; no store in --data; no such namespace
	exitConflict = 4 // the operation does not fit the current state (e.g. a wrong status transition)
	exitSyntax   = 5 // malformed RDF, SPARQL or term
	exitLocked   = 6 // the store is in use by another process
	exitInvalid  = 7 // invalid value: identifier, namespace, config file or value in it, option value
	exitTimeout  = 8 // timed out or interrupted
	exitFalse    = 9 // ASK query answered false (only with --exit-status)
)

// errorCodes maps sentinel errors (matched with errors.Is) to exit codes; the
// first match wins.
var errorCodes = []struct {
	err  error
	code int
}{
	{cortex.ErrLocked, exitLocked},
	{errFalse, exitFalse},
	{context.DeadlineExceeded, exitTimeout},
	{context.Canceled, exitTimeout},
	{rdfio.ErrSyntax, exitSyntax},
	{errSyntax, exitSyntax},
	{cortex.ErrNotFound, exitNotFound},
	{os.ErrNotExist, exitNotFound},
	{errNotFound, exitNotFound},
	{errConflict, exitConflict},
	{teammanager.ErrUnknownTeam, exitNotFound},
	{teammanager.ErrUnknownAgent, exitNotFound},
	{teammanager.ErrUnknownConflict, exitNotFound},
	{teammanager.ErrInvalidTransition, exitConflict},
	{teammanager.ErrTeamFinished, exitConflict},
	{teammanager.ErrMemberFinished, exitConflict},
	{teammanager.ErrTeamExists, exitConflict},
	{teammanager.ErrAlreadyResolved, exitConflict},
	{teammanager.ErrConcurrentMerge, exitConflict},
	{teammanager.ErrInvalidTeam, exitInvalid},
	{teammanager.ErrInvalidFinding, exitInvalid},
	{teammanager.ErrInvalidStatus, exitInvalid},
	{teammanager.ErrInvalidConfig, exitInvalid},
	{teammanager.ErrInvalidResolution, exitInvalid},
	{merge.ErrUnknownStrategy, exitInvalid},
	{namespace.ErrInvalidName, exitInvalid},
	{namespace.ErrInvalidBase, exitInvalid},
	{cortex.ErrBaseMismatch, exitInvalid},
	{config.ErrInvalid, exitInvalid},
	{cortex.ErrInvalidQuad, exitInvalid},
	{cortex.ErrInvalidArgument, exitInvalid},
	{cortex.ErrBusy, exitTimeout},
	{errInvalid, exitInvalid},
	{rdfio.ErrUnknownFormat, exitUsage},
}

// CLI-level error kinds, wrapped by command code.
var (
	errUsage    = errors.New("usage")
	errNotFound = errors.New("not found")
	errConflict = errors.New("conflict")
	errSyntax   = errors.New("syntax error")
	errInvalid  = errors.New("invalid value")
	errFalse    = errors.New("false")
)

func exitCode(err error) int {
	if errors.Is(err, errUsage) {
		return exitUsage
	}
	for _, ec := range errorCodes {
		if errors.Is(err, ec.err) {
			return ec.code
		}
	}
	return exitInternal
}
