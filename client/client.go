package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/internal/ctxcause"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/spec"
	"github.com/cortexgraph/cortex/workflow"
)

// Options configure a Client. Build them with DefaultOptions and the With
// methods; each method documents its default.
type Options struct {
	namespace string
	http      *http.Client
	token     string
	stream    *bool // WithRPCStream; nil: the default
	answer    time.Duration
}

// DefaultOptions returns the defaults: namespace "default", an HTTP
// client of its own (no timeout of its own) and an answer timeout of
// DefaultAnswerTimeout: a call lasts as long as its context, or until the
// server has not begun to answer it for that long.
func DefaultOptions() Options {
	return Options{namespace: namespace.Default, answer: DefaultAnswerTimeout}
}

// DefaultAnswerTimeout is how long a call waits for the server to begin
// its answer, by default (WithAnswerTimeout).
const DefaultAnswerTimeout = 5 * time.Minute

// WithAnswerTimeout sets how long a call waits, once its request is sent,
// for the server to begin its answer: an HTTP response's status and
// headers, or a JSON-RPC stream call's answer (and the answer that opens
// a stream). A server that accepts a request and never answers (stalled:
// a deadlock, a process stopped with SIGSTOP, a proxy that lost its
// backend) then fails the call with an error matching ErrNoAnswer (exit 8,
// timed out) instead of holding it until its context ends, which for
// cortexctl is never. A query waits its own timeout (QueryOptions.Timeout)
// on top, as the server runs it that long before it answers. What comes
// after the beginning of an answer (an export's data, a query's rows, an
// event stream that stays open) is not bounded by it. Default
// DefaultAnswerTimeout (5 minutes: a merge of a large team, the deletion
// of a large namespace, answer within it); 0 or less: none.
func (o Options) WithAnswerTimeout(d time.Duration) Options { o.answer = max(d, 0); return o }

// WithNamespace sets the namespace the client works in (default
// "default").
func (o Options) WithNamespace(name string) Options { o.namespace = name; return o }

// WithHTTPClient sets the HTTP client of a TCP target (its transport:
// TLS, proxies); a Unix socket target dials the socket through a copy of
// its transport if it is an *http.Transport, without its proxy (default:
// a client of its own; nil keeps the default). JSON-RPC calls then go through it as HTTP
// requests, unless WithRPCStream(true).
func (o Options) WithHTTPClient(c *http.Client) Options {
	if c != nil {
		o.http = c
	}
	return o
}

// WithToken sets the bearer token sent with every request (Authorization:
// Bearer TOKEN), as cortexctl tokens create printed it (default: none; a
// server on a Unix socket needs none). A token with a space, a control
// character (a newline read with it from a file) or a byte that is not
// ASCII, which no header carries as it is, makes New fail with an error
// matching api.ErrInvalid.
func (o Options) WithToken(tok string) Options { o.token = tok; return o }

// WithRPCStream sets whether the client's JSON-RPC calls share one
// JSON-RPC stream (one connection that carries every concurrent call; see
// stream.go) rather than each going as an HTTP request. The default is
// true for unix:// and http:// targets, unless WithHTTPClient gave an HTTP
// client, whose transport (a proxy, its own dialer) then carries every
// call, or the environment sends requests to the target through a proxy
// (HTTP_PROXY, the target not in NO_PROXY; never for a loopback address),
// which then carries them; an https:// target always sends requests. With
// a stream, the client connects to the target itself.
func (o Options) WithRPCStream(on bool) Options { o.stream = &on; return o }

// streams reports whether the client opens JSON-RPC streams.
func (o Options) streams() bool {
	if o.stream != nil {
		return *o.stream
	}
	return o.http == nil
}

// Client calls a Cortex server in one namespace. It is safe for
// concurrent use.
type Client struct {
	target string // as given to New (without a URL's password), for messages
	base   string // URL of the server's root, without a trailing slash
	ns     string
	http   *http.Client
	token  string

	// dial connects to the server for a JSON-RPC stream; nil: no streams.
	dial      func(ctx context.Context) (net.Conn, error)
	streamOff atomic.Bool   // the server opens no stream: HTTP requests only
	smu       sync.Mutex    // guards st, opening and closes
	st        *stream       // the open stream, if any
	opening   chan struct{} // closed when the stream being opened (if any) is open or failed
	closes    uint64        // Close calls: a stream opened across one is closed
	idle      time.Duration

	// streamBusyUntil (Unix ns): the server refused a stream busy (at its
	// limit of streams): HTTP requests until then.
	streamBusyUntil atomic.Int64

	// sent is set once a call may have reached the server (Sent).
	sent *atomic.Bool
	// answer is how long a call waits for the beginning of its answer
	// (Options.WithAnswerTimeout; 0: no limit).
	answer time.Duration
}

