package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/cortexgraph/cortex/api"
)

// roles maps every request to the least role its token needs: JSON-RPC
// methods as "rpc METHOD", the other routes as "ROUTE HTTP-METHOD". It is
// the one table of who may do what; a request it does not list needs
// admin (TestRoles_EveryMethodHasARole keeps it complete).
var roles = map[string]Role{
	"rpc teams.create":           RoleWrite,
	"rpc teams.get":              RoleRead,
	"rpc teams.list":             RoleRead,
	"rpc teams.delete":           RoleAdmin,
	"rpc teams.pause":            RoleWrite,
	"rpc teams.resume":           RoleWrite,
	"rpc teams.disband":          RoleWrite,
	"rpc teams.plan.draft":       RoleWrite,
	"rpc teams.plan.submit":      RoleWrite,
	"rpc teams.plan.review":      RoleWrite,
	"rpc teams.plan.get":         RoleRead,
	"rpc teams.plan.list":        RoleRead,
	"rpc teams.snapshot.create":  RoleWrite,
	"rpc teams.snapshot.list":    RoleRead,
	"rpc teams.snapshot.get":     RoleRead,
	"rpc teams.snapshot.restore": RoleAdmin, // rewrites a team wholesale
	"rpc teams.snapshot.delete":  RoleAdmin,
	"rpc teams.member_status":    RoleWrite,
	"rpc teams.merge":            RoleWrite,
	"rpc teams.is_complete":      RoleRead,
	"rpc findings.add":           RoleWrite,
	"rpc findings.add_batch":     RoleWrite,
	"rpc findings.list":          RoleRead,
	"rpc findings.import":        RoleWrite,
	"rpc facts.list":             RoleRead,
	"rpc conflicts.list":         RoleRead,
	"rpc conflicts.resolve":      RoleWrite,
	"rpc strategies.list":        RoleRead,
	"rpc prefixes.get":           RoleRead,
	"rpc namespaces.list":        RoleAdmin, // a token's namespace only (scopeOf); without a token, every namespace
	"rpc namespaces.delete":      RoleAdmin,
	"rpc graphs.list":            RoleRead,
	"rpc stats.get":              RoleAdmin, // the store's size; namespaces as namespaces.list
	"rpc tokens.create":          RoleAdmin,
	"rpc tokens.list":            RoleAdmin,
	"rpc tokens.revoke":          RoleAdmin,
	"rpc defs.import":            RoleWrite,
	"rpc defs.list":              RoleRead,
	"rpc defs.get":               RoleRead,
	"rpc defs.export":            RoleRead,
	"rpc defs.delete":            RoleAdmin, // as teams.delete
	"rpc POST":                   RoleRead,  // then the role of each method called
	"sparql GET":                 RoleRead,
	"sparql HEAD":                RoleRead,
	"sparql POST":                RoleRead, // the query operation only: Cortex has no SPARQL Update endpoint
	"data GET":                   RoleRead,
	"data HEAD":                  RoleRead,
	"data PUT":                   RoleWrite, // one that removes quads: admin, as DELETE (putGraph)
	"data POST":                  RoleWrite,
	"data DELETE":                RoleAdmin,
	"import POST":                RoleWrite,
	"export GET":                 RoleRead,
	"events GET":                 RoleRead,
	"events HEAD":                RoleRead,

	// The task board and the mailbox: reading needs read, acting write;
	// setting the mailbox's retention admin.
	"rpc teams.create_task":          RoleWrite,
	"rpc teams.update_task":          RoleWrite,
	"rpc teams.list_tasks":           RoleRead,
	"rpc teams.add_task_comment":     RoleWrite,
	"rpc teams.list_task_comments":   RoleRead,
	"rpc teams.list_task_events":     RoleRead,
	"rpc teams.task.get":             RoleRead,
	"rpc teams.task.claim":           RoleWrite,
	"rpc teams.task.next":            RoleWrite,
	"rpc teams.task.progress":        RoleWrite,
	"rpc teams.task.complete":        RoleWrite,
	"rpc teams.task.review":          RoleWrite,
	"rpc teams.task.fail":            RoleWrite,
	"rpc teams.task.cancel":          RoleWrite,
	"rpc teams.task.pause":           RoleWrite,
	"rpc teams.task.resume":          RoleWrite,
	"rpc teams.task.retry":           RoleWrite,
	"rpc teams.task.skip":            RoleWrite,
	"rpc teams.task.dispatch":        RoleWrite,
	"rpc teams.task.sweep":           RoleWrite,
	"rpc teams.task.board":           RoleRead,
	"rpc teams.task.configure_board": RoleWrite,
	"rpc teams.task.add_findings":    RoleWrite,
	"rpc teams.task.finish":          RoleWrite,
	"rpc teams.task.apply_ops":       RoleWrite,
	"rpc teams.chat.send":            RoleWrite,
	"rpc teams.chat.thread":          RoleRead,
	"rpc teams.chat.history":         RoleRead,
	"rpc teams.chat.inbox":           RoleRead,
	"rpc teams.chat.mark":            RoleWrite,
	"rpc teams.chat.configure":       RoleAdmin, // the retention decides which messages the sends delete
	"rpc teams.chat.retention":       RoleRead,
	"rpc workflows.start":            RoleWrite,
	"rpc workflows.get":              RoleRead,
	"rpc workflows.as_driver":        RoleRead, // and the role of the call it holds
	"rpc workflows.list":             RoleRead,
	"rpc workflows.history":          RoleRead,
	"rpc workflows.cancel":           RoleWrite,
	"rpc workflows.ready":            RoleWrite, // records what is due (timeouts, members) before reading
	"rpc workflows.start_step":       RoleWrite,
	"rpc workflows.add_findings":     RoleWrite,
	"rpc workflows.complete_step":    RoleWrite,
	"rpc workflows.fail_step":        RoleWrite,
	"rpc workflows.release_step":     RoleWrite,
	"rpc workflows.claim_driver":     RoleWrite,
	"rpc workflows.release_driver":   RoleWrite,
}

