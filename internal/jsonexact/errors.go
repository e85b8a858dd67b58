package jsonexact

import (
	"errors"
	"strconv"
	"strings"
)

// Errors of the member names Unmarshal refuses, wrapped in a *NameError.
// Compare with errors.Is.
var (
	// ErrUnknownField means a member name that no field of the struct it
	// is decoded into has, as written: an unknown name, or a field's name
	// in another case.
	ErrUnknownField = errors.New("unknown field")
	// ErrDuplicateKey means an object that names a member twice.
	ErrDuplicateKey = errors.New("duplicate key")
)

// NameError is a member name that Unmarshal refuses, and where it is.
type NameError struct {
	// Path is the place of the object in the value: "" for the top level,
	// then struct fields by name, elements by index and map entries by
	// quoted key: "findings[0]", "def.steps[2]", `outputs["a"]`.
	Path string
	// Name is the member name as given (unescaped).
	Name string
	// Want is, for ErrUnknownField, the field's name as written in the
	// struct tag when Name is that name in another case; else "".
	Want string
	// Err is ErrUnknownField or ErrDuplicateKey.
	Err error
}

// Error says what is refused: `findings[0]: unknown field "Subject" (field
// names are case-sensitive; did you mean "subject"?)`, `duplicate key
// "team"`.
func (e *NameError) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	b.WriteByte(' ')
	b.WriteString(strconv.Quote(e.Name))
	if e.Want != "" {
		b.WriteString(" (field names are case-sensitive; did you mean ")
		b.WriteString(strconv.Quote(e.Want))
		b.WriteString("?)")
	}
	return b.String()
}

// Unwrap returns Err.
func (e *NameError) Unwrap() error { return e.Err }
