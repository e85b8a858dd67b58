package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/urfave/cli/v2"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/teammanager"
)

// asFlag is --as, the member a command acts as.
func asFlag(lead bool) cli.Flag {
	if lead {
		return &cli.StringFlag{Name: "as", Usage: "the `AGENT` acting: the team's lead", DefaultText: "the board's lead"}
	}
	return &cli.StringFlag{Name: "as", Usage: "the member `AGENT` acting (required)"}
}

// taskCmd describes a tasks subcommand that acts on one task and prints it.
type taskCmd struct {
	name, usage, args, desc string
	lead                    bool // the lead acts: --as defaults to the board's lead
	min, max                int  // positional arguments after TEAM TASK
	// text names the required argument after TEAM TASK that is text
	// ("REASON"): white space only is refused as an empty one is.
	text  string
	flags []cli.Flag
	// check reads the command's flags before anything is opened (nil: none).
	check func(c *cli.Context) error
	run   func(c *cli.Context, m api.TeamManager, team, agent, task string, rest []string) (teammanager.Task, error)
}

func tasksCommand(e *env) *cli.Command {
	acts := []taskCmd{
		{name: "claim", usage: "claim a pending, ready task: in_progress, assigned to --as", args: "TEAM TASK",
			desc: "cortexctl tasks claim TEAM T1 --as bob",
			run: func(c *cli.Context, m api.TeamManager, team, agent, task string, _ []string) (teammanager.Task, error) {
				return m.ClaimTask(c.Context, team, agent, task)
			}},
		{name: "progress", usage: "report progress on an in_progress task (renews its lease)", args: "TEAM TASK [NOTE]", max: 1,
			desc: "cortexctl tasks progress TEAM T1 'parser done' --as bob",
			run: func(c *cli.Context, m api.TeamManager, team, agent, task string, rest []string) (teammanager.Task, error) {
				return m.ProgressTask(c.Context, team, agent, task, strings.Join(rest, ""))
			}},
		{name: "complete", usage: "submit the result of an in_progress task: in_review (or completed on a board without review)", args: "TEAM TASK [RESULT]", max: 1,
			desc: "cortexctl tasks complete TEAM T1 'PR #12' --as bob",
			run: func(c *cli.Context, m api.TeamManager, team, agent, task string, rest []string) (teammanager.Task, error) {
				return m.CompleteTask(c.Context, team, agent, task, strings.Join(rest, ""))
			}},
		{name: "fail", usage: "fail an in_progress task; the lead is told", args: "TEAM TASK REASON", min: 1, max: 1, text: "REASON",
			desc: "cortexctl tasks fail TEAM T1 'no access to the repo' --as bob",
			run: func(c *cli.Context, m api.TeamManager, team, agent, task string, rest []string) (teammanager.Task, error) {
				return m.FailTask(c.Context, team, agent, task, rest[0])
			}},
		{name: "review", usage: "approve (completed; dependents unblock) or reject (back to the assignee, with --feedback) a task in_review", args: "TEAM TASK",
			lead: true, desc: "cortexctl tasks review TEAM T1 --approve\n   cortexctl tasks review TEAM T1 --reject --feedback 'add tests'",
			flags: []cli.Flag{&cli.BoolFlag{Name: "approve", Usage: "approve the result"}, &cli.BoolFlag{Name: "reject", Usage: "reject the result"},
				&cli.StringFlag{Name: "feedback", Usage: "what to change (kept on the task; required with --reject)"}},
			check: func(c *cli.Context) error {
				if c.Bool("approve") == c.Bool("reject") {
					return usagef("tasks review: want one of --approve and --reject")
				}
				return needFeedback(c, "tasks review")
			},
			run: func(c *cli.Context, m api.TeamManager, team, agent, task string, _ []string) (teammanager.Task, error) {
				return m.ReviewTask(c.Context, team, agent, task, c.Bool("approve"), c.String("feedback"))
			}},
		{name: "cancel", usage: "cancel an unfinished task (its dependents stay blocked)", args: "TEAM TASK [REASON]", max: 1, lead: true,
			desc: "cortexctl tasks cancel TEAM T3 'out of scope'",
			run: func(c *cli.Context, m api.TeamManager, team, agent, task string, rest []string) (teammanager.Task, error) {
				return m.CancelTask(c.Context, team, agent, task, strings.Join(rest, ""))
			}},
		{name: "pause", usage: "pause a pending or in_progress task: not claimed or dispatched, its lease stops", args: "TEAM TASK", lead: true,
			desc: "cortexctl tasks pause TEAM T2",
			run: func(c *cli.Context, m api.TeamManager, team, agent, task string, _ []string) (teammanager.Task, error) {
				return m.PauseTask(c.Context, team, agent, task)
			}},
		{name: "resume", usage: "resume a paused task", args: "TEAM TASK", lead: true,
			desc: "cortexctl tasks resume TEAM T2",
			run: func(c *cli.Context, m api.TeamManager, team, agent, task string, _ []string) (teammanager.Task, error) {
				return m.ResumeTask(c.Context, team, agent, task)
			}},
		{name: "retry", usage: "put a failed or cancelled (not skipped) task back to pending, its dispatch count reset", args: "TEAM TASK", lead: true,
			desc: "cortexctl tasks retry TEAM T2",
			run: func(c *cli.Context, m api.TeamManager, team, agent, task string, _ []string) (teammanager.Task, error) {
				return m.RetryTask(c.Context, team, agent, task)
			}},
		{name: "skip", usage: "cancel a task that is not completed so that its dependents go ahead", args: "TEAM TASK [REASON]", max: 1, lead: true,
			desc: "cortexctl tasks skip TEAM T2 'done by hand'",
			run: func(c *cli.Context, m api.TeamManager, team, agent, task string, rest []string) (teammanager.Task, error) {
				return m.SkipTask(c.Context, team, agent, task, strings.Join(rest, ""))
			}},
		{name: "update", usage: "change an unfinished task's fields (the flags given)", args: "TEAM TASK", lead: true,
			desc: "cortexctl tasks update TEAM T2 --priority 5 --assignee cat\n   cortexctl tasks update TEAM T2 --blocked-by '' (no blockers)",
			flags: []cli.Flag{&cli.StringFlag{Name: "subject", Usage: "new subject"}, &cli.StringFlag{Name: "description", Usage: "new description"},
				&cli.StringFlag{Name: "assignee", Usage: "new assignee (a member; '' unassigns)"}, &cli.Int64Flag{Name: "priority", Usage: "new priority (higher first)", DefaultText: "unchanged"},
				&cli.StringSliceFlag{Name: "blocked-by", Usage: "TASK that must complete first, repeatable: replaces the list ('' for none); only on a pending task"}},
			check: func(c *cli.Context) error {
				if _, err := priorityFlag(c); err != nil {
					return err
				}
				if err := refuseBlank("tasks update", "--subject", c.String("subject"), "give a subject or leave the option out"); err != nil {
					return err
				}
				for _, f := range []string{"subject", "description", "assignee", "priority", "blocked-by"} {
					if c.IsSet(f) {
						return nil
					}
				}
				return usagef("tasks update: nothing to change (give --subject, --description, --assignee, --priority or --blocked-by)")
			},
			run: func(c *cli.Context, m api.TeamManager, team, agent, task string, _ []string) (teammanager.Task, error) {
				var u teammanager.TaskUpdate
				for name, p := range map[string]**string{"subject": &u.Subject, "description": &u.Description, "assignee": &u.Assignee} {
					if c.IsSet(name) {
						v := c.String(name)
						*p = &v
					}
				}
				if c.IsSet("priority") {
					p, _ := priorityFlag(c) // checked
					u.Priority = &p
				}
				if c.IsSet("blocked-by") {
					bb := blockedBy(c)
					u.BlockedBy = &bb
				}
				return m.UpdateTask(c.Context, team, agent, task, u)
			}},
	}
	cmds := []*cli.Command{
		{
			Name:      "create",
			Usage:     "create a task on a team's board (by the lead, or by a member if the board allows requests)",
			ArgsUsage: "TEAM SUBJECT",
			Description: `A task is pending until a member claims it (tasks claim, tasks next) or a
dispatch round hands it out (tasks dispatch); with --blocked-by it waits for
those tasks to complete.

Example:
   cortexctl tasks create TEAM 'write the parser' --priority 5 --assignee bob
   cortexctl tasks create TEAM 'test the parser' --blocked-by T1`,
			Flags: withOutput(asFlag(true),
				&cli.StringFlag{Name: "description", Usage: "what to do"},
				&cli.StringFlag{Name: "assignee", Usage: "the member `AGENT` who is to do it", DefaultText: "any member"},
				&cli.Int64Flag{Name: "priority", Usage: "higher first"},
				&cli.StringSliceFlag{Name: "blocked-by", Usage: "`TASK` of the team that must complete first, repeatable"}),
			Action: func(c *cli.Context) error { return tasksCreate(c, e) },
		},
		{
			Name:      "list",
			Usage:     "list a team's tasks, in id order",
			ArgsUsage: "TEAM",
			Description: `Example:
   cortexctl tasks list TEAM --status pending --json`,
			Flags: withOutput(
				&cli.StringFlag{Name: "status", Usage: "only tasks with this status: pending|in_progress|in_review|completed|failed|cancelled (any case)"},
				&cli.StringFlag{Name: "assignee", Usage: "only the tasks of this member"}),
			Action: func(c *cli.Context) error { return tasksList(c, e) },
		},
		{
			Name:      "get",
			Usage:     "show a task",
			ArgsUsage: "TEAM TASK",
			Description: `Example:
   cortexctl tasks get TEAM T1 --json`,
			Flags: withOutput(),
			Action: func(c *cli.Context) error {
				return tasksRead(c, e, "get", func(m api.TeamManager, team, task string) (any, func() error, error) {
					t, err := m.GetTask(c.Context, team, task)
					return api.TaskOf(t), func() error { return printTask(e, t) }, err
				})
			},
		},
		{
			Name:      "next",
			Usage:     "claim the ready task of highest priority that --as may take",
			ArgsUsage: "TEAM",
			Description: `Exits 4 (no ready task) when there is none: a swarm member loops on it.

Example:
   cortexctl tasks next TEAM --as bob --json`,
			Flags:  withOutput(asFlag(false)),
			Action: func(c *cli.Context) error { return tasksNext(c, e) },
		},
		{
			Name:      "comment",
			Usage:     "comment on a task; a --blocker comment fails it and escalates to the lead",
			ArgsUsage: "TEAM TASK TEXT",
			Description: `Example:
   cortexctl tasks comment TEAM T1 'which API version?' --as bob
   cortexctl tasks comment TEAM T1 'the staging DB is down' --blocker --as bob`,
			Flags:  withOutput(asFlag(false), &cli.BoolFlag{Name: "blocker", Usage: "a blocker: the task fails and the lead is sent an escalation"}),
			Action: func(c *cli.Context) error { return tasksComment(c, e) },
		},
		{
			Name:      "comments",
			Usage:     "list a task's comments, oldest first",
			ArgsUsage: "TEAM TASK",
			Description: `Example:
   cortexctl tasks comments TEAM T1`,
			Flags: withOutput(),
			Action: func(c *cli.Context) error {
				return tasksRead(c, e, "comments", func(m api.TeamManager, team, task string) (any, func() error, error) {
					cs, err := m.TaskComments(c.Context, team, task)
					out := make([]api.TaskComment, 0, len(cs))
					for _, cm := range cs {
						out = append(out, api.TaskCommentOf(team, cm))
					}
					return out, func() error {
						tb := newTable(e.stdout, false, "ID", "KIND", "AUTHOR", "AT", "TEXT")
						for _, cm := range cs {
							tb.row(cm.ID, string(cm.Kind), cm.Author, cm.CreatedAt.Format(time.RFC3339), cm.Text)
						}
						return tb.flush()
					}, err
				})
			},
		},
		{
			Name:      "history",
			Usage:     "list a task's changes, oldest first",
			ArgsUsage: "TEAM TASK",
			Description: `Example:
   cortexctl tasks history TEAM T1 --json`,
			Flags: withOutput(),
			Action: func(c *cli.Context) error {
				return tasksRead(c, e, "history", func(m api.TeamManager, team, task string) (any, func() error, error) {
					hs, err := m.TaskHistory(c.Context, team, task)
					out := make([]api.TaskEvent, 0, len(hs))
					for _, h := range hs {
						out = append(out, api.TaskEventOf(h))
					}
					return out, func() error {
						tb := newTable(e.stdout, false, "AT", "ACTION", "BY", "FROM", "TO", "REASON")
						for _, h := range hs {
							tb.row(h.Time.Format(time.RFC3339), h.Action, h.By, string(h.From), string(h.To), h.Reason)
						}
						return tb.flush()
					}, err
				})
			},
		},
		{
			Name:      "add-finding",
			Usage:     "record a finding of a task's assignee, made for the task (in its provenance)",
			ArgsUsage: "TEAM TASK SUBJECT PREDICATE OBJECT",
			Description: `Terms as in findings add. The task must be in_progress or in_review, and
--as its assignee; the finding is merged with the team's as any other.

Example:
   cortexctl tasks add-finding TEAM T1 '<https://ex.org/parser.go>' rdfs:comment '"handles unicode"' --as bob`,
			Flags:  withOutput(asFlag(false), &cli.Float64Flag{Name: "confidence", Usage: "confidence in [0, 1]", DefaultText: "unspecified"}),
			Action: func(c *cli.Context) error { return tasksAddFinding(c, e) },
		},
		{
			Name:      "dispatch",
			Usage:     "run a dispatch round: requeue expired leases, hand ready tasks to free members by priority",
			ArgsUsage: "TEAM",
			Description: `One task per free member (a member holding no in_progress task); a task
dispatched as often as the board's maxDispatches without completing fails
instead (circuit breaker) and the lead is told.

Example:
   cortexctl tasks dispatch TEAM --json`,
			Flags:  withOutput(),
			Action: func(c *cli.Context) error { return tasksDispatch(c, e) },
		},
		{
			Name:      "sweep",
			Usage:     "requeue the in_progress tasks whose lease ran out and list the stale ones",
			ArgsUsage: "TEAM",
			Description: `Example:
   cortexctl tasks sweep TEAM`,
			Flags:  withOutput(),
			Action: func(c *cli.Context) error { return tasksSweep(c, e) },
		},
		{
			Name:      "board",
			Usage:     "show a team board's rules, or change those given",
			ArgsUsage: "TEAM",
			Description: `Example:
   cortexctl tasks board TEAM
   cortexctl tasks board TEAM --allow-requests --max-dispatches 5 --lease 30m
   cortexctl tasks board TEAM --require-review=false
   cortexctl tasks board TEAM --plan-approval --plan-approver cat

Only the settings given change; the others are kept.`,
			Flags: withOutput(
				&cli.StringFlag{Name: "lead", Usage: "the member `AGENT` who leads the board"},
				&cli.BoolFlag{Name: "allow-requests", Usage: "let every member create tasks (a new board's: false)", DefaultText: "unchanged"},
				&cli.BoolFlag{Name: "lead-may-work", Usage: "let the lead be assigned and claim tasks (a new board's: false)", DefaultText: "unchanged"},
				&cli.BoolFlag{Name: "require-review", Usage: "send submissions to in_review for the lead (a new board's: true; --require-review=false turns it off)", DefaultText: "unchanged"},
				&cli.Int64Flag{Name: "max-dispatches", Usage: "circuit breaker: dispatches without completing before a task fails (1..100; a new board's: 3)", DefaultText: "unchanged"},
				&cli.DurationFlag{Name: "lease", Usage: "how long an in_progress task may go without progress (> 0; 0 is refused; a new board's: 10m)", DefaultText: "unchanged"},
				&cli.DurationFlag{Name: "stale-after", Usage: "how long an in_progress or in_review task may go unchanged before sweep reports it (> 0; 0 is refused; a new board's: 30m)", DefaultText: "unchanged"},
				&cli.BoolFlag{Name: "plan-approval", Usage: "claim and dispatch no task before the lead's plan is approved (cortexctl plans; a new board's: false)", DefaultText: "unchanged"},
				&cli.StringFlag{Name: "plan-approver", Usage: "the member `AGENT` who approves the lead's plan ('': the operator)"}),
			Action: func(c *cli.Context) error { return tasksBoard(c, e) },
		},
	}
	for _, a := range acts {
		a := a
		cmds = append(cmds, &cli.Command{
			Name:        a.name,
			Usage:       a.usage,
			ArgsUsage:   a.args,
			Description: "Example:\n   " + a.desc,
			Flags:       withOutput(append([]cli.Flag{asFlag(a.lead)}, a.flags...)...),
			Action:      func(c *cli.Context) error { return tasksAct(c, e, a) },
		})
	}
	return &cli.Command{
		Name:  "tasks",
		Usage: "the task board of a led team: create, claim, submit, review and control tasks",
		Description: `Each team has a task board (see README, Led teams). Commands act as the member
--as names; the lead's commands (create, update, review, cancel, pause,
resume, retry, skip) default to the board's lead.

Example:
   cortexctl tasks create TEAM 'write the parser' --priority 5
   cortexctl tasks next TEAM --as bob
   cortexctl tasks complete TEAM T1 'PR #12' --as bob
   cortexctl tasks review TEAM T1 --approve`,
		Subcommands: cmds,
	}
}

