package server

import (
	"io"
	"log"
	"reflect"
	"time"

	"github.com/cortexgraph/cortex/config"
)

// Options configure a Server. Build them with DefaultOptions and the With
// methods; each method documents its default. A field left at its zero
// value (as in Options{}) has its default: New fills it in.
type Options struct {
	cfg             config.Config
	maxBodyBytes    int64
	maxBatch        int
	queryTimeout    time.Duration
	maxQueryTimeout time.Duration
	shutdownTimeout time.Duration
	logger          *log.Logger
	tokens          *TokenFile
	insecure        bool
	now             func() time.Time // the clock of token expiry

	// Limits (limits.go).
	maxResults        int64
	maxQueries        int
	queueWait         time.Duration
	readHeaderTimeout time.Duration
	bodyTimeout       time.Duration
	idleTimeout       time.Duration
	writeTimeout      time.Duration
	maxHeaderBytes    int
	maxEventStreams   int
	maxRPCStreams     int
}

// DefaultOptions returns the defaults: config.Default(), 32 MiB bodies,
// JSON-RPC batches of at most 1,000 calls, queries stopped after 30 s unless they ask for more, up to 5 min, a 10 s
// graceful shutdown, no log, no tokens, and the limits of their With
// methods: 1,000,000 results per response, 16 queries at once (waiting
// up to 2 s for a turn), 10 s to send the headers of a request, 60 s for
// its body, 64 KiB of headers, 30 s to accept each chunk of a response,
// idle connections closed after 2 min, 256 event streams and 256
// JSON-RPC streams open at once.
func DefaultOptions() Options {
	return Options{
		cfg:               config.Default(),
		maxBodyBytes:      32 << 20,
		maxBatch:          1000,
		queryTimeout:      30 * time.Second,
		maxQueryTimeout:   5 * time.Minute,
		shutdownTimeout:   10 * time.Second,
		logger:            log.New(io.Discard, "", 0),
		now:               time.Now,
		maxResults:        1_000_000,
		maxQueries:        16,
		queueWait:         2 * time.Second,
		readHeaderTimeout: 10 * time.Second,
		bodyTimeout:       60 * time.Second,
		idleTimeout:       2 * time.Minute,
		writeTimeout:      30 * time.Second,
		maxHeaderBytes:    64 << 10,
		maxEventStreams:   256,
		maxRPCStreams:     256,
	}
}

// WithMaxResults bounds the results of one response: the rows of a SPARQL
// SELECT, the triples of a CONSTRUCT or DESCRIBE or of a Graph Store GET,
// the items of a JSON-RPC listing (teams, findings, facts, conflicts,
// namespaces, graphs, tasks, messages, definitions, workflow runs and
// their transitions, plan revisions, snapshots; the listings of a batch, which answer in one
// response, together: the call that would pass the limit fails with its
// own error object). A response that would hold more is not sent: the
// request fails with ErrTooManyResults before any result is sent, never
// with a silently truncated result (default 1,000,000; n ≤ 0 keeps the
// default). It bounds the triples of a Graph Store PUT or POST body too,
// which is written in one atomic step: a larger one fails with ErrTooLarge
// and writes nothing; and those of a findings.import of RDF (kind invalid,
// nothing imported).
func (o Options) WithMaxResults(n int64) Options {
	if n > 0 {
		o.maxResults = n
	}
	return o
}

// WithMaxQueries bounds the read-heavy requests evaluated at once: SPARQL
// queries, Graph Store GETs and the JSON-RPC listings and stats. A request
// over the limit waits for a turn for at most the queue wait
// (WithQueueWait), then fails with api.ErrBusy (HTTP 503 with
// Retry-After, kind busy, exit code 11). A request holds its turn while
// it reads the store, not while its response is sent (default 16; n ≤ 0
// keeps the default).
func (o Options) WithMaxQueries(n int) Options {
	if n > 0 {
		o.maxQueries = n
	}
	return o
}

// WithQueueWait sets how long a read-heavy request waits for a turn when
// WithMaxQueries of them are running (default 2 s; d ≤ 0 keeps the
// default).
func (o Options) WithQueueWait(d time.Duration) Options {
	if d > 0 {
		o.queueWait = d
	}
	return o
}

