package rdfio

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/internal/pathtext"
)

// Format registry errors.
var (
	// ErrUnknownFormat is returned when no registered format matches a name,
	// file extension or media type.
	ErrUnknownFormat = errors.New("unknown rdf format")
)

// Decoding errors.
var (
	// ErrSyntax is matched (via errors.Is) by every *SyntaxError.
	ErrSyntax = errors.New("rdf syntax error")
	// ErrInvalidOption is returned by NewDecoder and NewEncoder for unusable options.
	ErrInvalidOption = errors.New("invalid rdf option")
	// ErrDecoderClosed is returned by Decoder.Next after Close.
	ErrDecoderClosed = errors.New("rdf decoder closed")
)

// Encoding errors.
var (
	// ErrInvalidTerm is returned when a value cannot be written as an RDF term
	// (nil, unsupported quad.Value type, invalid UTF-8, bad language tag,
	// datatype rdf:langString without a language tag).
	ErrInvalidTerm = errors.New("invalid rdf term")
	// ErrInvalidQuad is returned when a term is not allowed in its position
	// (for example a literal subject or a blank node predicate).
	ErrInvalidQuad = errors.New("invalid rdf quad")
	// ErrEncoderClosed is returned by Encoder.Encode after Close.
	ErrEncoderClosed = errors.New("rdf encoder closed")
)

// SyntaxError reports malformed input. Line and Col are 1-based; Col counts
// bytes from the start of the line (as go/token does). The readers of this
// package always set both; Error leaves out a zero Line or Col, for errors
// built elsewhere.
type SyntaxError struct {
	File string // name given in DecodeOptions.File; may be empty
	Line int
	Col  int
	Msg  string
}

// Error returns "file:line:column: message", leaving out the parts that are
// unknown (empty file, zero line or column). The file is named as
// pathtext.Quote names paths: quoted unless it is plain text.
func (e *SyntaxError) Error() string {
	b := make([]byte, 0, len(e.File)+len(e.Msg)+16)
	if e.File != "" {
		b = append(b, pathtext.Quote(e.File)...)
		b = append(b, ':')
	}
	if e.Line > 0 {
		b = strconv.AppendInt(b, int64(e.Line), 10)
		b = append(b, ':')
		if e.Col > 0 {
			b = strconv.AppendInt(b, int64(e.Col), 10)
			b = append(b, ':')
		}
	}
	if len(b) > 0 {
		b = append(b, ' ')
	}
	b = append(b, e.Msg...)
	return string(b)
}

// maxArgBytes bounds the text of the input a syntax error's message
// repeats (a token, a prefix, an IRI): a longer one is cut, at a character,
// and "…" says so, so that a multi-megabyte token makes a short message.
const maxArgBytes = 256

// clipArgs returns args with every string or []byte of more than
// maxArgBytes bytes cut to its first maxArgBytes and "…" (a copy of args,
// if any is cut).
func clipArgs(args []any) []any {
	var out []any
	for i, a := range args {
		var s string
		switch v := a.(type) {
		case string:
			s = v
		case []byte:
			s = string(v[:min(len(v), maxArgBytes+utf8.UTFMax)])
		default:
			continue
		}
		if len(s) <= maxArgBytes {
			continue
		}
		if out == nil {
			out = slices.Clone(args)
		}
		cut := maxArgBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		out[i] = s[:cut] + "…"
	}
	if out == nil {
		return args
	}
	return out
}

// Is reports whether target is ErrSyntax, so that errors.Is(err, ErrSyntax)
// matches any syntax error.
func (e *SyntaxError) Is(target error) bool { return target == ErrSyntax }

// ReadError reports an error of the reader a decoder reads (a network or a
// disk error), where it cut the input: Line and Col (1-based, as in
// SyntaxError) are just after the last byte read, Offset counts the bytes
// read before it. Unwrap returns the reader's error, so that errors.Is finds
// it (io.ErrUnexpectedEOF, context.Canceled, a *net.OpError ...).
type ReadError struct {
	File      string // name given in DecodeOptions.File; may be empty
	Line, Col int
	Offset    int64
	Err       error
}

// Error returns "file:line:column: read error at byte N: cause", leaving
// out the file when it is unknown.
func (e *ReadError) Error() string {
	where := ""
	if e.File != "" {
		where = pathtext.Quote(e.File) + ":"
	}
	return fmt.Sprintf("%s%d:%d: read error at byte %d: %v", where, e.Line, e.Col, e.Offset, e.Err)
}

// Unwrap returns the reader's error.
func (e *ReadError) Unwrap() error { return e.Err }

// QuadError reports a quad that an encoder could not write.
type QuadError struct {
	Quad quad.Quad
	Err  error
}

// Error describes the quad, in N-Quads syntax (FormatTerm: its control
// characters escaped, never written raw to a terminal), and the reason.
func (e *QuadError) Error() string {
	terms := []string{FormatTerm(e.Quad.Subject), FormatTerm(e.Quad.Predicate), FormatTerm(e.Quad.Object)}
	if e.Quad.Label != nil {
		terms = append(terms, FormatTerm(e.Quad.Label))
	}
	return fmt.Sprintf("encode quad %s: %v", strings.Join(terms, " "), e.Err)
}

// Unwrap returns the reason (wrapping ErrInvalidTerm or ErrInvalidQuad).
func (e *QuadError) Unwrap() error { return e.Err }
