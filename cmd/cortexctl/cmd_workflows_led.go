package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/client"
	"github.com/cortexgraph/cortex/teammanager"
	"github.com/cortexgraph/cortex/workflow"
)

// ledHelp is the --exec protocol of crew and swarm runs, in the help of
// workflows run and drive.
const ledHelp = `Crew and swarm: the run's coordination is its team's task board, and COMMAND
plays every part (CORTEX_ROLE says which: lead, specialist or member). When
no task runs and none can be claimed, the lead (collaboration.lead or
orchestrator; a swarm without one: its first agent) takes a turn, at most
--max-turns (default: the team file's consensus max_rounds, else 10):
   stdin  {"role": "lead", "run", "team", "type", "step": "turn-N/LEAD", "turn": N,
           "max_turns", "lead": member id, "agent": {its definition}, "context",
           "inputs": {...}, "members": [{"name", "id", "role", "agent"}],
           "tasks": [every task of the board, as tasks list --json prints them],
           "plan": {the latest revision of the lead's plan, with its state}}
   stdout JSON lines, one operation each:
           {"op": "create", "subject", "description", "assignee", "priority",
            "blocked_by": [task ids, or refs of tasks created before in the turn], "ref"}
           {"op": "approve"|"reject", "task", "feedback"}   (reject needs feedback)
           {"op": "retry"|"skip"|"cancel", "task", "reason"}
           (a task: a task id, or the ref of a task created before in the turn)
           {"op": "plan", "title", "steps": [{"title", "description"}]}   (drafted and submitted)
           {"op": "done", "summary"}
The turn's operations are all checked before any is applied (assignees are
agents of the run, never the lead; a swarm's tasks have no assignee; the
agents' delegation rules hold), then applied in one atomic write of the board:
a non-zero exit or a refused operation fails the turn, and the run, with
nothing of the turn written. Done cancels the tasks still open and ends the run,
which merges and completes; a lead that never says done fails the run. With
the team file's plan_approval, members claim nothing until the operator
approves the lead's plan (cortexctl plans approve RUN --revision N);
meanwhile the lead takes no turn.
Each member (up to --parallel at a time, one task each) claims the next task
it may take (a crew's specialists: the lead's tasks for them or for anyone; a
swarm's members: the shared queue) and COMMAND runs it:
   stdin  {"role": "specialist"|"member", "run", "team", "member": member id,
           "agent": {its definition}, "task": {the task}, "plan": {plan in force},
           "context", "inputs", "upstream": [{"id", "subject", "result"} of its blockers]}
   stdout {"result": "...", "findings": [{"subject", "predicate", "object", "confidence"}],
           "tasks": [{"subject", "description", "priority", "blocked_by"}]}
The result completes the task (a crew's goes to the lead's review, and one the
lead rejects runs again, its feedback in "task"); findings
are recorded with the task and merged with the team; new tasks go to a
swarm's queue, while a crew's specialist asking for one fails its task
(specialists cannot delegate). A non-zero exit fails the task and the lead
is told (an escalation message, and the failed task in its next turn).`

// runsAndBoard returns the runs of the namespace and the task board of
// their teams: through the server if one serves the store, else a workflow
// engine and its team manager over the store.
func (e *env) runsAndBoard(c *cli.Context, a access) (workflows, workflow.Board, error) {
	if rc, err := e.remote(); err != nil || rc != nil {
		if err != nil {
			return nil, nil, err
		}
		return rc.Workflows(remotePoll), rc, nil
	}
	tm, err := e.embeddedManager(c, a)
	if err != nil {
		return nil, nil, err
	}
	en, err := workflow.New(c.Context, e.store, tm, workflow.FromConfig(e.cfg.Teams))
	if err != nil {
		return nil, nil, err
	}
	return en, tm, nil
}

var _ workflow.Board = (*client.Client)(nil)

