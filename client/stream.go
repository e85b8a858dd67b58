package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"
)

// A client's JSON-RPC calls go over one JSON-RPC stream (see "JSON-RPC
// streams" in package server's rpcstream.go): a connection turned from HTTP into a
// channel of JSON-RPC lines both ways, where calls from many goroutines
// are in flight at once and their answers come back as they are ready.
// It costs less per call than an HTTP request each (no headers, and the
// requests and answers of concurrent calls share writes), which is what a
// host with many agents calling at once pays. The stream is opened on
// the first call and again after it breaks or has been idle for
// streamIdle; a call larger than streamMaxRequest, or nested deeper than
// the server reads (maxNesting), goes as an HTTP request of its own, and
// so does every call if the server does not open streams
// (or Options.WithRPCStream(false)), and, for streamBusyWait, once the
// server refused a stream at its limit of streams (503 busy).
//
// A server that closes a stream on its own (its idle timeout, a
// shutdown) says so first, in a last line "$/closing": it has answered
// every call it read before, and runs none it reads after. A call still
// waiting for its answer then was not run, whatever its method: it is
// sent again, once, on a new stream (or as an HTTP request, if the server
// no longer opens streams). A stream that ends without "$/closing" (the
// server crashed, the connection was cut) fails its calls waiting for an
// answer with an error matching api.ErrUnavailable: they may have run.

// Stream protocol names, as package server has them (not imported: the
// client does not link the server).
const (
	streamProtocol = "cortex-jsonrpc"
	cancelMethod   = "$/cancelRequest"
	closingMethod  = "$/closing"
)

// streamMaxRequest is the largest request sent on the stream: a larger
// one goes as an HTTP request, whose refusal (over the server's body
// limit) is its own, not the stream's.
const streamMaxRequest = 1 << 20

// streamIdle is how long a stream without calls is kept open (a
// Client's idle, which tests change).
const streamIdle = 30 * time.Second

// errNoStream reports a server that answered a stream's opening request
// as something else than a stream (a server or a proxy that does not
// know them): the client sends HTTP requests from then on.
var errNoStream = errors.New("the server opens no JSON-RPC stream")

// errStreamBusy reports a server that refused a stream as busy (503: at
// its limit of streams, server.Options.WithMaxRPCStreams): the client
// sends HTTP requests for streamBusyWait, then tries a stream again.
var errStreamBusy = errors.New("the server opens no more JSON-RPC streams for now")

// streamBusyWait is how long a client refused a stream busy sends HTTP
// requests instead (a variable for tests).
var streamBusyWait = 10 * time.Second

// errClosing is the error of the calls waiting for their answer on a
// stream the server closed with "$/closing": they were not run.
var errClosing = errors.New("the server closed the JSON-RPC stream")

// errUnread is the error of the calls waiting for their answer on a
// stream that the server closed (its end of input, not a broken
// connection) after an error of id null: a line it would not read (one
// longer than its body limit) ends the stream, after the answers of the
// calls it read before. So the calls still waiting were not run: that
// line's call, and those sent after it. Each is sent again as an HTTP
// request of its own, which the server answers alone (the line too long:
// "request body too large", kind invalid, as any call over the limit).
var errUnread = errors.New("the server ended the JSON-RPC stream without reading the call")

// errSendAlone tells Call to send a call again as an HTTP request of its
// own (errUnread), the stream staying on for the next calls.
var errSendAlone = errors.New("send the call as an HTTP request")

// stream is an open JSON-RPC stream.
type stream struct {
	conn net.Conn
	out  chan []byte   // requests to write
	done chan struct{} // closed when the stream is broken

	mu      sync.Mutex
	next    uint64
	pending map[uint64]chan streamAnswer
	err     error // why the stream is broken (no call goes on it)
	ending  bool  // the server ends it: no new call goes on it
	// endedBy is the error of id null that the server answered before
	// it ends the stream (ending); nil if none.
	endedBy error
	idle    *time.Timer
	idleFor time.Duration
}