// teamTaskArgs checks the positional arguments of command name: TEAM,
// then TASK if withTask, then between min and max more (usage names them).
func teamTaskArgs(c *cli.Context, name, usage string, withTask bool, min, max int) ([]string, error) {
	args := c.Args().Slice()
	n := 1
	if withTask {
		n = 2
	}
	if len(args) < n+min || len(args) > n+max {
		return nil, usagef("tasks %s: want %s", name, usage)
	}
	for _, a := range args[:n] {
		if a == "" {
			return nil, usagef("tasks %s: want %s (not empty)", name, usage)
		}
	}
	return args, nil
}

// actor returns the member command name acts as: --as, else, for a lead's
// command, the board's lead (read with m). On a board without a lead, a
// team whose board takes no write (finished, disbanded or paused) is
// refused for that (exit 4), as the board refuses it before anything
// about who acts, rather than asked for --as.
func actor(c *cli.Context, m api.TeamManager, name, team string, lead bool) (string, error) {
	if a := c.String("as"); a != "" || !lead {
		return a, nil
	}
	s, err := m.Board(c.Context, team)
	if err != nil {
		return "", err
	}
	if s.Lead == "" {
		t, err := m.GetTeam(c.Context, team)
		if err != nil {
			return "", err
		}
		if err := teammanager.BoardClosed(t); err != nil {
			return "", fmt.Errorf("tasks %s: %w", name, err)
		}
		return "", usagef("tasks %s: team %s's board has no lead: give --as AGENT (or set one: cortexctl tasks board %s --lead AGENT)", name, team, team)
	}
	return s.Lead, nil
}

