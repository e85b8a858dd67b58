package main

import (
	"bytes"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/fixtures"
)

func demoCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "run a short guided tour on the store (namespace 'demo' unless --namespace is given)",
		Description: `Loads the sample team findings shipped in fixtures/, lists the graphs,
shows one graph as Turtle and the store statistics. Running it again is
harmless: quads are a set.

Example:
   cortexctl demo
   cortexctl --data /tmp/cortex-demo demo`,
		Action: func(c *cli.Context) error {
			if !c.IsSet("namespace") {
				e.nsName = "demo"
			}
			ns, err := e.namespace(c.Context)
			if err != nil {
				return err
			}
			out := e.stdout
			fmt.Fprintf(out, "== Cortex demo: store %s, namespace %q\n\n", e.dataDir, e.nsName)
			data, err := fixtures.FS.ReadFile("teams-small.nq")
			if err != nil {
				return err
			}
			fmt.Fprintln(out, "1. import fixtures/teams-small.nq (two agent teams and their findings)")
			res, err := ns.ImportRDF(c.Context, bytes.NewReader(data), cortex.RDFImportOptions{Format: "nquads", File: "fixtures/teams-small.nq", ImportID: "demo"})
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "   %s read\n\n", plural(res.Read, "quad"))
			fmt.Fprintln(out, "2. graphs of the namespace  (cortexctl graphs)")
			gs, err := ns.Graphs(c.Context)
			if err != nil {
				return err
			}
			for _, g := range gs {
				fmt.Fprintf(out, "   %6d  %s\n", g.Quads, graphName(g.Name))
			}
			if len(gs) > 1 {
				g := gs[1].Name
				fmt.Fprintf(out, "\n3. one graph as Turtle  (cortexctl export --graph %s --format turtle)\n", termJSON(g))
				var buf bytes.Buffer
				if _, err := ns.Export(c.Context, &buf, "turtle", cortex.ExportOptions{Graph: g, Scope: cortex.OneGraph,
					Prefixes: map[string]string{"cx": "urn:cortex:vocab:", "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#"}}); err != nil {
					return err
				}
				out.Write(indent(buf.Bytes()))
			}
			size, err := ns.Size(c.Context)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "\n4. the namespace holds %s; try:\n", plural(size, "quad"))
			fmt.Fprintf(out, "   cortexctl --namespace %s export --format %s | head\n", e.nsName, rdfio.Names()[0])
			return nil
		},
	}
}

func indent(b []byte) []byte {
	var out []byte
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if len(line) > 0 {
			out = append(out, "   "...)
			out = append(out, line...)
		}
	}
	return out
}
