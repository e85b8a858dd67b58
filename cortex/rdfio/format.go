package rdfio

import (
	"fmt"
	"io"
	"mime"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Format describes one RDF syntax and how to read and write it.
//
// Names, extensions and media types are matched case-insensitively and are
// stored in lower case.
type Format struct {
	Name       string   // registry key, e.g. "turtle"
	Extensions []string // file extensions with the leading dot, e.g. ".ttl"
	MediaTypes []string // e.g. "text/turtle"; the first one is preferred
	// Quads is true when the syntax carries graph names (N-Quads). Encoders of
	// triple formats drop graph labels.
	Quads bool
	// NewDecoder returns a decoder reading r. Nil when the format is
	// write-only (RDF/XML): NewDecoder of the package then fails, and readers
	// that choose a format by name, extension or media type check Readable.
	NewDecoder func(r io.Reader, opts DecodeOptions) (Decoder, error)
	// NewEncoder returns an encoder writing w. Nil when the format is read-only.
	NewEncoder func(w io.Writer, opts EncodeOptions) (Encoder, error)
}

type registry struct {
	mu     sync.RWMutex
	byName map[string]Format
	byExt  map[string]string
	byMT   map[string]string
}

var formats = newRegistry(builtinFormats()...)

func newRegistry(fs ...Format) *registry {
	r := &registry{byName: map[string]Format{}, byExt: map[string]string{}, byMT: map[string]string{}}
	for _, f := range fs {
		r.register(f)
	}
	return r
}

// Readable reports whether the format can be read (it has a decoder).
func (f Format) Readable() bool { return f.NewDecoder != nil }

// CheckReadable returns nil for a format that can be read, else an error
// wrapping ErrUnknownFormat that names the formats that can: what a reader
// that chose f by name, extension or media type reports.
func (f Format) CheckReadable() error {
	if f.Readable() {
		return nil
	}
	return fmt.Errorf("%w %q: it is written, not read (read %s)", ErrUnknownFormat, f.Name, strings.Join(ReadableNames(), ", "))
}

// Register adds a format to the registry. It panics if the name is empty or
// already registered, if both NewDecoder and NewEncoder are nil, or if an
// extension or media type is already claimed by another format. Safe for
// concurrent use.
func Register(f Format) { formats.register(f) }

func (r *registry) register(f Format) {
	f.Name = strings.ToLower(f.Name)
	if f.Name == "" {
		panic("rdfio: Register with empty format name")
	}
	if f.NewDecoder == nil && f.NewEncoder == nil {
		panic("rdfio: Register " + f.Name + " without NewDecoder or NewEncoder")
	}
	f.Extensions = lowerAll(f.Extensions)
	f.MediaTypes = lowerAll(f.MediaTypes)
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.byName[f.Name]; dup {
		panic("rdfio: Register called twice for format " + f.Name)
	}
	for _, e := range f.Extensions {
		if !strings.HasPrefix(e, ".") {
			panic("rdfio: extension " + e + " of format " + f.Name + " must start with a dot")
		}
		if other, dup := r.byExt[e]; dup {
			panic("rdfio: extension " + e + " of format " + f.Name + " already used by " + other)
		}
	}
	for _, m := range f.MediaTypes {
		if other, dup := r.byMT[m]; dup {
			panic("rdfio: media type " + m + " of format " + f.Name + " already used by " + other)
		}
	}
	for _, e := range f.Extensions {
		r.byExt[e] = f.Name
	}
	for _, m := range f.MediaTypes {
		r.byMT[m] = f.Name
	}
	r.byName[f.Name] = f
}

func lowerAll(in []string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = strings.ToLower(s)
	}
	return out
}

// Lookup returns the format registered under name (case-insensitive). An
// unknown name yields an error wrapping ErrUnknownFormat that lists the known
// names. Safe for concurrent use.
func Lookup(name string) (Format, error) {
	formats.mu.RLock()
	defer formats.mu.RUnlock()
	if f, ok := formats.byName[strings.ToLower(name)]; ok {
		return f, nil
	}
	return Format{}, fmt.Errorf("%w %q (known: %s)", ErrUnknownFormat, name, strings.Join(formats.names(), ", "))
}

