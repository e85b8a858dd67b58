// Package sparql runs SPARQL 1.1 queries: it parses the text (package parser), plans and evaluates the
// algebra over an eval.Dataset (package eval) and returns a streaming Result. Result writers live in
// package results; they can be used alone.
//
// # Default graph
//
// Options.DefaultGraph chooses what the query's default graph is when it has no FROM clause:
// eval.UnionGraph ("union", the default) is the RDF merge of every graph of the dataset — a triple held
// in several graphs is seen once —, eval.OwnDefaultGraph ("default") the dataset's own default graph, and
// any other value the named graph with that IRI. FROM and FROM NAMED choose among the dataset's graphs.
//
// # Concurrency
//
// Query is safe for concurrent use. A Result is not: one goroutine at a time.
package sparql

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
	"github.com/cortexgraph/cortex/cortex/sparql/parser"
	"github.com/cortexgraph/cortex/cortex/sparql/results"
	"github.com/cortexgraph/cortex/internal/ctxcause"
)

// Options configure Query. The zero value parses with the default prefixes (rdf rdfs xsd owl prov), no
// base IRI, the union default graph, no timeout and no bindings.
type Options struct {
	// Base is the base IRI of the query text (a BASE declaration overrides it). Without an absolute
	// base, a relative IRI in the query is a syntax error wrapping parser.ErrRelativeIRI; a base holding
	// a character that no IRI holds is a syntax error too.
	Base string
	// Prefixes are added to the built-in prefixes; PREFIX declarations override both.
	Prefixes map[string]string
	// DefaultGraph is eval.UnionGraph (also ""), eval.OwnDefaultGraph or a graph IRI.
	DefaultGraph string
	// Timeout, when positive, bounds the whole evaluation including the iteration of the result, and
	// for Query the parsing of the text as well.
	Timeout time.Duration
	// Bindings give variables of the query values before it is evaluated: query parameters, so that
	// values never have to be written into the query text. Keys are variable names (without '?'; a
	// leading '?' or '$' is accepted), values IRIs or literals. A bound variable has its value everywhere
	// in the query and in every solution (see algebra.Bind for the exact semantics). A name that is not
	// a variable of the query is an error (ErrUnknownVariable), as is a variable the query assigns itself
	// (ErrBindingConflict) or an unusable value (ErrInvalidBinding). Nil or empty: no bindings.
	Bindings map[string]quad.Value
	// Dataset, when not nil, is the RDF dataset of the query in place of its FROM and FROM NAMED
	// clauses, which it overrides (as the SPARQL 1.1 Protocol's default-graph-uri and named-graph-uri
	// parameters do): the default graph is the RDF merge of Dataset.Default, the named graphs are
	// Dataset.Named. A Dataset with no graph in either list changes nothing.
	Dataset *algebra.Dataset
}

// Bind returns a copy of o with variable name bound to v (see Options.Bindings). The map of o is not
// modified, so a base Options value can be reused:
//
//	res, err := sparql.Query(ctx, ds, `SELECT ?f WHERE { ?f <urn:ex:by> ?agent }`,
//	    sparql.Options{}.Bind("agent", quad.IRI("urn:ex:alice")))
func (o Options) Bind(name string, v quad.Value) Options {
	m := maps.Clone(o.Bindings)
	if m == nil {
		m = map[string]quad.Value{}
	}
	m[name] = v
	o.Bindings = m
	return o
}

// Errors of bindings (Options.Bindings); they are the algebra package's.
var (
	// ErrUnknownVariable means a binding names no variable of the query.
	ErrUnknownVariable = algebra.ErrUnknownVariable
	// ErrBindingConflict means a binding names a variable the query assigns itself.
	ErrBindingConflict = algebra.ErrBindingConflict
	// ErrInvalidBinding means a binding has a bad name or an unusable value.
	ErrInvalidBinding = algebra.ErrInvalidBinding
)

// Kind tells which of its parts a Result uses.
type Kind int

// Result kinds.
const (
	// Solutions: Vars and rows through Next / Row (SELECT).
	Solutions Kind = iota
	// Boolean: the Boolean field (ASK).
	Boolean
	// Graph: triples through Next / Quad (CONSTRUCT, DESCRIBE).
	Graph
)