// needAs returns a usage error if a member's command has no --as.
func needAs(c *cli.Context, name string) error {
	if c.String("as") == "" {
		return usagef("tasks %s: want --as AGENT (the member acting)", name)
	}
	return nil
}

func priorityFlag(c *cli.Context) (int, error) {
	p := c.Int64("priority")
	if p < -teammanager.MaxTaskPriority || p > teammanager.MaxTaskPriority {
		return 0, fmt.Errorf("%w: --priority %d: want -%d..%d", errInvalid, p, teammanager.MaxTaskPriority, teammanager.MaxTaskPriority)
	}
	return int(p), nil
}

// blockedBy returns the --blocked-by tasks, without empty values: an
// empty --blocked-by is none.
func blockedBy(c *cli.Context) []string {
	out := []string{}
	for _, s := range c.StringSlice("blocked-by") {
		for _, id := range strings.Split(s, ",") {
			if id = strings.TrimSpace(id); id != "" {
				out = append(out, id)
			}
		}
	}
	return out
}

func tasksCreate(c *cli.Context, e *env) error {
	if _, err := outputFormat(c); err != nil {
		return err
	}
	args, err := teamTaskArgs(c, "create", "TEAM SUBJECT", true, 0, 0)
	if err != nil {
		return err
	}
	if err := refuseBlank("tasks create", "SUBJECT", args[1], "want TEAM SUBJECT"); err != nil {
		return err
	}
	prio, err := priorityFlag(c)
	if err != nil {
		return err
	}
	m, err := e.manager(c, accessWrite)
	if err != nil {
		return err
	}
	by, err := actor(c, m, "create", args[0], true)
	if err != nil {
		return err
	}
	t, err := m.CreateTask(c.Context, args[0], by, teammanager.NewTask{Subject: args[1], Description: c.String("description"),
		Assignee: c.String("assignee"), Priority: prio, BlockedBy: blockedBy(c)})
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, api.TaskOf(t), func() error {
		_, err := fmt.Fprintf(e.stdout, "created task %s (\"%s\"): %s\n", t.ID, cell(t.Subject), taskState(t))
		return err
	})
}