// roleOf returns the role request key (see roles) needs. A HEAD that the
// table does not name needs what its GET needs: every route that serves
// GET serves HEAD, which is GET without the body (RFC 9110, 9.3.2).
func roleOf(key string) Role {
	if r, ok := roles[key]; ok {
		return r
	}
	if route, ok := strings.CutSuffix(key, " "+http.MethodHead); ok {
		if r, ok := roles[route+" "+http.MethodGet]; ok {
			return r
		}
	}
	return RoleAdmin
}

// policy is how a listener's requests are authenticated.
type policy int

const (
	// policyTrusted: no token needed (a Unix socket: its mode 0600 makes
	// it the owner's; on Linux, macOS and FreeBSD, a connection of
	// another user, which a socket of another mode lets in, needs one).
	policyTrusted policy = iota
	// policyTokensIfAny: a token is needed once the token file holds any
	// (loopback TCP, or any TCP with WithInsecure).
	policyTokensIfAny
	// policyTokensAlways: a token is always needed (TCP not on loopback,
	// or a Unix socket's connection from another user: otherUserKey).
	policyTokensAlways
)

// otherUserKey marks, in a connection's context, a connection on a Unix
// socket from a process of another user than the server's (and root):
// it is not trusted as the owner's (see otherUser).
type otherUserKey struct{}

// policyOf returns the policy of the requests accepted by l.
func (s *Server) policyOf(l net.Listener) policy {
	switch a := l.Addr().(type) {
	case *net.UnixAddr:
		return policyTrusted
	case *net.TCPAddr:
		if a.IP.IsLoopback() || s.opts.insecure {
			return policyTokensIfAny
		}
	}
	return policyTokensAlways
}

// IsLoopback reports whether the TCP address addr (host:port) is on
// loopback only: an IP of the loopback network, or "localhost". An empty
// host (":7474": every interface) is not.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// principal is who sends a request: anyone (no token needed), or the
// holder of tok.
type principal struct {
	anyone bool
	// untilToken: anyone only because the token file held no token yet
	// (policyTokensIfAny); an event stream so opened ends once one exists.
	untilToken bool
	tok        *Token
}

type principalKey struct{}

// crossOrigin refuses the requests that a browser sends on behalf of a
// page of another site (cross-site request forgery): every request but
// GET, HEAD and OPTIONS whose Sec-Fetch-Site is not same-origin or none,
// or whose Origin is not the Host. A page on any site can make a browser
// POST a text/plain or form body to 127.0.0.1 without asking (no CORS
// preflight), and a loopback listener without tokens would take it as the
// operator's own request. Clients that are not browsers send neither
// header and are not affected.
var crossOrigin = http.NewCrossOriginProtection()