// ByExtension returns the format for the extension of path (".ttl",
// case-insensitive). An unknown extension yields an error wrapping
// ErrUnknownFormat that lists the known extensions.
func ByExtension(path string) (Format, error) {
	ext := strings.ToLower(filepath.Ext(path))
	formats.mu.RLock()
	defer formats.mu.RUnlock()
	if name, ok := formats.byExt[ext]; ok && ext != "" {
		return formats.byName[name], nil
	}
	known := make([]string, 0, len(formats.byExt))
	for e := range formats.byExt {
		known = append(known, e)
	}
	sort.Strings(known)
	return Format{}, fmt.Errorf("%w for file %q (known extensions: %s)", ErrUnknownFormat, path, strings.Join(known, ", "))
}

// ByMediaType returns the format for a media type such as
// "text/turtle; charset=utf-8" (parameters are ignored). An unknown media type
// yields an error wrapping ErrUnknownFormat that lists the known ones.
func ByMediaType(mediaType string) (Format, error) {
	mt, _, err := mime.ParseMediaType(mediaType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(mediaType))
	}
	formats.mu.RLock()
	defer formats.mu.RUnlock()
	if name, ok := formats.byMT[mt]; ok {
		return formats.byName[name], nil
	}
	known := make([]string, 0, len(formats.byMT))
	for m := range formats.byMT {
		known = append(known, m)
	}
	sort.Strings(known)
	return Format{}, fmt.Errorf("%w for media type %q (known: %s)", ErrUnknownFormat, mediaType, strings.Join(known, ", "))
}

// Names returns the registered format names, sorted.
func Names() []string {
	formats.mu.RLock()
	defer formats.mu.RUnlock()
	return formats.names()
}

// ReadableNames returns the names of the registered formats that can be
// read (see Format.Readable), sorted.
func ReadableNames() []string {
	formats.mu.RLock()
	defer formats.mu.RUnlock()
	var out []string
	for _, n := range formats.names() {
		if formats.byName[n].Readable() {
			out = append(out, n)
		}
	}
	return out
}

func (r *registry) names() []string {
	out := make([]string, 0, len(r.byName))
	for n := range r.byName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Built-in format names.
const (
	NTriples = "ntriples"
	NQuads   = "nquads"
	Turtle   = "turtle"
	// RDFXML (application/rdf+xml, .rdf) is written, not read; see the
	// package's Caveats for what it cannot write.
	RDFXML = "rdfxml"
)

func builtinFormats() []Format {
	return []Format{
		{
			Name:       NTriples,
			Extensions: []string{".nt"},
			MediaTypes: []string{"application/n-triples"},
			NewDecoder: func(r io.Reader, o DecodeOptions) (Decoder, error) { return newLineDecoder(r, o, false) },
			NewEncoder: func(w io.Writer, o EncodeOptions) (Encoder, error) { return newLineEncoder(w, o, false), nil },
		},
		{
			Name:       NQuads,
			Extensions: []string{".nq"},
			MediaTypes: []string{"application/n-quads"},
			Quads:      true,
			NewDecoder: func(r io.Reader, o DecodeOptions) (Decoder, error) { return newLineDecoder(r, o, true) },
			NewEncoder: func(w io.Writer, o EncodeOptions) (Encoder, error) { return newLineEncoder(w, o, true), nil },
		},
		{
			Name:       Turtle,
			Extensions: []string{".ttl"},
			MediaTypes: []string{"text/turtle", "application/x-turtle"},
			NewDecoder: newTurtleDecoder,
			NewEncoder: newTurtleEncoder,
		},
		{
			Name:       RDFXML,
			Extensions: []string{".rdf"},
			MediaTypes: []string{"application/rdf+xml"},
			NewEncoder: newXMLEncoder,
		},
	}
}
