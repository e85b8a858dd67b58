package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/urfave/cli/v2"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/client"
	"github.com/cortexgraph/cortex/defstore"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/spec"
	"github.com/cortexgraph/cortex/teammanager"
	"github.com/cortexgraph/cortex/workflow"
)

func workflowsCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "workflows",
		Usage: "run the workflows of team definitions (multi-agent-spec team files)",
		Description: `A run is a Cortex team whose members are the agents of the team file's
steps; every workflow type runs. A council runs in rounds: a step per agent
and round (round-N/AGENT) whose findings are its votes. A crew or swarm runs
on its team's task board: its steps are the lead's turns (turn-N/LEAD), and
its members take the board's tasks (see workflows run --help). The workflows commands
go through the server that serves the store (cortexctl serve, --server) if
there is one (workflows.* methods), else open the store themselves; team
files are read here and sent to the server as JSON. A RUN no run has exits
3; one no run can have (not 1 to 64 of A-Z a-z 0-9 . _ @ + -: a/b) exits 7.

Example:
   cortexctl workflows run code-review --input change=HEAD~1 --exec ./review.sh --parallel 4
   cortexctl workflows status RUN`,
		Subcommands: []*cli.Command{
			{
				Name:      "run",
				Usage:     "start a run of a team file or built-in workflow; with --exec, drive it to its end",
				ArgsUsage: "TEAMDEF",
				Description: `TEAMDEF is a team file (JSON, YAML or JSON5), a directory of definitions
holding one team (its agents' definitions go to the steps), or the name of a
built-in workflow (workflows list --builtin); it is checked as cortexctl defs
validate checks it (exit 7 with every problem). Without --exec the run is started and its id printed; a
host drives it (workflow package: Ready, StartStep, AddFindings,
CompleteStep, FailStep).

With --exec, each ready step runs COMMAND with sh -c, at most --parallel at
a time, the step as JSON on stdin:
   {"run": ..., "step": {"name", "agent", "depends_on", "inputs", "outputs"},
    "agent": {agent definition — from TEAMDEF's directory, else the one stored
    by cortexctl defs import — or {"name": ...}}, "context": ..., "inputs": {...},
    "upstream": [{"subject", "predicate", "object", "confidence", "supporters"}],
    "round": N, "tally": {the previous round's tally}}   (round, tally: council steps)
and its stdout read as
   {"outputs": {...}, "findings": [{"subject", "predicate", "object", "confidence"}]}
--input VALUE is a string for inputs declared string or file, else JSON if
it parses as JSON, else a string. An --input NAME that no step declares is a
usage error (exit 2), but for crew, swarm and council, whose agents get the
run's inputs whole.
(terms as in findings add: <iri>, "literal", prefix:name; empty stdout: no
outputs or findings). A non-zero exit, stdout over 64 MiB or anything after
the JSON value fails the step (a lead line or task alike); a step running past
--step-timeout fails and its command is killed with the processes it started.
A council's max_rounds is at most 1000, and its agents × rounds at most 10,000.
A run whose team was disbanded or deleted fails ("team T was disbanded", "team T
was deleted"). A run without a run input that a step requires and nothing else
gives (no "from", no default, not optional) is refused before it starts (exit
7, naming the input; nothing is written). A run in which no step completed
(every step skipped, or failed with a --non-critical agent) fails, as its
team does. The command exits 0 when the run completes, 4 when it fails or is
cancelled; either way it prints the run on stdout (as workflows status does,
--json too), and a failed run's error on stderr.

` + ledHelp + `

Examples:
   cortexctl workflows run team.json --input repo=cortex --input depth=3
   cortexctl workflows run security-review --input target=. --exec 'scan-step.sh' --json
   cortexctl workflows run fixtures/led/crew --exec 'sh fixtures/led/agent.sh' --parallel 2`,
				Flags: withOutput(
					&cli.StringSliceFlag{Name: "input", Usage: "run input NAME=VALUE, repeatable: NAME an input a step declares (any NAME for crew, swarm and council); VALUE as it is for a string or file input, else JSON if it parses as JSON, else a string", KeepSpace: true}, // VALUE as it is, white space too
					&cli.StringFlag{Name: "strategy", Usage: "merge strategy of fan-in steps and the final merge", DefaultText: "the built-in workflow's, else the config's teams.defaultStrategy"},
					&cli.StringFlag{Name: "exec", Usage: "drive the run: run `COMMAND` (sh -c) for each ready step"},
					&cli.Int64Flag{Name: "parallel", Usage: "with --exec, steps run at a time (1..1024)", Value: 1},
					&cli.StringFlag{Name: "id", Usage: "run id (default: generated)"},
					&cli.StringSliceFlag{Name: "non-critical", Usage: "agent whose failed steps do not fail their dependents, repeatable (as the team file names it: ops/a, or a when one team agent has that name)"},
					&cli.Int64Flag{Name: "step-timeout", Usage: "seconds a started step (a crew's or swarm's lead turn or task too) may run before it fails and its command is killed; -1: none", DefaultText: "the config's teams.workflowTimeout"},
					&cli.Int64Flag{Name: "max-turns", Usage: "crew and swarm: the lead's turns at most (1..1000)", DefaultText: "the team file's consensus max_rounds, else 10"},
				),
				Action: func(c *cli.Context) error { return workflowsRun(c, e) },
			},
			{
				Name:      "drive",
				Usage:     "drive an existing run to its end with --exec, beside other drivers",
				ArgsUsage: "RUN",
				Description: `Runs each ready step of RUN with --exec COMMAND, at most --parallel at a time,
as workflows run --exec does (same stdin, stdout and exit codes), until the
run has finished. Several drivers, in this process's host or other
processes, through one server or on the store, may drive one run at once: a
step is started by one of them only. A driver that is interrupted gives its
running steps back (ready again) for another to resume.

A crew or swarm run is driven as workflows run --exec drives it (the lead's
turns and the members' tasks), by one driver at a time: the driver holds
the run (workflows status shows it under "driver") and a second one exits 4
(conflict) while the first runs. A driver killed without letting go (kill
-9) is taken over at once by the next driver on the same host, since its
process is gone; on another host, once its lease ends (15 s). --takeover
takes the run from a driver that is still alive: its running tasks may
then run twice.

Example:
   cortexctl workflows run code-review --id cr1 --input change=HEAD~1
   cortexctl workflows drive cr1 --exec ./review.sh --parallel 4 &
   cortexctl workflows drive cr1 --exec ./review.sh --parallel 4`,
				Flags: withOutput(
					&cli.StringFlag{Name: "exec", Usage: "run `COMMAND` (sh -c) for each ready step (required)"},
					&cli.Int64Flag{Name: "parallel", Usage: "steps run at a time (1..1024)", Value: 1},
					&cli.BoolFlag{Name: "takeover", Usage: "crew and swarm: take the run from the driver that holds it, even a live one"},
				),
				Action: func(c *cli.Context) error { return workflowsDrive(c, e) },
			},
			{
				Name:      "status",
				Usage:     "show a run and its steps (and a council's tallies)",
				ArgsUsage: "RUN",
				Description: `Shows the run, its steps, a council's tallies, and a crew's or swarm's
driver and board tasks. --json prints the run as workflows run, drive,
cancel and list (an array) print it, and as the server's workflows.* methods
return it: names in camelCase, durations in seconds (as a team's timeout):
   {"id", "name", "type", "status", "strategy", "team", "inputs",
    "nonCritical", "stepTimeout" (seconds, 0: none), "createdAt", "startedAt",
    "completedAt", "error",
    "steps": [{"name", "agent", "status", "reason", "actor", "startedAt",
               "completedAt", "outputs", "findings", "votes", "attempt"}],
    "rounds": [{"round", "voters", "final", "topics": [{"subject", "predicate",
               "status", "decidedIn", "winner", "ballots"}]}],
    "driver": {"id", "actor", "host", "pid", "until"},
    "tasks": [...]}   (tasks: a crew's or swarm's, as tasks list --json)
Fields without a value are left out, but id, name, type, status, strategy,
team, stepTimeout, createdAt and steps.`,
				Flags:  withOutput(),
				Action: func(c *cli.Context) error { return workflowsStatus(c, e) },
			},
			{
				Name:  "list",
				Usage: "list runs, oldest first (STEPS: steps completed/steps), or the built-in workflows",
				Flags: withOutput(
					&cli.StringFlag{Name: "status", Usage: "only runs with this status: pending|running|merging|completed|failed|cancelled (any case)"},
					&cli.BoolFlag{Name: "builtin", Usage: "list the built-in workflows instead (no store needed)"},
				),
				Action: func(c *cli.Context) error { return workflowsList(c, e) },
			},
			{
				Name:      "history",
				Usage:     "list every transition of a run and its steps, with time and actor",
				ArgsUsage: "RUN",
				Flags:     withOutput(),
				Action:    func(c *cli.Context) error { return workflowsHistory(c, e) },
			},
			{
				Name:      "cancel",
				Usage:     "cancel a run: running steps fail, the others are skipped",
				ArgsUsage: "RUN",
				Flags:     withOutput(),
				Action:    func(c *cli.Context) error { return workflowsCancel(c, e) },
			},
		},
	}
}

