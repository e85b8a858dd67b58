package algebra

import (
	"errors"
	"fmt"
)

// Errors shared by the SPARQL pipeline.
var (
	// ErrNotSupported marks a valid SPARQL construct that Cortex does not implement; messages read
	// "not supported: X".
	ErrNotSupported = errors.New("not supported")
	// ErrSSE is wrapped by every error of ParseSSE.
	ErrSSE = errors.New("bad sse")
)

// Errors of Bind (initial bindings, query parameters).
var (
	// ErrUnknownVariable means a binding names no variable of the query's scope.
	ErrUnknownVariable = errors.New("unknown variable")
	// ErrBindingConflict means a binding names a variable that the query assigns itself (BIND, VALUES,
	// SELECT or GROUP BY ... AS).
	ErrBindingConflict = errors.New("variable bound by the query")
	// ErrInvalidBinding means a binding has a bad name or an unusable value (nil, a blank node, a
	// non-RDF value).
	ErrInvalidBinding = errors.New("invalid binding")
)

// SSEError is a ParseSSE failure at a byte offset of the input.
type SSEError struct {
	Offset int
	Msg    string
}

func (e *SSEError) Error() string { return fmt.Sprintf("sse: offset %d: %s", e.Offset, e.Msg) }

// Unwrap returns ErrSSE.
func (e *SSEError) Unwrap() error { return ErrSSE }
