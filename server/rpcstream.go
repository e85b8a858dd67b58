package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/cortexgraph/cortex/api"
)

// JSON-RPC streams.
//
// A client that makes many calls (an agent host) may turn its connection
// into a JSON-RPC stream instead of sending one HTTP request per call: a
// POST /ns/{ns}/rpc with "Connection: Upgrade" and "Upgrade:
// cortex-jsonrpc" and no body is answered "101 Switching Protocols", and
// from then on the connection carries JSON-RPC 2.0 messages, one per
// line (compact JSON and a newline, in UTF-8), both ways. Each line the
// client sends is what a POST body would be (a request, a notification
// or a batch) and is answered by one line, as that POST would be, or by
// none (notifications). Calls run concurrently, up to streamMaxCalls at a
// time and up to the body limit (Options.WithMaxBodyBytes) in the bytes of
// their lines (one line is always let in), and their answers come as they
// are ready, in any order: a client matches them by id. The answers ready
// at once go out in one write. At that limit the stream holds the call
// read next until a call ends, and reads no further line meanwhile, but
// for the "$/cancelRequest" lines that come right after the held call:
// those are read (if they fit in the 4 KiB read buffer) and applied at
// once, the held call included; the first other line stays unread.
//
// At most Options.WithMaxRPCStreams streams are open at once; one more
// is refused at once (503 with Retry-After, a JSON-RPC error of kind
// busy), and its connection stays an HTTP one.
//
// The request that opens a stream is authenticated as any other; the
// token is checked again before each line (a revoked or expired token,
// or a first token created while a stream opened without one runs, ends
// the stream after that line's error), and each call needs its method's
// role, as in a batch. A line longer than the body limit
// (Options.WithMaxBodyBytes) is answered by an error with id null, and
// the stream ends. The notification (or request) "$/cancelRequest" with
// params {"id": ID} cancels the context of every call in flight with that
// id, alone or in a batch (a batch's call not started yet fails
// cancelled when its turn comes), as a client that closes an HTTP
// request's connection does; it finds every call sent before it on the
// stream. A string id is compared by value (however escaped), a number
// by its text (1.0 is not 1).
//
// A stream ends when the client closes it, when it has no call in flight
// and the client sends nothing for the idle timeout
// (Options.WithIdleTimeout), when an answer cannot be written within the
// write timeout (a client that does not read: its calls in flight are
// cancelled), and when the server shuts down. On an idle timeout or a
// shutdown the server reads no further line, the calls it has read
// finish and their answers are sent (Serve waits for them within its
// shutdown timeout), then it sends a last line, the notification
// {"jsonrpc":"2.0","method":"$/closing","params":{"reason":"idle"}}
// (or "shutdown": ClosingMethod), and closes the connection (after the
// client closes its side, or a second: lingeringClose). So a client knows
// that a call without an answer when "$/closing" comes was not run (a
// line partly read is dropped, and what comes after is discarded), and
// may send it again on a new stream. A stream that ends otherwise (an
// error line, a broken connection) has no "$/closing": a call the server
// has read is answered unless the connection breaks first; one it has not
// read is not run.

// RPCStreamProtocol is the HTTP Upgrade token of a JSON-RPC stream.
const RPCStreamProtocol = "cortex-jsonrpc"

// CancelMethod is the notification that cancels a call on a stream.
const CancelMethod = "$/cancelRequest"

// ClosingMethod is the notification a server sends on a stream, as its
// last line, when it closes the stream idle or at a shutdown: params
// {"reason": ClosingIdle or ClosingShutdown}; a stream that ends
// otherwise (a line too long, a revoked token, answers not read) has no
// such line. Every call it read before is answered before it; no line
// the client sent after those calls has run or will.
const ClosingMethod = "$/closing"

// The reasons of a ClosingMethod notification.
const (
	ClosingIdle     = "idle"     // no call in flight, nothing sent for the idle timeout
	ClosingShutdown = "shutdown" // the server shuts down
)

// streamMaxCalls bounds the calls in flight on one stream.
const streamMaxCalls = 256

// wantsStream reports whether r asks to turn its connection into a
// JSON-RPC stream (RFC 9110, 7.8: Upgrade, with the "upgrade" connection
// option).
func wantsStream(r *http.Request) bool {
	return hasToken(r.Header.Values("Connection"), "upgrade") && hasToken(r.Header.Values("Upgrade"), RPCStreamProtocol)
}