// classified is an error with the api kind that gives its exit code.
type classified struct{ err, kind error }

func (c *classified) Error() string   { return c.err.Error() }
func (c *classified) Unwrap() []error { return []error{c.err, c.kind} }

// wfErr gives the workflow package's errors their exit codes.
func wfErr(err error) error {
	if err == nil {
		return nil
	}
	for _, k := range []struct{ sentinel, kind error }{
		{namespace.ErrInvalidID, api.ErrInvalid}, // before the lookup errors it also wraps
		{workflow.ErrInvalidDef, api.ErrInvalid},
		{workflow.ErrInvalidRun, api.ErrInvalid},
		{workflow.ErrInvalidOutput, api.ErrInvalid},
		{workflow.ErrUnknownRun, api.ErrNotFound},
		{workflow.ErrUnknownStep, api.ErrNotFound},
		{workflow.ErrRunExists, api.ErrConflict},
		{workflow.ErrRunFinished, api.ErrConflict},
		{workflow.ErrInvalidTransition, api.ErrConflict},
	} {
		if errors.Is(err, k.sentinel) {
			return &classified{err, k.kind}
		}
	}
	return err
}

// workflows are the runs of a namespace: *workflow.Engine over the store,
// or *client.Workflows through a server.
type workflows interface {
	workflow.Pull
	Start(ctx context.Context, d workflow.Def, opts workflow.RunOptions) (workflow.Run, error)
	List(ctx context.Context, st workflow.RunStatus) ([]workflow.Run, error)
	History(ctx context.Context, id string) ([]workflow.Transition, error)
	Cancel(ctx context.Context, id, actor string) (workflow.Run, error)
}

