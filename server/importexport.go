package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
)

// The import and export routes are cortexctl import and export over HTTP:
// the same formats, graph rules, blank-node scoping and resumption as
// cortex.Namespace.ImportRDF and Export, streamed.

// ImportMediaType is the media type of the answer of an import: one JSON
// api.ImportEvent a line.
const ImportMediaType = "application/x-ndjson"

// QuadsHeader is the response header of an export that gives the number
// of quads it holds.
const QuadsHeader = "Cortex-Quads"

// importDrainBytes is how much of the rest of an import's body the server
// reads after the import failed, so that the client reads the error
// before the connection closes.
const importDrainBytes = 8 << 20

// importParams are the query parameters of POST /ns/{ns}/import.
type importParams struct {
	opts cortex.RDFImportOptions
}

// readImportParams reads and checks the parameters of an import: format
// (required: an rdfio format name or its extension, e.g. turtle or ttl),
// file (the name in error messages), base (default: the file:// URL of
// an absolute file, else none: a relative IRI is a syntax error), graph (an
// absolute IRI, or "default" for the default graph: every quad goes there;
// none: triples go to the default graph, N-Quads keep their graphs), import-id, and source and version
// together (cortex.ImportSource: the import is recorded and resumable).
func readImportParams(r *http.Request) (importParams, error) {
	q := r.URL.Query()
	for k, vs := range q {
		switch k {
		case "format", "file", "base", "graph", "import-id", "source", "version":
			if len(vs) > 1 {
				return importParams{}, fmt.Errorf("%w: import: %s given %d times", api.ErrUsage, k, len(vs))
			}
		default:
			return importParams{}, fmt.Errorf("%w: import: unknown parameter %q (format, file, base, graph, import-id, source, version)", api.ErrUsage, k)
		}
	}
	var p importParams
	name := q.Get("format")
	if name == "" {
		return p, fmt.Errorf("%w: import: no format: give ?format=turtle|ntriples|nquads", api.ErrUsage)
	}
	f, err := rdfio.Lookup(name)
	if err != nil {
		f, err = rdfio.ByExtension("x." + name)
	}
	if err == nil {
		err = f.CheckReadable()
	}
	if err != nil {
		return p, fmt.Errorf("%w: import: format %q: want turtle (ttl), ntriples (nt) or nquads (nq)", api.ErrUsage, name)
	}
	p.opts.Format = f.Name
	p.opts.File = q.Get("file")
	if p.opts.File == "" {
		p.opts.File = "body"
	}
	p.opts.Base = q.Get("base")
	// A file name that is not an absolute path (or none: the body) is no
	// base: a relative IRI is then a syntax error, as in a body with no
	// base anywhere else.
	p.opts.NoFileBase = !isAbs(p.opts.File)
	if p.opts.Base != "" {
		if _, err := graphIRI("base", p.opts.Base); err != nil {
			return p, err
		}
	}
	if g := q.Get("graph"); g == "default" {
		p.opts.DefaultGraph = true
	} else if g != "" {
		iri, err := graphIRI("graph", g)
		if err != nil {
			return p, err
		}
		p.opts.Graph = iri
	}
	if id := q.Get("import-id"); id != "" {
		if err := cortex.CheckImportID(id); err != nil {
			return p, fmt.Errorf("import: %w", err)
		}
		p.opts.ImportID = id
	}
	src, ver := q.Get("source"), q.Get("version")
	if (src == "") != (ver == "") {
		return p, fmt.Errorf("%w: import: give source and version together (or neither)", api.ErrUsage)
	}
	if src != "" {
		p.opts.Resume = &cortex.ImportSource{Name: src, Version: ver}
	}
	return p, nil
}

func isAbs(path string) bool { return len(path) > 0 && path[0] == '/' }