// hasToken reports whether the comma-separated lists of values name token
// (case-insensitively).
func hasToken(values []string, token string) bool {
	for _, v := range values {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// streamsKey is the request context key of the streams of a Serve call.
type streamsKey struct{}

// streamSet tracks the streams of one Serve call: their connections are
// hijacked, which http.Server.Shutdown neither waits for nor closes. Once
// wait has begun, begin refuses new streams, so that a stream whose
// request passed the checks while shutdown began is either counted before
// wait looks or refused (a sync.WaitGroup's Add racing its Wait is a
// misuse that may panic).
type streamSet struct {
	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	running int           // streams begun and not ended
	closing bool          // wait has begun: begin refuses
	cut     bool          // wait gave up: add closes at once
	idle    chan struct{} // closed when running falls to 0 after closing
}

// begin counts a stream about to be served; false: the Serve call is
// shutting down and the stream must not start. Each true is followed by
// one end.
func (ss *streamSet) begin() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closing {
		return false
	}
	ss.running++
	return true
}

// end ends what begin counted.
func (ss *streamSet) end() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.running--
	if ss.running == 0 && ss.idle != nil {
		close(ss.idle)
		ss.idle = nil
	}
}

// add registers a stream's connection; after wait gave up it closes c at
// once, so that a stream hijacked late ends too.
func (ss *streamSet) add(c net.Conn) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.conns == nil {
		ss.conns = map[net.Conn]struct{}{}
	}
	ss.conns[c] = struct{}{}
	if ss.cut {
		c.Close()
	}
}

func (ss *streamSet) remove(c net.Conn) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.conns, c)
}

// wait refuses new streams and waits for the running ones to end until
// ctx does; then it closes the connections of those still running and
// reports whether there were none (false: it cut streams). A ctx already
// done when no stream runs is not a cut.
func (ss *streamSet) wait(ctx context.Context) bool {
	ss.mu.Lock()
	ss.closing = true
	if ss.running == 0 {
		ss.mu.Unlock()
		return true
	}
	idle := make(chan struct{})
	ss.idle = idle
	ss.mu.Unlock()
	select {
	case <-idle:
		return true
	case <-ctx.Done():
		select {
		case <-idle: // both were ready
			return true
		default:
		}
	}
	ss.mu.Lock()
	ss.cut = true
	for c := range ss.conns {
		c.Close()
	}
	ss.mu.Unlock()
	<-idle
	return false
}

// rpcStream is one JSON-RPC stream being served.
type rpcStream struct {
	s    *Server
	ns   string
	pr   principal
	conn net.Conn

	ctx    context.Context // the calls' base; cancelled when answers cannot be written
	cancel context.CancelFunc

	out   chan []byte   // answers to write
	slots chan struct{} // one per call in flight
	calls sync.WaitGroup
	// registering counts the calls started whose id is not yet in
	// running: a cancel waits for them (readCalls), so that it finds a
	// call sent before it.
	registering sync.WaitGroup

	lastDone atomic.Int64 // when the last call ended (Unix ns): no stream is idle sooner after one

	// The bytes of the lines whose calls are in flight, at most the body
	// limit (one POST's worth) unless one line alone: a stream holds no
	// more requests in memory than a request does.
	bytesMu   sync.Mutex
	bytesFree *sync.Cond
	inFlight  int64

	mu      sync.Mutex
	running map[string][]*context.CancelFunc // by the calls' idKey (ids may repeat)
	stopped bool                             // the stream reads no further line
	reason  string                           // why, if it is to say so (ClosingMethod's reason)
}

// stopReading makes the stream read no further line (a shutdown, a
// failed write): the read waiting, if any, returns at once. reason is
// that of the ClosingMethod notification to send ("": none), unless an
// earlier stop gave one.
func (st *rpcStream) stopReading(reason string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.stopped {
		st.stopped, st.reason = true, reason
	}
	_ = st.conn.SetReadDeadline(time.Now())
}

// stopIdle stops the reading of an idle stream and returns the reason of
// its ClosingMethod notification: ClosingIdle, or that of an earlier
// stop.
func (st *rpcStream) stopIdle() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.stopped {
		st.stopped, st.reason = true, ClosingIdle
	}
	return st.reason
}

// stopReason returns the reason of the stream's ClosingMethod
// notification ("": none).
func (st *rpcStream) stopReason() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.reason
}

