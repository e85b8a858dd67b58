package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/client"
	cxconfig "github.com/cortexgraph/cortex/config"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/server"
	"github.com/cortexgraph/cortex/teammanager"
)

// How the workload reaches the store (--server; the summary's "via").
const (
	viaInProcess = "in-process" // --server "": a *teammanager.Manager of the store, in this process
	viaUnix      = "unix"       // a server.Server of the store in this process, on a Unix socket, called through package client
	viaTCP       = "tcp"        // the same on 127.0.0.1 (a free port)
)

// host is what the benchmark drives: a team manager (embedded or a client
// of a server: one code path measures both) and the operator's SPARQL
// count.
type host struct {
	via string // viaInProcess, viaUnix, viaTCP or the URL of a server
	m   api.TeamManager
	x   namespace.NS // the namespace of the teams, to build and read their IRIs
	// count runs countQuery with ?team bound to team and returns its rows
	// (member, count).
	count func(ctx context.Context, team quad.IRI) ([][]quad.Value, error)
}

// benchNS returns the benchmark's namespace, with the base a server of the
// default configuration gives it.
func benchNS() (namespace.NS, error) {
	x, err := namespace.New(nsName, namespace.WithBase(cxconfig.Default().NamespaceBase(nsName)))
	if err != nil {
		return namespace.NS{}, fmt.Errorf("namespace %s: %w", nsName, err)
	}
	return x, nil
}

// embeddedHost returns the host of a team manager of s in this process.
func embeddedHost(ctx context.Context, s *cortex.Store, c config) (host, error) {
	x, err := benchNS()
	if err != nil {
		return host{}, err
	}
	m, err := teammanager.New(ctx, s, x, teammanager.DefaultConfig().WithMaxTeamSize(maxTeamSize(c)))
	if err != nil {
		return host{}, fmt.Errorf("team manager: %w", err)
	}
	count := func(ctx context.Context, team quad.IRI) ([][]quad.Value, error) {
		res, err := m.Query(ctx, countQuery, sparql.Options{}.Bind("team", team))
		if err != nil {
			return nil, err
		}
		defer res.Close()
		var rows [][]quad.Value
		for res.Next(ctx) {
			rows = append(rows, append([]quad.Value(nil), res.Row()...))
		}
		return rows, res.Err()
	}
	return host{via: viaInProcess, m: m, x: x, count: count}, nil
}

// remoteHost returns the host of a client of the server at target (as
// client.New reads it), reporting via as its way. With stream, the
// client's JSON-RPC calls share one JSON-RPC stream (its default); else
// each is an HTTP request, timed by the server (Server-Timing), and the
// client keeps up to conns idle connections to the server (net/http keeps
// 2 by default: the other concurrent callers would dial a new connection
// for every call).
func remoteHost(target, via string, conns int, stream bool) (host, error) {
	x, err := benchNS()
	if err != nil {
		return host{}, err
	}
	opts := client.DefaultOptions().WithNamespace(nsName)
	if stream {
		cl, err := client.New(target, opts.WithRPCStream(true))
		if err != nil {
			return host{}, err
		}
		return host{via: via, m: cl, x: x, count: remoteCount(cl)}, nil
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = conns
	// A Unix socket is dialled here rather than by client.New, which would
	// replace the timing transport below with a copy of tr.
	socket, ok, err := unixSocket(target)
	if err != nil {
		return host{}, err
	}
	if ok {
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		}
		target = "http://cortex"
	}
	hc := &http.Client{Transport: timingTransport{tr}}
	cl, err := client.New(target, opts.WithHTTPClient(hc).WithRPCStream(false))
	if err != nil {
		return host{}, err
	}
	return host{via: via, m: cl, x: x, count: remoteCount(cl)}, nil
}

// remoteCount is the operator's count through the SPARQL endpoint of cl's
// server.
func remoteCount(cl *client.Client) func(ctx context.Context, team quad.IRI) ([][]quad.Value, error) {
	return func(ctx context.Context, team quad.IRI) ([][]quad.Value, error) {
		// The SPARQL protocol has no bindings: the team's IRI is written
		// in the query.
		res, err := cl.Query(ctx, strings.ReplaceAll(countQuery, "?team", "<"+string(team)+">"), client.QueryOptions{})
		if err != nil {
			return nil, err
		}
		if res.Solutions == nil {
			return nil, errors.New("the server answered no solutions")
		}
		rows := make([][]quad.Value, len(res.Solutions.Rows))
		for i, r := range res.Solutions.Rows {
			rows[i] = r
		}
		return rows, nil
	}
}