var (
	_ workflows = (*workflow.Engine)(nil)
	_ workflows = (*client.Workflows)(nil)
)

// remotePoll is how often a driver through a server polls it while it has
// nothing to do (workflow.DefaultConfig's poll interval).
const remotePoll = 200 * time.Millisecond

// workflows returns the runs of the namespace: through the server if one
// serves the store (see manager), else a workflow engine over the store.
func (e *env) workflows(c *cli.Context, a access) (workflows, error) {
	wf, _, err := e.runsAndBoard(c, a)
	return wf, err
}

func oneRunArg(c *cli.Context, cmd string) (string, error) {
	args, err := wantArgs(c, "workflows "+cmd+": want RUN", 1, 1)
	if err != nil {
		return "", err
	}
	return args[0], nil
}

// parseInputs reads --input NAME=VALUE flags: VALUE is taken as it is for
// an input that d's steps declare as string or file, else as JSON if it
// parses as JSON, else as a string. A NAME given twice is a usage error,
// and so is, for a chain, scatter or graph, a NAME that no step declares
// as an input (a typo would be dropped: the step takes its default, or is
// skipped); a crew's, swarm's or council's agents get the run's inputs
// whole, which their definition does not declare.
func parseInputs(specs []string, d *workflow.Def) (map[string]any, error) {
	text, declared := map[string]bool{}, map[string]bool{}
	for _, s := range d.Steps {
		for _, p := range s.Inputs {
			declared[p.Name] = true
			if p.Type == workflow.String || p.Type == workflow.File {
				text[p.Name] = true
			}
		}
	}
	out := map[string]any{}
	for _, s := range specs {
		name, val, ok := strings.Cut(s, "=")
		if name = strings.TrimSpace(name); !ok || name == "" {
			return nil, usagef("workflows run: --input %q: want NAME=VALUE", s)
		}
		if _, dup := out[name]; dup {
			// Not the last value taken silently, as for a flag that
			// takes one value given twice (repeatedFlag).
			return nil, usagef("workflows run: --input %s given twice: it takes one value", pathText(name))
		}
		var v any
		if text[name] || json.Unmarshal([]byte(val), &v) != nil {
			v = val
		}
		out[name] = v
	}
	if !d.EffectiveType().Deterministic() {
		return out, nil
	}
	for _, name := range slices.Sorted(maps.Keys(out)) {
		if declared[name] {
			continue
		}
		known := "it declares none"
		if len(declared) > 0 {
			known = "declared: " + strings.Join(slices.Sorted(maps.Keys(declared)), ", ")
		}
		return nil, usagef("workflows run: --input %s: no step of %s declares it (%s)", pathText(name), d.Name, known)
	}
	return out, nil
}