// readMore sets the deadline of the next read to the idle timeout, unless
// stopReading was called: then it reports false.
func (st *rpcStream) readMore() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.stopped {
		return false
	}
	_ = st.conn.SetReadDeadline(time.Now().Add(st.s.opts.idleTimeout))
	return true
}

// serveRPCStream serves the JSON-RPC stream that r asks for (see the
// comment above).
func (s *Server) serveRPCStream(w http.ResponseWriter, r *http.Request, ns string) {
	if r.ContentLength != 0 {
		writeRPCError(w, fmt.Errorf("%w: a request that opens a JSON-RPC stream has no body", api.ErrUsage))
		return
	}
	select {
	case s.rpcStreams <- struct{}{}:
		defer func() { <-s.rpcStreams }()
	default:
		writeRPCError(w, fmt.Errorf("%w: %d JSON-RPC streams are open, the server's limit (Options.WithMaxRPCStreams, cortexctl serve --max-rpc-streams): "+
			"retry later, or send the calls as POST requests meanwhile", api.ErrBusy, cap(s.rpcStreams)))
		return
	}
	ss, _ := r.Context().Value(streamsKey{}).(*streamSet)
	if ss != nil {
		if !ss.begin() {
			writeRPCError(w, fmt.Errorf("%w: the server is shutting down: send the calls as POST requests to the server that replaces it", api.ErrBusy))
			return
		}
		defer ss.end()
	}
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		writeRPCError(w, fmt.Errorf("open a JSON-RPC stream: %w", err))
		return
	}
	defer conn.Close()
	if ss != nil {
		ss.add(conn)
		defer ss.remove(conn)
	}
	// The server's deadlines of the request are not the stream's.
	_ = conn.SetDeadline(time.Time{})
	_ = conn.SetWriteDeadline(time.Now().Add(s.opts.writeTimeout))
	brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: " + RPCStreamProtocol + "\r\n\r\n") //nolint:errcheck // Flush says
	if err := brw.Flush(); err != nil {
		return
	}
	pr, _ := r.Context().Value(principalKey{}).(principal)
	// The calls' context keeps the request's values (its principal) but
	// not its end: net/http cancels a hijacked request's context when it
	// shuts down, and the calls in flight then are to finish.
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	defer cancel()
	st := &rpcStream{s: s, ns: ns, pr: pr, conn: conn, ctx: ctx, cancel: cancel,
		out: make(chan []byte, streamMaxCalls), slots: make(chan struct{}, streamMaxCalls), running: map[string][]*context.CancelFunc{}}
	st.bytesFree = sync.NewCond(&st.bytesMu)
	// A reader waiting for bytes wakes when the calls are cancelled.
	stopWaking := context.AfterFunc(ctx, func() {
		st.bytesMu.Lock()
		defer st.bytesMu.Unlock()
		st.bytesFree.Broadcast()
	})
	defer stopWaking()
	written := make(chan struct{})
	go func() {
		defer close(written)
		st.writeAnswers()
	}()
	// A shutdown stops the reading; the calls read finish.
	stopRead := make(chan struct{})
	go func() {
		select {
		case <-shutdownOf(r):
			st.stopReading(ClosingShutdown)
		case <-stopRead:
		}
	}()
	reason := st.readCalls(brw.Reader)
	close(stopRead)
	st.calls.Wait()
	if reason != "" {
		// After every answer of the calls read: what the client has not
		// been answered was not run.
		st.out <- closingLine(reason)
	}
	close(st.out)
	<-written
	lingeringClose(conn)
}

// streamLinger bounds how long a stream's connection, its answers
// written, waits for the client to close its side before it is closed.
const streamLinger = time.Second

// lingeringClose closes conn after its answers: it sends the end of the
// stream (TCP FIN) and reads what the client still sends until the
// client closes its side or for at most streamLinger. Closing a TCP
// connection with input not read makes the kernel reset it, which drops
// the answers not yet delivered (what net/http's closeWriteAndWait
// avoids too): a line too long, a call sent as the stream ended.
func lingeringClose(conn net.Conn) {
	defer conn.Close()
	cw, ok := conn.(interface{ CloseWrite() error })
	if !ok || cw.CloseWrite() != nil {
		return
	}
	_ = conn.SetReadDeadline(time.Now().Add(streamLinger))
	_, _ = io.Copy(io.Discard, conn)
}

