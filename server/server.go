package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
	"github.com/cortexgraph/cortex/workflow"
)

// Server serves one store. It is safe for concurrent use; see the package
// documentation.
type Server struct {
	store   *cortex.Store
	opts    Options
	handler http.Handler
	metrics *metrics
	turns   chan struct{} // one per read-heavy request running (limits.go)
	streams chan struct{} // one per event stream open (Options.WithMaxEventStreams)
	// rpcStreams holds one per JSON-RPC stream open
	// (Options.WithMaxRPCStreams).
	rpcStreams chan struct{}

	mu       sync.Mutex
	managers map[string]*teammanager.Manager // by namespace name, created on first use
	// opened holds, by namespace name, the namespace that managers[name]
	// was created over: one that has ended (an embedder's
	// cortex.Store.DeleteNamespace) has its manager replaced.
	opened  map[string]*cortex.Namespace
	engines map[string]*workflow.Engine // by namespace name, created on first use, over managers[name]
	deleted map[string]*deletionWatch   // by namespace name, while a stream holds it (nsDeleted)
}

// New returns a server of store with opts (a zero field of opts has its
// default: Options{} is DefaultOptions()). The store stays the caller's:
// the server never closes it.
func New(store *cortex.Store, opts Options) *Server {
	opts = opts.withDefaults()
	s := &Server{store: store, opts: opts, managers: map[string]*teammanager.Manager{}, opened: map[string]*cortex.Namespace{}, engines: map[string]*workflow.Engine{}, deleted: map[string]*deletionWatch{}, turns: make(chan struct{}, opts.maxQueries), streams: make(chan struct{}, opts.maxEventStreams), rpcStreams: make(chan struct{}, opts.maxRPCStreams)}
	s.metrics = newMetrics(s)
	s.handler = s.routes()
	return s
}

// Handler returns the server's HTTP handler (all its routes), for a caller
// that runs its own http.Server. It authenticates requests as on a TCP
// listener on loopback: a token is needed once the token file
// (Options.WithTokens) holds any.
// Its http.Server's Shutdown does not wait for the calls in flight on
// JSON-RPC streams (hijacked connections): the streams stop reading when
// it starts, and answer those calls if they can.
func (s *Server) Handler() http.Handler { return s.guard(policyTokensIfAny) }

// Serve accepts connections on l and serves them until ctx ends; then it
// stops accepting, waits for the requests in flight (and the calls in
// flight on JSON-RPC streams, which it answers before closing the streams)
// for at most the shutdown timeout (Options.WithShutdownTimeout), cuts
// those still running, and returns. It closes l. It returns nil after a shutdown, or the error
// that stopped it from accepting. Serve may run on several listeners at
// once. It applies the connection limits of Options: the read header,
// body, idle and write timeouts and the size of headers.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	streams := &streamSet{}
	hs := &http.Server{
		Handler:           s.limitBody(s.timedResponses(s.guard(s.policyOf(l)))),
		ReadHeaderTimeout: s.opts.readHeaderTimeout,
		IdleTimeout:       s.opts.idleTimeout,
		MaxHeaderBytes:    s.opts.maxHeaderBytes,
		ErrorLog:          s.opts.logger,
		// Requests outlive ctx: a shutdown lets them finish. Event
		// streams, which never finish on their own, end when ctx does
		// (shutdownOf).
		// JSON-RPC streams (rpcstream.go), whose connections
		// http.Server no longer tracks, are waited for here.
		BaseContext: func(net.Listener) context.Context {
			base := context.WithValue(context.WithoutCancel(ctx), serveDoneKey{}, ctx.Done())
			return context.WithValue(base, streamsKey{}, streams)
		},
		// A Unix socket's connection from another user (a socket that
		// a host made with a permissive mode) is not its owner's.
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			if _, unix := l.Addr().(*net.UnixAddr); unix && otherUser(c) {
				return context.WithValue(ctx, otherUserKey{}, true)
			}
			return ctx
		},
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(l) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve %s: %w", l.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.opts.shutdownTimeout)
	defer cancel()
	err := hs.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		s.opts.logger.Printf("shutdown: requests still running after %s were cut", s.opts.shutdownTimeout)
		err = hs.Close()
	}
	if !streams.wait(sctx) {
		s.opts.logger.Printf("shutdown: JSON-RPC streams still running after %s were cut", s.opts.shutdownTimeout)
	}
	if serr := <-done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if err != nil {
		return fmt.Errorf("serve %s: shutdown: %w", l.Addr(), err)
	}
	return nil
}

// access is what a request does with its namespace, as in cortexctl: read
// it (it must exist), write to what it holds (it must exist), or create it
// if needed.
type access int

const (
	accessRead access = iota
	accessWrite
	accessCreate
)

// namespace returns namespace name, created if a is accessCreate; else a
// namespace that does not exist is an error matching cortex.ErrNotFound.
func (s *Server) namespace(ctx context.Context, name string, a access) (*cortex.Namespace, error) {
	base := cortex.WithBase(s.opts.cfg.NamespaceBase(name))
	if a == accessCreate {
		return s.store.Namespace(ctx, name, base)
	}
	n, err := s.store.OpenNamespace(ctx, name, base)
	if errors.Is(err, cortex.ErrNoNamespace) {
		return nil, err // it names the namespace, as the CLI says it
	} else if err != nil {
		return nil, fmt.Errorf("namespace %s: %w", name, err)
	}
	return n, nil
}