// driveLed drives crew or swarm run id with --exec command and --parallel,
// and prints the run with its tasks: exit 4 unless it completed.
func driveLed(c *cli.Context, e *env, wf workflows, b workflow.Board, id, command string) error {
	actor := execActor()
	prefixes, err := e.prefixes(c.Context)
	if err != nil {
		return wfErr(err)
	}
	runner := &execLed{e: e, command: command, prefixes: prefixes}
	r, err := workflow.DriveLedWith(c.Context, wf, b, id, actor, runner, workflow.LedOptions{
		Concurrency: int(c.Int64("parallel")), Takeover: c.Bool("takeover"),
	})
	switch {
	case errors.Is(err, workflow.ErrDriverBusy):
		// Another driver holds the run (or took it over): the error says
		// who, and what the operator may do.
		return wfErr(err)
	case err != nil:
		return wfErr(fmt.Errorf("run %s: %w (resume it with workflows drive)", id, err))
	}
	if err := printLedRun(c, e.stdout, b, r); err != nil {
		return err
	}
	if r.Status != workflow.RunCompleted {
		return &classified{fmt.Errorf("run %s %s: %s", r.ID, r.Status, r.Error), api.ErrConflict}
	}
	return nil
}

// ledRun is a crew or swarm run as status prints it with --json: the run
// (api.Run) and its board's tasks.
type ledRun struct {
	api.Run
	Tasks []api.Task `json:"tasks"`
}

// printLedRun prints crew or swarm run r and the tasks of its board (none
// when its team was deleted).
func printLedRun(c *cli.Context, w io.Writer, b workflow.Board, r workflow.Run) error {
	tasks, err := b.ListTasks(c.Context, r.Team, teammanager.TaskFilter{})
	if err != nil && api.ExitCode(err) != api.ExitNotFound {
		return err
	}
	out := ledRun{Run: api.RunOf(r), Tasks: api.TasksOf(tasks)}
	return printResult(c, w, out, func() error {
		if err := printRun(c, w, r); err != nil {
			return err
		}
		if d := r.Driver; d != nil {
			fmt.Fprintf(w, "driver: %s (%s, process %d on %s), lease until %s\n", cell(d.Actor), d.ID, d.PID, cell(d.Host), d.Until.UTC().Format(time.RFC3339))
		}
		t := newTable(w, false, "TASK", "SUBJECT", "ASSIGNEE", "STATUS", "RESULT")
		for _, tk := range tasks {
			res := tk.Result
			if tk.Error != "" {
				res = tk.Error
			}
			t.row(tk.ID, tk.Subject, tk.Assignee, string(tk.Status), res)
		}
		return t.flush()
	})
}

// execLead is what --exec COMMAND reads on stdin in a lead's turn.
type execLead struct {
	Role     string               `json:"role"`
	Run      string               `json:"run"`
	Team     string               `json:"team"`
	Type     workflow.Type        `json:"type"`
	Step     string               `json:"step"`
	Turn     int                  `json:"turn"`
	MaxTurns int                  `json:"max_turns"`
	Lead     string               `json:"lead"`
	Agent    json.RawMessage      `json:"agent"`
	Context  string               `json:"context,omitempty"`
	Inputs   map[string]any       `json:"inputs"`
	Members  []workflow.RunMember `json:"members"`
	Tasks    []api.Task           `json:"tasks"`
	Plan     *teammanager.Plan    `json:"plan,omitempty"`
}

// execTask is what --exec COMMAND reads on stdin for a member's task.
type execTask struct {
	Role     string             `json:"role"`
	Run      string             `json:"run"`
	Team     string             `json:"team"`
	Member   string             `json:"member"`
	Agent    json.RawMessage    `json:"agent"`
	Task     api.Task           `json:"task"`
	Plan     *teammanager.Plan  `json:"plan,omitempty"`
	Context  string             `json:"context,omitempty"`
	Inputs   map[string]any     `json:"inputs"`
	Upstream []execUpstreamTask `json:"upstream"`
}

type execUpstreamTask struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
	Result  string `json:"result"`
}

// execTaskResult is what --exec COMMAND writes on stdout for a task.
type execTaskResult struct {
	Result   string        `json:"result"`
	Findings []execFinding `json:"findings"`
	Tasks    []api.NewTask `json:"tasks"`
}

// execLed runs the lead's turns and the members' tasks as `sh -c command`.
type execLed struct {
	e        *env
	command  string
	prefixes map[string]string
}

var _ workflow.LedRunner = (*execLed)(nil)

func agentOrName(def json.RawMessage, name string) json.RawMessage {
	if len(def) > 0 {
		return def
	}
	b, _ := json.Marshal(map[string]string{"name": name})
	return b
}

// run runs the command with stdin in and env, and returns its stdout.
func (x *execLed) run(ctx context.Context, what string, in any, env ...string) ([]byte, error) {
	stdin, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	return runExec(ctx, what, x.command, stdin, x.e.stderr, env...)
}

// Lead runs a lead's turn and reads its operations, a JSON object a line.
func (x *execLed) Lead(ctx context.Context, turn workflow.LeadTurn) ([]workflow.LeadOp, error) {
	lead := workflow.MemberID(turn.Step.Agent)
	in := execLead{Role: workflow.RoleLead, Run: turn.Run, Team: turn.Team, Type: turn.Type, Step: turn.Step.Name, Turn: turn.Turn,
		MaxTurns: turn.MaxTurns, Lead: lead, Agent: agentOrName(turn.Agent, turn.Step.Agent), Context: turn.Context,
		Inputs: turn.Inputs, Members: turn.Members, Tasks: api.TasksOf(turn.Tasks), Plan: turn.Plan}
	out, err := x.run(ctx, "lead", in, "CORTEX_ROLE=lead", "CORTEX_RUN="+turn.Run, "CORTEX_TEAM="+turn.Team,
		"CORTEX_AGENT="+lead, "CORTEX_STEP="+turn.Step.Name, "CORTEX_TURN="+strconv.Itoa(turn.Turn))
	if err != nil {
		return nil, err
	}
	var ops []workflow.LeadOp
	sc := bufio.NewScanner(bytes.NewReader(out))
	// A line may be as long as the whole output may (runExec bounds it).
	sc.Buffer(make([]byte, 0, 64<<10), maxExecOutput+1)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var op workflow.LeadOp
		if err := decodeExecJSON(line, &op); err != nil {
			return nil, fmt.Errorf("%w: lead command output line %d: %v", workflow.ErrInvalidOutput, n, err)
		}
		ops = append(ops, op)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("lead command output: %v", err)
	}
	return ops, nil
}

// Task runs a member's task and reads its result.
func (x *execLed) Task(ctx context.Context, w workflow.TaskWork) (workflow.TaskResult, error) {
	in := execTask{Role: w.Member.Role, Run: w.Run, Team: w.Team, Member: w.Member.ID, Agent: agentOrName(w.Member.Agent, w.Member.Name),
		Task: api.TaskOf(w.Task), Plan: w.Task.Plan, Context: w.Context, Inputs: w.Inputs, Upstream: []execUpstreamTask{}}
	if in.Inputs == nil {
		in.Inputs = map[string]any{}
	}
	for _, u := range w.Upstream {
		in.Upstream = append(in.Upstream, execUpstreamTask{u.ID, u.Subject, u.Result})
	}
	out, err := x.run(ctx, "task", in, "CORTEX_ROLE="+w.Member.Role, "CORTEX_RUN="+w.Run, "CORTEX_TEAM="+w.Team,
		"CORTEX_AGENT="+w.Member.ID, "CORTEX_TASK="+w.Task.ID)
	if err != nil || len(bytes.TrimSpace(out)) == 0 {
		return workflow.TaskResult{}, err
	}
	var res execTaskResult
	if err := decodeExecJSON(out, &res); err != nil {
		return workflow.TaskResult{}, fmt.Errorf("task command output: %v", err)
	}
	fs, err := parseExecFindings(res.Findings, x.prefixes)
	if err != nil {
		return workflow.TaskResult{}, fmt.Errorf("task command output: %v", err)
	}
	tr := workflow.TaskResult{Result: strings.TrimRight(res.Result, "\n"), Findings: fs}
	for _, nt := range res.Tasks {
		tr.Tasks = append(tr.Tasks, nt.Manager())
	}
	return tr, nil
}