// closingLine returns the ClosingMethod notification with reason.
func closingLine(reason string) []byte {
	return []byte(`{"jsonrpc":"2.0","method":"` + ClosingMethod + `","params":{"reason":"` + reason + `"}}` + "\n")
}

// readCalls reads lines and starts their calls until the stream ends, and
// returns the reason of the ClosingMethod notification to send after
// their answers: ClosingIdle or ClosingShutdown if it stopped reading on
// its own, "" if the client closed its side, the connection broke, an
// answer could not be written or the stream ended with an error line.
// The stream is idle when it has no call in flight and has read nothing
// for the idle timeout: while a call runs, it goes on reading.
//
// A "$/cancelRequest" line is applied by the reader itself, without a
// slot: at the limit of calls in flight (admit), the cancels that follow
// the call waiting for a slot are read and applied too.
func (st *rpcStream) readCalls(br *bufio.Reader) string {
	s := st.s
	var line []byte // read so far
	for st.readMore() {
		var err error
		line, err = readLine(br, line, s.opts.maxBodyBytes)
		if errors.Is(err, errLineTooLong) {
			st.answer(rpcResponse{JSONRPC: "2.0", Error: rpcErrorOf(fmt.Errorf("read request: %w: a line of more than %d bytes", ErrTooLarge, s.opts.maxBodyBytes)), ID: jsonNull})
			return ""
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			if len(st.slots) > 0 || time.Since(time.Unix(0, st.lastDone.Load())) < s.opts.idleTimeout {
				continue // not idle: calls run, or one just ended (readMore says if the server shuts down)
			}
			return st.stopIdle() // idle, or the server shuts down: a partial line is dropped, not run
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return "" // the connection broke: a partial line is dropped
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if st.needsRecheck() {
				if err := s.recheck(st.pr); err != nil {
					st.answer(rpcResponse{JSONRPC: "2.0", Error: rpcErrorOf(err), ID: lineID(line)})
					return ""
				}
			}
			if req, ok := cancelRequestOf(line); ok {
				st.registering.Wait() // the calls it may cancel are known
				st.cancelCall(req)
			} else {
				cancelled, ok := st.admit(br, line)
				if !ok {
					return ""
				}
				st.calls.Add(1)
				st.registering.Add(1)
				go func(line []byte) {
					defer st.calls.Done()
					defer st.giveBytes(int64(len(line)))
					defer func() { <-st.slots }()
					defer func() { st.lastDone.Store(time.Now().UnixNano()) }() // before its slot is free
					st.run(line, cancelled)
				}(line)
			}
		}
		if err != nil {
			return "" // the client closed its side
		}
		line = nil
	}
	return st.stopReason()
}

// cancelMethodName is how a line that is a CancelMethod request spells
// it, unless it escapes its letters: "$/cancelRequest" or
// "$\/cancelRequest". Such a line is read by readCalls (cancelRequestOf);
// one that escapes more is a cancel too, run as a call (run), without
// the guarantees of the reader's.
var cancelMethodName = []byte(`cancelRequest"`)

// cancelRequestOf returns the request of line if it is a CancelMethod
// request (a notification, or one with an id) that the reader applies.
func cancelRequestOf(line []byte) (rpcRequest, bool) {
	if !bytes.Contains(line, cancelMethodName) || !utf8.Valid(line) {
		return rpcRequest{}, false
	}
	req, method, err := readRequest(line)
	return req, err == nil && method == CancelMethod
}

// admit takes the bytes and the slot of line, the call read, waiting for
// them if the stream is at its limit (streamMaxCalls in flight, or the
// body limit in their lines' bytes). While it waits, it looks at the
// lines that follow, in the reader's buffer: it reads and applies those
// that are CancelMethod requests, one after the other, and stops at the
// first other line (or one longer than the buffer), which stays unread
// until line's call has its slot. It returns the idKeys of line's calls
// that those cancels named (nil if none; run cancels them as it starts
// them), and false if the stream's calls were cancelled (its answers
// cannot be written): line is then not run.
//
// So a stream holds in memory no more than before: the lines in flight
// within the body limit, the one line waiting, and the reader's buffer.
func (st *rpcStream) admit(br *bufio.Reader, line []byte) (map[string]bool, bool) {
	n := int64(len(line))
	if st.tryTake(n) {
		return nil, true
	}
	var ok bool
	admitted, woken := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(woken)
		ok = st.take(n)
		close(admitted)
		// The read of readCancels waiting, if any, returns: after admitted
		// is closed, so that readCancels sees it, whenever it read last.
		_ = st.conn.SetReadDeadline(time.Now())
	}()
	cancelled := st.readCancels(br, line, admitted)
	<-woken // its deadline is set before the reader sets the next
	return cancelled, ok
}

