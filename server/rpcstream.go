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
// their lines (one line is always let in), the stream reading no further
// line meanwhile, and their answers
// come as they are ready, in any order: a client matches them by id. The
// answers ready at once go out in one write.
//
// The request that opens a stream is authenticated as any other; the
// token is checked again before each line (a revoked or expired token,
// or a first token created while a stream opened without one runs, ends
// the stream after that line's error), and each call needs its method's
// role, as in a batch. A line longer than the body limit
// (Options.WithMaxBodyBytes) is answered by an error with id null, and
// the stream ends. The notification "$/cancelRequest" with params
// {"id": ID} cancels the context of the call with that id, as a client
// that closes an HTTP request's connection does.
//
// A stream ends when the client closes it, when it has no call in flight
// and the client sends nothing for the idle timeout
// (Options.WithIdleTimeout), when an answer cannot be
// written within the write timeout (a client that does not read: its
// calls in flight are cancelled), and when the server shuts down: it then
// reads no further line, the calls in flight finish and their answers are
// sent (Serve waits for them within its shutdown timeout) and the
// connection is closed (after the client closes its side, or a second:
// lingeringClose). A call the server has read is answered unless the
// connection breaks first; one it has not read is not run. A
// "$/cancelRequest" finds every call sent before it on the stream.

// RPCStreamProtocol is the HTTP Upgrade token of a JSON-RPC stream.
const RPCStreamProtocol = "cortex-jsonrpc"

// CancelMethod is the notification that cancels a call on a stream.
const CancelMethod = "$/cancelRequest"

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
// hijacked, which http.Server.Shutdown neither waits for nor closes.
type streamSet struct {
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

func (ss *streamSet) add(c net.Conn) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.conns == nil {
		ss.conns = map[net.Conn]struct{}{}
	}
	ss.conns[c] = struct{}{}
}

func (ss *streamSet) remove(c net.Conn) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.conns, c)
}

// wait waits for the streams to end until ctx does; then it closes the
// connections of those still running and reports false.
func (ss *streamSet) wait(ctx context.Context) bool {
	done := make(chan struct{})
	go func() {
		ss.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-ctx.Done():
	}
	ss.mu.Lock()
	for c := range ss.conns {
		c.Close()
	}
	ss.mu.Unlock()
	<-done
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
	stopped bool                             // stopReading was called
}

// stopReading makes the stream read no further line (a shutdown, a
// failed write): the read waiting, if any, returns at once.
func (st *rpcStream) stopReading() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.stopped = true
	_ = st.conn.SetReadDeadline(time.Now())
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
		writeError(w, fmt.Errorf("%w: a request that opens a JSON-RPC stream has no body", api.ErrUsage), "")
		return
	}
	ss, _ := r.Context().Value(streamsKey{}).(*streamSet)
	if ss != nil {
		ss.wg.Add(1)
		defer ss.wg.Done()
	}
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		writeError(w, fmt.Errorf("open a JSON-RPC stream: %w", err), "")
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
			st.stopReading()
		case <-stopRead:
		}
	}()
	st.readCalls(brw.Reader)
	close(stopRead)
	st.calls.Wait()
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

