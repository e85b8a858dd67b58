package server

import (
	"io"
	"log"
	"time"

	"github.com/cortexgraph/cortex/config"
)

// Options configure a Server. Build them with DefaultOptions and the With
// methods; each method documents its default.
type Options struct {
	cfg             config.Config
	maxBodyBytes    int64
	queryTimeout    time.Duration
	maxQueryTimeout time.Duration
	shutdownTimeout time.Duration
	logger          *log.Logger
	tokens          *TokenFile
	insecure        bool
	now             func() time.Time // the clock of token expiry
}

// DefaultOptions returns the defaults: config.Default(), 32 MiB bodies,
// queries stopped after 30 s unless they ask for more, up to 5 min, a 10 s
// graceful shutdown, no log, no tokens.
func DefaultOptions() Options {
	return Options{
		cfg:             config.Default(),
		maxBodyBytes:    32 << 20,
		queryTimeout:    30 * time.Second,
		maxQueryTimeout: 5 * time.Minute,
		shutdownTimeout: 10 * time.Second,
		logger:          log.New(io.Discard, "", 0),
		now:             time.Now,
	}
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
