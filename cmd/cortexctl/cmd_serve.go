package main

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/server"
)

// defaultListen is serve's default TCP address: loopback only.
const defaultListen = "127.0.0.1:7474"

func serveCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve the store over HTTP (JSON-RPC, SPARQL, graph store, events) until SIGINT, SIGTERM, SIGHUP or SIGQUIT",
		Description: `Opens the store in --data (creating it if needed) and serves every namespace
of it, so that other processes reach it while this one holds it:

   POST /ns/NS/rpc                JSON-RPC 2.0: teams.create, teams.get, teams.list,
                                  teams.delete, teams.pause, teams.resume,
                                  teams.disband, teams.member_status, teams.merge,
                                  teams.is_complete, findings.add, findings.add_batch,
                                  findings.list, findings.import, facts.list,
                                  conflicts.list, conflicts.resolve, strategies.list,
                                  prefixes.get, namespaces.list, namespaces.delete,
                                  graphs.list, stats.get, tokens.create,
                                  tokens.list, tokens.revoke, and the methods of the task
                                  board, mailbox, plans, snapshots, definitions
                                  and workflow runs (README.md lists them all;
                                  params and results as --json prints)
   GET|POST /ns/NS/sparql         SPARQL 1.1 Protocol query (?timeout=30s, at most 5m)
   GET|PUT|POST|DELETE /ns/NS/data?graph=IRI (or ?default)
                                  SPARQL 1.1 Graph Store Protocol
   POST /ns/NS/import, GET /ns/NS/export
                                  cortexctl import and export over HTTP
   GET /ns/NS/events              the namespace's events (Server-Sent Events)
   GET /healthz, GET /metrics     health; Prometheus metrics

It listens on a Unix socket (default DIR/cortex.sock, mode 0600) and on TCP
(default 127.0.0.1:7474); --socket "" or --listen "" turns one off. While it
runs, DIR/cortex-server.json says how to reach it (pid, socket, address,
directory); it is removed at shutdown, and a stale one (its process gone, or
on Linux its pid now another process's) is replaced. A malformed --listen or
an unusable --socket path (too long, an existing file or directory, a missing
directory other than DIR) exits 7 before the store is opened; so does a
--listen whose host does not resolve, that is no address of this machine or
whose port this user may not bind (below 1024 without the privilege). An
address or socket in use exits 6.

Security: the socket is the owner's (mode 0600 from the moment it exists: it
is bound in a private directory beside its path, then linked into place) and
needs no token. Where its directory refuses hard links (and, on Linux, a
rename that does not replace) or is too long for a private directory in it
(over 102 bytes on Linux), the socket is created in place and made 0600 at
once, and serve says so on stderr. Private directories left by a server
killed while binding are removed when serve starts. On TCP,
as soon as DIR/tokens.json holds any token (cortexctl tokens create), every
request needs one (Authorization: Bearer TOKEN), except GET /healthz: 401
without a valid one, 403 for another namespace or too low a role; a token's
namespaces.list, stats.get and /metrics show its own namespace only. A --listen
address that is not loopback always needs a token, and serve refuses to
start on one (exit 2) without --tls-cert/--tls-key or without any token,
unless --insecure. With --listen, it refuses to start on a DIR/tokens.json
that is not valid JSON (exit 5) or that other users may write (exit 7). A browser's cross-origin writes are refused (403), and
without tokens a loopback server answers only a Host that is localhost (or
under .localhost) or an IP address.

On SIGINT, SIGTERM, SIGHUP (unless started with it ignored, as by nohup) or
SIGQUIT it stops accepting, lets the requests in flight finish (at most 10 s),
closes the store, removes DIR/cortex-server.json and the socket and exits 0;
a second signal exits at once (exit 8), as does serve still running 12 s
after the first (requests that did not end when cut), removing both files
too (a crash or kill -9 leaves them: stale, they are replaced). From the signal on, DIR/cortex-server.json says
the server is stopping, and a command started on DIR meanwhile waits for it to
release the store (12 s at most), saying so, then opens the store itself.
Every write it acknowledged is in the store, even if the process is killed.

Examples:
   cortexctl serve
   cortexctl serve --listen 127.0.0.1:8080 --socket ""
   cortexctl serve --listen 0.0.0.0:7474 --tls-cert cert.pem --tls-key key.pem
   curl -s --unix-socket ~/.local/share/cortex/cortex.sock http://cortex/healthz`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Usage: "TCP `ADDR` to listen on (host:port; \"\": none)", Value: defaultListen},
			&cli.StringFlag{Name: "socket", Usage: "Unix socket `PATH` (\"\": none)", DefaultText: "DIR/cortex.sock"},
			&cli.StringFlag{Name: "tls-cert", Usage: "serve TCP over TLS with the certificate (chain) in PEM `FILE` (with --tls-key)"},
			&cli.StringFlag{Name: "tls-key", Usage: "the private key in PEM `FILE` of --tls-cert"},
			&cli.BoolFlag{Name: "insecure", Usage: "allow a --listen address that is not loopback without TLS or without any token"},
			&cli.StringFlag{Name: "max-body", Usage: "largest request body (JSON-RPC, query, graph store upload), a `SIZE` such as 32MiB", DefaultText: "32MiB", Category: "Limits:"},
			&cli.DurationFlag{Name: "query-timeout", Usage: "how long a query runs when it asks for no timeout", DefaultText: "30s", Category: "Limits:"},
			&cli.DurationFlag{Name: "max-query-timeout", Usage: "the longest timeout a query may ask for", DefaultText: "5m", Category: "Limits:"},
			&cli.Int64Flag{Name: "max-results", Usage: "most rows, triples or items in one response, and triples in one Graph Store PUT or POST or findings.import of RDF; a larger one is an error, never truncated", DefaultText: "1000000", Category: "Limits:"},
			&cli.Int64Flag{Name: "max-batch", Usage: "most calls in one JSON-RPC batch; a longer one is one error (413, kind invalid) and runs none", DefaultText: "1000", Category: "Limits:"},
			&cli.Int64Flag{Name: "max-queries", Usage: "read-heavy requests (queries, graph store GETs, listings) evaluated at once", DefaultText: "16", Category: "Limits:"},
			&cli.DurationFlag{Name: "queue-wait", Usage: "how long a request over --max-queries waits for a turn before 503 busy", DefaultText: "2s", Category: "Limits:"},
			&cli.Int64Flag{Name: "max-event-streams", Usage: "event streams (GET /ns/NS/events) open at once; one more is 503 busy with Retry-After", DefaultText: "256", Category: "Limits:"},
			&cli.Int64Flag{Name: "max-rpc-streams", Usage: "JSON-RPC streams (POST /ns/NS/rpc with Upgrade: cortex-jsonrpc) open at once; one more is 503 busy with Retry-After, a JSON-RPC error", DefaultText: "256", Category: "Limits:"},
			&cli.DurationFlag{Name: "read-header-timeout", Usage: "time a client has to send a request's headers", DefaultText: "10s", Category: "Limits:"},
			&cli.DurationFlag{Name: "body-timeout", Usage: "time a client has to send a request's body (then 408, nothing written)", DefaultText: "1m", Category: "Limits:"},
			&cli.DurationFlag{Name: "idle-timeout", Usage: "how long an idle kept-alive connection stays open", DefaultText: "2m", Category: "Limits:"},
			&cli.DurationFlag{Name: "write-timeout", Usage: "time a client has to accept each chunk of a response or event", DefaultText: "30s", Category: "Limits:"},
			&cli.StringFlag{Name: "max-header-bytes", Usage: "largest request line and headers, a `SIZE` (then 431)", DefaultText: "64KiB", Category: "Limits:"},
		},
		Action: func(c *cli.Context) error { return serveCmd(c, e) },
	}
}

