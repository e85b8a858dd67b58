package cortex

import (
	"context"
	"io"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/internal/engine"
)

// QuadSource is a stream of quads: Next returns io.EOF after the last one.
// rdfio decoders implement it.
type QuadSource interface {
	Next() (quad.Quad, error)
}

// ImportOptions control a bulk import.
type ImportOptions struct {
	// Graph, if not nil, puts every imported quad into this graph (overriding
	// the graph of N-Quads input). If nil, triples go to the default graph and
	// quads keep their own graph. A Graph that is not an absolute IRI or a
	// blank node is an error matching ErrInvalidArgument (and ErrInvalidQuad),
	// before anything is read or written.
	Graph quad.Value
	// DefaultGraph puts every imported quad into the default graph (N-Quads
	// input loses its graphs), as Graph puts them into a named one. Graph
	// must then be nil: both is an error matching ErrInvalidArgument.
	DefaultGraph bool
	// Progress, if set, is called after each committed chunk with the total
	// number of quads committed so far. It runs on the importing goroutine.
	Progress func(committed int64)
}

// ImportResult reports a finished import.
type ImportResult struct {
	Read      int64  // quads read from the source
	Committed int64  // quads written (duplicates included; quads are a set)
	Chunks    int    // transactions committed
	ImportID  string // the import id (ImportRDF only)
}

// NewImportID returns a fresh random import id: a prefix for the blank node
// labels of one import, so that blank nodes of different imports never merge.
func NewImportID() string { return engine.NewImportID() }

// Import writes every quad of src into the namespace. Parsing, preparing (term
// hashing and encoding) and writing run concurrently.
//
// On a persistent store the quads are written in segments: a segment of up
// to ~2M quads is computed in chunks of the store's chunk size and then
// written at once, through Badger's stream writer when large (all or
// nothing, even across a crash) or one transaction per chunk when small
// (per piece of a chunk: one that does not fit in a Badger transaction is
// cut into pieces that do).
// While it is computed, its writes beyond the store's import budget
// (Options.WithImportSegmentBytes) are sorted and spilled to temporary run
// files in the store directory, so an import's memory does not grow with
// the file. In-memory stores write chunk by chunk. The unit of atomicity is
// thus a segment, or a chunk or its piece that fits in one Badger
// transaction; an import as a whole is atomic only
// if it fits in one streamed segment. If src fails inside the first chunk,
// nothing is written. If it fails later, what was read before the failing
// chunk is written and the returned *ImportError says how many quads were
// committed. Quads are a set, so re-running the same import (with the same
// blank node prefix, see NewImportID) converges to the same graph. Badger's
// ErrTxnTooBig never reaches the caller unless a single quad exceeds a
// transaction (~2.5 MB of new terms under Badger's 1 MB value threshold with
// the default 16 MiB memtables; Apply journals such a quad).
// ImportResult.Chunks counts the atomic writes (chunks and segments).
//
// Import writes cayley's storage format directly, without cayley's per-quad
// reads; other writers of the namespace (Apply, Update, other imports) run
// between its segments or chunks. Import is safe for concurrent use; see the
// package documentation for what a streamed segment waits for. A nil src
// is an error matching ErrInvalidArgument.
func (n *Namespace) Import(ctx context.Context, src QuadSource, opts ImportOptions) (ImportResult, error) {
	if src == nil {
		return ImportResult{}, n.nilArgument("import", "source")
	}
	r, err := n.e.Import(ctx, src, engine.ImportOptions(opts))
	return ImportResult(r), err
}