// serveImport streams the body of POST /ns/{ns}/import into the
// namespace's RDF import (cortex.Namespace.ImportRDF), creating the
// namespace if needed (and deleting it again if the import fails before
// it writes anything: see Server.namespaceForWrite). The body is not bounded by the body size limit
// (the import writes in segments and chunks as it reads), and the body
// timeout bounds each wait for the client's next bytes, not the whole
// body.
//
// A request refused before the import starts (parameters, namespace,
// token) is answered with its HTTP error. Once the import id is chosen
// the answer is 200, application/x-ndjson: a "started" event, sent at
// once (the client reads it while it still sends the body), then "done",
// or "error" with the error, which says, as cortexctl import's does, how
// many quads were committed before it.
func (s *Server) serveImport(w http.ResponseWriter, r *http.Request, ns string) {
	p, err := readImportParams(r)
	if err != nil {
		writeError(w, err, "")
		return
	}
	n, undo, err := s.namespaceForWrite(r.Context(), ns)
	if err != nil {
		writeError(w, err, "")
		return
	}
	if tb, ok := r.Body.(*timedBody); ok {
		tb.idle = true
	}
	rc := http.NewResponseController(w)
	_ = rc.EnableFullDuplex() // HTTP/2 is full duplex: not supported there
	enc := json.NewEncoder(w)
	started := false
	send := func(ev api.ImportEvent) {
		if !started {
			w.Header().Set("Content-Type", ImportMediaType)
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusOK)
			started = true
		}
		_ = rc.SetWriteDeadline(time.Now().Add(s.opts.writeTimeout))
		if err := enc.Encode(ev); err != nil {
			s.opts.logger.Printf("import into %s: answer: %v", ns, err)
		}
		_ = rc.Flush()
	}
	p.opts.OnStart = func(st cortex.ImportStart) {
		ev := api.ImportEvent{Event: "started", ImportID: st.ID, Resumed: st.Resumed, Replaced: st.Replaced, Kept: st.Kept}
		if st.Resumed {
			ev.Started = &st.Started
		}
		send(ev)
	}
	res, err := n.ImportRDF(r.Context(), r.Body, p.opts)
	if err != nil {
		undo() // a namespace created for the import, if still empty, is deleted
		if !started {
			writeError(w, err, "")
		} else {
			send(api.ImportEvent{Event: "error", ImportID: res.ImportID, Error: api.EventErrorOf(err)})
		}
		// Read on a little, so that the client, which stops sending once
		// it reads the error, reads it before the connection closes.
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, importDrainBytes))
		return
	}
	send(api.ImportEvent{Event: "done", ImportID: res.ImportID, Read: res.Read, Committed: res.Committed, Chunks: res.Chunks})
}

// exportParams are the query parameters of GET /ns/{ns}/export: graph
// (absent: every graph; "default": the default graph; else an absolute
// graph IRI).
func exportParams(r *http.Request) (quad.Value, cortex.Scope, error) {
	q := r.URL.Query()
	for k, vs := range q {
		if k != "graph" {
			return nil, 0, fmt.Errorf("%w: export: unknown parameter %q (graph)", api.ErrUsage, k)
		}
		if len(vs) > 1 {
			return nil, 0, fmt.Errorf("%w: export: graph given %d times", api.ErrUsage, len(vs))
		}
	}
	switch g := q.Get("graph"); g {
	case "":
		return nil, cortex.AllGraphs, nil
	case "default":
		return nil, cortex.DefaultGraph, nil
	default:
		iri, err := graphIRI("graph", g)
		if err != nil {
			return nil, 0, err
		}
		return iri, cortex.OneGraph, nil
	}
}

// serveExport answers GET /ns/{ns}/export: the namespace's quads (or one
// graph's) in the format of the Accept header (N-Quads, Turtle or
// N-Triples; no header: N-Quads), without prefixes, as
// cortex.Namespace.Export writes them: N-Triples and Turtle carry no
// graph names, several graphs' triples are written without the graphs (a
// triple once per graph that holds it). A named
// graph that holds nothing does not exist: 404, kind not_found (the
// default graph, or a namespace, that holds nothing is an empty export).
// The export is
// written in full into a spool (limits.go) before it is sent, its number
// of quads in the Cortex-Quads header; it holds a query turn
// (WithMaxQueries) meanwhile, and is not bounded by the limit of results
// per response: it is a copy of the data, not a query's answer.
func (s *Server) serveExport(w http.ResponseWriter, r *http.Request, ns string) {
	if err := s.export(w, r, ns); err != nil {
		writeError(w, err, "")
	}
}

// exportFormats are the formats of an export, N-Quads first.
var exportFormats = []string{rdfio.NQuads, rdfio.Turtle, rdfio.NTriples}

func (s *Server) export(w http.ResponseWriter, r *http.Request, ns string) error {
	w.Header().Set("Vary", "Accept") // on an error (406) too: see serveSPARQL
	g, scope, err := exportParams(r)
	if err != nil {
		return err
	}
	mt, err := negotiate(acceptOf(r), rdfMediaTypes(exportFormats))
	if err != nil {
		return err
	}
	f, err := rdfio.ByMediaType(mt)
	if err != nil {
		return err
	}
	n, err := s.namespace(r.Context(), ns, accessRead)
	if err != nil {
		return err
	}
	release, err := s.queryTurn(r.Context())
	if err != nil {
		return err
	}
	defer release()
	if err := api.CheckGraph(r.Context(), n, ns, g); err != nil {
		return err
	}
	var count int64
	return s.respond(w, r, mt, func(out io.Writer) error {
		defer release()
		count, err = n.Export(r.Context(), out, f.Name, cortex.ExportOptions{Graph: g, Scope: scope})
		if err != nil {
			return err
		}
		w.Header().Set(QuadsHeader, strconv.FormatInt(count, 10))
		return nil
	})
}