func serveCmd(c *cli.Context, e *env) error {
	if c.NArg() > 0 {
		return usagef("serve: unexpected argument %q", c.Args().First())
	}
	addr := c.String("listen")
	sock := filepath.Join(e.dataDir, "cortex.sock")
	if c.IsSet("socket") {
		sock = c.String("socket")
	}
	if addr == "" && sock == "" {
		return usagef(`serve: --listen "" and --socket "" leave nothing to listen on`)
	}
	if sock != "" {
		abs, err := filepath.Abs(sock) // the discovery file names it for other directories
		if err != nil {
			return fmt.Errorf("serve: --socket: %w", err)
		}
		sock = abs
		dataDir, err := filepath.Abs(e.dataDir)
		if err != nil {
			return fmt.Errorf("serve: --data: %w", err)
		}
		// A socket in the data directory: opening the store creates it.
		if err := checkSocketPath(sock, filepath.Dir(sock) != dataDir); err != nil {
			return err
		}
	}
	if addr != "" {
		if err := checkListenAddr(addr); err != nil {
			return err
		}
	}
	opts, err := serveLimits(c, e.args, server.DefaultOptions())
	if err != nil {
		return err
	}
	tokens, err := e.tokenFile(readWrite)
	if err != nil {
		return err
	}
	if addr != "" {
		// A token file that cannot be used (not JSON, writable by other
		// users) would have every TCP request that may need a token
		// refused (500): say so now, before anything is opened.
		if _, err := tokens.Any(); err != nil {
			return fmt.Errorf("serve: %w", err)
		}
	}
	tlsConfig, err := serveTLS(c, addr, tokens)
	if err != nil {
		return err
	}
	// Shutdown lets requests in flight finish: a signal exits at once only
	// if they have not within serveShutdownTimeout (or at a second one).
	opts = opts.WithShutdownTimeout(serveShutdownTimeout)
	setStopGrace(c.Context, serveShutdownTimeout+stopGrace)
	sigs := stopSignals()
	notifyStop(c.Context, sigs...)
	ctx, stop := signal.NotifyContext(c.Context, sigs...)
	defer stop()
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	// A server that holds the store is named before its address is found
	// in use; then the socket and the TCP address: one in use stops serve
	// before it opens (and creates) the store.
	if err := e.direct(); err != nil {
		return err
	}
	if sock != "" {
		if err := checkSocketFree(sock); err != nil {
			return err
		}
	}
	if addr != "" {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return listenError(addr, err)
		}
		addr = l.Addr().String() // the port chosen for :0
		if tlsConfig != nil {
			l = tls.NewListener(l, tlsConfig)
		}
		ls = append(ls, l)
	}
	s, err := e.open(ctx, readWrite)
	if err != nil {
		return err
	}
	// This process holds the store: a discovery file or a socket left in
	// the directory by a server that was killed is stale.
	if sock != "" {
		l, err := listenUnix(sock, e.stderr)
		if err != nil {
			return err
		}
		// Removed once every request is done, or if serve fails to
		// start: this process made it.
		defer os.Remove(sock)
		ls = append([]net.Listener{l}, ls...) // the socket first, as before
	}
	d := server.Discovery{PID: os.Getpid(), Socket: sock, Address: addr, Started: time.Now().UTC()}
	if tlsConfig != nil {
		// The commands that find this server reach it over https,
		// trusting this certificate (reachable).
		sum := sha256.Sum256(tlsConfig.Certificates[0].Certificate[0])
		d.CertSHA256 = hex.EncodeToString(sum[:])
	}
	if err := server.WriteDiscovery(e.dataDir, d); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer server.RemoveDiscovery(e.dataDir, d.PID) // best effort: a stale file is ignored
	// An immediate exit (a second signal, or requests in flight that did
	// not end within the grace) skips the defers: the socket, then the
	// discovery file, go first. (The store's lock goes with the process
	// right after; a crash leaves both, stale.)
	pid := d.PID
	defer onHardExit(c.Context, func() {
		if sock != "" {
			os.Remove(sock)
		}
		server.RemoveDiscovery(e.dataDir, pid)
	})()
	srv := server.New(s, opts.WithConfig(e.cfg).WithLogger(e.logger()).WithTokens(tokens).WithInsecure(c.Bool("insecure")))
	var where []string
	for _, l := range ls {
		where = append(where, l.Addr().Network()+":"+l.Addr().String())
	}
	fmt.Fprintf(e.stderr, "cortexctl: serving %s on %s (pid %d); SIGINT, SIGTERM, SIGHUP or SIGQUIT stops\n", pathText(e.dataDir), strings.Join(where, " and "), d.PID)
	errs := make(chan error, len(ls))
	var wg sync.WaitGroup
	// The shutdown (a signal, or a listener failing) is first written in
	// the discovery file, then begun: a command that finds the store
	// locked from then on waits for it (env.open), until StopBy at most.
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	marked := make(chan struct{})
	go func() {
		defer close(marked)
		select {
		case <-ctx.Done():
		case <-sctx.Done():
		}
		d.Stopping = time.Now().UTC()
		d.StopBy = d.Stopping.Add(serveShutdownTimeout + stopGrace)
		if err := server.WriteDiscovery(e.dataDir, d); err != nil {
			fmt.Fprintf(e.stderr, "cortexctl: serve: shutdown: %v\n", err)
		}
		cancel()
	}()
	for _, l := range ls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := srv.Serve(sctx, l); err != nil {
				errs <- err
				cancel() // one listener failing stops the others
			}
		}()
	}
	wg.Wait()
	<-marked
	ls = nil // closed by Serve
	close(errs)
	// The store is released before the discovery file goes: a command
	// that reads it stopping meanwhile waits for the store, then opens it.
	err = errors.Join(append(collect(errs), e.close())...)
	if err == nil {
		fmt.Fprintln(e.stderr, "cortexctl: stopped")
	}
	return err
}

