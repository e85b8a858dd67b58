package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/titanous/json5"
	"github.com/urfave/cli/v2"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex/sparql/parser"
	"github.com/cortexgraph/cortex/internal/jsonexact"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/spec"
	"github.com/cortexgraph/cortex/teammanager"
)

// manager returns the team manager of the selected namespace: the
// server's, if the command goes through one (e.remote), else one over the
// store, configured from the config file's teams section, with the store
// opened as a says (accessRead: read-only, and a missing store or
// namespace is an error; accessCreate: the namespace is created if
// needed). Through a server, the server decides that the same way.
func (e *env) manager(c *cli.Context, a access) (api.TeamManager, error) {
	if rc, err := e.remote(); err != nil || rc != nil {
		return rc, err
	}
	return e.embeddedManager(c, a)
}

// embeddedManager returns a team manager over the store (see manager).
func (e *env) embeddedManager(c *cli.Context, a access) (*teammanager.Manager, error) {
	n, err := e.namespace(c.Context, a)
	if err != nil {
		return nil, err
	}
	x, err := e.ns()
	if err != nil {
		return nil, err
	}
	return teammanager.New(c.Context, e.store, x, api.ManagerConfig(e.cfg, n, x))
}

// withOutput appends the output flags (--format table|json, --json) to flags.
func withOutput(flags ...cli.Flag) []cli.Flag { return append(flags, outputFlags()...) }

