package server

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/internal/pathtext"
)

// gspFormats are the formats of the graph store, in the server's order of
// preference for GET; PUT and POST read those rdfio reads (not RDF/XML).
var gspFormats = []string{rdfio.Turtle, rdfio.NTriples, rdfio.NQuads, rdfio.RDFXML}

// graphTarget is the graph a graph store request names: ?graph=IRI or
// ?default (graph nil).
type graphTarget struct {
	graph quad.Value
	scope cortex.Scope
	// newGraph is set for a POST to the graph store itself, which names
	// no graph: graph is a new one (newGraphIRI), whose IRI the answer
	// gives.
	newGraph bool
}

// newGraphIRI returns the IRI of a graph that a POST to the graph store
// itself creates: a random UUID URN (RFC 9562, version 4), which no
// other graph has.
func newGraphIRI() (quad.IRI, error) {
	var u [16]byte
	if _, err := rand.Read(u[:]); err != nil {
		return "", fmt.Errorf("new graph: %w", err)
	}
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // variant 10
	return quad.IRI(fmt.Sprintf("urn:uuid:%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])), nil
}

func (t graphTarget) String() string {
	if t.graph == nil {
		return "the default graph"
	}
	return "graph " + rdfio.FormatTerm(t.graph)
}

// readTarget reads ?graph=IRI or ?default: exactly one, but for a POST,
// which may name neither: it adds to a new graph (newGraph set).
func readTarget(r *http.Request) (graphTarget, error) {
	q := r.URL.Query()
	gs, dflt := q["graph"], q.Has("default")
	switch {
	case len(gs) == 0 && !dflt && r.Method == http.MethodPost:
		iri, err := newGraphIRI()
		if err != nil {
			return graphTarget{}, err
		}
		return graphTarget{graph: iri, scope: cortex.OneGraph, newGraph: true}, nil
	case len(gs) == 0 && !dflt:
		return graphTarget{}, fmt.Errorf("%w: name the graph: ?graph=IRI or ?default (a POST without either adds to a new graph)", api.ErrUsage)
	case len(gs) > 0 && dflt, len(gs) > 1:
		return graphTarget{}, fmt.Errorf("%w: name one graph: ?graph=IRI or ?default", api.ErrUsage)
	case dflt:
		return graphTarget{scope: cortex.DefaultGraph}, nil
	}
	iri, err := graphIRI("graph", gs[0])
	if err != nil {
		return graphTarget{}, err
	}
	return graphTarget{graph: iri, scope: cortex.OneGraph}, nil
}

// GraphHeader is the response header of a POST to the graph store itself
// (/ns/{ns}/data, no ?graph or ?default) that gives the IRI of the graph
// it created; Location gives the URL of that graph here.
const GraphHeader = "Cortex-Graph"

// serveData answers the SPARQL 1.1 Graph Store HTTP Protocol: GET exports
// the graph (by Accept: Turtle, N-Triples, N-Quads, RDF/XML), PUT replaces it, POST
// adds to it, DELETE removes it. A POST that names no graph adds to a new
// one, a urn:uuid: IRI, and answers 201 with Location (the URL of the new
// graph here, /ns/{ns}/data?graph=IRI) and the Cortex-Graph header (its
// IRI). A PUT that removes quads of the graph (one that replaces it with
// other content; blank nodes are new at each upload) deletes them, and
// needs role admin, as DELETE does; one that only adds needs write. PUT and POST read the body (Turtle,
// N-Triples or N-Quads by Content-Type, or for a POST multipart/form-data
// of those, see readParts; every triple or quad goes into the target
// graph) in full before writing it in one atomic step: a syntax
// error (400, with line and column) or an invalid quad writes nothing.
// Relative IRIs in a body resolve as readBody says. A graph exists while
// it holds a triple: a PUT or POST that creates a graph (or fills the
// default graph, which held none) is 201, one of a
// body with no triples to a graph that does not exist creates none and
// is 204 (no Location). PUT and POST create the namespace if needed; GET
// and DELETE of a namespace, or a named graph, that does not exist are
// 404.
func (s *Server) serveData(w http.ResponseWriter, r *http.Request, ns string) {
	t, err := readTarget(r)
	if err != nil {
		writeError(w, err, "")
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		w.Header().Set("Vary", "Accept") // on an error (406) too: see serveSPARQL
		err = s.getGraph(w, r, ns, t)
	case http.MethodPut, http.MethodPost:
		err = s.putGraph(w, r, ns, t, r.Method == http.MethodPut)
	case http.MethodDelete:
		err = s.deleteGraph(w, r, ns, t)
	}
	if err != nil {
		writeError(w, err, "")
	}
}

// errStop ends an EachQuad early.
var errStop = errors.New("stop")

func (s *Server) getGraph(w http.ResponseWriter, r *http.Request, ns string, t graphTarget) error {
	mt, err := negotiate(acceptOf(r), rdfMediaTypes(gspFormats))
	if err != nil {
		return err
	}
	n, err := s.namespace(r.Context(), ns, accessRead)
	if err != nil {
		return err
	}
	if err := api.CheckGraph(r.Context(), n, ns, t.graph); err != nil {
		return err
	}
	f, err := rdfio.ByMediaType(mt)
	if err != nil {
		return err
	}
	prefixes, err := s.prefixes(ns)
	if err != nil {
		return err
	}
	release, err := s.queryTurn(r.Context())
	if err != nil {
		return err
	}
	defer release() // or before, once the graph is read
	// The graph is read in full (limits.go) and the store let go before
	// anything is sent.
	return s.respond(w, r, mt, func(out io.Writer) error {
		defer release()
		enc, err := rdfio.NewEncoder(out, f.Name, rdfio.EncodeOptions{Prefixes: prefixes})
		if err != nil {
			return err
		}
		count := quadCounter{s: s}
		err = n.EachQuad(r.Context(), cortex.Pattern{Graph: t.graph, Scope: t.scope}, func(q quad.Quad) error {
			if err := count.add(); err != nil {
				// A GET cannot be narrowed: the export route reads
				// the graph whole.
				export := "default"
				if iri, ok := t.graph.(quad.IRI); ok {
					export = url.QueryEscape(string(iri))
				}
				return fmt.Errorf("%w: more than %d triples (the server's limit of results per response): read it with GET /ns/%s/export?graph=%s, which is not bounded",
					ErrTooManyResults, s.opts.maxResults, ns, export)
			}
			return unwritable(enc.Encode(q), f, gspFormats)
		})
		if err != nil {
			return fmt.Errorf("export %s: %w", t, err)
		}
		if count.n == 0 && t.graph != nil {
			// Deleted since CheckGraph, while this request waited for
			// its turn: a graph exists while it holds a triple.
			return fmt.Errorf("%w: %s in namespace %s", api.ErrNotFound, t, ns)
		}
		return enc.Close()
	})
}

// readBody parses the body of a PUT or POST into quads of graph t.
// Relative IRIs in it resolve against the IRI of t (for a POST that
// creates a graph, the new graph's IRI, so that <> names the graph
// created), unless the body sets its own base (@base); the default graph
// has no IRI, so a relative IRI in a body for it, with no @base, is a
// syntax error. A POST may send multipart/form-data (readParts).
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, t graphTarget) ([]quad.Quad, error) {
	ct, err := bodyContentType(r)
	if err != nil {
		return nil, err
	}
	if ct == "" {
		return nil, fmt.Errorf("%w: no Content-Type: send %s", ErrUnsupportedMediaType, gspReadTypes(r.Method))
	}
	mt, err := bodyMediaType(ct)
	if err != nil {
		return nil, err
	}
	body := &limitedBody{r: http.MaxBytesReader(w, r.Body, s.opts.maxBodyBytes)}
	if mt == "multipart/form-data" && r.Method == http.MethodPost {
		_, params, _ := mime.ParseMediaType(ct) // parsed by bodyMediaType
		return s.readParts(body, params["boundary"], t)
	}
	f, err := rdfio.ByMediaType(mt)
	if err == nil {
		err = f.CheckReadable()
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %q: send %s", ErrUnsupportedMediaType, ct, gspReadTypes(r.Method))
	}
	return s.decodeBody(body, body, f, "body", t, nil)
}

// gspReadTypes names the media types a Graph Store request of method
// reads.
func gspReadTypes(method string) string {
	if method == http.MethodPost {
		return "text/turtle, application/n-triples, application/n-quads, or multipart/form-data of those"
	}
	return "text/turtle, application/n-triples or application/n-quads"
}

// readParts reads a multipart/form-data body, the documents of a web
// form's file upload widget, into quads of graph t: the RDF merge of the
// documents (Graph Store Protocol 5.5), so a blank node label of one part
// is not the same node as that label in another. Each part is read by its
// Content-Type or, if it has none (or application/octet-stream, which a
// browser sends for a file type it does not know), by the extension of
// its file name. Any error, of any part, writes nothing.
func (s *Server) readParts(body *limitedBody, boundary string, t graphTarget) ([]quad.Quad, error) {
	if boundary == "" {
		return nil, fmt.Errorf("%s: %w: multipart/form-data without a boundary parameter (nothing was written)", t, api.ErrSyntax)
	}
	mr := multipart.NewReader(body, boundary)
	var qs []quad.Quad
	for i := 1; ; i++ {
		part, err := mr.NextRawPart()
		if body.err != nil {
			return nil, fmt.Errorf("%s: %w (nothing was written)", t, body.err)
		}
		if err == io.EOF {
			return qs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w: multipart body: %v (nothing was written)", t, api.ErrSyntax, err)
		}
		name := fmt.Sprintf("body part %d", i)
		if fn := part.FileName(); fn != "" {
			name += " (" + pathtext.Quote(fn) + ")" // the client's text: quoted unless plain
		}
		f, err := partFormat(part)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v: send text/turtle, application/n-triples or application/n-quads (nothing was written)", ErrUnsupportedMediaType, name, err)
		}
		if qs, err = s.decodeBody(part, body, f, name, t, qs); err != nil {
			return nil, err
		}
	}
}