// DropGraph removes every quad of graph g (nil: the default graph) in chunks
// of bounded size; each chunk is atomic and re-running converges. It returns
// the number of quads removed. A g that is not a graph name (an IRI or a
// blank node, see Pattern) is an error matching ErrInvalidArgument and
// ErrInvalidQuad, and nothing is removed.
func (n *Namespace) DropGraph(ctx context.Context, g quad.Value) (int64, error) {
	return n.e.DropGraph(ctx, g)
}

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

	// Resume, if set, makes the import resumable without its id: the import
	// is recorded in the namespace (id, source, start time) before anything
	// is written and the record is removed when it completes; while a record
	// of the same source (name and version) is there, an import of it with
	// no ImportID reuses the recorded id, so re-running an import that a
	// crash, a cancellation or an error stopped converges to the same graph.
	// The record holds the import's target (Graph, DefaultGraph or neither):
	// an import that would resume a record of another target (or that
	// gives the record's ImportID, for another version of the source too)
	// is refused, before anything is written, with an error matching ErrInvalidArgument
	// that names both targets (import into the first one again to resume,
	// or give a new ImportID to import anew); so is one with another base
	// (Base, else the file:// URL of File) than the recorded one. Records written before targets
	// were recorded resume whatever the target. An import of the same
	// version of the source under another ImportID than the recorded one
	// leaves the record as it is (that import still resumes) and is not
	// recorded itself: it is resumed by giving its ImportID again (see
	// ImportStart.Kept). See FileSource and Namespace.UnfinishedImports.
	Resume *ImportSource
	// OnStart, if set, is called once the import id is chosen, before
	// anything is written.
	OnStart func(ImportStart)
}

// CheckImportID reports whether id can be an import id (letters, digits,
// '-' and '_', up to 64): an error matching ErrInvalidArgument if not.
func CheckImportID(id string) error { return engine.CheckImportID(id) }

// ImportRDF parses r in the given format and imports it with Import. Blank
// nodes are prefixed with the import id, so blank nodes of two imports never
// merge; re-running a failed import with the same ImportID converges to the
// same graph. Syntax errors are *rdfio.SyntaxError values
// (file:line:column: message) wrapped in an *ImportError; so is a term
// larger than an in-memory store holds (about 1 MB). A nil r is an
// error matching ErrInvalidArgument.
//
// When ctx ends, ImportRDF returns without waiting for a Read of r that
// blocks: that Read may return after ImportRDF has, and r is read no
// further after it.
func (n *Namespace) ImportRDF(ctx context.Context, r io.Reader, opts RDFImportOptions) (ImportResult, error) {
	if r == nil {
		return ImportResult{}, n.nilArgument("import", "reader")
	}
	eo := engine.RDFImportOptions{
		Format:       opts.Format,
		File:         opts.File,
		Base:         opts.Base,
		NoFileBase:   opts.NoFileBase,
		Graph:        opts.Graph,
		DefaultGraph: opts.DefaultGraph,
		ImportID:     opts.ImportID,
		Progress:     opts.Progress,
	}
	if opts.Resume != nil {
		eo.Resume = (*engine.ImportSource)(opts.Resume)
	}
	if fn := opts.OnStart; fn != nil {
		eo.OnStart = func(st engine.ImportStart) {
			fn(ImportStart{ID: st.ID, Resumed: st.Resumed, Started: st.Started, Replaced: (*UnfinishedImport)(st.Replaced), Kept: (*UnfinishedImport)(st.Kept)})
		}
	}
	res, err := n.e.ImportRDF(ctx, r, eo)
	return ImportResult(res), err
}

// ExportOptions control Export.
type ExportOptions struct {
	// Scope and Graph select the quads, as in Pattern (AllGraphs by default);
	// Export refuses those Quads refuses, with the same errors.
	Scope Scope
	Graph quad.Value
	// Prefixes abbreviate IRIs in Turtle output.
	Prefixes map[string]string
	// Progress, if set, is called every few thousand quads with the count so far.
	Progress func(written int64)
}

// Export writes the selected quads of the namespace to w in the given rdfio
// format. N-Triples and Turtle carry no graph names: exporting several graphs
// to them writes their triples without the graphs: a triple that several
// graphs hold is written once for each (importing the output gives their
// union). It returns the number of quads
// written. A nil w, or a Scope and Graph that Quads refuses, is an error
// matching ErrInvalidArgument, and nothing is written.
func (n *Namespace) Export(ctx context.Context, w io.Writer, format string, opts ExportOptions) (int64, error) {
	if w == nil {
		return 0, n.nilArgument("export", "writer")
	}
	return n.e.Export(ctx, w, format, engine.ExportOptions(opts))
}

// ImportSource identifies the input of an import for resuming it (see
// RDFImportOptions.Resume): its Name (e.g. a file's absolute path) and its
// Version (e.g. FileVersion), which must change when the content does.
type ImportSource struct {
	Name    string
	Version string
}

