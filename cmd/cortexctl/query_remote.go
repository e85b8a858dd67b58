package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cayleygraph/quad"
	"github.com/urfave/cli/v2"

	"github.com/cortexgraph/cortex/client"
	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/results"
)

// remoteQuery runs cortexctl query through a server's SPARQL endpoint
// (base, default graph and timeout sent with it) and prints the result as
// a query over the store prints it. The server's timeout applies when
// --timeout is 0.
func remoteQuery(c *cli.Context, e *env, rc *client.Client, text, format string, opts sparql.Options) error {
	ctx := c.Context
	qo := client.QueryOptions{Base: opts.Base, DefaultGraph: opts.DefaultGraph, Timeout: opts.Timeout}
	if c.Bool("explain") {
		plan, err := rc.Explain(ctx, text, qo)
		if err != nil {
			return remoteQueryError(e, err)
		}
		_, err = io.WriteString(e.stdout, plan)
		return err
	}
	res, err := rc.Query(ctx, text, qo)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			// A server sends a result only once it is whole: a stopped
			// query printed nothing, and says so as in process.
			err = nothingPrinted(ctx, err)
		}
		return remoteQueryError(e, err)
	}
	w := bufio.NewWriter(e.stdout)
	switch {
	case res.Solutions != nil && res.Solutions.Boolean != nil:
		b := *res.Solutions.Boolean
		if err := writeBoolean(w, format, b); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if !b && c.Bool("exit-status") {
			return errFalse
		}
		return nil
	case res.Solutions != nil:
		err = writeSolutions(ctx, w, format, res.Solutions.Vars, &sliceRows{rows: res.Solutions.Rows}, opts.Prefixes, e.stdoutIsTerminal())
	default:
		err = writeGraph(ctx, w, format, &sliceQuads{quads: res.Triples}, opts.Prefixes)
	}
	if err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("query: %w", err)
	}
	return nil
}

// remoteQueryError prints the detail of a query error a server answered
// (the line of a syntax error with a caret under the column), as
// queryError does, and returns the error.
func remoteQueryError(e *env, err error) error {
	var ce *client.Error
	if errors.As(err, &ce) {
		fmt.Fprint(e.stderr, ce.Detail)
	}
	return err
}

// sliceRows is a rowSource over rows in memory.
type sliceRows struct {
	rows []results.Row
	i    int
}

func (s *sliceRows) Next(context.Context) bool { s.i++; return s.i <= len(s.rows) }
func (s *sliceRows) Row() []quad.Value         { return s.rows[s.i-1] }
func (s *sliceRows) Err() error                { return nil }

// sliceQuads is a quadSource over quads in memory.
type sliceQuads struct {
	quads []quad.Quad
	i     int
}

func (s *sliceQuads) Next(context.Context) bool { s.i++; return s.i <= len(s.quads) }
func (s *sliceQuads) Quad() quad.Quad           { return s.quads[s.i-1] }
func (s *sliceQuads) Err() error                { return nil }

// nothingPrinted returns err, of a query a server stopped (its timeout) or
// that was interrupted (ctx ended), in the words of one stopped in process
// (stopped): "query: timed out after 5s: nothing was printed: context
// deadline exceeded", "query: interrupted: nothing was printed: context
// canceled". It matches what err matches.
func nothingPrinted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return &rewordedError{msg: fmt.Sprintf("query: %v", stopped(ctx.Err(), 0, false)), err: err}
	}
	msg := err.Error()
	for _, cause := range []error{context.DeadlineExceeded, context.Canceled} {
		if rest, ok := strings.CutSuffix(msg, ": "+cause.Error()); ok {
			return &rewordedError{msg: rest + ": nothing was printed: " + cause.Error(), err: err}
		}
	}
	return fmt.Errorf("%w: nothing was printed", err)
}

// rewordedError is err with another message.
type rewordedError struct {
	msg string
	err error
}

func (e *rewordedError) Error() string { return e.msg }
func (e *rewordedError) Unwrap() error { return e.err }