func teamsCommands(e *env) []*cli.Command {
	return []*cli.Command{
		{
			Name:  "teams",
			Usage: "create, run, merge and delete agent teams",
			Description: `Teams, their members and findings are RDF in the namespace (see README, Teams).

Example:
   cortexctl teams create --name review --strategy conflict-flag --member alice:lead --member bob:reviewer
   cortexctl teams member-status TEAM alice running`,
			Subcommands: []*cli.Command{
				{
					Name:      "create",
					Usage:     "create a team (all members pending)",
					ArgsUsage: " ",
					Description: `Members are AGENT:ROLE[:TASK]; --from reads a JSON5 team config
(fields: id, name, strategy, context, timeout (seconds), threshold,
tieBreaker, members [{agent, role, task, critical}]; a key given twice, or
nesting past 200 levels, is an error). With --from, --name, --id, --strategy,
--context and --timeout given too override the file's, and --member adds
members (--critical marks one of either).

Examples:
   cortexctl teams create --name review --member alice:lead:correctness --member bob:reviewer
   cortexctl teams create --from fixtures/teams/code-review.json5 --json`,
					Flags: withOutput(
						&cli.StringFlag{Name: "name", Usage: "team name"},
						&cli.StringFlag{Name: "id", Usage: "team id (default: generated)"},
						&cli.StringFlag{Name: "strategy", Usage: "merge strategy (see cortexctl strategies)"},
						// KeepSpace: a malformed one is quoted as given.
						&cli.StringSliceFlag{Name: "member", Usage: "AGENT:ROLE[:TASK], repeatable", KeepSpace: true},
						&cli.StringSliceFlag{Name: "critical", Usage: "agent whose failure fails the team, repeatable"},
						&cli.Int64Flag{Name: "timeout", Usage: "seconds the team may run; -1: none; 0: the default", DefaultText: "the config's teams.workflowTimeout"},
						&cli.StringFlag{Name: "context", Usage: "goal or instructions"},
						&cli.StringFlag{Name: "from", Usage: "JSON5 team config file"},
					),
					Action: func(c *cli.Context) error { return teamsCreate(c, e) },
				},
				{
					Name:  "list",
					Usage: "list teams, oldest first",
					Description: `Example:
   cortexctl teams list --status running --json`,
					Flags: withOutput(
						&cli.StringFlag{Name: "status", Usage: "only teams with this status: pending|running|completed|failed (any case)"},
						&cli.StringFlag{Name: "lifecycle", Usage: "only teams in this lifecycle state: forming|active|paused|completed|disbanded (any case)"},
					),
					Action: func(c *cli.Context) error { return teamsList(c, e) },
				},
				{
					Name:      "get",
					Usage:     "show a team and its members",
					ArgsUsage: "TEAM",
					Description: `A finished team whose merge was interrupted (mergePending "interrupted") or
that timed out with a completed member ("timeout": the timeout is recorded) is
merged first: the store is then opened read-write. If it cannot be (another
process has it open), the team is shown as it reads: "merged": false with the
reason. A failed merge ("failed") is retried by the next write to the team or
cortexctl teams merge TEAM.

Example:
   cortexctl teams get TEAM --json`,
					Flags:  withOutput(),
					Action: func(c *cli.Context) error { return teamsGet(c, e) },
				},
				{
					Name:      "member-status",
					Usage:     "move a member to pending|running|completed|failed (any case)",
					ArgsUsage: "TEAM AGENT STATUS",
					Description: `The team's status follows; when the team completes it is merged.

Example:
   cortexctl teams member-status TEAM alice completed --result "3 issues found"`,
					Flags:  withOutput(&cli.StringFlag{Name: "result", Usage: "result summary"}),
					Action: func(c *cli.Context) error { return teamsMemberStatus(c, e) },
				},
				{
					Name:      "merge",
					Usage:     "merge the findings of the completed members into the shared graph",
					ArgsUsage: "TEAM",
					Description: `Example:
   cortexctl teams merge TEAM --json`,
					Flags:  withOutput(),
					Action: func(c *cli.Context) error { return teamsMerge(c, e) },
				},
				{
					Name:      "pause",
					Usage:     "pause an active team: its members' updates and findings wait, its timeout clock stops",
					ArgsUsage: "TEAM",
					Description: `Reads, queries and merges go on. cortexctl teams resume TEAM lets the
members go on; the time paused is added to the team's timeout.

Example:
   cortexctl teams pause TEAM`,
					Flags:  withOutput(),
					Action: func(c *cli.Context) error { return teamsLifecycle(c, e, "pause") },
				},
				{
					Name:      "resume",
					Usage:     "resume a paused team",
					ArgsUsage: "TEAM",
					Description: `A team that is not paused is refused (exit 4). The time it was paused is
added to its timeout and does not count against its tasks' leases.

Example:
   cortexctl teams resume TEAM`,
					Flags:  withOutput(),
					Action: func(c *cli.Context) error { return teamsLifecycle(c, e, "resume") },
				},
				{
					Name:      "disband",
					Usage:     "disband a forming, active or paused team: its graphs stay, read-only, until it is deleted",
					ArgsUsage: "TEAM",
					Description: `No merge runs. Every write to the team is refused from then on; the
team can be deleted (cortexctl teams delete TEAM).

Example:
   cortexctl teams disband TEAM`,
					Flags:  withOutput(),
					Action: func(c *cli.Context) error { return teamsLifecycle(c, e, "disband") },
				},
				{
					Name:      "delete",
					Usage:     "delete a completed or disbanded team with its findings and graphs",
					ArgsUsage: "TEAM",
					Description: `A team that is forming, active or paused is refused (exit 4) unless
--disband is given, which disbands it first.

Example:
   cortexctl teams delete TEAM
   cortexctl teams delete TEAM --disband`,
					Flags:  withOutput(&cli.BoolFlag{Name: "disband", Usage: "disband the team first if it is forming, active or paused"}),
					Action: func(c *cli.Context) error { return teamsDelete(c, e) },
				},
				teamsSnapshotCommand(e),
			},
		},
		{
			Name:  "strategies",
			Usage: "list the merge strategies",
			Description: `Example:
   cortexctl strategies --json`,
			Flags: withOutput(),
			Action: func(c *cli.Context) error {
				if c.NArg() > 0 {
					return usagef("strategies: unexpected argument %q", c.Args().First())
				}
				names, err := e.strategies(c)
				if err != nil {
					return err
				}
				return printResult(c, e.stdout, names, func() error {
					t := newTable(e.stdout, false)
					for _, n := range names {
						t.row(n)
					}
					return t.flush()
				})
			},
		},
		findingsCommand(e),
		conflictsCommand(e),
		factsCommand(e),
	}
}