// readCancels applies the CancelMethod requests among the next lines of
// br (see admit) until admitted is closed, and returns the idKeys of
// held's calls that they named. A line it does not apply stays unread.
func (st *rpcStream) readCancels(br *bufio.Reader, held []byte, admitted <-chan struct{}) map[string]bool {
	var cancelled map[string]bool
	var heldKeys map[string]struct{} // callIDKeys(held), once a cancel is read
	for {
		select {
		case <-admitted:
			return cancelled
		default:
		}
		next, err := peekLine(br)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			if st.readMore() { // not idle: a call waits; false: the server shuts down
				continue
			}
			return cancelled
		}
		if err != nil {
			return cancelled // the line is too long to look at, or the read's error: readCalls reads it after held
		}
		if len(bytes.TrimSpace(next)) > 0 {
			if st.needsRecheck() && st.s.recheck(st.pr) != nil {
				return cancelled // readCalls answers the line with the error
			}
			req, ok := cancelRequestOf(next)
			if !ok {
				return cancelled
			}
			st.registering.Wait()
			if key := st.cancelCall(req); key != "" {
				if heldKeys == nil {
					heldKeys = callIDKeys(held, st.s.opts.maxBatch)
				}
				if _, mine := heldKeys[key]; mine {
					if cancelled == nil {
						cancelled = map[string]bool{}
					}
					cancelled[key] = true
				}
			}
		}
		_, _ = br.Discard(len(next))
	}
}

// peekLine returns the next line of br, with its newline, without reading
// it: a view of br's buffer, valid until br is read. A line that does not
// fit in br's buffer is errLineTooLong; after a read's error, what br
// holds stays.
func peekLine(br *bufio.Reader) ([]byte, error) {
	for {
		buf, _ := br.Peek(br.Buffered())
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			return buf[:i+1], nil
		}
		if len(buf) == br.Size() {
			return nil, errLineTooLong
		}
		if _, err := br.Peek(len(buf) + 1); err != nil {
			return nil, err
		}
	}
}

// callIDKeys returns the set of the idKeys of the calls of line (a
// request or a batch) that have an id; a batch of more than max calls,
// which runs none, has none.
func callIDKeys(line []byte, max int) map[string]struct{} {
	keys := map[string]struct{}{}
	add := func(raw []byte) {
		if req, _, _ := readRequest(raw); hasID(req.ID) {
			keys[idKey(req.ID)] = struct{}{}
		}
	}
	if t := bytes.TrimLeft(line, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		batch, _ := readBatch(line, max)
		for _, raw := range batch {
			add(raw)
		}
		return keys
	}
	add(line)
	return keys
}

// hasID reports whether a request's id (as readRequest read it) is one a
// response names: present, not null.
func hasID(id json.RawMessage) bool {
	return id != nil && string(id) != "null"
}

// tryTake takes the bytes and a slot of a line of n bytes if they are
// free (see takeBytes).
func (st *rpcStream) tryTake(n int64) bool {
	st.bytesMu.Lock()
	defer st.bytesMu.Unlock()
	if st.ctx.Err() != nil || st.inFlight > 0 && st.inFlight+n > st.s.opts.maxBodyBytes {
		return false
	}
	select {
	case st.slots <- struct{}{}:
		st.inFlight += n
		return true
	default:
		return false
	}
}

// take waits for the bytes and a slot of a line of n bytes and takes
// them; false if the stream's calls were cancelled meanwhile.
func (st *rpcStream) take(n int64) bool {
	if !st.takeBytes(n) {
		return false
	}
	select {
	case st.slots <- struct{}{}:
		return true
	case <-st.ctx.Done():
		st.giveBytes(n)
		return false
	}
}