// taskState is a task's status in words: "pending, assigned to bob,
// depends on T1" (its blocked_by, completed or not).
func taskState(t teammanager.Task) string {
	s := string(t.Status)
	if t.Paused {
		s += " (paused)"
	}
	if t.Skipped {
		s += " (skipped)"
	}
	if t.Assignee != "" {
		s += ", assigned to " + t.Assignee
	}
	if len(t.BlockedBy) > 0 && t.Status == teammanager.TaskPending {
		s += ", depends on " + strings.Join(t.BlockedBy, " ")
	}
	return s
}

func tasksList(c *cli.Context, e *env) error {
	if _, err := outputFormat(c); err != nil {
		return err
	}
	args, err := teamTaskArgs(c, "list", "TEAM", false, 0, 0)
	if err != nil {
		return err
	}
	f := teammanager.TaskFilter{Assignee: c.String("assignee")}
	if s := c.String("status"); s != "" {
		if f.Status, err = statusFilter(s, teammanager.ParseTaskStatus); err != nil {
			return err
		}
	}
	m, err := e.manager(c, accessRead)
	if err != nil {
		return err
	}
	ts, err := m.ListTasks(c.Context, args[0], f)
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, api.TasksOf(ts), func() error {
		tb := newTable(e.stdout, false, "ID", "STATUS", "PRIORITY", "ASSIGNEE", "BLOCKED-BY", "SUBJECT")
		for _, t := range ts {
			st := string(t.Status)
			if t.Paused {
				st += " (paused)"
			}
			tb.row(t.ID, st, strconv.Itoa(t.Priority), t.Assignee, strings.Join(t.BlockedBy, " "), t.Subject)
		}
		return tb.flush()
	})
}