var _ api.TeamManager = (*Client)(nil)

// New returns a client of the server at target: "unix:///path/to/socket"
// (its path percent-encoded as a URL's: unix:///tmp/a%20b/cortex.sock for
// the socket /tmp/a b/cortex.sock; or the socket's path itself, as it
// is), or "http://host:port" ("https://" with
// WithHTTPClient's TLS settings); the scheme in any case. It connects on first use: a server that
// is not there is an error of the first call, matching api.ErrUnavailable.
// A target New cannot read, an invalid namespace name or token
// (WithToken) is an error matching api.ErrInvalid. A call that the server redirects with 301, 302
// or 303 (a proxy that sends http:// to https://) fails so too, naming
// where it redirects, and is not sent there; 307 and 308 are followed,
// except, with a token (WithToken), to another origin (scheme, host or
// port), where the token would go: that fails so too.
func New(target string, opts Options) (*Client, error) {
	if err := namespace.ValidateName(opts.namespace); err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	for i := 0; i < len(opts.token); i++ {
		// (The message does not repeat the token: it is a secret.)
		if b := opts.token[i]; b <= ' ' || b >= 0x7f {
			return nil, fmt.Errorf("client: %w: the token holds a space, a control character or a byte that is not ASCII at byte %d", api.ErrInvalid, i+1)
		}
	}
	if i := strings.Index(target, "://"); i > 0 {
		// A scheme is case-insensitive (RFC 3986, 3.1): HTTP://host works.
		switch scheme := strings.ToLower(target[:i]); scheme {
		case "unix", "http", "https":
			target = scheme + target[i:]
		}
	}
	c := &Client{target: target, ns: opts.namespace, token: opts.token, idle: streamIdle, sent: new(atomic.Bool), answer: opts.answer}
	hc := opts.http
	if hc == nil {
		hc = &http.Client{}
	}
	socket, isSocket := strings.CutPrefix(target, "unix://")
	if isSocket {
		// A URL's path: percent-encoded (unix:///tmp/a%20b/cortex.sock
		// is the socket "/tmp/a b/cortex.sock", %25 a percent sign).
		p, err := url.PathUnescape(socket)
		if err != nil {
			return nil, fmt.Errorf("%w %q: %v: a unix:// URL's path is percent-encoded (%%20 a space, %%25 a percent sign), or give the socket's path itself", ErrTarget, target, err)
		}
		socket = p
	} else if strings.HasPrefix(target, "/") {
		socket, isSocket = target, true // the path itself, as it is
	}
	switch {
	case isSocket:
		if socket == "" {
			return nil, fmt.Errorf("%w %q: no socket path (want unix:///path/to/socket)", ErrTarget, target)
		}
		tr := &http.Transport{}
		if t, ok := hc.Transport.(*http.Transport); ok {
			tr = t.Clone()
		}
		// The socket is dialled, never a proxy (one from the
		// environment, as http.DefaultTransport's clone has it, would be
		// spoken to on the socket: SOCKS, TLS, its credentials).
		tr.Proxy = nil
		dial := func(ctx context.Context) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		}
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) { return dial(ctx) }
		if opts.streams() {
			c.dial = dial
		}
		copied := *hc
		copied.Transport = tr
		c.http, c.base = keepMethod(&copied, opts.token != ""), "http://cortex"
	case strings.HasPrefix(target, "http://"), strings.HasPrefix(target, "https://"):
		u, err := url.Parse(target)
		if err != nil {
			return nil, fmt.Errorf("%w: %v: want http://host:port", ErrTarget, err) // url.Parse's error hides a password
		}
		if u.Host == "" || u.RawQuery != "" || u.ForceQuery || strings.Contains(target, "#") {
			// (An empty query or fragment too: the routes would go
			// after it.)
			return nil, fmt.Errorf("%w %q: want http://host:port", ErrTarget, u.Redacted())
		}
		if p := u.Port(); p != "" {
			if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
				return nil, fmt.Errorf("%w %q: port %s: want 1 to 65535", ErrTarget, u.Redacted(), p)
			}
		}
		// Messages name the target without the password of its user info.
		c.target = u.Redacted()
		c.http, c.base = keepMethod(hc, opts.token != ""), strings.TrimRight(target, "/")
		if u.Scheme == "http" && opts.streams() && (opts.stream != nil || !proxied(u)) {
			host := u.Host
			if u.Port() == "" {
				host = net.JoinHostPort(u.Hostname(), "80")
			}
			c.dial = func(ctx context.Context) (net.Conn, error) {
				var d net.Dialer
				return d.DialContext(ctx, "tcp", host)
			}
		}
	default:
		return nil, fmt.Errorf("%w %q: want unix:///path/to/socket, a socket path or http://host:port", ErrTarget, target)
	}
	return c, nil
}