// unixSocket returns the socket path of a unix:// target, as client.New
// reads it: unix:///path, percent-encoded (%20 a space, %25 a percent
// sign), or the path itself, as it is.
func unixSocket(target string) (string, bool, error) {
	if socket, ok := strings.CutPrefix(target, "unix://"); ok {
		p, err := url.PathUnescape(socket)
		if err != nil {
			return "", false, fmt.Errorf("server %q: %v: a unix:// URL's path is percent-encoded (%%20 a space, %%25 a percent sign), or give the socket's path itself", target, err)
		}
		return p, p != "", nil
	}
	return target, strings.HasPrefix(target, "/"), nil
}

// serverTimeKey is the context key of a *time.Duration into which
// timingTransport stores the server's time in a JSON-RPC call.
type serverTimeKey struct{}

// withServerTime returns ctx carrying slot for timingTransport.
func withServerTime(ctx context.Context, slot *time.Duration) context.Context {
	return context.WithValue(ctx, serverTimeKey{}, slot)
}

// timingTransport reads the Server-Timing header of a server's JSON-RPC
// responses ("call;dur=MS": the time the server spent in the call) into
// the *time.Duration of the request's context, if it has one (0 if the
// response has none): the client's time beyond it is the call's way
// through HTTP.
type timingTransport struct{ http.RoundTripper }

func (t timingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.RoundTripper.RoundTrip(req)
	if slot, ok := req.Context().Value(serverTimeKey{}).(*time.Duration); ok && err == nil {
		*slot = serverTiming(resp.Header.Get("Server-Timing"))
	}
	return resp, err
}

// serverTiming returns the duration of a Server-Timing header's "call"
// metric, 0 if it has none.
func serverTiming(h string) time.Duration {
	for _, m := range strings.Split(h, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(m), ";")
		if name != "call" {
			continue
		}
		for _, p := range strings.Split(params, ";") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(p), "dur="); ok {
				if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
					return time.Duration(ms * float64(time.Millisecond))
				}
			}
		}
	}
	return 0
}

// serveHost starts a server of s in this process on the transport via
// (viaUnix or viaTCP), with the team size limit of c, and returns the host
// of a client of it and the function that stops the server (call it
// before closing s).
func serveHost(ctx context.Context, s *cortex.Store, c config, via string) (host, func() error, error) {
	var l net.Listener
	var target, sockDir string
	var err error
	switch via {
	case viaUnix:
		if sockDir, err = os.MkdirTemp("", "hostload-sock-"); err != nil {
			return host{}, nil, fmt.Errorf("socket directory: %w", err)
		}
		sock := filepath.Join(sockDir, "cortex.sock")
		l, err = net.Listen("unix", sock)
		target = "unix://" + sock
	case viaTCP:
		l, err = net.Listen("tcp", "127.0.0.1:0")
		if err == nil {
			target = "http://" + l.Addr().String()
		}
	default:
		return host{}, nil, fmt.Errorf("serve: unknown transport %q", via)
	}
	if err != nil {
		if sockDir != "" {
			os.RemoveAll(sockDir)
		}
		return host{}, nil, fmt.Errorf("serve: %w", err)
	}
	cfg := cxconfig.Default()
	cfg.Teams.MaxTeamSize = maxTeamSize(c)
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- server.New(s, server.DefaultOptions().WithConfig(cfg)).Serve(sctx, l) }()
	stop := func() error {
		cancel()
		err := <-done
		if sockDir != "" {
			os.RemoveAll(sockDir)
		}
		return err
	}
	h, err := remoteHost(target, via, clients(c), c.stream)
	if err != nil {
		return host{}, nil, errors.Join(err, stop())
	}
	return h, stop, nil
}

// clients returns the number of concurrent callers of a run of c: its
// agents and the operator.
func clients(c config) int { return c.Teams*c.Agents + 1 }

// checkServerURL returns a usage error unless u is the URL of a server on
// this machine: unix:///path, a socket path, or http://ADDR with a
// loopback ADDR (the load never leaves loopback).
func checkServerURL(u string) error {
	if strings.HasPrefix(u, "unix://") || strings.HasPrefix(u, "/") {
		return nil
	}
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "http" || p.Host == "" {
		return usagef("--server %q: want unix, tcp, unix:///path/to/socket or http://127.0.0.1:PORT", u)
	}
	if h := p.Hostname(); h != "localhost" {
		if ip := net.ParseIP(h); ip == nil || !ip.IsLoopback() {
			return usagef("--server %q: not a loopback address (the load stays on this machine)", u)
		}
	}
	return nil
}
