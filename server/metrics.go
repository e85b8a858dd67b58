package server

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex"
)

// metrics are the server's Prometheus metrics, in a registry of its own
// (never the global one: two servers in a process do not collide).
type metrics struct {
	reg      *prometheus.Registry
	handler  http.Handler
	logger   promhttp.Logger
	requests *prometheus.CounterVec   // by route and status code
	latency  *prometheus.HistogramVec // by route
	inFlight *prometheus.GaugeVec     // by route
	rpcCalls *prometheus.CounterVec   // by method and outcome
	merges   *prometheus.CounterVec   // by namespace
}

func newMetrics(s *Server) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cortex_http_requests_total",
			Help: "HTTP requests answered, by route and status code.",
		}, []string{"route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "cortex_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"route"}),
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "cortex_http_requests_in_flight",
			Help: "HTTP requests being answered, by route.",
		}, []string{"route"}),
		rpcCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cortex_rpc_calls_total",
			Help: "JSON-RPC calls, by method and outcome (ok, or the error kind).",
		}, []string{"method", "outcome"}),
		merges: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cortex_merges_total",
			Help: "Team merges run through the server (teams.merge, a member update that finished a team, conflicts.resolve), by namespace.",
		}, []string{"namespace"}),
	}
	disk := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "cortex_store_disk_bytes",
		Help: "Bytes the store takes on disk.",
	}, func() float64 { return float64(s.store.DiskSize()) })
	m.reg.MustRegister(m.requests, m.latency, m.inFlight, m.rpcCalls, m.merges, disk, &nsCollector{s: s})
	m.logger = s.opts.logger
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorLog: m.logger})
	return m
}

// serve answers GET /metrics. A request with a namespace's token (of any
// role, admin included) sees the series of that namespace only (those
// with a namespace label, such as cortex_namespace_quads) beside the
// server's own, which name no namespace: a tenant learns neither the
// names nor the sizes of the others, as in namespaces.list and stats.get
// (scopeOf). A request let in without a token (a Unix socket, a loopback
// server with no token yet) sees every namespace's.
func (m *metrics) serve(w http.ResponseWriter, r *http.Request) {
	ns, all := scopeOf(r.Context())
	if all {
		m.handler.ServeHTTP(w, r)
		return
	}
	scoped := prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		mfs, err := m.reg.Gather()
		return onlyNamespace(mfs, ns), err
	})
	promhttp.HandlerFor(scoped, promhttp.HandlerOpts{ErrorLog: m.logger}).ServeHTTP(w, r)
}

// onlyNamespace returns mfs without the metrics whose namespace label
// names another namespace than ns; a family left with none is dropped.
func onlyNamespace(mfs []*dto.MetricFamily, ns string) []*dto.MetricFamily {
	out := mfs[:0]
	for _, mf := range mfs {
		kept := mf.Metric[:0]
		for _, mt := range mf.Metric {
			if other(mt.GetLabel(), ns) {
				continue
			}
			kept = append(kept, mt)
		}
		if mf.Metric = kept; len(kept) > 0 {
			out = append(out, mf)
		}
	}
	return out
}

// other reports whether labels have a namespace label of another
// namespace than ns.
func other(labels []*dto.LabelPair, ns string) bool {
	for _, l := range labels {
		if l.GetName() == "namespace" && l.GetValue() != ns {
			return true
		}
	}
	return false
}

// instrument counts the requests of h under route, those in flight, and
// times them.
func (m *metrics) instrument(route string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		inFlight := m.inFlight.WithLabelValues(route)
		inFlight.Inc()
		defer func() {
			inFlight.Dec()
			// Also when the handler aborts a response (panics with
			// http.ErrAbortHandler): it is counted, then re-panics.
			code := sw.code
			if code == 0 {
				code = http.StatusOK
			}
			m.requests.WithLabelValues(route, strconv.Itoa(code)).Inc()
			if code != http.StatusSwitchingProtocols { // a stream's life is no request's latency
				m.latency.WithLabelValues(route).Observe(since(start))
			}
		}()
		h.ServeHTTP(sw, r)
	})
}

// rpcCall counts a JSON-RPC call of method (its name, or "" for an invalid
// request) that ended with err.
func (m *metrics) rpcCall(method string, err error) {
	if _, ok := methods[method]; !ok {
		method = "unknown" // bounded label values
	}
	outcome := "ok"
	if err != nil {
		_, kind := api.Classify(err)
		outcome = string(kind)
	}
	m.rpcCalls.WithLabelValues(method, outcome).Inc()
}

