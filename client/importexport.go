package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/server"
)

// ImportOptions configure Import: the fields of
// cortex.RDFImportOptions, sent to the server.
type ImportOptions struct {
	Format string // rdfio format name (or its extension); required
	File   string // name in error messages ("" : "body")
	Base   string // base IRI; "": the file:// URL of File if it is an absolute path, else an IRI of the request's own
	Graph  string // graph IRI every quad goes into; "": triples to the default graph, N-Quads keep theirs
	// DefaultGraph puts every quad into the default graph (N-Quads lose
	// their graphs); Graph must then be "".
	DefaultGraph bool
	ImportID     string // blank-node scope; "": the resumed import's, else a fresh one
	// Resume, if set, records the import so that the same source, imported
	// again after an interruption, resumes it (cortex.RDFImportOptions.Resume);
	// with another target (Graph, DefaultGraph or neither) than the
	// interrupted import's, the server refuses it before it starts: an
	// *Error matching api.ErrInvalid.
	Resume *cortex.ImportSource
	// OnStart, if set, is called once the server has chosen the import id,
	// before anything is written.
	OnStart func(cortex.ImportStart)
}

// Import streams r (RDF in opts.Format) into the client's namespace on the
// server (POST /ns/{ns}/import), which creates the namespace if needed.
// It has cortex.Namespace.ImportRDF's rules: what is written at once,
// what a syntax error leaves behind (the error says how many quads were
// committed) and how an import resumes. An error the server answers is an
// *Error (a syntax error matches api.ErrSyntax). r is read until its end,
// or until the server answers an error.
func (c *Client) Import(ctx context.Context, r io.Reader, opts ImportOptions) (cortex.ImportResult, error) {
	q := url.Values{"format": {opts.Format}}
	for k, v := range map[string]string{"file": opts.File, "base": opts.Base, "graph": opts.Graph, "import-id": opts.ImportID} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if opts.DefaultGraph {
		if opts.Graph != "" {
			return cortex.ImportResult{}, fmt.Errorf("%w: import: a graph and the default graph: give one", api.ErrInvalid)
		}
		q.Set("graph", "default")
	}
	if s := opts.Resume; s != nil {
		q.Set("source", s.Name)
		q.Set("version", s.Version)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	body := &stoppableReader{r: r}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url("import")+"?"+q.Encode(), body)
	if err != nil {
		return cortex.ImportResult{}, fmt.Errorf("import: %w", err)
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := c.do(req)
	if err != nil {
		return cortex.ImportResult{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body.stop()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			return cortex.ImportResult{}, c.connError(ctx, err)
		}
		return cortex.ImportResult{}, httpError(resp, data)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != server.ImportMediaType {
		return cortex.ImportResult{}, fmt.Errorf("import: the server answered %q, not %s", mt, server.ImportMediaType)
	}
	dec := json.NewDecoder(bufio.NewReader(resp.Body))
	for {
		var ev api.ImportEvent
		if err := dec.Decode(&ev); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			if ctx.Err() != nil {
				return cortex.ImportResult{}, c.connError(ctx, err)
			}
			return cortex.ImportResult{}, fmt.Errorf("%w: server %s: the import's answer ended before its outcome: %v", api.ErrUnavailable, c.target, err)
		}
		switch ev.Event {
		case "started":
			if opts.OnStart != nil {
				st := cortex.ImportStart{ID: ev.ImportID, Resumed: ev.Resumed, Replaced: ev.Replaced, Kept: ev.Kept}
				if ev.Started != nil {
					st.Started = *ev.Started
				}
				opts.OnStart(st)
			}
		case "done":
			return cortex.ImportResult{Read: ev.Read, Committed: ev.Committed, Chunks: ev.Chunks, ImportID: ev.ImportID}, nil
		case "error":
			body.stop()
			e := ev.Error
			if e == nil {
				e = &api.EventError{Message: "the import failed", ExitCode: api.ExitInternal, Kind: api.KindInternal}
			}
			return cortex.ImportResult{ImportID: ev.ImportID}, &Error{Code: resp.StatusCode, Message: e.Message, ExitCode: e.ExitCode, Kind: e.Kind, Names: e.Errors}
		}
	}
}

// stoppableReader is a request body that ends (io.EOF) once stopped: the
// server answered an error and reads no more of it.
type stoppableReader struct {
	r       io.Reader
	stopped atomic.Bool
}

func (s *stoppableReader) Read(p []byte) (int, error) {
	if s.stopped.Load() {
		return 0, io.EOF
	}
	return s.r.Read(p)
}

func (s *stoppableReader) stop() { s.stopped.Store(true) }

// ExportOptions configure Export.
type ExportOptions struct {
	Format string // rdfio format name or extension: nquads or nq (""), turtle or ttl, ntriples or nt
	// Graph selects the quads: "" every graph, "default" the default
	// graph, else a graph IRI (one that holds no quad does not exist:
	// an error matching api.ErrNotFound).
	Graph string
}

// Export writes the quads of the client's namespace (or of one graph) to
// w in opts.Format, as cortex.Namespace.Export does (GET /ns/{ns}/export),
// and returns their number. The server produces the export in full
// before it sends it: an error is returned before anything is written to
// w; a connection lost while it is sent leaves w with part of it and
// returns an error matching api.ErrUnavailable.
func (c *Client) Export(ctx context.Context, w io.Writer, opts ExportOptions) (int64, error) {
	name := opts.Format
	if name == "" {
		name = rdfio.NQuads
	}
	f, err := rdfio.Lookup(name)
	if err != nil {
		var xerr error
		if f, xerr = rdfio.ByExtension("x." + name); xerr != nil || strings.ContainsAny(name, "./") {
			return 0, fmt.Errorf("export: %w", err)
		}
	}
	u := c.url("export")
	if opts.Graph != "" {
		u += "?" + url.Values{"graph": {opts.Graph}}.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	req.Header.Set("Accept", f.MediaTypes[0])
	resp, err := c.do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			return 0, c.connError(ctx, err)
		}
		return 0, httpError(resp, data)
	}
	n, err := strconv.ParseInt(resp.Header.Get(server.QuadsHeader), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("export: the server's answer has no %s header: %w", server.QuadsHeader, err)
	}
	if _, err := io.Copy(w, resp.Body); err != nil {
		if ctx.Err() != nil {
			return 0, c.connError(ctx, err)
		}
		return 0, fmt.Errorf("export: %w", unavailable(c.target, err))
	}
	return n, nil
}