// tasksRead runs a read command on TEAM TASK: read returns the JSON value
// and the table printer.
func tasksRead(c *cli.Context, e *env, name string, read func(m api.TeamManager, team, task string) (any, func() error, error)) error {
	if _, err := outputFormat(c); err != nil {
		return err
	}
	args, err := teamTaskArgs(c, name, "TEAM TASK", true, 0, 0)
	if err != nil {
		return err
	}
	m, err := e.manager(c, accessRead)
	if err != nil {
		return err
	}
	v, table, err := read(m, args[0], args[1])
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, v, table)
}

// printTask prints a task as lines of fields.
func printTask(e *env, t teammanager.Task) error {
	fmt.Fprintf(e.stdout, "task %s  \"%s\"  %s\n", t.ID, cell(t.Subject), taskState(t))
	fields := []struct{ name, v string }{
		{"description", t.Description}, {"priority", strconv.Itoa(t.Priority)}, {"dependents", strings.Join(t.Dependents, " ")},
		{"created by", t.CreatedBy}, {"dispatches", strconv.Itoa(t.Dispatches)}, {"result", t.Result}, {"error", t.Error},
		{"feedback", t.Feedback}, {"reviewed by", t.ReviewedBy},
	}
	tb := newTable(e.stdout, false)
	for _, f := range fields {
		if f.v != "" {
			tb.row(f.name, f.v)
		}
	}
	return tb.flush()
}

