package main

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/client"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/server"
)

// remote returns the client of the server the command goes through, or
// nil if the command opens the store itself: --server's (CORTEX_SERVER),
// else the server that holds --data, found by its discovery file (its
// process alive, on Linux the very process that wrote it, not one that got
// its pid later: server.ReadDiscovery; and its socket, or else its
// address, answering). The first call decides.
func (e *env) remote() (*client.Client, error) {
	if e.remoteDone {
		return e.client, e.remoteErr
	}
	e.remoteDone = true
	target := e.serverURL
	if target == "" {
		d, err := discover(e.dataDir, os.Getuid())
		if err != nil {
			if !errors.Is(err, server.ErrNoServer) {
				fmt.Fprintf(e.stderr, "cortexctl: %s\n", oneLine(err.Error()))
			}
			return nil, nil // the store itself
		}
		if target = reachable(d); target == "" {
			return nil, nil
		}
		e.discovered = &d
	}
	e.client, e.remoteErr = e.newClient(target, e.nsName)
	return e.client, e.remoteErr
}

// runAction runs action, a command's. If the command went through the
// server that the discovery file of --data names and that server refused
// the connection of its first call (client.ErrNotSent, and no call sent:
// the server began to stop, and stopped accepting, between the discovery
// and the call), and the command read nothing of stdin, it runs action
// again, once, finding the server anew: a stopping server is then waited
// for (openAfterServer) and the command opens the store itself; a new
// server is gone through. (It used to exit 6.) Nothing of the first run
// reached the server, and no answer of it was printed.
func (e *env) runAction(action func() error) error {
	in := &readTracker{r: e.stdin}
	if e.stdin != nil {
		e.stdin = in
	}
	err := action()
	if e.discovered == nil || e.client == nil || e.client.Sent() || !errors.Is(err, client.ErrNotSent) || in.read {
		return err
	}
	fmt.Fprintf(e.stderr, "cortexctl: the server of %s (pid %d) refused the connection: looking for it again\n", pathText(e.dataDir), e.discovered.PID)
	e.client.Close()
	e.remoteDone, e.client, e.remoteErr, e.discovered, e.remotePrefixes = false, nil, nil, nil, nil
	return action()
}

// readTracker is a reader that records whether anything was read of r.
type readTracker struct {
	r    io.Reader
	read bool
}

func (t *readTracker) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 || err != nil {
		t.read = true
	}
	return n, err
}

// newClient returns a client of the server at target in namespace ns,
// sending --token. A target or a token that cannot be used is an invalid
// value (exit 7), before anything is sent.
func (e *env) newClient(target, ns string) (*client.Client, error) {
	if err := checkToken(e.token); err != nil {
		return nil, err
	}
	opts := client.DefaultOptions().WithNamespace(ns).WithToken(e.token).WithAnswerTimeout(e.answerTimeout)
	if d := e.discovered; d != nil && d.CertSHA256 != "" && strings.HasPrefix(target, "https://") {
		opts = opts.WithHTTPClient(pinnedClient(d.CertSHA256))
	}
	c, err := client.New(target, opts)
	if err != nil {
		return nil, fmt.Errorf("--server: %w", err)
	}
	return c, nil
}

// checkToken refuses a --token (CORTEX_TOKEN) that no HTTP header can
// carry: an invalid value (exit 7). The message does not repeat it (it is
// a secret).
func checkToken(tok string) error {
	for i := 0; i < len(tok); i++ {
		if c := tok[i]; c <= ' ' || c >= 0x7f {
			return fmt.Errorf("%w: --token (CORTEX_TOKEN) holds a space, a control character or a non-ASCII byte at byte %d: want the token cortexctl tokens create printed", api.ErrInvalid, i+1)
		}
	}
	return nil
}

// discover returns the discovery file of store directory dir if user uid
// owns it. A missing or stale file is server.ErrNoServer; one that another
// user owns (who could name a socket or address of theirs in it, to receive
// this user's commands and token) is ignored with an error saying so, as
// is one that cannot be read.
func discover(dir string, uid int) (server.Discovery, error) {
	path := filepath.Join(dir, server.DiscoveryFile)
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		// No file (ENOTDIR: dir is a file, or under one; the command
		// says so when it opens the store).
		return server.Discovery{}, fmt.Errorf("%w in %s", server.ErrNoServer, pathText(dir))
	}
	if err != nil {
		return server.Discovery{}, fmt.Errorf("ignoring the discovery file: %w", err)
	}
	if owner, known := fileOwner(fi); known && owner != uid {
		return server.Discovery{}, fmt.Errorf("ignoring %s: it belongs to user %d, not to this user (%d)", pathText(path), owner, uid)
	}
	d, err := server.ReadDiscovery(dir)
	if err != nil && !errors.Is(err, server.ErrNoServer) {
		return d, fmt.Errorf("ignoring %w", err)
	}
	return d, err
}