// stopSignals returns the signals that stop serve: SIGINT, SIGTERM,
// SIGQUIT and SIGHUP (the terminal it ran in went away), each with the
// graceful shutdown that removes the discovery file and the socket; not
// SIGHUP if serve was started with it ignored (nohup), which means to
// outlive the terminal. (SIGQUIT no longer dumps the goroutines: SIGABRT
// still does.)
func stopSignals() []os.Signal {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGQUIT}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}

// serveShutdownTimeout bounds how long serve, stopped, lets requests in
// flight finish.
const serveShutdownTimeout = 10 * time.Second

// serveLimits returns opts with the limits of serve's flags; a flag not
// given keeps the default. A value that is not positive (or not a size)
// is an invalid value (exit 7), before anything is opened.
func serveLimits(c *cli.Context, args []string, opts server.Options) (server.Options, error) {
	size := func(name string, with func(int64)) error {
		if !c.IsSet(name) {
			return nil
		}
		n, err := parseBytes(c.String(name))
		if err != nil || n <= 0 {
			return fmt.Errorf("%w: serve: --%s %q: want a positive size such as 64KiB or 32MiB", errInvalid, name, c.String(name))
		}
		with(n)
		return nil
	}
	count := func(name string, v int64, with func(int64)) error {
		if !c.IsSet(name) {
			return nil
		}
		if v <= 0 {
			return fmt.Errorf("%w: serve: --%s %d: want a positive number", errInvalid, name, v)
		}
		with(v)
		return nil
	}
	dur := func(name string, with func(server.Options, time.Duration) server.Options) error {
		if !c.IsSet(name) {
			return nil
		}
		if c.Duration(name) <= 0 {
			return fmt.Errorf("%w: serve: --%s %s: want a positive duration", errInvalid, name, durationText(c, args, name))
		}
		opts = with(opts, c.Duration(name))
		return nil
	}
	maxHeader := func(n int64) {
		if n > math.MaxInt32 {
			n = math.MaxInt32
		}
		opts = opts.WithMaxHeaderBytes(int(n))
	}
	err := errors.Join(
		size("max-body", func(n int64) { opts = opts.WithMaxBodyBytes(n) }),
		size("max-header-bytes", maxHeader),
		count("max-results", c.Int64("max-results"), func(n int64) { opts = opts.WithMaxResults(n) }),
		count("max-batch", c.Int64("max-batch"), func(n int64) { opts = opts.WithMaxBatch(int(min(n, math.MaxInt32))) }),
		count("max-queries", c.Int64("max-queries"), func(n int64) { opts = opts.WithMaxQueries(int(min(n, math.MaxInt32))) }),
		count("max-event-streams", c.Int64("max-event-streams"), func(n int64) { opts = opts.WithMaxEventStreams(int(min(n, math.MaxInt32))) }),
		count("max-rpc-streams", c.Int64("max-rpc-streams"), func(n int64) { opts = opts.WithMaxRPCStreams(int(min(n, math.MaxInt32))) }),
		dur("query-timeout", server.Options.WithQueryTimeout),
		dur("max-query-timeout", server.Options.WithMaxQueryTimeout),
		dur("queue-wait", server.Options.WithQueueWait),
		dur("read-header-timeout", server.Options.WithReadHeaderTimeout),
		dur("body-timeout", server.Options.WithBodyTimeout),
		dur("idle-timeout", server.Options.WithIdleTimeout),
		dur("write-timeout", server.Options.WithWriteTimeout),
	)
	return opts, err
}