// partFormat returns the format of a multipart part: by its Content-Type,
// else by the extension of its file name.
func partFormat(part *multipart.Part) (rdfio.Format, error) {
	ct := part.Header.Get("Content-Type")
	mt := ""
	if ct != "" {
		var err error
		if mt, err = bodyMediaType(ct); err != nil {
			// Said once, by readParts.
			return rdfio.Format{}, errors.New(strings.TrimPrefix(err.Error(), ErrUnsupportedMediaType.Error()+": "))
		}
	}
	var (
		f   rdfio.Format
		err error
	)
	switch {
	case mt != "" && mt != "application/octet-stream":
		if f, err = rdfio.ByMediaType(mt); err != nil {
			return f, fmt.Errorf("Content-Type %q", ct)
		}
	case part.FileName() != "":
		if f, err = rdfio.ByExtension(part.FileName()); err != nil {
			return f, fmt.Errorf("no Content-Type, and no format known by the file name's extension")
		}
	default:
		return f, fmt.Errorf("no Content-Type and no file name")
	}
	if err := f.CheckReadable(); err != nil {
		return f, err
	}
	return f, nil
}

// decodeBody parses r, the document name (the body, or a part of it) in
// format f, into quads of graph t appended to qs. body is the request's
// body, which r reads, to tell a body cut by its limit.
func (s *Server) decodeBody(r io.Reader, body *limitedBody, f rdfio.Format, name string, t graphTarget, qs []quad.Quad) ([]quad.Quad, error) {
	var base string
	if iri, ok := t.graph.(quad.IRI); ok {
		base = string(iri)
	}
	// No File: rdfio would make the file:// URL of its name the base.
	dec, err := rdfio.NewDecoder(r, f.Name, rdfio.DecodeOptions{
		Base: base, BlankPrefix: "i" + cortex.NewImportID() + "_",
	})
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	for {
		q, err := dec.Next()
		if body.err != nil {
			// The body could not be read to its end (its limit, its
			// timeout, cut short): that is the error, whatever the
			// parser made of the text it got (an unterminated literal
			// ...).
			return nil, fmt.Errorf("%s: %w (nothing was written)", t, body.err)
		}
		if err == io.EOF {
			return qs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w (nothing was written)", t, inBody(err, name))
		}
		if int64(len(qs)) == s.opts.maxResults {
			// A body is written in one atomic step, held in memory and
			// written while the namespace's other writers wait: bounded
			// like a response (a few MB of Turtle collections expand to
			// millions of quads).
			return nil, fmt.Errorf("%s: %w: more than %d triples (the server's limit of results per request; nothing was written): "+
				"split the body, or load it with POST /ns/NS/import (atomic per segment, not as a whole)", t, ErrTooLarge, s.opts.maxResults)
		}
		q.Label = t.graph
		qs = append(qs, q)
	}
}

