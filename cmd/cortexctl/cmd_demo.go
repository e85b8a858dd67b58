package main

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cortexgraph/cortex/client"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/results"
	"github.com/cortexgraph/cortex/fixtures"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

// demoMark ends the context of the team the demo creates: the demo
// replaces a team of its id only if it has it (a team the demo made).
const demoMark = " (made by cortexctl demo)"

func demoCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "run a code-review team end to end (namespace 'demo' unless --namespace is given on the command line)",
		Description: `Creates the team of fixtures/teams/code-review.json5 (three reviewers,
strategy conflict-flag), starts its members, imports their findings from
fixtures/findings/, completes them — which merges the team — and prints the
merged facts and the conflicts left for a human. Running it again deletes
the demo team and creates it anew; a team code-review that the demo did not
create is never replaced (exit 4). It runs in namespace demo unless
--namespace (-n) is given on its command line: CORTEX_NAMESPACE does not
apply, so that the demo never replaces a team of the namespace you work in. Through a server (cortexctl serve,
--server) it runs there, as every other command does.

Example:
   cortexctl demo
   cortexctl --data /tmp/cortex-demo demo && cortexctl --data /tmp/cortex-demo -n demo conflicts list code-review`,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("demo: unexpected argument %q", c.Args().First())
			}
			if !namespaceOnCommandLine(c.App, e.args) {
				e.nsName = "demo" // not CORTEX_NAMESPACE's: the demo replaces its team
			}
			m, err := e.manager(c, accessCreate) // through the server that serves the store, if any
			if err != nil {
				return err
			}
			layout, err := e.ns()
			if err != nil {
				return err
			}
			out := e.stdout
			cfgData, err := fixtures.FS.ReadFile("teams/code-review.json5")
			if err != nil {
				return err
			}
			tc, err := parseTeamFile(cfgData)
			if err != nil {
				return err
			}
			// The team of an earlier run, even one that stopped half-way,
			// is replaced; a team of that id that the demo did not make
			// (its context lacks demoMark) is not touched.
			tc.Context += demoMark
			if old, err := m.GetTeam(c.Context, tc.ID); err == nil {
				if !strings.HasSuffix(old.Context, demoMark) {
					return fmt.Errorf("%w: demo: namespace %s has a team %s that the demo did not create, which it does not replace: run the demo in another namespace (-n NS), or delete that team first (cortexctl -n %s teams delete %s --disband)",
						teammanager.ErrTeamExists, e.nsName, tc.ID, e.nsName, tc.ID)
				}
				if err := deleteTeam(c.Context, m, tc.ID, true); err != nil && !errors.Is(err, teammanager.ErrUnknownTeam) {
					return err
				}
			} else if !errors.Is(err, teammanager.ErrUnknownTeam) {
				return err
			}
			where := "store " + e.dataDir
			if e.serverURL != "" {
				where = "server " + e.serverURL
			}
			fmt.Fprintf(out, "== Cortex demo: %s, namespace %q\n\n", where, e.nsName)
			team, err := m.CreateTeam(c.Context, tc)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "1. created team %s (%q), strategy %s\n", team.ID, team.Name, team.Strategy)
			fmt.Fprintln(out, "2. members start and report their findings")
			for _, mb := range team.Members {
				if _, err := m.UpdateMemberStatus(c.Context, team.ID, mb.AgentID, teammanager.Running, ""); err != nil {
					return err
				}
				name := "findings/" + team.ID + "-" + mb.AgentID + ".ttl"
				data, err := fixtures.FS.ReadFile(name)
				if err != nil {
					return err
				}
				n, err := m.ImportFindings(c.Context, team.ID, mb.AgentID, bytes.NewReader(data), "turtle")
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "   %-6s %-8s %11s from fixtures/%s\n", mb.AgentID, mb.Role, plural(int64(n), "finding"), name)
			}
			fmt.Fprintln(out, "3. members complete; the last one completes the team, which is merged")
			var rep *teammanager.MergeReport
			for _, mb := range team.Members {
				up, err := m.UpdateMemberStatus(c.Context, team.ID, mb.AgentID, teammanager.Completed, "review done")
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "   %-6s completed → team %s\n", mb.AgentID, up.TeamStatus)
				if up.Merge != nil {
					rep = up.Merge
				}
			}
			if rep == nil {
				return fmt.Errorf("demo: the team did not merge")
			}
			fmt.Fprintf(out, "\n4. merged facts (shared graph %s)\n", layout.SharedGraph(team.ID))
			for _, f := range rep.Facts {
				fmt.Fprintf(out, "   %s %s %s .   # %s\n", rdfio.FormatTerm(f.Subject), rdfio.FormatTerm(f.Predicate),
					rdfio.FormatTerm(f.Object), strings.Join(f.Supporters, ", "))
			}
			fmt.Fprintf(out, "\n5. conflicts left for a human (cortexctl -n %s conflicts list %s)\n", e.nsName, team.ID)
			cs, err := m.Conflicts(c.Context, team.ID)
			if err != nil {
				return err
			}
			for _, cf := range cs {
				fmt.Fprintf(out, "   %s  %s %s\n", cf.ID, rdfio.FormatTerm(cf.Subject), rdfio.FormatTerm(cf.Predicate))
				for _, cd := range cf.Candidates {
					fmt.Fprintf(out, "       %-20s ← %s\n", rdfio.FormatTerm(cd.Object), strings.Join(cd.Agents, ", "))
				}
			}
			if len(cs) > 0 {
				fmt.Fprintf(out, "\nresolve one with:\n   cortexctl -n %s conflicts resolve %s %s --object '%s' --by you\n",
					e.nsName, team.ID, cs[0].ID, rdfio.FormatTerm(cs[0].Candidates[0].Object))
			}
			return demoQuery(c, e, layout, team.ID)
		},
	}
}