// WithReadHeaderTimeout bounds the time a client has to send a request's
// line and headers; a connection that has not sent them by then is closed
// (default 10 s; d ≤ 0 keeps the default).
func (o Options) WithReadHeaderTimeout(d time.Duration) Options {
	if d > 0 {
		o.readHeaderTimeout = d
	}
	return o
}

// WithBodyTimeout bounds the time a client has to send a request's body,
// from the end of its headers: a body not received by then fails the
// request with ErrRequestTimeout (HTTP 408) and writes nothing (default
// 60 s; d ≤ 0 keeps the default). Serve applies it; Handler leaves the
// timeouts to the caller's http.Server.
func (o Options) WithBodyTimeout(d time.Duration) Options {
	if d > 0 {
		o.bodyTimeout = d
	}
	return o
}

// WithIdleTimeout sets how long a kept-alive connection may wait for its
// next request before it is closed (default 2 min; d ≤ 0 keeps the
// default).
func (o Options) WithIdleTimeout(d time.Duration) Options {
	if d > 0 {
		o.idleTimeout = d
	}
	return o
}

// WithWriteTimeout bounds the time a client has to accept each chunk (at
// most 64 KiB) of a response, or each event of an event stream; a client
// that does not read for that long is cut off. A slow client never holds
// the store: results are read in full before they are sent (default 30 s;
// d ≤ 0 keeps the default).
func (o Options) WithWriteTimeout(d time.Duration) Options {
	if d > 0 {
		o.writeTimeout = d
	}
	return o
}

// WithMaxHeaderBytes bounds the size of a request's line and headers; a
// larger one is answered 431 Request Header Fields Too Large (default 64
// KiB; n ≤ 0 keeps the default).
func (o Options) WithMaxHeaderBytes(n int) Options {
	if n > 0 {
		o.maxHeaderBytes = n
	}
	return o
}

// WithMaxEventStreams bounds the event streams (GET /ns/{ns}/events) open
// at once, of every namespace and listener together: each holds a
// connection and two goroutines for as long as its client follows it, and
// reads the store at each event of its namespace. One more is refused at
// once, before anything is streamed, with api.ErrBusy (HTTP 503 with
// Retry-After, kind busy, exit code 11; a browser's EventSource takes any
// answer but 200 as final, its client retries) (default 256; n ≤ 0 keeps
// the default).
func (o Options) WithMaxEventStreams(n int) Options {
	if n > 0 {
		o.maxEventStreams = n
	}
	return o
}

// WithMaxRPCStreams bounds the JSON-RPC streams (a POST /ns/{ns}/rpc
// with "Upgrade: cortex-jsonrpc", rpcstream.go) open at once, of every
// namespace and listener together: each holds a connection, two
// goroutines, up to 256 calls in flight and up to the body limit in
// their lines for as long as its client keeps it (a client of package
// client keeps one, which all its goroutines share, until it has been
// idle for 30 s; the server closes one idle for the idle timeout). One
// more is refused at once, before the connection is taken over, with
// api.ErrBusy: HTTP 503 with Retry-After and, as every answer of the
// rpc route, a JSON-RPC error object (kind busy, exit code 11); the
// client may send its calls as plain POST requests meanwhile, which
// package client does (default 256, as WithMaxEventStreams; n ≤ 0 keeps
// the default).
func (o Options) WithMaxRPCStreams(n int) Options {
	if n > 0 {
		o.maxRPCStreams = n
	}
	return o
}

// WithConfig sets the configuration: namespace bases, SPARQL prefixes and
// the team manager's settings (default: config.Default()).
func (o Options) WithConfig(c config.Config) Options { o.cfg = c; return o }

// WithMaxBodyBytes bounds the size of a request body (JSON-RPC requests,
// SPARQL queries, Graph Store uploads): a larger one is refused with 413
// (default 32 MiB; n ≤ 0 keeps the default).
func (o Options) WithMaxBodyBytes(n int64) Options {
	if n > 0 {
		o.maxBodyBytes = n
	}
	return o
}

