package namespace

import (
	"errors"

	"github.com/cayleygraph/quad"
)

// Errors returned by this package. Compare with errors.Is; the returned errors
// wrap these sentinels with the offending input.
var (
	// ErrInvalidName is returned when a namespace name does not match
	// NameRule.
	ErrInvalidName = errors.New("invalid namespace name")

	// ErrInvalidBase is returned by New when the WithBase value is not an
	// absolute IRI that can be used as a prefix.
	ErrInvalidBase = errors.New("invalid namespace base")

	// ErrInvalidEscape is returned by Unescape for a string that Escape
	// cannot produce (bad or non-canonical percent-encoding, reserved
	// characters).
	ErrInvalidEscape = errors.New("invalid escaped local part")

	// ErrForeignIRI is wrapped by a *ParseError when the IRI does not start
	// with the namespace's prefix.
	ErrForeignIRI = errors.New("iri outside namespace")

	// ErrInvalidLiteral is returned by the literal parsers (ParseDateTime,
	// ParseStatus, ...) for a value of the wrong type or lexical form.
	ErrInvalidLiteral = errors.New("invalid literal")

	// ErrUnknownPrefix is returned by ExpandDatatype for a datatype written
	// as a prefixed name whose prefix is not declared.
	ErrUnknownPrefix = errors.New("unknown prefix")

	// ErrUnknownIRI is wrapped by a *ParseError when the IRI starts with the
	// namespace's prefix but does not follow the Cortex layout.
	ErrUnknownIRI = errors.New("iri does not follow the cortex layout")
)

// ParseError reports why Parse rejected an IRI. Err is ErrForeignIRI,
// ErrUnknownIRI or an error wrapping ErrInvalidEscape.
type ParseError struct {
	IRI       quad.IRI // the IRI given to Parse
	Namespace string   // name of the namespace that parsed it
	Msg       string   // detail, may be empty
	Err       error
}

func (e *ParseError) Error() string {
	s := "parse " + ntIRI(e.IRI) + " in namespace " + e.Namespace + ": " + e.Err.Error()
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	return s
}

// Unwrap returns the underlying sentinel error.
func (e *ParseError) Unwrap() error { return e.Err }
