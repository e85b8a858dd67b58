package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/spec"
	"github.com/cortexgraph/cortex/teammanager"
)

// Errors of the protocols, beside those of package api. Compare with
// errors.Is.
var (
	// ErrTooLarge means a request body exceeds Options.WithMaxBodyBytes,
	// or a Graph Store body holds more triples than
	// Options.WithMaxResults (HTTP 413). It matches api.ErrInvalid.
	ErrTooLarge = fmt.Errorf("%w: request body too large", api.ErrInvalid)
	// ErrUnsupportedMediaType means a body's Content-Type is not one the
	// route reads (HTTP 415). It matches api.ErrUsage.
	ErrUnsupportedMediaType = fmt.Errorf("%w: unsupported media type", api.ErrUsage)
	// ErrNotAcceptable means no format the route writes is in the
	// request's Accept header (HTTP 406). It matches api.ErrUsage.
	ErrNotAcceptable = fmt.Errorf("%w: not acceptable", api.ErrUsage)
	// ErrUnauthorized means a request without a valid bearer token where
	// one is needed: none, malformed, unknown, revoked or expired (HTTP
	// 401). It matches api.ErrDenied.
	ErrUnauthorized = fmt.Errorf("%w: unauthorized", api.ErrDenied)
	// ErrForbidden means a valid token that does not allow the request: of
	// another namespace, or too low a role (HTTP 403). It matches
	// api.ErrDenied.
	ErrForbidden = fmt.Errorf("%w: forbidden", api.ErrDenied)
	// ErrInvalidRole means a role name other than read, write and admin.
	// It matches api.ErrInvalid.
	ErrInvalidRole = fmt.Errorf("%w: role", api.ErrInvalid)
	// ErrTooManyResults means a response would hold more results than
	// Options.WithMaxResults allows; nothing of it is sent. It matches
	// api.ErrInvalid.
	ErrTooManyResults = fmt.Errorf("%w: too many results", api.ErrInvalid)
	// ErrRequestTimeout means a request's body did not arrive within
	// Options.WithBodyTimeout (HTTP 408); nothing is written. It matches
	// context.DeadlineExceeded (kind timeout).
	ErrRequestTimeout = fmt.Errorf("%w: request timeout", context.DeadlineExceeded)
	// ErrUnknownToken means no token has the id given (in the namespace).
	// It matches api.ErrNotFound.
	ErrUnknownToken = fmt.Errorf("%w: unknown token", api.ErrNotFound)
	// ErrUnsafeTokenFile means a token file that users other than its
	// owner may write (mode 0620, 0666 ...), or that another user than
	// the process's (and root) owns: it is not trusted. It matches
	// api.ErrInvalid.
	ErrUnsafeTokenFile = fmt.Errorf("%w: token file writable by other users", api.ErrInvalid)
)

// JSON-RPC 2.0 error codes: the protocol's, and the application's
// (-32000 - exit code, in the range the protocol leaves to servers).
const (
	rpcParseError     = -32700 // invalid JSON
	rpcInvalidRequest = -32600 // not a valid request object
	rpcMethodNotFound = -32601
	rpcInvalidParams  = -32602 // params of the wrong shape: kind usage
	rpcInternalError  = -32603 // kind internal
	rpcServerError    = -32000 // minus the exit code: -32003 not_found, -32004 conflict, ...
)

// protocol errors of JSON-RPC, classified by rpcErrorOf.
var (
	errParse          = fmt.Errorf("%w: parse error", api.ErrSyntax)
	errInvalidRequest = fmt.Errorf("%w: invalid request", api.ErrUsage)
	errMethodNotFound = fmt.Errorf("%w: method not found", api.ErrUsage)
)

// errMethodNotAllowed is of an HTTP method that a route does not serve
// (HTTP 405, with Allow).
var errMethodNotAllowed = fmt.Errorf("%w: method not allowed", api.ErrUsage)

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int          `json:"code"`
	Message string       `json:"message"`
	Data    rpcErrorData `json:"data"`
}

// rpcErrorData is the data of every error object: how cortexctl would exit,
// the kind (see api.Kind), and the names of the sentinel errors it matches
// (api.ErrorNames: "unknown_team", ...; omitted if none), which a client
// restores (package client).
type rpcErrorData struct {
	ExitCode int      `json:"exitCode"`
	Kind     api.Kind `json:"kind"`
	Errors   []string `json:"errors,omitempty"`
	// Problems are those of definitions that failed validation
	// (spec.ValidationError: every problem, warnings included).
	Problems []spec.Problem `json:"problems,omitempty"`
	// Task is the task a task method returned with its error, as the
	// embedded Manager does: teams.task.claim past the circuit breaker
	// fails the task (ErrCircuitOpen) and answers it here.
	Task *api.Task `json:"task,omitempty"`
	// Operation is the operation of teams.task.apply_ops that the board
	// refused (teammanager.BoardOpError).
	Operation *api.BoardOpRefused `json:"operation,omitempty"`
}

