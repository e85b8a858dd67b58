package server

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/namespace"
)

// nsHandler serves a request for namespace ns, whose name is valid.
type nsHandler func(w http.ResponseWriter, r *http.Request, ns string)

// routes returns the server's mux: one handler per API.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	handle := func(pattern, route string, h http.HandlerFunc) {
		mux.Handle(pattern, s.metrics.instrument(route, h))
	}
	ns := func(route string, h nsHandler) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			name := r.PathValue("ns")
			if err := namespace.ValidateName(name); err != nil {
				refuse(w, r, fmt.Errorf("namespace in path %q: %w", r.URL.EscapedPath(), err))
				return
			}
			if err := allow(r.Context(), name, roleOf(route+" "+r.Method), r.Method+" /ns/"+name+"/"+route); err != nil {
				refuse(w, r, err)
				return
			}
			if err := identityCoding(r); err != nil {
				w.Header().Set("Accept-Encoding", "identity")
				refuse(w, r, err)
				return
			}
			if route != "rpc" { // the one route that reads no parameter
				if err := checkQueryString(r); err != nil {
					writeError(w, err, "")
					return
				}
			}
			h(w, r, name)
		}
	}
	// Each path is served for its methods (GET also for HEAD); another
	// method is 405 with Allow (RFC 9110, 15.5.6), not the 404 of a path
	// that is not there.
	route := func(path, route string, h http.HandlerFunc, methods ...string) {
		for _, m := range methods {
			handle(m+" "+path, route, h)
		}
		allowed := strings.Join(methods, ", ")
		if slices.Contains(methods, http.MethodGet) {
			allowed = strings.Join(append(slices.Clone(methods), http.MethodHead), ", ")
		}
		handle(path, route, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", allowed)
			refuse(w, r, fmt.Errorf("%w: %s %s: allowed: %s", errMethodNotAllowed, r.Method, r.URL.EscapedPath(), allowed))
		})
	}
	route("/ns/{ns}/rpc", "rpc", ns("rpc", s.serveRPC), http.MethodPost)
	route("/ns/{ns}/sparql", "sparql", ns("sparql", s.serveSPARQL), http.MethodGet, http.MethodPost)
	route("/ns/{ns}/data", "data", ns("data", s.serveData), http.MethodGet, http.MethodPut, http.MethodPost, http.MethodDelete)
	route("/ns/{ns}/import", "import", ns("import", s.serveImport), http.MethodPost)
	route("/ns/{ns}/export", "export", ns("export", s.serveExport), http.MethodGet)
	route("/ns/{ns}/events", "events", ns("events", s.serveEvents), http.MethodGet)
	route("/healthz", "healthz", s.serveHealth, http.MethodGet)
	// /metrics grows with the namespaces: each chunk within the write
	// timeout, as every other response.
	route("/metrics", "metrics", func(w http.ResponseWriter, r *http.Request) { s.metrics.serve(s.timed(w), r) }, http.MethodGet)
	handle("/", "other", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, fmt.Errorf("%w: no route for %s %s (routes: /ns/{ns}/rpc, /ns/{ns}/sparql, /ns/{ns}/data, /ns/{ns}/import, /ns/{ns}/export, /ns/{ns}/events, /healthz, /metrics)",
			api.ErrNotFound, r.Method, r.URL.EscapedPath()), "")
	})
	// A namespace segment that is empty, "." or ".." is an invalid name
	// (400), as any other: the mux would redirect its path cleaned
	// (/ns//rpc to /ns/rpc, /ns/../rpc to /rpc), a route of no namespace.
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rest, ok := strings.CutPrefix(r.URL.Path, "/ns/"); ok {
			if name, _, route := strings.Cut(rest, "/"); route && (name == "" || name == "." || name == "..") {
				err := namespace.ValidateName(name)
				if err == nil {
					err = fmt.Errorf("%w: %q", namespace.ErrInvalidName, name)
				}
				refuse(w, r, fmt.Errorf("namespace in path %q: %w", r.URL.EscapedPath(), err))
				return
			}
		}
		mux.ServeHTTP(w, r)
	})
}

// isRPCRoute reports whether r is for the rpc route of a namespace
// (/ns/{ns}/rpc, whatever {ns} is).
func isRPCRoute(r *http.Request) bool {
	rest, ok := strings.CutPrefix(r.URL.Path, "/ns/")
	if !ok {
		return false
	}
	_, route, ok := strings.Cut(rest, "/")
	return ok && route == "rpc"
}

// refuse answers a request refused before its handler runs
// (authentication, the namespace in its path, its method, its
// Content-Encoding) with err: on the rpc route as a JSON-RPC error object
// (writeRPCError), which is what a JSON-RPC client reads; on the others
// as text (writeError), as the SPARQL, Graph Store and Server-Sent Events
// protocols leave the body of an error free and their clients read its
// status. Both carry the same status and Cortex-Error-Kind and
// Cortex-Exit-Code headers.
func refuse(w http.ResponseWriter, r *http.Request, err error) {
	if isRPCRoute(r) {
		writeRPCError(w, err)
		return
	}
	writeError(w, err, "")
}

// identityCoding returns an error matching ErrUnsupportedMediaType if r
// has a body with a content coding (Content-Encoding: gzip ...): every route
// reads its body as it is, and would take compressed bytes for a syntax
// error (RFC 9110, 8.4.1: 415, with Accept-Encoding).
func identityCoding(r *http.Request) error {
	if r.Body == nil || r.Body == http.NoBody {
		return nil // no body: nothing coded
	}
	for _, v := range r.Header.Values("Content-Encoding") {
		for _, c := range strings.Split(v, ",") {
			if c = strings.TrimSpace(c); c != "" && !strings.EqualFold(c, "identity") {
				return fmt.Errorf("%w: Content-Encoding %q: send the body uncompressed", ErrUnsupportedMediaType, c)
			}
		}
	}
	return nil
}

// checkQueryString returns an error matching api.ErrUsage (400) if the
// query string of r has a parameter that does not decode: a bad percent
// escape (%ZZ) or a ';', which is no separator. url.URL.Query, which the
// handlers read, drops such a parameter without a word, and a request
// would run without it: a query without the dataset it named
// (default-graph-uri), a Graph Store POST ?graph= to a new graph, an
// export of every graph for one.
func checkQueryString(r *http.Request) error {
	if _, err := url.ParseQuery(r.URL.RawQuery); err != nil {
		return fmt.Errorf("%w: query string %q: %v (percent-encode each parameter value, a ';' as %%3B)", api.ErrUsage, r.URL.RawQuery, err)
	}
	return nil
}

// serveHealth answers 200 "ok" while the store answers, else 503.
func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request) {
	if _, err := s.store.Namespaces(r.Context()); err != nil {
		writeError(w, fmt.Errorf("%w: store: %v", api.ErrUnavailable, err), "")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprintln(w, "ok")
}

// since returns the seconds elapsed since t.
func since(t time.Time) float64 { return time.Since(t).Seconds() }