// proxied reports whether the environment sends requests to the server
// at u through a proxy (HTTP_PROXY and NO_PROXY, as the default HTTP
// client reads them): its JSON-RPC calls then go as HTTP requests, through
// the proxy, not on a stream the client would open to u itself.
func proxied(u *url.URL) bool {
	p, err := http.ProxyFromEnvironment(&http.Request{URL: u})
	return err != nil || p != nil
}

// Sent reports whether a call of c may have reached the server: one was
// sent, whatever its outcome (the server may have run it). False means
// that no call was sent (none was made, or each failed before it was
// sent: an error matching ErrNotSent is one): a caller may then make them
// another way (cortexctl opens the store itself when the server it found
// stopped accepting before its command's first call).
func (c *Client) Sent() bool { return c.sent.Load() }

// Namespace returns the name of the namespace c works in.
func (c *Client) Namespace() string { return c.ns }

// url returns the URL of route (e.g. "rpc") in c's namespace.
func (c *Client) url(route string) string {
	return c.base + "/ns/" + url.PathEscape(c.ns) + "/" + route
}

// rpcResponse is a JSON-RPC 2.0 response object.
type rpcResponse struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			ExitCode  int                 `json:"exitCode"`
			Kind      api.Kind            `json:"kind"`
			Errors    []string            `json:"errors"`
			Problems  []spec.Problem      `json:"problems"`
			Task      *api.Task           `json:"task"`
			Operation *api.BoardOpRefused `json:"operation"`
		} `json:"data"`
	} `json:"error"`
}

// The parts of a request object around its method and params.
const (
	rpcHead   = `{"jsonrpc":"2.0","id":1,"method":`
	rpcParams = `,"params":`
)

// jsonContentType is the Content-Type header of a JSON-RPC request, set
// as is (shared, never modified: net/http only reads it).
var jsonContentType = []string{"application/json"}