// tasksAct runs a command that acts on one task and prints it.
func tasksAct(c *cli.Context, e *env, a taskCmd) error {
	if _, err := outputFormat(c); err != nil {
		return err
	}
	args, err := teamTaskArgs(c, a.name, a.args, true, a.min, a.max)
	if err != nil {
		return err
	}
	if a.text != "" {
		if err := refuseBlank("tasks "+a.name, a.text, args[2], "want "+a.args); err != nil {
			return err
		}
	}
	if !a.lead {
		if err := needAs(c, a.name); err != nil {
			return err
		}
	}
	if a.check != nil {
		if err := a.check(c); err != nil {
			return err
		}
	}
	m, err := e.manager(c, accessWrite)
	if err != nil {
		return err
	}
	agent, err := actor(c, m, a.name, args[0], a.lead)
	if err != nil {
		return err
	}
	t, err := a.run(c, m, args[0], agent, args[1], args[2:])
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, api.TaskOf(t), func() error {
		_, err := fmt.Fprintf(e.stdout, "task %s: %s\n", t.ID, taskState(t))
		return err
	})
}

func tasksNext(c *cli.Context, e *env) error {
	if _, err := outputFormat(c); err != nil {
		return err
	}
	args, err := teamTaskArgs(c, "next", "TEAM", false, 0, 0)
	if err != nil {
		return err
	}
	if err := needAs(c, "next"); err != nil {
		return err
	}
	m, err := e.manager(c, accessWrite)
	if err != nil {
		return err
	}
	t, err := m.ClaimNext(c.Context, args[0], c.String("as"))
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, api.TaskOf(t), func() error {
		_, err := fmt.Fprintf(e.stdout, "claimed task %s (\"%s\"): %s\n", t.ID, cell(t.Subject), taskState(t))
		return err
	})
}