// WithMaxBatch bounds the calls of one JSON-RPC batch (a request, or a
// line of a JSON-RPC stream, that is an array): a longer one is answered
// by one error object, with id null, matching ErrTooLarge (413, kind
// invalid, as a body too large), and none of its calls runs. A batch's
// answers are held in memory until the last call ends, so the body limit
// alone would let a small body ("[1,1,1,...]", a few bytes a call) ask
// for an answer many times its size (default 1,000; n ≤ 0 keeps the
// default).
func (o Options) WithMaxBatch(n int) Options {
	if n > 0 {
		o.maxBatch = n
	}
	return o
}

// WithQueryTimeout sets how long a SPARQL query runs when the request asks
// for no timeout (default 30 s; d ≤ 0 keeps the default).
func (o Options) WithQueryTimeout(d time.Duration) Options {
	if d > 0 {
		o.queryTimeout = d
	}
	return o
}

// WithMaxQueryTimeout caps the timeout a request may ask for (default
// 5 min; d ≤ 0 keeps the default).
func (o Options) WithMaxQueryTimeout(d time.Duration) Options {
	if d > 0 {
		o.maxQueryTimeout = d
	}
	return o
}

// WithShutdownTimeout bounds how long Serve waits for in-flight requests
// once its context ends; requests still running then are cut (default
// 10 s; d ≤ 0 keeps the default).
func (o Options) WithShutdownTimeout(d time.Duration) Options {
	if d > 0 {
		o.shutdownTimeout = d
	}
	return o
}

// WithLogger sets where the server logs internal errors and cut requests
// (default: nowhere; nil keeps the default).
func (o Options) WithLogger(l *log.Logger) Options {
	if l != nil {
		o.logger = l
	}
	return o
}

// WithTokens sets the file of the bearer tokens the server accepts, read
// again whenever it changes (default: none; nil keeps the default). On a
// TCP listener on loopback, a request needs a token as soon as the file
// holds any; on any other TCP listener, always (see WithInsecure); on a
// Unix socket, never: the socket's mode (0600) makes it the owner's.
func (o Options) WithTokens(f *TokenFile) Options {
	if f != nil {
		o.tokens = f
	}
	return o
}

// WithInsecure treats TCP listeners that are not on loopback as loopback
// ones: a request needs a token only once the token file holds any
// (default false: always).
func (o Options) WithInsecure(insecure bool) Options { o.insecure = insecure; return o }

// withDefaults returns o with each field that is zero set as in
// DefaultOptions: a zero limit would refuse every request (a body of at
// most 0 bytes, no turn for a query), a nil logger or clock would panic.
func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if reflect.ValueOf(o.cfg).IsZero() {
		o.cfg = d.cfg
	}
	if o.maxBodyBytes <= 0 {
		o.maxBodyBytes = d.maxBodyBytes
	}
	if o.maxBatch <= 0 {
		o.maxBatch = d.maxBatch
	}
	if o.maxResults <= 0 {
		o.maxResults = d.maxResults
	}
	if o.maxQueries <= 0 {
		o.maxQueries = d.maxQueries
	}
	if o.maxHeaderBytes <= 0 {
		o.maxHeaderBytes = d.maxHeaderBytes
	}
	if o.maxEventStreams <= 0 {
		o.maxEventStreams = d.maxEventStreams
	}
	if o.maxRPCStreams <= 0 {
		o.maxRPCStreams = d.maxRPCStreams
	}
	for _, p := range []struct{ v, dv *time.Duration }{
		{&o.queryTimeout, &d.queryTimeout}, {&o.maxQueryTimeout, &d.maxQueryTimeout}, {&o.shutdownTimeout, &d.shutdownTimeout},
		{&o.queueWait, &d.queueWait}, {&o.readHeaderTimeout, &d.readHeaderTimeout}, {&o.bodyTimeout, &d.bodyTimeout},
		{&o.idleTimeout, &d.idleTimeout}, {&o.writeTimeout, &d.writeTimeout},
	} {
		if *p.v <= 0 {
			*p.v = *p.dv
		}
	}
	if o.logger == nil {
		o.logger = d.logger
	}
	if o.now == nil {
		o.now = d.now
	}
	return o
}
