package spec

import "strings"

// Agent is an agent definition (multi-agent-spec agent.schema.json).
//
// Fields hold what the file says; defaults are not filled in (see
// EffectiveModel). Instructions are the Markdown body of a .md agent. An
// empty list of tools, allowed tools, skills, dependencies or requires
// (tools: [], an agent that may use none) is an empty slice, kept apart
// from an absent one (nil: the runner's default) and written back.
type Agent struct {
	Name         string      `json:"name" yaml:"name"`
	Namespace    string      `json:"namespace,omitempty" yaml:"namespace,omitempty"`
	Description  string      `json:"description,omitempty" yaml:"description,omitempty"`
	Icon         string      `json:"icon,omitempty" yaml:"icon,omitempty"`
	Model        Model       `json:"model,omitempty" yaml:"model,omitempty"`
	Tools        []string    `json:"tools,omitzero" yaml:"tools,omitempty"`
	AllowedTools []string    `json:"allowedTools,omitzero" yaml:"allowedTools,omitempty"`
	Skills       []string    `json:"skills,omitzero" yaml:"skills,omitempty"`
	Dependencies []string    `json:"dependencies,omitzero" yaml:"dependencies,omitempty"`
	Requires     []string    `json:"requires,omitzero" yaml:"requires,omitempty"`
	Instructions string      `json:"instructions,omitempty" yaml:"instructions,omitempty"`
	Tasks        []Task      `json:"tasks,omitempty" yaml:"tasks,omitempty"`
	Role         string      `json:"role,omitempty" yaml:"role,omitempty"`
	Goal         string      `json:"goal,omitempty" yaml:"goal,omitempty"`
	Backstory    string      `json:"backstory,omitempty" yaml:"backstory,omitempty"`
	Delegation   *Delegation `json:"delegation,omitempty" yaml:"delegation,omitempty"`
}

// QualifiedName returns namespace/name, or name for an agent without a
// namespace: the name teams use to refer to the agent.
func (a *Agent) QualifiedName() string { return Qualify(a.Namespace, a.Name) }

// EffectiveModel returns the agent's model, ModelSonnet when unset.
func (a *Agent) EffectiveModel() Model {
	if a.Model == "" {
		return ModelSonnet
	}
	return a.Model
}

