package parser

import (
	"errors"
	"fmt"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
)

// Errors returned (wrapped in a *SyntaxError) by Parse.
var (
	// ErrNotSupported marks valid SPARQL that Cortex does not implement (SPARQL Update, SERVICE, custom
	// aggregates); it is algebra.ErrNotSupported.
	ErrNotSupported = algebra.ErrNotSupported
	// ErrSyntax is wrapped by every *SyntaxError that is not a "not supported" error.
	ErrSyntax = errors.New("syntax error")
	// ErrRelativeIRI is wrapped by the *SyntaxError of an IRI reference that is relative when there is
	// no absolute base IRI to resolve it against (no base, or a relative one): an RDF term is an
	// absolute IRI. It wraps ErrSyntax.
	ErrRelativeIRI = fmt.Errorf("%w: relative iri with no absolute base", ErrSyntax)
)

// SyntaxError is a parse failure at a position of the query text. Line and Col are 1-based; Col counts
// characters (Unicode code points), not bytes. Msg names what was expected and what was found.
type SyntaxError struct {
	Line, Col int
	Msg       string
	Err       error // ErrSyntax, ErrRelativeIRI (which wraps ErrSyntax) or ErrNotSupported
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// Unwrap returns ErrSyntax, ErrRelativeIRI or ErrNotSupported.
func (e *SyntaxError) Unwrap() error { return e.Err }