// streamAnswer is the answer to one call: a response, or the error of the
// stream.
type streamAnswer struct {
	resp rpcResponse
	err  error
}

// callStream calls method with params (JSON) on c's stream, opened if
// needed. errNoStream: send it as an HTTP request instead. A call the
// server did not run because it closed the stream ("$/closing"), or
// that found the stream ending, is sent again, once, on a new stream.
func (c *Client) callStream(ctx context.Context, method string, params []byte) (rpcResponse, error) {
	for attempt := 0; ; attempt++ {
		st, err := c.stream(ctx)
		if err != nil {
			return rpcResponse{}, err
		}
		id, ch, ok := st.register()
		if !ok {
			// The stream broke or began to end since c.stream: a new
			// one, once.
			if attempt == 0 {
				continue
			}
			return rpcResponse{}, unavailable(c.target, st.brokenErr())
		}
		m, err := json.Marshal(method)
		if err != nil {
			st.unregister(id)
			return rpcResponse{}, fmt.Errorf("%s: %w", method, err)
		}
		req := make([]byte, 0, 64+len(m)+len(params))
		req = append(req, `{"jsonrpc":"2.0","id":`...)
		req = strconv.AppendUint(req, id, 10)
		req = append(append(append(req, `,"method":`...), m...), `,"params":`...)
		req = append(append(req, params...), "}\n"...)
		if ctx.Err() != nil {
			// Not sent: a select would send it as often as not, with
			// room on st.out, and the server would run it.
			st.unregister(id)
			return rpcResponse{}, c.connError(ctx, ctx.Err())
		}
		select {
		case st.out <- req:
			c.sent.Store(true)
		case <-st.done:
		case <-ctx.Done(): // not sent: nothing to cancel on the server
			st.unregister(id)
			return rpcResponse{}, c.connError(ctx, ctx.Err())
		}
		var noAnswer <-chan time.Time // the answer timeout (nil: none)
		if c.answer > 0 {
			t := time.NewTimer(c.answer)
			defer t.Stop()
			noAnswer = t.C
		}
		select {
		case <-noAnswer:
			if st.unregister(id) {
				st.cancelCall(id)
			}
			return rpcResponse{}, &noAnswerError{target: c.target, wait: c.answer}
		case a := <-ch:
			if errors.Is(a.err, errClosing) && attempt == 0 && ctx.Err() == nil {
				continue // not run: again, on a new stream
			}
			if errors.Is(a.err, errUnread) && ctx.Err() == nil {
				return rpcResponse{}, errSendAlone // not run: again, alone
			}
			if a.err != nil {
				return rpcResponse{}, c.connError(ctx, a.err)
			}
			return a.resp, nil
		case <-ctx.Done():
			if st.unregister(id) {
				st.cancelCall(id)
			}
			return rpcResponse{}, c.connError(ctx, ctx.Err())
		}
	}
}

// cancelCall cancels call id on the server too, as closing an HTTP
// request's connection would: queued behind the requests waiting to be
// written (up to the stream's end), without holding the caller back.
func (st *stream) cancelCall(id uint64) {
	cancel := []byte(`{"jsonrpc":"2.0","method":"` + cancelMethod + `","params":{"id":` + strconv.FormatUint(id, 10) + "}}\n")
	go func() {
		select {
		case st.out <- cancel:
		case <-st.done:
		}
	}()
}