// Call calls JSON-RPC method with params (encoded as JSON: a struct or a
// map of the named params; nil for none) and decodes its result into
// result (nil: dropped). An error the server answers is an *Error. Params
// that hold a string that is not valid UTF-8 are an error matching
// ErrNotUTF8, and nothing is sent (JSON would carry U+FFFD instead),
// unless every such string is an id param (idParams): no id can hold
// U+FFFD, so the call is sent and the server refuses the id as the
// Manager would, its error naming the id as given. A call whose ctx acts
// for a driver of a run (workflow.WithDriver: DriveLed's calls) goes as
// workflows.as_driver, which the server fences as the embedded Engine
// fences it.
func (c *Client) Call(ctx context.Context, method string, params, result any) (err error) {
	if params == nil {
		params = struct{}{}
	}
	call := params // (its params, for a driver's call too)
	if run, driver, ok := workflow.DriverOf(ctx); ok && method != asDriverMethod {
		// A driver's call (workflow.DriveLed's): the server fences its
		// writes, as the embedded Engine does.
		params = asDriverParams{Run: run, Driver: driver, Method: method, Params: params}
		method = asDriverMethod
	}
	p, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("%s: params: %w", method, err)
	}
	// encoding/json writes a string that is not UTF-8 with each bad byte
	// as \ufffd: the server would act on what it was not sent. Only then
	// are the strings of params looked at.
	var badIDs []string
	if bytes.Contains(p, replacementEscape) {
		var ok bool
		if badIDs, ok = idsNotUTF8(reflect.ValueOf(call)); !ok {
			if where, bad := notUTF8(reflect.ValueOf(params), "params"); bad {
				return fmt.Errorf("%s: %w: %s is not valid UTF-8", method, ErrNotUTF8, where)
			}
		}
	}
	if len(badIDs) > 0 {
		// Sent with U+FFFD for each bad byte, which no id can hold: the
		// server refuses the id where the Manager would (after the
		// namespace, the team ...), and its message names the id as given.
		defer func() { err = idsAsGiven(err, badIDs) }()
	}
	if c.dial != nil && !c.streamOff.Load() && time.Now().UnixNano() >= c.streamBusyUntil.Load() && len(p) <= streamMaxRequest && nesting(p) < maxNesting {
		switch r, err := c.callStream(ctx, method, p); {
		case errors.Is(err, errNoStream):
			c.streamOff.Store(true)
		case errors.Is(err, errStreamBusy):
			// At its limit of streams: HTTP requests for a while.
			c.streamBusyUntil.Store(time.Now().Add(streamBusyWait).UnixNano())
		case errors.Is(err, errSendAlone):
			// Not run on the stream: as an HTTP request, below.
		case err != nil:
			return err
		default:
			return decodeResult(method, r, result)
		}
	}
	m, err := json.Marshal(method)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	body := make([]byte, 0, len(rpcHead)+len(m)+len(rpcParams)+len(p)+1)
	body = append(append(append(append(append(body, rpcHead...), m...), rpcParams...), p...), '}')
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url("rpc"), bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	req.Header["Content-Type"] = jsonContentType
	resp, err := c.do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := readAll(resp)
	if err != nil {
		return c.connError(ctx, cutShort(err))
	}
	var r rpcResponse
	if err := json.Unmarshal(data, &r); err != nil {
		if resp.StatusCode != http.StatusOK {
			return httpError(resp, data)
		}
		return fmt.Errorf("%s: the server's response is not JSON-RPC: %w", method, err)
	}
	return decodeResult(method, r, result)
}

// decodeResult returns the error of response r of a call of method, or
// decodes its result into result (nil: dropped).
func decodeResult(method string, r rpcResponse, result any) error {
	if e := r.Error; e != nil {
		return &Error{Code: e.Code, Message: e.Message, ExitCode: e.Data.ExitCode, Kind: e.Data.Kind, Names: e.Data.Errors, Problems: e.Data.Problems, Task: e.Data.Task, Operation: e.Data.Operation}
	}
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(r.Result, result); err != nil {
		return fmt.Errorf("%s: result: %w", method, err)
	}
	return nil
}

// idParams are the params that hold ids (or lists of ids) of teams,
// agents, tasks, messages, snapshots, conflicts and workflow runs, or a
// word of a fixed set (a status, lifecycle, message type, comment or
// definition kind), none of which can hold U+FFFD: sent with it in place
// of the bytes that are not UTF-8, they are refused as the Manager
// refuses them.
var idParams = map[string]bool{
	"team": true, "agent": true, "task": true, "run": true, "snapshot": true, "conflict": true,
	"assignee": true, "to": true, "blocked_by": true, "reply_to": true, "by": true, "message": true, "messages": true,
	"lead": true, "planApprover": true,
	"status": true, "lifecycle": true, "type": true, "kind": true,
}

// idsNotUTF8 returns the strings of params (a map or a struct, as Call
// is given) that are not valid UTF-8, and true if every one is an id
// param (idParams) or an element of one; false if another string is not
// valid UTF-8.
func idsNotUTF8(params reflect.Value) ([]string, bool) {
	for params.Kind() == reflect.Pointer || params.Kind() == reflect.Interface {
		if params.IsNil() {
			return nil, true
		}
		params = params.Elem()
	}
	var bad []string
	top := func(key string, v reflect.Value) bool {
		if !utf8.ValidString(key) {
			return false
		}
		if _, isBad := notUTF8(v, key); !isBad {
			return true
		}
		if !idParams[key] {
			return false
		}
		for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
			v = v.Elem()
		}
		switch {
		case v.Kind() == reflect.String:
			bad = append(bad, v.String())
		case (v.Kind() == reflect.Slice || v.Kind() == reflect.Array) && v.Type().Elem().Kind() == reflect.String:
			for i := range v.Len() {
				if s := v.Index(i).String(); !utf8.ValidString(s) {
					bad = append(bad, s)
				}
			}
		default:
			return false
		}
		return true
	}
	var fields func(v reflect.Value) bool
	fields = func(v reflect.Value) bool {
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case name == "-":
			case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
				if !fields(v.Field(i)) {
					return false
				}
			case !f.IsExported():
			default:
				if name == "" {
					name = f.Name
				}
				if !top(name, v.Field(i)) {
					return false
				}
			}
		}
		return true
	}
	switch params.Kind() {
	case reflect.Map:
		if params.Type().Key().Kind() != reflect.String {
			return nil, false
		}
		for it := params.MapRange(); it.Next(); {
			if !top(it.Key().String(), it.Value()) {
				return nil, false
			}
		}
	case reflect.Struct:
		if !fields(params) {
			return nil, false
		}
	default:
		return nil, false
	}
	return bad, true
}

