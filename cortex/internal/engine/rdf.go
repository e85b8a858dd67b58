package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio"
)

// RDFImportOptions control ImportRDF.
type RDFImportOptions struct {
	Format string // rdfio format name (see rdfio.Names); required
	File   string // name for error messages and the default base IRI
	Base   string // base IRI for relative IRIs; default: the file:// URL of File
	// NoFileBase: File names a source that is not a file (standard input,
	// a request body), not made the base: with no Base, a relative IRI is
	// a syntax error.
	NoFileBase bool
	Graph      quad.Value // see ImportOptions.Graph
	// DefaultGraph puts every quad into the default graph (see
	// ImportOptions.DefaultGraph).
	DefaultGraph bool
	ImportID     string // scopes blank nodes (letters, digits, '-', '_'; up to 64); default: the resumed import's, else a fresh NewImportID
	Progress     func(committed int64)

	// Resume, if set, makes the import resumable without its id (see
	// resume.go): the import is recorded in the namespace (id, source,
	// start time) before anything is written and the record is removed when
	// it completes; while a record of the same source (name and version) is
	// there, an import of it with no ImportID reuses the recorded id, so
	// re-running an import that a crash, a cancellation or an error stopped
	// converges to the same graph. An import that would resume a record
	// of another target (Graph, DefaultGraph or neither) is refused before
	// anything is written (resume.go). See FileSource.
	Resume *ImportSource
	// OnStart, if set, is called once the import id is chosen, before
	// anything is written.
	OnStart func(ImportStart)
}

// importIDPattern is what an import id may hold: it becomes part of blank
// node labels.
var importIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// CheckImportID reports whether id can be an import id (letters, digits,
// '-' and '_', up to 64): an error matching ErrInvalidArgument if not.
func CheckImportID(id string) error {
	if !importIDPattern.MatchString(id) {
		return fmt.Errorf("%w: import id %q: want letters, digits, '-' or '_' (up to 64)", ErrInvalidArgument, id)
	}
	return nil
}

// ImportRDF parses r in the given format and imports it with Import. Blank
// nodes are prefixed with the import id, so blank nodes of two imports never
// merge; re-running a failed import with the same ImportID converges to the
// same graph. Syntax errors are *rdfio.SyntaxError values
// (file:line:column: message) wrapped in an *ImportError.
func (n *Namespace) ImportRDF(ctx context.Context, r io.Reader, opts RDFImportOptions) (ImportResult, error) {
	if opts.ImportID != "" {
		if err := CheckImportID(opts.ImportID); err != nil {
			return ImportResult{}, err
		}
	}
	// Check the options (graph, format, base) before an import is recorded.
	iopts := ImportOptions{Graph: opts.Graph, DefaultGraph: opts.DefaultGraph, Progress: opts.Progress}
	if err := iopts.checkGraph(); err != nil {
		return ImportResult{}, err
	}
	probe, err := rdfio.NewDecoder(strings.NewReader(""), opts.Format, rdfio.DecodeOptions{Base: opts.Base, File: opts.File, NoFileBase: opts.NoFileBase})
	if err != nil {
		return ImportResult{}, err
	}
	probe.Close()
	if err := n.s.checkOpen(); err != nil {
		return ImportResult{}, err
	}
	if n.s.opts.readOnly {
		// Before the import is recorded (a write) and OnStart is told.
		return ImportResult{}, &ImportError{Err: fmt.Errorf("namespace %s: %w", n.name, ErrReadOnly)}
	}
	start := ImportStart{ID: opts.ImportID}
	if opts.Resume != nil {
		base := opts.Base
		if base == "" && !opts.NoFileBase && opts.File != "" {
			if base, err = rdfio.FileBase(opts.File); err != nil {
				return ImportResult{}, err
			}
		}
		if start, err = n.beginImport(ctx, *opts.Resume, opts.ImportID, importTarget(iopts), base); err != nil {
			return ImportResult{}, fmt.Errorf("namespace %s: import: %w", n.name, err)
		}
	} else if start.ID == "" {
		start.ID = NewImportID()
	}
	if opts.OnStart != nil {
		opts.OnStart(start)
	}
	dec, err := rdfio.NewDecoder(r, opts.Format, rdfio.DecodeOptions{
		Base: opts.Base, File: opts.File, NoFileBase: opts.NoFileBase, BlankPrefix: "i" + start.ID + "_",
		MaxTermBytes: n.s.maxTerm(), // a term the store cannot hold is refused where it is
	})
	if err != nil {
		return ImportResult{}, err
	}
	// The decoder is closed once the import no longer reads it (importFrom).
	res, err := n.importFrom(ctx, dec, iopts, func() { dec.Close() })
	res.ImportID = start.ID
	if ie, ok := err.(*ImportError); ok {
		ie.ImportID, ie.Resumable = start.ID, opts.Resume != nil
	}
	if opts.Resume != nil && (err == nil || (!start.Resumed && !importWroteAnything(err))) {
		// Complete, or a new import that failed before it wrote anything:
		// nothing to resume. (A resumed import keeps its record until it
		// completes: its earlier runs wrote.)
		if eerr := n.endImport(context.WithoutCancel(ctx), *opts.Resume, start.ID); err == nil {
			err = eerr
		}
	}
	return res, err
}

// ExportOptions control Export.
type ExportOptions struct {
	// Scope and Graph select the quads, as in Pattern (AllGraphs by default).
	Scope Scope
	Graph quad.Value
	// Prefixes abbreviate IRIs in Turtle output.
	Prefixes map[string]string
	// Progress, if set, is called every few thousand quads with the count so far.
	Progress func(written int64)
}

// Export writes the selected quads of the namespace to w in the given rdfio
// format. N-Triples and Turtle carry no graph names: exporting several graphs
// to them writes their triples without the graphs, a triple once per graph
// that holds it. It returns the number of quads written. Scope and Graph are checked as EachQuad checks a pattern, before
// anything is written.
func (n *Namespace) Export(ctx context.Context, w io.Writer, format string, opts ExportOptions) (int64, error) {
	if err := n.checkPattern(&Pattern{Graph: opts.Graph, Scope: opts.Scope}); err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	enc, err := rdfio.NewEncoder(w, format, rdfio.EncodeOptions{Prefixes: opts.Prefixes})
	if err != nil {
		return 0, err
	}
	var written int64
	err = n.EachQuad(ctx, Pattern{Graph: opts.Graph, Scope: opts.Scope}, func(q quad.Quad) error {
		if err := enc.Encode(q); err != nil {
			return err
		}
		written++
		if opts.Progress != nil && written%4096 == 0 {
			opts.Progress(written)
		}
		return nil
	})
	if cerr := enc.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return written, fmt.Errorf("export: %w", err)
	}
	return written, nil
}

// importWroteAnything reports whether a failed import committed something:
// only then is its record kept for resuming it. importFrom fails with
// another error than an *ImportError only before it writes (a store
// closed, a context ended before the import started).
func importWroteAnything(err error) bool {
	var ie *ImportError
	return errors.As(err, &ie) && ie.Committed > 0
}
