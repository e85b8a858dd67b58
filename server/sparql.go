package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
	"github.com/cortexgraph/cortex/cortex/sparql/results"
)

// TimeoutHeader is the request header that sets a query's timeout (a Go
// duration such as 30s, or seconds), like the timeout parameter.
const TimeoutHeader = "Cortex-Query-Timeout"

// The result formats of the SPARQL endpoint, in the server's order of
// preference (the first is the default).
var (
	solutionFormats = []string{"json", "xml", "csv", "tsv"} // results registry names
	graphFormats    = []string{rdfio.NTriples, rdfio.Turtle, rdfio.NQuads, rdfio.RDFXML}
)

// serveSPARQL answers the SPARQL 1.1 Protocol query operation: GET with
// ?query=, POST of a form (application/x-www-form-urlencoded) with query,
// or POST of the query itself (application/sparql-query); the dataset from
// default-graph-uri and named-graph-uri (in the URL, or the form), which
// override the query's FROM and FROM NAMED; the format by Accept. Cortex
// parameters, beside the protocol's (cortexctl query sends them): base
// (the query's base IRI), default-graph (union|default|IRI, as cortexctl
// query --default-graph) and explain=true (the evaluation plan, as
// text/plain, instead of the results).
func (s *Server) serveSPARQL(w http.ResponseWriter, r *http.Request, ns string) {
	// Every answer depends on Accept, an error too (406; and which format
	// a result could take): caches must key on it.
	w.Header().Set("Vary", "Accept")
	q, err := s.readQuery(w, r)
	if err != nil {
		writeError(w, err, "")
		return
	}
	timeout, err := s.queryTimeout(q.params.Get("timeout"), r.Header.Get(TimeoutHeader))
	if err != nil {
		writeError(w, err, "")
		return
	}
	n, err := s.namespace(r.Context(), ns, accessRead)
	if err != nil {
		writeError(w, err, "")
		return
	}
	prefixes, err := s.prefixes(ns)
	if err != nil {
		writeError(w, err, "")
		return
	}
	base := q.params.Get("base")
	if api.HasScheme(base) {
		// The IRIs of the query resolve against it: it must be one
		// (a relative base is the parser's to refuse, once the query
		// has a relative IRI to resolve against it).
		if _, err := graphIRI("base", base); err != nil {
			writeError(w, err, "")
			return
		}
	}
	opts := sparql.Options{Prefixes: prefixes, DefaultGraph: eval.UnionGraph, Timeout: timeout, Base: base}
	if opts.Dataset, err = protocolDataset(q.params); err != nil {
		writeError(w, err, "")
		return
	}
	if opts.DefaultGraph, err = defaultGraph(q.params.Get("default-graph")); err != nil {
		writeError(w, err, "")
		return
	}
	release, err := s.queryTurn(r.Context())
	if err != nil {
		writeError(w, err, "")
		return
	}
	defer release() // or before, once the result is read
	if q.params.Get("explain") == "true" {
		plan, err := n.Explain(r.Context(), q.text, opts)
		if err != nil {
			caret, err := api.QueryError(q.text, err)
			writeError(w, err, caret)
			return
		}
		// The turn is let go before the plan (as large as the query) is
		// sent, each chunk within the write timeout, as a result is.
		release()
		if err := s.respond(w, r, "text/plain", func(out io.Writer) error {
			_, err := io.WriteString(out, plan)
			return err
		}); err != nil {
			writeError(w, err, "")
		}
		return
	}
	res, err := n.Query(r.Context(), q.text, opts)
	if err != nil {
		caret, err := api.QueryError(q.text, stopped(err, timeout))
		writeError(w, err, caret)
		return
	}
	defer res.Close()
	offers := solutionMediaTypes()
	if res.Kind == sparql.Graph {
		offers = rdfMediaTypes(graphFormats)
	}
	mt, err := negotiate(acceptOf(r), offers)
	if err != nil {
		writeError(w, err, "")
		return
	}
	// The result is read in full (limits.go) and the store let go before
	// anything is sent.
	err = s.respond(w, r, mt, func(out io.Writer) error {
		var err error
		switch res.Kind {
		case sparql.Boolean:
			f, _ := resultsFormat(mt)
			err = f.WriteBoolean(out, res.Boolean)
		case sparql.Graph:
			err = s.writeGraph(r.Context(), out, mt, res, prefixes)
		default:
			f, _ := resultsFormat(mt)
			err = unwritableRows(results.WriteAll(r.Context(), out, f, res.Vars, &cappedRows{Rows: res, s: s}), f)
		}
		if cerr := res.Close(); err == nil {
			err = cerr
		}
		release()
		return err
	})
	if err != nil {
		caret, err := api.QueryError(q.text, stopped(err, timeout))
		writeError(w, err, caret)
	}
}

// query is a SPARQL protocol request as read: the query text and the
// other parameters (URL and form).
type query struct {
	text   string
	params url.Values
}

