package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/namespace"
)

func namespacesCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "namespaces",
		Usage: "list and delete the namespaces of the store",
		Description: `A namespace is created by the first command that writes to it (import,
teams create, ...); commands that only read never create one.

Example:
   cortexctl namespaces list
   cortexctl namespaces delete scratch --yes`,
		Subcommands: []*cli.Command{
			{
				Name:  "list",
				Usage: "list the namespaces with their IRI base and quad count",
				Description: `JSON: [{name, base, quads}].

Example:
   cortexctl namespaces list --json`,
				Flags:  outputFlags(),
				Action: func(c *cli.Context) error { return namespacesList(c, e) },
			},
			{
				Name:      "delete",
				Usage:     "delete a namespace and all its data (asks for --yes)",
				ArgsUsage: "NAME",
				Description: `Everything in the namespace goes: its graphs, teams, findings and merged
facts. There is no undo; --yes confirms.

Example:
   cortexctl namespaces delete scratch --yes`,
				Flags: withOutput(
					&cli.BoolFlag{Name: "yes", Usage: "confirm the deletion"},
				),
				Action: func(c *cli.Context) error { return namespacesDelete(c, e) },
			},
		},
	}
}

func namespacesList(c *cli.Context, e *env) error {
	if c.NArg() > 0 {
		return usagef("namespaces list: unexpected argument %q", c.Args().First())
	}
	if _, err := outputFormat(c); err != nil {
		return err
	}
	out, err := e.namespaces(c)
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, out, func() error {
		t := newTable(e.stdout, false, "NAME", "BASE", "QUADS")
		for _, n := range out {
			t.row(n.Name, n.Base, groupDigits(n.Quads))
		}
		return t.flush()
	})
}

func namespacesDelete(c *cli.Context, e *env) error {
	out, err := outputFormat(c)
	if err != nil {
		return err
	}
	if c.NArg() != 1 {
		return usagef("namespaces delete: want NAME")
	}
	name := c.Args().First()
	if err := namespace.ValidateName(name); err != nil {
		return err
	}
	if !c.Bool("yes") {
		return usagef("namespaces delete: deleting namespace %s and all its data cannot be undone: add --yes", name)
	}
	res := api.NamespaceDeleted{Namespace: name, Deleted: true}
	if rc, err := e.remote(); err != nil {
		return err
	} else if rc != nil {
		if res, err = rc.DeleteNamespace(c.Context, name); err != nil {
			return err
		}
	} else {
		s, err := e.open(c.Context, writeExisting)
		if err != nil {
			return err
		}
		if err := s.DeleteNamespace(c.Context, name); err != nil {
			return err
		}
	}
	if out == formatJSON {
		return writeJSON(e.stdout, res)
	}
	_, err = fmt.Fprintf(e.stdout, "deleted namespace %s\n", name)
	return err
}

// namespaces returns the namespaces of the store, or of the server's.
func (e *env) namespaces(c *cli.Context) ([]api.Namespace, error) {
	if rc, err := e.remote(); err != nil || rc != nil {
		if err != nil {
			return nil, err
		}
		return rc.Namespaces(c.Context)
	}
	s, err := e.open(c.Context, readOnly)
	if err != nil {
		return nil, err
	}
	names, err := s.Namespaces(c.Context)
	if err != nil {
		return nil, err
	}
	return api.NamespacesOf(c.Context, s, names)
}