func workflowsRun(c *cli.Context, e *env) error {
	if c.NArg() != 1 {
		return usagef("workflows run: want TEAMDEF")
	}
	d, strategy, rep, err := loadTeamDef(c.Args().First())
	printProblems(e, rep)
	if err != nil {
		return wfErr(err)
	}
	if err := d.Validate(); err != nil {
		return wfErr(err)
	}
	inputs, err := parseInputs(c.StringSlice("input"), &d)
	if err != nil {
		return err
	}
	if c.IsSet("strategy") {
		strategy = strategyName(c.String("strategy"))
	}
	if c.IsSet("max-turns") {
		n := c.Int64("max-turns")
		switch {
		case !d.EffectiveType().Led():
			return usagef("workflows run: --max-turns is for crew and swarm runs, not %s", d.EffectiveType())
		case n < 1 || n > workflow.MaxLeadTurns:
			return fmt.Errorf("%w: --max-turns %d: want 1..%d", errInvalid, n, workflow.MaxLeadTurns)
		}
		d.MaxTurns = int(n)
	}
	// A --non-critical agent may be named as the team file may name it:
	// bare, for a qualified team agent (ops/a as a). One that names none,
	// or several, is left as given, for the run to refuse.
	nonCritical := idList(c, "non-critical")
	for i, a := range nonCritical {
		if q := spec.Resolve(d.Agents, a); q != "" {
			nonCritical[i] = q
		}
	}
	opts := workflow.RunOptions{ID: c.String("id"), Strategy: strategy, Inputs: inputs, NonCritical: nonCritical, Actor: "cortexctl"}
	if c.IsSet("step-timeout") {
		switch n := c.Int64("step-timeout"); {
		case n == -1:
			opts.StepTimeout = -1
		case n < 1 || n > int64(1<<62/time.Second):
			return fmt.Errorf("%w: --step-timeout %d: want 1..%d seconds, or -1", errInvalid, n, int64(1<<62/time.Second))
		default:
			opts.StepTimeout = time.Duration(n) * time.Second
		}
	}
	if err := checkParallel(c); err != nil {
		return err
	}
	if c.IsSet("parallel") && c.String("exec") == "" {
		// Nothing runs steps: it was ignored.
		return usagef("workflows run: --parallel is for --exec (a run started without it is driven by its host, or by workflows drive --parallel)")
	}
	// Options and inputs a run could never run with (or without) are
	// refused before the store is opened: nothing is written, no store or
	// namespace created.
	strategies, err := e.strategies(c)
	if err != nil {
		return err
	}
	if err := d.CheckOptions(opts, strategies); err != nil {
		return wfErr(fmt.Errorf("start %s: %w", d.Name, err))
	}
	if err := d.CheckInputs(inputs); err != nil {
		return wfErr(fmt.Errorf("start %s: %w", d.Name, err))
	}
	wf, board, err := e.runsAndBoard(c, accessCreate)
	if err != nil {
		return err
	}
	if err := e.storedAgentDefs(c, &d); err != nil {
		return err
	}
	r, err := wf.Start(c.Context, d, opts)
	if err != nil {
		return wfErr(err)
	}
	command := c.String("exec")
	switch {
	case command != "" && r.Type.Led():
		return driveLed(c, e, wf, board, r.ID, command)
	case command != "":
		return drive(c, e, wf, r.ID, command)
	case r.Type.Led():
		return printLedRun(c, e.stdout, board, r)
	}
	return printRun(c, e.stdout, r)
}