// stream returns c's open stream, opening one if there is none. One call
// opens it; the others wait for it, each until its ctx ends.
func (c *Client) stream(ctx context.Context) (*stream, error) {
	for {
		c.smu.Lock()
		if st := c.st; st != nil && st.usable() {
			c.smu.Unlock()
			return st, nil
		}
		if wait := c.opening; wait != nil {
			c.smu.Unlock()
			select {
			case <-wait:
				continue // opened, or failed: look again
			case <-ctx.Done():
				return nil, c.connError(ctx, ctx.Err())
			}
		}
		opened, closes := make(chan struct{}), c.closes
		c.opening = opened
		c.smu.Unlock()
		st, err := c.openStream(ctx)
		c.smu.Lock()
		c.opening = nil
		closed := c.closes != closes
		if err == nil && !closed {
			c.st = st
		}
		c.smu.Unlock()
		close(opened)
		if err == nil && closed { // Close ran meanwhile: it closes what is open
			st.close()
			return nil, unavailable(c.target, errors.New("the client was closed"))
		}
		return st, err
	}
}

// openStream dials the server and asks for a stream in c's namespace.
func (c *Client) openStream(ctx context.Context) (*stream, error) {
	conn, err := c.dial(ctx)
	if err != nil {
		return nil, c.connError(ctx, err)
	}
	fail := func(err error) (*stream, error) {
		conn.Close()
		return nil, err
	}
	// The opening exchange is bounded by ctx; the stream is not.
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	req, err := http.NewRequest(http.MethodPost, c.url("rpc"), http.NoBody)
	if err != nil {
		stop()
		return fail(err)
	}
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", streamProtocol)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	br := bufio.NewReaderSize(conn, 64<<10)
	err = req.Write(conn)
	var resp *http.Response
	noAnswer := false
	if err == nil {
		if c.answer > 0 {
			// The answer timeout, unless ctx ends first.
			by := time.Now().Add(c.answer)
			if dl, ok := ctx.Deadline(); !ok || by.Before(dl) {
				noAnswer = true
				_ = conn.SetReadDeadline(by)
			}
		}
		resp, err = http.ReadResponse(br, req)
	}
	if !stop() || err != nil {
		if err == nil {
			err = ctx.Err()
		}
		if noAnswer && ctx.Err() == nil && errors.Is(err, os.ErrDeadlineExceeded) {
			return fail(&noAnswerError{target: c.target, wait: c.answer})
		}
		return fail(c.connError(ctx, err))
	}
	_ = conn.SetDeadline(time.Time{})
	if resp.StatusCode != http.StatusSwitchingProtocols {
		data, rerr := readAll(resp)
		resp.Body.Close()
		if rerr != nil {
			return fail(c.connError(ctx, rerr))
		}
		switch resp.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			return fail(rpcOrHTTPError(resp, data))
		case http.StatusServiceUnavailable:
			return fail(errStreamBusy)
		}
		return fail(errNoStream)
	}
	st := &stream{conn: conn, out: make(chan []byte, 256), done: make(chan struct{}), pending: map[uint64]chan streamAnswer{}, idleFor: c.idle}
	st.idle = time.AfterFunc(st.idleFor, st.closeIfIdle)
	go st.writeRequests()
	go st.readAnswers(br)
	return st, nil
}

// usable reports whether new calls may go on st.
func (st *stream) usable() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.err == nil && !st.ending
}

// brokenErr returns why st takes no new call.
func (st *stream) brokenErr() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.err != nil {
		return st.err
	}
	return errors.New("the server ended the JSON-RPC stream")
}

// register takes the next id for a call and the channel of its answer;
// false if st takes no new call.
func (st *stream) register() (uint64, chan streamAnswer, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.err != nil || st.ending {
		return 0, nil, false
	}
	st.next++
	ch := make(chan streamAnswer, 1)
	st.pending[st.next] = ch
	st.idle.Stop()
	return st.next, ch, true
}

// unregister forgets call id (its caller gave up); false if it was not
// pending (answered, or the stream broke).
func (st *stream) unregister(id uint64) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	_, ok := st.pending[id]
	delete(st.pending, id)
	st.armIdle()
	return ok
}

// armIdle starts the idle timer if no call is pending (st.mu held).
func (st *stream) armIdle() {
	if len(st.pending) == 0 && st.err == nil {
		st.idle.Reset(st.idleFor)
	}
}