func tasksComment(c *cli.Context, e *env) error {
	if _, err := outputFormat(c); err != nil {
		return err
	}
	args, err := teamTaskArgs(c, "comment", "TEAM TASK TEXT", true, 1, 1)
	if err != nil {
		return err
	}
	if err := refuseBlank("tasks comment", "TEXT", args[2], "want TEAM TASK TEXT"); err != nil {
		return err
	}
	if err := needAs(c, "comment"); err != nil {
		return err
	}
	kind := teammanager.CommentNote
	if c.Bool("blocker") {
		kind = teammanager.CommentBlocker
	}
	m, err := e.manager(c, accessWrite)
	if err != nil {
		return err
	}
	cm, err := m.AddTaskComment(c.Context, args[0], c.String("as"), args[1], kind, args[2])
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, api.TaskCommentOf(args[0], cm), func() error {
		note := ""
		if kind == teammanager.CommentBlocker {
			note = fmt.Sprintf("; task %s failed and the lead was told", cm.Task)
		}
		_, err := fmt.Fprintf(e.stdout, "comment %s on task %s%s\n", cm.ID, cm.Task, note)
		return err
	})
}

// taskGroup is tasks under a heading, in the table of dispatch and sweep.
type taskGroup struct {
	title string
	ts    []teammanager.Task
}

// printTaskGroups prints groups of tasks under their headings, one line a
// task, or "nothing to do".
func printTaskGroups(e *env, groups ...taskGroup) error {
	empty := true
	for _, g := range groups {
		for _, t := range g.ts {
			empty = false
			fmt.Fprintf(e.stdout, "%-10s %-5s %s\n", g.title, t.ID, taskState(t))
		}
	}
	if empty {
		_, err := fmt.Fprintln(e.stdout, "nothing to do")
		return err
	}
	return nil
}

func tasksDispatch(c *cli.Context, e *env) error {
	if _, err := outputFormat(c); err != nil {
		return err
	}
	args, err := teamTaskArgs(c, "dispatch", "TEAM", false, 0, 0)
	if err != nil {
		return err
	}
	m, err := e.manager(c, accessWrite)
	if err != nil {
		return err
	}
	r, err := m.DispatchUnblocked(c.Context, args[0])
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, api.TaskDispatchOf(args[0], r), func() error {
		return printTaskGroups(e, taskGroup{"requeued", r.Requeued}, taskGroup{"dispatched", r.Dispatched}, taskGroup{"failed", r.Failed})
	})
}

func tasksSweep(c *cli.Context, e *env) error {
	if _, err := outputFormat(c); err != nil {
		return err
	}
	args, err := teamTaskArgs(c, "sweep", "TEAM", false, 0, 0)
	if err != nil {
		return err
	}
	m, err := e.manager(c, accessWrite)
	if err != nil {
		return err
	}
	sw, err := m.SweepTasks(c.Context, args[0])
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, api.TaskSweepOf(args[0], sw), func() error {
		return printTaskGroups(e, taskGroup{"requeued", sw.Requeued}, taskGroup{"stale", sw.Stale})
	})
}

// boardFlags are the flags of tasks board that change a setting.
var boardFlags = []string{"lead", "allow-requests", "lead-may-work", "require-review", "max-dispatches", "lease", "stale-after", "plan-approval", "plan-approver"}