// parseTeamFile reads a JSON5 team config (api.TeamConfig); unknown keys,
// and keys in another case than the config's ("Members" for "members"),
// are errors, as in the params of the server's teams.create
// (jsonexact.Unmarshal). So is a key given twice and nesting past 200
// levels (spec.CheckJSON5, before the JSON5 parser, which keeps the last
// of two keys and recurses without a bound): errInvalid. Data that is not
// JSON5 is errSyntax.
func parseTeamFile(data []byte) (teammanager.TeamConfig, error) {
	// A byte order mark (Windows editors write one; JSON5 counts U+FEFF
	// as white space) is not content, as in definitions and the config.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if err := spec.CheckJSON5(data); err != nil {
		return teammanager.TeamConfig{}, fmt.Errorf("%w: %v", errInvalid, err)
	}
	var raw interface{}
	if err := json5.Unmarshal(data, &raw); err != nil {
		return teammanager.TeamConfig{}, fmt.Errorf("%w: %v", errSyntax, err)
	}
	js, err := json.Marshal(raw)
	if err != nil { // NaN or Infinity, which JSON5 allows and JSON does not
		return teammanager.TeamConfig{}, fmt.Errorf("%w: %v", errInvalid, err)
	}
	var tf api.TeamConfig
	if err := jsonexact.Unmarshal(js, &tf); err != nil {
		return teammanager.TeamConfig{}, fmt.Errorf("%w: %v", errInvalid, jsonexact.TypeText(err))
	}
	return tf.TeamConfig()
}

func teamsCreate(c *cli.Context, e *env) error {
	if c.NArg() > 0 {
		return usagef("teams create: unexpected argument %q (give the name with --name)", c.Args().First())
	}
	out, err := outputFormat(c)
	if err != nil {
		return err
	}
	var tc teammanager.TeamConfig
	if p := c.String("from"); p != "" {
		data, err := readInput("teams create", p)
		if err != nil {
			return err
		}
		if tc, err = parseTeamFile(data); err != nil {
			return fmt.Errorf("teams create: %s: %w", pathText(p), err)
		}
	}
	if v := c.String("name"); v != "" {
		tc.Name = v
	}
	if v := c.String("id"); v != "" {
		tc.ID = v
	}
	if v := c.String("strategy"); v != "" {
		tc.Strategy = strategyName(v)
	}
	if v := c.String("context"); v != "" {
		tc.Context = v
	}
	if c.IsSet("timeout") {
		t, err := api.Seconds(c.Int64("timeout"))
		if err != nil {
			return err
		}
		tc.Timeout = t
	}
	for _, spec := range c.StringSlice("member") {
		mc, err := memberSpec(spec)
		if err != nil {
			return err
		}
		tc.Members = append(tc.Members, mc)
	}
	for _, a := range idList(c, "critical") {
		found := false
		for i := range tc.Members {
			if tc.Members[i].AgentID == a {
				tc.Members[i].Critical, found = true, true
			}
		}
		if !found {
			return usagef("teams create: --critical %q is not a --member", a)
		}
	}
	// Without --from, a missing --name or --member is left out of the
	// command line (exit 2), not an invalid team (7).
	switch from := c.IsSet("from"); {
	case tc.Name == "" && len(tc.Members) == 0:
		return usagef("teams create: need --name and --member, or --from FILE")
	case !from && tc.Name == "":
		return usagef("teams create: need --name (the team's name) with --member, or --from FILE")
	case !from && len(tc.Members) == 0:
		return usagef("teams create: need --member AGENT:ROLE[:TASK] (at least one) with --name, or --from FILE")
	}
	// Checked before the store and the namespace are created for it (a
	// server checks it before writing).
	if rc, err := e.remote(); err == nil && rc == nil {
		if err := teammanager.FromConfig(e.cfg.Teams).ValidateTeam(tc); err != nil {
			return err
		}
	}
	m, err := e.manager(c, accessCreate)
	if err != nil {
		return err
	}
	t, err := m.CreateTeam(c.Context, tc)
	if err != nil {
		return err
	}
	if out == formatJSON {
		return writeJSON(e.stdout, api.TeamOf(t))
	}
	_, err = fmt.Fprintf(e.stdout, "created team %s (\"%s\", %s, strategy %s)\n", t.ID, cell(t.Name), plural(int64(len(t.Members)), "member"), t.Strategy)
	return err
}

