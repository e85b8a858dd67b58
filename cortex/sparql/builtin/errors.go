package builtin

import "errors"

// Expression errors. Every error returned by this package wraps exactly one
// of these sentinels, so an evaluator can treat any non-nil error as a SPARQL
// expression error (FILTER drops the row, BIND leaves the variable unbound).
var (
	// ErrType is the SPARQL "type error": an argument has the wrong kind of
	// term, an ill-formed lexical form, an incompatible pair of arguments,
	// an arithmetic fault such as integer division by zero, or an unknown
	// function.
	ErrType = errors.New("type error")

	// ErrUnbound reports that an argument was unbound (a nil quad.Value).
	ErrUnbound = errors.New("unbound value")
)