// UnfinishedImport is the record of an import that started and did not
// complete (it was interrupted by a crash, a cancellation or an error).
type UnfinishedImport struct {
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	Version string    `json:"version"`
	Started time.Time `json:"started"`
	// Target is where the import writes: "none" (no graph given: triples
	// into the default graph, quads into their own), "default" (every quad
	// into the default graph, RDFImportOptions.DefaultGraph) or the graph's
	// N-Quads term (<http://ex/g>, RDFImportOptions.Graph). It is "" in
	// records written before targets were recorded.
	Target string `json:"target,omitempty"`
	// Base is the base IRI the import's relative IRIs resolve against: the
	// one given, else the file's file:// URL. An import that would resume
	// the record with another base is refused, as one into another target
	// is. It is "" in records written before bases were recorded, and for
	// an input with no base.
	Base string `json:"base,omitempty"`
}

// ImportStart tells an import's caller (RDFImportOptions.OnStart), before
// anything is written, which id the import uses.
type ImportStart struct {
	ID string
	// Resumed is set when ID is that of an unfinished import of the same
	// source (Resume), which this import completes.
	Resumed bool
	// Started is when the resumed import first started (zero when new).
	Started time.Time
	// Replaced is the unfinished import of the same source name but another
	// version (the input changed since), whose record this import replaces.
	// Its quads stay in the namespace; re-importing that version with its id
	// converges to its graph.
	Replaced *UnfinishedImport
	// Kept is the unfinished import of the same version of the source,
	// under another id than the ImportID given: its record stays, so the
	// same import without an ImportID still resumes it, and this import is
	// not recorded (re-running it with its ImportID converges).
	Kept *UnfinishedImport
}

// FileVersion returns a version of the file at path for ImportSource: its
// size, modification time and the SHA-256 of its first 64 KiB.
func FileVersion(path string) (string, error) { return engine.FileVersion(path) }

// FileSource returns the ImportSource of the file at path: its absolute path
// and FileVersion.
func FileSource(path string) (ImportSource, error) {
	src, err := engine.FileSource(path)
	return ImportSource(src), err
}

// UnfinishedImports lists the recorded imports that started and did not
// complete (see RDFImportOptions.Resume), oldest first.
//
// It is safe for concurrent use and sees committed data only.
func (n *Namespace) UnfinishedImports(ctx context.Context) ([]UnfinishedImport, error) {
	us, err := n.e.UnfinishedImports(ctx)
	if us == nil {
		return nil, err
	}
	out := make([]UnfinishedImport, len(us))
	for i, u := range us {
		out[i] = UnfinishedImport(u)
	}
	return out, err
}

// NormalizeQuad checks that q is a valid RDF quad and returns it in the
// canonical term representation Cortex stores: subjects are IRIs or blank
// nodes, predicates IRIs, graph labels nil (default graph), IRIs or blank
// nodes; objects any term. A "..."^^xsd:string literal becomes a plain
// quad.String; cayley's native quad.Int, Float, Bool and Time become typed
// literals. Anything else is an error wrapping ErrInvalidQuad.
func NormalizeQuad(q quad.Quad) (quad.Quad, error) { return engine.NormalizeQuad(q) }

// NormalizeTerm returns v in Cortex's canonical representation (see
// NormalizeQuad) or an error for values that are not RDF terms, or that
// could not be exported: a literal's text must be valid UTF-8 (a lone
// surrogate is not), its language tag well-formed, its datatype a valid
// absolute IRI (CheckIRI) other than rdf:langString, which RDF 1.1 gives
// language-tagged literals only (a quad.TypedString has no tag).
func NormalizeTerm(v quad.Value) (quad.Value, error) { return engine.NormalizeTerm(v) }

// CheckIRI reports whether s can be stored and exported as an IRI: an
// absolute IRI (with a scheme), valid UTF-8, free of the characters an
// N-Triples IRIREF cannot hold (U+0000 to U+0020 and <>"{}|^`\). Cortex
// builds its own IRIs with the namespace package, which escapes user input so
// that this always holds.
func CheckIRI(s string) error { return engine.CheckIRI(s) }
