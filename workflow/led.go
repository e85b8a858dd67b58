package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cortexgraph/cortex/teammanager"
)

// DefaultMaxTurns is the number of lead turns of a crew or swarm run whose
// Def gives none.
const DefaultMaxTurns = 10

// MaxLeadTurns is the most lead turns a crew or swarm run may have (a turn
// is a step of the run, made at Start).
const MaxLeadTurns = 1000

// Roles of a crew or swarm run's members (RunMember.Role).
const (
	RoleLead       = "lead"       // plans, creates and reviews tasks; takes none
	RoleSpecialist = "specialist" // a crew's worker: takes the tasks the lead assigns, never delegates
	RoleMember     = "member"     // a swarm's worker: self-claims from the shared queue
)

// Outputs of a lead turn step (CompleteStep): whether the lead said done,
// and its summary.
const (
	TurnDone    = "done"
	TurnSummary = "summary"
)

// RunMember is an agent of a crew or swarm run, as its lead's turns and its
// tasks see it.
type RunMember struct {
	Name  string          `json:"name"`            // the agent's name in the definition
	ID    string          `json:"id"`              // its member id (MemberID): tasks' assignee
	Role  string          `json:"role"`            // RoleLead, RoleSpecialist or RoleMember
	Agent json.RawMessage `json:"agent,omitempty"` // its definition, if the Def has it
}

// turnStep is the name of the lead's step for turn n.
func turnStep(n int, lead string) string { return fmt.Sprintf("turn-%d/%s", n, lead) }

// coordinator returns the agent whose turns coordinate a crew or swarm:
// the lead, else (a swarm without one) its first agent.
func (d *Def) coordinator() string {
	if d.Lead != "" || len(d.Agents) == 0 {
		return d.Lead
	}
	return d.Agents[0]
}

func (d *Def) maxTurns() int {
	if d.MaxTurns == 0 {
		return DefaultMaxTurns
	}
	return d.MaxTurns
}

// workers returns the agents of a crew or swarm that take tasks: every
// agent but the lead.
func (d *Def) workers() []string {
	var out []string
	for _, a := range d.Agents {
		if a != d.Lead {
			out = append(out, a)
		}
	}
	return out
}

// members returns the agents of the run's team: a crew's or swarm's
// agents, else the steps' agents.
func (d *Def) members() []string {
	if d.EffectiveType().Led() {
		return d.Agents
	}
	return d.stepAgents()
}

// runMembers returns the members of a crew or swarm run, lead first.
func (d *Def) runMembers() []RunMember {
	var out []RunMember
	add := func(a, role string) {
		out = append(out, RunMember{Name: a, ID: MemberID(a), Role: role, Agent: d.AgentDefs[a]})
	}
	if d.Lead != "" {
		add(d.Lead, RoleLead)
	}
	for _, a := range d.workers() {
		role := RoleMember
		if d.EffectiveType() == Crew && (len(d.Specialists) == 0 || slices.Contains(d.Specialists, a)) {
			role = RoleSpecialist
		}
		add(a, role)
	}
	return out
}

// checkLed adds the problems of a crew's or swarm's rules to bad.
func (d *Def) checkLed(bad func(string, ...any)) {
	typ := d.EffectiveType()
	if len(d.Agents) == 0 {
		bad("agents: a %s needs agents", typ)
		return
	}
	switch {
	case typ == Crew && d.Lead == "":
		bad("lead: a crew needs a lead (collaboration.lead or orchestrator)")
	case d.Lead != "" && !slices.Contains(d.Agents, d.Lead):
		bad("lead: %q is not one of the team's agents", d.Lead)
	case len(d.workers()) == 0:
		bad("agents: a %s needs an agent besides its lead to take tasks", typ)
	}
	for i, s := range d.Specialists {
		switch {
		case s == d.Lead:
			bad("specialists/%d: %q is the lead", i, s)
		case !slices.Contains(d.Agents, s):
			bad("specialists/%d: %q is not one of the team's agents", i, s)
		}
	}
	if d.MaxTurns < 0 {
		bad("max_turns: %d is less than 1", d.MaxTurns)
	}
	if d.MaxTurns > MaxLeadTurns {
		bad("max_turns: %d is more than %d", d.MaxTurns, MaxLeadTurns)
	}
	if d.PlanApproval && d.Lead == "" {
		bad("plan_approval: the %s has no lead to plan", typ)
	}
}

