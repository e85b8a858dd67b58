package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
	"github.com/cortexgraph/cortex/cortex/sparql/results"
	"github.com/cortexgraph/cortex/teammanager"
)

func queryCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "query",
		Usage:     "run a SPARQL 1.1 query over the namespace",
		ArgsUsage: "'SPARQL' | --file Q.rq",
		Description: `Runs a SELECT, ASK, CONSTRUCT or DESCRIBE query over the current namespace only.

Prefixes rdf rdfs xsd owl prov, cx and the namespace's own name (both the
namespace's IRI prefix, under which the Cortex vocabulary lives: cx:Finding,
cx:finding:confidence, cx:team:status, ...; see fixtures/vocab.ttl) and the
config file's prefixes are predeclared.

The default graph is, with --default-graph union (the default), the RDF merge of
all graphs of the namespace: a triple held in several graphs counts once. Use
--default-graph default for the namespace's own default graph only, or a graph
IRI. GRAPH, FROM and FROM NAMED address the namespace's named graphs.

Formats: SELECT results as table (default on a terminal), json (default
otherwise), xml, csv or tsv (W3C formats); CONSTRUCT/DESCRIBE as ntriples
(default), turtle or rdfxml (RDF/XML, written once the whole result is read; a
predicate IRI it cannot split into a namespace and an XML name, such as one
ending in '/' or a digit, is an error before anything is written); a
literal holding a character XML 1.0 forbids (U+0000, most control
characters) cannot be written as xml or rdfxml (exit 2: use another
format). ASK prints true or false, and with --exit-status exits 0 for true
and 9 for false.

Examples:
   cortexctl query 'SELECT ?s ?p ?o WHERE { ?s ?p ?o } LIMIT 10'
   cortexctl query --file q.rq --format csv > out.csv
   cortexctl query --explain --file q.rq`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "file", Usage: "read the query from `FILE` (- for standard input); its file:// URL is the base IRI"},
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "table|json|xml|csv|tsv (SELECT, ASK), ntriples|turtle|rdfxml (CONSTRUCT, DESCRIBE)"},
			&cli.BoolFlag{Name: "json", Usage: "alias of --format json"},
			&cli.BoolFlag{Name: "explain", Usage: "print the evaluation plan (text) instead of running the query (not with --format, --json or --exit-status)"},
			&cli.DurationFlag{Name: "timeout", Usage: "stop the query after `D` (e.g. 30s; 0: none; through a server, 0 is its default, 30s, and D at most its maximum, 5m); a stopped query exits 8 and says its output is incomplete (or that nothing was printed)"},
			&cli.StringFlag{Name: "default-graph", Usage: "what the query's default graph is: union|default|IRI", Value: eval.UnionGraph},
			&cli.BoolFlag{Name: "exit-status", Usage: "for ASK: exit 0 when true, 9 when false"},
			&cli.StringFlag{Name: "base", Usage: "base IRI of the query, absolute (default: the --file URL; without one, a relative IRI in the query is a syntax error)"},
		},
		Action: func(c *cli.Context) error { return queryCmd(c, e) },
	}
}

