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

// SSEError is a ParseSSE failure at a byte offset of the input.
type SSEError struct {
	Offset int
	Msg    string
}

func (e *SSEError) Error() string { return fmt.Sprintf("sse: offset %d: %s", e.Offset, e.Msg) }

// Unwrap returns ErrSSE.
func (e *SSEError) Unwrap() error { return ErrSSE }
