package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex/sparql/results"
)

// Limits. Every response that reads the store (a SPARQL query, a Graph
// Store GET) is produced in full into a spool (memory, then a temporary
// file) while the request holds its turn (WithMaxQueries) and the store's
// read transaction, and only then sent: a client that reads slowly holds
// a goroutine and the spool, never a transaction of the store, so a large
// write (a journaled delta, which waits for every transaction of the
// store to end) never waits for it. It also means that every error of a
// query (its syntax, its timeout, too many results) is answered as an
// error, before any result is sent.

// queryTurn waits for a turn among the WithMaxQueries read-heavy requests
// running at once, at most the queue wait; it returns the function that
// ends the turn (it may be called more than once), or an error matching
// api.ErrBusy (or ctx's error).
func (s *Server) queryTurn(ctx context.Context) (func(), error) {
	release := sync.OnceFunc(func() { <-s.turns })
	select {
	case s.turns <- struct{}{}:
		return release, nil
	default:
	}
	t := time.NewTimer(s.opts.queueWait)
	defer t.Stop()
	select {
	case s.turns <- struct{}{}:
		return release, nil
	case <-t.C:
		return nil, fmt.Errorf("%w: %d queries are running, the server's limit, and none ended within %s: retry later",
			api.ErrBusy, cap(s.turns), s.opts.queueWait)
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// tooMany returns the error of a response of more than the limit of
// results, of which what names the unit (rows, triples, teams...).
func (s *Server) tooMany(what string) error {
	return fmt.Errorf("%w: more than %d %s (the server's limit of results per response): narrow the request (LIMIT, a filter)",
		ErrTooManyResults, s.opts.maxResults, what)
}

// checkCount returns an ErrTooManyResults error if the n results (of
// unit what) of a JSON-RPC listing exceed the limit of results per
// response; in a batch, whose calls answer in one response, if they
// exceed what the batch's earlier listings left of it (each call that
// fits takes its share; the one over it fails, with its own error, and
// the calls after it get what is left).
func (c *rpcCtx) checkCount(n int, what string) error {
	if int64(n) > c.s.opts.maxResults {
		return c.s.tooMany(what)
	}
	if c.batch == nil {
		return nil
	}
	if int64(n) > c.batch.left {
		return fmt.Errorf("%w: more than %d %s with the results of the batch's earlier calls (the server's limit of results per response, which a batch's calls share): send them in several batches, or narrow the request",
			ErrTooManyResults, c.s.opts.maxResults, what)
	}
	c.batch.left -= int64(n)
	return nil
}

// batchBudget is what a JSON-RPC batch's listings have left of the limit
// of results per response, in the context of its calls (batchKey). Its
// calls run one after the other.
type batchBudget struct{ left int64 }

type batchKey struct{}

var _ results.Rows = (*cappedRows)(nil)

// cappedRows passes the rows of a result on up to a limit; one more ends
// it with ErrTooManyResults.
type cappedRows struct {
	results.Rows
	s   *Server
	n   int64
	err error
}

func (c *cappedRows) Next(ctx context.Context) bool {
	if c.err != nil || !c.Rows.Next(ctx) {
		return false
	}
	if c.n++; c.n > c.s.opts.maxResults {
		c.err = c.s.tooMany("rows")
		return false
	}
	return true
}

func (c *cappedRows) Err() error {
	if c.err != nil {
		return c.err
	}
	return c.Rows.Err()
}

// quadCounter counts the quads written through it and fails past the
// limit of results.
type quadCounter struct {
	s *Server
	n int64
}

func (c *quadCounter) add() error {
	if c.n++; c.n > c.s.opts.maxResults {
		return c.s.tooMany("triples")
	}
	return nil
}

// spoolMemBytes is how much of a response a spool holds in memory before
// it goes on in a temporary file.
const spoolMemBytes = 1 << 20

// spoolChunkBytes is the size of a spool's memory chunks, which are
// pooled across responses (spoolChunks): a response neither grows a
// buffer by copying it nor leaves one to the garbage collector.
const spoolChunkBytes = 64 << 10

// spoolChunks holds free chunks (*[]byte of capacity spoolChunkBytes).
var spoolChunks = sync.Pool{New: func() any {
	b := make([]byte, 0, spoolChunkBytes)
	return &b
}}

// spool holds a response body as it is produced: in memory, in pooled
// chunks, then, past spoolMemBytes, in a temporary file. Close gives the
// chunks back and removes the file.
type spool struct {
	chunks []*[]byte // full but the last
	mem    int       // bytes in chunks
	f      *os.File
	n      int64
}

func (sp *spool) Write(p []byte) (int, error) {
	if sp.f == nil && sp.mem+len(p) <= spoolMemBytes {
		k := len(p)
		for len(p) > 0 {
			if len(sp.chunks) == 0 || len(*sp.chunks[len(sp.chunks)-1]) == spoolChunkBytes {
				c := spoolChunks.Get().(*[]byte)
				*c = (*c)[:0]
				sp.chunks = append(sp.chunks, c)
			}
			c := sp.chunks[len(sp.chunks)-1]
			m := copy((*c)[len(*c):spoolChunkBytes], p)
			*c = (*c)[:len(*c)+m]
			p = p[m:]
		}
		sp.mem += k
		sp.n += int64(k)
		return k, nil
	}
	if sp.f == nil {
		f, err := os.CreateTemp("", "cortex-response-*")
		if err != nil {
			return 0, fmt.Errorf("spool the response: %w", err)
		}
		sp.f = f
	}
	k, err := sp.f.Write(p)
	sp.n += int64(k)
	if err != nil {
		return k, fmt.Errorf("spool the response: %w", err)
	}
	return k, nil
}

// writeTo writes the spool's content to w: its chunks, then its file
// (read from the start, through a pooled chunk).
func (sp *spool) writeTo(w io.Writer) error {
	for _, c := range sp.chunks {
		if _, err := w.Write(*c); err != nil {
			return err
		}
	}
	if sp.f == nil {
		return nil
	}
	if _, err := sp.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("read the spooled response: %w", err)
	}
	buf := spoolChunks.Get().(*[]byte)
	defer spoolChunks.Put(buf)
	// Only Write: an io.ReaderFrom of w would read the file its own way.
	_, err := io.CopyBuffer(struct{ io.Writer }{w}, sp.f, (*buf)[:spoolChunkBytes])
	return err
}

// Close gives the spool's chunks back and removes its file, if any.
func (sp *spool) Close() {
	for _, c := range sp.chunks {
		spoolChunks.Put(c)
	}
	sp.chunks, sp.mem = nil, 0
	if sp.f != nil {
		sp.f.Close()
		os.Remove(sp.f.Name())
	}
}

// contentType returns the Content-Type of a body of media type mt: a
// text/ type (CSV, TSV, Turtle) says charset=utf-8, which every format
// here is, for without it text/csv is US-ASCII (RFC 4180) and many
// clients read any text/ type as ISO-8859-1.
func contentType(mt string) string {
	if strings.HasPrefix(mt, "text/") {
		return mt + "; charset=utf-8"
	}
	return mt
}

// respond answers r with a body of media type mt that produce writes: it
// runs produce into a spool, then, if produce succeeded, sends the spool
// with a 200 (and its Content-Length), each chunk within the write
// timeout. If produce fails, nothing has been sent: the error is returned
// for the caller to answer.
func (s *Server) respond(w http.ResponseWriter, r *http.Request, mt string, produce func(io.Writer) error) error {
	sp := &spool{}
	defer sp.Close()
	if err := produce(sp); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", contentType(mt))
	h.Set("Vary", "Accept")
	h.Set("Content-Length", strconv.FormatInt(sp.n, 10))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	out := &deadlineWriter{w: w, rc: http.NewResponseController(w), timeout: s.opts.writeTimeout}
	if err := sp.writeTo(out); err != nil {
		// The client is gone, or accepted nothing within the write
		// timeout; a read error of the spool cuts the response too.
		s.opts.logger.Printf("response of %s %s cut: %v", r.Method, r.URL.Path, err)
		panic(http.ErrAbortHandler)
	}
	return nil
}

// deadlineWriter writes each chunk within timeout (where the connection
// supports deadlines).
type deadlineWriter struct {
	w       io.Writer
	rc      *http.ResponseController
	timeout time.Duration
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		// A chunk at a time: a large p is not all to be sent within
		// one timeout.
		c := p[:min(len(p), spoolChunkBytes)]
		_ = d.rc.SetWriteDeadline(time.Now().Add(d.timeout)) // not supported: no bound
		k, err := d.w.Write(c)
		n += k
		if err != nil {
			return n, err
		}
		p = p[len(c):]
	}
	return n, nil
}