// guard returns the server's handler behind the authentication of policy
// p: a browser's cross-origin request that is not GET, HEAD or OPTIONS is
// answered 403 (crossOrigin); a request that needs a token and has no
// valid one is answered 401 (with WWW-Authenticate: Bearer), except GET
// /healthz, which tells only "ok"; a request let in without a token on a
// loopback address by a Host name that is not localhost's is 403
// (rebindable). The request's principal goes in its context for allow.
func (s *Server) guard(p policy) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := p
		if other, _ := r.Context().Value(otherUserKey{}).(bool); other && p == policyTrusted {
			p = policyTokensAlways
		}
		if err := crossOrigin.Check(r); err != nil {
			refuse(w, r, fmt.Errorf("%w: %s %s: refused a browser's cross-origin request (%v): a page of another site cannot write here", ErrForbidden, r.Method, r.URL.EscapedPath(), err))
			return
		}
		pr, err := s.authenticate(r, p)
		if err != nil {
			if r.URL.Path != "/healthz" {
				if errors.Is(err, ErrUnauthorized) {
					w.Header().Set("WWW-Authenticate", `Bearer realm="cortex"`)
				}
				refuse(w, r, err)
				return
			}
			pr = principal{}
		}
		if pr.anyone && rebindable(r) {
			refuse(w, r, fmt.Errorf("%w: Host %q: a server on loopback without tokens answers a request by name only as localhost "+
				"(or an IP address), so that a web page cannot reach it by a name of its own that resolves to 127.0.0.1 (DNS rebinding): "+
				"use http://localhost:PORT or http://127.0.0.1:PORT, or a token (cortexctl tokens create)", ErrForbidden, r.Host))
			return
		}
		s.handler.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, pr)))
	})
}

// rebindable reports whether r came to a loopback address over TCP by a
// host name that is not localhost's: a web page whose own name an
// attacker made resolve to 127.0.0.1 (DNS rebinding) sends such requests,
// as same-origin ones, with the browser of the server's owner. A Host
// that is an IP address, localhost or a name under .localhost (which
// browsers resolve to loopback themselves, RFC 6761) is not.
func rebindable(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr)
	if !ok || !local.IP.IsLoopback() {
		return false
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if h, _, ok := strings.Cut(host, "%"); ok { // an IPv6 zone
		host = h
	}
	if net.ParseIP(host) != nil || host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return false
	}
	return true
}

// authenticate returns the principal of r under policy p; an error
// matching ErrUnauthorized if it needs a token and has no valid one (none,
// several Authorization headers, malformed, unknown, revoked, expired),
// or an internal error (500) if the token file cannot be read: a request
// that may need a token is refused then, never let in.
func (s *Server) authenticate(r *http.Request, p policy) (principal, error) {
	tokens := s.opts.tokens
	if p == policyTrusted {
		return principal{anyone: true}, nil
	}
	if p == policyTokensIfAny {
		any := false
		if tokens != nil {
			var err error
			if any, err = tokens.Any(); err != nil {
				return principal{}, tokenFileError(err)
			}
		}
		if !any {
			return principal{anyone: true, untilToken: tokens != nil}, nil
		}
	}
	hs := r.Header.Values("Authorization")
	if len(hs) > 1 {
		// Which one counts would depend on who reads them (a proxy may
		// check one, the server take another): none does.
		return principal{}, fmt.Errorf("%w: %d Authorization headers: send one", ErrUnauthorized, len(hs))
	}
	h := ""
	if len(hs) == 1 {
		h = hs[0]
	}
	if h == "" {
		return principal{}, fmt.Errorf("%w: this server needs a bearer token (Authorization: Bearer TOKEN; cortexctl tokens create)", ErrUnauthorized)
	}
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
		return principal{}, fmt.Errorf("%w: malformed Authorization header (want Bearer TOKEN)", ErrUnauthorized)
	}
	if tokens == nil {
		return principal{}, fmt.Errorf("%w: unknown token (this server keeps no tokens)", ErrUnauthorized)
	}
	t, err := tokens.Authenticate(strings.TrimSpace(tok), s.opts.now())
	if err != nil {
		if !errors.Is(err, ErrUnauthorized) {
			err = tokenFileError(err)
		}
		return principal{}, err
	}
	return principal{tok: &t}, nil
}

// tokenFileError is the answer to a request whose token cannot be checked
// because the server's token file cannot be read (corrupt, unsafe mode):
// the server's fault, not the request's, so an internal error (500, exit
// code 1) whatever err matches (a syntax error of the file is not the
// request's, and a 400 would send its client looking for one).
func tokenFileError(err error) error {
	return fmt.Errorf("the server cannot check bearer tokens, and refuses every request that needs one until its token file is fixed: %s", err)
}

