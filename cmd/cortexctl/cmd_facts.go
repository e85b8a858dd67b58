package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cayleygraph/quad"
	"github.com/urfave/cli/v2"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/teammanager"
)

func factsCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "facts",
		Usage: "read a team's merged knowledge (the facts its last merge kept)",
		Description: `Example:
   cortexctl facts list TEAM --json`,
		Subcommands: []*cli.Command{
			{
				Name:      "list",
				Usage:     "list the fused facts of a team's last merge, with their provenance",
				ArgsUsage: "TEAM",
				Description: `Reads what the last merge stored (it never merges again): each fact with its
supporting agents, the findings behind it, its fused confidence (rounded to
0.01), who resolved its conflict if anyone, and the merge run. --subject and
--predicate take terms as findings add does.

A team whose merge is due and would be retried by teams get (interrupted, or
timed out with a completed member) is merged first, as teams get does; a team
still not merged after that is named on stderr with the reason.

Example:
   cortexctl facts list TEAM --subject '<https://ex.org/pool.go>' --agent alice --json`,
				Flags: withOutput(
					&cli.StringFlag{Name: "subject", Usage: "only facts about this subject"},
					&cli.StringFlag{Name: "predicate", Usage: "only facts with this predicate"},
					&cli.StringFlag{Name: "agent", Usage: "only facts this member supports"},
				),
				Action: func(c *cli.Context) error { return factsList(c, e) },
			},
		},
	}
}

func factsList(c *cli.Context, e *env) error {
	if _, err := outputFormat(c); err != nil {
		return err
	}
	args, err := wantArgs(c, "facts list: want TEAM", 1, 1)
	if err != nil {
		return err
	}
	f := teammanager.FactFilter{Agent: c.String("agent")}
	if s := c.String("subject"); s != "" {
		if f.Subject, err = e.parseTermArg(c.Context, s); err != nil {
			return fmt.Errorf("facts list: --subject: %w", err)
		}
	}
	if p := c.String("predicate"); p != "" {
		if f.Predicate, err = e.parseTermArg(c.Context, p); err != nil {
			return fmt.Errorf("facts list: --predicate: %w", err)
		}
	}
	// A literal (a bare word is one) is no fact's subject or predicate:
	// the filter matched nothing, silently ("no facts").
	if _, iri := f.Predicate.(quad.IRI); f.Predicate != nil && !iri {
		return fmt.Errorf("%w: facts list: --predicate %q: want an IRI (<iri> or prefix:name)", errInvalid, c.String("predicate"))
	}
	switch f.Subject.(type) {
	case nil, quad.IRI, quad.BNode:
	default:
		return fmt.Errorf("%w: facts list: --subject %q: want an IRI (<iri> or prefix:name) or a blank node", errInvalid, c.String("subject"))
	}
	m, t, err := e.getTeam(c, args[0])
	if err != nil {
		return err
	}
	fs, err := m.Facts(c.Context, args[0], f)
	if err != nil {
		return err
	}
	if note := notMergedNote(t); note != "" {
		fmt.Fprintf(e.stderr, "cortexctl: team %s is %s; the facts are those of its last merge, if any\n", t.ID, note)
	}
	out := api.FactsOf(fs)
	return printResult(c, e.stdout, out, func() error {
		if len(out) == 0 {
			fmt.Fprintln(e.stdout, "no facts")
			return nil
		}
		t := newTable(e.stdout, false, "SUBJECT", "PREDICATE", "OBJECT", "CONF", "SUPPORTERS", "RESOLVED BY")
		for _, fa := range out {
			t.row(fa.Subject, fa.Predicate, fa.Object, strconv.FormatFloat(fa.Confidence, 'f', 2, 64), strings.Join(fa.Supporters, ","), fa.ResolvedBy)
		}
		return t.flush()
	})
}
