// Package pathtext names file paths in messages: as they are when they are
// plain text, quoted otherwise, so that a path with a newline, an escape
// sequence, a bidi control, bytes that are not UTF-8 or a quote can neither
// garble nor forge a message, nor reach a terminal raw. The library's
// messages (package spec, rdfio's syntax errors, the store's) and the CLI's
// name paths through it, as teammanager.IDText names ids.
package pathtext

import (
	"io/fs"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Quote returns p as it is if it is plain text (UTF-8 of printable
// characters, spaces only between others, no double quote, no ": ", which
// messages use to separate their parts), quoted (%q) otherwise. The empty
// path is quoted ("").
func Quote(p string) string {
	if p == "" || p[0] == ' ' || p[len(p)-1] == ' ' || strings.ContainsRune(p, '"') || strings.Contains(p, ": ") || !utf8.ValidString(p) {
		return strconv.Quote(p)
	}
	for _, r := range p {
		if !unicode.IsPrint(r) {
			return strconv.Quote(p)
		}
	}
	return p
}

// pathError is an *fs.PathError whose message names its path by Quote.
type pathError struct{ *fs.PathError }

func (e pathError) Error() string {
	return e.Op + " " + Quote(e.Path) + ": " + e.Err.Error()
}

func (e pathError) Unwrap() error { return e.PathError }

// linkError is an *os.LinkError whose message names its paths by Quote.
type linkError struct{ *os.LinkError }

func (e linkError) Error() string {
	return e.Op + " " + Quote(e.Old) + " " + Quote(e.New) + ": " + e.Err.Error()
}

func (e linkError) Unwrap() error { return e.LinkError }

// Error returns err, if it is an *fs.PathError (what os.Open, os.Stat ...
// return) or an *os.LinkError (os.Rename, os.Link), with its paths named by
// Quote (errors.As still finds the original, errors.Is what it wraps);
// another error as it is.
func Error(err error) error {
	switch e := err.(type) {
	case *fs.PathError:
		return pathError{e}
	case *os.LinkError:
		return linkError{e}
	}
	return err
}
