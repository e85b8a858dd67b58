package results

import (
	"errors"
	"fmt"

	"github.com/cayleygraph/quad"
)

// Sentinel errors. Compare with errors.Is; the errors returned by this
// package wrap them with the operation and the subject.
var (
	// ErrUnknownFormat is returned by Lookup and ByExtension for a name or
	// file extension no registered format claims.
	ErrUnknownFormat = errors.New("unknown result format")
	// ErrInvalidTerm is returned (inside a *TermError) when a row holds a value
	// a format cannot represent faithfully: a Go type other than the five
	// supported quad types, invalid UTF-8, an empty blank node label, a
	// malformed language tag, or a character XML 1.0 forbids.
	ErrInvalidTerm = errors.New("invalid term")
	// ErrInvalidVariable is returned when a variable name is not a SPARQL
	// VARNAME or occurs twice in the variable list.
	ErrInvalidVariable = errors.New("invalid variable")
	// ErrRowLength is returned by Writer.Write for a row whose length differs
	// from the number of variables.
	ErrRowLength = errors.New("row length does not match variables")
	// ErrClosed is returned by Writer.Write after Close.
	ErrClosed = errors.New("writer closed")
	// ErrSyntax is returned (inside a *SyntaxError) by readers for malformed
	// input.
	ErrSyntax = errors.New("syntax error")
	// ErrSearchBudget is returned by Compare when the search for a blank
	// node bijection runs out of steps (EquivalenceOptions.MaxSteps) before
	// it can tell whether two results are the same.
	ErrSearchBudget = errors.New("equivalence search budget exceeded")
)

// TermError reports a value in a row that the writer cannot encode. Nothing
// of the offending row has been written when it is returned, and the writer
// remains usable.
type TermError struct {
	Row   int        // zero-based index of the row among those passed to Write
	Var   string     // variable the value is bound to
	Value quad.Value // the offending value
	Msg   string     // what is wrong with it
}

func (e *TermError) Error() string {
	return fmt.Sprintf("row %d, ?%s: %s: %s", e.Row, e.Var, ErrInvalidTerm, e.Msg)
}

// Unwrap returns ErrInvalidTerm.
func (e *TermError) Unwrap() error { return ErrInvalidTerm }

// SyntaxError reports malformed reader input. Line and Col are 1-based; both
// are zero when the position is unknown (for example a JSON document that is
// well-formed but has the wrong shape).
type SyntaxError struct {
	Format string // format name, e.g. "json"
	Line   int
	Col    int
	Msg    string
}

func (e *SyntaxError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("read %s: %s", e.Format, e.Msg)
	}
	return fmt.Sprintf("read %s: line %d, col %d: %s", e.Format, e.Line, e.Col, e.Msg)
}

// Unwrap returns ErrSyntax.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }
