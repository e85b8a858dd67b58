package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/urfave/cli/v2"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
)

func storeCommands(e *env) []*cli.Command {
	return []*cli.Command{
		{
			Name:      "import",
			Usage:     "load RDF files (N-Triples, N-Quads, Turtle) into the namespace",
			ArgsUsage: "FILE... (- for standard input, with --format)",
			Description: `Each file is one import: its blank nodes never merge with other imports'.
The format comes from the file extension (.nt .nq .ttl) unless --format is given.
Triples go to the default graph, N-Quads keep their graphs; --graph puts
everything into one named graph. Relative IRIs resolve against the file's
file:// URL unless --base is given. Imports are written in segments of up to
~1M triples (large ones streamed, all or nothing even if the process is
killed) or chunks of 8,192 quads: a syntax error in the first chunk leaves
nothing behind; a later one reports how many quads were committed and the
import id to re-run with (re-running converges).

Examples:
   cortexctl import data.ttl
   cortexctl import --graph http://example.org/g1 a.nt b.nt
   curl -s https://example.org/x.nq | cortexctl import --format nquads -`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "graph", Aliases: []string{"g"}, Usage: "named graph IRI to import into"},
				&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "input format: " + joinNames(rdfio.Names())},
				&cli.StringFlag{Name: "base", Usage: "base IRI for relative IRIs"},
				&cli.StringFlag{Name: "import-id", Usage: "blank-node scope of the import (to resume a failed one)"},
			},
			Action: func(c *cli.Context) error { return importCmd(c, e) },
		},
		{
			Name:  "export",
			Usage: "write the namespace (or one graph) as N-Quads, N-Triples or Turtle",
			Description: `Without --graph every graph of the namespace is written. --graph IRI selects
one named graph, --graph default the default graph. N-Triples and Turtle
carry no graph names: several graphs are written as the union of their
triples. The format comes from -o's extension, else --format (default nquads).

Examples:
   cortexctl export > backup.nq
   cortexctl export --graph default --format turtle -o default.ttl`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "graph", Aliases: []string{"g"}, Usage: "graph IRI, or 'default'"},
				&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "nquads|ntriples|turtle"},
				&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "output file (default: standard output)"},
			},
			Action: func(c *cli.Context) error { return exportCmd(c, e) },
		},
		{
			Name:  "graphs",
			Usage: "list the graphs of the namespace with their quad counts",
			Description: `Example:
   cortexctl --namespace acme graphs --json`,
			Flags:  []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print JSON: [{graph, quads}] (graph null = default graph)"}},
			Action: func(c *cli.Context) error { return graphsCmd(c, e) },
		},
		{
			Name:  "stats",
			Usage: "show store and namespace statistics",
			Description: `Example:
   cortexctl stats --json`,
			Flags:  []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print JSON"}},
			Action: func(c *cli.Context) error { return statsCmd(c, e) },
		},
	}
}

func joinNames(ns []string) string {
	out := ""
	for i, n := range ns {
		if i > 0 {
			out += "|"
		}
		out += n
	}
	return out
}

// parseGraph reads a --graph value: an absolute IRI, or "default" (nil).
func parseGraph(s string, allowDefault bool) (quad.Value, cortex.Scope, error) {
	if s == "" {
		return nil, cortex.AllGraphs, nil
	}
	if s == "default" && allowDefault {
		return nil, cortex.DefaultGraph, nil
	}
	if len(s) > 1 && s[0] == '<' && s[len(s)-1] == '>' {
		s = s[1 : len(s)-1]
	}
	if err := cortex.CheckIRI(s); err != nil {
		return nil, 0, fmt.Errorf("%w: --graph: %v", errInvalid, err)
	}
	if !hasScheme(s) {
		return nil, 0, fmt.Errorf("%w: --graph %q is not an absolute IRI", errInvalid, s)
	}
	return quad.IRI(s), cortex.OneGraph, nil
}

func hasScheme(s string) bool {
	for i, r := range s {
		switch {
		case r == ':' && i > 0:
			return true
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.'):
		default:
			return false
		}
	}
	return false
}

func importCmd(c *cli.Context, e *env) error {
	if c.NArg() == 0 {
		return usagef("import: no file given (use - for standard input)")
	}
	g, _, err := parseGraph(c.String("graph"), false)
	if err != nil {
		return err
	}
	if c.NArg() > 1 && c.String("import-id") != "" {
		return usagef("import: --import-id applies to a single file")
	}
	ns, err := e.namespace(c.Context)
	if err != nil {
		return err
	}
	for _, path := range c.Args().Slice() {
		format := c.String("format")
		if format == "" {
			if path == "-" {
				return usagef("import: reading standard input needs --format")
			}
			f, err := rdfio.ByExtension(path)
			if err != nil {
				return fmt.Errorf("import %s: %w (use --format)", path, err)
			}
			format = f.Name
		}
		var (
			r    io.Reader = e.stdin
			size int64
			name = "-"
		)
		if path != "-" {
			f, err := os.Open(path)
			if err != nil {
				return fmt.Errorf("import: %w", err)
			}
			defer f.Close()
			if st, err := f.Stat(); err == nil {
				size = st.Size()
			}
			r, name = f, path
		}
		bar := e.newProgress("importing "+filepath.Base(name), size, true)
		// The bar follows the bytes read: large imports write in segments of
		// up to ~2M quads, so commits alone would move it in big jumps.
		cr := &countingReader{r: r, onRead: bar.set}
		start := time.Now()
		res, err := ns.ImportRDF(c.Context, cr, cortex.RDFImportOptions{
			Format: format, File: pathForErrors(name), Base: c.String("base"), Graph: g,
			ImportID: c.String("import-id"),
			Progress: func(int64) { bar.set(cr.n.Load()) },
		})
		bar.finish()
		if err != nil {
			return err
		}
		d := time.Since(start)
		fmt.Fprintf(e.stdout, "imported %s from %s in %s (%s/s)\n", plural(res.Committed, "quad"), name,
			d.Round(time.Millisecond), groupDigits(int64(float64(res.Committed)/d.Seconds())))
	}
	return nil
}