func queryCmd(c *cli.Context, e *env) error {
	if c.NArg() > 1 {
		return usagef("query: want one query argument, got %d (quote the query)", c.NArg())
	}
	text, base, err := queryText(c, e)
	if err != nil {
		return err
	}
	if b := c.String("base"); b != "" {
		if err := checkBase(b); err != nil {
			return fmt.Errorf("query: %w", err)
		}
		base = b
	}
	format := c.String("format")
	if c.Bool("json") {
		if format != "" && format != "json" {
			return usagef("query: --json conflicts with --format %s", format)
		}
		format = "json"
	}
	if c.Bool("explain") && (c.IsSet("format") || c.Bool("json") || c.Bool("exit-status")) {
		// The plan is text: a result format (checked or not) or
		// --exit-status was ignored.
		return usagef("query: --explain prints the plan as text: not with --format, --json or --exit-status")
	}
	timeout := c.Duration("timeout")
	if timeout < 0 {
		return fmt.Errorf("%w: query: --timeout %s is negative (0 means none)", errInvalid, durationText(c, e.args, "timeout"))
	}
	nsIRI, err := e.ns()
	if err != nil {
		return err
	}
	prefixes := teammanager.Prefixes(nsIRI, e.cfg.Prefixes)
	opts := sparql.Options{Base: base, Prefixes: prefixes, DefaultGraph: c.String("default-graph"), Timeout: timeout}
	if opts.DefaultGraph != eval.UnionGraph && opts.DefaultGraph != eval.OwnDefaultGraph && !api.HasScheme(opts.DefaultGraph) {
		return fmt.Errorf("%w: query: --default-graph %q: want union, default or an absolute IRI", errInvalid, opts.DefaultGraph)
	}
	if g := opts.DefaultGraph; g != eval.UnionGraph && g != eval.OwnDefaultGraph {
		// As a server's SPARQL endpoint checks it: an IRI no graph can have.
		if err := cortex.CheckIRI(g); err != nil {
			return fmt.Errorf("%w: query: --default-graph: %v", errInvalid, err)
		}
	}
	if rc, err := e.remote(); err != nil || rc != nil {
		if err != nil {
			return err
		}
		// The server reads the query with its prefixes; the output
		// abbreviates with the same.
		if opts.Prefixes, err = e.prefixes(c.Context); err != nil {
			return err
		}
		return remoteQuery(c, e, rc, text, format, opts)
	}
	ns, err := e.namespace(c.Context, accessRead)
	if err != nil {
		return err
	}
	ctx := c.Context
	if c.Bool("explain") {
		plan, err := ns.Explain(ctx, text, opts)
		if err != nil {
			return queryError(e, text, err)
		}
		_, err = io.WriteString(e.stdout, plan)
		return err
	}
	res, err := ns.Query(ctx, text, opts)
	if err != nil {
		return queryError(e, text, stopped(err, timeout, false))
	}
	defer res.Close()
	out := &countingWriter{w: e.stdout}
	w := bufio.NewWriter(out)
	switch res.Kind {
	case sparql.Boolean:
		err = writeBoolean(w, format, res.Boolean)
		if err == nil {
			err = w.Flush()
		}
		if err == nil && !res.Boolean && c.Bool("exit-status") {
			return errFalse
		}
		return err
	case sparql.Graph:
		err = writeGraph(ctx, w, format, res, prefixes)
	default:
		err = writeSolutions(ctx, w, format, res.Vars, res, prefixes, e.stdoutIsTerminal())
	}
	if err != nil {
		// The results writer was not closed, and what it and w buffered is
		// dropped: a JSON or XML document lacks its end; any other output
		// that had printed something (a table, CSV, TSV, N-Triples, Turtle)
		// gets a last line saying it is incomplete, which no reader of
		// those formats takes for data (one that had not, buffering its
		// first rows, prints nothing). The error says whether anything was
		// printed.
		err = stopped(err, timeout, out.n > 0)
		var se *stoppedError
		json := format == "json" || format == "" && !e.stdoutIsTerminal() && res.Kind != sparql.Graph
		if errors.As(err, &se) && out.n > 0 && !json && format != "xml" {
			fmt.Fprintf(e.stdout, "\n… the query %s\n", se.why)
		}
		return queryError(e, text, err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("query: %w", err)
	}
	return nil
}

// stoppedError is a query stopped by a timeout or an interrupt.
type stoppedError struct {
	why string // "timed out after 5s: output is incomplete" (or ": nothing was printed")
	err error
}

func (e *stoppedError) Error() string { return e.why + ": " + e.err.Error() }
func (e *stoppedError) Unwrap() error { return e.err }

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// stopped explains a query stopped by its --timeout or an interrupt;
// written says whether part of the results was printed.
func stopped(err error, timeout time.Duration, written bool) error {
	var why string
	switch {
	case errors.Is(err, context.DeadlineExceeded) && timeout > 0:
		why = "timed out after " + timeout.String()
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		why = "interrupted"
	default:
		return err
	}
	if written {
		why += ": output is incomplete"
	} else {
		why += ": nothing was printed"
	}
	return &stoppedError{why: why, err: err}
}

// queryText returns the query text and its default base IRI.
func queryText(c *cli.Context, e *env) (string, string, error) {
	file := c.String("file")
	switch {
	case file != "" && c.NArg() > 0:
		return "", "", usagef("query: give the query as an argument or with --file, not both")
	case file == "" && c.NArg() != 1:
		return "", "", usagef("query: want one query argument (or --file FILE)")
	case file == "":
		return c.Args().First(), "", nil
	case file == "-":
		b, err := io.ReadAll(e.stdin)
		return string(b), "", err
	}
	b, err := readInput("query", file)
	if err != nil {
		return "", "", err
	}
	base, err := rdfio.FileBase(file)
	if err != nil {
		return "", "", fmt.Errorf("query: base of %s: %w", pathText(file), err)
	}
	return string(b), base, nil
}

func (e *env) stdoutIsTerminal() bool {
	w := e.stdout
	if o, ok := w.(*outWriter); ok {
		w = o.w
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// queryError maps query errors to CLI error kinds (api.QueryError); for
// syntax errors it prints the offending line with a caret under the column
// first. A usage error (a --format the result cannot be written in) is
// the command's, already said: it is returned as it is.
func queryError(e *env, text string, err error) error {
	if errors.Is(err, errUsage) {
		return err
	}
	caret, err := api.QueryError(text, err)
	fmt.Fprint(e.stderr, caret)
	return err
}

func writeBoolean(w io.Writer, format string, b bool) error {
	switch format {
	case "", "table":
		_, err := fmt.Fprintln(w, b)
		return err
	}
	f, err := results.Lookup(format)
	if err != nil {
		return usagef("query: --format: %v", err)
	}
	return f.WriteBoolean(w, b)
}

// rowSource is what writeSolutions reads: a query's streamed solutions
// (*sparql.Result), or those a server sent (sliceRows).
type rowSource = results.Rows

// quadSource is what writeGraph reads: a query's streamed triples
// (*sparql.Result), or those a server sent (sliceQuads).
type quadSource interface {
	Next(ctx context.Context) bool
	Quad() quad.Quad
	Err() error
}

func writeSolutions(ctx context.Context, w io.Writer, format string, vars []string, res rowSource, prefixes map[string]string, tty bool) error {
	var f results.Format
	switch format {
	case "":
		if tty {
			f = results.Table(results.DefaultTableOptions().WithPrefixes(prefixes))
		} else {
			f, _ = results.Lookup("json")
		}
	case "table":
		f = results.Table(results.DefaultTableOptions().WithPrefixes(prefixes))
	default:
		var err error
		if f, err = results.Lookup(format); err != nil {
			return usagef("query: --format: %v", err)
		}
	}
	err := results.WriteAll(ctx, w, f, vars, res)
	if errors.Is(err, results.ErrInvalidTerm) && format == "xml" {
		// Not a fault of the result: XML 1.0 cannot carry some
		// characters a literal may hold (U+0000, most controls).
		return usagef("query: the result cannot be written as xml (use --format json, csv or tsv): %v", err)
	}
	return err
}

func writeGraph(ctx context.Context, w io.Writer, format string, res quadSource, prefixes map[string]string) error {
	switch format {
	case "", "ntriples", "nt":
		format = rdfio.NTriples
	case "turtle", "ttl":
		format = rdfio.Turtle
	case "rdfxml", "rdf":
		format = rdfio.RDFXML
	default:
		return usagef("query: --format %s: CONSTRUCT and DESCRIBE results are ntriples, turtle or rdfxml", format)
	}
	enc, err := rdfio.NewEncoder(w, format, rdfio.EncodeOptions{Prefixes: prefixes})
	if err != nil {
		return err
	}
	for res.Next(ctx) {
		if err := enc.Encode(res.Quad()); err != nil {
			if format == rdfio.RDFXML {
				// Not a fault of the result: RDF/XML cannot carry it.
				return usagef("query: the result cannot be written as rdfxml (use --format ntriples or turtle): %v", err)
			}
			return err
		}
	}
	if err := res.Err(); err != nil {
		return err // enc stays open: an incomplete result is never completed
	}
	return enc.Close()
}