// memberSpec returns the member of a --member value, AGENT:ROLE[:TASK]
// (each part trimmed; ROLE may be left empty before a TASK), or a usage
// error (exit 2) quoting it: white space only, no AGENT, or a ROLE or
// TASK announced by its ':' and left blank.
func memberSpec(spec string) (teammanager.MemberConfig, error) {
	const want = "want AGENT:ROLE[:TASK]"
	parts := strings.SplitN(spec, ":", 3)
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	mc := teammanager.MemberConfig{AgentID: parts[0]}
	switch {
	case strings.TrimSpace(spec) == "":
		return mc, usagef("teams create: --member %q is blank: %s", spec, want)
	case mc.AgentID == "":
		return mc, usagef(`teams create: --member %q: no AGENT before ":": %s`, spec, want)
	case len(parts) == 2 && parts[1] == "":
		return mc, usagef(`teams create: --member %q: no ROLE after ":": %s`, spec, want)
	case len(parts) == 3 && parts[2] == "":
		return mc, usagef(`teams create: --member %q: no TASK after the second ":": %s`, spec, want)
	}
	if len(parts) > 1 {
		mc.Role = parts[1]
	}
	if len(parts) > 2 {
		mc.Task = parts[2]
	}
	return mc, nil
}

func teamsList(c *cli.Context, e *env) error {
	if c.NArg() > 0 {
		return usagef("teams list: unexpected argument %q", c.Args().First())
	}
	if _, err := outputFormat(c); err != nil {
		return err
	}
	var f teammanager.TeamFilter
	if s := c.String("status"); s != "" {
		st, err := statusFilter(s, teammanager.ParseStatus)
		if err != nil {
			return statusOf("team", err)
		}
		f.Status = st
	}
	if s := c.String("lifecycle"); s != "" {
		l, err := statusFilter(s, teammanager.ParseLifecycle)
		if err != nil {
			return err
		}
		f.Lifecycle = l
	}
	m, err := e.manager(c, accessRead)
	if err != nil {
		return err
	}
	ts, err := m.ListTeams(c.Context, f)
	if err != nil {
		return err
	}
	out := make([]api.Team, 0, len(ts))
	for _, t := range ts {
		out = append(out, api.TeamOf(t))
	}
	return printResult(c, e.stdout, out, func() error {
		t := newTable(e.stdout, false, "ID", "NAME", "STATUS", "LIFECYCLE", "STRATEGY", "CREATED")
		for _, tm := range ts {
			t.row(tm.ID, tm.Name, string(tm.Status), string(tm.Lifecycle), tm.Strategy, tm.CreatedAt.Format(time.RFC3339))
		}
		return t.flush()
	})
}

// getTeam returns team id as GetTeam reads it, and the manager to read
// more with. Through a server, the server does what follows. Else the
// store is opened read-only, unless the team has a due
// merge that a read retries (Team.ReadRetriesMerge: an interrupted merge,
// or a timeout not recorded yet): then it is reopened read-write and the
// team read again, which records and runs that merge (see
// teammanager.Manager.GetTeam). If it cannot be reopened read-write (e.g.
// another process reads it), the store is read read-only and the team
// returned as it reads there: not merged, with the reason.
func (e *env) getTeam(c *cli.Context, id string) (api.TeamManager, teammanager.Team, error) {
	if rc, err := e.remote(); err != nil || rc != nil {
		if err != nil {
			return nil, teammanager.Team{}, err
		}
		t, err := rc.GetTeam(c.Context, id)
		return rc, t, err
	}
	m, err := e.embeddedManager(c, accessRead)
	if err != nil {
		return nil, teammanager.Team{}, err
	}
	t, err := m.GetTeam(c.Context, id)
	if err != nil || !t.ReadRetriesMerge() {
		return m, t, err
	}
	if err := e.close(); err != nil {
		return nil, teammanager.Team{}, err
	}
	if m, err := e.embeddedManager(c, accessWrite); err == nil {
		t, err := m.GetTeam(c.Context, id)
		return m, t, err
	}
	if err := e.close(); err != nil {
		return nil, teammanager.Team{}, err
	}
	if m, err = e.embeddedManager(c, accessRead); err != nil {
		return nil, teammanager.Team{}, err
	}
	t, err = m.GetTeam(c.Context, id)
	return m, t, err
}

// prefixed returns p+s, or "" for an empty s.
func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