// errNoUpdate refuses an update sent to the query endpoint.
var errNoUpdate = fmt.Errorf("%w: SPARQL Update is not supported (write with the graph store protocol at /ns/{ns}/data)", api.ErrUsage)

// readQuery reads the query of r and its parameters.
func (s *Server) readQuery(w http.ResponseWriter, r *http.Request) (query, error) {
	q := query{params: r.URL.Query()}
	if q.params.Has("update") {
		// Whatever the body: a query beside it does not make it run.
		return q, errNoUpdate
	}
	if r.Method == http.MethodPost {
		h, err := bodyContentType(r)
		if err != nil {
			return q, err
		}
		var ct string
		if h != "" {
			if ct, err = bodyMediaType(h); err != nil {
				return q, err
			}
		}
		body := http.MaxBytesReader(w, r.Body, s.opts.maxBodyBytes)
		switch ct {
		case "application/sparql-query":
			b, err := io.ReadAll(body)
			if err != nil {
				return q, fmt.Errorf("read query: %w", bodyError(err))
			}
			if q.params.Has("query") {
				return q, fmt.Errorf("%w: a query in the body and in the URL", api.ErrUsage)
			}
			q.text = string(b)
			return q, nil
		case "application/x-www-form-urlencoded":
			b, err := io.ReadAll(body)
			if err != nil {
				return q, fmt.Errorf("read form: %w", bodyError(err))
			}
			form, err := url.ParseQuery(string(b))
			if err != nil {
				return q, fmt.Errorf("%w: form: %v", api.ErrSyntax, err)
			}
			for k, vs := range form {
				q.params[k] = append(q.params[k], vs...)
			}
		case "application/sparql-update":
			return q, fmt.Errorf("%w: SPARQL Update is not supported (write with the graph store protocol at /ns/{ns}/data)", ErrUnsupportedMediaType)
		default:
			return q, fmt.Errorf("%w: POST a query as application/sparql-query or application/x-www-form-urlencoded, not %q", ErrUnsupportedMediaType, ct)
		}
	}
	if q.params.Has("update") { // of the form
		return q, errNoUpdate
	}
	switch qs := q.params["query"]; len(qs) {
	case 0:
		return q, fmt.Errorf("%w: no query: give ?query=, a form with query, or POST application/sparql-query", api.ErrUsage)
	case 1:
		q.text = qs[0]
	default:
		return q, fmt.Errorf("%w: %d query parameters, want one", api.ErrUsage, len(qs))
	}
	return q, nil
}

// queryTimeout returns the timeout a request asks for (param, else
// header: a duration such as 30s, or seconds), capped by the server's
// maximum; the server's default if it asks for none.
func (s *Server) queryTimeout(param, header string) (time.Duration, error) {
	v := param
	if v == "" {
		v = header
	}
	if v == "" {
		return min(s.opts.queryTimeout, s.opts.maxQueryTimeout), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil && durationSyntax.MatchString(v) {
		// A duration past the range of time.Duration (about 292
		// years): more than any maximum.
		d, err = s.opts.maxQueryTimeout, nil
	}
	if err != nil {
		f, ferr := strconv.ParseFloat(v, 64)
		if errors.Is(ferr, strconv.ErrRange) {
			ferr = nil // ±Inf: past the range of a float64
		}
		if ferr != nil || f != f {
			return 0, fmt.Errorf("%w: timeout %q: want a duration such as 30s or a number of seconds", api.ErrInvalid, v)
		}
		d = 0 // f <= 0 (-Inf too, which converts to no Duration)
		if f > 0 {
			d = time.Duration(min(f, s.opts.maxQueryTimeout.Seconds()) * float64(time.Second))
		}
	}
	if d <= 0 {
		return 0, fmt.Errorf("%w: timeout %q: want a duration of at least 1ns", api.ErrInvalid, v)
	}
	return min(d, s.opts.maxQueryTimeout), nil
}

// durationSyntax matches the durations time.ParseDuration reads that are
// not negative: one it fails to read is past its range.
var durationSyntax = regexp.MustCompile(`^\+?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+$`)

// protocolDataset returns the dataset of default-graph-uri and
// named-graph-uri, nil if neither is given. Each must be an absolute IRI.
func protocolDataset(params url.Values) (*algebra.Dataset, error) {
	dg, ng := params["default-graph-uri"], params["named-graph-uri"]
	if len(dg) == 0 && len(ng) == 0 {
		return nil, nil
	}
	d := &algebra.Dataset{Default: []quad.IRI{}, Named: []quad.IRI{}}
	for _, p := range []struct {
		name string
		vals []string
		to   *[]quad.IRI
	}{{"default-graph-uri", dg, &d.Default}, {"named-graph-uri", ng, &d.Named}} {
		for _, v := range p.vals {
			iri, err := graphIRI(p.name, v)
			if err != nil {
				return nil, err
			}
			*p.to = append(*p.to, iri)
		}
	}
	return d, nil
}

// defaultGraph reads the Cortex parameter default-graph: union (or
// absent: the default graph is the RDF merge of every graph), default (the
// namespace's own default graph) or a graph IRI, as cortexctl query
// --default-graph takes it. default-graph-uri, if given, overrides it.
func defaultGraph(v string) (string, error) {
	switch v {
	case "", eval.UnionGraph:
		return eval.UnionGraph, nil
	case eval.OwnDefaultGraph:
		return v, nil
	}
	iri, err := graphIRI("default-graph", v)
	return string(iri), err
}

// graphIRI checks that v, the value of parameter name, is an absolute IRI.
func graphIRI(name, v string) (quad.IRI, error) {
	if err := cortex.CheckIRI(v); err != nil {
		return "", fmt.Errorf("%w: %s: %v", api.ErrInvalid, name, err)
	}
	if !api.HasScheme(v) {
		return "", fmt.Errorf("%w: %s %q is not an absolute IRI", api.ErrInvalid, name, v)
	}
	return quad.IRI(v), nil
}

// stopped says that a query was stopped by its timeout.
func stopped(err error, timeout time.Duration) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("timed out after %s: %w", timeout, err)
	}
	return err
}

