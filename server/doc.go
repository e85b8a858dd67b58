// Package server serves a Cortex store over HTTP, so that one process owns
// the store and every other reaches it: the operator's cortexctl, agent
// hosts in any language, RDF tools.
//
//	srv := server.New(store, server.DefaultOptions())
//	l, _ := net.Listen("tcp", "127.0.0.1:7474")
//	err := srv.Serve(ctx, l) // until ctx ends, then a graceful shutdown
//
// # Routes
//
// Per namespace (the name in the path must follow namespace.NameRule; a
// name that does not is 400, a namespace that does not exist is 404 for
// everything but the writes that create one, as in cortexctl):
//
//   - POST /ns/{ns}/rpc: JSON-RPC 2.0, single and batch requests, for the
//     team manager (teams.create, teams.get, ... see Methods), or, with
//     "Upgrade: cortex-jsonrpc", a JSON-RPC stream (rpcstream.go: calls
//     cancelled by CancelMethod, a last line ClosingMethod when the server
//     closes it idle or at a shutdown, after which no unanswered call
//     ran). Member
//     names are case-sensitive ("ID" is not "id"), and a request member
//     given twice is an invalid request (-32600). So are the names in
//     params, at every depth: one that is not a field's as written
//     ("Team" for "team") or is given twice is invalid params (-32602,
//     kind usage) naming it (a value of the wrong type, an object for a
//     string, is invalid params as such, whatever names it holds). A
//     body that is not UTF-8 is a parse error (-32700, kind syntax); one
//     cut short (ending before the length announced) is -32700 too, but of
//     kind usage and HTTP 400, as the other routes answer it.
//   - GET, POST /ns/{ns}/sparql: the SPARQL 1.1 Protocol query operation.
//   - GET, PUT, POST, DELETE /ns/{ns}/data?graph=IRI and ?default: the
//     SPARQL 1.1 Graph Store HTTP Protocol (a POST to /ns/{ns}/data
//     itself adds to a new graph: 201, Location, GraphHeader; a POST may
//     send multipart/form-data, its parts merged into the graph).
//   - GET /ns/{ns}/events: the namespace's events as Server-Sent Events
//     (see events.go; teammanager.Manager.Subscribe); HEAD ends after the
//     headers.
//
// And GET /healthz, GET /metrics (Prometheus text format; a namespace's
// token sees that namespace's series only, beside the server's own). A route asked
// with a method it does not serve is 405 with Allow (GET also serves
// HEAD); a path that is no route is 404. A request body is read as it
// is: one with a Content-Encoding (gzip ...) is 415. A query string with a
// parameter that does not decode (a bad escape such as %ZZ, or a ';') is
// 400 on every namespace route but rpc, rather than read without that
// parameter (/healthz and /metrics read none).
//
// # Errors
//
// Every error is classified once (api.Classify) into cortexctl's exit code
// and a kind (api.Kind: not_found, conflict, invalid, syntax, timeout,
// unavailable, usage, internal, denied, busy). JSON-RPC errors carry both in their data
// ({"exitCode": 3, "kind": "not_found"}; teams.task.claim past the
// circuit breaker also the task it failed, "task"). The rpc route answers
// every error so, a refusal before any call is read included (401 and 403
// of authentication, 405, 415, a namespace name that is invalid, a stream
// over the limit): an error object with id null, with the HTTP status of
// the refusal and the headers below. The other routes answer with an
// HTTP status, a text/plain message and the headers Cortex-Error-Kind and
// Cortex-Exit-Code, as the SPARQL, Graph Store and Server-Sent Events
// protocols leave an error's body free (an EventSource reads the status
// only).
//
// # Security
//
// Requests on a Unix socket need no token: the socket's mode (0600) makes
// it the owner's (on Linux, macOS and FreeBSD, a connection from a process
// of another user than the server's and root, which a socket of a looser
// mode lets in, needs one, as on TCP off loopback: the socket's peer
// credentials, SO_PEERCRED or LOCAL_PEERCRED, tell; on other systems
// nothing tells who connected, and such a connection needs none). On TCP, with a token file (Options.WithTokens, a
// TokenFile), every request but GET /healthz needs a bearer token once the
// file holds any, and always on a listener that is not on loopback
// (unless Options.WithInsecure): 401 without a valid one (or with several
// Authorization headers), 403 with a token of another namespace or too
// low a role (both ErrDenied, kind denied, exit code 10); 500 (kind
// internal) while the token file cannot be read or is writable by other
// users (ErrUnsafeTokenFile): a request is never let in then. Each request's role (read, write, admin) comes from one
// table in auth.go: JSON-RPC methods one by one (a batch is checked per
// call), SPARQL, Graph Store verbs (a PUT that removes quads of the
// graph it replaces needs admin, as DELETE does) and events. tokens.create, tokens.list
// and tokens.revoke manage the tokens of the request's namespace (admin).
// A token, of any role, learns of no other namespace than its own:
// namespaces.list lists that one only, stats.get names that one only, and
// /metrics shows its series only; a request let in without a token (the
// Unix socket's owner, a loopback server with no token yet) sees every
// namespace.
// A token is checked when a request starts, and an event stream's token
// again every second: a stream ends once its token is revoked (the token
// file is reread when it changes, e.g. by cortexctl tokens revoke in
// another process), expires or leaves the file; a stream opened over TCP
// without a token, while none existed, ends once one exists. On every listener, a
// browser's cross-origin request that is not GET, HEAD or OPTIONS is 403
// (http.CrossOriginProtection), so that a web page cannot make a visitor's
// browser write to a server on loopback (cross-site request forgery). A
// request let in without a token that came over TCP to a loopback address
// by a Host name other than localhost (or a name under .localhost, or an
// IP address) is 403: it is what a web page whose name an attacker made
// resolve to 127.0.0.1 sends (DNS rebinding).
//
// # Limits
//
// Options set every limit (each With method documents its default; a
// zero Options serves with the defaults): request bodies (413), the
// calls of a JSON-RPC batch (one error object, 413; none runs), query
// time, results per response (ErrTooManyResults, before any result is
// sent) and the triples of one Graph Store PUT or POST body (413) or one
// findings.import of RDF, nothing written, read-heavy requests
// evaluated at once (a request over the limit waits up to the queue wait,
// then api.ErrBusy: 503 with Retry-After), the event streams and the
// JSON-RPC streams open at once (one more is 503 with Retry-After at
// once), and, in Serve, the time to
// send headers, a body (408, ErrRequestTimeout), idle connections, the
// time a client takes to accept each chunk of a response, and the size of
// headers (431). A slow client never holds the store: a query's result
// or a Graph Store GET is read in full into a spool (memory, then a
// temporary file) while the request holds the store's read snapshot,
// which is let go before the spool is sent; so a large write, which waits
// for every read transaction of the store to end, never waits on a
// client's socket.
//
// # Concurrency
//
// A Server is safe for concurrent use: Serve may run on several listeners
// at once (a Unix socket and TCP), and its handlers run concurrently. It
// keeps one teammanager.Manager per namespace, created on first use.
//
// # Caveats
//
// The Graph Store writes (PUT, POST) read the whole body (bounded by
// Options.WithMaxBodyBytes and, in triples, Options.WithMaxResults) before writing it in one atomic step: a body
// with a syntax error writes nothing, and PUT replaces a graph atomically.
// The body is parsed as it streams in, but its quads are held in memory
// until they are written.
package server