// reachable returns the client target of the server d describes: its
// socket if it accepts a connection, else its TCP address if that does
// (https:// if the server serves TLS there: d.CertSHA256, which
// pinnedClient trusts); "" if neither (a process that reused a dead
// server's pid). Only an address on this machine is used (loopback, or a
// server listening on every interface, reached on loopback): the command,
// and the token it carries, never go to another host because a file in
// --data says so.
func reachable(d server.Discovery) string {
	tcp := localAddr(d.Address)
	scheme := "http://"
	if d.CertSHA256 != "" {
		scheme = "https://"
	}
	for _, t := range []struct{ network, addr, target string }{
		// The socket's path percent-encoded, as a unix:// URL's is.
		{"unix", d.Socket, (&url.URL{Scheme: "unix", Path: d.Socket}).String()},
		{"tcp", tcp, scheme + tcp},
	} {
		if t.addr == "" {
			continue
		}
		if c, err := net.DialTimeout(t.network, t.addr, 5*time.Second); err == nil {
			c.Close()
			return t.target
		}
	}
	return ""
}

// localAddr returns the loopback address at which a server listening on
// addr (host:port) is reached from this machine, or "" if addr is not on
// loopback or every interface.
func localAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	if host == "localhost" {
		return addr
	}
	ip := net.ParseIP(host)
	switch {
	case ip == nil:
		return ""
	case ip.IsLoopback():
		return addr
	case ip.IsUnspecified() && ip.To4() != nil:
		return net.JoinHostPort("127.0.0.1", port)
	case ip.IsUnspecified():
		return net.JoinHostPort("::1", port)
	}
	return ""
}

// errDirect means a command that opens the store itself (serve) while it
// goes through a server.
var errDirect = errors.New("opens the store itself")

// direct returns nil if the command may open the store itself, or the
// error saying why it cannot: with --server, a usage error (exit 2); with
// the store held by a running server, an unavailable error (exit 6), as
// the store being locked would be.
func (e *env) direct() error {
	rc, err := e.remote()
	if err != nil || rc == nil {
		return err
	}
	if e.discovered == nil {
		return fmt.Errorf("%w: %s %w: run it without --server (CORTEX_SERVER), on the machine of the store",
			api.ErrUsage, e.command, errDirect)
	}
	d := e.discovered
	return fmt.Errorf("%w: the store in %s is served by process %d (cortexctl serve or a host), and %s %w: stop that server first",
		api.ErrUnavailable, e.dataDir, d.PID, e.command, errDirect)
}

// pinnedClient returns an HTTP client that trusts, over TLS, only the
// certificate whose SHA-256 is sum (hex), as a discovery file gives it:
// the server's certificate is issued for names of its own (not the
// loopback address the command reaches it at), and may be self-signed;
// the file, this user's, says which one the server holding --data
// presents. Another certificate fails the handshake, before the request
// (and its token) is sent.
func pinnedClient(sum string) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil // a loopback address
	tr.TLSClientConfig = &tls.Config{
		MinVersion:         tls.VersionTLS12,
		InsecureSkipVerify: true, // VerifyConnection checks the certificate instead
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) > 0 {
				got := sha256.Sum256(cs.PeerCertificates[0].Raw)
				if hex.EncodeToString(got[:]) == sum {
					return nil
				}
			}
			return fmt.Errorf("the server's TLS certificate is not the one its discovery file names (SHA-256 %s)", sum)
		},
	}
	return &http.Client{Transport: tr}
}

// serverStopPoll is how often a command waiting for a stopping server
// (openAfterServer) tries the store again.
const serverStopPoll = 50 * time.Millisecond

// serverStopMargin is how long past a stopping server's StopBy a command
// still waits for the store: the time its process takes to exit.
const serverStopMargin = time.Second

// openAfterServer is what open does when the store is locked (locked, the
// error of the open): if the lock is a server's that is stopping (its
// discovery file, this user's, has Stopping: it accepts no new
// connection and is letting its requests finish, up to 10 s for
// cortexctl serve), it says so on stderr and tries open again until the
// store is released, at most until the server's StopBy (and
// serverStopMargin), or ctx ends; else it returns locked at once, as
// does a store still locked then.
func (e *env) openAfterServer(ctx context.Context, locked error, open func() (*cortex.Store, error)) (*cortex.Store, error) {
	d, err := discover(e.dataDir, os.Getuid())
	if err != nil || d.Stopping.IsZero() {
		return nil, locked
	}
	by := d.StopBy
	if by.IsZero() || by.Before(d.Stopping) {
		by = d.Stopping.Add(serveShutdownTimeout + stopGrace)
	}
	by = by.Add(serverStopMargin)
	fmt.Fprintf(e.stderr, "cortexctl: the server of %s (pid %d) is stopping: waiting for it to release the store (until %s at most)\n",
		pathText(e.dataDir), d.PID, by.Local().Format(time.TimeOnly))
	t := time.NewTicker(serverStopPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for the server (pid %d) to release the store: %w", d.PID, context.Cause(ctx))
		case <-t.C:
		}
		s, err := open()
		if !errors.Is(err, cortex.ErrLocked) || time.Now().After(by) {
			return s, err
		}
	}
}