// drive drives run id through wf with --exec command and --parallel, and
// prints the run: exit 4 unless it completed.
func drive(c *cli.Context, e *env, wf workflows, id, command string) error {
	actor := execActor()
	r, err := wf.Get(c.Context, id)
	if err != nil {
		return wfErr(err)
	}
	if err := releaseOrphans(c.Context, wf, r, e.stderr); err != nil {
		return wfErr(err)
	}
	prefixes, err := e.prefixes(c.Context)
	if err != nil {
		return wfErr(err)
	}
	r, err = workflow.Drive(c.Context, wf, id, actor, execRunner(e, command, prefixes), int(c.Int64("parallel")))
	if err != nil {
		return wfErr(fmt.Errorf("run %s: %w (resume it with workflows drive)", id, err))
	}
	if err := printRun(c, e.stdout, r); err != nil {
		return err
	}
	if r.Status != workflow.RunCompleted {
		return &classified{fmt.Errorf("run %s %s: %s", r.ID, r.Status, r.Error), api.ErrConflict}
	}
	return nil
}

func workflowsDrive(c *cli.Context, e *env) error {
	id, err := oneRunArg(c, "drive")
	if err != nil {
		return err
	}
	command := c.String("exec")
	if command == "" {
		return usagef("workflows drive: --exec COMMAND is required")
	}
	if err := checkParallel(c); err != nil {
		return err
	}
	wf, board, err := e.runsAndBoard(c, accessWrite)
	if err != nil {
		return err
	}
	r, err := wf.Get(c.Context, id)
	if err != nil {
		return wfErr(err)
	}
	if r.Type.Led() {
		return driveLed(c, e, wf, board, id, command)
	}
	if c.Bool("takeover") {
		return usagef("workflows drive: --takeover is for crew and swarm runs, which one driver holds; run %s is a %s run, which drivers share", id, r.Type)
	}
	return drive(c, e, wf, id, command)
}

// printRun prints run r: with --json in its api.Run shape.
func printRun(c *cli.Context, w io.Writer, r workflow.Run) error {
	return printResult(c, w, api.RunOf(r), func() error {
		fmt.Fprintf(w, "run %s (%s, %s, strategy %s): %s\n", r.ID, cell(r.Name), r.Type, r.Strategy, r.Status)
		if r.Error != "" {
			fmt.Fprintf(w, "error: %s\n", cell(r.Error))
		}
		t := newTable(w, false, "STEP", "AGENT", "STATUS", "ACTOR", "REASON")
		for _, s := range r.Steps {
			t.row(s.Name, s.Agent, string(s.Status), s.Actor, s.Reason)
		}
		if err := t.flush(); err != nil || len(r.Rounds) == 0 {
			return err
		}
		t = newTable(w, false, "ROUND", "SUBJECT", "PREDICATE", "STATUS", "WINNER", "BALLOTS")
		for _, tl := range r.Rounds {
			for _, tt := range tl.Topics {
				var ballots []string
				for _, b := range tt.Ballots {
					ballots = append(ballots, fmt.Sprintf("%s: %s", strings.Join(b.Objects, " "), strings.Join(b.Agents, ",")))
				}
				t.row(fmt.Sprint(tl.Round), tt.Subject, tt.Predicate, tt.Status, strings.Join(tt.Winner, " "), strings.Join(ballots, "; "))
			}
		}
		return t.flush()
	})
}

func workflowsStatus(c *cli.Context, e *env) error {
	id, err := oneRunArg(c, "status")
	if err != nil {
		return err
	}
	wf, board, err := e.runsAndBoard(c, accessRead)
	if err != nil {
		return err
	}
	r, err := wf.Get(c.Context, id)
	if err != nil {
		return wfErr(err)
	}
	if r.Type.Led() {
		return printLedRun(c, e.stdout, board, r)
	}
	return printRun(c, e.stdout, r)
}

type builtinInfo struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Strategy    string `json:"strategy"`
	Steps       int    `json:"steps"`
	Description string `json:"description"`
}