// idsAsGiven returns err, a server's error of a call with ids (bad) that
// are not UTF-8, its message naming them as given rather than as sent
// (U+FFFD for each bad byte, as encoding/json writes them).
func idsAsGiven(err error, bad []string) error {
	vs := make([]sentAs, len(bad))
	for i, s := range bad {
		vs[i] = sentAs{given: s, sent: asSent(s)}
	}
	return valuesAsGiven(err, vs)
}

// sentAs is a value that is not UTF-8 and what was sent in its place.
type sentAs struct{ given, sent string }

// valuesAsGiven returns err, a server's error of a call with values that
// are not UTF-8, its message naming each as given rather than as sent.
func valuesAsGiven(err error, vs []sentAs) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	msg := e.Message
	// Every quoted id first: replacing one id's U+FFFD as it is would
	// also replace it in another's quoted form (conflict "\xff" and
	// resolver "b\xff": "b\ufffd" would become "b" and a raw byte).
	for _, v := range vs {
		msg = strings.ReplaceAll(msg, strconv.Quote(v.sent), strconv.Quote(v.given))
	}
	for _, v := range vs {
		msg = strings.ReplaceAll(msg, v.sent, v.given)
	}
	if msg == e.Message {
		return err
	}
	c := *e
	c.Message = msg
	return &c
}

// asSent returns s as encoding/json sends it: each byte that is not
// UTF-8 as U+FFFD.
func asSent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// replacementEscape is what encoding/json writes for each byte of a
// string that is not UTF-8 (a U+FFFD that is in a string is written as it
// is).
var replacementEscape = []byte(`\ufffd`)

// notUTF8 looks for a string in v, as json.Marshal would encode it, that
// is not valid UTF-8; it returns where it is (a path under name) and true,
// or false if there is none.
func notUTF8(v reflect.Value, name string) (string, bool) {
	switch v.Kind() {
	case reflect.String:
		return name, !utf8.ValidString(v.String())
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "", false
		}
		return notUTF8(v.Elem(), name)
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && f.Tag.Get("json") != "-" {
				if where, bad := notUTF8(v.Field(i), name+"."+f.Name); bad {
					return where, true
				}
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			key := fmt.Sprint(it.Key().Interface())
			if where, bad := notUTF8(it.Key(), name+" key "+strconv.Quote(key)); bad {
				return where, true
			}
			if where, bad := notUTF8(it.Value(), name+"["+strconv.Quote(key)+"]"); bad {
				return where, true
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return "", false // base64
		}
		for i := range v.Len() {
			if where, bad := notUTF8(v.Index(i), name+"["+strconv.Itoa(i)+"]"); bad {
				return where, true
			}
		}
	}
	return "", false
}

