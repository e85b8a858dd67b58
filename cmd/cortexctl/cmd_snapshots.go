package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/teammanager"
)

// snapshotJSON is the JSON shape of a team snapshot.
type snapshotJSON struct {
	ID        string          `json:"id"`
	Team      string          `json:"team"`
	Note      string          `json:"note,omitempty"`
	CreatedAt time.Time       `json:"createdAt"`
	Status    string          `json:"status"`
	Lifecycle string          `json:"lifecycle"`
	Quads     int             `json:"quads"`
	Rows      int             `json:"rows"`
	Graphs    []snapshotGraph `json:"graphs"`
}

type snapshotGraph struct {
	Graph string `json:"graph"`
	Quads int    `json:"quads"`
}

// restoreJSON is the JSON shape of a restore (dry run or applied).
type restoreJSON struct {
	Snapshot snapshotJSON `json:"snapshot"`
	Applied  bool         `json:"applied"`
	Graphs   []graphDiff  `json:"graphs"`
	Tables   []tableDiff  `json:"tables"`
	Add      []string     `json:"add"`    // N-Quads terms of each quad added
	Remove   []string     `json:"remove"` // and removed
}

type graphDiff struct {
	Graph  string `json:"graph"`
	Add    int    `json:"add"`
	Remove int    `json:"remove"`
}

type tableDiff struct {
	Table  string `json:"table"`
	Put    int    `json:"put"`
	Delete int    `json:"delete"`
}

func snapshotOf(s teammanager.Snapshot) snapshotJSON {
	out := snapshotJSON{ID: s.ID, Team: s.Team, Note: s.Note, CreatedAt: s.CreatedAt, Status: string(s.Status),
		Lifecycle: string(s.Lifecycle), Quads: s.Quads, Rows: s.Rows, Graphs: []snapshotGraph{}}
	for _, g := range s.Graphs {
		out.Graphs = append(out.Graphs, snapshotGraph{Graph: string(g.Graph), Quads: g.Quads})
	}
	return out
}

func teamsSnapshotCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "snapshot",
		Usage: "take, list, show, restore and delete snapshots of a team",
		Description: `A snapshot holds everything a team is: its definition and members, findings,
facts, conflicts, task board, plan and mail. Snapshots survive the team's
deletion; restoring one shows what it would change (a dry run) unless
--apply is given, which writes it in one atomic step (and recreates a
deleted team). Works on the local store (--data), not through a server.

Example:
   cortexctl teams snapshot create TEAM --note "before the run"
   cortexctl teams snapshot list TEAM
   cortexctl teams snapshot restore TEAM S1
   cortexctl teams snapshot restore TEAM S1 --apply`,
		Subcommands: []*cli.Command{
			{
				Name: "create", Usage: "take a snapshot of a team", ArgsUsage: "TEAM",
				Flags: withOutput(&cli.StringFlag{Name: "note", Usage: "what the snapshot is for"}),
				Action: func(c *cli.Context) error {
					return snapshotAction(c, e, 1, "create TEAM", func(m *teammanager.Manager, args []string) (any, func() error, error) {
						s, err := m.SnapshotTeam(c.Context, args[0], c.String("note"))
						return snapshotOf(s), func() error {
							_, err := fmt.Fprintf(e.stdout, "snapshot %s of team %s: %d quads, %d rows\n", s.ID, s.Team, s.Quads, s.Rows)
							return err
						}, err
					})
				},
			},
			{
				Name: "list", Usage: "list the snapshots of a team (also of a deleted one)", ArgsUsage: "TEAM",
				Flags: withOutput(),
				Action: func(c *cli.Context) error {
					return snapshotAction(c, e, 1, "list TEAM", func(m *teammanager.Manager, args []string) (any, func() error, error) {
						ss, err := m.Snapshots(c.Context, args[0])
						out := []snapshotJSON{}
						for _, s := range ss {
							out = append(out, snapshotOf(s))
						}
						return out, func() error {
							for _, s := range ss {
								if _, err := fmt.Fprintf(e.stdout, "%s\t%s\t%s\t%d quads\t%s\n", s.ID, s.CreatedAt.Format(time.RFC3339), s.Lifecycle, s.Quads, s.Note); err != nil {
									return err
								}
							}
							return nil
						}, err
					})
				},
			},
			{
				Name: "get", Usage: "show a snapshot", ArgsUsage: "TEAM SNAPSHOT",
				Flags: withOutput(),
				Action: func(c *cli.Context) error {
					return snapshotAction(c, e, 2, "get TEAM SNAPSHOT", func(m *teammanager.Manager, args []string) (any, func() error, error) {
						s, err := m.GetSnapshot(c.Context, args[0], args[1])
						return snapshotOf(s), func() error {
							fmt.Fprintf(e.stdout, "snapshot %s of team %s, %s (%s, %s)\n", s.ID, s.Team, s.CreatedAt.Format(time.RFC3339), s.Status, s.Lifecycle)
							for _, g := range s.Graphs {
								fmt.Fprintf(e.stdout, "  %s\t%d quads\n", g.Graph, g.Quads)
							}
							_, err := fmt.Fprintf(e.stdout, "  side-table rows\t%d\n", s.Rows)
							return err
						}, err
					})
				},
			},
			{
				Name: "restore", Usage: "show what restoring a snapshot changes; --apply restores it", ArgsUsage: "TEAM SNAPSHOT",
				Flags: withOutput(&cli.BoolFlag{Name: "apply", Usage: "write the restore (without it: a dry run that writes nothing)"}),
				Action: func(c *cli.Context) error {
					return snapshotAction(c, e, 2, "restore TEAM SNAPSHOT", func(m *teammanager.Manager, args []string) (any, func() error, error) {
						d, err := m.RestoreSnapshot(c.Context, args[0], args[1], c.Bool("apply"))
						out := restoreJSON{Snapshot: snapshotOf(d.Snapshot), Applied: d.Applied, Graphs: []graphDiff{}, Tables: []tableDiff{}, Add: []string{}, Remove: []string{}}
						for _, g := range d.Graphs {
							out.Graphs = append(out.Graphs, graphDiff{Graph: string(g.Graph), Add: g.Add, Remove: g.Remove})
						}
						for _, t := range d.Tables {
							out.Tables = append(out.Tables, tableDiff{Table: t.Table, Put: t.Put, Delete: t.Delete})
						}
						for _, q := range d.Add {
							out.Add = append(out.Add, rdfio.FormatTerm(q.Subject)+" "+rdfio.FormatTerm(q.Predicate)+" "+rdfio.FormatTerm(q.Object)+" "+rdfio.FormatTerm(q.Label))
						}
						for _, q := range d.Remove {
							out.Remove = append(out.Remove, rdfio.FormatTerm(q.Subject)+" "+rdfio.FormatTerm(q.Predicate)+" "+rdfio.FormatTerm(q.Object)+" "+rdfio.FormatTerm(q.Label))
						}
						return out, func() error {
							verb := "would change"
							if d.Applied {
								verb = "changed"
							}
							if d.Empty() {
								_, err := fmt.Fprintf(e.stdout, "team %s is as snapshot %s: nothing to restore\n", args[0], args[1])
								return err
							}
							fmt.Fprintf(e.stdout, "restoring snapshot %s of team %s %s:\n", args[1], args[0], verb)
							for _, g := range out.Graphs {
								fmt.Fprintf(e.stdout, "  %s\t+%d -%d quads\n", g.Graph, g.Add, g.Remove)
							}
							for _, t := range out.Tables {
								fmt.Fprintf(e.stdout, "  table %s\t%d put, %d deleted\n", t.Table, t.Put, t.Delete)
							}
							if !d.Applied {
								_, err := fmt.Fprintf(e.stdout, "dry run: nothing written (--apply restores it)\n")
								return err
							}
							return nil
						}, err
					})
				},
			},
			{
				Name: "delete", Usage: "delete a snapshot", ArgsUsage: "TEAM SNAPSHOT",
				Flags: withOutput(),
				Action: func(c *cli.Context) error {
					return snapshotAction(c, e, 2, "delete TEAM SNAPSHOT", func(m *teammanager.Manager, args []string) (any, func() error, error) {
						err := m.DeleteSnapshot(c.Context, args[0], args[1])
						return map[string]any{"team": args[0], "snapshot": args[1], "deleted": true}, func() error {
							_, err := fmt.Fprintf(e.stdout, "snapshot %s of team %s deleted\n", args[1], args[0])
							return err
						}, err
					})
				},
			},
		},
	}
}

// snapshotAction checks the arguments (n of them, usage want), runs fn on
// the local store's manager and prints its result.
func snapshotAction(c *cli.Context, e *env, n int, want string, fn func(m *teammanager.Manager, args []string) (any, func() error, error)) error {
	if _, err := outputFormat(c); err != nil {
		return err
	}
	args := c.Args().Slice()
	if len(args) != n {
		return usagef("teams snapshot: want %s", want)
	}
	if rc, err := e.remote(); err != nil {
		return err
	} else if rc != nil {
		return fmt.Errorf("teams snapshot: %w: snapshots work on the local store only (no server method yet)", api.ErrInvalid)
	}
	a := accessWrite
	if c.Command.Name == "list" || c.Command.Name == "get" {
		a = accessRead
	}
	m, err := e.embeddedManager(c, a)
	if err != nil {
		return err
	}
	v, table, err := fn(m, args)
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, v, table)
}