// notMergedNote returns the line saying that t is not merged yet, and why,
// or "" if it is not pending a merge.
func notMergedNote(t teammanager.Team) string {
	if t.MergePending == "" {
		return ""
	}
	return fmt.Sprintf("not merged yet (%s%s): run `cortexctl teams merge %s`", t.MergePending, cell(prefixed(": ", t.MergeError)), t.ID)
}

func teamsGet(c *cli.Context, e *env) error {
	if _, err := outputFormat(c); err != nil {
		return err
	}
	args, err := wantArgs(c, "teams get: want TEAM", 1, 1)
	if err != nil {
		return err
	}
	_, t, err := e.getTeam(c, args[0])
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, api.TeamOf(t), func() error {
		fmt.Fprintf(e.stdout, "team %s  \"%s\"  %s (%s)  strategy %s\n", t.ID, cell(t.Name), t.Status, t.Lifecycle, t.Strategy)
		if note := lifecycleNote(t); note != "" {
			fmt.Fprintln(e.stdout, note)
		}
		if t.FailReason != "" {
			fmt.Fprintf(e.stdout, "failed: %s\n", cell(t.FailReason))
		}
		if note := notMergedNote(t); note != "" {
			fmt.Fprintln(e.stdout, note)
		}
		tb := newTable(e.stdout, false, "AGENT", "ROLE", "STATUS", "TASK", "RESULT")
		for _, mb := range t.Members {
			tb.row(mb.AgentID, mb.Role, string(mb.Status), mb.Task, mb.Result)
		}
		return tb.flush()
	})
}

func teamsDelete(c *cli.Context, e *env) error {
	out, err := outputFormat(c)
	if err != nil {
		return err
	}
	args, err := wantArgs(c, "teams delete: want TEAM", 1, 1)
	if err != nil {
		return err
	}
	m, err := e.manager(c, accessWrite)
	if err != nil {
		return err
	}
	if err := deleteTeam(c.Context, m, args[0], c.Bool("disband")); err != nil {
		return err
	}
	if out == formatJSON {
		return writeJSON(e.stdout, api.TeamDeleted{Team: args[0], Deleted: true})
	}
	_, err = fmt.Fprintf(e.stdout, "deleted team %s\n", args[0])
	return err
}

// statusOf returns err, teammanager.ParseStatus's (`invalid status: "X"
// (want ...)`), naming whose status it is, as a task's or a message's is
// named: `invalid status: member status "X" (want ...)`.
func statusOf(whose string, err error) error {
	return fmt.Errorf("%w: %s status %s", teammanager.ErrInvalidStatus, whose, strings.TrimPrefix(err.Error(), teammanager.ErrInvalidStatus.Error()+": "))
}

func teamsMemberStatus(c *cli.Context, e *env) error {
	out, err := outputFormat(c)
	if err != nil {
		return err
	}
	args, err := wantArgs(c, "teams member-status: want TEAM AGENT STATUS", 3, 2)
	if err != nil {
		return err
	}
	st, err := statusFilter(args[2], teammanager.ParseStatus)
	if err != nil {
		return statusOf("member", err)
	}
	m, err := e.manager(c, accessWrite)
	if err != nil {
		return err
	}
	up, err := m.UpdateMemberStatus(c.Context, args[0], args[1], st, c.String("result"))
	if err != nil {
		return err
	}
	if out == formatJSON {
		return writeJSON(e.stdout, api.MemberStatusOf(up))
	}
	fmt.Fprintf(e.stdout, "member %s: %s; team %s: %s\n", up.Member.AgentID, up.Member.Status, up.Team, up.TeamStatus)
	if up.Merge != nil {
		printMerge(e.stdout, *up.Merge)
	}
	return nil
}

func printMerge(w io.Writer, r teammanager.MergeReport) {
	state := "merged"
	if r.Unchanged {
		state = "unchanged"
	}
	fmt.Fprintf(w, "%s with %s: %s, %s kept, %s (run %s)\n", state, r.Strategy, plural(int64(r.Topics), "topic"),
		plural(int64(r.Kept), "fact"), plural(int64(r.Report.Conflicts), "conflict"), r.MergeID)
	for _, m := range r.Members {
		fmt.Fprintf(w, "  %-12s %-9s contributed %s, kept %s\n", m.Agent, m.Status, plural(int64(m.Contributed), "claim"), groupDigits(int64(m.Kept)))
	}
}