// allow returns nil if the principal of ctx may do what needs role need
// in namespace ns; else an error matching ErrForbidden (or ErrUnauthorized
// for a request let in without a token, which only /healthz is).
func allow(ctx context.Context, ns string, need Role, what string) error {
	pr, _ := ctx.Value(principalKey{}).(principal)
	switch {
	case pr.anyone:
		return nil
	case pr.tok == nil:
		return fmt.Errorf("%w: %s needs a bearer token", ErrUnauthorized, what)
	case pr.tok.Namespace != ns:
		return fmt.Errorf("%w: token %s is for namespace %q, not %q", ErrForbidden, pr.tok.ID, pr.tok.Namespace, ns)
	case !pr.tok.Role.Allows(need):
		return fmt.Errorf("%w: %s needs role %s, token %s has role %s", ErrForbidden, what, need, pr.tok.ID, pr.tok.Role)
	}
	return nil
}

// scopeOf returns which namespaces the principal of ctx may learn of
// through a listing (namespaces.list, stats.get, /metrics): every
// namespace (all) for one let in without a token (a Unix socket, a
// loopback server with no token yet: the store's owner); else only the
// namespace of its token (ns), whatever its role: a token, admin
// included, is of one namespace, and never learns the names or sizes of
// the others.
func scopeOf(ctx context.Context) (ns string, all bool) {
	pr, _ := ctx.Value(principalKey{}).(principal)
	if pr.anyone {
		return "", true
	}
	if pr.tok != nil {
		return pr.tok.Namespace, false
	}
	return "", false // no principal: nothing
}

// visible returns the names of names that the principal of ctx may learn
// of (scopeOf), in their order.
func visible(ctx context.Context, names []string) []string {
	ns, all := scopeOf(ctx)
	if all {
		return names
	}
	out := []string{}
	for _, name := range names {
		if ns != "" && name == ns {
			out = append(out, name)
		}
	}
	return out
}

// tokenFile returns the server's token file, or an error if it has none.
func (c *rpcCtx) tokenFile() (*TokenFile, error) {
	if c.s.opts.tokens == nil {
		return nil, fmt.Errorf("%w: this server keeps no tokens (Options.WithTokens)", api.ErrUsage)
	}
	return c.s.opts.tokens, nil
}

// CreatedToken is the result of tokens.create: the token, shown once,
// and its record.
type CreatedToken struct {
	Token
	Secret string `json:"token"`
}

// tokensCreate: {"role": "read", "expires": "24h"} (expires optional) ->
// a CreatedToken of the namespace of the request.
func tokensCreate(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		Role    string `json:"role"`
		Expires string `json:"expires"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := required("role", p.Role); err != nil {
		return nil, err
	}
	role, err := ParseRole(p.Role)
	if err != nil {
		return nil, err
	}
	ttl, err := ParseExpiry(p.Expires)
	if err != nil {
		return nil, err
	}
	f, err := c.tokenFile()
	if err != nil {
		return nil, err
	}
	tok, t, err := f.Create(ctx, c.ns, role, ttl)
	if err != nil {
		return nil, err
	}
	return CreatedToken{Token: t, Secret: tok}, nil
}

// tokensList: {} -> the tokens of the namespace of the request.
func tokensList(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	if err := decodeParams(params, &struct{}{}); err != nil {
		return nil, err
	}
	f, err := c.tokenFile()
	if err != nil {
		return nil, err
	}
	return f.List(ctx, c.ns)
}

// tokensRevoke: {"id": "..."} -> the token revoked, of the namespace of
// the request.
func tokensRevoke(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		ID string `json:"id"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := required("id", p.ID); err != nil {
		return nil, err
	}
	f, err := c.tokenFile()
	if err != nil {
		return nil, err
	}
	return f.Revoke(ctx, c.ns, p.ID)
}

// ParseExpiry reads the expiry of a new token: a Go duration ("24h",
// "90m"), or "" for none. A duration that is not positive matches
// api.ErrInvalid.
func ParseExpiry(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		// time's message says why ("unknown unit", "invalid duration" of
		// one over about 290 years).
		return 0, fmt.Errorf("%w: expiry %q: want a positive duration such as 24h or 90m (%v)", api.ErrInvalid, s, err)
	}
	if d <= 0 {
		return 0, fmt.Errorf("%w: expiry %q: want a positive duration such as 24h or 90m", api.ErrInvalid, s)
	}
	return d, nil
}
