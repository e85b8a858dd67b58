package eval

import (
	"errors"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
)

// Errors of the evaluator.
var (
	// ErrNotSupported marks a valid SPARQL construct the evaluator does not implement; messages read
	// "not supported: X". It is algebra.ErrNotSupported.
	ErrNotSupported = algebra.ErrNotSupported
	// ErrClosed is returned by Rows methods after Close.
	ErrClosed = errors.New("rows closed")
)