// keepMethod returns a copy of hc that follows only the redirects that
// keep a request's method (307 and 308, which send its body again, as
// hc's CheckRedirect allows): a POST redirected with 301, 302 or 303
// would go as a GET without its body, which the server refuses as a
// usage error. With a token (token), it follows none to another origin
// (scheme, host and port) either: net/http sends the Authorization
// header again to the same host on another port, whatever listens there.
// Client.do makes the redirect its error.
func keepMethod(hc *http.Client, token bool) *http.Client {
	copied := *hc
	check := hc.CheckRedirect
	copied.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.Method != via[len(via)-1].Method || token && !sameOrigin(req.URL, via[0].URL) {
			return http.ErrUseLastResponse
		}
		if check != nil {
			return check(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &copied
}

// sameOrigin reports whether a and b have the same origin: scheme, host
// and port (a scheme's default port if none is given).
func sameOrigin(a, b *url.URL) bool {
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		if strings.EqualFold(u.Scheme, "https") {
			return "443"
		}
		return "80"
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

// do sends req; an error of the connection matches api.ErrUnavailable, or
// the context's error once it is done, or ErrNoAnswer if the server has
// not begun to answer c.answer after the request was sent. A redirect not
// followed (see keepMethod) is an error matching ErrTarget that names
// where it goes.
func (c *Client) do(req *http.Request) (*http.Response, error) {
	return c.doWithin(req, c.answer)
}

// doWithin is do with wait as the answer timeout (0: none).
func (c *Client) doWithin(req *http.Request, wait time.Duration) (*http.Response, error) {
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	ctx := req.Context()
	var resp *http.Response
	var err error
	if wait > 0 {
		resp, err = c.sendWithin(req, wait)
	} else {
		resp, err = c.http.Do(req)
	}
	if err == nil || !notConnected(err) {
		c.sent.Store(true)
	}
	if err != nil {
		if errors.Is(err, ErrNoAnswer) {
			return nil, err
		}
		return nil, c.connError(ctx, err)
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 && resp.Header.Get("Location") != "" {
		resp.Body.Close()
		to := resp.Header.Get("Location")
		if u, err := resp.Location(); err == nil {
			to = u.Redacted()
			if base, ok := strings.CutSuffix(to, resp.Request.URL.Path); ok && resp.Request.URL.Path != "" {
				to = base // the server's URL as it redirects
			}
		}
		why := ""
		if u, err := resp.Location(); err == nil && c.token != "" && !sameOrigin(u, req.URL) {
			why = ", another origin: the token is not sent there"
		}
		return nil, fmt.Errorf("%w %s: the server redirects %s %s to %s (%s%s): give the URL it redirects to as the target",
			ErrTarget, c.target, req.Method, req.URL.Path, to, resp.Status, why)
	}
	return resp, nil
}

// sendWithin sends req, failing with ErrNoAnswer if the response's
// headers have not come wait after the request was written (its body
// too: an upload, however slow, is not counted). The timer stops with
// the headers: the body is read for as long as the request's context
// lasts.
func (c *Client) sendWithin(req *http.Request, wait time.Duration) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	var (
		mu   sync.Mutex
		t    *time.Timer
		done bool // Do returned: no timer from now on
	)
	noAnswer := &noAnswerError{target: c.target, wait: wait}
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case done:
		case t == nil:
			t = time.AfterFunc(wait, func() { cancel(noAnswer) })
		default:
			t.Reset(wait) // written again (a redirect, a retry)
		}
	}}
	resp, err := c.http.Do(req.WithContext(httptrace.WithClientTrace(ctx, trace)))
	mu.Lock()
	done = true
	fired := t != nil && !t.Stop()
	mu.Unlock()
	if err != nil || fired {
		cancel(nil)
		if resp != nil {
			resp.Body.Close()
		}
		if fired && req.Context().Err() == nil {
			return nil, noAnswer
		}
		if err == nil {
			err = context.Cause(ctx)
		}
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: func() { cancel(nil) }}
	return resp, nil
}

// cancelOnClose is a response body that ends its request's context once
// closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel func()
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

func (c *Client) connError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		// Both context.Canceled (or DeadlineExceeded) and the cause, as
		// the Manager's errors.
		return fmt.Errorf("server %s: %w", c.target, ctxcause.With(ctx, ctx.Err()))
	}
	return unavailable(c.target, err)
}

// rpcOrHTTPError returns the *Error of a refused response of the rpc
// route: the JSON-RPC error object of its body (what a server answers
// since it answers every refusal of the route so), else httpError's.
func rpcOrHTTPError(resp *http.Response, body []byte) error {
	var r rpcResponse
	if json.Unmarshal(body, &r) == nil && r.Error != nil {
		return decodeResult("", r, nil)
	}
	return httpError(resp, body)
}

