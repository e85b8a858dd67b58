package client

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/cortex/sparql/results"
	"github.com/cortexgraph/cortex/server"
)

// QueryOptions configure Query and Explain. The zero value runs a query
// over the union of the namespace's graphs with the server's default
// timeout.
type QueryOptions struct {
	Base         string        // base IRI of the query ("": none)
	DefaultGraph string        // union (""), default (the namespace's own default graph) or a graph IRI
	Timeout      time.Duration // 0: the server's default (at most the server's maximum)
}

// QueryResult is the result of Query: Solutions for SELECT and ASK
// (Boolean set), Triples for CONSTRUCT and DESCRIBE.
type QueryResult struct {
	Solutions *results.Result
	Triples   []quad.Quad
}

// Query runs a SPARQL query over the namespace through the server's SPARQL
// endpoint and returns its whole result. A query the server refuses is an
// *Error: a syntax error matches api.ErrSyntax, and its Detail holds the
// line of the query with a caret under the column.
func (c *Client) Query(ctx context.Context, text string, opts QueryOptions) (*QueryResult, error) {
	resp, err := c.sparql(ctx, text, opts, false)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := c.readBody(ctx, resp)
	if err != nil {
		return nil, err
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "application/sparql-results+json":
		r, err := results.ReadJSON(bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("query: the server's results: %w", err)
		}
		return &QueryResult{Solutions: r}, nil
	case "application/n-triples":
		qs, err := rdfio.ReadAll(bytes.NewReader(body), rdfio.NTriples, rdfio.DecodeOptions{})
		if err != nil {
			return nil, fmt.Errorf("query: the server's results: %w", err)
		}
		return &QueryResult{Triples: qs}, nil
	}
	return nil, fmt.Errorf("query: the server answered %q, which the client does not read", mt)
}

// readBody reads a response body whole. An error the server met after it
// had started answering (a query's timeout) is the *Error of the
// response's trailers (see server.ErrorTrailerHeader); a body cut short is
// an error too.
func (c *Client) readBody(ctx context.Context, resp *http.Response) ([]byte, error) {
	body, err := readAll(resp)
	if err != nil {
		if ctx.Err() != nil {
			return nil, c.connError(ctx, err)
		}
		return nil, fmt.Errorf("query: the server's response is incomplete: %w", err)
	}
	if code := resp.Trailer.Get("Cortex-Exit-Code"); code != "" {
		e := &Error{Code: resp.StatusCode, Message: resp.Trailer.Get("Cortex-Error"), Kind: api.Kind(resp.Trailer.Get("Cortex-Error-Kind"))}
		if e.ExitCode, err = strconv.Atoi(code); err != nil {
			e.ExitCode, e.Kind = api.ExitInternal, api.KindInternal
		}
		return nil, e
	}
	return body, nil
}

// Explain returns the evaluation plan of a query, without running it.
func (c *Client) Explain(ctx context.Context, text string, opts QueryOptions) (string, error) {
	resp, err := c.sparql(ctx, text, opts, true)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := c.readBody(ctx, resp)
	return string(b), err
}

// sparql posts a query to the SPARQL endpoint; a response that is not 200
// is returned as its *Error.
func (c *Client) sparql(ctx context.Context, text string, opts QueryOptions, explain bool) (*http.Response, error) {
	form := url.Values{"query": {text}}
	if opts.Base != "" {
		form.Set("base", opts.Base)
	}
	if opts.DefaultGraph != "" {
		form.Set("default-graph", opts.DefaultGraph)
	}
	if opts.Timeout > 0 {
		form.Set("timeout", opts.Timeout.String())
	}
	if explain {
		form.Set("explain", "true")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url("sparql"), strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/sparql-results+json, application/n-triples")
	req.Header.Set(server.ErrorTrailerHeader, "1")
	wait := c.answer // the query runs up to its timeout before it answers
	if wait > 0 {
		wait += max(opts.Timeout, 0)
	}
	resp, err := c.doWithin(req, wait)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, c.connError(ctx, err)
		}
		return nil, httpError(resp, body)
	}
	return resp, nil
}

// maxPresize bounds the buffer readAll allocates from a response's
// Content-Length before it has read any of it.
const maxPresize = 64 << 20

// readAll reads a response body whole, into one buffer of the response's
// Content-Length when it gives one (up to maxPresize; past it, or
// without it, or for a small body, the buffer grows as it reads), so that
// a large result is not copied while it arrives.
func readAll(resp *http.Response) ([]byte, error) {
	n := resp.ContentLength
	if n <= bytes.MinRead || n > maxPresize {
		return io.ReadAll(resp.Body)
	}
	buf := bytes.NewBuffer(make([]byte, 0, n+bytes.MinRead))
	_, err := buf.ReadFrom(resp.Body)
	return buf.Bytes(), err
}