// Result is the streaming result of a query. Iterate rows (Solutions) or triples (Graph) with Next until
// it returns false, then check Err; always Close. A Result that becomes unreachable without being closed
// is closed by the garbage collector (its evaluation stopped, the functions given to AfterClose run), so
// that a forgotten result does not hold the dataset's resources for ever; Leaked reports it.
type Result struct {
	Kind    Kind
	Form    algebra.Form
	Vars    []string
	Boolean bool

	res *eval.Result
	ctx context.Context // of the evaluation, for the cause of its end (Err)
	// core is what Close releases; the garbage collector's clean-up of an
	// unclosed Result releases it too, so it must not point back to r.
	core *resultCore
}

// resultCore is what a Result's Close releases.
type resultCore struct {
	mu      sync.Mutex
	res     *eval.Result
	cancel  context.CancelFunc
	onClose []func() error
	onLeak  []func()
	closed  bool
}

func (c *resultCore) close(leaked bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	if leaked {
		for _, fn := range c.onLeak {
			fn()
		}
	}
	err := c.res.Close()
	c.cancel()
	for _, fn := range c.onClose {
		if ferr := fn(); err == nil {
			err = ferr
		}
	}
	return err
}

// Parse parses text with the options' base and prefixes.
func Parse(text string, opts Options) (*algebra.Query, error) {
	return parseContext(context.Background(), text, opts)
}

// parseContext is Parse stopped by ctx (parser.ParseContext): the error of an ended context is the one
// an evaluation stopped by it returns.
func parseContext(ctx context.Context, text string, opts Options) (*algebra.Query, error) {
	popts := parser.DefaultOptions().WithPrefixes(opts.Prefixes)
	popts.Base = opts.Base
	q, err := parser.ParseContext(ctx, text, popts)
	if err != nil {
		return nil, ctxcause.With(ctx, err)
	}
	return q, nil
}

// Query parses and evaluates text over ds. Syntax errors are *parser.SyntaxError values; constructs the
// engine does not implement yield an error wrapping algebra.ErrNotSupported. opts.Timeout and ctx
// bound the parsing too: a query whose context ends while it is parsed fails with the error an
// evaluation stopped by it returns.
func Query(ctx context.Context, ds eval.Dataset, text string, opts Options) (*Result, error) {
	ctx, cancel := withTimeout(ctx, opts.Timeout)
	q, err := parseContext(ctx, text, opts)
	if err != nil {
		cancel()
		return nil, err
	}
	return evalWith(ctx, cancel, ds, q, opts)
}

// Eval evaluates a parsed query over ds, with opts.Bindings applied to it (q itself is not modified: a
// query parsed once can be evaluated with different bindings).
func Eval(ctx context.Context, ds eval.Dataset, q *algebra.Query, opts Options) (*Result, error) {
	ctx, cancel := withTimeout(ctx, opts.Timeout)
	return evalWith(ctx, cancel, ds, q, opts)
}

// withTimeout returns ctx bounded by timeout when it is positive.
func withTimeout(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout > 0 {
		return context.WithTimeout(ctx, timeout)
	}
	return ctx, func() {}
}

// evalWith is Eval under ctx, whose cancel the result calls when it is closed (evalWith calls it when
// it fails).
func evalWith(ctx context.Context, cancel context.CancelFunc, ds eval.Dataset, q *algebra.Query, opts Options) (*Result, error) {
	q, err := algebra.Bind(q, opts.Bindings)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("bind: %w", err)
	}
	q = withDataset(q, opts.Dataset)
	er, err := eval.Eval(ctx, ds, q, eval.Options{DefaultGraph: opts.DefaultGraph, Base: opts.Base})
	if err != nil {
		err = ctxcause.With(ctx, err)
		cancel()
		if ctx.Err() != nil {
			// Ended before the result (compilation looks at the context): the same error as when
			// the iteration ends, which callers (cortexctl) report in fixed words.
			return nil, err
		}
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	r := &Result{Form: q.Form, res: er, ctx: ctx, core: &resultCore{res: er, cancel: cancel}}
	runtime.AddCleanup(r, func(c *resultCore) { _ = c.close(true) }, r.core)
	switch q.Form {
	case algebra.Select:
		r.Kind = Solutions
		r.Vars = er.Rows.Vars()
	case algebra.Ask:
		r.Kind = Boolean
		r.Boolean = er.Boolean
		cancel()
	default:
		r.Kind = Graph
	}
	return r, nil
}