// demoQuery asks the graph which agents' findings made it into the merged
// knowledge, in SPARQL: through the server's endpoint if the command goes
// through one, else over the store.
func demoQuery(c *cli.Context, e *env, layout namespace.NS, teamID string) error {
	q := fmt.Sprintf(`SELECT ?agent (COUNT(*) AS ?fused) WHERE {
  GRAPH %s { ?set prov:wasAttributedTo ?agent }
  GRAPH ?set { ?s ?p ?o }
} GROUP BY ?agent ORDER BY DESC(?fused) ?agent`, layout.ProvenanceGraph(teamID))
	out := e.stdout
	fmt.Fprintf(out, "\n6. ask the graph in SPARQL: which agents' findings were fused?\n   cortexctl -n %s query '%s'\n\n",
		e.nsName, strings.ReplaceAll(q, "\n", "\n   "))
	vars, rows, err := demoRows(c, e, q)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	w, err := results.NewTableWriter(&buf, vars, results.DefaultTableOptions())
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	_, err = out.Write(indent(buf.Bytes()))
	return err
}

// demoRows runs the SELECT query q and returns its variables and rows.
func demoRows(c *cli.Context, e *env, q string) ([]string, []results.Row, error) {
	if rc, err := e.remote(); err != nil {
		return nil, nil, err
	} else if rc != nil {
		res, err := rc.Query(c.Context, q, client.QueryOptions{})
		if err != nil {
			return nil, nil, err
		}
		if res.Solutions == nil || res.Solutions.Boolean != nil {
			return nil, nil, fmt.Errorf("demo: the server answered the query without rows")
		}
		return res.Solutions.Vars, res.Solutions.Rows, nil
	}
	ns, err := e.namespace(c.Context, accessCreate)
	if err != nil {
		return nil, nil, err
	}
	res, err := ns.Query(c.Context, q, sparql.Options{})
	if err != nil {
		return nil, nil, err
	}
	defer res.Close()
	var rows []results.Row
	for res.Next(c.Context) {
		rows = append(rows, results.Row(slices.Clone(res.Row())))
	}
	return res.Vars, rows, res.Err()
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

// namespaceOnCommandLine reports whether args (the demo's command line: the
// global flags and the command, which has no flag of its own that takes a
// value) give --namespace (-n) itself, not through CORTEX_NAMESPACE.
func namespaceOnCommandLine(app *cli.App, args []string) bool {
	return flagOnCommandLine(app, args, "namespace", "n")
}

// flagOnCommandLine reports whether args (the command line, args[0] the
// program) give a global flag named one of names.
func flagOnCommandLine(app *cli.App, args []string, names ...string) bool {
	arity := flagArity(app.Flags, true)
	for i := 1; i < len(args) && args[i] != "--"; i++ {
		if !isFlag(args[i]) {
			continue
		}
		name, inline := flagName(args[i])
		if slices.Contains(names, name) {
			return true
		}
		if arity[name] && !inline {
			i++ // its value
		}
	}
	return false
}