func workflowsList(c *cli.Context, e *env) error {
	if c.NArg() > 0 {
		return usagef("workflows list: unexpected argument %q", c.Args().First())
	}
	if c.Bool("builtin") && c.IsSet("status") {
		// A built-in workflow has no status: the filter was ignored.
		return usagef("workflows list: --builtin and --status exclude each other")
	}
	if c.Bool("builtin") {
		var out []builtinInfo
		for _, b := range builtinWorkflows {
			d, _, _, err := loadTeamDef(b.name)
			if err != nil {
				return err
			}
			out = append(out, builtinInfo{b.name, string(d.EffectiveType()), b.strategy, len(d.Steps), d.Description})
		}
		return printResult(c, e.stdout, out, func() error {
			t := newTable(e.stdout, false, "NAME", "TYPE", "STRATEGY", "STEPS", "DESCRIPTION")
			for _, b := range out {
				t.row(b.Name, b.Type, b.Strategy, fmt.Sprint(b.Steps), b.Description)
			}
			return t.flush()
		})
	}
	var st workflow.RunStatus
	if s := c.String("status"); s != "" {
		var err error
		if st, err = statusFilter(s, workflow.ParseRunStatus); err != nil {
			// An invalid status (exit 7), as a task's or a message's is,
			// not an "invalid run": `invalid status: run status "X"
			// (want pending, ...)`.
			return fmt.Errorf("%w: run %s", teammanager.ErrInvalidStatus, strings.TrimPrefix(err.Error(), workflow.ErrInvalidRun.Error()+": "))
		}
	}
	wf, err := e.workflows(c, accessRead)
	if err != nil {
		return err
	}
	runs, err := wf.List(c.Context, st)
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, api.RunsOf(runs), func() error {
		t := newTable(e.stdout, false, "RUN", "NAME", "TYPE", "STATUS", "STEPS", "CREATED")
		for _, r := range runs {
			done := 0 // completed: a skipped or failed step did nothing
			for _, s := range r.Steps {
				if s.Status == workflow.StepCompleted {
					done++
				}
			}
			t.row(r.ID, r.Name, string(r.Type), string(r.Status), fmt.Sprintf("%d/%d", done, len(r.Steps)), r.CreatedAt.Format(time.RFC3339))
		}
		return t.flush()
	})
}

func workflowsHistory(c *cli.Context, e *env) error {
	id, err := oneRunArg(c, "history")
	if err != nil {
		return err
	}
	wf, err := e.workflows(c, accessRead)
	if err != nil {
		return err
	}
	h, err := wf.History(c.Context, id)
	if err != nil {
		return wfErr(err)
	}
	return printResult(c, e.stdout, h, func() error {
		t := newTable(e.stdout, false, "SEQ", "TIME", "STEP", "FROM", "TO", "ACTOR", "REASON")
		for _, tr := range h {
			step := tr.Step
			if step == "" {
				step = "(run)"
			}
			t.row(fmt.Sprint(tr.Seq), tr.At.Format(time.RFC3339Nano), step, tr.From, tr.To, tr.Actor, tr.Reason)
		}
		return t.flush()
	})
}

func workflowsCancel(c *cli.Context, e *env) error {
	id, err := oneRunArg(c, "cancel")
	if err != nil {
		return err
	}
	wf, err := e.workflows(c, accessWrite)
	if err != nil {
		return err
	}
	r, err := wf.Cancel(c.Context, id, "cortexctl")
	if err != nil {
		return wfErr(err)
	}
	return printRun(c, e.stdout, r)
}

// execStep is what --exec COMMAND reads on stdin.
type execStep struct {
	Run      string          `json:"run"`
	Step     workflow.Step   `json:"step"`
	Agent    json.RawMessage `json:"agent"`
	Context  string          `json:"context,omitempty"`
	Inputs   map[string]any  `json:"inputs"`
	Upstream []execFact      `json:"upstream"`
	Round    int             `json:"round,omitempty"`
	Tally    *workflow.Tally `json:"tally,omitempty"`
}

type execFact struct {
	Subject    string   `json:"subject"`
	Predicate  string   `json:"predicate"`
	Object     string   `json:"object"`
	Confidence float64  `json:"confidence"`
	Supporters []string `json:"supporters"`
}

// execResult is what --exec COMMAND writes on stdout.
type execResult struct {
	Outputs  map[string]any `json:"outputs"`
	Findings []execFinding  `json:"findings"`
}

// execFinding is a finding --exec COMMAND reports.
type execFinding struct {
	Subject    string  `json:"subject"`
	Predicate  string  `json:"predicate"`
	Object     string  `json:"object"`
	Confidence float64 `json:"confidence"`
}

// parseExecFindings parses the terms of findings fs.
func parseExecFindings(fs []execFinding, prefixes map[string]string) ([]teammanager.Finding, error) {
	var out []teammanager.Finding
	for i, f := range fs {
		var terms [3]quad.Value
		for j, s := range []string{f.Subject, f.Predicate, f.Object} {
			var err error
			if terms[j], err = api.ParseTerm(s, prefixes); err != nil {
				return nil, fmt.Errorf("findings/%d: %v", i, err)
			}
		}
		out = append(out, teammanager.Finding{Subject: terms[0], Predicate: terms[1], Object: terms[2], Confidence: f.Confidence})
	}
	return out, nil
}