// timedResponse is a ResponseWriter whose body is written through a
// deadlineWriter: each chunk within the write timeout.
type timedResponse struct {
	http.ResponseWriter
	out *deadlineWriter
}

// timed returns w with each chunk of its body written within the write
// timeout, so that a client that does not read a response does not hold
// its request (a goroutine, the response) for as long as it keeps the
// connection open: the write fails, and the connection is closed.
func (s *Server) timed(w http.ResponseWriter) http.ResponseWriter {
	return timedResponse{ResponseWriter: w, out: &deadlineWriter{w: w, rc: http.NewResponseController(w), timeout: s.opts.writeTimeout}}
}

func (t timedResponse) Write(p []byte) (int, error) { return t.out.Write(p) }

// Unwrap lets http.ResponseController reach the connection.
func (t timedResponse) Unwrap() http.ResponseWriter { return t.ResponseWriter }

// timedResponses wraps h so that every response's body is written a
// chunk at a time within the write timeout (timed): an error too, whose
// message may name a large part of the request (a Turtle prefix of
// megabytes), not only the results that respond sends so.
func (s *Server) timedResponses(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(s.timed(w), r)
	})
}

// limitBody wraps h so that a request's body must arrive within the body
// timeout: its reads fail with ErrRequestTimeout past it. Once the body
// is read to its end, the connection has no read deadline any more, so a
// long response (an event stream) is not cut by it.
func (s *Server) limitBody(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			if rc.SetReadDeadline(time.Now().Add(s.opts.bodyTimeout)) == nil {
				r.Body = &timedBody{ReadCloser: r.Body, rc: rc, timeout: s.opts.bodyTimeout}
			}
		}
		h.ServeHTTP(w, r)
	})
}

// timedBody is a request body read under a deadline: the whole body's,
// or, once idle is set (a streamed import), each read's.
type timedBody struct {
	io.ReadCloser
	rc      *http.ResponseController
	timeout time.Duration
	done    bool
	idle    bool
}

func (b *timedBody) Read(p []byte) (int, error) {
	if b.idle && !b.done {
		_ = b.rc.SetReadDeadline(time.Now().Add(b.timeout))
	}
	n, err := b.ReadCloser.Read(p)
	switch {
	case err == io.EOF && !b.done:
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	case errors.Is(err, os.ErrDeadlineExceeded):
		err = fmt.Errorf("%w: the request's body did not arrive within %s", ErrRequestTimeout, b.timeout)
		if b.idle {
			err = fmt.Errorf("%w: no byte of the request's body arrived within %s", ErrRequestTimeout, b.timeout)
		}
	}
	return n, err
}