func teamsMerge(c *cli.Context, e *env) error {
	out, err := outputFormat(c)
	if err != nil {
		return err
	}
	args, err := wantArgs(c, "teams merge: want TEAM", 1, 1)
	if err != nil {
		return err
	}
	m, err := e.manager(c, accessWrite)
	if err != nil {
		return err
	}
	r, err := m.MergeTeamResults(c.Context, args[0])
	if err != nil {
		return err
	}
	if out == formatJSON {
		return writeJSON(e.stdout, api.MergeOf(r))
	}
	printMerge(e.stdout, r)
	return nil
}

// strategies returns the names of the merge strategies teams may use:
// the server's, through one, else the registry's.
func (e *env) strategies(c *cli.Context) ([]string, error) {
	if rc, err := e.remote(); err != nil || rc != nil {
		if err != nil {
			return nil, err
		}
		return rc.Strategies(c.Context)
	}
	return merge.Names(), nil
}

// parseTermArg reads a term from the command line (api.ParseTerm with
// e.prefixes).
func (e *env) parseTermArg(ctx context.Context, s string) (quad.Value, error) {
	p, err := e.prefixes(ctx)
	if err != nil {
		return nil, err
	}
	return api.ParseTerm(s, p)
}

// prefixes returns the prefixes that terms on the command line and in
// output are read and written with: through a server, the server's
// (client.Client.Prefixes, asked once), so that cx:x names the IRI the
// server names whatever this command's config says; else the
// namespace's and the config's (teammanager.Prefixes).
func (e *env) prefixes(ctx context.Context) (map[string]string, error) {
	rc, err := e.remote()
	if err != nil {
		return nil, err
	}
	if rc != nil {
		if e.remotePrefixes == nil {
			if e.remotePrefixes, err = rc.Prefixes(ctx); err != nil {
				return nil, err
			}
		}
		return e.remotePrefixes, nil
	}
	x, err := e.ns()
	if err != nil {
		m := parser.DefaultPrefixes()
		maps.Copy(m, e.cfg.Prefixes)
		return m, nil
	}
	return teammanager.Prefixes(x, e.cfg.Prefixes), nil
}

// deleteTeam deletes team id; a team that is forming, active or paused is
// disbanded first if disband is set (else DeleteTeam refuses it).
func deleteTeam(ctx context.Context, m api.TeamManager, id string, disband bool) error {
	err := m.DeleteTeam(ctx, id)
	if errors.Is(err, teammanager.ErrTeamActive) && disband {
		if _, err = m.DisbandTeam(ctx, id); err == nil {
			err = m.DeleteTeam(ctx, id)
		}
	}
	return err
}

// lifecycleNote returns the line saying since when t is paused or
// disbanded, or "".
func lifecycleNote(t teammanager.Team) string {
	switch t.Lifecycle {
	case teammanager.LifecyclePaused:
		return fmt.Sprintf("paused since %s: run `cortexctl teams resume %s`", t.PausedAt.Format(time.RFC3339), t.ID)
	case teammanager.LifecycleDisbanded:
		return fmt.Sprintf("disbanded at %s: read-only until deleted", t.DisbandedAt.Format(time.RFC3339))
	}
	return ""
}

// teamsLifecycle runs teams pause, resume or disband (verb) and prints the
// team as moved.
func teamsLifecycle(c *cli.Context, e *env, verb string) error {
	out, err := outputFormat(c)
	if err != nil {
		return err
	}
	args, err := wantArgs(c, "teams "+verb+": want TEAM", 1, 1)
	if err != nil {
		return err
	}
	m, err := e.manager(c, accessWrite)
	if err != nil {
		return err
	}
	move := map[string]func(context.Context, string) (teammanager.Team, error){
		"pause": m.PauseTeam, "resume": m.ResumeTeam, "disband": m.DisbandTeam,
	}[verb]
	t, err := move(c.Context, args[0])
	if err != nil {
		return err
	}
	if out == formatJSON {
		return writeJSON(e.stdout, api.TeamOf(t))
	}
	_, err = fmt.Fprintf(e.stdout, "team %s is %s\n", t.ID, t.Lifecycle)
	return err
}