// rpcErrorOf maps err to its JSON-RPC error object: the one place where
// errors become JSON-RPC codes.
func rpcErrorOf(err error) *rpcError {
	exit, kind := api.Classify(err)
	e := &rpcError{Message: err.Error(), Data: rpcErrorData{ExitCode: exit, Kind: kind, Errors: api.ErrorNames(err)}}
	var ve *spec.ValidationError
	if errors.As(err, &ve) {
		e.Data.Problems = ve.Problems
	}
	var te *taskError
	if errors.As(err, &te) {
		e.Data.Task = &te.task
	}
	var oe *teammanager.BoardOpError
	if errors.As(err, &oe) {
		e.Data.Operation = &api.BoardOpRefused{Index: oe.Index, Op: oe.Op, Message: oe.Err.Error()}
	}
	switch {
	case errors.Is(err, errParse), errors.Is(err, errBodyCut): // a cut body is JSON cut short
		e.Code = rpcParseError
	case errors.Is(err, errInvalidRequest):
		e.Code = rpcInvalidRequest
	case errors.Is(err, errMethodNotFound):
		e.Code = rpcMethodNotFound
	case kind == api.KindUsage:
		e.Code = rpcInvalidParams
	case kind == api.KindInternal:
		e.Code = rpcInternalError
	default:
		e.Code = rpcServerError - exit
	}
	return e
}

// httpStatus maps err to an HTTP status: the one place where errors become
// HTTP statuses.
func httpStatus(err error) int {
	switch {
	case errors.Is(err, ErrTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, ErrUnsupportedMediaType):
		return http.StatusUnsupportedMediaType
	case errors.Is(err, ErrNotAcceptable):
		return http.StatusNotAcceptable
	case errors.Is(err, ErrUnauthorized):
		return http.StatusUnauthorized
	case errors.Is(err, ErrRequestTimeout):
		return http.StatusRequestTimeout
	case errors.Is(err, errMethodNotAllowed):
		return http.StatusMethodNotAllowed
	case errors.Is(err, api.ErrDenied):
		return http.StatusForbidden
	}
	switch _, kind := api.Classify(err); kind {
	case api.KindUsage, api.KindSyntax, api.KindInvalid:
		return http.StatusBadRequest
	case api.KindNotFound:
		return http.StatusNotFound
	case api.KindConflict:
		return http.StatusConflict
	case api.KindUnavailable, api.KindTimeout, api.KindBusy:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// busyRetryAfter is the Retry-After (seconds) of a busy answer.
const busyRetryAfter = "1"

// writeError answers a non-JSON-RPC request with err: its HTTP status, the
// message as text/plain (and detail, e.g. the line of a query with a caret
// under a syntax error), and the headers Cortex-Error-Kind and
// Cortex-Exit-Code (and Retry-After for api.ErrBusy).
func writeError(w http.ResponseWriter, err error, detail string) {
	exit, kind := api.Classify(err)
	h := w.Header()
	if kind == api.KindBusy {
		h.Set("Retry-After", busyRetryAfter)
	}
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cortex-Error-Kind", string(kind))
	h.Set("Cortex-Exit-Code", strconv.Itoa(exit))
	w.WriteHeader(httpStatus(err))
	fmt.Fprintf(w, "%s\n%s", err, detail)
}

// writeRPCError answers a request of the rpc route that is refused
// before any call is read (authentication, the namespace in its path,
// its HTTP method, its Content-Encoding, a stream over the limit) with
// err as a JSON-RPC error object with id null, as a JSON-RPC client
// reads every answer of the route, and the HTTP status, Retry-After and
// Cortex-Error-Kind and Cortex-Exit-Code headers of writeError.
func writeRPCError(w http.ResponseWriter, err error) {
	exit, kind := api.Classify(err)
	h := w.Header()
	if kind == api.KindBusy {
		h.Set("Retry-After", busyRetryAfter)
	}
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cortex-Error-Kind", string(kind))
	h.Set("Cortex-Exit-Code", strconv.Itoa(exit))
	writeRPC(w, httpStatus(err), rpcResponse{JSONRPC: "2.0", Error: rpcErrorOf(err), ID: jsonNull})
}

// errBodyCut is of a request body that ended before the length its
// Content-Length or its chunked encoding announced: the client went away,
// or its connection broke (HTTP 400).
var errBodyCut = fmt.Errorf("%w: the request's body ended before its end", api.ErrUsage)

// bodyError maps the error of a read of a request body: past its limit to
// ErrTooLarge, cut short (io.ErrUnexpectedEOF, which net/http returns for
// a body shorter than announced) to errBodyCut, rather than an internal
// error.
func bodyError(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w (Content-Length or the chunked encoding announced more)", errBodyCut)
	}
	return tooLarge(err)
}

// tooLarge maps the error of a body read past its limit to ErrTooLarge.
func tooLarge(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return fmt.Errorf("%w: over %d bytes", ErrTooLarge, mbe.Limit)
	}
	return err
}