// readCalls reads lines and starts their calls until the stream ends.
// The stream is idle when it has no call in flight and has read nothing
// for the idle timeout: while a call runs, it goes on reading.
func (st *rpcStream) readCalls(br *bufio.Reader) {
	s := st.s
	var line []byte // read so far
	for st.readMore() {
		var err error
		line, err = readLine(br, line, s.opts.maxBodyBytes)
		if errors.Is(err, errLineTooLong) {
			st.answer(rpcResponse{JSONRPC: "2.0", Error: rpcErrorOf(fmt.Errorf("read request: %w: a line of more than %d bytes", ErrTooLarge, s.opts.maxBodyBytes)), ID: jsonNull})
			return
		}
		if errors.Is(err, os.ErrDeadlineExceeded) && (len(st.slots) > 0 || time.Since(time.Unix(0, st.lastDone.Load())) < s.opts.idleTimeout) {
			continue // not idle: calls run, or one just ended (readMore says if the server shuts down)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return // idle, the server shuts down, or the connection broke: a partial line is dropped
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if st.needsRecheck() {
				if err := s.recheck(st.pr); err != nil {
					st.answer(rpcResponse{JSONRPC: "2.0", Error: rpcErrorOf(err), ID: lineID(line)})
					return
				}
			}
			if !st.takeBytes(int64(len(line))) {
				return
			}
			select {
			case st.slots <- struct{}{}:
			case <-st.ctx.Done():
				return
			}
			if bytes.Contains(line, cancelMethod) {
				st.registering.Wait() // the calls it may cancel are known
			}
			st.calls.Add(1)
			st.registering.Add(1)
			go func(line []byte) {
				defer st.calls.Done()
				defer st.giveBytes(int64(len(line)))
				defer func() { <-st.slots }()
				defer func() { st.lastDone.Store(time.Now().UnixNano()) }() // before its slot is free
				st.run(line)
			}(line)
		}
		if err != nil {
			return // the client closed its side
		}
		line = nil
	}
}

// cancelMethod is CancelMethod as it appears in a line.
var cancelMethod = []byte(`"` + CancelMethod + `"`)

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
// answer, if any.
//
// It marks the call registered (st.registering) once its id is in
// st.running, or once it is known to need none.
func (st *rpcStream) run(line []byte) {
	s := st.s
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
		register()
		out, errResp := s.runBatch(st.ctx, st.ns, line)
		switch {
		case errResp != nil:
			st.answer(*errResp)
		case len(out) > 0:
			st.answer(out)
		}
		return
	}
	req, method, err := readRequest(line)
	if errors.Is(err, errParse) {
		register()
		st.answer(rpcResponse{JSONRPC: "2.0", Error: rpcErrorOf(err), ID: jsonNull})
		return
	}
	if err == nil && method == CancelMethod {
		register()
		st.cancelCall(req)
		return
	}
	ctx := st.ctx
	if req.ID != nil && string(req.ID) != "null" {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		key, mine := idKey(req.ID), &cancel
		st.mu.Lock()
		st.running[key] = append(st.running[key], mine)
		st.mu.Unlock()
		defer func() {
			st.mu.Lock()
			defer st.mu.Unlock()
			rest := slices.DeleteFunc(st.running[key], func(c *context.CancelFunc) bool { return c == mine })
			if len(rest) == 0 {
				delete(st.running, key)
			} else {
				st.running[key] = rest
			}
		}()
	}
	register()
	if resp, ok := s.callRequest(ctx, st.ns, req, method, err); ok {
		st.answer(resp)
	}
}

// cancelCall cancels the call named by the params of a CancelMethod
// request ({"id": ID}); a call that is not running (done, never sent) is
// no error. A CancelMethod request with an id is answered null.
func (st *rpcStream) cancelCall(req rpcRequest) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	err := decodeParams(req.Params, &p)
	if err == nil && (p.ID == nil || !validID(p.ID)) {
		err = fmt.Errorf(`%w: params: %s needs {"id": the id of a call}`, api.ErrUsage, CancelMethod)
	}
	if err == nil {
		st.mu.Lock()
		for _, cancel := range st.running[idKey(p.ID)] { // every call with the id: ids should be unique
			(*cancel)()
		}
		st.mu.Unlock()
	}
	if req.ID == nil {
		return // a notification, as it should be
	}
	resp := rpcResponse{JSONRPC: "2.0", ID: req.ID, Result: jsonNull}
	if err != nil {
		resp.Result, resp.Error = nil, rpcErrorOf(err)
	}
	st.answer(resp)
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
			st.stopReading()
			for range st.out {
			}
			return
		}
	}
}