// expandLed gives a crew or swarm its steps: the coordinator's turns
// turn-1/LEAD … turn-N/LEAD (N: maxTurns), each depending on the one
// before, with the outputs done (boolean) and summary (string).
func (d Def) expandLed() Def {
	lead := d.coordinator()
	d.Steps = nil
	if lead == "" || d.maxTurns() > MaxLeadTurns {
		return d // checkLed says why
	}
	outs := []Port{{Name: TurnDone, Type: Boolean}, {Name: TurnSummary, Type: String}}
	for n := 1; n <= d.maxTurns(); n++ {
		s := Step{Name: turnStep(n, lead), Agent: lead, Outputs: outs}
		if n > 1 {
			s.DependsOn = []string{turnStep(n-1, lead)}
		}
		d.Steps = append(d.Steps, s)
	}
	return d
}

// saidDone reports whether a completed turn step said done.
func (s *StepState) saidDone() bool {
	done, _ := s.Outputs[TurnDone].(bool)
	return s.Status == StepCompleted && done
}

// ledTurns skips the turns after the one in which the lead said done.
func (c *change) ledTurns() {
	r := c.rec
	for i := range r.Steps {
		if !r.Steps[i].saidDone() {
			continue
		}
		for k := i + 1; k < len(r.Steps); k++ {
			if s := r.Steps[k].Status; s == StepPending || s == StepReady {
				c.step(k, StepSkipped, SystemActor, fmt.Sprintf("the lead said done in %s", r.Steps[i].Name))
			}
		}
		return
	}
}

// ledOutcome returns the final status of a merged crew or swarm run: failed
// if a turn failed, or if no turn said done.
func (r *record) ledOutcome() (RunStatus, string) {
	for _, s := range r.Steps {
		if s.Status == StepFailed {
			return RunFailed, fmt.Sprintf("step %s failed: %s", s.Name, s.Reason)
		}
	}
	for i := range r.Steps {
		if r.Steps[i].saidDone() {
			return RunCompleted, ""
		}
	}
	return RunFailed, fmt.Sprintf("the lead did not say done in %d turns", len(r.Steps))
}

// configureBoard sets the rules of a crew's or swarm's board: its lead; a
// crew reviews every submission (the lead approves or rejects), a swarm's
// members complete their tasks themselves and may add tasks to the queue;
// with plan_approval, no task is claimed before the operator approves the
// lead's plan.
func (e *Engine) configureBoard(ctx context.Context, team string, d *Def) error {
	s := teammanager.BoardSettings{RequireReview: d.EffectiveType() == Crew, AllowRequests: d.EffectiveType() == Swarm,
		PlanApproval: d.PlanApproval}
	if d.Lead != "" {
		s.Lead = MemberID(d.Lead)
	}
	if _, err := e.tm.ConfigureBoard(ctx, team, s); err != nil {
		return fmt.Errorf("configure the board: %w", err)
	}
	return nil
}

// workerOutcomes returns, once a crew or swarm run is merging or finished,
// the member status of each of its workers: completed if one of its tasks
// completed, else failed.
func (e *Engine) workerOutcomes(ctx context.Context, rec *record, d *Def) (map[string]teammanager.Status, error) {
	done, err := e.tm.ListTasks(ctx, rec.Team, teammanager.TaskFilter{Status: teammanager.TaskCompleted})
	if err != nil {
		return nil, fmt.Errorf("run %s: tasks: %w", rec.ID, err)
	}
	out := map[string]teammanager.Status{}
	for _, a := range d.workers() {
		if a == d.coordinator() {
			continue // a swarm's first agent: its turns decide
		}
		out[a] = teammanager.Failed
		if slices.ContainsFunc(done, func(t teammanager.Task) bool { return t.Assignee == MemberID(a) }) {
			out[a] = teammanager.Completed
		}
	}
	return out, nil
}

// memberTask is what the run's team records as member a's task.
func (d *Def) memberTask(a string) string {
	if d.EffectiveType().Led() {
		for _, m := range d.runMembers() {
			if m.Name == a {
				return m.Role
			}
		}
	}
	var tasks []string
	for _, s := range d.Steps {
		if s.Agent == a {
			tasks = append(tasks, s.Name)
		}
	}
	return strings.Join(tasks, ", ")
}