// takeBytes waits until n more bytes of lines may be in flight (always,
// when none are) and takes them; false if the stream's calls were
// cancelled meanwhile (its answers cannot be written).
func (st *rpcStream) takeBytes(n int64) bool {
	st.bytesMu.Lock()
	defer st.bytesMu.Unlock()
	for st.inFlight > 0 && st.inFlight+n > st.s.opts.maxBodyBytes && st.ctx.Err() == nil {
		st.bytesFree.Wait()
	}
	if st.ctx.Err() != nil {
		return false
	}
	st.inFlight += n
	return true
}

// giveBytes gives back the n bytes of a call's line.
func (st *rpcStream) giveBytes(n int64) {
	st.bytesMu.Lock()
	st.inFlight -= n
	st.bytesMu.Unlock()
	st.bytesFree.Broadcast()
}

// needsRecheck reports whether the principal of the stream must be
// checked again before each line (see Server.recheck).
func (st *rpcStream) needsRecheck() bool {
	return (st.pr.tok != nil || st.pr.untilToken) && st.s.opts.tokens != nil
}

// errLineTooLong is readLine's error for a line over its limit.
var errLineTooLong = errors.New("line too long")

// readLine returns line (a line's start, read before an error) and the
// rest of the line of br (with its newline, if any), of at most max bytes
// in all, or errLineTooLong. Its bytes are the caller's; after an error
// other than errLineTooLong, it returns what it read.
func readLine(br *bufio.Reader, line []byte, max int64) ([]byte, error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if int64(len(line)+len(chunk)) > max {
			return nil, errLineTooLong
		}
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// lineID returns the id of the request object line, or null if it is
// none (a batch, not JSON).
func lineID(line []byte) json.RawMessage {
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &req) != nil || req.ID == nil || !validID(req.ID) {
		return jsonNull
	}
	return req.ID
}

// run runs the call, calls or notification of line and queues its
// answer, if any. The calls whose idKey is in cancelled are cancelled
// (admit: a cancel read before line's call started).
//
// It marks the call registered (st.registering) once its id (a batch's
// ids) is in st.running, or once it is known to need none.
func (st *rpcStream) run(line []byte, cancelled map[string]bool) {
	registered := false
	register := func() {
		if !registered {
			registered = true
			st.registering.Done()
		}
	}
	defer register()
	if !utf8.Valid(line) {
		register()
		st.answer(parseErrorResponse(errors.New("the request is not valid UTF-8")))
		return
	}
	trimmed := bytes.TrimLeft(line, " \t\r\n")
	if trimmed[0] == '[' {
		st.runBatch(line, cancelled, register)
		return
	}
	req, method, err := readRequest(line)
	if errors.Is(err, errParse) {
		register()
		st.answer(rpcResponse{JSONRPC: "2.0", Error: rpcErrorOf(err), ID: jsonNull})
		return
	}
	if err == nil && method == CancelMethod { // one that escapes its method's letters (cancelRequestOf)
		register()
		st.cancelCall(req)
		return
	}
	ctx := st.ctx
	if hasID(req.ID) {
		var forget func()
		ctx, forget = st.track(ctx, req.ID, cancelled)
		defer forget()
	}
	register()
	if resp, ok := st.callRequest(ctx, req, method, err); ok {
		st.answer(resp)
	}
}

// runBatch runs the calls of line, a batch, one after the other, as
// Server.runBatch does, and queues their answers; register is called once
// every call's id is in st.running, before the first call starts, so
// that a cancel sent after the batch finds any of its calls, started or
// not (one not started yet then fails as cancelled when its turn comes).
func (st *rpcStream) runBatch(line []byte, cancelled map[string]bool, register func()) {
	s := st.s
	batch, err := readBatch(line, s.opts.maxBatch)
	if err != nil {
		register()
		st.answer(rpcResponse{JSONRPC: "2.0", Error: rpcErrorOf(err), ID: jsonNull})
		return
	}
	type call struct {
		ctx    context.Context
		req    rpcRequest
		method string
		err    error
	}
	bctx := s.batchContext(st.ctx)
	calls := make([]call, len(batch))
	for i, raw := range batch {
		c := &calls[i]
		c.ctx = bctx
		c.req, c.method, c.err = readRequest(raw)
		batch[i] = nil // c.req holds what the call needs
		if hasID(c.req.ID) {
			var forget func()
			c.ctx, forget = st.track(bctx, c.req.ID, cancelled)
			defer forget()
		}
	}
	register()
	out := []rpcResponse{}
	for _, c := range calls {
		if resp, ok := st.callRequest(c.ctx, c.req, c.method, c.err); ok {
			out = append(out, resp)
		}
	}
	if len(out) > 0 {
		st.answer(out)
	}
}