// execRunner runs each step as `sh -c command`.
func execRunner(e *env, command string, prefixes map[string]string) workflow.Runner {
	return workflow.RunnerFunc(func(ctx context.Context, rs workflow.ReadyStep) (map[string]any, []teammanager.Finding, error) {
		in := execStep{Run: rs.Run, Step: rs.Step, Agent: rs.Agent, Context: rs.Context, Inputs: rs.Inputs, Upstream: []execFact{}, Round: rs.Round, Tally: rs.Tally}
		if len(in.Agent) == 0 {
			in.Agent, _ = json.Marshal(map[string]string{"name": rs.Step.Agent})
		}
		for _, f := range rs.Upstream {
			in.Upstream = append(in.Upstream, execFact{quad.StringOf(f.Subject), quad.StringOf(f.Predicate), quad.StringOf(f.Object), f.Confidence, f.Supporters})
		}
		stdin, err := json.Marshal(in)
		if err != nil {
			return nil, nil, err
		}
		out, err := runExec(ctx, "step", command, stdin, e.stderr, "CORTEX_RUN="+rs.Run, "CORTEX_STEP="+rs.Step.Name, "CORTEX_AGENT="+rs.Step.Agent)
		if err != nil {
			return nil, nil, err
		}
		if len(bytes.TrimSpace(out)) == 0 {
			return nil, nil, nil
		}
		var res execResult
		if err := decodeExecJSON(out, &res); err != nil {
			return nil, nil, fmt.Errorf("step command output: %v", err)
		}
		fs, err := parseExecFindings(res.Findings, prefixes)
		if err != nil {
			return nil, nil, fmt.Errorf("step command output: %v", err)
		}
		return res.Outputs, fs, nil
	})
}

// storedAgentDefs gives d, for each of its agents whose definition TEAMDEF
// did not bring, the definition stored in the namespace (cortexctl defs
// import), if there is exactly one of that name: the steps hand it to the
// host. An agent with none keeps only its name.
func (e *env) storedAgentDefs(c *cli.Context, d *workflow.Def) error {
	agents := d.Agents
	for _, s := range d.Steps {
		if !slices.Contains(agents, s.Agent) {
			agents = append(slices.Clip(agents), s.Agent)
		}
	}
	rc, err := e.remote()
	if err != nil {
		return err
	}
	var ds *defstore.Store
	if rc == nil {
		if ds, err = e.defStore(c, accessCreate); err != nil {
			return err
		}
	}
	for _, name := range agents {
		if _, ok := d.AgentDefs[name]; ok || name == "" {
			continue
		}
		var def json.RawMessage
		if rc != nil {
			got, err := rc.GetDef(c.Context, name, spec.KindAgent)
			if err != nil {
				// Not stored, ambiguous, or no namespace yet (the run
				// creates it).
				if api.ExitCode(err) == api.ExitNotFound || errors.Is(err, defstore.ErrNotFound) || errors.Is(err, defstore.ErrAmbiguous) {
					continue
				}
				return err
			}
			def = got.Definition
		} else {
			got, err := ds.Get(c.Context, name, spec.KindAgent)
			if err != nil {
				if errors.Is(err, defstore.ErrNotFound) || errors.Is(err, defstore.ErrAmbiguous) {
					continue
				}
				return err
			}
			if def, err = spec.MarshalAgent(got.Agent, "json"); err != nil {
				return err
			}
		}
		if d.AgentDefs == nil {
			d.AgentDefs = map[string]json.RawMessage{}
		}
		d.AgentDefs[name] = def
	}
	return nil
}

// maxParallel is the most steps (or a led run's tasks) that --parallel
// runs at a time.
const maxParallel = 1024

// checkParallel returns an invalid-value error for a --parallel out of
// 1..maxParallel, which was taken as maxParallel silently, as no other
// option's value out of its range is.
func checkParallel(c *cli.Context) error {
	if n := c.Int64("parallel"); n < 1 || n > maxParallel {
		return fmt.Errorf("%w: --parallel %d: want 1..%d", errInvalid, n, maxParallel)
	}
	return nil
}
