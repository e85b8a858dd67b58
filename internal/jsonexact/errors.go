package jsonexact

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
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
	// then struct fields by name, elements by index and map entries (and
	// members of objects decoded into any) by their key, quoted as Go
	// quotes it with strconv.QuoteToASCII: "findings[0]", "def.steps[2]",
	// `outputs["a"]`, `outputs["\u212aey"]`. It is the whole path, however
	// deep; Error prints at most 256 bytes of it.
	Path string
	// Name is the member name as given (unescaped).
	Name string
	// Want is, for ErrUnknownField, the field's name as written in the
	// struct tag when Name is that name in another case; else "".
	Want string
	// Err is ErrUnknownField or ErrDuplicateKey.
	Err error
}

// maxPrinted is the most bytes of Path, and of Name, that Error prints:
// a longer one is printed as its start and its end around "...", so that
// a message stays short whatever the value refused.
const maxPrinted = 256

// Error says what is refused: `findings[0]: unknown field "Subject" (field
// names are case-sensitive; did you mean "subject"?)`, `duplicate key
// "team"`. Names are quoted with strconv.QuoteToASCII, so that a name that
// only looks like another is told from it: `unknown field "\u212aey"
// (field names are case-sensitive; did you mean "key"?)` (a Kelvin sign,
// not a K). A Path or Name longer than 256 bytes is printed
// shortened, its middle left out as "...".
func (e *NameError) Error() string {
	var b strings.Builder
	if e.Path != "" {
		head, tail, cut := elide(e.Path)
		b.WriteString(head)
		if cut {
			b.WriteString("...")
			b.WriteString(tail)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	b.WriteByte(' ')
	head, tail, cut := elide(e.Name)
	b.WriteString(strconv.QuoteToASCII(head))
	if cut {
		b.WriteString("...")
		b.WriteString(strconv.QuoteToASCII(tail))
	}
	if e.Want != "" {
		b.WriteString(" (field names are case-sensitive; did you mean ")
		b.WriteString(strconv.QuoteToASCII(e.Want))
		b.WriteString("?)")
	}
	return b.String()
}

// elide returns s, or, if it is longer than maxPrinted bytes, its first and
// last bytes, about maxPrinted/2 each, cut where a UTF-8 sequence starts.
func elide(s string) (head, tail string, cut bool) {
	if len(s) <= maxPrinted {
		return s, "", false
	}
	h, t := maxPrinted/2, len(s)-maxPrinted/2
	for h > 0 && !utf8.RuneStart(s[h]) {
		h--
	}
	for t < len(s) && !utf8.RuneStart(s[t]) {
		t++
	}
	return s[:h], s[t:], true
}

// Unwrap returns Err.
func (e *NameError) Unwrap() error { return e.Err }