// callRequest is Server.callRequest of a call of the stream, but for a
// call whose context is cancelled before it starts (a cancel read while
// it waited for a slot, or for the calls before it in its batch): that
// one is not run, whether its method heeds its context or not, and fails
// cancelled.
func (st *rpcStream) callRequest(ctx context.Context, req rpcRequest, method string, err error) (rpcResponse, bool) {
	if err == nil && ctx.Err() != nil {
		err = fmt.Errorf("%s: cancelled before it started: %w", method, context.Cause(ctx))
	}
	return st.s.callRequest(ctx, st.ns, req, method, err)
}

// track puts a call with id into st.running and returns its context, a
// child of ctx that a cancel of id cancels (at once if id's key is in
// cancelled), and the function that takes it out when the call is done.
func (st *rpcStream) track(ctx context.Context, id json.RawMessage, cancelled map[string]bool) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	key, mine := idKey(id), &cancel
	st.mu.Lock()
	st.running[key] = append(st.running[key], mine)
	st.mu.Unlock()
	if cancelled[key] {
		cancel()
	}
	return ctx, func() {
		cancel()
		st.mu.Lock()
		defer st.mu.Unlock()
		rest := slices.DeleteFunc(st.running[key], func(c *context.CancelFunc) bool { return c == mine })
		if len(rest) == 0 {
			delete(st.running, key)
		} else {
			st.running[key] = rest
		}
	}
}

// cancelCall cancels the calls named by the params of a CancelMethod
// request ({"id": ID}) and returns the idKey of ID ("" if the params are
// wrong); a call that is not running (done, never sent) is no error. A
// CancelMethod request with an id is answered null.
func (st *rpcStream) cancelCall(req rpcRequest) string {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	err := decodeParams(req.Params, &p)
	if err == nil && (p.ID == nil || !validID(p.ID)) {
		err = fmt.Errorf(`%w: params: %s needs {"id": the id of a call}`, api.ErrUsage, CancelMethod)
	}
	key := ""
	if err == nil && hasID(p.ID) { // no call has id null
		key = idKey(p.ID)
		st.mu.Lock()
		for _, cancel := range st.running[key] { // every call with the id: ids should be unique
			(*cancel)()
		}
		st.mu.Unlock()
	}
	if req.ID == nil {
		return key // a notification, as it should be
	}
	resp := rpcResponse{JSONRPC: "2.0", ID: req.ID, Result: jsonNull}
	if err != nil {
		resp.Result, resp.Error = nil, rpcErrorOf(err)
	}
	st.answer(resp)
	return key
}

// idKey returns the key of a call's id (valid: a string or a number) in
// rpcStream.running: a string by its value, however it is escaped
// ("a\u0062" is "ab"), a number by its compact text.
func idKey(id json.RawMessage) string {
	var str string
	if json.Unmarshal(id, &str) == nil {
		return "s" + str
	}
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return "n" + string(id)
	}
	return "n" + b.String()
}

// answer queues v (a response or a batch's responses) to be written as
// one line.
func (st *rpcStream) answer(v any) {
	var b []byte
	if resp, ok := v.(rpcResponse); ok && resp.Error == nil && len(resp.Result) > 0 {
		b = appendSuccess(make([]byte, 0, 40+len(resp.Result)+len(resp.ID)), resp)
	} else {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			st.s.opts.logger.Printf("JSON-RPC stream of %s: %v", st.ns, err)
			return
		}
		b = buf.Bytes()
	}
	st.out <- b
}

// writeAnswers writes the queued answers, those ready at once in one
// write, each write within the write timeout; if one fails (the client is
// gone or does not read), the stream's calls are cancelled and the
// answers still coming are dropped.
func (st *rpcStream) writeAnswers() {
	var buf []byte
	for b := range st.out {
		buf = append(buf[:0], b...)
	more:
		for len(buf) < 1<<20 {
			select {
			case b, ok := <-st.out:
				if !ok {
					break more
				}
				buf = append(buf, b...)
			default:
				break more
			}
		}
		_ = st.conn.SetWriteDeadline(time.Now().Add(st.s.opts.writeTimeout))
		if _, err := st.conn.Write(buf); err != nil {
			st.cancel()
			st.stopReading("")
			for range st.out {
			}
			return
		}
	}
}