// Qualify joins a namespace and a name as teams write agent references.
func Qualify(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// SplitQualified splits an agent reference at its last '/': "a/b/x" is
// namespace "a/b", name "x" (an agent's namespace is its subdirectory, which
// may be nested; the reference spec's SDK splits at the first '/', which
// cannot name such agents).
func SplitQualified(ref string) (ns, name string) {
	if i := strings.LastIndexByte(ref, '/'); i >= 0 {
		return ref[:i], ref[i+1:]
	}
	return "", ref
}

// Model is an agent's capability tier.
type Model string

// Models.
const (
	ModelHaiku  Model = "haiku"
	ModelSonnet Model = "sonnet" // the default
	ModelOpus   Model = "opus"
)

// Task is a check an agent performs.
type Task struct {
	ID          string   `json:"id" yaml:"id"`
	Description string   `json:"description,omitempty" yaml:"description,omitempty"`
	Type        TaskType `json:"type,omitempty" yaml:"type,omitempty"`
	Command     string   `json:"command,omitempty" yaml:"command,omitempty"`
	Pattern     string   `json:"pattern,omitempty" yaml:"pattern,omitempty"`
	File        string   `json:"file,omitempty" yaml:"file,omitempty"`
	Files       string   `json:"files,omitempty" yaml:"files,omitempty"`
	// Required is nil when the file does not say (the schema has no
	// default any more; older files meant true).
	Required       *bool  `json:"required,omitempty" yaml:"required,omitempty"`
	ExpectedOutput string `json:"expected_output,omitempty" yaml:"expected_output,omitempty"`
	HumanInLoop    string `json:"human_in_loop,omitempty" yaml:"human_in_loop,omitempty"`
}

// TaskType is how a task is executed.
type TaskType string

// Task types.
const (
	TaskCommand TaskType = "command"
	TaskPattern TaskType = "pattern"
	TaskFile    TaskType = "file"
	TaskManual  TaskType = "manual" // the default
)

// Delegation is an agent's delegation permissions. Empty lists mean no
// restriction.
type Delegation struct {
	AllowDelegation bool     `json:"allow_delegation,omitempty" yaml:"allow_delegation,omitempty"`
	CanDelegateTo   []string `json:"can_delegate_to,omitempty" yaml:"can_delegate_to,omitempty"`
	CanReceiveFrom  []string `json:"can_receive_from,omitempty" yaml:"can_receive_from,omitempty"`
}

// Team is a team definition (multi-agent-spec team.schema.json).
type Team struct {
	Name          string         `json:"name" yaml:"name"`
	Version       string         `json:"version" yaml:"version"`
	Description   string         `json:"description,omitempty" yaml:"description,omitempty"`
	Agents        []string       `json:"agents" yaml:"agents"`
	Orchestrator  string         `json:"orchestrator,omitempty" yaml:"orchestrator,omitempty"`
	Workflow      *Workflow      `json:"workflow,omitempty" yaml:"workflow,omitempty"`
	Context       string         `json:"context,omitempty" yaml:"context,omitempty"`
	Collaboration *Collaboration `json:"collaboration,omitempty" yaml:"collaboration,omitempty"`
	SelfClaim     bool           `json:"self_claim,omitempty" yaml:"self_claim,omitempty"`
	PlanApproval  bool           `json:"plan_approval,omitempty" yaml:"plan_approval,omitempty"`
}

// WorkflowType returns the team's workflow type, WorkflowGraph when unset.
func (t *Team) WorkflowType() WorkflowType {
	if t.Workflow == nil || t.Workflow.Type == "" {
		return WorkflowGraph
	}
	return t.Workflow.Type
}

// Lead returns the team's lead: collaboration.lead, else the orchestrator
// ("" if neither).
func (t *Team) Lead() string {
	if t.Collaboration != nil && t.Collaboration.Lead != "" {
		return t.Collaboration.Lead
	}
	return t.Orchestrator
}

// Steps returns the workflow's steps (nil without a workflow).
func (t *Team) Steps() []Step {
	if t.Workflow == nil {
		return nil
	}
	return t.Workflow.Steps
}

// StepsOrNil is Steps on a team that may be nil.
func (t *Team) StepsOrNil() []Step {
	if t == nil {
		return nil
	}
	return t.Steps()
}

// Workflow is how a team's agents run.
type Workflow struct {
	Type  WorkflowType `json:"type,omitempty" yaml:"type,omitempty"`
	Steps []Step       `json:"steps,omitempty" yaml:"steps,omitempty"`
}

// WorkflowType is a workflow pattern.
type WorkflowType string

// Workflow types: deterministic (the definition orders the steps) and
// self-directed (the agents do).
const (
	WorkflowChain   WorkflowType = "chain"   // steps one after the other, in order
	WorkflowScatter WorkflowType = "scatter" // fan-out, fan-in
	WorkflowGraph   WorkflowType = "graph"   // a DAG of depends_on; the default
	WorkflowCrew    WorkflowType = "crew"    // a lead delegates to specialists
	WorkflowSwarm   WorkflowType = "swarm"   // agents claim tasks from a queue
	WorkflowCouncil WorkflowType = "council" // peers debate and vote
)

// Deterministic reports whether the definition orders the steps (chain,
// scatter, graph).
func (w WorkflowType) Deterministic() bool {
	return w == WorkflowChain || w == WorkflowScatter || w == WorkflowGraph
}

// Step is one step of a deterministic workflow.
type Step struct {
	Name string `json:"name" yaml:"name"`
	// Agent runs the step; empty when Loop is set (spec v0.9).
	Agent     string   `json:"agent,omitempty" yaml:"agent,omitempty"`
	Loop      string   `json:"loop,omitempty" yaml:"loop,omitempty"`
	DependsOn []string `json:"depends_on,omitempty" yaml:"depends_on,omitempty"`
	Inputs    []Port   `json:"inputs,omitempty" yaml:"inputs,omitempty"`
	Outputs   []Port   `json:"outputs,omitempty" yaml:"outputs,omitempty"`
}

// Port is a step's input or output.
type Port struct {
	Name        string   `json:"name" yaml:"name"`
	Type        PortType `json:"type,omitempty" yaml:"type,omitempty"`
	Description string   `json:"description,omitempty" yaml:"description,omitempty"`
	Required    *bool    `json:"required,omitempty" yaml:"required,omitempty"`
	// From is "step.output" (inputs only): the output of an upstream step
	// this input receives. The step is the part before the first '.'.
	From string `json:"from,omitempty" yaml:"from,omitempty"`
	// Schema and Default are free JSON values (float64 numbers,
	// map[string]interface{} objects); nil when absent. An explicit
	// "default: null" is read as no default, with a warning.
	Schema  interface{} `json:"schema,omitempty" yaml:"schema,omitempty"`
	Default interface{} `json:"default,omitempty" yaml:"default,omitempty"`
}

// FromStep splits From into the step and the output names ("", "" if From
// is empty; output "" if From has no '.').
func (p *Port) FromStep() (step, output string) {
	step, output, _ = strings.Cut(p.From, ".")
	return step, output
}

// PortType is the data type of a port.
type PortType string

// Port types.
const (
	PortString  PortType = "string"
	PortNumber  PortType = "number"
	PortBoolean PortType = "boolean"
	PortObject  PortType = "object"
	PortArray   PortType = "array"
	PortFile    PortType = "file"
)

// Collaboration configures self-directed workflows.
type Collaboration struct {
	Lead        string     `json:"lead,omitempty" yaml:"lead,omitempty"`
	Specialists []string   `json:"specialists,omitempty" yaml:"specialists,omitempty"`
	TaskQueue   bool       `json:"task_queue,omitempty" yaml:"task_queue,omitempty"`
	Consensus   *Consensus `json:"consensus,omitempty" yaml:"consensus,omitempty"`
	Channels    []Channel  `json:"channels,omitempty" yaml:"channels,omitempty"`
}

// Consensus are a council's voting rules.
type Consensus struct {
	// RequiredAgreement is the fraction of voters that must agree, in
	// [0, 1]; nil means 0.5. Unlike the reference SDK, 0 is expressible.
	RequiredAgreement *float64 `json:"required_agreement,omitempty" yaml:"required_agreement,omitempty"`
	// MaxRounds is the number of voting rounds, at least 1; nil means 3.
	MaxRounds *int `json:"max_rounds,omitempty" yaml:"max_rounds,omitempty"`
	// TieBreaker is a team agent or "lead" (the team's Lead).
	TieBreaker string `json:"tie_breaker,omitempty" yaml:"tie_breaker,omitempty"`
}

// Defaults and bounds of Consensus. MaxMaxRounds is the largest
// max_rounds a definition may give (a council run makes a step per agent
// and round up front; package workflow also bounds agents × rounds).
const (
	DefaultRequiredAgreement = 0.5
	DefaultMaxRounds         = 3
	MaxMaxRounds             = 1000
)

// MaxSteps is the largest number of steps a team's workflow may have.
const MaxSteps = 10000

// Agreement returns RequiredAgreement or its default.
func (c *Consensus) Agreement() float64 {
	if c == nil || c.RequiredAgreement == nil {
		return DefaultRequiredAgreement
	}
	return *c.RequiredAgreement
}

// Rounds returns MaxRounds or its default.
func (c *Consensus) Rounds() int {
	if c == nil || c.MaxRounds == nil {
		return DefaultMaxRounds
	}
	return *c.MaxRounds
}

// Channel is a communication channel between agents.
type Channel struct {
	Name string      `json:"name" yaml:"name"`
	Type ChannelType `json:"type" yaml:"type"`
	// Participants are team agents, or "*" for all of them.
	Participants []string `json:"participants,omitempty" yaml:"participants,omitempty"`
}

// ChannelType is how a channel delivers.
type ChannelType string

// Channel types.
const (
	ChannelDirect    ChannelType = "direct"
	ChannelBroadcast ChannelType = "broadcast"
	ChannelPubSub    ChannelType = "pub-sub"
)

// Special references.
const (
	AllAgents = "*"    // a channel participant: every team agent
	LeadAgent = "lead" // a tie breaker or delegation source: the team's lead
)