func tasksBoard(c *cli.Context, e *env) error {
	if _, err := outputFormat(c); err != nil {
		return err
	}
	args, err := teamTaskArgs(c, "board", "TEAM", false, 0, 0)
	if err != nil {
		return err
	}
	set := false
	for _, f := range boardFlags {
		set = set || c.IsSet(f)
	}
	for _, f := range []string{"lease", "stale-after"} {
		if c.IsSet(f) && c.Duration(f) <= 0 {
			return fmt.Errorf("%w: --%s %s: want a duration > 0", errInvalid, f, durationText(c, e.args, f))
		}
	}
	if n := c.Int64("max-dispatches"); c.IsSet("max-dispatches") && (n < 1 || n > 100) {
		return fmt.Errorf("%w: --max-dispatches %d: want 1..100", errInvalid, n)
	}
	a := accessRead
	if set {
		a = accessWrite
	}
	m, err := e.manager(c, a)
	if err != nil {
		return err
	}
	var s teammanager.BoardSettings
	if set {
		// Only the settings given change, in one write: a concurrent
		// change of the others is kept.
		var u teammanager.BoardUpdate
		for name, p := range map[string]**string{"lead": &u.Lead, "plan-approver": &u.PlanApprover} {
			if c.IsSet(name) {
				v := c.String(name)
				*p = &v
			}
		}
		for name, p := range map[string]**bool{"allow-requests": &u.AllowRequests, "lead-may-work": &u.LeadMayWork,
			"require-review": &u.RequireReview, "plan-approval": &u.PlanApproval} {
			if c.IsSet(name) {
				v := c.Bool(name)
				*p = &v
			}
		}
		if c.IsSet("max-dispatches") {
			n := int(c.Int64("max-dispatches"))
			u.MaxDispatches = &n
		}
		for name, p := range map[string]**time.Duration{"lease": &u.Lease, "stale-after": &u.StaleAfter} {
			if c.IsSet(name) {
				d := c.Duration(name)
				*p = &d
			}
		}
		s, err = m.UpdateBoard(c.Context, args[0], u)
	} else {
		s, err = m.Board(c.Context, args[0])
	}
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, api.BoardOf(args[0], s), func() error {
		tb := newTable(e.stdout, false)
		lead := s.Lead
		if lead == "" {
			lead = "none (the lead's commands need --as)"
		}
		tb.row("lead", lead)
		tb.row("allow requests", strconv.FormatBool(s.AllowRequests))
		tb.row("lead may work", strconv.FormatBool(s.LeadMayWork))
		tb.row("require review", strconv.FormatBool(s.RequireReview))
		tb.row("max dispatches", strconv.Itoa(s.MaxDispatches))
		tb.row("lease", s.Lease.String())
		tb.row("stale after", s.StaleAfter.String())
		tb.row("plan approval", strconv.FormatBool(s.PlanApproval))
		approver := s.PlanApprover
		if approver == "" {
			approver = teammanager.Operator
		}
		tb.row("plan approver", approver)
		return tb.flush()
	})
}

func tasksAddFinding(c *cli.Context, e *env) error {
	if _, err := outputFormat(c); err != nil {
		return err
	}
	args, err := teamTaskArgs(c, "add-finding", "TEAM TASK SUBJECT PREDICATE OBJECT", true, 3, 3)
	if err != nil {
		return err
	}
	if err := needAs(c, "add-finding"); err != nil {
		return err
	}
	f := teammanager.Finding{Confidence: c.Float64("confidence")}
	for i, p := range []*quad.Value{&f.Subject, &f.Predicate, &f.Object} {
		if *p, err = e.parseTermArg(c.Context, args[2+i]); err != nil {
			return fmt.Errorf("tasks add-finding: %s: %w", [3]string{"subject", "predicate", "object"}[i], err)
		}
	}
	// Checked before the store is opened, as findings add does.
	if err := teammanager.CheckFinding(f); err != nil {
		return fmt.Errorf("team %s: agent %s: finding 1 of 1: %w", args[0], c.String("as"), err)
	}
	m, err := e.manager(c, accessWrite)
	if err != nil {
		return err
	}
	ids, err := m.AddTaskFindings(c.Context, args[0], c.String("as"), args[1], []teammanager.Finding{f})
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, api.TaskFindingsAdded{Team: args[0], Task: args[1], IDs: ids}, func() error {
		_, err := fmt.Fprintf(e.stdout, "added finding %s for task %s\n", strings.Join(ids, " "), args[1])
		return err
	})
}
