package results

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/cayleygraph/quad"
)

// Row is one solution, aligned with the variable list it was written or read
// with: Row[i] is the value of the i-th variable, nil when it is unbound.
// Values are quad.IRI, quad.BNode, quad.String, quad.LangString or
// quad.TypedString.
type Row []quad.Value

// Writer streams solution rows in one format.
//
// Write encodes one row; the row may be reused by the caller after Write
// returns. A row that cannot be encoded yields a *TermError (wrapping
// ErrInvalidTerm) and nothing of it is written; the writer stays usable.
// Errors from the underlying io.Writer are sticky: every later call returns
// them. Close writes any trailer and flushes buffered output; it does not
// close the underlying io.Writer. Writers are not safe for concurrent use.
type Writer interface {
	Write(Row) error
	Close() error
}

// Format describes one result format.
type Format struct {
	// Name is the registry key, lower case (e.g. "json").
	Name string
	// MediaType is the IANA media type (e.g. "application/sparql-results+json").
	MediaType string
	// Extensions lists file extensions with the leading dot, lower case
	// (e.g. ".srj"); the first one is the preferred.
	Extensions []string
	// NewWriter returns a streaming writer of solution rows for vars.
	NewWriter func(w io.Writer, vars []string) (Writer, error)
	// WriteBoolean writes the result of an ASK query.
	WriteBoolean func(w io.Writer, b bool) error
	// Read parses a whole document; nil if the format cannot be read back.
	Read func(r io.Reader) (*Result, error)
}

// WriteResult writes r completely: its boolean when r.Boolean is set,
// otherwise its variables and rows. If a row cannot be written, its error
// is returned and the writer is left unclosed, as WriteAll leaves it: no
// trailer, and what the writer still buffered is not flushed, so that the
// rest of the result is never written as a complete one.
func (f Format) WriteResult(w io.Writer, r *Result) error {
	if r.Boolean != nil {
		return f.WriteBoolean(w, *r.Boolean)
	}
	rw, err := f.NewWriter(w, r.Vars)
	if err != nil {
		return err
	}
	for _, row := range r.Rows {
		if err := rw.Write(row); err != nil {
			return err
		}
	}
	return rw.Close()
}

// Result is a whole query result held in memory, as returned by readers.
// Exactly one of (Vars, Rows) and Boolean is meaningful: Boolean is non-nil for
// the result of an ASK query.
type Result struct {
	Vars    []string
	Rows    []Row
	Boolean *bool
}

// Registry maps format names and file extensions to formats. The zero value
// is not usable; use NewRegistry. A Registry is safe for concurrent use.
type Registry struct {
	mu     sync.RWMutex
	byName map[string]Format
	byExt  map[string]string
}

// NewRegistry returns a registry holding formats, registered in order with
// Register (and so panicking on the same conditions).
func NewRegistry(formats ...Format) *Registry {
	r := &Registry{byName: map[string]Format{}, byExt: map[string]string{}}
	for _, f := range formats {
		r.Register(f)
	}
	return r
}

// Register adds f. It panics if f has no name, a name that is not lower case,
// no NewWriter or WriteBoolean, or a name or extension already registered:
// these are programming errors.
func (r *Registry) Register(f Format) {
	if f.Name == "" || f.Name != strings.ToLower(f.Name) {
		panic(fmt.Sprintf("results: register format %q: name must be non-empty lower case", f.Name))
	}
	if f.NewWriter == nil || f.WriteBoolean == nil {
		panic(fmt.Sprintf("results: register format %q: NewWriter and WriteBoolean are required", f.Name))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.byName[f.Name]; dup {
		panic(fmt.Sprintf("results: register format %q: duplicate name", f.Name))
	}
	for _, ext := range f.Extensions {
		if other, dup := r.byExt[strings.ToLower(ext)]; dup {
			panic(fmt.Sprintf("results: register format %q: extension %q already claimed by %q", f.Name, ext, other))
		}
	}
	f.Extensions = append([]string(nil), f.Extensions...)
	r.byName[f.Name] = f
	for _, ext := range f.Extensions {
		r.byExt[strings.ToLower(ext)] = f.Name
	}
}

// Lookup returns the format registered under name (case-insensitive). An
// unknown name yields an error wrapping ErrUnknownFormat that lists the
// known names.
func (r *Registry) Lookup(name string) (Format, error) {
	r.mu.RLock()
	f, ok := r.byName[strings.ToLower(name)]
	r.mu.RUnlock()
	if !ok {
		return Format{}, fmt.Errorf("lookup %q: %w (known: %s)", name, ErrUnknownFormat, strings.Join(r.Names(), ", "))
	}
	f.Extensions = append([]string(nil), f.Extensions...)
	return f, nil
}

// ByExtension returns the format claiming the extension of path
// (case-insensitive, e.g. "expected.srx" → xml). An unclaimed extension
// yields an error wrapping ErrUnknownFormat.
func (r *Registry) ByExtension(path string) (Format, error) {
	ext := strings.ToLower(filepath.Ext(path))
	r.mu.RLock()
	name, ok := r.byExt[ext]
	f := r.byName[name]
	r.mu.RUnlock()
	if !ok || ext == "" {
		return Format{}, fmt.Errorf("format of %q: %w: extension %q", path, ErrUnknownFormat, ext)
	}
	f.Extensions = append([]string(nil), f.Extensions...)
	return f, nil
}

// Names returns the registered format names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.byName))
	for n := range r.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// defaultRegistry is the package's own built-in table; nothing else registers
// into it implicitly.
var defaultRegistry = NewRegistry(JSON(), XML(), CSV(), TSV(), Table(DefaultTableOptions()))

// Register adds f to the default registry; see Registry.Register.
func Register(f Format) { defaultRegistry.Register(f) }

// Lookup finds a format by name in the default registry; see Registry.Lookup.
func Lookup(name string) (Format, error) { return defaultRegistry.Lookup(name) }

// ByExtension finds a format by file extension in the default registry; see
// Registry.ByExtension.
func ByExtension(path string) (Format, error) { return defaultRegistry.ByExtension(path) }

// Names lists the default registry's format names, sorted.
func Names() []string { return defaultRegistry.Names() }

// Rows is a stream of solution rows: a query's result (sparql.Result), or
// rows read back from a server.
type Rows interface {
	Next(ctx context.Context) bool
	Row() []quad.Value
	Err() error
}

// WriteAll writes every row of rows in format f with vars as the header,
// and closes the writer once all are written. If rows fails, the writer is
// left open, so that an incomplete result is never written as a complete
// one (no trailer), and the error is returned.
func WriteAll(ctx context.Context, w io.Writer, f Format, vars []string, rows Rows) error {
	rw, err := f.NewWriter(w, vars)
	if err != nil {
		return err
	}
	for rows.Next(ctx) {
		if err := rw.Write(rows.Row()); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rw.Close()
}