func (s *Server) putGraph(w http.ResponseWriter, r *http.Request, ns string, t graphTarget, replace bool) error {
	qs, err := s.readBody(w, r, t)
	if err != nil {
		return err
	}
	var n *cortex.Namespace
	undo := func() {}
	if len(qs) == 0 {
		// A body without a triple writes nothing, and needs no namespace:
		// one that does not exist holds no graph, and is not created.
		n, err = s.namespace(r.Context(), ns, accessWrite)
		if errors.Is(err, cortex.ErrNoNamespace) {
			w.WriteHeader(http.StatusNoContent)
			return nil
		}
	} else {
		// A namespace created for the write is deleted again if the write
		// fails (the client went away, say) and nothing else used it.
		n, undo, err = s.namespaceForWrite(r.Context(), ns)
	}
	if err != nil {
		return err
	}
	existed := false
	err = n.Update(r.Context(), func(tx *cortex.Tx) error {
		var old []quad.Quad
		err := n.EachQuad(r.Context(), cortex.Pattern{Graph: t.graph, Scope: t.scope}, func(q quad.Quad) error {
			existed = true
			if !replace {
				return errStop
			}
			old = append(old, q)
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			return err
		}
		if n := removes(old, qs); n > 0 {
			// Replacing deletes: as DELETE, it needs admin.
			what := fmt.Sprintf("PUT of %s, which removes %d of its quads,", t, n)
			if err := allow(r.Context(), ns, RoleAdmin, what); err != nil {
				return err
			}
		}
		tx.Remove(old...)
		tx.Add(qs...)
		return nil
	})
	if err != nil {
		undo()
		return fmt.Errorf("%s: %w (nothing was written)", t, err)
	}
	if len(qs) == 0 && !existed {
		// A graph exists while it holds a triple: a body with none
		// created nothing, and a 201 would name a graph that GET finds
		// not there.
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	if t.newGraph {
		// The graph store protocol (5.5): 201 with the new graph in
		// Location, as the URL that names it here.
		w.Header().Set("Location", "/ns/"+ns+"/data?graph="+url.QueryEscape(string(t.graph.(quad.IRI))))
		w.Header().Set(GraphHeader, string(t.graph.(quad.IRI)))
		w.WriteHeader(http.StatusCreated)
		return nil
	}
	if !existed {
		// New RDF graph content, in a named graph or in the default graph
		// that held none (Graph Store Protocol 5.3).
		w.WriteHeader(http.StatusCreated)
		return nil
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// removes returns how many of the quads old (of one graph) are not among
// those of qs (of the same graph): the quads a PUT of qs removes.
func removes(old, qs []quad.Quad) int {
	if len(old) == 0 {
		return 0
	}
	key := func(q quad.Quad) string {
		return rdfio.FormatTerm(q.Subject) + " " + rdfio.FormatTerm(q.Predicate) + " " + rdfio.FormatTerm(q.Object)
	}
	kept := make(map[string]struct{}, len(qs))
	for _, q := range qs {
		kept[key(q)] = struct{}{}
	}
	n := 0
	for _, q := range old {
		if _, ok := kept[key(q)]; !ok {
			n++
		}
	}
	return n
}

func (s *Server) deleteGraph(w http.ResponseWriter, r *http.Request, ns string, t graphTarget) error {
	n, err := s.namespace(r.Context(), ns, accessRead)
	if err != nil {
		return err
	}
	found := false
	err = n.Update(r.Context(), func(tx *cortex.Tx) error {
		return n.EachQuad(r.Context(), cortex.Pattern{Graph: t.graph, Scope: t.scope}, func(q quad.Quad) error {
			found = true
			tx.Remove(q)
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("delete %s: %w", t, err)
	}
	if !found && t.graph != nil {
		return fmt.Errorf("%w: %s in namespace %s", api.ErrNotFound, t, ns)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// inBody names the request body (or its part: name) in err, a syntax
// error of a body's decoder: "body:2:9: ..." (the decoder is given no
// file name, see decodeBody).
func inBody(err error, name string) error {
	var se *rdfio.SyntaxError
	if !errors.As(err, &se) || se.File != "" {
		return err
	}
	named := *se
	named.File = name
	return &named
}

// limitedBody reads a body through its http.MaxBytesReader and keeps the
// first error of a read (as bodyError maps it: past the limit, cut short,
// or ErrRequestTimeout), which a parser may report as the end of its input
// (an unterminated literal, IRI ...) or as its own error (a multipart
// body's syntax) rather than return.
type limitedBody struct {
	r   io.Reader
	err error
}

func (b *limitedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF && b.err == nil {
		b.err = bodyError(err)
	}
	return n, err
}
