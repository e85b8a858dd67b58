package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/teammanager"
)

func teamsSnapshotCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "snapshot",
		Usage: "take, list, show, restore and delete snapshots of a team",
		Description: `A snapshot holds everything a team is: its definition and members, findings,
facts, conflicts, task board, plan and mail. Snapshots survive the team's
deletion; restoring one shows what it would change (a dry run) unless
--apply is given, which writes it in one atomic step (and recreates a
deleted team). Through a server as well (JSON-RPC teams.snapshot.*).

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
					return snapshotAction(c, e, 1, "create TEAM", func(m api.TeamPlans, args []string) (any, func() error, error) {
						s, err := m.SnapshotTeam(c.Context, args[0], c.String("note"))
						return s, func() error {
							_, err := fmt.Fprintf(e.stdout, "snapshot %s of team %s: %d quads, %d rows\n", s.ID, s.Team, s.Quads, s.Rows)
							return err
						}, err
					})
				},
			},
			{
				Name: "list", Usage: "list the snapshots of a team (also of a deleted one)", ArgsUsage: "TEAM",
				Description: `Lists TEAM's snapshots, oldest first: those of a team of the namespace, or
of a deleted team (they outlive it). A team without snapshots lists none
(exit 0); a TEAM that is neither a team of the namespace nor a team with
snapshots exits 3 (unknown team).`,
				Flags: withOutput(),
				Action: func(c *cli.Context) error {
					return snapshotAction(c, e, 1, "list TEAM", func(m api.TeamPlans, args []string) (any, func() error, error) {
						ss, err := m.Snapshots(c.Context, args[0])
						if ss == nil {
							ss = []teammanager.Snapshot{}
						}
						return ss, func() error {
							t := newTable(e.stdout, false, "SNAPSHOT", "CREATED", "LIFECYCLE", "QUADS", "NOTE")
							for _, s := range ss {
								t.row(s.ID, s.CreatedAt.Format(time.RFC3339), string(s.Lifecycle), groupDigits(int64(s.Quads)), s.Note)
							}
							return t.flush()
						}, err
					})
				},
			},
			{
				Name: "get", Usage: "show a snapshot", ArgsUsage: "TEAM SNAPSHOT",
				Flags: withOutput(),
				Action: func(c *cli.Context) error {
					return snapshotAction(c, e, 2, "get TEAM SNAPSHOT", func(m api.TeamPlans, args []string) (any, func() error, error) {
						s, err := m.GetSnapshot(c.Context, args[0], args[1])
						return s, func() error {
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
				Flags: withOutput(&cli.BoolFlag{Name: "apply", Usage: "write the restore; without it, a dry run writes nothing"}),
				Action: func(c *cli.Context) error {
					return snapshotAction(c, e, 2, "restore TEAM SNAPSHOT", func(m api.TeamPlans, args []string) (any, func() error, error) {
						d, err := m.RestoreSnapshot(c.Context, args[0], args[1], c.Bool("apply"))
						out := api.SnapshotRestoreOf(d)
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
					return snapshotAction(c, e, 2, "delete TEAM SNAPSHOT", func(m api.TeamPlans, args []string) (any, func() error, error) {
						err := m.DeleteSnapshot(c.Context, args[0], args[1])
						return api.SnapshotDeleted{Team: args[0], Snapshot: args[1], Deleted: true}, func() error {
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
// the team manager (the local store's, or a server's) and prints its
// result.
func snapshotAction(c *cli.Context, e *env, n int, want string, fn func(m api.TeamPlans, args []string) (any, func() error, error)) error {
	if _, err := outputFormat(c); err != nil {
		return err
	}
	sub, want, _ := strings.Cut(want, " ") // "restore", "TEAM SNAPSHOT"
	args, err := wantArgs(c, "teams snapshot "+sub+": want "+want, n, n)
	if err != nil {
		return err
	}
	a := accessWrite
	if c.Command.Name == "list" || c.Command.Name == "get" || c.Command.Name == "restore" && !c.Bool("apply") {
		a = accessRead // a restore without --apply is a dry run: it reads
	}
	m, err := e.plans(c, a)
	if err != nil {
		return err
	}
	v, table, err := fn(m, args)
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, v, table)
}

// plans returns the plan and snapshot methods of the team manager, the
// local store's or a server's.
func (e *env) plans(c *cli.Context, a access) (api.TeamPlans, error) {
	m, err := e.manager(c, a)
	if err != nil {
		return nil, err
	}
	p, ok := m.(api.TeamPlans)
	if !ok {
		return nil, fmt.Errorf("%w: this team manager has no plans or snapshots", api.ErrInvalid)
	}
	return p, nil
}