// solutionMediaTypes returns the media types of solutionFormats.
func solutionMediaTypes() []string {
	out := make([]string, 0, len(solutionFormats))
	for _, name := range solutionFormats {
		f, err := results.Lookup(name)
		if err != nil {
			panic(fmt.Sprintf("server: results format %s is not registered", name)) // a build without it
		}
		out = append(out, f.MediaType)
	}
	return out
}

// resultsFormat returns the results format of media type mt.
func resultsFormat(mt string) (results.Format, error) {
	for _, name := range solutionFormats {
		if f, err := results.Lookup(name); err == nil && f.MediaType == mt {
			return f, nil
		}
	}
	return results.Format{}, fmt.Errorf("%w: %s", ErrNotAcceptable, mt)
}

// rdfMediaTypes returns the preferred media type of each rdfio format.
func rdfMediaTypes(names []string) []string {
	out := make([]string, 0, len(names))
	for _, name := range names {
		f, err := rdfio.Lookup(name)
		if err != nil {
			panic(fmt.Sprintf("server: rdf format %s is not registered", name))
		}
		out = append(out, f.MediaTypes[0])
	}
	return out
}

// writeGraph writes the triples of a CONSTRUCT or DESCRIBE result, at most
// the limit of results.
func (s *Server) writeGraph(ctx context.Context, w io.Writer, mt string, res *sparql.Result, prefixes map[string]string) error {
	f, err := rdfio.ByMediaType(mt)
	if err != nil {
		return err
	}
	enc, err := rdfio.NewEncoder(w, f.Name, rdfio.EncodeOptions{Prefixes: prefixes})
	if err != nil {
		return err
	}
	count := quadCounter{s: s}
	for res.Next(ctx) {
		if err := count.add(); err != nil {
			return err
		}
		if err := enc.Encode(res.Quad()); err != nil {
			return unwritable(err, f, graphFormats)
		}
	}
	if err := res.Err(); err != nil {
		return err
	}
	return enc.Close()
}

// unwritable returns err, an error of an encoder of format f, as
// ErrNotAcceptable when f cannot carry what the request asked for (RDF/XML
// and a predicate it cannot split into a namespace and an XML name): the
// client may ask for another of offers.
func unwritable(err error, f rdfio.Format, offers []string) error {
	if f.Name != rdfio.RDFXML || !errors.Is(err, rdfio.ErrInvalidQuad) && !errors.Is(err, rdfio.ErrInvalidTerm) {
		return err
	}
	var others []string
	for _, mt := range rdfMediaTypes(offers) {
		if mt != f.MediaTypes[0] {
			others = append(others, mt)
		}
	}
	return fmt.Errorf("%w: the result cannot be written as %s (ask for %s): %v", ErrNotAcceptable, f.MediaTypes[0], strings.Join(others, ", "), err)
}

// unwritableRows returns err, an error of a results writer of format f, as
// ErrNotAcceptable when f cannot carry a value of the result (XML and a
// literal holding a character XML 1.0 forbids, such as U+0001): the client
// may ask for another format, as for RDF/XML (unwritable).
func unwritableRows(err error, f results.Format) error {
	if f.Name != "xml" || !errors.Is(err, results.ErrInvalidTerm) {
		return err
	}
	var others []string
	for _, mt := range solutionMediaTypes() {
		if mt != f.MediaType {
			others = append(others, mt)
		}
	}
	return fmt.Errorf("%w: the result cannot be written as %s (ask for %s): %v", ErrNotAcceptable, f.MediaType, strings.Join(others, ", "), err)
}

// ErrorTrailerHeader is the request header by which a client says that it
// reads an error met after a response has started from the response's
// trailers (Cortex-Error-Kind, Cortex-Exit-Code, Cortex-Error). Package
// client sends it. This server never needs it: it reads a result in full
// before it sends any of it, so every error is answered as an error.
const ErrorTrailerHeader = "Cortex-Error-Trailer"