// serveTLS checks serve's security flags and returns the TLS settings of
// its TCP listener (nil: plain HTTP). A --listen address that is not
// loopback needs TLS and at least one token, unless --insecure: else a
// usage error (exit 2), before anything is opened.
func serveTLS(c *cli.Context, addr string, tokens *server.TokenFile) (*tls.Config, error) {
	certFile, keyFile := c.String("tls-cert"), c.String("tls-key")
	if (certFile == "") != (keyFile == "") {
		return nil, usagef("serve: --tls-cert and --tls-key go together")
	}
	if addr != "" && !server.IsLoopback(addr) && !c.Bool("insecure") {
		if certFile == "" {
			return nil, usagef("serve: --listen %s is not loopback: it needs TLS (--tls-cert, --tls-key), or --insecure", pathText(addr))
		}
		any, err := tokens.Any()
		if err != nil {
			return nil, fmt.Errorf("serve: %w", err)
		}
		if !any {
			return nil, usagef("serve: --listen %s is not loopback: it needs a token first (cortexctl tokens create), or --insecure", pathText(addr))
		}
	}
	if certFile == "" {
		return nil, nil
	}
	if addr == "" {
		return nil, usagef(`serve: --tls-cert with --listen "": no TCP listener to secure`)
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("%w: serve: --tls-cert, --tls-key: %v", errInvalid, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

func collect(ch <-chan error) []error {
	var out []error
	for err := range ch {
		out = append(out, err)
	}
	return out
}

// maxSocketPath is the longest Unix socket path the system takes: its
// sockaddr holds the path and a terminating NUL.
var maxSocketPath = len(syscall.RawSockaddrUnix{}.Path) - 1

// checkSocketPath checks serve's socket path before anything is opened: a
// path too long for a socket address, a file or directory there that is
// not a socket, or (checkDir: the socket is not in the data directory,
// which opening the store creates) a parent directory that does not exist
// are invalid values (exit 7).
func checkSocketPath(path string, checkDir bool) error {
	if len(path) > maxSocketPath {
		return fmt.Errorf("%w: serve: socket %s is %d bytes long, longer than a Unix socket path may be (%d): give a shorter --socket PATH, or --socket \"\" for none",
			errInvalid, pathText(path), len(path), maxSocketPath)
	}
	fi, err := os.Lstat(path)
	switch {
	case err == nil && fi.Mode()&os.ModeSocket == 0:
		return fmt.Errorf("%w: serve: --socket %s exists and is not a socket", errInvalid, pathText(path))
	case err == nil, !checkDir:
		return nil
	}
	if _, err := os.Stat(filepath.Dir(path)); err != nil {
		return fmt.Errorf("%w: serve: --socket %s: %v", errInvalid, pathText(path), quotePath(err))
	}
	return nil
}

// checkListenAddr checks serve's --listen before anything is opened: it
// must be host:port with a port number (0: any free one) or service name;
// else an invalid value (exit 7).
func checkListenAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = net.LookupPort("tcp", port)
	}
	if err != nil {
		return fmt.Errorf("%w: serve: --listen %q: want host:port (e.g. 127.0.0.1:7474): %v", errInvalid, addr, err)
	}
	return nil
}

// listenError classifies the error of listening on serve's --listen addr.
// A host that does not resolve (the name server says there is no such
// host), an address that is none of this machine's (EADDRNOTAVAIL) and a
// port this user may not bind (EACCES: below 1024 without the privilege)
// are invalid values (exit 7): trying again will not help. Anything else,
// above all an address in use, is unavailable (exit 6).
func listenError(addr string, err error) error {
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound || errors.Is(err, syscall.EADDRNOTAVAIL):
		return fmt.Errorf("%w: serve: --listen %s: %v", errInvalid, addr, err)
	case errors.Is(err, syscall.EACCES):
		return fmt.Errorf("%w: serve: --listen %s: %v (a port below 1024 needs the privilege to bind it, such as CAP_NET_BIND_SERVICE; choose a port above 1023)", errInvalid, pathText(addr), err)
	}
	return fmt.Errorf("%w: serve: %v", api.ErrUnavailable, err)
}

