package server

import (
	"fmt"
	"net/http"
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
				writeError(w, fmt.Errorf("namespace in path %q: %w", r.URL.EscapedPath(), err), "")
				return
			}
			if err := allow(r.Context(), name, roleOf(route+" "+r.Method), r.Method+" /ns/"+name+"/"+route); err != nil {
				writeError(w, err, "")
				return
			}
			h(w, r, name)
		}
	}
	handle("POST /ns/{ns}/rpc", "rpc", ns("rpc", s.serveRPC))
	handle("GET /ns/{ns}/sparql", "sparql", ns("sparql", s.serveSPARQL))
	handle("POST /ns/{ns}/sparql", "sparql", ns("sparql", s.serveSPARQL))
	handle("GET /ns/{ns}/data", "data", ns("data", s.serveData))
	handle("PUT /ns/{ns}/data", "data", ns("data", s.serveData))
	handle("POST /ns/{ns}/data", "data", ns("data", s.serveData))
	handle("DELETE /ns/{ns}/data", "data", ns("data", s.serveData))
	handle("POST /ns/{ns}/import", "import", ns("import", s.serveImport))
	handle("GET /ns/{ns}/export", "export", ns("export", s.serveExport))
	handle("GET /ns/{ns}/events", "events", ns("events", s.serveEvents))
	handle("GET /healthz", "healthz", s.serveHealth)
	handle("GET /metrics", "metrics", s.metrics.serve)
	handle("/", "other", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, fmt.Errorf("%w: no route for %s %s (routes: /ns/{ns}/rpc, /ns/{ns}/sparql, /ns/{ns}/data, /ns/{ns}/import, /ns/{ns}/export, /ns/{ns}/events, /healthz, /metrics)",
			api.ErrNotFound, r.Method, r.URL.EscapedPath()), "")
	})
	return mux
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
