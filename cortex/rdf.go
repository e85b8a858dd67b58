package cortex

import (
	"context"
	"fmt"
	"io"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio"
)

// RDFImportOptions control ImportRDF.
type RDFImportOptions struct {
	Format   string     // rdfio format name (see rdfio.Names); required
	File     string     // name for error messages and the default base IRI
	Base     string     // base IRI for relative IRIs; default: the file:// URL of File
	Graph    quad.Value // see ImportOptions.Graph
	ImportID string     // scopes blank nodes; default: a fresh NewImportID
	Progress func(committed int64)
}

// ImportRDF parses r in the given format and imports it with Import. Blank
// nodes are prefixed with the import id, so blank nodes of two imports never
// merge; re-running a failed import with the same ImportID converges to the
// same graph. Syntax errors are *rdfio.SyntaxError values
// (file:line:column: message) wrapped in an *ImportError.
func (n *Namespace) ImportRDF(ctx context.Context, r io.Reader, opts RDFImportOptions) (ImportResult, error) {
	if opts.ImportID == "" {
		opts.ImportID = NewImportID()
	}
	dec, err := rdfio.NewDecoder(r, opts.Format, rdfio.DecodeOptions{
		Base: opts.Base, File: opts.File, BlankPrefix: "i" + opts.ImportID + "_",
	})
	if err != nil {
		return ImportResult{}, err
	}
	defer dec.Close()
	res, err := n.Import(ctx, dec, ImportOptions{Graph: opts.Graph, Progress: opts.Progress})
	if ie, ok := err.(*ImportError); ok {
		ie.ImportID = opts.ImportID
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
// to them writes the union of their triples. It returns the number of quads
// written.
func (n *Namespace) Export(ctx context.Context, w io.Writer, format string, opts ExportOptions) (int64, error) {
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