// Explain parses text and returns the evaluation plan without running the query.
func Explain(ctx context.Context, ds eval.Dataset, text string, opts Options) (string, error) {
	q, err := parseContext(ctx, text, opts)
	if err != nil {
		return "", err
	}
	if q, err = algebra.Bind(q, opts.Bindings); err != nil {
		return "", fmt.Errorf("bind: %w", err)
	}
	q = withDataset(q, opts.Dataset)
	return eval.Explain(ctx, ds, q, eval.Options{DefaultGraph: opts.DefaultGraph, Base: opts.Base})
}

// Next advances to the next row or triple.
func (r *Result) Next(ctx context.Context) bool {
	// r must stay reachable while its evaluation runs: its clean-up (see
	// Result) would close the evaluation under this call.
	defer runtime.KeepAlive(r)
	switch {
	case r.res.Rows != nil:
		return r.res.Rows.Next(ctx)
	case r.res.Quads != nil:
		return r.res.Quads.Next(ctx)
	}
	return false
}

// Row returns the current solution, aligned with Vars; valid until the next Next.
func (r *Result) Row() []quad.Value {
	defer runtime.KeepAlive(r)
	return r.res.Rows.Row()
}

// Quad returns the current triple of a Graph result.
func (r *Result) Quad() quad.Quad {
	defer runtime.KeepAlive(r)
	return r.res.Quads.Quad()
}

// Err returns the error that ended the iteration, if any. When the evaluation's context was cancelled
// with a cause (context.WithCancelCause), the error matches both context.Canceled and the cause.
func (r *Result) Err() error {
	defer runtime.KeepAlive(r)
	var err error
	switch {
	case r.res.Rows != nil:
		err = r.res.Rows.Err()
	case r.res.Quads != nil:
		err = r.res.Quads.Err()
	}
	if err != nil && r.ctx != nil {
		err = ctxcause.With(r.ctx, err)
	}
	return err
}

// Close stops the evaluation and releases its resources. It is safe to call more than once.
func (r *Result) Close() error { return r.core.close(false) }

// AfterClose registers fn to run when r is closed, after the evaluation has stopped (the dataset is no
// longer read); Close returns fn's error when it has none of its own. A dataset that holds resources for
// one query (a read transaction) releases them this way. fn also runs when the garbage collector closes
// a result that was not closed (see Result), on the collector's clean-up goroutine.
func (r *Result) AfterClose(fn func() error) {
	r.core.mu.Lock()
	defer r.core.mu.Unlock()
	r.core.onClose = append(r.core.onClose, fn)
}

// Leaked registers fn to run, before the functions of AfterClose, when the garbage collector closes r
// because it became unreachable without being closed.
func (r *Result) Leaked(fn func()) {
	r.core.mu.Lock()
	defer r.core.mu.Unlock()
	r.core.onLeak = append(r.core.onLeak, fn)
}

// Collect reads a Solutions or Boolean result completely into a results.Result (for tests and small
// results) and closes r.
func (r *Result) Collect(ctx context.Context) (*results.Result, error) {
	defer r.Close()
	if r.Kind == Boolean {
		b := r.Boolean
		return &results.Result{Boolean: &b}, nil
	}
	if r.Kind != Solutions {
		return nil, fmt.Errorf("collect: %s result has no solutions", r.Form)
	}
	out := &results.Result{Vars: append([]string(nil), r.Vars...)}
	for r.Next(ctx) {
		out.Rows = append(out.Rows, append(results.Row(nil), r.Row()...))
	}
	return out, r.Err()
}

// CollectQuads reads a Graph result completely and closes r.
func (r *Result) CollectQuads(ctx context.Context) ([]quad.Quad, error) {
	defer r.Close()
	if r.Kind != Graph {
		return nil, fmt.Errorf("collect: %s result has no triples", r.Form)
	}
	var out []quad.Quad
	for r.Next(ctx) {
		out = append(out, r.Quad())
	}
	return out, r.Err()
}

// withDataset returns q with its dataset replaced by d (q itself when d is nil or names no graph, see
// Options.Dataset; q is never modified).
func withDataset(q *algebra.Query, d *algebra.Dataset) *algebra.Query {
	if d == nil || len(d.Default) == 0 && len(d.Named) == 0 {
		return q
	}
	out := *q
	out.Dataset = &algebra.Dataset{Default: slices.Clone(d.Default), Named: slices.Clone(d.Named)}
	return &out
}
