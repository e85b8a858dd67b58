package api

import (
	"errors"
	"fmt"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
	"github.com/cortexgraph/cortex/cortex/sparql/parser"
)

// QueryError classifies an error of parsing or running a SPARQL query: a
// syntax error becomes "query: line L, column C: message" matching
// ErrSyntax, a construct the engine does not implement matches ErrInvalid,
// anything else is wrapped with "query: " as it is. caret is the line of
// text holding a syntax error and a caret under its column ("" for other
// errors), as CaretLine gives it.
func QueryError(text string, err error) (caret string, _ error) {
	var se *parser.SyntaxError
	if errors.As(err, &se) {
		if errors.Is(err, parser.ErrNotSupported) {
			return "", fmt.Errorf("%w: query: %v", ErrInvalid, err)
		}
		return CaretLine(text, se.Line, se.Col), fmt.Errorf("%w: query: line %d, column %d: %s", ErrSyntax, se.Line, se.Col, se.Msg)
	}
	if errors.Is(err, algebra.ErrNotSupported) {
		return "", fmt.Errorf("%w: query: %v", ErrInvalid, err)
	}
	return "", fmt.Errorf("query: %w", err)
}

// CaretLine returns line (1-based) of text and a caret under column col
// (1-based, in characters), each indented by two spaces and ended by a
// newline; "" if text has no such line. A long line is cut to a window
// around the column (parser.Excerpt).
func CaretLine(text string, line, col int) string { return parser.Excerpt(text, line, col) }
