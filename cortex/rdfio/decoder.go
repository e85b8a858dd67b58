package rdfio

import (
	"fmt"
	"io"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/internal/lex"
	"github.com/cortexgraph/cortex/internal/pathtext"
)

// DecodeOptions configure a Decoder. The zero value is usable.
type DecodeOptions struct {
	// Base is the absolute IRI relative references resolve against (Turtle).
	// Like an @base of the document, it may hold no character that IRIREF
	// excludes (white space, controls, <>"{}|^`\) and must be valid UTF-8.
	// When empty and File is set, the file:// URL of File is used (unless
	// NoFileBase); when there is none, a relative IRI is a syntax error.
	Base string
	// File is the name used in error messages (and for the default base).
	File string
	// NoFileBase says that File names a source that is not a file
	// (standard input, a request body): its name is not made a base.
	NoFileBase bool
	// BlankPrefix is prepended to every blank node label so that blank nodes
	// of different imports never merge. It may contain only [A-Za-z0-9_-] and
	// must not start with '-'.
	BlankPrefix string
	// MaxTermBytes bounds the size of a term (TermBytes: an IRI, a blank
	// node label with BlankPrefix, a literal's text with its language tag
	// or datatype IRI): a larger one is a syntax error at the term, for a
	// store that holds no larger term (an in-memory one). 0 means
	// DefaultMaxTermBytes; a negative value, no bound. The decoders never
	// hold more of a token than the bound (a token larger than it is
	// refused as soon as it is read that far), so that memory stays
	// bounded whatever the input.
	MaxTermBytes int
}

func (o DecodeOptions) validate() (DecodeOptions, error) {
	for i := 0; i < len(o.BlankPrefix); i++ {
		c := o.BlankPrefix[i]
		if !(isAlnum(c) || c == '_' || c == '-' && i > 0) {
			return o, fmt.Errorf("%w: blank prefix %q may contain only [A-Za-z0-9_-] and must not start with '-'", ErrInvalidOption, o.BlankPrefix)
		}
	}
	if o.Base != "" && !hasScheme(o.Base) {
		return o, fmt.Errorf("%w: base %q is not an absolute IRI", ErrInvalidOption, o.Base)
	}
	if o.Base != "" && !lex.IRIChars(o.Base) {
		// As in an @base of the document: every relative reference would
		// become an IRI that no document can write.
		return o, fmt.Errorf("%w: base %q holds a character IRIs do not (white space, a control character, <>\"{}|^`\\ or bytes that are not UTF-8)", ErrInvalidOption, o.Base)
	}
	if o.Base == "" && o.File != "" && !o.NoFileBase {
		b, err := FileBase(o.File)
		if err != nil {
			return o, fmt.Errorf("%w: base for %s: %v", ErrInvalidOption, pathtext.Quote(o.File), err)
		}
		o.Base = b
	}
	return o, nil
}

// Decoder reads quads one at a time.
//
// A Decoder is not safe for concurrent use. Errors are sticky: after Next
// returns an error other than io.EOF it keeps returning it.
type Decoder interface {
	// Next returns the next quad, or io.EOF at the end of the input. Syntax
	// errors are *SyntaxError values; an error of the reader is a
	// *ReadError that wraps it (errors.Is finds it) and says where it cut
	// the input, also when it cuts a token (the text before it may look
	// malformed: it is not a syntax error). Triples have a nil Label;
	// N-Quads statements carry their graph IRI or blank node.
	Next() (quad.Quad, error)
	// Close releases resources held by the decoder (it does not close the
	// reader). Call it when abandoning a decoder before io.EOF.
	Close() error
}

// NewDecoder returns a decoder for the named format (see Lookup) reading r.
// A write-only format (RDF/XML) yields an error wrapping ErrUnknownFormat.
func NewDecoder(r io.Reader, format string, opts DecodeOptions) (Decoder, error) {
	f, err := Lookup(format)
	if err != nil {
		return nil, err
	}
	if err := f.CheckReadable(); err != nil {
		return nil, err
	}
	return f.NewDecoder(r, opts)
}

// ReadAll decodes every quad of r. It is meant for small inputs and tests.
func ReadAll(r io.Reader, format string, opts DecodeOptions) ([]quad.Quad, error) {
	d, err := NewDecoder(r, format, opts)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	var out []quad.Quad
	for {
		q, err := d.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, q)
	}
}