// closeIfIdle closes st if no call is pending: in one step, so that a
// call registered meanwhile is not failed (register then refuses it, and
// it opens another stream).
func (st *stream) closeIfIdle() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.pending) == 0 {
		st.failLocked(errors.New("the JSON-RPC stream was idle"))
	}
}

// fail breaks st: every pending call gets err, and the connection is
// closed. Only the first call does anything.
func (st *stream) fail(err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.failLocked(err)
}

// failLocked is fail with st.mu held.
func (st *stream) failLocked(err error) {
	if st.err != nil {
		return
	}
	st.err = err
	for id, ch := range st.pending {
		ch <- streamAnswer{err: err}
		delete(st.pending, id)
	}
	st.idle.Stop()
	close(st.done)
	st.conn.Close()
}

// close closes st (Client.Close).
func (st *stream) close() { st.fail(errors.New("the client was closed")) }

// writeRequests writes the queued requests, those queued at once in one
// write.
func (st *stream) writeRequests() {
	var buf []byte
	for {
		select {
		case b := <-st.out:
			buf = append(buf[:0], b...)
		case <-st.done:
			return
		}
	more:
		for len(buf) < streamMaxRequest {
			select {
			case b := <-st.out:
				buf = append(buf, b...)
			default:
				break more
			}
		}
		if _, err := st.conn.Write(buf); err != nil {
			st.fail(err)
			return
		}
	}
}

// readAnswers reads the server's lines and hands each answer to its call
// until the stream ends.
func (st *stream) readAnswers(br *bufio.Reader) {
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long answer (a listing): gather it.
			long := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err != nil {
			st.mu.Lock()
			if ended := st.endedBy; ended != nil && errors.Is(err, io.EOF) {
				err = fmt.Errorf("%w (after its error: %v)", errUnread, ended)
			} else {
				err = cutShort(err)
			}
			st.failLocked(err)
			st.mu.Unlock()
			return
		}
		var a struct {
			rpcResponse
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Reason string `json:"reason"`
			} `json:"params"`
		}
		if err := json.Unmarshal(line, &a); err != nil {
			st.fail(fmt.Errorf("the server's answer is not JSON-RPC: %w", err))
			return
		}
		if a.Method == closingMethod {
			// The server's last line: the calls it read are answered, the
			// calls still waiting were not run (callStream sends them
			// again).
			st.fail(fmt.Errorf("%w (%s)", errClosing, a.Params.Reason))
			return
		}
		id, err := strconv.ParseUint(string(a.ID), 10, 64)
		if err != nil {
			// An answer to no call of ours (id null): the server ends the
			// stream after the calls it has read. No new call goes on it.
			st.mu.Lock()
			st.ending = true
			if a.Error != nil && st.endedBy == nil {
				st.endedBy = decodeResult("", a.rpcResponse, nil)
			}
			st.mu.Unlock()
			continue
		}
		st.mu.Lock()
		ch := st.pending[id]
		delete(st.pending, id)
		st.armIdle()
		st.mu.Unlock()
		if ch != nil {
			ch <- streamAnswer{resp: a.rpcResponse}
		}
	}
}

// cutShort returns err, an error reading a server's answer, saying that
// the connection ended before the answer was whole (a server that died
// as it answered), if it is an end of input: the call may have run.
func cutShort(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("the connection closed before its answer was whole (the call may have run): %w", err)
	}
	return err
}

// Close closes c's connections: its JSON-RPC stream (calls in flight on
// it fail, matching api.ErrUnavailable) and its idle HTTP connections. A
// call after Close opens new ones. It never fails.
func (c *Client) Close() error {
	c.smu.Lock()
	st := c.st
	c.st = nil
	c.closes++
	c.smu.Unlock()
	if st != nil {
		st.close()
	}
	c.http.CloseIdleConnections()
	return nil
}
