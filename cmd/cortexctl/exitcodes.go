package main

import "github.com/cortexgraph/cortex/api"

// Exit codes of cortexctl. They are a public contract, defined (and shared
// with the server, which reports them) in package api: never renumber them.
const (
	exitOK       = api.ExitOK       // success
	exitInternal = api.ExitInternal // unexpected failure (a bug, an I/O error)
	exitUsage    = api.ExitUsage    // bad command line: unknown command or flag, missing argument, an empty argument or option value
	exitNotFound = api.ExitNotFound // a well-formed name of nothing: unknown team, agent, task, message, graph, conflict, snapshot, definition, token or file; no store in --data; no such namespace
	exitConflict = api.ExitConflict // the operation does not fit the current state (e.g. a wrong status transition)
	exitSyntax   = api.ExitSyntax   // malformed RDF, SPARQL or term
	exitLocked   = api.ExitLocked   // the store is in use by another process
	exitInvalid  = api.ExitInvalid  // invalid value: identifier (a malformed id), namespace, config file or value in it, option value, agent or team definition (defs validate, import)
	exitTimeout  = api.ExitTimeout  // timed out or interrupted
	exitFalse    = api.ExitFalse    // ASK query answered false (only with --exit-status)
	exitDenied   = api.ExitDenied   // a server refused the request: no valid token, another namespace's, or too low a role
	exitBusy     = api.ExitBusy     // a server is at its limit of concurrent queries: retry later
)

// CLI-level error kinds, wrapped by command code (package api's, which
// classifies them).
var (
	errUsage   = api.ErrUsage
	errSyntax  = api.ErrSyntax
	errInvalid = api.ErrInvalid
	errFalse   = api.ErrFalse
)

// exitCode maps err to its exit code (api.ExitCode: one table for the CLI
// and the server).
func exitCode(err error) int { return api.ExitCode(err) }
