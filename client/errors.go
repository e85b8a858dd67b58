package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/spec"
)

// ErrTarget means a target that New cannot read. It matches api.ErrInvalid.
var ErrTarget = fmt.Errorf("%w: client target", api.ErrInvalid)

// ErrNotUTF8 means a call whose params hold a string that is not valid
// UTF-8, which JSON cannot carry: nothing is sent. It matches
// api.ErrInvalid.
var ErrNotUTF8 = fmt.Errorf("%w: not UTF-8", api.ErrInvalid)

// textError is the embedded Manager's error (err) for text that is not
// valid UTF-8, returned by a method before anything is sent: it reads as
// err, and matches err's sentinels and ErrNotUTF8.
type textError struct{ err error }

func (e *textError) Error() string   { return e.err.Error() }
func (e *textError) Unwrap() []error { return []error{e.err, ErrNotUTF8} }

// Error is an error a server answered with: a JSON-RPC error object, or
// the status and message of another route. It matches the sentinel errors
// its Names name (api.NamedError: teammanager.ErrUnknownTeam ...) and the
// error of its Kind (api.KindError: api.ErrNotFound ...), so that
// api.ExitCode gives the code ExitCode says.
type Error struct {
	Code     int      // the JSON-RPC error code, or the HTTP status of the other routes
	Message  string   // the server's message
	ExitCode int      // the exit code cortexctl exits with for it
	Kind     api.Kind // the class of the error
	Names    []string // the names of the sentinel errors it matches (api.ErrorNames)
	// Detail is what the message of a non-JSON-RPC route says after its
	// first line: for a query's syntax error, the line of the query and a
	// caret under the column.
	Detail string
	// Problems are those of definitions that failed validation (defs.import):
	// every problem, warnings included.
	Problems []spec.Problem
	// Task is the task a task method answered with its error, as the
	// embedded Manager returns it: the task a claim past the circuit
	// breaker failed (teams.task.claim, teammanager.ErrCircuitOpen).
	Task *api.Task
	// Operation is the operation of teams.task.apply_ops that the board
	// refused (ApplyBoardOps returns it as a *teammanager.BoardOpError).
	Operation *api.BoardOpRefused
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the sentinel errors of e's names that this build knows,
// then the error of e's kind.
func (e *Error) Unwrap() []error {
	var out []error
	for _, n := range e.Names {
		if s := api.NamedError(n); s != nil {
			out = append(out, s)
		}
	}
	if k := api.KindError(e.Kind); k != nil {
		out = append(out, k)
	}
	return out
}

// unavailable wraps an error of the connection to target.
func unavailable(target string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	if notConnected(err) {
		return &notSentError{fmt.Sprintf("%v: server %s: %v", api.ErrUnavailable, target, err)}
	}
	return fmt.Errorf("%w: server %s: %v", api.ErrUnavailable, target, err)
}

// ErrNotSent means a call that was not sent: connecting to the server
// failed (nothing listens at the target any more, a socket that does not
// exist, a full accept queue). Nothing of it ran on the server, so it may
// be made again, there or elsewhere. It matches api.ErrUnavailable.
var ErrNotSent = fmt.Errorf("%w: not sent", api.ErrUnavailable)

// notSentError is an error matching ErrNotSent, with its own message.
type notSentError struct{ msg string }

func (e *notSentError) Error() string { return e.msg }
func (e *notSentError) Unwrap() error { return ErrNotSent }

// notConnected reports whether err is the failure of connecting to the
// server (net/http's or the stream's dial), before anything was sent; not
// that of a proxy (whose connection may carry the request on) or of TLS.
func notConnected(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// ErrNoAnswer means a call whose server did not begin to answer in time
// (Options.WithAnswerTimeout) after its request was sent: the server may
// have run it, or may still. It matches context.DeadlineExceeded (exit 8,
// timed out).
var ErrNoAnswer = fmt.Errorf("no answer in time: %w", context.DeadlineExceeded)

// noAnswerError is the error of a call that got no answer in time.
type noAnswerError struct {
	target string
	wait   time.Duration
}

func (e *noAnswerError) Error() string {
	return fmt.Sprintf("server %s: no answer within %s of the request (stalled? the answer timeout: client.Options.WithAnswerTimeout, cortexctl --server-timeout)", e.target, e.wait)
}
func (e *noAnswerError) Unwrap() error { return ErrNoAnswer }