// pathForErrors returns the name used in file:line:column messages.
func pathForErrors(name string) string {
	if name == "-" {
		return "<stdin>"
	}
	return name
}

func exportCmd(c *cli.Context, e *env) error {
	g, scope, err := parseGraph(c.String("graph"), true)
	if err != nil {
		return err
	}
	format := c.String("format")
	out := c.String("output")
	if format == "" && out != "" {
		if f, err := rdfio.ByExtension(out); err == nil {
			format = f.Name
		}
	}
	if format == "" {
		format = "nquads"
	}
	if _, err := rdfio.Lookup(format); err != nil {
		return usagef("export: %v", err)
	}
	ns, err := e.namespace(c.Context)
	if err != nil {
		return err
	}
	total, _ := ns.Size(c.Context)
	w := e.stdout
	var f *os.File
	if out != "" && out != "-" {
		// Write to a temporary file and rename: a failed export never
		// leaves a truncated file behind.
		f, err = os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*")
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		defer os.Remove(f.Name())
		defer f.Close()
		w = f
	}
	bar := e.newProgress("exporting", total, false)
	n, err := ns.Export(c.Context, w, format, cortex.ExportOptions{Graph: g, Scope: scope, Progress: bar.set})
	bar.finish()
	if err != nil {
		return err
	}
	if f != nil {
		if err := f.Close(); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		if err := os.Rename(f.Name(), out); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		fmt.Fprintf(e.stderr, "exported %s to %s\n", plural(n, "quad"), out)
	}
	return nil
}

func graphName(v quad.Value) string {
	if v == nil {
		return "(default)"
	}
	return rdfio.FormatTerm(v)
}

func graphsCmd(c *cli.Context, e *env) error {
	ns, err := e.namespace(c.Context)
	if err != nil {
		return err
	}
	gs, err := ns.Graphs(c.Context)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		type row struct {
			Graph *string `json:"graph"`
			Quads int64   `json:"quads"`
		}
		rows := make([]row, 0, len(gs))
		for _, g := range gs {
			r := row{Quads: g.Quads}
			if g.Name != nil {
				s := termJSON(g.Name)
				r.Graph = &s
			}
			rows = append(rows, r)
		}
		return writeJSON(e.stdout, rows)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "QUADS\tGRAPH\t")
	for _, g := range gs {
		fmt.Fprintf(tw, "%s\t%s\t\n", groupDigits(g.Quads), graphName(g.Name))
	}
	return tw.Flush()
}

// termJSON renders a graph name for JSON: IRIs without brackets, blank nodes as _:x.
func termJSON(v quad.Value) string {
	if iri, ok := v.(quad.IRI); ok {
		return string(iri)
	}
	return rdfio.FormatTerm(v)
}

func statsCmd(c *cli.Context, e *env) error {
	s, err := e.open(c.Context)
	if err != nil {
		return err
	}
	ns, err := s.Namespace(c.Context, e.nsName)
	if err != nil {
		return err
	}
	size, err := ns.Size(c.Context)
	if err != nil {
		return err
	}
	gs, err := ns.Graphs(c.Context)
	if err != nil {
		return err
	}
	names, err := s.Namespaces(c.Context)
	if err != nil {
		return err
	}
	st := struct {
		Store      string   `json:"store"`
		DiskBytes  int64    `json:"diskBytes"`
		Namespaces []string `json:"namespaces"`
		Namespace  string   `json:"namespace"`
		Quads      int64    `json:"quads"`
		Graphs     int      `json:"graphs"`
	}{e.dataDir, s.DiskSize(), names, e.nsName, size, len(gs)}
	if c.Bool("json") {
		return writeJSON(e.stdout, st)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "store:\t%s\n", st.Store)
	fmt.Fprintf(tw, "disk:\t%s bytes\n", groupDigits(st.DiskBytes))
	fmt.Fprintf(tw, "namespaces:\t%d %v\n", len(names), names)
	fmt.Fprintf(tw, "namespace:\t%s\n", st.Namespace)
	fmt.Fprintf(tw, "quads:\t%s\n", groupDigits(st.Quads))
	fmt.Fprintf(tw, "graphs:\t%d\n", st.Graphs)
	return tw.Flush()
}

func writeJSON(w io.Writer, v interface{}) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