// httpError returns the *Error of a response of a non-JSON-RPC route (or
// a JSON-RPC request refused before it was read): its status, the first
// line of its text/plain message (the rest is the detail), and the
// Cortex-Exit-Code and Cortex-Error-Kind headers.
func httpError(resp *http.Response, body []byte) error {
	msg, detail, _ := strings.Cut(string(body), "\n")
	if msg = strings.TrimSpace(msg); msg == "" {
		msg = resp.Status
	}
	e := &Error{Code: resp.StatusCode, Message: msg, Detail: detail, Kind: api.Kind(resp.Header.Get("Cortex-Error-Kind"))}
	if n, err := strconv.Atoi(resp.Header.Get("Cortex-Exit-Code")); err == nil {
		e.ExitCode = n
	} else {
		e.ExitCode, e.Kind = api.ExitInternal, api.KindInternal
	}
	return e
}

// Strategies returns the names of the server's merge strategies, sorted.
func (c *Client) Strategies(ctx context.Context) ([]string, error) {
	var out []string
	err := c.Call(ctx, "strategies.list", nil, &out)
	return out, err
}

// Prefixes returns the prefixes the server reads the client's namespace's
// terms and queries with (JSON-RPC prefixes.get): cx and the namespace's
// name for its base, the built-in ones and those of the server's config,
// as teammanager.Manager.Prefixes returns them embedded. A term given to a
// method of Client is a quad.Value, already read: read it with these
// (api.ParseTerm) so that a prefixed name means what the server means.
func (c *Client) Prefixes(ctx context.Context) (map[string]string, error) {
	var out map[string]string
	err := c.Call(ctx, "prefixes.get", nil, &out)
	return out, err
}

// Namespaces returns the namespaces of the server's store (JSON-RPC
// namespaces.list; an admin token, which sees its own namespace only).
func (c *Client) Namespaces(ctx context.Context) ([]api.Namespace, error) {
	var out []api.Namespace
	err := c.Call(ctx, "namespaces.list", nil, &out)
	return out, err
}

// Graphs returns the graphs of the client's namespace with their quad
// counts (JSON-RPC graphs.list).
func (c *Client) Graphs(ctx context.Context) ([]api.Graph, error) {
	var out []api.Graph
	err := c.Call(ctx, "graphs.list", nil, &out)
	return out, err
}

// Stats returns the statistics of the server's store and of the client's
// namespace (JSON-RPC stats.get; an admin token).
func (c *Client) Stats(ctx context.Context) (api.Stats, error) {
	var out api.Stats
	err := c.Call(ctx, "stats.get", nil, &out)
	return out, err
}

// DeleteNamespace deletes namespace name of the server's store, with all
// its data (JSON-RPC namespaces.delete, sent to that namespace; an admin
// token). An invalid name matches api.ErrInvalid and sends nothing; a
// namespace that does not exist matches api.ErrNotFound.
func (c *Client) DeleteNamespace(ctx context.Context, name string) (api.NamespaceDeleted, error) {
	var out api.NamespaceDeleted
	if err := namespace.ValidateName(name); err != nil {
		return out, fmt.Errorf("delete namespace: %w", err)
	}
	// A client of the other namespace for this one call: an HTTP request.
	other := &Client{target: c.target, base: c.base, ns: name, http: c.http, token: c.token, sent: c.sent, answer: c.answer}
	err := other.Call(ctx, "namespaces.delete", map[string]string{"name": name}, &out)
	return out, err
}

// asDriverMethod runs a call for a driver of a crew or swarm run (see
// workflow.WithDriver): the server makes its writes only while the driver
// holds the run.
const asDriverMethod = "workflows.as_driver"

// asDriverParams are the params of asDriverMethod.
type asDriverParams struct {
	Run    string `json:"run"`
	Driver string `json:"driver"`
	Method string `json:"method"`
	Params any    `json:"params"`
}

// maxNesting is how deep the server's JSON reader (encoding/json's) reads
// a request: a request nested deeper is answered with a parse error of id
// null. On the stream such an answer names no call and the client takes
// it for the end of the stream (the call waited for the stream to close
// idle), so a call whose params, inside the request object, go that deep
// is sent as an HTTP request, answered with that error at once.
const maxNesting = 10000

// nesting returns how deeply the JSON value p nests objects and arrays.
func nesting(p []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, b := range p {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			depth++
			deepest = max(deepest, depth)
		case b == '}' || b == ']':
			depth--
		}
	}
	return deepest
}