// merged counts a merge in namespace ns.
func (m *metrics) merged(ns string) { m.merges.WithLabelValues(ns).Inc() }

// forget drops the series of namespace ns, deleted: a server that
// creates and deletes namespaces does not keep a series for each, and a
// namespace created again under its name counts from 0, as its write
// counters (cortex.WriteStats) do.
func (m *metrics) forget(ns string) { m.merges.DeleteLabelValues(ns) }

// statusWriter records the status code of a response.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

// Hijack hands the connection over (a JSON-RPC stream), recorded as
// status 101 (Switching Protocols).
func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err == nil && w.code == 0 {
		w.code = http.StatusSwitchingProtocols
	}
	return c, rw, err
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// nsCollector reports, when scraped, each namespace's quads and its write
// counters since the server's store opened it (cortex.WriteStats).
type nsCollector struct{ s *Server }

var (
	quadsDesc = prometheus.NewDesc("cortex_namespace_quads", "Quads in a namespace.", []string{"namespace"}, nil)
	// writeDescs are the counters of cortex.WriteStats, in the order
	// writeValues gives them.
	writeDescs = []*prometheus.Desc{
		prometheus.NewDesc("cortex_namespace_deltas_total", "Deltas committed to a namespace (every write of the team manager, Graph Store writes; not imports).", []string{"namespace"}, nil),
		prometheus.NewDesc("cortex_namespace_journaled_deltas_total", "Deltas larger than one transaction, which hold the store's other transactions back while they are written.", []string{"namespace"}, nil),
		prometheus.NewDesc("cortex_namespace_delta_quads_total", "Quads added or removed by the deltas.", []string{"namespace"}, nil),
		prometheus.NewDesc("cortex_namespace_delta_entries_total", "Badger keys written or deleted by the deltas (each goes through Badger's one writer).", []string{"namespace"}, nil),
		prometheus.NewDesc("cortex_namespace_write_lock_acquisitions_total", "Times a namespace's write lock was taken.", []string{"namespace"}, nil),
		prometheus.NewDesc("cortex_namespace_write_lock_waits_total", "Times a writer had to wait for a namespace's write lock.", []string{"namespace"}, nil),
		prometheus.NewDesc("cortex_namespace_write_lock_wait_seconds_total", "Time writers waited for a namespace's write lock and got it (a wait given up when its request ended is not counted).", []string{"namespace"}, nil),
		prometheus.NewDesc("cortex_namespace_write_lock_held_seconds_total", "Time a namespace's write lock was held.", []string{"namespace"}, nil),
	}
)

// lockWaitingDesc is the gauge of cortex.WriteStats.LockWaiting.
var lockWaitingDesc = prometheus.NewDesc("cortex_namespace_write_lock_waiting", "Writers waiting for a namespace's write lock now.", []string{"namespace"}, nil)

// writeValues returns the counters of st in the order of writeDescs.
func writeValues(st cortex.WriteStats) []float64 {
	return []float64{float64(st.Deltas), float64(st.Journaled), float64(st.Quads), float64(st.Entries),
		float64(st.LockAcquired), float64(st.LockWaited), st.LockWait.Seconds(), st.LockHeld.Seconds()}
}

func (c *nsCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- quadsDesc
	ch <- lockWaitingDesc
	for _, d := range writeDescs {
		ch <- d
	}
}

func (c *nsCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	names, err := c.s.store.Namespaces(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(quadsDesc, err)
		return
	}
	for _, name := range names {
		n, err := c.s.store.OpenNamespace(ctx, name)
		if err != nil {
			continue // deleted meanwhile
		}
		st := n.WriteStats()
		for i, v := range writeValues(st) {
			ch <- prometheus.MustNewConstMetric(writeDescs[i], prometheus.CounterValue, v, name)
		}
		ch <- prometheus.MustNewConstMetric(lockWaitingDesc, prometheus.GaugeValue, float64(st.LockWaiting), name)
		size, err := n.Size(ctx)
		if err != nil {
			ch <- prometheus.NewInvalidMetric(quadsDesc, err)
			continue
		}
		ch <- prometheus.MustNewConstMetric(quadsDesc, prometheus.GaugeValue, float64(size), name)
	}
}