// listenUnix listens on the Unix socket path, mode 0600 from the moment
// path exists (listenPrivate; where that cannot be, it says so on stderr).
// A socket file already at path that nobody listens on (left by a server
// that was killed) is replaced; one a process listens on is in use
// (checkSocketFree), as is one that appears at path while the socket is
// bound. The listener's Addr is path.
func listenUnix(path string, stderr io.Writer) (net.Listener, error) {
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("%w: serve: --socket %s exists and is not a socket", errInvalid, pathText(path))
		}
		if err := checkSocketFree(path); err != nil {
			return nil, err
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("serve: stale socket: %w", err)
		}
	}
	return listenPrivate(path, stderr)
}

// checkSocketFree returns an error matching api.ErrUnavailable (exit 6)
// if a process listens on the Unix socket path: it accepts a connection,
// or refuses one for any reason but nobody listening (a full accept
// queue, EAGAIN; another user's socket, EACCES). A socket file nobody
// listens on (ECONNREFUSED: left by a server that was killed), or no
// socket at path, is free: nil.
func checkSocketFree(path string) error {
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSocket == 0 {
		return nil // nothing there, or not a socket (checkSocketPath)
	}
	c, err := net.DialTimeout("unix", path, time.Second)
	switch {
	case err == nil:
		c.Close()
		return fmt.Errorf("%w: serve: socket %s is in use by another process", api.ErrUnavailable, pathText(path))
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, os.ErrNotExist):
		return nil
	}
	return fmt.Errorf("%w: serve: socket %s is in use by another process (%v)", api.ErrUnavailable, pathText(path), err)
}

// listenInPlace listens on the Unix socket path, which does not exist,
// bound at path and chmodded 0600 right after: in between, the socket has
// the umask's mode. An error binding (another socket appeared at path)
// matches api.ErrUnavailable.
func listenInPlace(path string) (net.Listener, error) {
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("%w: serve: %v", api.ErrUnavailable, err)
	}
	// Not unlinked by Close: serve removes it once every request is done.
	l.SetUnlinkOnClose(false)
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		os.Remove(path)
		return nil, fmt.Errorf("serve: %w", err)
	}
	return l, nil
}

// logger returns the log of serve: on stderr, prefixed.
func (e *env) logger() *log.Logger { return log.New(e.stderr, "cortexctl: serve: ", 0) }
