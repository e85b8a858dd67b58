package namespace

import (
	"errors"
	"fmt"

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

	// ErrInvalidID means an identifier that nothing of its kind can have
	// (a team id "a/b", a task "T0", a definition name holding a control
	// character, a token id "zz"): an error wrapping it also wraps the
	// lookup error of its kind, as no such thing exists either (see
	// *IDError). It is teammanager.ErrInvalidID.
	ErrInvalidID = errors.New("invalid id")
)

// IDError reports a malformed identifier where one of a kind of thing (a
// team, agent, task, definition, token ...) was expected. It matches
// ErrInvalidID and Unknown, the lookup error of its kind
// (teammanager.ErrUnknownTeam, defstore.ErrNotFound, ...), so that a
// caller asking "does it exist?" with errors.Is is answered no.
type IDError struct {
	Unknown error  // the lookup error of the kind: teammanager.ErrUnknownTeam, ...
	Want    string // what identifiers of the kind look like
}

func (e *IDError) Error() string {
	return fmt.Sprintf("%v (%v; want %s)", ErrInvalidID, e.Unknown, e.Want)
}

// Unwrap returns ErrInvalidID and e.Unknown.
func (e *IDError) Unwrap() []error { return []error{ErrInvalidID, e.Unknown} }

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