// namespaceForWrite is namespace(ctx, name, accessCreate) for a write
// that may fail: undo, called once the write failed, deletes the namespace
// again if this call created it and nothing else used it since
// (cortex.Store.DeleteNamespaceIfUnused), so that a write that fails
// creates no namespace.
func (s *Server) namespaceForWrite(ctx context.Context, name string) (n *cortex.Namespace, undo func(), err error) {
	n, created, err := s.store.NamespaceCreated(ctx, name, cortex.WithBase(s.opts.cfg.NamespaceBase(name)))
	if err != nil {
		return nil, nil, err
	}
	return n, func() {
		if created {
			if _, err := s.store.DeleteNamespaceIfUnused(ctx, n); err != nil {
				s.opts.logger.Printf("namespace %s, created for a write that failed: %v", name, err)
			}
		}
	}, nil
}

// manager returns the team manager of namespace name, creating it on first
// use (and the namespace, if a is accessCreate), and again once the
// namespace it was created over has ended: deleted by an embedder
// (cortex.Store.DeleteNamespace, not deleteNamespace), so that the
// namespace created again under its name is served as after
// namespaces.delete.
func (s *Server) manager(ctx context.Context, name string, a access) (*teammanager.Manager, error) {
	s.mu.Lock()
	m, ok := s.managers[name]
	if ok && s.opened[name].Err() != nil {
		s.forget(name)
		ok = false
	}
	s.mu.Unlock()
	if ok {
		s.openWrites(ctx, name, m)
		return m, nil
	}
	n, err := s.namespace(ctx, name, a)
	if err != nil {
		return nil, err
	}
	x, err := namespace.New(name, namespace.WithBase(s.opts.cfg.NamespaceBase(name)))
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.managers[name]; ok && s.opened[name].Err() == nil {
		return m, nil
	}
	cfg := api.ManagerConfig(s.opts.cfg, n, x)
	if allow(ctx, name, RoleWrite, "") != nil {
		// A caller that may not write opens it: New only reads (no
		// rebuild of a stale team table, no retry of interrupted
		// merges); the Manager's reads and writes do them later.
		cfg = cfg.WithOpenWrites(false)
	}
	m, err = teammanager.New(ctx, s.store, x, cfg)
	if err != nil {
		return nil, err
	}
	s.forget(name)
	s.managers[name], s.opened[name] = m, n
	return m, nil
}

// openWrites has m, if a caller that may not write opened it, do the
// writes of its opening (teammanager.Manager.OpenWrites: rebuild a stale
// team table, retry the merges a previous process left interrupted) when
// the caller may write, so that those merges do not wait for a write to
// their team, whoever came first. Once done, it costs nothing.
func (s *Server) openWrites(ctx context.Context, name string, m *teammanager.Manager) {
	if allow(ctx, name, RoleWrite, "") != nil {
		return
	}
	if err := m.OpenWrites(ctx); err != nil {
		s.opts.logger.Printf("namespace %s: writes of the team manager's opening (left for the next caller that may write): %v", name, err)
	}
}

// forget drops the team manager and the workflow engine of namespace name
// (s.mu held).
func (s *Server) forget(name string) {
	delete(s.managers, name)
	delete(s.opened, name)
	delete(s.engines, name)
}

// engine returns the workflow engine of namespace name over its team
// manager m (created on first use, like the manager).
func (s *Server) engine(ctx context.Context, name string, m *teammanager.Manager) (*workflow.Engine, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if en, ok := s.engines[name]; ok && s.managers[name] == m {
		return en, nil
	}
	en, err := workflow.New(ctx, s.store, m, workflow.FromConfig(s.opts.cfg.Teams))
	if err != nil {
		return nil, err
	}
	if s.managers[name] == m {
		s.engines[name] = en
	}
	return en, nil
}

// prefixes returns the SPARQL prefixes of namespace name (teammanager.Prefixes).
func (s *Server) prefixes(name string) (map[string]string, error) {
	x, err := namespace.New(name, namespace.WithBase(s.opts.cfg.NamespaceBase(name)))
	if err != nil {
		return nil, err
	}
	return teammanager.Prefixes(x, s.opts.cfg.Prefixes), nil
}

// deleteNamespace deletes namespace name (cortex.Store.DeleteNamespace)
// and forgets its team manager: the next request that creates the
// namespace starts afresh. Calls on the old manager in flight meanwhile
// fail or see an empty namespace; its event streams end (nsDeleted).
func (s *Server) deleteNamespace(ctx context.Context, name string) error {
	s.mu.Lock()
	s.forget(name)
	s.mu.Unlock()
	err := s.store.DeleteNamespace(ctx, name)
	s.mu.Lock()
	s.forget(name) // one created meanwhile saw the old namespace
	if dw, ok := s.deleted[name]; ok {
		close(dw.ch)
		delete(s.deleted, name)
	}
	s.mu.Unlock()
	if err != nil {
		return fmt.Errorf("delete namespace %s: %w", name, err)
	}
	s.metrics.forget(name)
	return nil
}

// deletionWatch is the channel that deleteNamespace closes for the
// event streams of a namespace, and how many of them hold it.
type deletionWatch struct {
	ch    chan struct{}
	users int
}

// nsDeleted returns a channel closed when deleteNamespace next deletes
// namespace name, and the function that lets it go (once the caller no
// longer waits on it: the last one drops it, so that the server keeps
// none for the names nobody follows, such as those of namespaces that do
// not exist). A caller takes it before the namespace's manager, so that a
// manager of a namespace deleted since has its channel closed.
func (s *Server) nsDeleted(name string) (<-chan struct{}, func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	dw, ok := s.deleted[name]
	if !ok {
		dw = &deletionWatch{ch: make(chan struct{})}
		s.deleted[name] = dw
	}
	dw.users++
	return dw.ch, sync.OnceFunc(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if dw.users--; dw.users == 0 && s.deleted[name] == dw {
			delete(s.deleted, name)
		}
	})
}
