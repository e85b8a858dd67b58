package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/cayleygraph/quad"
	"github.com/urfave/cli/v2"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/teammanager"
)

func conflictsCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "conflicts",
		Usage: "list and resolve the conflicts a merge left open",
		Description: `Example:
   cortexctl conflicts list TEAM --json`,
		Subcommands: []*cli.Command{
			{
				Name:      "list",
				Usage:     "list a team's conflicts (open and resolved)",
				ArgsUsage: "TEAM",
				Description: `Example:
   cortexctl conflicts list TEAM --open`,
				Flags:  withOutput(&cli.BoolFlag{Name: "open", Usage: "only unresolved conflicts"}),
				Action: func(c *cli.Context) error { return conflictsList(c, e) },
			},
			{
				Name:      "resolve",
				Usage:     "resolve a conflict by choosing objects; the team is re-merged",
				ArgsUsage: "TEAM CONFLICT",
				Description: `--object is repeatable (several objects kept); --none keeps nothing.

Example:
   cortexctl conflicts resolve TEAM c0123... --object '"high"' --by alice`,
				Flags: withOutput(
					&cli.StringSliceFlag{Name: "object", Usage: "chosen object term, repeatable"},
					&cli.BoolFlag{Name: "none", Usage: "resolve to no object (not with --object)"},
					&cli.StringFlag{Name: "by", Usage: "who resolves it: an `ID`, 1 to 64 of A-Z a-z 0-9 . _ @ + -", Value: "cortexctl", DefaultText: "$USER if set and not empty, else cortexctl"}, // not EnvVars: a $USER that cannot be used is named as such (resolver)
				),
				Action: func(c *cli.Context) error { return conflictsResolve(c, e) },
			},
		},
	}
}

func conflictsList(c *cli.Context, e *env) error {
	if _, err := outputFormat(c); err != nil {
		return err
	}
	args, err := wantArgs(c, "conflicts list: want TEAM", 1, 1)
	if err != nil {
		return err
	}
	m, err := e.manager(c, accessRead)
	if err != nil {
		return err
	}
	cs, err := m.Conflicts(c.Context, args[0])
	if err != nil {
		return err
	}
	out := api.ConflictsOf(cs, c.Bool("open"))
	return printResult(c, e.stdout, out, func() error { return printConflicts(e, out) })
}

// printConflicts prints conflicts as a table: a row per conflict, then a
// row per candidate object.
func printConflicts(e *env, cs []api.Conflict) error {
	if len(cs) == 0 {
		_, err := fmt.Fprintln(e.stdout, "no conflicts")
		return err
	}
	t := newTable(e.stdout, false, "CONFLICT", "SUBJECT", "PREDICATE", "STATE", "OBJECT ← AGENTS")
	for _, c := range cs {
		state := c.Reason + ", open"
		if c.Resolved {
			state = c.Reason + ", resolved by " + c.ResolvedBy + " → " + strings.Join(c.Chosen, ", ")
		}
		t.row(c.ID, c.Subject, c.Predicate, state, "")
		for _, cd := range c.Candidates {
			t.row("", "", "", "", cd.Object+" ← "+strings.Join(cd.Agents, ", "))
		}
	}
	return t.flush()
}

func conflictsResolve(c *cli.Context, e *env) error {
	out, err := outputFormat(c)
	if err != nil {
		return err
	}
	args, err := wantArgs(c, "conflicts resolve: want TEAM CONFLICT", 2, 2)
	if err != nil {
		return err
	}
	if len(c.StringSlice("object")) > 0 && c.Bool("none") {
		return usagef("conflicts resolve: --none and --object exclude each other")
	}
	objs := []quad.Value{}
	for _, s := range c.StringSlice("object") {
		v, err := e.parseTermArg(c.Context, s)
		if err != nil {
			return fmt.Errorf("conflicts resolve: --object: %w", err)
		}
		objs = append(objs, v)
	}
	if len(objs) == 0 && !c.Bool("none") {
		return usagef("conflicts resolve: give --object TERM (repeatable) or --none")
	}
	by, err := resolver(c, args[1])
	if err != nil {
		return err
	}
	m, err := e.manager(c, accessWrite)
	if err != nil {
		return err
	}
	r, err := m.ResolveConflict(c.Context, args[0], args[1], objs, by)
	if err != nil {
		return err
	}
	if out == formatJSON {
		return writeJSON(e.stdout, api.MergeOf(r))
	}
	fmt.Fprintf(e.stdout, "resolved %s; ", args[1])
	printMerge(e.stdout, r)
	return nil
}

// resolver returns who resolves conflict: --by, else $USER if it is set
// and not empty, else cortexctl; checked before anything is opened. A
// $USER that is no valid id ("Jane Doe") is refused naming $USER and
// --by: the resolver's error alone named a value the user never gave.
func resolver(c *cli.Context, conflict string) (string, error) {
	by := c.String("by")
	if c.IsSet("by") {
		return by, teammanager.CheckResolution(conflict, nil, by)
	}
	user := os.Getenv("USER")
	if user == "" {
		return by, nil
	}
	if err := teammanager.CheckResolution(conflict, nil, user); err != nil {
		return "", fmt.Errorf("%w (the value of $USER: without --by, $USER resolves; give --by ID)", err)
	}
	return user, nil
}
